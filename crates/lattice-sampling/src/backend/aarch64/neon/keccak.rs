//! The aarch64 Keccak-f\[1600\] permutations, behind the crate's permutation traits
//! (`crate::keccak::KeccakF1600`, `crate::keccak::PermuteLanes`):
//!
//! | type | states | what |
//! |---|---|---|
//! | [`X2Sha3`] | 2 | two states in the two 64-bit lanes of 25 NEON registers, FEAT_SHA3's `eor3`, `rax1`, `xar`, `bcax`; a single state in the low lanes of the same round |
//! | [`X2Neon`] | 2 | the same layout in plain NEON (rotations as `shl` + `sri`, chi as `bic` + `eor`); a single state on the scalar rounds |
//!
//! # The round
//! Theta's column parities `C[x]` and `D[x] = C[x - 1] ^ rotl(C[x + 1], 1)`, rho and pi in
//! place along pi's 24-cycle (`B[y + 5((2x + 3y) mod 5)] = rotl(A[x + 5y] ^ D[x], r[x, y])`),
//! chi row by row (`B[x] ^ (!B[x + 1] & B[x + 2])`) and iota, ordered so that at most 31
//! registers are live. With FEAT_SHA3 a parity is two `eor3`, a `D` one `rax1`, a rho-pi
//! word one `xar` (xor, then rotate right by `64 - r`), a chi word one `bcax`: 67
//! instructions a round for both states.
//!
//! # Instructions per permutation
//! Two states cost fewer instructions per state than one on both kinds of CPU (executed
//! under qemu-aarch64, against mlkem-native's assembly: docs/performance-history.md), so
//! the scheduler runs two lanes with and without FEAT_SHA3, and a single state runs on
//! FEAT_SHA3's round or the scalar one. A hybrid of NEON and scalar states is not built: it
//! pays only where scalar and vector pipes run in parallel, which a count does not show.
//!
//! Each type is a zero-sized value made only where its instructions may run ([`X2Sha3`] from
//! the [`Sha3`] proof), so its methods are safe. aarch64 Linux is little-endian: the
//! registers' 64-bit lanes are stored as they are, in Keccak's byte order.

use core::arch::aarch64::{
    uint64x2_t, vbcaxq_u64, vbicq_u64, vcombine_u64, vdup_n_u64, vdupq_n_u64, veor3q_u64,
    veorq_u64, vget_low_u64, vgetq_lane_u64, vld1_u64, vld1q_u64, vrax1q_u64, vshlq_n_u64,
    vsriq_n_u64, vst1_u64, vst1q_u64, vxarq_u64, vzip1q_u64, vzip2q_u64,
};

use crate::keccak::f1600::{RC, permute_rounds};
use crate::keccak::{KeccakF1600, PermuteLanes, WORDS};

cpufeatures::new!(cpuid_sha3, "sha3");

/// Proof that the CPU has FEAT_SHA3 (`eor3`, `rax1`, `xar`, `bcax`; with FEAT_SHA512, which
/// `cpufeatures` checks with it); made only by [`Sha3::detect`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sha3(());

impl Sha3 {
    /// The proof, if this CPU has the extension (detected once, then cached: one atomic
    /// load).
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        cpuid_sha3::get().then_some(Self(()))
    }
}

/// FEAT_SHA3's operations of a round, for [`round!`].
macro_rules! sha3_ops {
    (xor5, $a:expr, $b:expr, $c:expr, $d:expr, $e:expr) => {
        veor3q_u64(veor3q_u64($a, $b, $c), $d, $e)
    };
    // `prev ^ rotl(next, 1)`.
    (theta, $prev:expr, $next:expr) => {
        vrax1q_u64($prev, $next)
    };
    // `rotl(a ^ d, r)`: `xar` rotates right.
    (rho, $a:expr, $d:expr, 0) => {
        veorq_u64($a, $d)
    };
    (rho, $a:expr, $d:expr, $r:tt) => {
        vxarq_u64::<{ 64 - $r }>($a, $d)
    };
    // `b0 ^ (!b1 & b2)`: `bcax(a, b, c)` is `a ^ (b & !c)`.
    (chi, $b0:expr, $b1:expr, $b2:expr) => {
        vbcaxq_u64($b0, $b2, $b1)
    };
}

/// The round constants, each in both 64-bit lanes (one `ldr q` per round).
static RC2: [[u64; 2]; 24] = {
    let mut table = [[0; 2]; 24];
    let mut i = 0;
    while i < 24 {
        table[i] = [RC[i], RC[i]];
        i += 1;
    }
    table
};

/// Plain NEON's operations of a round, for [`round!`]: a rotation is `shl` and `sri`.
macro_rules! neon_ops {
    (xor5, $a:expr, $b:expr, $c:expr, $d:expr, $e:expr) => {
        veorq_u64(veorq_u64(veorq_u64($a, $b), veorq_u64($c, $d)), $e)
    };
    (theta, $prev:expr, $next:expr) => {{
        let n = $next;
        veorq_u64($prev, vsriq_n_u64::<63>(vshlq_n_u64::<1>(n), n))
    }};
    (rho, $a:expr, $d:expr, 0) => {
        veorq_u64($a, $d)
    };
    (rho, $a:expr, $d:expr, $r:tt) => {{
        let t = veorq_u64($a, $d);
        vsriq_n_u64::<{ 64 - $r }>(vshlq_n_u64::<$r>(t), t)
    }};
    (chi, $b0:expr, $b1:expr, $b2:expr) => {
        veorq_u64($b0, vbicq_u64($b2, $b1))
    };
}

/// Rho and pi in place: `$a[dst] = rotl($a[src] ^ d, r)` along pi's one 24-cycle (word 0
/// is fixed), each step writing the word whose value the step before read, so one
/// temporary (`first`, word 1's value, read by the last step) is live beyond the state.
macro_rules! rho_pi {
    ($ops:ident, $a:ident, $d0:ident;
        $(($dst:literal, $src:literal, $d:ident, $r:tt)),*;
        last: ($last:literal, $dl:ident, $rl:tt)) => {{
        let first = $a[1];
        $($a[$dst] = $ops!(rho, $a[$src], $d, $r);)*
        $a[$last] = $ops!(rho, first, $dl, $rl);
        $a[0] = $ops!(rho, $a[0], $d0, 0);
    }};
}

/// Chi on row `$y` of `$a` in place: `b[x] ^ (!b[x + 1] & b[x + 2])`, with the row's first
/// two words kept for the last two outputs.
macro_rules! chi_row {
    ($ops:ident, $a:ident, $y:literal) => {{
        let (b0, b1) = ($a[5 * $y], $a[5 * $y + 1]);
        $a[5 * $y] = $ops!(chi, b0, b1, $a[5 * $y + 2]);
        $a[5 * $y + 1] = $ops!(chi, b1, $a[5 * $y + 2], $a[5 * $y + 3]);
        $a[5 * $y + 2] = $ops!(chi, $a[5 * $y + 2], $a[5 * $y + 3], $a[5 * $y + 4]);
        $a[5 * $y + 3] = $ops!(chi, $a[5 * $y + 3], $a[5 * $y + 4], b0);
        $a[5 * $y + 4] = $ops!(chi, $a[5 * $y + 4], b0, b1);
    }};
}

/// One round (FIPS 202 §3.3) on `$a` in place, in the operations `$ops` (a macro,
/// so that it inlines into each `target_feature` function), written so that at most 31
/// registers are live at once: theta's five parities, then the five `D` in an order that
/// frees each parity after its second use (at most six of them live); rho and pi along
/// the pi cycle (the table of `crate::keccak::f1600`'s round, by destination: source word,
/// its column's `D`, rotation); chi row by row; iota.
macro_rules! round {
    ($ops:ident, $a:ident, $rc:expr) => {{
        let c0 = $ops!(xor5, $a[0], $a[5], $a[10], $a[15], $a[20]);
        let c1 = $ops!(xor5, $a[1], $a[6], $a[11], $a[16], $a[21]);
        let c2 = $ops!(xor5, $a[2], $a[7], $a[12], $a[17], $a[22]);
        let c3 = $ops!(xor5, $a[3], $a[8], $a[13], $a[18], $a[23]);
        let c4 = $ops!(xor5, $a[4], $a[9], $a[14], $a[19], $a[24]);
        let d1 = $ops!(theta, c0, c2);
        let d3 = $ops!(theta, c2, c4);
        let d0 = $ops!(theta, c4, c1);
        let d2 = $ops!(theta, c1, c3);
        let d4 = $ops!(theta, c3, c0);
        rho_pi!($ops, $a, d0;
            (1, 6, d1, 44), (6, 9, d4, 20), (9, 22, d2, 61), (22, 14, d4, 39), (14, 20, d0, 18),
            (20, 2, d2, 62), (2, 12, d2, 43), (12, 13, d3, 25), (13, 19, d4, 8), (19, 23, d3, 56),
            (23, 15, d0, 41), (15, 4, d4, 27), (4, 24, d4, 14), (24, 21, d1, 2), (21, 8, d3, 55),
            (8, 16, d1, 45), (16, 5, d0, 36), (5, 3, d3, 28), (3, 18, d3, 21), (18, 17, d2, 15),
            (17, 11, d1, 10), (11, 7, d2, 6), (7, 10, d0, 3);
            last: (10, d1, 1));
        chi_row!($ops, $a, 0);
        chi_row!($ops, $a, 1);
        chi_row!($ops, $a, 2);
        chi_row!($ops, $a, 3);
        chi_row!($ops, $a, 4);
        $a[0] = veorq_u64($a[0], $rc);
    }};
}

/// The 24 rounds on the registers `$a` (each lane a state): `unrolled` (no loop-carried
/// register moves, the constants as immediates) or `looped` (one round per iteration, the
/// constant loaded): which executes fewer instructions depends on the register pressure of
/// the operations (see the table in the module docs).
macro_rules! rounds {
    (unrolled, $ops:ident, $a:ident) => {{
        // The table's address is opaque to the optimizer, so each constant is one `ldr q`
        // at an immediate offset (not built from immediates: two to four instructions).
        let rc2: &[[u64; 2]; 24] = core::hint::black_box(&RC2);
        rounds!(@each $ops, $a, rc2; 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
            17, 18, 19, 20, 21, 22, 23);
    }};
    (@each $ops:ident, $a:ident, $rc2:ident; $($i:literal),*) => {
        // SAFETY: each row of the table is 16 readable bytes.
        $(round!($ops, $a, unsafe { vld1q_u64($rc2[$i].as_ptr()) });)*
    };
    (looped, $ops:ident, $a:ident) => {{
        for &rc in &RC {
            round!($ops, $a, vdupq_n_u64(rc));
        }
    }};
}

/// The two states of `words` in registers (word `i` of both in `regs[i]`).
#[inline]
#[target_feature(enable = "neon")]
fn load_x2(words: &[[u64; 2]; WORDS]) -> [uint64x2_t; WORDS] {
    let mut regs = [vdupq_n_u64(0); WORDS];
    for (reg, word) in regs.iter_mut().zip(words) {
        // SAFETY: `word` is 16 readable bytes; `ld1` needs no alignment.
        *reg = unsafe { vld1q_u64(word.as_ptr()) };
    }
    regs
}

/// Stores `regs` back to `words` (the inverse of [`load_x2`]).
#[inline]
#[target_feature(enable = "neon")]
fn store_x2(regs: &[uint64x2_t; WORDS], words: &mut [[u64; 2]; WORDS]) {
    for (word, reg) in words.iter_mut().zip(regs) {
        // SAFETY: `word` is 16 writable bytes; `st1` needs no alignment.
        unsafe { vst1q_u64(word.as_mut_ptr(), *reg) };
    }
}

/// Stores each state of `regs` to its row of `out`, transposed in registers: words
/// `2k, 2k + 1` of state `l` are lane `l` of `regs[2k]` and `regs[2k + 1]` (`zip1`, `zip2`).
#[inline]
#[target_feature(enable = "neon")]
fn copy_out_x2(regs: &[uint64x2_t; WORDS], out: &mut [[u64; WORDS]; 2]) {
    let [out0, out1] = out;
    for (k, pair) in regs.as_chunks::<2>().0.iter().enumerate() {
        let (first, second) = (vzip1q_u64(pair[0], pair[1]), vzip2q_u64(pair[0], pair[1]));
        // SAFETY: `out0[2k..2k + 2]` and `out1[2k..2k + 2]` (k < 12) are 16 writable bytes
        // each; `st1` needs no alignment.
        unsafe {
            vst1q_u64(out0[2 * k..2 * k + 2].as_mut_ptr(), first);
            vst1q_u64(out1[2 * k..2 * k + 2].as_mut_ptr(), second);
        }
    }
    out0[WORDS - 1] = vgetq_lane_u64::<0>(regs[WORDS - 1]);
    out1[WORDS - 1] = vgetq_lane_u64::<1>(regs[WORDS - 1]);
}

/// Two states with FEAT_SHA3, copied out transposed after. Out of line: inlined into the
/// scheduler, the batch around it executed more (docs/performance-history.md).
#[inline(never)]
#[target_feature(enable = "sha3")]
fn permute_x2_sha3(words: &mut [[u64; 2]; WORDS], out: Option<&mut [[u64; WORDS]; 2]>) {
    let mut a = load_x2(words);
    rounds!(unrolled, sha3_ops, a);
    store_x2(&a, words);
    if let Some(out) = out {
        copy_out_x2(&a, out);
    }
}

/// Two states in plain NEON, copied out transposed after.
#[inline]
#[target_feature(enable = "neon")]
fn permute_x2_neon(words: &mut [[u64; 2]; WORDS], out: Option<&mut [[u64; WORDS]; 2]>) {
    let mut a = load_x2(words);
    rounds!(looped, neon_ops, a);
    store_x2(&a, words);
    if let Some(out) = out {
        copy_out_x2(&a, out);
    }
}

/// One state in the low lanes of the FEAT_SHA3 round. Every operation is lane-wise, so the
/// high lanes (zero at the start, then the permutation of the zero state: public) never
/// reach the low ones, and are not stored.
#[inline]
#[target_feature(enable = "sha3")]
pub(crate) fn permute_single_sha3(state: &mut [u64; WORDS]) {
    let mut a = [vdupq_n_u64(0); WORDS];
    for (reg, word) in a.iter_mut().zip(state.iter()) {
        // SAFETY: `word` is 8 readable bytes (`ldr d`, which zeroes the high lane).
        *reg = vcombine_u64(unsafe { vld1_u64(word) }, vdup_n_u64(0));
    }
    rounds!(looped, sha3_ops, a);
    for (word, reg) in state.iter_mut().zip(&a) {
        // SAFETY: `word` is 8 writable bytes (`str d`).
        unsafe { vst1_u64(word, vget_low_u64(*reg)) };
    }
}

/// The single-state permutation the NEON token's sponges run on: FEAT_SHA3's where the CPU
/// has it, else the scalar rounds (instructions per permutation under qemu:
/// docs/performance-history.md).
#[inline]
pub(crate) fn f1600_neon(state: &mut [u64; WORDS]) {
    match Sha3::detect() {
        // SAFETY: the proof exists, so the CPU has FEAT_SHA3.
        Some(_) => unsafe { permute_single_sha3(state) },
        None => permute_scalar(state),
    }
}

/// The scalar rounds out of line: inlined into [`f1600_neon`] beside the detection, they
/// were register-allocated worse (docs/performance-history.md).
#[inline(never)]
fn permute_scalar(state: &mut [u64; WORDS]) {
    permute_rounds(state);
}

/// The FEAT_SHA3 2-way permutation (and single state); made only from a [`Sha3`] proof.
#[derive(Clone, Copy, Debug)]
pub(crate) struct X2Sha3(());

impl X2Sha3 {
    pub(crate) const fn new(_: Sha3) -> Self {
        Self(())
    }
}

impl KeccakF1600 for X2Sha3 {
    #[inline(always)]
    fn f1600(self, state: &mut [u64; 25]) {
        // SAFETY: made only from a `Sha3` proof.
        unsafe { permute_single_sha3(state) }
    }
}

impl PermuteLanes<2> for X2Sha3 {
    const COPIES_OUT: bool = cfg!(target_endian = "little");

    #[inline(always)]
    fn permute(self, words: &mut [[u64; 2]; WORDS]) {
        // SAFETY: made only from a `Sha3` proof.
        unsafe { permute_x2_sha3(words, None) }
    }

    #[inline(always)]
    fn permute_copying(self, words: &mut [[u64; 2]; WORDS], out: &mut [[u64; WORDS]; 2]) {
        // SAFETY: made only from a `Sha3` proof.
        unsafe { permute_x2_sha3(words, Some(out)) }
    }
}

/// The plain NEON 2-way permutation (every aarch64 CPU), the scalar rounds for one state.
#[derive(Clone, Copy, Debug)]
pub(crate) struct X2Neon;

impl KeccakF1600 for X2Neon {
    #[inline(always)]
    fn f1600(self, state: &mut [u64; 25]) {
        permute_rounds(state);
    }
}

impl PermuteLanes<2> for X2Neon {
    const COPIES_OUT: bool = cfg!(target_endian = "little");

    #[inline(always)]
    fn permute(self, words: &mut [[u64; 2]; WORDS]) {
        // SAFETY: NEON is part of the aarch64 baseline.
        unsafe { permute_x2_neon(words, None) };
    }

    #[inline(always)]
    fn permute_copying(self, words: &mut [[u64; 2]; WORDS], out: &mut [[u64; WORDS]; 2]) {
        // SAFETY: NEON is part of the aarch64 baseline.
        unsafe { permute_x2_neon(words, Some(out)) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keccak::f1600_portable;
    use proptest::prelude::*;

    /// A 2-way permutation under test: permutes the states, writes them out by lane.
    type Run = fn(&mut [[u64; 2]; WORDS], &mut [[u64; WORDS]; 2]);

    /// Both 2-way permutations (the FEAT_SHA3 one where the CPU has it), copying out or not,
    /// and the single states, against the portable permutation.
    fn check(states: &[[u64; WORDS]; 2]) {
        let want = states.map(|mut s| {
            f1600_portable(&mut s);
            s
        });
        let mut words: [[u64; 2]; WORDS] = core::array::from_fn(|i| [states[0][i], states[1][i]]);
        let interleaved = words;
        let mut out = [[0u64; WORDS]; 2];
        let mut runs: std::vec::Vec<(&str, Run)> = std::vec![
            ("neon", |w, o| X2Neon.permute_copying(w, o)),
            ("neon, no copy", |w, o| {
                X2Neon.permute(w);
                *o = core::array::from_fn(|l| core::array::from_fn(|i| w[i][l]));
            }),
        ];
        if Sha3::detect().is_some() {
            runs.push(("sha3", |w, o| {
                X2Sha3(()).permute_copying(w, o);
            }));
            runs.push(("sha3, no copy", |w, o| {
                X2Sha3(()).permute(w);
                *o = core::array::from_fn(|l| core::array::from_fn(|i| w[i][l]));
            }));
        } else {
            std::println!("note: CPU without FEAT_SHA3, SHA3 permutations not tested");
        }
        for (name, run) in runs {
            words = interleaved;
            run(&mut words, &mut out);
            assert_eq!(out, want, "{name}");
            for l in 0..2 {
                assert!(
                    words.iter().zip(&want[l]).all(|(w, s)| w[l] == *s),
                    "{name} {l}"
                );
            }
        }
        for (state, want) in states.iter().zip(&want) {
            let mut got = *state;
            f1600_neon(&mut got);
            assert_eq!(&got, want, "single");
            let mut got = *state;
            X2Neon.f1600(&mut got);
            assert_eq!(&got, want, "single scalar");
        }
    }

    #[test]
    fn zero_and_extreme_states() {
        check(&[[0; WORDS], [u64::MAX; WORDS]]);
        check(&[[0x8000_0000_0000_0001; WORDS], [1; WORDS]]);
    }

    proptest! {
        #[test]
        fn matches_portable_permutation(states in any::<[[u64; WORDS]; 2]>()) {
            check(&states);
        }
    }
}

/// The instruction-count probe behind the table in docs/performance-history.md: runs one
/// permutation `N` times, for qemu's icount plugin on the release test binary:
/// `ICOUNT_PROBE=VARIANT:N qemu-aarch64 -plugin icount.so,out=c.txt BIN --ignored --exact
/// backend::aarch64::neon::keccak::probe::icount_probe`, then `(count(21) - count(1)) / 20`.
#[cfg(test)]
mod probe {
    use super::*;
    use crate::keccak::PortableX2;

    #[test]
    #[ignore = "a measurement probe, run by hand under qemu"]
    fn icount_probe() {
        let spec = std::env::var("ICOUNT_PROBE").expect("ICOUNT_PROBE=VARIANT:N");
        let (variant, n) = spec.split_once(':').expect("VARIANT:N");
        let n: usize = n.parse().expect("a count");
        let mut words = [[0x0123_4567_89ab_cdefu64; 2]; WORDS];
        let mut out = [[0u64; WORDS]; 2];
        let mut single = [7u64; WORDS];
        for _ in 0..n {
            match variant {
                "x2sha3" => X2Sha3(()).permute(core::hint::black_box(&mut words)),
                "x2sha3copy" => {
                    X2Sha3(()).permute_copying(core::hint::black_box(&mut words), &mut out);
                }
                "x2neon" => X2Neon.permute(core::hint::black_box(&mut words)),
                "x2neoncopy" => X2Neon.permute_copying(core::hint::black_box(&mut words), &mut out),
                "portablex2" => PortableX2.permute(core::hint::black_box(&mut words)),
                // SAFETY: run by hand on a CPU with FEAT_SHA3 only.
                "single-sha3" => unsafe { permute_single_sha3(core::hint::black_box(&mut single)) },
                "scalar" => crate::keccak::f1600_portable(core::hint::black_box(&mut single)),
                "neon-token" => f1600_neon(core::hint::black_box(&mut single)),
                _ => panic!("unknown variant {variant}"),
            }
        }
        core::hint::black_box((&words, &out, &single));
    }
}
