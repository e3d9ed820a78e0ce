//! NIST ACVP ML-KEM vectors (FIPS 203 "internalProjection" files): keyGen and encapDecap
//! (encapsulation, decapsulation incl. implicit rejection, decapsulation- and
//! encapsulation-key checks), on the backend the library selects by default. See
//! `shared/vectors/acvp/README.md`; the suites live in `common/acvp_suite.rs`, and
//! `portable_backend.rs` runs them again on the portable backend.

mod common;

use common::acvp_suite;

#[test]
fn acvp_keygen() {
    let backend = common::default_backend();
    assert_eq!(acvp_suite::keygen(backend), acvp_suite::KEYGEN_TESTS);
}

#[test]
fn acvp_encap_decap() {
    let backend = common::default_backend();
    assert_eq!(
        acvp_suite::encap_decap(backend),
        acvp_suite::ENCAP_DECAP_TESTS
    );
}
