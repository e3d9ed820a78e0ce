//! KEM layer: decapsulation-key import (FIPS 203 section 7.3 checks), ciphertext parsing and
//! decapsulation with hostile keys and ciphertexts.
//!
//! Properties: `DecapsulationKey::from_expanded_bytes` and `Ciphertext::from_bytes` never
//! panic and reject exactly the malformed inputs (and the one-shot
//! `DecapsulationKey::decapsulate_expanded` agrees with import + decapsulate, error or secret) (wrong length, wrong embedded H(ek), an
//! embedded ek with a coefficient >= q), each with its own error; an accepted key exports the
//! same bytes (with `dk_pke` reduced mod q, as documented); decapsulation never panics, is
//! deterministic, and implements implicit rejection: the result is `J(z || c)` for a
//! ciphertext that is not the re-encryption of what it decrypts to, and the encapsulated
//! secret for an honest ciphertext.
//!
//! (A fuzzed ciphertext equal to its own re-encryption would have to match SHA3 outputs, which
//! no fuzzer can do, so "not honest => J(z || c)" is asserted outright; a failure would itself
//! be a finding.)
//!
//! Input layout: byte 0 is a selector: `selector % 3` picks ML-KEM-512/768/1024 and
//! `(selector / 3) % 4` the mode:
//! - 0, raw: `split: u16 LE`, then bytes; `dk = bytes[..split]`, `ct = bytes[split..]`;
//! - 1, valid dk: the rest padded/truncated to `dk || ct`, the embedded ek folded below q and
//!   the embedded H(ek) recomputed, so `dk_pke` (possibly with coefficients >= q), z and c are
//!   fuzzed freely;
//! - 2, hash fixed: as 1 without folding the ek (exercises the modulus check);
//! - 3, honest: `seed (64) || m (32) || offset: u16 LE || mask`: a key from the seed, an honest
//!   ciphertext for m, XORed with the mask from `offset` on (the mask may be empty or cancel).
//!
//! `selector / 12` picks the backend among `BackendKind::ALL` (the portable one where the CPU
//! lacks it), so a campaign exercises every backend; it is passed explicitly to the `hazmat`
//! entry points `*_on`.
#![no_main]

#[path = "../shared/backend.rs"]
mod backend;

use backend::backend_of;
use lazykem::hazmat::AnyBackend;
use lazykem::{Ciphertext, DecapsulationKey, Error, MlKem512, MlKem768, MlKem1024, ParameterSet};
use libfuzzer_sys::fuzz_target;
use sha3::digest::{ExtendableOutput, Update, XofReader};
use sha3::{Digest, Sha3_256, Shake256};

const Q: u16 = 3329;

fn h(bytes: &[u8]) -> [u8; 32] {
    Sha3_256::digest(bytes).into()
}

fn j(z: &[u8], c: &[u8]) -> [u8; 32] {
    let mut xof = Shake256::default();
    xof.update(z);
    xof.update(c);
    let mut out = [0u8; 32];
    xof.finalize_xof().read(&mut out);
    out
}

/// Rewrites every 12-bit coefficient of `t` as `c % q` (or `c` unchanged if `fold` is false)
/// and reports whether all of them were already below q.
fn fold12(t: &mut [u8], fold: bool) -> bool {
    let mut all_reduced = true;
    for group in t.chunks_exact_mut(3) {
        let d = u32::from(group[0]) | u32::from(group[1]) << 8 | u32::from(group[2]) << 16;
        let (c0, c1) = ((d & 0xfff) as u16, (d >> 12) as u16);
        all_reduced &= c0 < Q && c1 < Q;
        if fold {
            let d = u32::from(c0 % Q) | u32::from(c1 % Q) << 12;
            group.copy_from_slice(&d.to_le_bytes()[..3]);
        }
    }
    all_reduced
}

fn padded(bytes: &[u8], len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    let n = bytes.len().min(len);
    out[..n].copy_from_slice(&bytes[..n]);
    out
}

fn u16_at(bytes: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([
        bytes.get(i).copied().unwrap_or(0),
        bytes.get(i + 1).copied().unwrap_or(0),
    ])
}

/// Where the parts of an expanded decapsulation key of `P` end: `dk_pke`, `ek`, `H(ek)`.
const fn dk_pke<P: ParameterSet>() -> usize {
    384 * P::K
}
const fn ek_end<P: ParameterSet>() -> usize {
    dk_pke::<P>() + P::ENCAPSULATION_KEY_SIZE
}
const fn h_end<P: ParameterSet>() -> usize {
    ek_end::<P>() + 32
}

/// Decapsulates twice (the second time through clones): the results must agree.
fn decapsulate<P: ParameterSet>(
    backend: AnyBackend,
    dk: &DecapsulationKey<P>,
    ct: &Ciphertext<P>,
) -> [u8; 32] {
    let first = lazykem::hazmat::OnBackend::new(backend).decapsulate(dk, ct);
    let second = lazykem::hazmat::OnBackend::new(backend).decapsulate(&dk.clone(), &ct.clone());
    assert_eq!(first, second, "decapsulation is not deterministic");
    *first.as_bytes()
}

/// Imports `dk`, checking the verdict against the section 7.3 checks done here.
fn import<P: ParameterSet>(backend: AnyBackend, dk: &[u8]) -> Option<DecapsulationKey<P>> {
    let length_ok = dk.len() == P::DECAPSULATION_KEY_SIZE;
    let (hash_ok, reduced) = if length_ok {
        let mut t = dk[dk_pke::<P>()..ek_end::<P>() - 32].to_vec();
        (
            h(&dk[dk_pke::<P>()..ek_end::<P>()]) == dk[ek_end::<P>()..h_end::<P>()],
            fold12(&mut t, false),
        )
    } else {
        (false, false)
    };
    let imported =
        lazykem::hazmat::OnBackend::new(backend).decapsulation_key_from_expanded_bytes::<P>(dk);
    // The one-shot decapsulation makes the same checks and, for an accepted
    // key, gives the same secret as import + decapsulate.
    let ct0 = Ciphertext::<P>::from_bytes(&vec![0x5c; P::CIPHERTEXT_SIZE]).expect("length");
    let one_shot = lazykem::hazmat::OnBackend::new(backend).decapsulate_expanded(dk, &ct0);
    match (&imported, one_shot) {
        (Ok(key), Ok(one_shot)) => {
            assert_eq!(
                one_shot,
                lazykem::hazmat::OnBackend::new(backend).decapsulate(&key, &ct0)
            );
        }
        (Err(a), Err(b)) => assert_eq!(*a, b, "one-shot error differs"),
        (a, b) => panic!("import {:?} but one-shot {:?}", a.is_ok(), b.is_ok()),
    }
    match imported {
        Ok(key) => {
            assert!(length_ok && hash_ok && reduced, "accepted a malformed dk");
            assert!(key.seed().is_none(), "imported key claims a seed");
            assert_eq!(
                key.encapsulation_key().as_bytes().as_ref(),
                &dk[dk_pke::<P>()..ek_end::<P>()]
            );
            let mut expected = dk.to_vec();
            fold12(&mut expected[..dk_pke::<P>()], true);
            assert_eq!(
                lazykem::hazmat::OnBackend::new(backend)
                    .to_expanded_bytes(&key)
                    .as_ref(),
                expected.as_slice()
            );
            Some(key)
        }
        Err(Error::DecapsulationKeyLength { expected, actual }) => {
            assert!(!length_ok);
            assert_eq!((expected, actual), (P::DECAPSULATION_KEY_SIZE, dk.len()));
            None
        }
        Err(Error::DecapsulationKeyHashMismatch) => {
            assert!(length_ok && !hash_ok, "hash error with a matching H(ek)");
            None
        }
        Err(Error::EncapsulationKeyNotReduced) => {
            assert!(length_ok && !reduced, "modulus error for a reduced ek");
            None
        }
        Err(other) => panic!("unexpected error {other:?}"),
    }
}

fn parse_ct<P: ParameterSet>(ct: &[u8]) -> Option<Ciphertext<P>> {
    match Ciphertext::<P>::from_bytes(ct) {
        Ok(parsed) => {
            assert_eq!(parsed.as_bytes().as_ref(), ct);
            Some(parsed)
        }
        Err(Error::CiphertextLength { expected, actual }) => {
            assert_eq!((expected, actual), (P::CIPHERTEXT_SIZE, ct.len()));
            assert_ne!(actual, P::CIPHERTEXT_SIZE);
            None
        }
        Err(other) => panic!("unexpected error {other:?}"),
    }
}

/// A ciphertext nobody encapsulated: implicit rejection gives J(z || c).
fn check_rejection<P: ParameterSet>(
    backend: AnyBackend,
    dk: &DecapsulationKey<P>,
    dk_bytes: &[u8],
    ct: &Ciphertext<P>,
) {
    let z = &dk_bytes[h_end::<P>()..];
    assert_eq!(
        decapsulate::<P>(backend, dk, ct),
        j(z, ct.as_ref()),
        "fuzzed ciphertext not implicitly rejected"
    );
}

fn check<P: ParameterSet>(backend: AnyBackend, mode: u8, rest: &[u8]) {
    match mode {
        0 => {
            let split = usize::from(u16_at(rest, 0));
            let bytes = rest.get(2..).unwrap_or_default();
            let (dk, ct) = bytes.split_at(split.min(bytes.len()));
            let key = import::<P>(backend, dk);
            let ct = parse_ct::<P>(ct);
            if let (Some(key), Some(ct)) = (key, ct) {
                check_rejection::<P>(backend, &key, dk, &ct);
            }
        }
        1 | 2 => {
            let mut bytes = padded(rest, P::DECAPSULATION_KEY_SIZE + P::CIPHERTEXT_SIZE);
            let (dk, ct) = bytes.split_at_mut(P::DECAPSULATION_KEY_SIZE);
            fold12(&mut dk[dk_pke::<P>()..ek_end::<P>() - 32], mode == 1);
            let hash = h(&dk[dk_pke::<P>()..ek_end::<P>()]);
            dk[ek_end::<P>()..h_end::<P>()].copy_from_slice(&hash);
            let key = import::<P>(backend, dk);
            if mode == 1 {
                assert!(key.is_some(), "valid dk rejected");
            }
            let ct = parse_ct::<P>(ct).expect("ciphertext of the right length");
            if let Some(key) = key {
                check_rejection::<P>(backend, &key, dk, &ct);
            }
        }
        _ => {
            let seed: [u8; 64] = padded(rest, 64).try_into().expect("64 bytes");
            let m: [u8; 32] = padded(rest.get(64..).unwrap_or_default(), 32)
                .try_into()
                .expect("32");
            let offset = usize::from(u16_at(rest, 96));
            let mask = rest.get(98..).unwrap_or_default();

            let key =
                lazykem::hazmat::OnBackend::new(backend).decapsulation_key_from_seed::<P>(&seed);
            let expanded = lazykem::hazmat::OnBackend::new(backend).to_expanded_bytes(&key);
            let imported =
                import::<P>(backend, expanded.as_ref().as_ref()).expect("exported dk re-imports");
            let (honest, secret) = lazykem::hazmat::OnBackend::new(backend)
                .encapsulate_deterministic(key.encapsulation_key(), &m);

            let mut tampered = honest.as_ref().to_vec();
            for (i, b) in mask.iter().enumerate() {
                tampered[(offset + i) % P::CIPHERTEXT_SIZE] ^= b;
            }
            let ct = parse_ct::<P>(&tampered).expect("right length");
            let got = decapsulate::<P>(backend, &key, &ct);
            assert_eq!(
                got,
                decapsulate::<P>(backend, &imported, &ct),
                "seed vs imported key"
            );
            if ct == honest {
                assert_eq!(&got, secret.as_bytes(), "honest ciphertext: wrong secret");
            } else {
                let z = &expanded.as_ref().as_ref()[h_end::<P>()..];
                assert_eq!(got, j(z, ct.as_ref()), "tampered ct not rejected");
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let mode = (selector / 3) % 4;
    let backend = backend_of(usize::from(selector / 12));
    match selector % 3 {
        0 => check::<MlKem512>(backend, mode, rest),
        1 => check::<MlKem768>(backend, mode, rest),
        _ => check::<MlKem1024>(backend, mode, rest),
    }
});
