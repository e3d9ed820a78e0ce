//! C2SP Wycheproof ML-KEM vectors (all 12 files) on every backend this CPU
//! has. The suites live in `common/wycheproof_suite.rs`.

mod common;

use common::wycheproof_suite as suite;

#[test]
fn wycheproof_keygen_seed() {
    if common::skip_without_vectors() {
        return;
    }
    common::on_every_backend(|backend| {
        assert_eq!(suite::keygen_seed(backend), suite::KEYGEN_SEED_CASES);
    });
}

#[test]
fn wycheproof_decaps_seed() {
    if common::skip_without_vectors() {
        return;
    }
    common::on_every_backend(|backend| {
        assert_eq!(suite::decaps_seed(backend), suite::DECAPS_SEED_CASES);
    });
}

#[test]
fn wycheproof_encaps() {
    if common::skip_without_vectors() {
        return;
    }
    common::on_every_backend(|backend| {
        assert_eq!(suite::encaps(backend), suite::ENCAPS_CASES);
    });
}

#[test]
fn wycheproof_semi_expanded_decaps() {
    if common::skip_without_vectors() {
        return;
    }
    common::on_every_backend(|backend| {
        assert_eq!(
            suite::semi_expanded_decaps(backend),
            suite::SEMI_EXPANDED_DECAPS_CASES
        );
    });
}
