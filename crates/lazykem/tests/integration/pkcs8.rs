//! PKCS#8 / SPKI in the IETF LAMPS ML-KEM format: every vendored example (`vectors/lamps/`:
//! the three private-key forms, the public key and the certificate's public key, per set)
//! parses and re-encodes to the same bytes; `both` keys whose halves disagree are rejected;
//! keys written by RustCrypto `ml-kem` (with `pkcs8`) read here and vice versa; malformed
//! DER is an error; a key of another algorithm names the OID found and the one expected, a
//! PEM of another kind the label found and the one expected.

use crate::common;

use lazykem::pkcs8::{
    AssociatedAlgorithmIdentifier, AssociatedOid, DecodePrivateKey, DecodePublicKey,
    EncodePrivateKey, EncodePublicKey, KeyFileError, PrivateKeyForm,
};
use lazykem::{
    DecapsulationKey, EncapsulationKey, Error, MlKem512, MlKem768, MlKem1024, ParameterSet,
};
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
        let key = DecapsulationKey::<P>::from_pkcs8_der(&der).expect("LAMPS example parses");
        let via_trait =
            <DecapsulationKey<P> as DecodePrivateKey>::from_pkcs8_der(&der).expect("trait parses");
        let via_pem = DecapsulationKey::<P>::from_pkcs8_pem(&pem).expect("PEM parses");
        let via_trait_pem =
            <DecapsulationKey<P> as DecodePrivateKey>::from_pkcs8_pem(&pem).expect("PEM parses");
        for k in [&key, &via_trait, &via_pem, &via_trait_pem] {
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
        assert_eq!(
            key.to_pkcs8_pem_as(form, LineEnding::LF)
                .expect("encodable")
                .as_str(),
            pem,
            "{n} {file}: PEM round trip"
        );
        if form != PrivateKeyForm::Both {
            // The default writers (inherent and trait) write the seed form, or the expanded
            // form for a seedless key.
            let default = key.to_pkcs8_pem(LineEnding::LF).expect("encodable");
            assert_eq!(default.as_str(), pem, "{n} {file}: PEM round trip");
            let via_trait = EncodePrivateKey::to_pkcs8_pem(&key, LineEnding::LF).expect("encodes");
            assert_eq!(via_trait.as_str(), pem, "{n} {file}: trait PEM");
        }
        checked += 1;
    }
    let pem = common::read_text(&format!("lamps/ML-KEM-{n}.pub"));
    let der = pem_der(&pem, "PUBLIC KEY");
    let ek = EncapsulationKey::<P>::from_public_key_der(&der).expect("LAMPS .pub parses");
    assert_eq!(&ek, expected.encapsulation_key(), "{n} .pub");
    assert_eq!(
        EncapsulationKey::<P>::from_public_key_pem(&pem).as_ref(),
        Ok(&ek)
    );
    assert_eq!(ek.to_public_key_der().expect("encodable").as_bytes(), der);
    assert_eq!(
        EncodePublicKey::to_public_key_der(&ek)
            .expect("encodable")
            .as_bytes(),
        der
    );
    assert_eq!(
        <EncapsulationKey<P> as DecodePublicKey>::from_public_key_pem(&pem).as_ref(),
        Ok(&ek)
    );
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
    let from_cert =
        EncapsulationKey::<P>::from_public_key_der(&spki).expect("the certificate's key");
    assert_eq!(&from_cert, expected.encapsulation_key(), "{n} .crt");
    assert_eq!(
        from_cert.to_public_key_der().expect("encodable").as_bytes(),
        spki
    );
    checked + 2
}

#[test]
fn lamps_examples_round_trip() {
    if common::skip_without_vectors() {
        return;
    }
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
        DecapsulationKey::<P>::from_pkcs8_der(&forged).err(),
        Some(Error::KeyFile(KeyFileError::SeedMismatch)),
        "{}",
        P::NAME
    );
    assert!(<DecapsulationKey<P> as DecodePrivateKey>::from_pkcs8_der(&forged).is_err());
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
    // A 768 key is not a 512 or 1024 key: the error names both algorithms.
    assert_eq!(
        DecapsulationKey::<MlKem512>::from_pkcs8_der(der.as_bytes()).err(),
        Some(Error::KeyFile(KeyFileError::Algorithm {
            found: MlKem768::OID,
            expected: Some(MlKem512::OID)
        }))
    );
    assert_eq!(
        EncapsulationKey::<MlKem1024>::from_public_key_der(
            dk.encapsulation_key()
                .to_public_key_der()
                .expect("encodable")
                .as_bytes()
        )
        .err(),
        Some(Error::KeyFile(KeyFileError::Algorithm {
            found: MlKem768::OID,
            expected: Some(MlKem1024::OID)
        }))
    );
    // A key imported from its expanded encoding has no seed to write.
    let imported =
        DecapsulationKey::<MlKem768>::from_expanded_bytes(dk.to_expanded_bytes().as_ref())
            .expect("own key");
    assert_eq!(
        imported.to_pkcs8_der_as(PrivateKeyForm::Seed).err(),
        Some(Error::KeyFile(KeyFileError::NoSeed))
    );
    assert_eq!(
        imported.to_pkcs8_der_as(PrivateKeyForm::Both).err(),
        Some(Error::KeyFile(KeyFileError::NoSeed))
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
            let read = DecapsulationKey::<P>::from_pkcs8_der(their_der.as_bytes()).expect("reads");
            assert_eq!(read.encapsulation_key(), ours.encapsulation_key());
            assert_eq!(
                &EncapsulationKey::<P>::from_public_key_der(their_pub.as_bytes()).expect("reads"),
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
            assert!(DecapsulationKey::<MlKem768>::from_pkcs8_der(&der[..len]).is_err());
        }
        for i in 0..40.min(der.len()) {
            for delta in [1u8, 0x80] {
                let mut bad = der.to_vec();
                bad[i] ^= delta;
                // Some changes still decode (a different, valid key); none may panic.
                let _ = DecapsulationKey::<MlKem768>::from_pkcs8_der(&bad);
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
        DecapsulationKey::<MlKem768>::from_pkcs8_der(&der).err(),
        Some(Error::KeyFile(KeyFileError::UnknownPrivateKeyForm))
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
        <EncapsulationKey<MlKem768> as DecodePublicKey>::from_public_key_der(spki.as_bytes()).err(),
        Some(pkcs8::spki::Error::OidUnknown { oid: MlKem512::OID })
    );
    let private = dk512.to_pkcs8_der().expect("encodable");
    assert_eq!(
        <DecapsulationKey<MlKem768> as DecodePrivateKey>::from_pkcs8_der(private.as_bytes()).err(),
        Some(pkcs8::Error::PublicKey(pkcs8::spki::Error::OidUnknown {
            oid: MlKem512::OID
        }))
    );
    // An Ed25519 PKCS#8 key (RFC 8410): OID 1.3.101.112.
    let mut ed25519 = hex::decode("302e020100300506032b657004220420").unwrap();
    ed25519.extend_from_slice(&[9; 32]);
    assert_eq!(
        <DecapsulationKey<MlKem768> as DecodePrivateKey>::from_pkcs8_der(&ed25519).err(),
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
        EncapsulationKey::<MlKem768>::from_public_key_pem(&pem).err(),
        Some(Error::KeyFile(KeyFileError::Algorithm {
            found: MlKem512::OID,
            expected: Some(MlKem768::OID)
        }))
    );
    let pem = dk512.to_pkcs8_pem(LineEnding::LF).expect("encodable");
    assert!(DecapsulationKey::<MlKem512>::from_pkcs8_pem(&pem).is_ok());
    // A private key's PEM is not a public key's.
    assert!(matches!(
        EncapsulationKey::<MlKem512>::from_public_key_pem(&pem),
        Err(Error::KeyFile(KeyFileError::PemLabel { .. }))
    ));
}

/// Encrypted PKCS#8 (feature `encryption`): every private form round-trips through
/// `to_pkcs8_encrypted_der_as` / `_pem_as` and both readers (inherent and trait, DER and
/// PEM); a wrong password is an error.
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
            DecapsulationKey::<MlKem768>::from_pkcs8_encrypted_der(doc.as_bytes(), "correct horse")
                .expect("decrypts");
        let via_trait = <DecapsulationKey<MlKem768> as DecodePrivateKey>::from_pkcs8_encrypted_der(
            doc.as_bytes(),
            "correct horse",
        )
        .expect("decrypts");
        let pem = dk
            .to_pkcs8_encrypted_pem_as(form, &mut rng, "correct horse", LineEnding::LF)
            .expect("encrypts");
        assert!(pem.starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----"));
        let inherent_pem =
            DecapsulationKey::<MlKem768>::from_pkcs8_encrypted_pem(&pem, "correct horse")
                .expect("decrypts");
        let via_trait_pem =
            <DecapsulationKey<MlKem768> as DecodePrivateKey>::from_pkcs8_encrypted_pem(
                &pem,
                "correct horse",
            )
            .expect("decrypts");
        for key in [&inherent, &via_trait, &inherent_pem, &via_trait_pem] {
            assert_eq!(key.encapsulation_key(), dk.encapsulation_key(), "{form:?}");
            assert_eq!(
                key.seed().is_some(),
                form != PrivateKeyForm::ExpandedKey,
                "{form:?}"
            );
        }
        assert_eq!(
            DecapsulationKey::<MlKem768>::from_pkcs8_encrypted_der(doc.as_bytes(), "wrong").err(),
            Some(Error::KeyFile(KeyFileError::Decryption))
        );
        assert_eq!(
            DecapsulationKey::<MlKem768>::from_pkcs8_encrypted_pem(&pem, "wrong").err(),
            Some(Error::KeyFile(KeyFileError::Decryption))
        );
    }
    // The OS-RNG writers (seed form, or expanded for a seedless key), inherent and the
    // trait's, in PEM and DER.
    for key in [&dk, &expanded_only] {
        let pem = key
            .to_pkcs8_encrypted_pem("pw", LineEnding::LF)
            .expect("encrypts");
        let via_trait =
            EncodePrivateKey::to_pkcs8_encrypted_pem(key, "pw", LineEnding::LF).expect("encrypts");
        let der = key.to_pkcs8_encrypted_der("pw").expect("encrypts");
        for pem in [pem.as_str(), via_trait.as_str()] {
            assert!(pem.starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----"));
            let again = DecapsulationKey::<MlKem768>::from_pkcs8_encrypted_pem(pem, "pw")
                .expect("decrypts");
            assert_eq!(again.encapsulation_key(), dk.encapsulation_key());
            assert_eq!(again.seed(), key.seed());
        }
        let again = DecapsulationKey::<MlKem768>::from_pkcs8_encrypted_der(der.as_bytes(), "pw")
            .expect("decrypts");
        assert_eq!(again.seed(), key.seed());
    }
}

/// One call imports any ML-KEM key file: every vendored LAMPS example, of every set and
/// private form, through `AnyDecapsulationKey` / `AnyEncapsulationKey`.
#[test]
fn any_parameter_set_imports_every_lamps_file() {
    use lazykem::pkcs8::{AnyDecapsulationKey, AnyEncapsulationKey};
    if common::skip_without_vectors() {
        return;
    }
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
        Some(Error::KeyFile(KeyFileError::Algorithm {
            found: pkcs8::ObjectIdentifier::new_unwrap("1.3.101.112"),
            expected: None
        }))
    );
}

/// The parameter sets carry their OIDs as RustCrypto `ml-kem`'s do (`AssociatedOid`), the
/// sets and the key types their algorithm identifiers, parameters absent.
#[test]
fn associated_oids_and_algorithm_identifiers() {
    fn check<P: ParameterSet>(oid: &str, theirs: pkcs8::ObjectIdentifier) {
        let oid = pkcs8::ObjectIdentifier::new_unwrap(oid);
        assert_eq!(P::OID, oid, "{}", P::NAME);
        assert_eq!(theirs, oid, "{}: RustCrypto ml-kem's", P::NAME);
        for identifier in [
            P::ALGORITHM_IDENTIFIER,
            EncapsulationKey::<P>::ALGORITHM_IDENTIFIER,
            DecapsulationKey::<P>::ALGORITHM_IDENTIFIER,
        ] {
            assert_eq!(identifier.oid, oid);
            assert!(identifier.parameters.is_none());
        }
        // The key files carry that OID.
        let dk = DecapsulationKey::<P>::from_seed(&[5; 64]);
        let der = dk.to_pkcs8_der().expect("encodes");
        let info = pkcs8::PrivateKeyInfoRef::from_der(der.as_bytes()).expect("DER");
        assert_eq!(info.algorithm.oid, oid);
    }
    check::<MlKem512>(
        "2.16.840.1.101.3.4.4.1",
        <ml_kem::MlKem512 as AssociatedOid>::OID,
    );
    check::<MlKem768>(
        "2.16.840.1.101.3.4.4.2",
        <ml_kem::MlKem768 as AssociatedOid>::OID,
    );
    check::<MlKem1024>(
        "2.16.840.1.101.3.4.4.3",
        <ml_kem::MlKem1024 as AssociatedOid>::OID,
    );
    assert_eq!(MlKem768::OID, lazykem::pkcs8::ID_ALG_ML_KEM_768);
}

/// An Ed25519 PKCS#8 key (RFC 8410, OID 1.3.101.112) and its SPKI.
fn ed25519_files() -> (Vec<u8>, Vec<u8>) {
    let mut private = hex::decode("302e020100300506032b657004220420").unwrap();
    private.extend_from_slice(&[9; 32]);
    let mut public = hex::decode("302a300506032b6570032100").unwrap();
    public.extend_from_slice(&[9; 32]);
    (private, public)
}

/// A key of another algorithm names the OID found (by name for an ML-KEM set, dotted
/// otherwise) and the one expected; parameters present name the algorithm.
#[test]
fn wrong_algorithm_messages_name_both_oids() {
    let dk512 = DecapsulationKey::<MlKem512>::from_seed(&[3; 64]);
    let private = dk512.to_pkcs8_der().expect("encodes");
    let public = dk512
        .encapsulation_key()
        .to_public_key_der()
        .expect("encodes");
    let expected = "key is id-alg-ml-kem-512 (2.16.840.1.101.3.4.4.1), \
                    expected id-alg-ml-kem-768 (2.16.840.1.101.3.4.4.2)";
    let err = DecapsulationKey::<MlKem768>::from_pkcs8_der(private.as_bytes()).unwrap_err();
    assert_eq!(err.to_string(), expected);
    let err = EncapsulationKey::<MlKem768>::from_public_key_der(public.as_bytes()).unwrap_err();
    assert_eq!(err.to_string(), expected);
    let err = EncapsulationKey::<MlKem1024>::from_public_key_der(public.as_bytes()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "key is id-alg-ml-kem-512 (2.16.840.1.101.3.4.4.1), \
         expected id-alg-ml-kem-1024 (2.16.840.1.101.3.4.4.3)"
    );

    let (ed_private, ed_public) = ed25519_files();
    let err = DecapsulationKey::<MlKem768>::from_pkcs8_der(&ed_private).unwrap_err();
    assert_eq!(
        err.to_string(),
        "key is 1.3.101.112, expected id-alg-ml-kem-768 (2.16.840.1.101.3.4.4.2)"
    );
    let err = EncapsulationKey::<MlKem512>::from_public_key_der(&ed_public).unwrap_err();
    assert_eq!(
        err.to_string(),
        "key is 1.3.101.112, expected id-alg-ml-kem-512 (2.16.840.1.101.3.4.4.1)"
    );
    let any = "key is 1.3.101.112, expected an ML-KEM key (id-alg-ml-kem-512, -768 or -1024)";
    let err = lazykem::pkcs8::AnyDecapsulationKey::from_pkcs8_der(&ed_private).unwrap_err();
    assert_eq!(err.to_string(), any);
    let err = lazykem::pkcs8::AnyEncapsulationKey::from_public_key_der(&ed_public).unwrap_err();
    assert_eq!(err.to_string(), any);
    assert_eq!(
        err,
        Error::KeyFile(KeyFileError::Algorithm {
            found: pkcs8::ObjectIdentifier::new_unwrap("1.3.101.112"),
            expected: None
        })
    );

    // The right OID with parameters (NULL): named, and the trait errors as before.
    let info = pkcs8::PrivateKeyInfoRef::new(
        pkcs8::spki::AlgorithmIdentifierRef {
            oid: MlKem768::OID,
            parameters: Some(pkcs8::der::asn1::AnyRef::NULL),
        },
        pkcs8::der::asn1::OctetStringRef::new(&[0x04, 0x00]).expect("short"),
    );
    let der = info.to_der().expect("encodes");
    let err = DecapsulationKey::<MlKem768>::from_pkcs8_der(&der).unwrap_err();
    assert_eq!(
        err,
        Error::KeyFile(KeyFileError::AlgorithmParameters { oid: MlKem768::OID })
    );
    assert_eq!(
        err.to_string(),
        "algorithm identifier id-alg-ml-kem-768 (2.16.840.1.101.3.4.4.2) has parameters \
         (they must be absent)"
    );
    assert_eq!(
        <DecapsulationKey<MlKem768> as DecodePrivateKey>::from_pkcs8_der(&der).err(),
        Some(pkcs8::Error::ParametersMalformed)
    );
}

/// A PEM document of another kind names the label found and the one expected, and the
/// function that reads it.
#[test]
fn wrong_pem_label_messages_name_both_labels() {
    use lazykem::pkcs8::{AnyDecapsulationKey, AnyEncapsulationKey};
    let dk = DecapsulationKey::<MlKem768>::from_seed(&[6; 64]);
    let private = dk.to_pkcs8_pem(LineEnding::LF).expect("encodes");
    let encrypted = dk
        .to_pkcs8_encrypted_pem_as(PrivateKeyForm::Seed, &mut rand::rng(), "pw", LineEnding::LF)
        .expect("encrypts");
    let public = dk
        .encapsulation_key()
        .to_public_key_pem(LineEnding::CRLF)
        .expect("encodes");
    let certificate = pkcs8::der::pem::encode_string("CERTIFICATE", LineEnding::LF, &[0x30, 0x00])
        .expect("encodes");
    let message = |e: Error| e.to_string();

    let encrypted_as_plain = "PEM label is `ENCRYPTED PRIVATE KEY`, expected `PRIVATE KEY`: \
                              use from_pkcs8_encrypted_pem";
    for err in [
        DecapsulationKey::<MlKem768>::from_pkcs8_pem(&encrypted).unwrap_err(),
        AnyDecapsulationKey::from_pkcs8_pem(&encrypted).unwrap_err(),
    ] {
        assert_eq!(message(err), encrypted_as_plain);
        let Error::KeyFile(KeyFileError::PemLabel { found, expected }) = err else {
            panic!("{err:?}")
        };
        assert_eq!(found, "ENCRYPTED PRIVATE KEY");
        assert_eq!(found.as_str(), "ENCRYPTED PRIVATE KEY");
        assert!(!found.is_truncated());
        assert_eq!(expected, lazykem::pkcs8::PRIVATE_KEY_LABEL);
    }
    let plain_as_encrypted = "PEM label is `PRIVATE KEY`, expected `ENCRYPTED PRIVATE KEY`: \
                              use from_pkcs8_pem";
    for err in [
        DecapsulationKey::<MlKem768>::from_pkcs8_encrypted_pem(&private, "pw").unwrap_err(),
        AnyDecapsulationKey::from_pkcs8_encrypted_pem(&private, "pw").unwrap_err(),
    ] {
        assert_eq!(message(err), plain_as_encrypted);
    }
    for err in [
        DecapsulationKey::<MlKem768>::from_pkcs8_pem(&public).unwrap_err(),
        AnyDecapsulationKey::from_pkcs8_pem(&public).unwrap_err(),
    ] {
        assert_eq!(
            message(err),
            "PEM label is `PUBLIC KEY`, expected `PRIVATE KEY`: use from_public_key_pem"
        );
    }
    for err in [
        EncapsulationKey::<MlKem768>::from_public_key_pem(&private).unwrap_err(),
        AnyEncapsulationKey::from_public_key_pem(&private).unwrap_err(),
    ] {
        assert_eq!(
            message(err),
            "PEM label is `PRIVATE KEY`, expected `PUBLIC KEY`: use from_pkcs8_pem"
        );
    }
    assert_eq!(
        message(EncapsulationKey::<MlKem768>::from_public_key_pem(&encrypted).unwrap_err()),
        "PEM label is `ENCRYPTED PRIVATE KEY`, expected `PUBLIC KEY`: \
         use from_pkcs8_encrypted_pem"
    );
    // No reader of this crate takes a certificate: no hint.
    assert_eq!(
        message(EncapsulationKey::<MlKem768>::from_public_key_pem(&certificate).unwrap_err()),
        "PEM label is `CERTIFICATE`, expected `PUBLIC KEY`"
    );
    // A label longer than 32 bytes is kept in part and says so.
    let long = public.replace("PUBLIC KEY", "A VERY LONG LABEL THAT NO KEY FILE HAS");
    let err = EncapsulationKey::<MlKem768>::from_public_key_pem(&long).unwrap_err();
    let Error::KeyFile(KeyFileError::PemLabel { found, .. }) = err else {
        panic!("{err:?}")
    };
    assert!(found.is_truncated());
    assert_eq!(found.as_str(), "A VERY LONG LABEL THAT NO KEY FI");
    assert_ne!(found, "A VERY LONG LABEL THAT NO KEY FI");
    assert_eq!(
        message(err),
        "PEM label is `A VERY LONG LABEL THAT NO KEY FI...`, expected `PUBLIC KEY`"
    );
    // Not PEM at all: the PEM decoder's error, as `KeyFileError::Der`.
    let err = EncapsulationKey::<MlKem768>::from_public_key_pem("not a key").unwrap_err();
    assert!(
        matches!(err, Error::KeyFile(KeyFileError::Der(_))),
        "{err:?}"
    );
    assert!(message(err).starts_with("malformed key file: "));
    assert!(core::error::Error::source(&err).is_some());
}

/// The messages of the other key-file errors, each its own.
#[test]
fn key_file_error_messages() {
    let errors = [
        KeyFileError::UnknownPrivateKeyForm,
        KeyFileError::SeedMismatch,
        KeyFileError::PublicKeyMismatch,
        KeyFileError::NoSeed,
        KeyFileError::Decryption,
        KeyFileError::EncryptionScheme {
            oid: pkcs8::ObjectIdentifier::new_unwrap("1.2.840.113549.1.5.3"),
        },
        KeyFileError::EncryptionRng,
        KeyFileError::Encryption,
    ];
    let messages: Vec<String> = errors
        .iter()
        .map(|&e| Error::KeyFile(e).to_string())
        .collect();
    assert_eq!(
        messages,
        [
            "the private key is neither a seed [0], an expandedKey nor both",
            "the private key's seed and expanded key are not the same key",
            "the PKCS#8 publicKey is not the private key's encapsulation key",
            "the key was imported from its expanded form and has no seed to write",
            "cannot decrypt the encrypted PKCS#8 key: wrong password or damaged document",
            "encrypted PKCS#8 key: algorithm 1.2.840.113549.1.5.3 is not supported or its \
             parameters are not acceptable",
            "cannot encrypt the PKCS#8 key: the random number generator failed",
            "cannot encrypt the PKCS#8 key",
        ]
    );
    for e in errors {
        assert_eq!(Error::from(e), Error::KeyFile(e));
        assert!(core::error::Error::source(&Error::KeyFile(e)).is_none());
    }
}

/// An RNG that always fails.
struct Broken;

impl rand::TryRng for Broken {
    type Error = std::io::Error;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Err(std::io::Error::other("broken"))
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Err(std::io::Error::other("broken"))
    }
    fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Self::Error> {
        Err(std::io::Error::other("broken"))
    }
}

impl rand::TryCryptoRng for Broken {}

/// A PBES1 document (pbeWithMD5AndDES-CBC, which `pkcs8` parses and does not decrypt) is
/// an unsupported scheme, not a wrong password; a failing RNG given to a writer is named.
#[test]
fn encryption_scheme_and_rng_failures() {
    // EncryptedPrivateKeyInfo { pbeWithMD5AndDES-CBC { salt, 1 iteration }, 16 bytes }.
    let mut pbes1 = hex::decode("302e301a06092a864886f70d010503300d0408").unwrap();
    pbes1.extend_from_slice(&[1; 8]);
    pbes1.extend_from_slice(&hex::decode("0201010410").unwrap());
    pbes1.extend_from_slice(&[2; 16]);
    assert_eq!(
        DecapsulationKey::<MlKem768>::from_pkcs8_encrypted_der(&pbes1, "pw").err(),
        Some(Error::KeyFile(KeyFileError::EncryptionScheme {
            oid: pkcs8::ObjectIdentifier::new_unwrap("1.2.840.113549.1.5.3")
        }))
    );
    // Not an EncryptedPrivateKeyInfo at all.
    assert!(matches!(
        DecapsulationKey::<MlKem768>::from_pkcs8_encrypted_der(&pbes1[1..], "pw"),
        Err(Error::KeyFile(KeyFileError::Der(_)))
    ));

    let dk = DecapsulationKey::<MlKem512>::from_seed(&[8; 64]);
    assert_eq!(
        dk.to_pkcs8_encrypted_der_as(PrivateKeyForm::Seed, &mut Broken, "pw")
            .err(),
        Some(Error::KeyFile(KeyFileError::EncryptionRng))
    );
    // The form's own error comes first.
    let seedless =
        DecapsulationKey::<MlKem512>::from_expanded_bytes(dk.to_expanded_bytes().as_ref())
            .expect("own key");
    assert_eq!(
        seedless
            .to_pkcs8_encrypted_der_as(PrivateKeyForm::Both, &mut Broken, "pw")
            .err(),
        Some(Error::KeyFile(KeyFileError::NoSeed))
    );
}

/// The `Any` keys write what they read, in every form, and implement the traits.
#[test]
fn any_keys_write_and_implement_the_traits() {
    use lazykem::pkcs8::{AnyDecapsulationKey, AnyEncapsulationKey};
    let mut rng = rand::rng();
    let dk = DecapsulationKey::<MlKem1024>::from_seed(&[2; 64]);
    for form in [
        PrivateKeyForm::Seed,
        PrivateKeyForm::ExpandedKey,
        PrivateKeyForm::Both,
    ] {
        let der = dk.to_pkcs8_der_as(form).expect("encodes");
        let any = AnyDecapsulationKey::from_pkcs8_der(der.as_bytes()).expect("reads");
        assert_eq!(any.parameter_set(), "ML-KEM-1024");
        assert_eq!(any.oid(), MlKem1024::OID);
        assert_eq!(
            any.to_pkcs8_der_as(form).expect("encodes").as_bytes(),
            der.as_bytes()
        );
        assert_eq!(
            any.to_pkcs8_pem_as(form, LineEnding::LF).expect("encodes"),
            dk.to_pkcs8_pem_as(form, LineEnding::LF).expect("encodes")
        );
        let encrypted = any
            .to_pkcs8_encrypted_pem_as(form, &mut rng, "pw", LineEnding::LF)
            .expect("encrypts");
        let again = AnyDecapsulationKey::from_pkcs8_encrypted_pem(&encrypted, "pw").expect("reads");
        assert_eq!(
            again.to_pkcs8_der_as(form).expect("encodes").as_bytes(),
            der.as_bytes()
        );
        let encrypted = any
            .to_pkcs8_encrypted_der_as(form, &mut rng, "pw")
            .expect("encrypts");
        let again = AnyDecapsulationKey::from_pkcs8_encrypted_der(encrypted.as_bytes(), "pw")
            .expect("reads");
        assert_eq!(again.parameter_set(), "ML-KEM-1024");
    }
    let any = AnyDecapsulationKey::from_pkcs8_pem(&dk.to_pkcs8_pem(LineEnding::LF).unwrap())
        .expect("reads");
    assert_eq!(
        any.to_pkcs8_der().expect("encodes").as_bytes(),
        EncodePrivateKey::to_pkcs8_der(&any)
            .expect("encodes")
            .as_bytes()
    );
    let encrypted = any
        .to_pkcs8_encrypted_pem("pw", LineEnding::LF)
        .expect("OS RNG");
    assert!(AnyDecapsulationKey::from_pkcs8_encrypted_pem(&encrypted, "pw").is_ok());
    let encrypted = any.to_pkcs8_encrypted_der("pw").expect("OS RNG");
    assert!(AnyDecapsulationKey::from_pkcs8_encrypted_der(encrypted.as_bytes(), "pw").is_ok());

    // The public half, through the inherent functions and the traits.
    let ek = any.encapsulation_key();
    assert_eq!(ek.as_bytes(), dk.encapsulation_key().as_bytes().as_slice());
    assert_eq!(ek.oid(), MlKem1024::OID);
    let der = ek.to_public_key_der().expect("encodes");
    assert_eq!(
        der,
        dk.encapsulation_key().to_public_key_der().expect("encodes")
    );
    assert_eq!(
        EncodePublicKey::to_public_key_der(&ek).expect("encodes"),
        der
    );
    let pem = ek.to_public_key_pem(LineEnding::LF).expect("encodes");
    assert_eq!(
        AnyEncapsulationKey::from_public_key_pem(&pem).as_ref(),
        Ok(&ek)
    );
    assert_eq!(
        <AnyEncapsulationKey as DecodePublicKey>::from_public_key_der(der.as_bytes()).as_ref(),
        Ok(&ek)
    );
    let private = any.to_pkcs8_der().expect("encodes");
    let via_trait = <AnyDecapsulationKey as DecodePrivateKey>::from_pkcs8_der(private.as_bytes())
        .expect("reads");
    assert_eq!(via_trait.encapsulation_key(), ek);

    // Trait errors for a key that is not ML-KEM: the OID found.
    let (ed_private, ed_public) = ed25519_files();
    let oid = pkcs8::ObjectIdentifier::new_unwrap("1.3.101.112");
    assert_eq!(
        <AnyDecapsulationKey as DecodePrivateKey>::from_pkcs8_der(&ed_private).err(),
        Some(pkcs8::Error::PublicKey(pkcs8::spki::Error::OidUnknown {
            oid
        }))
    );
    assert_eq!(
        <AnyEncapsulationKey as DecodePublicKey>::from_public_key_der(&ed_public).err(),
        Some(pkcs8::spki::Error::OidUnknown { oid })
    );
}

/// An `EncryptedPrivateKeyInfo` with the given key derivation, AES-256-CBC and a
/// ciphertext that is never decrypted (building it derives nothing).
fn encrypted_with_kdf(kdf: pkcs8::pkcs5::pbes2::Kdf) -> Vec<u8> {
    use pkcs8::pkcs5::{EncryptionScheme, pbes2};
    let scheme: EncryptionScheme = pbes2::Parameters {
        kdf,
        encryption: pbes2::EncryptionScheme::Aes256Cbc { iv: [9; 16] },
    }
    .into();
    pkcs8::EncryptedPrivateKeyInfoRef {
        encryption_algorithm: scheme,
        encrypted_data: pkcs8::der::asn1::OctetStringRef::new(&[0x5a; 96]).expect("octets"),
    }
    .to_der()
    .expect("encodes")
}

/// Encrypted PKCS#8 from a hostile file: a key derivation over the documented limits (2^32 - 1
/// PBKDF2 iterations, scrypt N = 2^40, scrypt p = 65,535) is refused before any derivation,
/// naming the parameter and the limit, by every encrypted reader (typed sets and `Any`, DER
/// and PEM); scrypt N = 0 is an unacceptable scheme, not a panic; documents at the parameters
/// OpenSSL and this crate's writer use are read.
#[test]
fn encrypted_pkcs8_kdf_cost_is_bounded() {
    use lazykem::pkcs8::{
        AnyDecapsulationKey, KdfParameter, MAX_PBKDF2_ITERATIONS, MAX_SCRYPT_MEMORY,
        MAX_SCRYPT_PARALLELIZATION,
    };
    use pkcs8::pkcs5::pbes2::{self, Kdf, Pbkdf2Params, Pbkdf2Prf, Salt, ScryptParams};

    let salt = Salt::new([3; 16]).expect("salt");
    let scrypt = |cost_parameter, block_size, parallelization| {
        Kdf::Scrypt(ScryptParams {
            salt,
            cost_parameter,
            block_size,
            parallelization,
            key_length: None,
        })
    };
    let cases = [
        (
            Kdf::Pbkdf2(Pbkdf2Params {
                salt,
                iteration_count: u32::MAX,
                key_length: None,
                prf: Pbkdf2Prf::HmacWithSha256,
            }),
            KdfParameter::Pbkdf2Iterations,
            u64::from(u32::MAX),
            u64::from(MAX_PBKDF2_ITERATIONS),
        ),
        (
            scrypt(1 << 40, 8, 1),
            KdfParameter::ScryptMemory,
            1024 << 40,
            MAX_SCRYPT_MEMORY,
        ),
        (
            scrypt(1 << 14, 8, u16::MAX),
            KdfParameter::ScryptParallelization,
            u64::from(u16::MAX),
            u64::from(MAX_SCRYPT_PARALLELIZATION),
        ),
    ];
    for (kdf, parameter, value, limit) in cases {
        let der = encrypted_with_kdf(kdf);
        let pem = pkcs8::der::pem::encode_string("ENCRYPTED PRIVATE KEY", LineEnding::LF, &der)
            .expect("PEM");
        let error = Error::KeyFile(KeyFileError::KdfCost {
            parameter,
            value,
            limit,
        });
        let message = error.to_string();
        let expected = Some(error);
        let results = [
            DecapsulationKey::<MlKem512>::from_pkcs8_encrypted_der(&der, "pw").err(),
            DecapsulationKey::<MlKem768>::from_pkcs8_encrypted_der(&der, "pw").err(),
            DecapsulationKey::<MlKem1024>::from_pkcs8_encrypted_der(&der, "pw").err(),
            DecapsulationKey::<MlKem768>::from_pkcs8_encrypted_pem(&pem, "pw").err(),
        ];
        for result in results {
            assert_eq!(result, expected, "{parameter:?}");
        }
        let any = AnyDecapsulationKey::from_pkcs8_encrypted_der(&der, "pw").err();
        assert_eq!(any, expected, "{parameter:?}");
        let any = AnyDecapsulationKey::from_pkcs8_encrypted_pem(&pem, "pw").err();
        assert_eq!(any, expected, "{parameter:?}");
        assert!(message.contains(&limit.to_string()), "{message}");
        assert!(message.contains(&parameter.to_string()), "{message}");
    }

    let zero = encrypted_with_kdf(scrypt(0, 8, 1));
    assert_eq!(
        DecapsulationKey::<MlKem768>::from_pkcs8_encrypted_der(&zero, "pw").err(),
        Some(Error::KeyFile(KeyFileError::EncryptionScheme {
            oid: pbes2::SCRYPT_OID
        }))
    );

    // OpenSSL's default (PBKDF2-HMAC-SHA256, 2,048 iterations) and this crate's writer
    // (scrypt N = 2^14, r = 8, p = 1) are read.
    let dk = DecapsulationKey::<MlKem768>::from_seed(&lamps_seed());
    let plain = dk.to_pkcs8_der().expect("encodes");
    let info = pkcs8::PrivateKeyInfoRef::from_der(plain.as_bytes()).expect("DER");
    let openssl = pbes2::Parameters::generate_pbkdf2_sha256_aes256cbc(2048, &[4; 16], [5; 16])
        .expect("parameters");
    let ours = dk
        .to_pkcs8_encrypted_der_as(PrivateKeyForm::Seed, &mut rand::rng(), "pw")
        .expect("encrypts");
    for doc in [
        info.encrypt_with_params(openssl, "pw").expect("encrypts"),
        ours,
    ] {
        let again = DecapsulationKey::<MlKem768>::from_pkcs8_encrypted_der(doc.as_bytes(), "pw")
            .expect("within the limits");
        assert_eq!(again.seed(), dk.seed());
    }
}
