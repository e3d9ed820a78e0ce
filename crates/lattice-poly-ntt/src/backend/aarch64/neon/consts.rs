//! The NEON backend's constants and bounds: Barrett multipliers, the largest lane of each
//! NTT layer, the accumulator's limit and its layout in memory.

use crate::mlkem::PRODUCT_TERM_MAX;
use lattice_field::gf3329::Q;

/// q as an `i16`.
pub const Q_I16: i16 = Q as i16;
/// `round(2^26 / q)`: the multiplier of the 16-bit Barrett reductions.
pub const BARRETT_V: i16 = 20159;
/// Largest input of the canonical Barrett reduction (`sqrdmulh`, `sshr #11`, `mls`): it
/// returns `x mod q` in `[0, q)` for every `x` in `[-2^15, 9q - 2]` (at `9q - 1` it returns
/// q).
pub const CANONICAL_REDUCE_INPUT_MAX: i32 = 9 * Q as i32 - 2;
/// `ceil(2^42 / q)`: the multiplier of the 32-bit Barrett reduction of the base-case sums.
pub const WIDE_V: i32 = 1_321_131_425;
/// Largest base-case sum the 32-bit Barrett reduction takes: it is exact while
/// `x (WIDE_V q - 2^42) < 2^42` (up to about `1.6 10^9`); `2^30 - 1` keeps the exhaustive
/// check short and still allows [`NEON_MAX_TERMS`] = 48 terms.
pub const NEON_ACCUMULATOR_LIMIT: i64 = (1 << 30) - 1;
/// Number of base-case products one 32-bit NEON accumulator lane can take.
pub const NEON_MAX_TERMS: usize = (NEON_ACCUMULATOR_LIMIT / PRODUCT_TERM_MAX as i64) as usize;

/// Largest `|r|` of a Barrett multiplication of an input with `|a| <= a_max`:
/// `floor((2^15 q + q a_max) / 2^16)`.
#[must_use]
pub const fn bmul_out_max(a_max: i32) -> i32 {
    ((1 << 15) * Q as i32 + Q as i32 * a_max) >> 16
}

/// Bound on `|lane|` after each forward layer, from canonical input: each adds a Barrett
/// product of the previous bound.
pub const NTT_LAYER_BOUNDS: [i32; 7] = {
    let mut b = [0; 7];
    let mut x = Q as i32 - 1;
    let mut i = 0;
    while i < 7 {
        x += bmul_out_max(x);
        b[i] = x;
        i += 1;
    }
    b
};
/// Largest `|lane|` inside the forward NTT: after the seventh layer, `18 289` (`5.5 q`).
pub const NEON_NTT_LANE_BOUND: i32 = NTT_LAYER_BOUNDS[6];
/// Bound on `|lane|` inside the inverse NTT: the largest sums (after len 32, from lanes
/// at most `4.4 q` after len 16) stay at most `9q`.
pub const NEON_INTT_LANE_BOUND: i32 = 9 * Q as i32;

const _: () = assert!(NEON_NTT_LANE_BOUND <= CANONICAL_REDUCE_INPUT_MAX);
const _: () = assert!(NEON_INTT_LANE_BOUND <= i16::MAX as i32);
const _: () = assert!(bmul_out_max(i16::MAX as i32 + 1) <= Q as i32);
const _: () = assert!(NEON_ACCUMULATOR_LIMIT <= i32::MAX as i64);
// WIDE_V = ceil(2^42 / q), and the reduction is exact up to the limit.
const _: () = assert!((WIDE_V as i64 - 1) * (Q as i64) < 1 << 42);
const _: () = assert!(WIDE_V as i64 * Q as i64 >= 1 << 42);
const _: () = assert!(NEON_ACCUMULATOR_LIMIT * (WIDE_V as i64 * Q as i64 - (1 << 42)) < 1 << 42);
const _: () = assert!(NEON_MAX_TERMS >= crate::mlkem::MAX_RANK);

/// The coefficient whose sum raw NEON accumulator entry `i` holds: block `i / 32`, vector
/// `v = (i % 32) / 4` of `[c0 lo, hi, c1 lo, hi]` of pairs 0-7 of the block, then the same
/// of pairs 8-15, lane `i % 4`.
#[must_use]
#[cfg_attr(
    not(feature = "bounds-probe"),
    allow(dead_code, reason = "the layout the bounds checker reads")
)]
pub const fn neon_accumulator_coefficient(i: usize) -> usize {
    let (block, v, lane) = (i / 32, (i % 32) / 4, i % 4);
    // Pair `8 half + j` of the block, j = 4 (v % 2) + lane.
    let j = 4 * (v % 2) + lane;
    let (half, c1) = (v / 4, (v / 2) % 2);
    32 * block + 16 * half + 2 * j + c1
}
