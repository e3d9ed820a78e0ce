//! Differential tests against RustCrypto `ml-kem` on every backend this CPU
//! has. The properties live in `common/differential_suite.rs`.

mod common;

use common::differential_suite as suite;

#[test]
fn kem_matches_reference() {
    common::on_every_backend(|backend| {
        assert_eq!(suite::kem(backend), [suite::CASES_PER_SET; 3]);
    });
}

#[test]
fn ek_check_matches_reference() {
    common::on_every_backend(|backend| {
        assert_eq!(suite::ek_check(backend), [suite::CASES_PER_SET; 3]);
    });
}
