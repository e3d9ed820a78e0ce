//! The opt-in consistency check at import of an expanded key
//! (`DecapsulationKey::from_expanded_bytes_checked`), on bad keys built from the vendored IETF
//! LAMPS examples (`vectors/lamps/ML-KEM-*-expanded.priv`) as the LAMPS draft describes its
//! bad examples: the repository does not vendor the draft's bad-key files, so each is
//! derived here from the good key. Every one is rejected by the checked import; the ones
//! FIPS 203 §7.3 lets through are named.

use crate::common;

use lazykem::pkcs8::KeyFileError;
use lazykem::{DecapsulationKey, Error, MlKem512, MlKem768, MlKem1024, ParameterSet};

/// The expanded FIPS 203 `dk` of the LAMPS example `ML-KEM-{n}-expanded.priv`.
fn lamps_expanded<P: ParameterSet>() -> Vec<u8> {
    let n = &P::NAME["ML-KEM-".len()..];
    let pem = common::read_text(&format!("lamps/ML-KEM-{n}-expanded.priv"));
    let dk = DecapsulationKey::<P>::from_pkcs8_pem(&pem).expect("LAMPS example parses");
    dk.to_expanded_bytes().as_ref().to_vec()
}

/// The bad keys of one set: (what was changed, the key, whether FIPS 203 §7.3 alone
/// catches it).
fn bad_keys<P: ParameterSet>() -> Vec<(&'static str, Vec<u8>, bool)> {
    let good = lamps_expanded::<P>();
    let dk_pke = 384 * P::K;
    let h = dk_pke + P::ENCAPSULATION_KEY_SIZE;
    let mut out = Vec::new();
    // s-hat altered, H(ek) intact (the LAMPS draft's bad key of this kind).
    let mut key = good.clone();
    key[0] ^= 0x01;
    out.push(("one s-hat bit", key, false));
    let mut key = good.clone();
    for b in &mut key[dk_pke - 48..dk_pke] {
        *b ^= 0x5a;
    }
    out.push(("the last s-hat polynomial's tail", key, false));
    // s-hat of another key, beside this key's ek and H(ek).
    let other = DecapsulationKey::<P>::from_seed(&[0xee; 64]);
    let mut key = good.clone();
    key[..dk_pke].copy_from_slice(&other.to_expanded_bytes().as_ref()[..dk_pke]);
    out.push(("s-hat of another key", key, false));
    // ek altered, H(ek) kept: the hash check catches it.
    let mut key = good.clone();
    key[dk_pke + 5] ^= 0x10;
    out.push(("ek altered", key, true));
    // H(ek) altered.
    let mut key = good.clone();
    key[h] ^= 0x80;
    out.push(("H(ek) altered", key, true));
    out
}

fn check_set<P: ParameterSet>() -> usize {
    let good = lamps_expanded::<P>();
    let imported = DecapsulationKey::<P>::from_expanded_bytes_checked(&good)
        .expect("the good LAMPS key passes the check");
    assert!(imported.check_pairwise_consistency().is_ok());
    let mut rejected = 0;
    for (what, key, caught_by_fips) in bad_keys::<P>() {
        let plain = DecapsulationKey::<P>::from_expanded_bytes(&key);
        assert_eq!(
            plain.is_err(),
            caught_by_fips,
            "{} {what}: plain import",
            P::NAME
        );
        let checked = DecapsulationKey::<P>::from_expanded_bytes_checked(&key);
        let expected = if caught_by_fips {
            Error::DecapsulationKeyHashMismatch
        } else {
            Error::DecapsulationKeyInconsistent
        };
        assert_eq!(checked.err(), Some(expected), "{} {what}", P::NAME);
        rejected += 1;
    }
    rejected
}

#[test]
fn lamps_bad_keys_are_all_rejected_by_the_checked_import() {
    if common::skip_without_vectors() {
        return;
    }
    let rejected = check_set::<MlKem512>() + check_set::<MlKem768>() + check_set::<MlKem1024>();
    assert_eq!(rejected, 15);
}

/// The PKCS#8 `both` form compares the expanded key with its seed's: a `both` key whose
/// expanded half has an altered s-hat is rejected by the plain import already.
#[test]
fn lamps_both_form_with_altered_s_hat_is_rejected() {
    use lazykem::pkcs8::PrivateKeyForm;
    if common::skip_without_vectors() {
        return;
    }
    let dk = DecapsulationKey::<MlKem768>::from_pkcs8_pem(&common::read_text(
        "lamps/ML-KEM-768-both.priv",
    ))
    .expect("parses");
    let der = dk
        .to_pkcs8_der_as(PrivateKeyForm::Both)
        .expect("has a seed");
    let mut der = der.as_bytes().to_vec();
    let expanded = dk.to_expanded_bytes();
    // The first byte of the expanded key's s-hat inside the DER.
    let at = der
        .windows(16)
        .position(|w| w == &expanded.as_ref()[..16])
        .expect("expanded key inside");
    der[at] ^= 1;
    assert_eq!(
        DecapsulationKey::<MlKem768>::from_pkcs8_der(&der).err(),
        Some(Error::KeyFile(KeyFileError::SeedMismatch))
    );
}

/// The LAMPS draft's own negative examples (`vectors/lamps/bad-ML-KEM-512-{1..4}.priv`,
/// draft-ietf-lamps-kyber-certificates, "Private Key Consistency Testing"): 1, a `both` key
/// whose seed and expanded key differ; 2, an `expandedKey` with a mutated s_0 and a valid
/// H(ek), which FIPS 203 §7.3 alone accepts; 3, an `expandedKey` with a mutated H(ek); 4, a
/// `both` key whose halves differ only in z. Each is rejected when imported and then checked
/// for pairwise consistency, and key 2 is the one the plain import lets through.
#[test]
fn lamps_draft_bad_keys_are_all_rejected() {
    if common::skip_without_vectors() {
        return;
    }
    for n in 1..=4 {
        let pem = common::read_text(&format!("lamps/bad-ML-KEM-512-{n}.priv"));
        let imported = DecapsulationKey::<MlKem512>::from_pkcs8_pem(&pem);
        if n == 2 {
            let dk = imported.expect("bad key 2 passes the checks of FIPS 203 §7.3");
            assert_eq!(
                dk.check_pairwise_consistency(),
                Err(Error::DecapsulationKeyInconsistent),
                "bad key 2"
            );
            let expanded = dk.to_expanded_bytes();
            assert_eq!(
                DecapsulationKey::<MlKem512>::from_expanded_bytes_checked(expanded.as_ref()).err(),
                Some(Error::DecapsulationKeyInconsistent),
                "bad key 2, checked import of its expanded bytes"
            );
        } else {
            let err = imported.err();
            assert!(err.is_some(), "bad key {n} must be rejected at import");
            eprintln!("bad key {n}: {}", err.unwrap());
        }
    }
}
