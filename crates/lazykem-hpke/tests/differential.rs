//! Differential tests against the `hpke` crate (rust-hpke 0.15, every feature) on random
//! inputs, for the KEMs both have (DHKEM X25519, P-256, P-384; ML-KEM-768, ML-KEM-1024;
//! MLKEM768-X25519, MLKEM768-P256, MLKEM1024-P384):
//! the same `ikm` gives the same key pair; `hpke`'s sender and this crate's receiver agree
//! (open, export), and the other way round; in the Base and PSK modes, with every KDF and
//! every AEAD. Then this crate's six post-quantum KEMs as `hpke::Kem`s (feature
//! `rust-hpke`) in `hpke`'s own setup functions, against this crate's API.

use hpke::aead::{AesGcm128, AesGcm256, ChaCha20Poly1305, ExportOnlyAead};
use hpke::kdf::{
    HkdfSha256, HkdfSha384, HkdfSha512, KdfShake128, KdfShake256, KdfTurboShake128,
    KdfTurboShake256,
};
use hpke::{Deserializable, OpModeR, OpModeS, PskBundle, Serializable};
use lazykem_hpke::{AeadId, KemId, PrivateKey, PublicKey, Suite};
use rand::RngExt;

const PSK: &[u8] = &[0x42; 32];
const PSK_ID: &[u8] = b"differential";

/// `hpke`'s X25519 keys come out clamped (RFC 9180 §7.1.2 as written), this crate's as
/// derived (draft-ietf-hpke-hpke §7.1.2).
fn clamp_x25519(kem: KemId, sk: &mut [u8]) {
    if kem == KemId::DhkemX25519HkdfSha256 {
        sk[0] &= 0xf8;
        sk[31] = (sk[31] & 0x7f) | 0x40;
    }
}

/// One (AEAD, KDF, KEM) of `hpke` against the same suite here, on a fresh random `ikm`.
fn cross<A: hpke::aead::Aead, D: hpke::kdf::Kdf, K: hpke::Kem>() {
    let mut rng = rand::rng();
    let suite = Suite::from_ids(K::KEM_ID, D::KDF_ID, A::AEAD_ID).unwrap();
    let name = suite.to_string();
    let ikm: [u8; 48] = rng.random();
    let info: [u8; 12] = rng.random();

    // Same ikm, same keys.
    let (sk, pk) = suite.derive_key_pair(&ikm).unwrap();
    let (sk_t, pk_t) = K::derive_keypair(&ikm);
    assert_eq!(pk_t.to_bytes().as_slice(), pk.as_bytes(), "{name}: pk");
    let mut ours = sk.to_bytes().to_vec();
    clamp_x25519(suite.kem, &mut ours);
    assert_eq!(sk_t.to_bytes().as_slice(), ours, "{name}: sk");
    // Keys cross over by their encodings.
    let pk_t = K::PublicKey::from_bytes(pk.as_bytes()).unwrap();
    let pk_ours = PublicKey::from_bytes(suite.kem, &pk_t.to_bytes()).unwrap();
    let sk_ours = PrivateKey::from_bytes(suite.kem, &sk_t.to_bytes()).unwrap();
    assert_eq!(sk_ours.public_key(), pk_ours);

    let psk = PskBundle::new(PSK, PSK_ID).unwrap();
    for psk_mode in [false, true] {
        let (mode_s, mode_r) = if psk_mode {
            (OpModeS::Psk(psk), OpModeR::Psk(psk))
        } else {
            (OpModeS::Base, OpModeR::Base)
        };
        let pt: [u8; 20] = rng.random();
        let aad: [u8; 5] = rng.random();

        // hpke's sender, this crate's receiver.
        let (enc, mut s) =
            hpke::setup_sender_with_rng::<A, D, K>(&mode_s, &pk_t, &info, &mut rng).unwrap();
        let mut r = if psk_mode {
            suite.setup_receiver_psk(&sk_ours, &enc.to_bytes(), &info, PSK, PSK_ID)
        } else {
            suite.setup_receiver(&sk_ours, &enc.to_bytes(), &info)
        }
        .unwrap();
        let mut exported = [0u8; 40];
        s.export(b"exporter", &mut exported).unwrap();
        assert_eq!(
            *r.export(b"exporter", 40).unwrap(),
            exported,
            "{name}: export"
        );
        if suite.aead != AeadId::ExportOnly {
            for _ in 0..2 {
                let ct = s.seal(&pt, &aad).unwrap();
                assert_eq!(r.open(&aad, &ct).unwrap(), pt, "{name}: hpke -> here");
            }
        }

        // This crate's sender, hpke's receiver.
        let (enc, mut s) = if psk_mode {
            suite.setup_sender_psk(&pk_ours, &info, PSK, PSK_ID, &mut rng)
        } else {
            suite.setup_sender(&pk_ours, &info, &mut rng)
        }
        .unwrap();
        let enc = K::EncappedKey::from_bytes(&enc).unwrap();
        let mut r = hpke::setup_receiver::<A, D, K>(&mode_r, &sk_t, &enc, &info).unwrap();
        r.export(b"exporter", &mut exported).unwrap();
        assert_eq!(
            *s.export(b"exporter", 40).unwrap(),
            exported,
            "{name}: export"
        );
        if suite.aead != AeadId::ExportOnly {
            for _ in 0..2 {
                let ct = s.seal(&aad, &pt).unwrap();
                assert_eq!(r.open(&ct, &aad).unwrap(), pt, "{name}: here -> hpke");
            }
        }
    }
}

/// Every KDF with one AEAD, every AEAD with one KDF, a few times each (fresh inputs).
///
/// Export-only runs with HKDF only: `hpke` 0.15.1 gives its export-only AEAD a 128-byte
/// nonce size (`EmptyAeadImpl`), so its one-stage `combine_secrets` slices `Nk + Nn + Nh =
/// 0 + 128 + 32` bytes out of a 108-byte buffer and panics (and would take the exporter
/// secret from the wrong offset: `Nn` is 0 for export-only). With HKDF its `base_nonce` is
/// an unused 128-byte expansion and the exporter secret is right.
macro_rules! kem_cases {
    ($kem:ty) => {
        for _ in 0..4 {
            cross::<AesGcm128, HkdfSha256, $kem>();
            cross::<AesGcm128, HkdfSha384, $kem>();
            cross::<AesGcm128, HkdfSha512, $kem>();
            cross::<AesGcm128, KdfShake128, $kem>();
            cross::<AesGcm128, KdfShake256, $kem>();
            cross::<AesGcm128, KdfTurboShake128, $kem>();
            cross::<AesGcm128, KdfTurboShake256, $kem>();
            cross::<AesGcm256, HkdfSha256, $kem>();
            cross::<ChaCha20Poly1305, KdfTurboShake256, $kem>();
            cross::<ExportOnlyAead, HkdfSha256, $kem>();
        }
    };
}

#[test]
fn against_hpke_dhkem_x25519() {
    kem_cases!(hpke::kem::X25519HkdfSha256);
}

#[test]
fn against_hpke_dhkem_p256() {
    kem_cases!(hpke::kem::DhP256HkdfSha256);
}

#[test]
fn against_hpke_dhkem_p384() {
    kem_cases!(hpke::kem::DhP384HkdfSha384);
}

#[test]
fn against_hpke_ml_kem() {
    kem_cases!(hpke::kem::MlKem768);
    kem_cases!(hpke::kem::MlKem1024);
}

#[test]
fn against_hpke_hybrids() {
    kem_cases!(hpke::kem::XWing);
    kem_cases!(hpke::kem::MlKem768P256);
    kem_cases!(hpke::kem::MlKem1024P384);
}

/// This crate's ML-KEM as `hpke::Kem`, run by `hpke`'s setup, against this crate's API
/// (the same `cross`), and its keys against `hpke`'s own ML-KEM.
#[test]
fn rust_hpke_kem_impls() {
    use hpke::Kem as _;
    use lazykem_hpke::rust_hpke;
    use subtle::ConstantTimeEq;
    kem_cases!(rust_hpke::MlKem512);
    kem_cases!(rust_hpke::MlKem768);
    kem_cases!(rust_hpke::MlKem1024);
    kem_cases!(rust_hpke::MlKem768P256);
    kem_cases!(rust_hpke::MlKem1024P384);
    kem_cases!(rust_hpke::MlKem768X25519);

    let mut rng = rand::rng();
    let ikm: [u8; 32] = rng.random();
    let (sk, pk) = rust_hpke::MlKem768::derive_keypair(&ikm);
    let (sk_t, pk_t) = hpke::kem::MlKem768::derive_keypair(&ikm);
    assert_eq!(sk.to_bytes(), sk_t.to_bytes());
    assert_eq!(pk.to_bytes(), pk_t.to_bytes());
    // Ours encapsulates, hpke's ML-KEM decapsulates, through the encodings.
    let (ss, enc) = rust_hpke::MlKem768::encap_with_rng(&pk, None, &mut rng).unwrap();
    let enc_t =
        <hpke::kem::MlKem768 as hpke::Kem>::EncappedKey::from_bytes(&enc.to_bytes()).unwrap();
    let ss_t = hpke::kem::MlKem768::decap(&sk_t, None, &enc_t).unwrap();
    assert_eq!(ss.0, ss_t.0);
    // Private keys compare by seed, in constant time.
    let (other, _) = rust_hpke::MlKem768::derive_keypair(b"other");
    assert!(bool::from(sk.ct_eq(&sk.clone())));
    assert!(!bool::from(sk.ct_eq(&other)));
}
