//! The `SampleNTT` candidate parser (FIPS 203 Alg. 7 l. 5-15) in NEON, on whole SHAKE128
//! blocks (what the scheduler parses).
//!
//! One step takes 24 bytes (8 groups of 3), 16 candidates of 12 bits, as two halves of 12
//! bytes (8 candidates each):
//! 1. a 16-byte load (bytes 0..16 of the step for the first half, 8..24 for the second, so
//!    that no load reads past the step) and one `tbl` give every candidate its own 16-bit
//!    lane (bytes `3g, 3g + 1` for `d1` and `3g + 1, 3g + 2` for `d2` of group `g`);
//! 2. one `ushl` by `[0, -4, 0, -4, ..]` and one `and` with `0x0fff` make `d1 = b0 + 256 *
//!    (b1 mod 16)` in the even lanes and `d2 = b1 / 16 + 16 * b2` in the odd ones;
//! 3. `cmhi` against q marks the accepted candidates, and `addv` of the marks ANDed with
//!    the lane bits `1, 2, 4, .., 128` gives the 8-bit acceptance mask;
//! 4. a `tbl` whose pattern is the table entry indexed by the mask moves the accepted lanes
//!    to the front; 16 bytes are stored at the fill position, which advances by the mask's
//!    popcount (a table too).
//!
//! A step stores 16 bytes twice, up to 16 slots past the fill position whatever the masks,
//! so it runs straight into the polynomial while 16 slots are free; the last slots take
//! whole steps into a window over the last 16 slots, copied back, the count stopping
//! exactly at `N` as the algorithm does.
//!
//! The input is public (derived from rho): branching on it and indexing tables with the
//! masks is fine architecturally. Speculatively (`crate::speculation`), the block
//! the parser reads is selected by the misspeculation flag at entry: on a mispredicted path
//! (say, a lane whose job has not squeezed yet, its buffer holding an older job's PRF
//! output) it reads [`ZERO_BLOCK`], so every mask, table index and store offset comes from
//! constant bytes. Every load is at a fixed offset of that block (the seven steps are
//! straight-line code), so no later branch can send a read elsewhere; the exits once the
//! polynomial is nearly full update the flag, and the last slots' masks are protected with
//! it too.

use crate::backend::compact::{ACCEPTED, COMPACT};
use core::arch::aarch64::{
    int16x8_t, uint8x16_t, uint16x8_t, vaddvq_u16, vandq_u16, vcltq_u16, vdupq_n_u16, vld1q_s16,
    vld1q_u8, vld1q_u16, vqtbl1q_u8, vreinterpretq_u8_u16, vreinterpretq_u16_u8, vshlq_u16,
    vst1q_u8,
};

use lattice_field::gf3329::Q;
use lattice_poly_ntt::mlkem::N;

use crate::backend::walk::{self, BLOCK_STEPS, STEP_BYTES, STEP_CANDIDATES, block_walk};
use crate::keccak::SHAKE128_RATE;
use crate::speculation::{Msf, protect, protect_ref};

/// What the parser reads on a mispredicted path: every candidate is 0 (accepted), so the
/// masks are 255 and the fill advances by 8 per half, whatever the real block holds.
static ZERO_BLOCK: [u8; SHAKE128_RATE] = [0; SHAKE128_RATE];

/// `tbl` patterns giving each candidate of a half its two bytes: the first half from a
/// load of step bytes 0..16, the second (step bytes 12..24) from a load of bytes 8..24.
const SPREAD: [[u8; 16]; 2] = [
    [0, 1, 1, 2, 3, 4, 4, 5, 6, 7, 7, 8, 9, 10, 10, 11],
    [4, 5, 5, 6, 7, 8, 8, 9, 10, 11, 11, 12, 13, 14, 14, 15],
];

/// Per-lane shifts of step 2: odd lanes right by 4.
const SHIFTS: [i16; 8] = [0, -4, 0, -4, 0, -4, 0, -4];

/// The bit of each lane in the acceptance mask.
const LANE_BITS: [u16; 8] = [1, 2, 4, 8, 16, 32, 64, 128];

/// The eight candidates of a half (bytes spread by `tbl` with `spread`), each below 2^12.
#[inline]
#[target_feature(enable = "neon")]
fn candidates(raw: uint8x16_t, spread: uint8x16_t, shifts: int16x8_t) -> uint16x8_t {
    let words = vreinterpretq_u16_u8(vqtbl1q_u8(raw, spread));
    // `ushl` by a negative count shifts right.
    vandq_u16(vshlq_u16(words, shifts), vdupq_n_u16(0x0fff))
}

/// The parser's constants, in registers.
#[derive(Clone, Copy)]
struct StepConstants {
    spread: [uint8x16_t; 2],
    shifts: int16x8_t,
    lane_bits: uint16x8_t,
    q: uint16x8_t,
}

impl StepConstants {
    #[inline]
    #[target_feature(enable = "neon")]
    fn load() -> Self {
        // SAFETY: each constant is 16 readable bytes; `ld1` needs no alignment (the same
        // for the next two loads).
        let spread = unsafe { [vld1q_u8(SPREAD[0].as_ptr()), vld1q_u8(SPREAD[1].as_ptr())] };
        // SAFETY: as above.
        let shifts = unsafe { vld1q_s16(SHIFTS.as_ptr()) };
        // SAFETY: as above.
        let lane_bits = unsafe { vld1q_u16(LANE_BITS.as_ptr()) };
        Self {
            spread,
            shifts,
            lane_bits,
            q: vdupq_n_u16(Q),
        }
    }
}

/// One step (a macro: a `target_feature` function is not always inlined, and LLVM outlined
/// the later steps of the block walk with their constants spilled): the accepted
/// candidates of `$step` (24 bytes), packed in order, stored at `$out[$at..]` (16 free
/// slots: two 16-byte stores); evaluates to `$at` plus their number. Each acceptance mask
/// goes through `$mask` before it indexes the tables: the identity where the caller
/// selected the block with the flag (see the module docs), [`protect`] otherwise.
macro_rules! step_neon {
    ($consts:expr, $step:expr, $out:expr, $at:expr, $mask:expr) => {{
        let (consts, step, out, at): (&StepConstants, &[u8; STEP_BYTES], &mut [u16], usize) =
            ($consts, $step, $out, $at);
        assert!(at + STEP_CANDIDATES <= out.len(), "16 free slots");
        // SAFETY: `step` is 24 readable bytes; the loads read bytes 0..16 and 8..24 of it.
        let raw = unsafe { [vld1q_u8(step.as_ptr()), vld1q_u8(step[8..].as_ptr())] };
        let halves = [
            candidates(raw[0], consts.spread[0], consts.shifts),
            candidates(raw[1], consts.spread[1], consts.shifts),
        ];
        let mut at = at;
        for half in halves {
            // Accepted: candidate < q. `addv` of the lane bits is at most 255.
            let mask = usize::from(vaddvq_u16(vandq_u16(
                vcltq_u16(half, consts.q),
                consts.lane_bits,
            )));
            let mask = $mask(mask) & 0xff;
            // SAFETY: the table entry is 16 readable bytes.
            let pattern = unsafe { vld1q_u8(COMPACT[mask].as_ptr()) };
            let packed = vqtbl1q_u8(vreinterpretq_u8_u16(half), pattern);
            // SAFETY: `at + 8 <= out.len()`: the first half stores at the `at` asserted
            // above, the second at most 8 slots later (`ACCEPTED` is at most 8, asserted in
            // `compact.rs`); each store is 8 writable words (16 bytes), `st1` needs no
            // alignment.
            unsafe { vst1q_u8(out.as_mut_ptr().add(at).cast(), packed) };
            at += usize::from(ACCEPTED[mask]);
        }
        at
    }};
}

/// The NEON version of `kernels::parse_candidates` on one whole SHAKE128 block, with the
/// same result: appends the accepted candidates of `block` to `coeffs[filled..]`, stops once
/// `N` are filled, and returns the new fill count, under the misspeculation flag `msf`.
///
/// SCT: the block read is `block` or [`ZERO_BLOCK`] as the flag says; the seven steps are
/// straight-line code whose only branch is each step's exit past `N - 16`, updated on its
/// exit side (a mispredicted "continue" runs a step on the same block, its stores up to 16
/// slots past the fill position: the Spectre v1.1 case `SECURITY.md` leaves uncovered);
/// then [`last_slots_neon`].
// sct: protected(updates, selects), required
#[inline]
#[target_feature(enable = "neon")]
pub(crate) fn parse_block_neon(
    block: &[u8; SHAKE128_RATE],
    coeffs: &mut [u16; N],
    filled: usize,
    msf: &mut Msf,
) -> usize {
    debug_assert!(filled <= N);
    let consts = StepConstants::load();
    let mut m = *msf;
    let block = protect_ref(block, &ZERO_BLOCK, m);
    let (steps, _) = block.as_chunks::<STEP_BYTES>();
    let mut filled = filled;
    let s = block_walk!(steps, filled, m, |step| step_neon!(
        &consts,
        step,
        coeffs,
        filled,
        |mask| mask
    ));
    if s == BLOCK_STEPS {
        // The whole block in steps (no branch left to update the flag for).
        return filled;
    }
    *msf = m;
    last_slots_neon(steps, s, coeffs, filled, msf)
}

/// The last slots (`walk::last_slots`, fewer than 16 free) from step `s` on, each step's
/// masks protected. At most twice per polynomial, so out of line (a tail call: the block
/// walk keeps no stack frame).
// sct: protected(updates, masks), required
#[cold]
#[inline(never)]
#[target_feature(enable = "neon")]
fn last_slots_neon(
    steps: &[[u8; STEP_BYTES]],
    s: usize,
    coeffs: &mut [u16; N],
    filled: usize,
    msf: &mut Msf,
) -> usize {
    let consts = StepConstants::load();
    let (mut s, mut filled) = (s, filled);
    walk::last_slots(
        steps,
        &mut s,
        coeffs,
        &mut filled,
        msf,
        |step, window, at, m| step_neon!(&consts, step, window, at, |mask| protect(mask, m)),
    );
    filled
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::parse_candidates;
    use proptest::prelude::*;

    /// The NEON parser against the scalar one on `block` from `filled`, with the slots past
    /// the fill position starting from `init`.
    fn check(block: &[u8; SHAKE128_RATE], filled: usize, init: u16) {
        let mut want = [init; N];
        let mut got = [init; N];
        let n_want = parse_candidates(block, &mut want, filled);
        let mut msf = crate::speculation::init_msf();
        // SAFETY: NEON is part of the aarch64 baseline.
        let n_got = unsafe { parse_block_neon(block, &mut got, filled, &mut msf) };
        assert!(!msf.is_set(), "the flag is clear on the architectural path");
        assert_eq!(n_got, n_want, "fill count from {filled}");
        // Slots up to the fill count must agree; past it the SIMD stores may leave
        // candidates, which callers never read (the scalar parser leaves `init`).
        assert_eq!(got[..n_got], want[..n_want], "from {filled}");
    }

    #[test]
    fn every_mask_of_a_half() {
        // In the first two steps, candidate i of a half is accepted iff bit i of m: 0 or
        // 3328 (accepted), 3329 or 4095 (rejected), in every position; the rest of the
        // block is rejected candidates. From fill counts on both sides of `N - 16` and `N`.
        for m in 0..256u32 {
            let mut block = [0xffu8; SHAKE128_RATE];
            block[..48].fill(0);
            for i in 0..32 {
                let accepted = m & (1 << (i % 8)) != 0;
                let v: u16 = match (accepted, i % 3) {
                    (true, 0) => 0,
                    (true, _) => 3328,
                    (false, 1) => 3329,
                    (false, _) => 4095,
                };
                let g = i / 2;
                if i % 2 == 0 {
                    block[3 * g] = v as u8;
                    block[3 * g + 1] |= (v >> 8) as u8;
                } else {
                    block[3 * g + 1] |= (v << 4) as u8;
                    block[3 * g + 2] = (v >> 4) as u8;
                }
            }
            for filled in [0, 100, N - 40, N - 17, N - 16, N - 15, N - 8, N - 1, N] {
                check(&block, filled, 0xffff);
            }
        }
    }

    proptest! {
        #[test]
        fn matches_scalar(block in any::<[u8; SHAKE128_RATE]>(), filled in 0..=N, init in any::<u16>()) {
            check(&block, filled, init);
        }

        #[test]
        fn whole_blocks_from_zero(blocks in proptest::collection::vec(any::<[u8; 168]>(), 1..5)) {
            // Block by block from an empty polynomial, as a `SampleNTT` job parses.
            let mut want = [0u16; N];
            let mut got = [0u16; N];
            let (mut n_want, mut n_got) = (0, 0);
            for block in &blocks {
                n_want = parse_candidates(block, &mut want, n_want);
                let mut msf = crate::speculation::init_msf();
                // SAFETY: NEON is part of the aarch64 baseline.
                n_got = unsafe { parse_block_neon(block, &mut got, n_got, &mut msf) };
                prop_assert!(!msf.is_set());
                prop_assert_eq!(n_got, n_want);
                prop_assert_eq!(&got[..n_got], &want[..n_want]);
            }
        }
    }

    /// With the flag forced to all ones (a mispredicted path), the parser reads the zero
    /// block whatever it is given: every candidate is 0 and accepted, so the table indices
    /// and the fill advance no longer depend on the bytes (a missing selection fails this).
    #[test]
    fn misspeculated_reads_the_zero_block() {
        use crate::speculation::{force_misspeculation, init_msf};
        let block: [u8; 168] = core::array::from_fn(|i| (i as u8).wrapping_mul(151) | 0x80);
        let mut scalar = [0u16; N];
        assert!(
            parse_candidates(&block, &mut scalar, 0) < 112,
            "the block has rejected candidates"
        );
        for filled in [0, 100, N - 20, N - 5] {
            let mut coeffs = [0xffffu16; N];
            let (got, set) = force_misspeculation(|| {
                let mut msf = init_msf();
                // SAFETY: NEON is part of the aarch64 baseline.
                let got = unsafe { parse_block_neon(&block, &mut coeffs, filled, &mut msf) };
                (got, msf.is_set())
            });
            assert!(set);
            let taken = 112.min(N - filled);
            assert_eq!(got, filled + taken, "from {filled}");
            assert!(
                coeffs[filled..filled + taken].iter().all(|&c| c == 0),
                "from {filled}"
            );
        }
    }
}
