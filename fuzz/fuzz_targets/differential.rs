//! Differential: this workspace's `lazykem` against RustCrypto `ml-kem` 0.3.4, for ML-KEM-512,
//! -768 and -1024 on every input.
//!
//! From a fuzzed 64-byte seed `d || z` and 32-byte message m, both must produce the same
//! encapsulation key, expanded decapsulation key, ciphertext and shared secret, and both must
//! decapsulate the honest ciphertext to that secret. Then fuzzed edits are applied to the
//! ciphertext, the encapsulation key and the expanded decapsulation key; both implementations
//! must agree on whether the edited keys are valid, on encapsulation to an edited (valid) ek,
//! and on decapsulation of the edited ciphertext with the (possibly edited) dk.
//!
//! Input layout: `selector (1) || seed (64) || m (32) || edits`, zero-padded when short; each
//! edit is 4 bytes `target, position: u16 LE, xor`, where `target % 3` picks ciphertext / ek /
//! dk and the position is taken modulo the length of the target. The selector picks the
//! backend ours runs on among `BackendKind::ALL` (the portable one where the CPU lacks it),
//! so a campaign compares every backend with ml-kem; it is passed explicitly to the `hazmat`
//! entry points `*_on`.
//!
//! ml-kem's `from_expanded`/`to_expanded_bytes` are deprecated (it prefers seeds), but they
//! are the FIPS 203 format, so both are compared here.
#![no_main]
#![allow(deprecated)]

#[path = "../shared/backend.rs"]
mod backend;

use backend::backend_of;
use lazykem::hazmat::AnyBackend;
use libfuzzer_sys::fuzz_target;
use ml_kem::array::Array;
use ml_kem::{Decapsulate, ExpandedKeyEncoding, KeyExport};

/// Applies the edits aimed at `target` to a copy of `bytes`; `None` if that changes nothing
/// (the unedited object has been compared already, so its checks are skipped).
fn edited(edits: &[u8], target: u8, bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = bytes.to_vec();
    for edit in edits.chunks_exact(4) {
        if edit[0] % 3 == target {
            let position = usize::from(u16::from_le_bytes([edit[1], edit[2]])) % out.len();
            out[position] ^= edit[3];
        }
    }
    (out != bytes).then_some(out)
}

macro_rules! differential {
    ($name:ident, $ours:ident, $theirs:ident) => {
        fn $name(backend: AnyBackend, seed: &[u8; 64], m: &[u8; 32], edits: &[u8]) {
            use lazykem::$ours as ours;
            type Theirs = ml_kem::$theirs;

            // Key generation from the seed.
            let our_dk: ours::DecapsulationKey =
                lazykem::hazmat::OnBackend::new(backend).decapsulation_key_from_seed(seed);
            let their_dk = ml_kem::DecapsulationKey::<Theirs>::from_seed(Array::from(*seed));
            let our_ek = our_dk.encapsulation_key();
            let their_ek = their_dk.encapsulation_key();
            let ek = our_ek.as_bytes().as_slice();
            assert_eq!(ek, their_ek.to_bytes().as_slice(), "encapsulation key");
            let our_expanded = lazykem::hazmat::OnBackend::new(backend).to_expanded_bytes(&our_dk);
            let their_expanded = their_dk.to_expanded_bytes();
            let expanded = our_expanded.as_slice();
            assert_eq!(expanded, their_expanded.as_slice(), "expanded dk");

            // Deterministic encapsulation and honest decapsulation.
            let (our_ct, our_k) =
                lazykem::hazmat::OnBackend::new(backend).encapsulate_deterministic(&our_ek, m);
            let (their_ct, their_k) = their_ek.encapsulate_deterministic(&Array::from(*m));
            let ct = our_ct.as_bytes().as_slice();
            assert_eq!(ct, their_ct.as_slice(), "ciphertext");
            assert_eq!(
                our_k.as_bytes().as_slice(),
                their_k.as_slice(),
                "shared secret"
            );
            assert_eq!(
                lazykem::hazmat::OnBackend::new(backend).decapsulate(&our_dk, &our_ct),
                our_k,
                "our honest decapsulation"
            );
            assert_eq!(
                their_dk.decapsulate(&their_ct),
                their_k,
                "their decapsulation"
            );

            // Edited encapsulation key: same verdict, and the same encapsulation if valid.
            if let Some(ek_bytes) = edited(edits, 1, ek) {
                let ours: Result<ours::EncapsulationKey, _> =
                    lazykem::hazmat::OnBackend::new(backend)
                        .encapsulation_key_from_bytes(&ek_bytes);
                let theirs = Array::try_from(ek_bytes.as_slice())
                    .map_err(|_| ())
                    .and_then(|key| ml_kem::EncapsulationKey::<Theirs>::new(&key).map_err(|_| ()));
                assert_eq!(ours.is_ok(), theirs.is_ok(), "edited ek: verdicts differ");
                if let (Ok(ours), Ok(theirs)) = (ours, theirs) {
                    assert_eq!(ours.as_bytes().as_slice(), theirs.to_bytes().as_slice());
                    let (c1, k1) = lazykem::hazmat::OnBackend::new(backend)
                        .encapsulate_deterministic(&ours, m);
                    let (c2, k2) = theirs.encapsulate_deterministic(&Array::from(*m));
                    assert_eq!(c1.as_bytes().as_slice(), c2.as_slice(), "edited ek: ct");
                    assert_eq!(k1.as_bytes().as_slice(), k2.as_slice(), "edited ek: secret");
                }
            }

            // Edited ciphertext, decapsulated with the original dk.
            let edited_ct = edited(edits, 0, ct);
            let ct = edited_ct.as_deref().unwrap_or(ct);
            let our_ct = ours::Ciphertext::from_bytes(ct).expect("ct length");
            let their_ct = Array::try_from(ct).expect("ct length");
            if edited_ct.is_some() {
                let ours = lazykem::hazmat::OnBackend::new(backend).decapsulate(&our_dk, &our_ct);
                let theirs = their_dk.decapsulate(&their_ct);
                assert_eq!(ours.as_bytes().as_slice(), theirs.as_slice(), "edited ct");
            }

            // Edited expanded dk: same verdict (the length is right, so this is the H(ek)
            // and ek modulus checks), then the same decapsulation of the (edited) ct.
            if let Some(dk_bytes) = edited(edits, 2, expanded) {
                let ours: Result<ours::DecapsulationKey, _> =
                    lazykem::hazmat::OnBackend::new(backend)
                        .decapsulation_key_from_expanded_bytes(&dk_bytes);
                let theirs = ml_kem::DecapsulationKey::<Theirs>::from_expanded(
                    &Array::try_from(dk_bytes.as_slice()).expect("expanded dk length"),
                );
                assert_eq!(
                    ours.is_ok(),
                    theirs.is_ok(),
                    "edited dk: verdicts differ ({:?})",
                    ours.as_ref().err()
                );
                if let (Ok(ours), Ok(theirs)) = (ours, theirs) {
                    let k1 = lazykem::hazmat::OnBackend::new(backend).decapsulate(&ours, &our_ct);
                    let k2 = theirs.decapsulate(&their_ct);
                    assert_eq!(k1.as_bytes().as_slice(), k2.as_slice(), "edited dk, ct");
                    assert_eq!(
                        lazykem::hazmat::OnBackend::new(backend)
                            .to_expanded_bytes(&ours)
                            .as_slice(),
                        theirs.to_expanded_bytes().as_slice(),
                        "edited dk: re-export"
                    );
                }
            }
        }
    };
}

differential!(check_512, ml_kem_512, MlKem512);
differential!(check_768, ml_kem_768, MlKem768);
differential!(check_1024, ml_kem_1024, MlKem1024);

fuzz_target!(|data: &[u8]| {
    let Some((&selector, data)) = data.split_first() else {
        return;
    };
    let backend = backend_of(usize::from(selector));
    let mut head = [0u8; 96];
    let n = data.len().min(96);
    head[..n].copy_from_slice(&data[..n]);
    let edits = data.get(96..).unwrap_or_default();
    let seed: [u8; 64] = head[..64].try_into().expect("64 bytes");
    let m: [u8; 32] = head[64..].try_into().expect("32 bytes");
    check_512(backend, &seed, &m, edits);
    check_768(backend, &seed, &m, edits);
    check_1024(backend, &seed, &m, edits);
});
