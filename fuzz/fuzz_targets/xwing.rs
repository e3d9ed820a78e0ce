//! X-Wing: key parsing, decapsulation with hostile ciphertexts, against the construction
//! recomputed from its parts.
//!
//! Properties: `EncapsulationKey::from_bytes` and `Ciphertext::from_bytes` never panic and
//! reject exactly the wrong lengths (and, for keys, an ML-KEM part with a coefficient >= q);
//! decapsulation never panics and equals the draft's formula computed here from `lazykem` and
//! `x25519-dalek` directly, `SHA3-256(ss_M || ss_X || ct_X || pk_X || label)`; an honest
//! ciphertext gives the encapsulated secret.
//!
//! Input layout: byte 0 is the mode: even, raw (`seed (32) || the rest` as the
//! encapsulation key to parse and as the ciphertext to decapsulate); odd, honest
//! (`seed (32) || eseed (64) || offset: u16 LE || mask`: an honest ciphertext XORed with the
//! mask from `offset` on).
#![no_main]

use lazykem_xwing::{Ciphertext, DecapsulationKey, EncapsulationKey, Error};
use libfuzzer_sys::fuzz_target;
use sha3::{Digest, Sha3_256};

fn padded<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let n = bytes.len().min(N);
    out[..n].copy_from_slice(&bytes[..n]);
    out
}

/// The draft's Decapsulate, from the parts.
fn reference(seed: &[u8; 32], ct: &[u8; 1120]) -> [u8; 32] {
    use sha3::digest::{ExtendableOutput, Update, XofReader};
    let mut expanded = [0u8; 96];
    let mut xof = sha3::Shake256::default();
    xof.update(seed);
    xof.finalize_xof().read(&mut expanded);
    let ml = lazykem::ml_kem_768::DecapsulationKey::from_seed(&padded::<64>(&expanded[..64]));
    let sk_x: [u8; 32] = padded(&expanded[64..]);
    let pk_x = x25519_dalek::x25519(sk_x, x25519_dalek::X25519_BASEPOINT_BYTES);
    let ct_m = lazykem::ml_kem_768::Ciphertext::from_bytes(&ct[..1088]).expect("1088 bytes");
    let ct_x: [u8; 32] = padded(&ct[1088..]);
    let ss_m = ml.decapsulate(&ct_m);
    let ss_x = x25519_dalek::x25519(sk_x, ct_x);
    let mut h = Sha3_256::new();
    for part in [ss_m.as_bytes().as_slice(), &ss_x, &ct_x, &pk_x, b"\\.//^\\"] {
        Digest::update(&mut h, part);
    }
    h.finalize().into()
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let seed: [u8; 32] = padded(rest);
    let rest = rest.get(32..).unwrap_or_default();
    let dk = DecapsulationKey::from_seed(&seed);
    if mode % 2 == 0 {
        match EncapsulationKey::from_bytes(rest) {
            Ok(ek) => assert_eq!(ek.as_bytes().as_slice(), rest),
            Err(Error::EncapsulationKeyLength { actual, .. }) => {
                assert_eq!(actual, rest.len());
                assert_ne!(actual, lazykem_xwing::ENCAPSULATION_KEY_SIZE);
            }
            Err(Error::MlKem(lazykem::Error::EncapsulationKeyNotReduced)) => {
                assert_eq!(rest.len(), lazykem_xwing::ENCAPSULATION_KEY_SIZE);
            }
            Err(other) => panic!("unexpected error {other:?}"),
        }
        match Ciphertext::from_bytes(rest) {
            Ok(ct) => {
                assert_eq!(
                    dk.decapsulate(&ct).as_bytes(),
                    &reference(&seed, ct.as_bytes()),
                    "decapsulation vs the draft's formula"
                );
            }
            Err(Error::CiphertextLength { actual, .. }) => {
                assert_eq!(actual, rest.len());
                assert_ne!(actual, lazykem_xwing::CIPHERTEXT_SIZE);
            }
            Err(other) => panic!("unexpected error {other:?}"),
        }
    } else {
        let eseed: [u8; 64] = padded(rest);
        let offset = usize::from(u16::from_le_bytes(padded(
            rest.get(64..).unwrap_or_default(),
        )));
        let mask = rest.get(66..).unwrap_or_default();
        let (ct, ss) = dk.encapsulation_key().encapsulate_deterministic(&eseed);
        let mut bytes = *ct.as_bytes();
        for (i, m) in mask.iter().enumerate() {
            bytes[(offset + i) % bytes.len()] ^= m;
        }
        let got = dk.decapsulate(&Ciphertext::from(bytes));
        assert_eq!(got.as_bytes(), &reference(&seed, &bytes));
        if bytes == *ct.as_bytes() {
            assert_eq!(got, ss, "honest ciphertext");
        }
    }
});
