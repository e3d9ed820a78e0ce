//! NIST ACVP ML-KEM vectors (FIPS 203 "internalProjection" files): keyGen and encapDecap
//! (encapsulation, decapsulation incl. implicit rejection, decapsulation- and
//! encapsulation-key checks), on the backend the library selects by default. See
//! `shared/vectors/acvp/README.md`; the suites live in `common/acvp_suite.rs`.

mod common;

use common::acvp_suite;

#[test]
fn acvp_keygen() {
    assert_eq!(acvp_suite::keygen("default backend"), 75);
}

#[test]
fn acvp_encap_decap() {
    assert_eq!(acvp_suite::encap_decap("default backend"), 195);
}
