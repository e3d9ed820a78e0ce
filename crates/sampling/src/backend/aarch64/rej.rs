//! The `SampleNTT` candidate parser (FIPS 203 Alg. 7 l. 5-15) in NEON.
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
//! 4. [`store_accepted`] moves the accepted lanes to the front with a `tbl` whose pattern is
//!    the table entry indexed by the mask, stores 16 bytes at the fill position, and
//!    advances it by the mask's popcount (a table too).
//!
//! A half stores 16 bytes, up to 8 coefficient slots past the fill position whatever the
//! mask, while 8 slots are free; the last half before `N` writes only the free slots, so
//! parsing stops exactly when the polynomial is full, as the algorithm does. Input shorter
//! than a step (never a whole SHAKE128 block) goes through the scalar parser. The input is
//! public (derived from rho), so branching on it and indexing tables with the masks is
//! fine architecturally; speculatively, the step walk and the exit once full update the
//! misspeculation flag (`crate::backend::speculation`) on both sides, and each mask is
//! protected with it before it indexes a table or advances the fill position: on a
//! mispredicted path every mask is 255, so the index and the advance are constants.

use crate::backend::compact::{ACCEPTED, COMPACT};
use core::arch::aarch64::{
    int16x8_t, uint8x16_t, uint16x8_t, vaddvq_u16, vandq_u16, vcltq_u16, vdupq_n_u16, vld1q_s16,
    vld1q_u8, vld1q_u16, vqtbl1q_u8, vreinterpretq_u8_u16, vreinterpretq_u16_u8, vshlq_u16,
    vst1q_u8,
};

use lattice_field::gf3329::Q;
use lattice_poly_ntt::mlkem::N;

use crate::backend::speculation::{Msf, launder, protect, update_ge, update_lt};
use crate::keccak::SHAKE128_RATE;
#[cfg(test)]
use crate::kernels::parse_candidates;
use crate::kernels::parse_candidates_sct;

/// Input bytes per step: 8 groups of 3 bytes (a 168-byte SHAKE128 block is 7 steps).
const STEP_BYTES: usize = 24;

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

/// Stores the lanes of `candidates` marked in `mask` (bit `i` for lane `i`) at
/// `coeffs[filled..]`, packed in order, at most up to `N`, and returns the new fill count.
/// The one place of a half step where the table index (`mask`) and the store offset
/// (`filled`) are used.
///
/// While 8 slots are free, one 16-byte store (the slots past the new fill count get
/// candidates or zeros, overwritten later or never read); near `N`, the packed lanes go
/// through a local buffer and only the free slots are written, so that parsing stops
/// exactly at `N` as FIPS 203 Alg. 7 does.
#[inline]
#[target_feature(enable = "neon")]
fn store_accepted(
    coeffs: &mut [u16; N],
    filled: usize,
    candidates: uint16x8_t,
    mask: usize,
    msf: &mut Msf,
) -> usize {
    debug_assert!(filled <= N);
    // SCT: all ones (255 after the `and`) on a mispredicted path.
    // SCT: all ones (255 after the `and`) on a mispredicted path.
    let mask = protect(mask, *msf) & 0xff;
    // SAFETY: the table entry is 16 readable bytes.
    let pattern = unsafe { vld1q_u8(COMPACT[mask].as_ptr()) };
    let packed = vqtbl1q_u8(vreinterpretq_u8_u16(candidates), pattern);
    let accepted = usize::from(ACCEPTED[mask]);
    let filled_seen = launder(filled);
    // SCT: only the rare side updates the flag. The common side's misprediction (taken
    // while fewer than 8 slots are free) is a speculative store of public candidates past
    // the fill position (Spectre v1.1, not covered: SECURITY.md); it reads nothing.
    if filled + 8 <= N {
        let window = &mut coeffs[filled..filled + 8];
        // SAFETY: `window` is 8 writable words (16 bytes); `st1` needs no alignment.
        unsafe { vst1q_u8(window.as_mut_ptr().cast(), packed) };
        return filled + accepted;
    }
    *msf = update_ge(*msf, filled_seen, N - 7);
    let mut lanes = [0u16; 8];
    // SAFETY: `lanes` is 16 writable bytes.
    unsafe { vst1q_u8(lanes.as_mut_ptr().cast(), packed) };
    let take = accepted.min(N - filled);
    // Lane by lane under a fixed trip count (a `copy_from_slice` became a `memcpy` call,
    // whose clobbered vector registers made the whole loop keep its constants on the stack).
    for (i, &lane) in lanes.iter().enumerate() {
        if i < take {
            coeffs[filled + i] = lane;
        }
    }
    filled + take
}

/// The parsers' constants, in registers.
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

    /// One step: the 16 candidates of `step`, the accepted ones appended at `filled` (at
    /// most up to `N`, by [`store_accepted`], which protects the masks with `msf`); returns
    /// the new fill count.
    #[inline]
    #[target_feature(enable = "neon")]
    fn step(
        self,
        step: &[u8; STEP_BYTES],
        coeffs: &mut [u16; N],
        filled: usize,
        msf: &mut Msf,
    ) -> usize {
        // SAFETY: `step` is 24 readable bytes; the loads read bytes 0..16 and 8..24 of it.
        let raw = unsafe { [vld1q_u8(step.as_ptr()), vld1q_u8(step[8..].as_ptr())] };
        let halves = [
            candidates(raw[0], self.spread[0], self.shifts),
            candidates(raw[1], self.spread[1], self.shifts),
        ];
        // Accepted: candidate < q. The mask of a half is at most 255.
        let masks = halves
            .map(|c| usize::from(vaddvq_u16(vandq_u16(vcltq_u16(c, self.q), self.lane_bits))));
        let filled = store_accepted(coeffs, filled, halves[0], masks[0], msf);
        store_accepted(coeffs, filled, halves[1], masks[1], msf)
    }
}

/// The NEON version of [`parse_candidates_sct`], with the same contract and the same result:
/// appends the accepted candidates of `bytes` (a whole number of 3-byte groups) to
/// `coeffs[filled..]`, stops once `N` are filled, and returns the new fill count, under the
/// misspeculation flag `msf`.
#[cfg_attr(
    not(test),
    allow(
        dead_code,
        reason = "the scheduler parses whole blocks (`parse_block_neon`)"
    )
)]
#[inline]
#[target_feature(enable = "neon")]
pub(crate) fn parse_candidates_neon(
    bytes: &[u8],
    coeffs: &mut [u16; N],
    filled: usize,
    msf: &mut Msf,
) -> usize {
    debug_assert!(filled <= N);
    let consts = StepConstants::load();
    let mut filled = filled;
    let mut m = *msf;
    let (steps, rest) = bytes.as_chunks::<STEP_BYTES>();
    let mut i = 0;
    loop {
        let (i_seen, filled_seen) = (launder(i), launder(filled));
        if i >= steps.len() {
            m = update_ge(m, i_seen, steps.len());
            break;
        }
        m = update_lt(m, i_seen, steps.len());
        if filled >= N {
            // Parsing stops once the polynomial is full, ignoring the rest.
            *msf = update_ge(m, filled_seen, N);
            return N;
        }
        m = update_lt(m, filled_seen, N);
        let step = &steps[i];
        i += 1;
        filled = consts.step(step, coeffs, filled, &mut m);
    }
    // Fewer than 24 bytes left (never for a whole SHAKE128 block: 7 steps).
    let filled = parse_candidates_sct(rest, coeffs, filled, &mut m);
    *msf = m;
    filled
}

/// [`parse_candidates_neon`] on one whole SHAKE128 block (the scheduler's case): the 7 steps
/// are a walk of fixed length over the block, so no read depends on a branch; only the exit
/// once `N` are filled updates the flag (on its taken side; a mispredicted "continue"
/// reads the next step of the same public block). The masks are protected as in the
/// general parser.
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
    let mut filled = filled;
    let mut m = *msf;
    let (steps, _) = block.as_chunks::<STEP_BYTES>();
    for step in steps {
        let filled_seen = launder(filled);
        if filled >= N {
            *msf = update_ge(m, filled_seen, N);
            return N;
        }
        filled = consts.step(step, coeffs, filled, &mut m);
    }
    *msf = m;
    filled
}

const _: () = assert!(
    SHAKE128_RATE.is_multiple_of(STEP_BYTES),
    "a block is whole steps"
);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The NEON parser against the scalar one from `filled`, on `bytes`, with the slots past
    /// the fill position starting from `init`.
    fn check(bytes: &[u8], filled: usize, init: u16) {
        let mut want = [init; N];
        let mut got = [init; N];
        let n_want = parse_candidates(bytes, &mut want, filled);
        let mut msf = crate::backend::speculation::init_msf();
        // SAFETY: NEON is part of the aarch64 baseline.
        let n_got = unsafe { parse_candidates_neon(bytes, &mut got, filled, &mut msf) };
        assert!(!msf.is_set(), "the flag is clear on the architectural path");
        assert_eq!(
            n_got,
            n_want,
            "fill count from {filled}, {} bytes",
            bytes.len()
        );
        // Slots up to the fill count must agree; past it the SIMD stores may leave
        // candidates, which callers never read (the scalar parser leaves `init`).
        assert_eq!(got[..n_got], want[..n_want], "from {filled}");
    }

    #[test]
    fn every_mask_of_a_half() {
        // Candidate i of a half is accepted iff bit i of m: 0 or 3328 (accepted), 3329 or
        // 4095 (rejected), in every position, from several fill counts.
        for m in 0..256u32 {
            let mut bytes = [0u8; 48];
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
                    bytes[3 * g] = v as u8;
                    bytes[3 * g + 1] |= (v >> 8) as u8;
                } else {
                    bytes[3 * g + 1] |= (v << 4) as u8;
                    bytes[3 * g + 2] = (v >> 4) as u8;
                }
            }
            for filled in [0, 100, N - 40, N - 17, N - 16, N - 15, N - 1, N] {
                check(&bytes, filled, 0xffff);
            }
        }
    }

    proptest! {
        #[test]
        fn matches_scalar(
            bytes in proptest::collection::vec(any::<u8>(), 0..=7 * STEP_BYTES + 21),
            filled in 0..=N,
            init in any::<u16>(),
        ) {
            let len = bytes.len() / 3 * 3;
            check(&bytes[..len], filled, init);
        }

        #[test]
        fn whole_blocks_from_zero(blocks in proptest::collection::vec(any::<[u8; 168]>(), 1..5)) {
            // Block by block from an empty polynomial, as a `SampleNTT` job parses.
            let mut want = [0u16; N];
            let mut got = [0u16; N];
            let (mut n_want, mut n_got) = (0, 0);
            for block in &blocks {
                n_want = parse_candidates(block, &mut want, n_want);
                let mut msf = crate::backend::speculation::init_msf();
                let mut got_block = got;
                // SAFETY: NEON is part of the aarch64 baseline.
                let n_block = unsafe { parse_block_neon(block, &mut got_block, n_got, &mut msf) };
                // SAFETY: NEON is part of the aarch64 baseline.
                n_got = unsafe { parse_candidates_neon(block, &mut got, n_got, &mut msf) };
                prop_assert!(!msf.is_set());
                prop_assert_eq!(n_block, n_got);
                prop_assert_eq!(&got_block[..n_block], &got[..n_got]);
                prop_assert_eq!(n_got, n_want);
                prop_assert_eq!(&got[..n_got], &want[..n_want]);
            }
        }
    }

    /// With the flag forced to all ones (a mispredicted path), every mask is 255: each half
    /// takes all 8 raw candidates, accepted or not, so the table index and the fill advance
    /// no longer depend on the bytes (a missing `protect` fails this).
    #[test]
    fn misspeculated_masks_take_every_candidate() {
        use crate::backend::speculation::{force_misspeculation, init_msf};
        let block: [u8; 168] = core::array::from_fn(|i| (i as u8).wrapping_mul(151) | 0x80);
        let raw: std::vec::Vec<u16> = block
            .chunks_exact(3)
            .flat_map(|g| {
                let (b0, b1, b2) = (u16::from(g[0]), u16::from(g[1]), u16::from(g[2]));
                [b0 | (b1 & 0x0f) << 8, b1 >> 4 | b2 << 4]
            })
            .collect();
        assert!(
            raw.iter().any(|&c| c >= Q),
            "the block has rejected candidates"
        );
        for filled in [0, N - 5] {
            let mut coeffs = [0u16; N];
            let (got, set) = force_misspeculation(|| {
                let mut msf = init_msf();
                // SAFETY: NEON is part of the aarch64 baseline.
                let got = unsafe { parse_candidates_neon(&block, &mut coeffs, filled, &mut msf) };
                (got, msf.is_set())
            });
            assert!(set);
            let taken = raw.len().min(N - filled);
            assert_eq!(got, filled + taken, "from {filled}");
            assert_eq!(
                coeffs[filled..filled + taken],
                raw[..taken],
                "from {filled}"
            );
            let mut coeffs = [0u16; N];
            let (got, set) = force_misspeculation(|| {
                let mut msf = init_msf();
                // SAFETY: NEON is part of the aarch64 baseline.
                let got = unsafe { parse_block_neon(&block, &mut coeffs, filled, &mut msf) };
                (got, msf.is_set())
            });
            assert!(set);
            assert_eq!(got, filled + taken, "block parser from {filled}");
            assert_eq!(
                coeffs[filled..filled + taken],
                raw[..taken],
                "block parser from {filled}"
            );
        }
    }
}
