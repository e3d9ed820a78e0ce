//! PKCS#8 / SPKI in the IETF LAMPS ML-KEM format: every vendored example (`vectors/lamps/`:
//! the three private-key forms, the public key and the certificate's public key, per set)
//! parses and re-encodes to the same bytes; `both` keys whose halves disagree are rejected;
//! keys written by RustCrypto `ml-kem` (with `pkcs8`) read here and vice versa; malformed
//! DER is an error.

mod common;

use lazykem::pkcs8::{
    DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey, KeyFormatError,
    PrivateKeyForm,
};
use lazykem::{DecapsulationKey, EncapsulationKey, MlKem512, MlKem768, MlKem1024, ParameterSet};
use pkcs8::LineEnding;
use pkcs8::der::{Decode, Encode};

/// The seed of every LAMPS example: bytes 0, 1, .., 63.
fn lamps_seed() -> [u8; 64] {
    core::array::from_fn(|i| i as u8)
}

/// The DER inside a PEM file (checking its label).
fn pem_der(text: &str, label: &str) -> Vec<u8> {
    let (found, der) = pkcs8::der::pem::decode_vec(text.as_bytes()).expect("valid PEM");
    assert_eq!(found, label);
    der
}

/// The DER of the `subjectPublicKeyInfo` of an X.509 certificate (the 7th field of
/// `tbsCertificate`, RFC 5280), found with `der`'s reader.
fn certificate_spki(der: &[u8]) -> Vec<u8> {
    use pkcs8::der::{Reader, SliceReader};
    let mut reader = SliceReader::new(der).expect("DER");
    let spki = reader
        .sequence(|certificate| {
            let spki = certificate.sequence(|tbs| {
                // version [0], serialNumber, signature, issuer, validity, subject, SPKI.
                let mut fields = Vec::new();
                while !tbs.is_finished() {
                    fields.push(tbs.tlv_bytes()?.to_vec());
                }
                Ok::<_, pkcs8::der::Error>(fields.swap_remove(6))
            })?;
            // signatureAlgorithm, signatureValue.
            while !certificate.is_finished() {
                certificate.tlv_bytes()?;
            }
            Ok::<_, pkcs8::der::Error>(spki)
        })
        .expect("an X.509 certificate");
    reader.finish().expect("nothing after the certificate");
    spki
}

fn lamps_set<P: ParameterSet>() -> usize {
    let n = &P::NAME["ML-KEM-".len()..];
    let expected = DecapsulationKey::<P>::from_seed(&lamps_seed());
    let mut checked = 0;
    for (form, file) in [
        (PrivateKeyForm::Seed, "seed"),
        (PrivateKeyForm::ExpandedKey, "expanded"),
        (PrivateKeyForm::Both, "both"),
    ] {
        let pem = common::read_text(&format!("lamps/ML-KEM-{n}-{file}.priv"));
        let der = pem_der(&pem, "PRIVATE KEY");
        // Through the inherent parser and the RustCrypto trait, DER and PEM.
        let key = DecapsulationKey::<P>::from_pkcs8(&der).expect("LAMPS example parses");
        let via_trait = DecapsulationKey::<P>::from_pkcs8_der(&der).expect("trait parses");
        let via_pem = DecapsulationKey::<P>::from_pkcs8_pem(&pem).expect("PEM parses");
        for k in [&key, &via_trait, &via_pem] {
            assert_eq!(
                k.encapsulation_key(),
                expected.encapsulation_key(),
                "{n} {file}"
            );
            assert_eq!(
                k.to_expanded_bytes().as_ref(),
                expected.to_expanded_bytes().as_ref(),
                "{n} {file}: same key as KeyGen_internal(0..31, 32..63)"
            );
        }
        // A seed comes back for the forms that carry one.
        assert_eq!(
            key.seed().is_some(),
            form != PrivateKeyForm::ExpandedKey,
            "{n} {file}"
        );
        // Re-encoding in the same form gives the same bytes, DER and PEM.
        let again = key.to_pkcs8_der_as(form).expect("encodable");
        assert_eq!(
            again.as_bytes(),
            der.as_slice(),
            "{n} {file}: DER round trip"
        );
        if form != PrivateKeyForm::Both {
            // The trait writes the seed form, or the expanded form for a seedless key.
            let default = key.to_pkcs8_pem(LineEnding::LF).expect("encodable");
            assert_eq!(default.as_str(), pem, "{n} {file}: PEM round trip");
        }
        checked += 1;
    }
    let pem = common::read_text(&format!("lamps/ML-KEM-{n}.pub"));
    let der = pem_der(&pem, "PUBLIC KEY");
    let ek = EncapsulationKey::<P>::from_spki_der(&der).expect("LAMPS .pub parses");
    assert_eq!(&ek, expected.encapsulation_key(), "{n} .pub");
    assert_eq!(
        EncapsulationKey::<P>::from_public_key_pem(&pem).as_ref(),
        Ok(&ek)
    );
    assert_eq!(ek.to_public_key_der().expect("encodable").as_bytes(), der);
    assert_eq!(
        ek.to_public_key_pem(LineEnding::LF).expect("encodable"),
        pem,
        "{n} .pub PEM round trip"
    );
    // The certificate's public key: the same key, and it re-encodes to the same SPKI.
    let cert = pem_der(
        &common::read_text(&format!("lamps/ML-KEM-{n}.crt")),
        "CERTIFICATE",
    );
    let spki = certificate_spki(&cert);
    let from_cert = EncapsulationKey::<P>::from_spki_der(&spki).expect("the certificate's key");
    assert_eq!(&from_cert, expected.encapsulation_key(), "{n} .crt");
    assert_eq!(
        from_cert.to_public_key_der().expect("encodable").as_bytes(),
        spki
    );
    checked + 2
}

#[test]
fn lamps_examples_round_trip() {
    let count = lamps_set::<MlKem512>() + lamps_set::<MlKem768>() + lamps_set::<MlKem1024>();
    assert_eq!(
        count, 15,
        "every vendored LAMPS example (keys and certificates)"
    );
}

/// A `both` key with the seed of one key and the expanded key of another.
fn mismatched_both<P: ParameterSet>() {
    let a = DecapsulationKey::<P>::from_seed(&[1; 64]);
    let b = DecapsulationKey::<P>::from_seed(&[2; 64]);
    let der_a = a.to_pkcs8_der_as(PrivateKeyForm::Both).expect("encodable");
    let der_b = b.to_pkcs8_der_as(PrivateKeyForm::Both).expect("encodable");
    // Swap the expanded halves: same lengths, so the DER stays well formed.
    let expanded_a = a.to_expanded_bytes();
    let expanded_b = b.to_expanded_bytes();
    let mut forged = der_a.as_bytes().to_vec();
    let at = forged
        .windows(expanded_a.as_ref().len())
        .position(|w| w == expanded_a.as_ref())
        .expect("expanded key inside");
    forged[at..at + expanded_b.as_ref().len()].copy_from_slice(expanded_b.as_ref());
    assert_ne!(forged, der_b.as_bytes());
    assert_eq!(
        DecapsulationKey::<P>::from_pkcs8(&forged).err(),
        Some(KeyFormatError::SeedMismatch),
        "{}",
        P::NAME
    );
    assert!(DecapsulationKey::<P>::from_pkcs8_der(&forged).is_err());
}

#[test]
fn both_with_disagreeing_halves_is_rejected() {
    mismatched_both::<MlKem512>();
    mismatched_both::<MlKem768>();
    mismatched_both::<MlKem1024>();
}

#[test]
fn wrong_algorithm_and_seedless_keys() {
    let dk = DecapsulationKey::<MlKem768>::from_seed(&[4; 64]);
    let der = dk.to_pkcs8_der().expect("encodable");
    // A 768 key is not a 512 or 1024 key.
    assert_eq!(
        DecapsulationKey::<MlKem512>::from_pkcs8(der.as_bytes()).err(),
        Some(KeyFormatError::WrongAlgorithm)
    );
    assert_eq!(
        EncapsulationKey::<MlKem1024>::from_spki_der(
            dk.encapsulation_key()
                .to_public_key_der()
                .expect("encodable")
                .as_bytes()
        )
        .err(),
        Some(KeyFormatError::WrongAlgorithm)
    );
    // A key imported from its expanded encoding has no seed to write.
    let imported =
        DecapsulationKey::<MlKem768>::from_expanded_bytes(dk.to_expanded_bytes().as_ref())
            .expect("own key");
    assert_eq!(
        imported.to_pkcs8_der_as(PrivateKeyForm::Seed).err(),
        Some(KeyFormatError::NoSeed)
    );
    let expanded = imported.to_pkcs8_der().expect("the expanded form");
    assert_eq!(
        expanded.as_bytes(),
        dk.to_pkcs8_der_as(PrivateKeyForm::ExpandedKey)
            .expect("encodable")
            .as_bytes()
    );
}

/// Keys written by RustCrypto `ml-kem` read here, and ours read there (a macro: `ml-kem`
/// does not export the bound its key types need).
macro_rules! differential {
    ($ours:ty, $theirs:ty) => {{
        type P = $ours;
        for i in 0..4u8 {
            let seed = [i.wrapping_mul(37) ^ 0x5a; 64];
            let theirs = ml_kem::DecapsulationKey::<$theirs>::from_seed(seed.into());
            let ours = DecapsulationKey::<P>::from_seed(&seed);
            let their_der = theirs.to_pkcs8_der().expect("ml-kem encodes");
            let their_pub = theirs
                .encapsulation_key()
                .to_public_key_der()
                .expect("ml-kem encodes");
            // Theirs read here.
            let read = DecapsulationKey::<P>::from_pkcs8(their_der.as_bytes()).expect("reads");
            assert_eq!(read.encapsulation_key(), ours.encapsulation_key());
            assert_eq!(
                &EncapsulationKey::<P>::from_spki_der(their_pub.as_bytes()).expect("reads"),
                ours.encapsulation_key()
            );
            // Ours read there, and the bytes are the same.
            let our_der = ours.to_pkcs8_der().expect("encodes");
            let our_pub = ours
                .encapsulation_key()
                .to_public_key_der()
                .expect("encodes");
            assert_eq!(
                our_der.as_bytes(),
                their_der.as_bytes(),
                "{} seed form",
                P::NAME
            );
            assert_eq!(our_pub.as_bytes(), their_pub.as_bytes(), "{} SPKI", P::NAME);
            let back = ml_kem::DecapsulationKey::<$theirs>::from_pkcs8_der(our_der.as_bytes())
                .expect("ml-kem reads ours");
            assert!(
                back.encapsulation_key() == theirs.encapsulation_key(),
                "{}",
                P::NAME
            );
            let pk = ml_kem::EncapsulationKey::<$theirs>::from_public_key_der(our_pub.as_bytes())
                .expect("ml-kem reads our SPKI");
            assert!(&pk == theirs.encapsulation_key(), "{}", P::NAME);
        }
    }};
}

#[test]
fn differential_with_rustcrypto_ml_kem() {
    differential!(MlKem512, ml_kem::MlKem512);
    differential!(MlKem768, ml_kem::MlKem768);
    differential!(MlKem1024, ml_kem::MlKem1024);
}

#[test]
fn malformed_der_is_an_error() {
    let dk = DecapsulationKey::<MlKem768>::from_seed(&[9; 64]);
    for form in [
        PrivateKeyForm::Seed,
        PrivateKeyForm::ExpandedKey,
        PrivateKeyForm::Both,
    ] {
        let der = dk.to_pkcs8_der_as(form).expect("encodable");
        let der = der.as_bytes();
        // Every truncation, and every single-byte change of the first 40 bytes (headers,
        // OID, the private key's tag and length).
        for len in 0..der.len() {
            assert!(DecapsulationKey::<MlKem768>::from_pkcs8(&der[..len]).is_err());
        }
        for i in 0..40.min(der.len()) {
            for delta in [1u8, 0x80] {
                let mut bad = der.to_vec();
                bad[i] ^= delta;
                // Some changes still decode (a different, valid key); none may panic.
                let _ = DecapsulationKey::<MlKem768>::from_pkcs8(&bad);
            }
        }
    }
    // An unknown CHOICE form (an INTEGER where the key should be).
    let info = pkcs8::PrivateKeyInfoRef::new(
        pkcs8::spki::AlgorithmIdentifierRef {
            oid: lazykem::pkcs8::ID_ALG_ML_KEM_768,
            parameters: None,
        },
        pkcs8::der::asn1::OctetStringRef::new(&[0x02, 0x01, 0x00]).expect("short"),
    );
    let der = info.to_der().expect("encodes");
    assert_eq!(
        DecapsulationKey::<MlKem768>::from_pkcs8(&der).err(),
        Some(KeyFormatError::UnknownPrivateKeyForm)
    );
    let _ = pkcs8::PrivateKeyInfoRef::from_der(&der).expect("well-formed outer layer");
}

/// Through the RustCrypto traits, a key of another algorithm or parameter set is
/// `OidUnknown { oid }` (as RustCrypto `ml-kem` answers), not a parameters error.
#[test]
fn trait_errors_name_the_unknown_oid() {
    let dk512 = DecapsulationKey::<MlKem512>::from_seed(&[3; 64]);
    let spki = dk512
        .encapsulation_key()
        .to_public_key_der()
        .expect("encodable");
    assert_eq!(
        EncapsulationKey::<MlKem768>::from_public_key_der(spki.as_bytes()).err(),
        Some(pkcs8::spki::Error::OidUnknown {
            oid: lazykem::pkcs8::oid::<MlKem512>()
        })
    );
    let private = dk512.to_pkcs8_der().expect("encodable");
    assert_eq!(
        DecapsulationKey::<MlKem768>::from_pkcs8_der(private.as_bytes()).err(),
        Some(pkcs8::Error::PublicKey(pkcs8::spki::Error::OidUnknown {
            oid: lazykem::pkcs8::oid::<MlKem512>()
        }))
    );
    // An Ed25519 PKCS#8 key (RFC 8410): OID 1.3.101.112.
    let mut ed25519 = hex::decode("302e020100300506032b657004220420").unwrap();
    ed25519.extend_from_slice(&[9; 32]);
    assert_eq!(
        DecapsulationKey::<MlKem768>::from_pkcs8_der(&ed25519).err(),
        Some(pkcs8::Error::PublicKey(pkcs8::spki::Error::OidUnknown {
            oid: pkcs8::ObjectIdentifier::new_unwrap("1.3.101.112")
        }))
    );
    // The inherent PEM functions return this crate's error.
    let pem = dk512
        .encapsulation_key()
        .to_public_key_pem(LineEnding::LF)
        .expect("encodable");
    assert_eq!(
        EncapsulationKey::<MlKem768>::from_spki_pem(&pem).err(),
        Some(KeyFormatError::WrongAlgorithm)
    );
    let pem = dk512.to_pkcs8_pem(LineEnding::LF).expect("encodable");
    assert!(DecapsulationKey::<MlKem512>::from_private_key_pem(&pem).is_ok());
    // A private key's PEM is not a public key's.
    assert!(matches!(
        EncapsulationKey::<MlKem512>::from_spki_pem(&pem),
        Err(KeyFormatError::Der(_))
    ));
}

/// Encrypted PKCS#8 (feature `encryption`): every private form round-trips through
/// `to_pkcs8_encrypted_der_as` and both readers (inherent and trait, DER and PEM); a wrong
/// password is an error.
#[test]
fn encrypted_pkcs8_round_trips_in_every_form() {
    let dk = DecapsulationKey::<MlKem768>::from_seed(&lamps_seed());
    let expanded_only =
        DecapsulationKey::<MlKem768>::from_expanded_bytes(dk.to_expanded_bytes().as_ref())
            .expect("own key");
    let mut rng = rand::rng();
    for form in [
        PrivateKeyForm::Seed,
        PrivateKeyForm::ExpandedKey,
        PrivateKeyForm::Both,
    ] {
        let doc = dk
            .to_pkcs8_encrypted_der_as(form, &mut rng, "correct horse")
            .expect("encrypts");
        let inherent =
            DecapsulationKey::<MlKem768>::from_pkcs8_encrypted(doc.as_bytes(), "correct horse")
                .expect("decrypts");
        let via_trait =
            DecapsulationKey::<MlKem768>::from_pkcs8_encrypted_der(doc.as_bytes(), "correct horse")
                .expect("decrypts");
        for key in [&inherent, &via_trait] {
            assert_eq!(key.encapsulation_key(), dk.encapsulation_key(), "{form:?}");
            assert_eq!(
                key.seed().is_some(),
                form != PrivateKeyForm::ExpandedKey,
                "{form:?}"
            );
        }
        assert_eq!(
            DecapsulationKey::<MlKem768>::from_pkcs8_encrypted(doc.as_bytes(), "wrong").err(),
            Some(KeyFormatError::Encryption)
        );
    }
    // The trait writer (seed form, or expanded for a seedless key), in PEM.
    for key in [&dk, &expanded_only] {
        let pem = key
            .to_pkcs8_encrypted_pem("pw", LineEnding::LF)
            .expect("encrypts");
        assert!(pem.starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----"));
        let again =
            DecapsulationKey::<MlKem768>::from_pkcs8_encrypted_pem(&pem, "pw").expect("decrypts");
        assert_eq!(again.encapsulation_key(), dk.encapsulation_key());
    }
}

/// One call imports any ML-KEM key file: every vendored LAMPS example, of every set and
/// private form, through `AnyDecapsulationKey` / `AnyEncapsulationKey`.
#[test]
fn any_parameter_set_imports_every_lamps_file() {
    use lazykem::pkcs8::{AnyDecapsulationKey, AnyEncapsulationKey};
    let mut count = 0;
    for n in ["512", "768", "1024"] {
        let name = format!("ML-KEM-{n}");
        for form in ["seed", "expanded", "both"] {
            let pem = common::read_text(&format!("lamps/ML-KEM-{n}-{form}.priv"));
            let key = AnyDecapsulationKey::from_pkcs8_pem(&pem).expect("parses");
            assert_eq!(key.parameter_set(), name);
            count += 1;
        }
        let pem = common::read_text(&format!("lamps/ML-KEM-{n}.pub"));
        let key = AnyEncapsulationKey::from_public_key_pem(&pem).expect("parses");
        assert_eq!(key.parameter_set(), name);
        assert_eq!(
            key.as_bytes().len(),
            if n == "512" {
                800
            } else if n == "768" {
                1184
            } else {
                1568
            }
        );
        count += 1;
    }
    assert_eq!(count, 12);
    let mut ed25519 = hex::decode("302e020100300506032b657004220420").unwrap();
    ed25519.extend_from_slice(&[9; 32]);
    assert_eq!(
        AnyDecapsulationKey::from_pkcs8_der(&ed25519).err(),
        Some(KeyFormatError::WrongAlgorithm)
    );
}
