//! C2SP/CCTV ML-KEM vectors (`strcmp`, `modulus`, `unluckysample`) on every backend this
//! CPU has. The suites live in `common/cctv_suite.rs`.

mod common;

use common::cctv_suite as suite;

#[test]
fn cctv_strcmp() {
    if common::skip_without_vectors() {
        return;
    }
    common::on_every_backend(|backend| {
        assert_eq!(suite::strcmp(backend), suite::STRCMP_CASES);
    });
}

#[test]
fn cctv_modulus() {
    if common::skip_without_vectors() {
        return;
    }
    common::on_every_backend(|backend| {
        assert_eq!(suite::modulus(backend), suite::MODULUS_CASES);
    });
}

#[test]
fn cctv_unlucky_sample() {
    if common::skip_without_vectors() {
        return;
    }
    common::on_every_backend(|backend| {
        assert_eq!(suite::unlucky_sample(backend), suite::UNLUCKY_SAMPLE_CASES);
    });
}
