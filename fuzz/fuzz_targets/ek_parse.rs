//! KEM layer: `EncapsulationKey::from_bytes` (FIPS 203 section 7.2 input checks) against a
//! naive ByteDecode_12 written here.
//!
//! It must accept exactly the inputs of length `384 k + 32` whose 12-bit coefficients are all
//! below q, reject the others with the matching error, never panic, and an accepted key must
//! re-encode to the very same bytes (and be usable for encapsulation); the one-shot
//! `encapsulate_encoded` reaches the same verdict and, on an accepted key, the same
//! ciphertext and secret.
//!
//! Input layout: byte 0 is a selector: `selector % 3` picks ML-KEM-512/768/1024, and
//! `(selector / 3) % 4` picks how the rest becomes a candidate key:
//! - 0: the rest as is (length and content both fuzzed);
//! - 1: the rest zero-padded or truncated to the exact key length;
//! - 2 and 3: as 1, but every coefficient folded below q (so the key is valid), after which
//!   the first four bytes of the rest, `index: u16 LE` and `value: u16 LE`, overwrite one
//!   coefficient with `value % 4096` (to probe the q boundary one coefficient at a time).
//!
//! `selector / 12` picks the backend among `BackendKind::ALL` (the portable one where the CPU
//! lacks it), so a campaign exercises every backend. The backend is passed explicitly (the `hazmat` entry points `*_on`);
//! `TryFrom` has no such variant and runs on the library's default backend, so comparing it
//! with `from_bytes_on` also compares the two backends.
#![no_main]

#[path = "../shared/backend.rs"]
mod backend;

use backend::backend_of;
use lazykem::hazmat::AnyBackend;
use lazykem::{EncapsulationKey, Error, MlKem512, MlKem768, MlKem1024, ParameterSet};
use libfuzzer_sys::fuzz_target;

const Q: u16 = 3329;

/// Naive ByteDecode_12 of the `t` part of an encapsulation key: all coefficients, in order.
fn decode12(t: &[u8]) -> Vec<u16> {
    let mut out = Vec::with_capacity(t.len() / 3 * 2);
    for group in t.chunks_exact(3) {
        let d = u32::from(group[0]) | u32::from(group[1]) << 8 | u32::from(group[2]) << 16;
        out.push((d & 0xfff) as u16);
        out.push((d >> 12) as u16);
    }
    out
}

/// Naive ByteEncode_12, the inverse of [`decode12`] on 12-bit values.
fn encode12(coeffs: &[u16], t: &mut [u8]) {
    for (pair, group) in coeffs.chunks_exact(2).zip(t.chunks_exact_mut(3)) {
        let d = u32::from(pair[0]) | u32::from(pair[1]) << 12;
        group.copy_from_slice(&d.to_le_bytes()[..3]);
    }
}

/// The candidate key for `mode` (see the crate docs).
fn candidate(mode: u8, rest: &[u8], ek_len: usize) -> Vec<u8> {
    if mode == 0 {
        return rest.to_vec();
    }
    let mut key = vec![0u8; ek_len];
    let n = rest.len().min(ek_len);
    key[..n].copy_from_slice(&rest[..n]);
    if mode >= 2 {
        let t_len = ek_len - 32;
        let mut coeffs: Vec<u16> = decode12(&key[..t_len]).iter().map(|c| c % Q).collect();
        let word = |i: usize| {
            u16::from_le_bytes([
                rest.get(i).copied().unwrap_or(0),
                rest.get(i + 1).copied().unwrap_or(0),
            ])
        };
        let index = usize::from(word(0)) % coeffs.len();
        coeffs[index] = word(2) % 4096;
        encode12(&coeffs, &mut key[..t_len]);
    }
    key
}

/// One parameter set, through the library's generic types.
fn check<P: ParameterSet>(backend: AnyBackend, mode: u8, rest: &[u8]) {
    let ek_size = P::ENCAPSULATION_KEY_SIZE;
    let bytes = candidate(mode, rest, ek_size);

    let length_ok = bytes.len() == ek_size;
    let reduced = length_ok && decode12(&bytes[..ek_size - 32]).iter().all(|&c| c < Q);

    let parsed = lazykem::hazmat::OnBackend::new(backend).encapsulation_key_from_bytes::<P>(&bytes);
    let via_try_from = EncapsulationKey::<P>::try_from(bytes.as_slice());
    assert_eq!(parsed, via_try_from, "from_bytes and TryFrom disagree");
    // Validation alone reaches the same verdict.
    assert_eq!(
        EncapsulationKey::<P>::validate(&bytes),
        parsed.as_ref().map(|_| ()).map_err(|e| *e),
        "validate and from_bytes disagree"
    );
    // The one-shot encapsulation reaches the same verdict, and the same ciphertext and
    // secret as the parsed key when it accepts.
    let m = [0x5a; 32];
    let one_shot =
        lazykem::hazmat::OnBackend::new(backend).encapsulate_encoded_deterministic::<P>(&bytes, &m);
    match (&parsed, &one_shot) {
        (Ok(ek), Ok(out)) => assert!(
            lazykem::hazmat::OnBackend::new(backend).encapsulate_deterministic(&ek, &m) == *out,
            "one-shot and parsed-key encapsulation disagree"
        ),
        (Err(a), Err(b)) => assert_eq!(a, b, "one-shot and from_bytes errors disagree"),
        _ => panic!("one-shot and from_bytes verdicts disagree"),
    }
    match parsed {
        Ok(ek) => {
            assert!(reduced, "accepted a key the naive decoder rejects");
            assert_eq!(ek.as_bytes().as_ref(), bytes.as_slice(), "re-encoding");
            let again = lazykem::hazmat::OnBackend::new(backend)
                .encapsulation_key_from_bytes::<P>(ek.as_bytes().as_ref())
                .expect("re-parse");
            assert_eq!(again, ek);
            // Any valid key, however extreme, must encapsulate without panicking.
            let (ct, _) = lazykem::hazmat::OnBackend::new(backend)
                .encapsulate_deterministic(&ek, &[0x5a; 32]);
            assert_eq!(ct.as_bytes().as_ref().len(), P::CIPHERTEXT_SIZE);
        }
        Err(Error::EncapsulationKeyLength { expected, actual }) => {
            assert!(!length_ok, "length error for a key of the right length");
            assert_eq!((expected, actual), (ek_size, bytes.len()));
        }
        Err(Error::EncapsulationKeyNotReduced) => {
            assert!(length_ok, "modulus error for a key of the wrong length");
            assert!(!reduced, "rejected a key whose coefficients are all < q");
        }
        Err(other) => panic!("unexpected error {other:?}"),
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
