//! Differential tests against RustCrypto `ml-kem` on the backend the library selects by
//! default. The properties live in `common/differential_suite.rs`, and `portable_backend.rs`
//! runs them again on the portable backend.

mod common;

use common::differential_suite as suite;

#[test]
fn kem_matches_reference() {
    let backend = common::default_backend();
    assert_eq!(suite::kem(backend), [suite::CASES_PER_SET; 3]);
}

#[test]
fn ek_check_matches_reference() {
    let backend = common::default_backend();
    assert_eq!(suite::ek_check(backend), [suite::CASES_PER_SET; 3]);
}
