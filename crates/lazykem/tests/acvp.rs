//! NIST ACVP ML-KEM vectors (FIPS 203 "internalProjection" files): keyGen and encapDecap
//! (encapsulation, decapsulation incl. implicit rejection, decapsulation- and
//! encapsulation-key checks), on every backend this CPU has. See
//! `vectors/acvp/README.md`; the suites live in `common/acvp_suite.rs`.

mod common;

use common::acvp_suite;

#[test]
fn acvp_keygen() {
    if common::skip_without_vectors() {
        return;
    }
    common::on_every_backend(|backend| {
        assert_eq!(acvp_suite::keygen(backend), acvp_suite::KEYGEN_TESTS);
    });
}

#[test]
fn acvp_encap_decap() {
    if common::skip_without_vectors() {
        return;
    }
    common::on_every_backend(|backend| {
        assert_eq!(
            acvp_suite::encap_decap(backend),
            acvp_suite::ENCAP_DECAP_TESTS
        );
    });
}
