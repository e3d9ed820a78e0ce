//! `ct-harness trace`: pairs of runs of one operation on different secrets, between trace
//! markers, for the trace-equivalence test of `cargo xtask ct-aarch64` (under qemu with the
//! `cttrace` plugin, which hashes the executed instruction addresses and the addresses of
//! every load and store between [`trace_marker_begin`] and [`trace_marker_end`]).
//!
//! Each pair runs its operation once unmarked (warm-up: lazy symbol binding, feature
//! detection caches), then marked on input A, on input B, and on A again. The operation is
//! called from one call site, at one stack depth, with its input loaded into one slot
//! (outside the markers) and its result kept in one place, so that constant-time code gives
//! identical traces for A and B. A against A again shows the method is deterministic.
//! Every pair prints `trace: pair LABEL expect=EXPECTATION` before its three segments:
//! - `same`: A, B and A again must be identical (instruction and memory hashes);
//! - `insns-differ`, `mems-differ`: the negative controls of [`crate::leaky`], a branch on a
//!   secret bit and a load at a secret index, whose traces the check must see differ (the
//!   instruction addresses, and only the memory addresses, respectively).
//!
//! The pairs, for ML-KEM-512, -768 and -1024 on every backend the CPU has:
//! - decapsulation of a valid and of a rejected (one bit flipped) ciphertext, with a key kept
//!   parsed, and one-shot from the expanded key bytes;
//! - decapsulation under two keys (each of its own valid ciphertext), parsed;
//! - the same one-shot from bytes, with two expanded keys that share their public part
//!   (`ek || H(ek)`) and differ in `dk_pke` and `z` (the second key's ciphertext is then
//!   rejected: the pair also mixes acceptance and rejection);
//! - the expanded key import of those two keys, and the export of two keys
//!   (`ByteEncode_12(s-hat)`, the encoding key generation ends with);
//! - encapsulation of two messages to a parsed key, and one-shot from the key bytes;
//! - key generation from two seeds `d || z` with one `d` and two `z`. Key generation's trace
//!   depends on `rho` by design (A-hat is rejection-sampled from it, FIPS 203 Alg. 13
//!   lines 3-7), and `rho = G(d || k)[..32]` comes from the same `d` as the secret `sigma`,
//!   so two seeds with different `d` never share `rho` and no public entry point takes
//!   `rho` apart from `d`. The rest of key generation runs kernels the other pairs run on
//!   secret inputs: noise sampling (CBD), NTTs and the matrix-vector product in the
//!   re-encryption of decapsulation and in encapsulation, `ByteEncode_12(s-hat)` in the
//!   export pair; in key generation the noise streams take fixed numbers of Keccak blocks,
//!   so the lane schedule shared with A-hat's streams depends on `rho` alone.
//!
//! Natively (or without the plugin) the markers do nothing and the mode is a functional run.

use crate::ops::{Kem, MlKem512, MlKem768, MlKem1024};
use lazykem::hazmat::AnyBackend;
use std::hint::black_box;

/// Start of a traced segment: the plugin matches this function's symbol.
#[inline(never)]
pub(crate) fn trace_marker_begin() -> u64 {
    // Distinct bodies, so that no pass merges the two markers into one symbol.
    black_box(0x7472_6163_6562_6567)
}

/// End of a traced segment.
#[inline(never)]
pub(crate) fn trace_marker_end() -> u64 {
    black_box(0x7472_6163_6565_6e64)
}

/// Runs `op` on inputs A and B (loaded into `slot` by `load(0)` and `load(1)`): a warm-up
/// on A, then A, B and A between markers.
fn pair<I, O>(
    label: &str,
    expect: &str,
    mut slot: I,
    mut load: impl FnMut(usize, &mut I),
    mut op: impl FnMut(&I) -> O,
) {
    println!("trace: pair {label} expect={expect}");
    for (round, which) in [0usize, 0, 1, 0].into_iter().enumerate() {
        load(which, &mut slot);
        run_once(&slot, &mut op, round > 0);
    }
}

/// One run of `op`, between the markers if `marked`. Out of line, with the result kept in
/// its own frame: however the caller's loop is unrolled, every run executes this one copy
/// of the code with the same stack addresses.
#[inline(never)]
fn run_once<I, O>(slot: &I, op: &mut impl FnMut(&I) -> O, marked: bool) {
    if marked {
        black_box(trace_marker_begin());
    }
    let result = op(black_box(slot));
    if marked {
        black_box(trace_marker_end());
    }
    black_box(&result);
}

/// The pairs of one parameter set on one backend.
fn pairs<P: Kem>(backend: AnyBackend, label: u8) -> Result<(), String> {
    let name = format!("{} {}", P::NAME, backend.kind());
    let seed_a: [u8; 64] = crate::test_bytes(0x40 + label);
    let seed_b: [u8; 64] = crate::test_bytes(0x50 + label);
    let dk_a = P::key_gen(backend, &seed_a);
    let dk_b = P::key_gen(backend, &seed_b);
    let ek_a = P::ek_bytes(&dk_a);
    let bytes_a = P::expanded_bytes(backend, &dk_a);
    let bytes_b = P::expanded_bytes(backend, &dk_b);
    // B's secret part (dk_pke) and z with A's public part (ek || H(ek)).
    let dk_pke_len = P::DK_SIZE - P::EK_SIZE - 64;
    let mut mixed = bytes_a.clone();
    mixed[..dk_pke_len].copy_from_slice(&bytes_b[..dk_pke_len]);
    mixed[P::DK_SIZE - 32..].copy_from_slice(&bytes_b[P::DK_SIZE - 32..]);
    let expanded = [bytes_a.clone(), mixed];

    let ek = P::parse_ek(backend, &ek_a).map_err(|e| format!("{name}: parse ek: {e}"))?;
    let messages: [[u8; 32]; 2] = [crate::test_bytes(0x60 + label), crate::test_bytes(0x70)];
    let (ct_a, _) = P::encapsulate(backend, &ek, &messages[0]);
    let ek_b =
        P::parse_ek(backend, &P::ek_bytes(&dk_b)).map_err(|e| format!("{name}: parse ek: {e}"))?;
    let (ct_b, _) = P::encapsulate(backend, &ek_b, &messages[1]);
    let mut bad = P::ct_bytes(&ct_a);
    bad[0] ^= 1;
    let ct_bad = P::parse_ct(&bad).map_err(|e| format!("{name}: parse ct: {e}"))?;
    let valid_rejected = [ct_a.clone(), ct_bad];
    let keys = [dk_a.clone(), dk_b.clone()];
    let key_cts = [ct_a.clone(), ct_b];

    pair(
        &format!("{name} decaps valid/rejected"),
        "same",
        ct_a.clone(),
        |i, slot| slot.clone_from(&valid_rejected[i]),
        |ct| P::decapsulate(backend, &dk_a, ct),
    );
    pair(
        &format!("{name} decaps two keys"),
        "same",
        (dk_a.clone(), ct_a.clone()),
        |i, slot| {
            slot.0.clone_from(&keys[i]);
            slot.1.clone_from(&key_cts[i]);
        },
        |(dk, ct)| P::decapsulate(backend, dk, ct),
    );
    pair(
        &format!("{name} decaps-from-bytes valid/rejected"),
        "same",
        ct_a.clone(),
        |i, slot| slot.clone_from(&valid_rejected[i]),
        |ct| P::decapsulate_expanded(backend, &bytes_a, ct).is_ok(),
    );
    pair(
        &format!("{name} decaps-from-bytes two secret keys"),
        "same",
        bytes_a.clone(),
        |i, slot| slot.copy_from_slice(&expanded[i]),
        |bytes| P::decapsulate_expanded(backend, bytes, &ct_a).is_ok(),
    );
    pair(
        &format!("{name} dk-import two secret keys"),
        "same",
        bytes_a.clone(),
        |i, slot| slot.copy_from_slice(&expanded[i]),
        |bytes| P::import_dk(backend, bytes).is_ok(),
    );
    pair(
        &format!("{name} dk-export two keys"),
        "same",
        dk_a.clone(),
        |i, slot| slot.clone_from(&keys[i]),
        |dk| P::expanded_bytes(backend, dk),
    );
    pair(
        &format!("{name} encaps two messages"),
        "same",
        [0u8; 32],
        |i, slot| *slot = messages[i],
        |m| P::encapsulate(backend, &ek, m),
    );
    pair(
        &format!("{name} encaps-from-bytes two messages"),
        "same",
        [0u8; 32],
        |i, slot| *slot = messages[i],
        |m| P::encapsulate_encoded(backend, &ek_a, m).is_ok(),
    );
    keygen_pairs::<P>(backend, &name, &seed_a, &seed_b, dk_b);
    Ok(())
}

/// Key generation from one `d` and two `z` (see the module documentation for why not two
/// `d`), into a new key and into an existing one (`target`).
fn keygen_pairs<P: Kem>(
    backend: AnyBackend,
    name: &str,
    seed_a: &[u8; 64],
    seed_b: &[u8; 64],
    mut target: P::Dk,
) {
    let mut seed_z = *seed_a;
    seed_z[32..].copy_from_slice(&seed_b[32..]);
    let seeds = [*seed_a, seed_z];
    pair(
        &format!("{name} keygen two z"),
        "same",
        [0u8; 64],
        |i, slot| *slot = seeds[i],
        |seed| P::key_gen(backend, seed),
    );
    pair(
        &format!("{name} keygen-into-key two z"),
        "same",
        [0u8; 64],
        |i, slot| *slot = seeds[i],
        |seed| P::set_from_seed(&mut target, seed),
    );
}

/// The negative controls: each must make its pair's traces differ.
fn controls() {
    // Low bits 1 and 0: one takes the call, the other does not.
    pair(
        "leaky branch_on_secret",
        "insns-differ",
        0u8,
        |i, slot| *slot = [0x5b, 0x5a][i],
        |s| crate::leaky::branch_on_secret(*s),
    );
    pair(
        "leaky lookup_by_secret",
        "mems-differ",
        0u8,
        |i, slot| *slot = [0x11, 0xee][i],
        |s| crate::leaky::lookup_by_secret(*s),
    );
}

/// Runs every pair.
pub(crate) fn run() -> Result<(), String> {
    controls();
    let mut checked = Vec::new();
    for backend in crate::backends("trace") {
        let kind = backend.kind();
        pairs::<MlKem512>(backend, 1)?;
        pairs::<MlKem768>(backend, 2)?;
        pairs::<MlKem1024>(backend, 3)?;
        checked.push(kind.name());
    }
    println!("trace: backends {}", checked.join(", "));
    Ok(())
}
