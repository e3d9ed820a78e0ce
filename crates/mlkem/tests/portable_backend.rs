//! Every vector suite (ACVP, Wycheproof, CCTV) and the differential tests again, with the
//! portable backend forced, so both the portable reference backend and the one selected by CPU
//! detection (e.g. AVX2, in `acvp.rs`, `wycheproof.rs`, `cctv.rs` and `differential.rs`) are
//! checked, with the same case counts. `mlkem::force_portable` is process-wide, which is why
//! this is a test binary of its own: every test in it forces the portable backend before doing
//! anything, and nothing in this process ever un-forces it.
//!
//! Without AVX2 the default-backend binaries already ran on the portable backend; the suites
//! still run here (and say so), which costs little and keeps this binary's meaning fixed.

mod common;

use common::{acvp_suite, cctv_suite, differential_suite, wycheproof_suite};

#[test]
fn acvp_on_portable_backend() {
    let backend = common::forced_portable_backend();
    assert_eq!(acvp_suite::keygen(backend), acvp_suite::KEYGEN_TESTS);
    assert_eq!(
        acvp_suite::encap_decap(backend),
        acvp_suite::ENCAP_DECAP_TESTS
    );
}

#[test]
fn wycheproof_on_portable_backend() {
    use wycheproof_suite as suite;
    let backend = common::forced_portable_backend();
    assert_eq!(suite::keygen_seed(backend), suite::KEYGEN_SEED_CASES);
    assert_eq!(suite::decaps_seed(backend), suite::DECAPS_SEED_CASES);
    assert_eq!(suite::encaps(backend), suite::ENCAPS_CASES);
    assert_eq!(
        suite::semi_expanded_decaps(backend),
        suite::SEMI_EXPANDED_DECAPS_CASES
    );
}

#[test]
fn cctv_on_portable_backend() {
    use cctv_suite as suite;
    let backend = common::forced_portable_backend();
    assert_eq!(suite::strcmp(backend), suite::STRCMP_CASES);
    assert_eq!(suite::modulus(backend), suite::MODULUS_CASES);
    assert_eq!(suite::unlucky_sample(backend), suite::UNLUCKY_SAMPLE_CASES);
}

#[test]
fn differential_on_portable_backend() {
    use differential_suite as suite;
    let backend = common::forced_portable_backend();
    assert_eq!(suite::kem(backend), [suite::CASES_PER_SET; 3]);
    assert_eq!(suite::ek_check(backend), [suite::CASES_PER_SET; 3]);
}
