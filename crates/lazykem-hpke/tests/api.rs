//! The public API on random inputs: round trips for every (KEM, KDF, AEAD) this build has,
//! in both modes, and a named error for every malformed input.

use lazykem_hpke::{AeadId, Error, KdfId, KemId, PrivateKey, PublicKey, Suite};

fn supported_kems() -> impl Iterator<Item = KemId> {
    KemId::ALL.into_iter().filter(|k| k.is_supported())
}

/// Every suite of a supported KEM: seal and open two messages in each mode, a tampered
/// message fails, exports agree, the single-shot API agrees with the contexts.
#[test]
fn round_trip_every_suite() {
    let mut rng = rand::rng();
    let mut suites = 0;
    for kem in supported_kems() {
        let (sk, pk) = kem.generate_key_pair(&mut rng).unwrap();
        for kdf in KdfId::ALL {
            for aead in AeadId::ALL {
                let suite = Suite::new(kem, kdf, aead);
                round_trip(suite, &sk, &pk);
                suites += 1;
            }
        }
    }
    // 10 KEMs (3 ML-KEM, 3 hybrids, 4 DHKEM with X448 in the tests' features) x 7 KDFs x
    // 4 AEADs.
    assert_eq!(suites, 10 * 7 * 4);
}

fn round_trip(suite: Suite, sk: &PrivateKey, pk: &PublicKey) {
    let mut rng = rand::rng();
    let (info, psk, psk_id) = (b"info".as_slice(), [0x5a; 32], b"psk id".as_slice());
    for psk_mode in [false, true] {
        let (enc, mut s) = if psk_mode {
            suite.setup_sender_psk(pk, info, &psk, psk_id, &mut rng)
        } else {
            suite.setup_sender(pk, info, &mut rng)
        }
        .unwrap();
        assert_eq!(enc.len(), suite.kem.n_enc());
        let mut r = if psk_mode {
            suite.setup_receiver_psk(sk, &enc, info, &psk, psk_id)
        } else {
            suite.setup_receiver(sk, &enc, info)
        }
        .unwrap();
        assert_eq!(
            *s.export(b"x", 42).unwrap(),
            *r.export(b"x", 42).unwrap(),
            "{suite}"
        );
        assert_ne!(*s.export(b"x", 42).unwrap(), *r.export(b"y", 42).unwrap());
        if suite.aead == AeadId::ExportOnly {
            assert_eq!(
                s.seal(b"", b"pt"),
                Err(Error::ExportOnly(AeadId::ExportOnly))
            );
            continue;
        }
        for (i, pt) in [&b"first"[..], &[0u8; 1000][..], b""]
            .into_iter()
            .enumerate()
        {
            let aad = [i as u8; 3];
            let ct = s.seal(&aad, pt).unwrap();
            assert_eq!(ct.len(), pt.len() + suite.aead.n_t());
            let mut bad = ct.clone();
            bad[0] ^= 1;
            assert_eq!(r.open(&aad, &bad), Err(Error::Open), "{suite}");
            assert_eq!(r.open(&aad, &ct).unwrap(), pt, "{suite}");
            // The same message again is refused: the receiver moved on.
            assert_eq!(r.open(&aad, &ct), Err(Error::Open), "{suite}");
        }
        // In place, detached.
        let mut buffer = *b"in place";
        let tag = s.seal_in_place_detached(b"aad", &mut buffer).unwrap();
        assert_ne!(&buffer, b"in place");
        r.open_in_place_detached(b"aad", &mut buffer, &tag).unwrap();
        assert_eq!(&buffer, b"in place");
        assert_eq!(s.sequence_number(), 4);
        assert_eq!(r.sequence_number(), 4);
    }
    if suite.aead != AeadId::ExportOnly {
        let (enc, ct) = suite.seal(pk, info, b"aad", b"single", &mut rng).unwrap();
        assert_eq!(suite.open(sk, &enc, info, b"aad", &ct).unwrap(), b"single");
        // Another info or the PSK mode gives another context.
        assert_eq!(
            suite.open(sk, &enc, b"other", b"aad", &ct),
            Err(Error::Open)
        );
        assert_eq!(
            suite.open_psk(sk, &enc, info, b"aad", &ct, &psk, psk_id),
            Err(Error::Open)
        );
        let (enc, ct) = suite
            .seal_psk(pk, info, b"aad", b"psk", &psk, psk_id, &mut rng)
            .unwrap();
        assert_eq!(
            suite
                .open_psk(sk, &enc, info, b"aad", &ct, &psk, psk_id)
                .unwrap(),
            b"psk"
        );
        // A different PSK (or id) fails to open.
        assert_eq!(
            suite.open_psk(sk, &enc, info, b"aad", &ct, &[0x5b; 32], psk_id),
            Err(Error::Open)
        );
        assert_eq!(
            suite.open_psk(sk, &enc, info, b"aad", &ct, &psk, b"psk ie"),
            Err(Error::Open)
        );
    }
    let (enc, secret) = suite.send_export(pk, info, b"ctx", 16, &mut rng).unwrap();
    assert_eq!(
        *suite.receive_export(sk, &enc, info, b"ctx", 16).unwrap(),
        *secret
    );
}

#[test]
fn wrong_lengths_are_named_errors() {
    let mut rng = rand::rng();
    for kem in supported_kems() {
        let (sk, pk) = kem.generate_key_pair(&mut rng).unwrap();
        let suite = Suite::new(kem, KdfId::HkdfSha256, AeadId::Aes128Gcm);
        for delta in [-1isize, 1] {
            let n = |x: usize| x.checked_add_signed(delta).unwrap();
            let mut bytes = pk.as_bytes().to_vec();
            bytes.resize(n(kem.n_pk()), 0);
            assert_eq!(
                PublicKey::from_bytes(kem, &bytes),
                Err(Error::PublicKeyLength {
                    expected: kem.n_pk(),
                    actual: n(kem.n_pk())
                }),
                "{kem}"
            );
            let mut bytes = sk.to_bytes().to_vec();
            bytes.resize(n(kem.n_sk()), 0);
            assert_eq!(
                PrivateKey::from_bytes(kem, &bytes).err(),
                Some(Error::PrivateKeyLength {
                    expected: kem.n_sk(),
                    actual: n(kem.n_sk())
                }),
                "{kem}"
            );
            let enc = vec![4u8; n(kem.n_enc())];
            assert_eq!(
                suite.setup_receiver(&sk, &enc, b"").err(),
                Some(Error::EncapsulatedKeyLength {
                    expected: kem.n_enc(),
                    actual: n(kem.n_enc())
                }),
                "{kem}"
            );
        }
        assert!(PublicKey::from_bytes(kem, &[]).is_err());
        assert!(PrivateKey::from_bytes(kem, &[]).is_err());
        assert!(suite.setup_receiver(&sk, &[], b"").is_err());
    }
}

#[test]
fn psk_inputs_are_checked() {
    let mut rng = rand::rng();
    let suite = Suite::new(
        KemId::MlKem768,
        KdfId::TurboShake128,
        AeadId::ChaCha20Poly1305,
    );
    let (sk, pk) = suite.generate_key_pair(&mut rng).unwrap();
    let (enc, _) = suite.setup_sender(&pk, b"", &mut rng).unwrap();
    for (psk, id, err) in [
        (&b""[..], &b""[..], Error::MissingPsk),
        (&b""[..], &b"id"[..], Error::InconsistentPsk),
        (&[1u8; 32][..], &b""[..], Error::InconsistentPsk),
    ] {
        assert_eq!(
            suite.setup_sender_psk(&pk, b"", psk, id, &mut rng).err(),
            Some(err)
        );
        assert_eq!(
            suite.setup_receiver_psk(&sk, &enc, b"", psk, id).err(),
            Some(err)
        );
        assert_eq!(
            suite
                .seal_psk(&pk, b"", b"", b"pt", psk, id, &mut rng)
                .err(),
            Some(err)
        );
        assert_eq!(
            suite.open_psk(&sk, &enc, b"", b"", &[0; 32], psk, id).err(),
            Some(err)
        );
    }
}

#[test]
fn suites_and_keys_must_agree() {
    let mut rng = rand::rng();
    let (sk, pk) = KemId::DhkemX25519HkdfSha256
        .generate_key_pair(&mut rng)
        .unwrap();
    let suite = Suite::new(KemId::MlKem512, KdfId::HkdfSha256, AeadId::Aes128Gcm);
    let mismatch = Error::KemMismatch {
        expected: KemId::MlKem512,
        actual: KemId::DhkemX25519HkdfSha256,
    };
    assert_eq!(suite.setup_sender(&pk, b"", &mut rng).err(), Some(mismatch));
    assert_eq!(
        suite.setup_receiver(&sk, &[0; 768], b"").err(),
        Some(mismatch)
    );
    assert_eq!(
        Suite::from_ids(0x0012, 1, 1),
        Err(Error::UnknownKem(0x0012))
    );
    assert_eq!(Suite::from_ids(0x0020, 4, 1), Err(Error::UnknownKdf(4)));
    assert_eq!(Suite::from_ids(0x0020, 1, 0), Err(Error::UnknownAead(0)));
}

/// Vacuous in the tests' own build (every KEM is there, X448 included); the crate's unit
/// tests and a build without `x448` exercise it.
#[test]
fn unsupported_kems_are_named() {
    for kem in KemId::ALL.into_iter().filter(|k| !k.is_supported()) {
        assert_eq!(
            kem.generate_key_pair(&mut rand::rng()).err(),
            Some(Error::UnsupportedKem(kem))
        );
        assert_eq!(
            PublicKey::from_bytes(kem, &vec![0; kem.n_pk()]).err(),
            Some(Error::UnsupportedKem(kem))
        );
        assert_eq!(
            kem.derive_key_pair(&[0; 32]).err(),
            Some(Error::UnsupportedKem(kem))
        );
    }
}

#[test]
fn low_order_dhkem_inputs_fail_validation() {
    let mut rng = rand::rng();
    // X25519 points of small order: 0, 1, and the order-8 point of RFC 7748's list.
    let mut one = [0u8; 32];
    one[0] = 1;
    let order8 =
        hex::decode("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800").unwrap();
    let suite = Suite::new(
        KemId::DhkemX25519HkdfSha256,
        KdfId::HkdfSha256,
        AeadId::Aes128Gcm,
    );
    let (sk, _) = suite.generate_key_pair(&mut rng).unwrap();
    for point in [&[0u8; 32][..], &one, &order8] {
        let pk = PublicKey::from_bytes(suite.kem, point).unwrap();
        assert_eq!(
            suite.setup_sender(&pk, b"", &mut rng).err(),
            Some(Error::Validation)
        );
        assert_eq!(
            suite.setup_receiver(&sk, point, b"").err(),
            Some(Error::Validation)
        );
    }
    // P-256: the generator's x with a wrong y is off the curve; the identity has no
    // uncompressed encoding (0x00 alone).
    let suite = Suite::new(
        KemId::DhkemP256HkdfSha256,
        KdfId::HkdfSha256,
        AeadId::Aes128Gcm,
    );
    let (sk, pk) = suite.generate_key_pair(&mut rng).unwrap();
    let mut bad = pk.as_bytes().to_vec();
    bad[64] ^= 1;
    assert_eq!(
        PublicKey::from_bytes(suite.kem, &bad),
        Err(Error::InvalidPublicKey)
    );
    assert_eq!(
        suite.setup_receiver(&sk, &bad, b"").err(),
        Some(Error::InvalidEncapsulatedKey)
    );
    let mut zeros = [0u8; 65];
    zeros[0] = 4;
    assert_eq!(
        suite.setup_receiver(&sk, &zeros, b"").err(),
        Some(Error::InvalidEncapsulatedKey)
    );
}

#[test]
fn export_limits() {
    let mut rng = rand::rng();
    for (kdf, max) in [
        (KdfId::HkdfSha256, 255 * 32),
        (KdfId::HkdfSha384, 255 * 48),
        (KdfId::HkdfSha512, 255 * 64),
        (KdfId::Shake256, 65535),
    ] {
        let suite = Suite::new(KemId::DhkemX25519HkdfSha256, kdf, AeadId::ExportOnly);
        let (_, pk) = suite.generate_key_pair(&mut rng).unwrap();
        let (_, ctx) = suite.setup_sender(&pk, b"", &mut rng).unwrap();
        assert_eq!(ctx.export(b"", max).unwrap().len(), max);
        assert_eq!(
            ctx.export(b"", max + 1).err(),
            Some(Error::ExportLength {
                max,
                actual: max + 1
            })
        );
        assert_eq!(kdf.max_export_len(), max);
    }
}
