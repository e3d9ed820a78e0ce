//! C2SP Wycheproof ML-KEM vectors (all 12 files) on the backend the library selects by
//! default. The suites live in `common/wycheproof_suite.rs`, and `portable_backend.rs` runs
//! them again on the portable backend.

mod common;

use common::wycheproof_suite as suite;

#[test]
fn wycheproof_keygen_seed() {
    let backend = common::default_backend();
    assert_eq!(suite::keygen_seed(backend), suite::KEYGEN_SEED_CASES);
}

#[test]
fn wycheproof_decaps_seed() {
    let backend = common::default_backend();
    assert_eq!(suite::decaps_seed(backend), suite::DECAPS_SEED_CASES);
}

#[test]
fn wycheproof_encaps() {
    let backend = common::default_backend();
    assert_eq!(suite::encaps(backend), suite::ENCAPS_CASES);
}

#[test]
fn wycheproof_semi_expanded_decaps() {
    let backend = common::default_backend();
    assert_eq!(
        suite::semi_expanded_decaps(backend),
        suite::SEMI_EXPANDED_DECAPS_CASES
    );
}
