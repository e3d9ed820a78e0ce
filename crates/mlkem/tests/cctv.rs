//! C2SP/CCTV ML-KEM vectors (`strcmp`, `modulus`, `unluckysample`) on the backend the library
//! selects by default. The suites live in `common/cctv_suite.rs`, and `portable_backend.rs`
//! runs them again on the portable backend.

mod common;

use common::cctv_suite as suite;

#[test]
fn cctv_strcmp() {
    let backend = common::default_backend();
    assert_eq!(suite::strcmp(backend), suite::STRCMP_CASES);
}

#[test]
fn cctv_modulus() {
    let backend = common::default_backend();
    assert_eq!(suite::modulus(backend), suite::MODULUS_CASES);
}

#[test]
fn cctv_unlucky_sample() {
    let backend = common::default_backend();
    assert_eq!(suite::unlucky_sample(backend), suite::UNLUCKY_SAMPLE_CASES);
}
