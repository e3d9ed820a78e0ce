//! The NEON backend (aarch64): the token, and its kernels for ML-KEM's ring.
//!
//! NEON (Advanced SIMD) is part of the aarch64 baseline, so the token can always be made on
//! this architecture; what else a kernel needs (FEAT_SHA3 for Keccak, in `lattice-sampling`)
//! is detected by that kernel's crate at run time.
//!
//! # Representation
//! Inputs and outputs are the portable backend's: canonical coefficients in FIPS 203
//! order. Inside the NTTs coefficients are signed 16-bit lanes (8 per vector) that grow
//! without reduction as far as the bounds allow; the base-case sums are signed 32-bit lanes.
//!
//! # Kernels and bounds (checked by `cargo xtask bounds` on the host through the scalar
//! models of `model`, and by the differential tests under qemu)
//! - Barrett multiplication by a constant `z` (`sqrdmulh`, `mul`, `mls`; `lanes::Lanes::bmul`):
//!   `a z mod q` with `|r| <= q/2 + q |a| / 2^16`, below q for every `i16`.
//! - Forward NTT (`ntt`): lanes below [`NEON_NTT_LANE_BOUND`] (`5.5 q`), then one canonical
//!   Barrett reduction, exact on `[-2^15, CANONICAL_REDUCE_INPUT_MAX]`.
//! - Inverse NTT: lanes below [`NEON_INTT_LANE_BOUND`], with centered Barrett reductions of
//!   the growing sums after len 4 (one vector in four) and len 32 (half of them); the
//!   scaling is merged into the last layer; one conditional addition of q at the end.
//! - Base case (`basemul`): canonical operands add at most
//!   [`PRODUCT_TERM_MAX`] per term to a 32-bit lane; the final
//!   Barrett reduction is exact up to [`NEON_ACCUMULATOR_LIMIT`], which allows
//!   [`NEON_MAX_TERMS`] terms.
//! - Addition / subtraction: canonical operands, one unsigned minimum (`add`/`sub`, `umin`).
//!
//! Instructions per call under `qemu-aarch64 -cpu max` (icount plugin, example
//! `kernel_icount`; ours / mlkem-native's aarch64 assembly, whose outputs are not canonical):
//! NTT 847 / 911, inverse 959 / 1082, dot product k = 2, 3, 4: 692 / 816, 962 / 1091,
//! 1194 / 1366, `mul_cache` 148 / 164. The final reductions to canonical cost 96 (NTT) and
//! 64 (inverse) of them. `llvm-mca-19` cycles of the executed sequence of one call
//! (Neoverse-V2, Apple-M1; ours / mlkem-native's): dot product k = 2, 3, 4: 188 / 182 and
//! 219 / 198, 258 / 245 and 295 / 264, 321 / 312 and 373 / 335; `mul_cache` 30 / 26 and
//! 34 / 41.
#![allow(unsafe_code)]

#[cfg(target_arch = "aarch64")]
mod arith;
#[cfg(target_arch = "aarch64")]
mod basemul;
#[cfg(feature = "bounds-probe")]
#[doc(hidden)]
pub mod lanes;
#[cfg(not(feature = "bounds-probe"))]
#[cfg_attr(not(test), allow(unreachable_pub, dead_code))]
mod lanes;
#[cfg(any(test, feature = "bounds-probe"))]
#[doc(hidden)]
pub mod model;
#[cfg(feature = "bounds-probe")]
#[doc(hidden)]
pub mod ntt;
#[cfg(not(feature = "bounds-probe"))]
#[cfg_attr(not(test), allow(unreachable_pub, dead_code))]
mod ntt;

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
pub const fn neon_accumulator_coefficient(i: usize) -> usize {
    let (block, v, lane) = (i / 32, (i % 32) / 4, i % 4);
    // Pair `8 half + j` of the block, j = 4 (v % 2) + lane.
    let j = 4 * (v % 2) + lane;
    let (half, c1) = (v / 4, (v / 2) % 2);
    32 * block + 16 * half + 2 * j + c1
}

#[cfg(target_arch = "aarch64")]
use arith::NeonLanes;
#[cfg(target_arch = "aarch64")]
use {
    crate::backend::seam::{Backend, DotTerm},
    crate::mldsa::MlDsa,
    crate::mlkem::{MlKem, N, PAIRS},
    crate::ring::KernelCall,
};

/// The NEON backend's capability token (aarch64, where Advanced SIMD is always present).
#[cfg(target_arch = "aarch64")]
#[derive(Clone, Copy, Debug)]
pub struct Neon {
    _detected: (),
}

#[cfg(target_arch = "aarch64")]
impl Neon {
    /// The token: every aarch64 CPU has NEON.
    #[must_use]
    #[inline]
    pub fn detect() -> Option<Self> {
        Some(Self { _detected: () })
    }

    /// Runs `f` with this token inside a function compiled with NEON enabled (the target's
    /// baseline already has it; the wrapper keeps the same shape as the other tokens').
    #[inline]
    pub fn run<T>(self, f: impl FnOnce(Self) -> T) -> T {
        // SAFETY: `self` exists, so the CPU has NEON (every aarch64 CPU does).
        unsafe { with_features(self, f) }
    }
}

/// Calls `f` in a function compiled with the token's features (see `Avx2::run`).
#[cfg(target_arch = "aarch64")]
#[inline]
#[target_feature(enable = "neon")]
unsafe fn with_features<T>(token: Neon, f: impl FnOnce(Neon) -> T) -> T {
    f(token)
}

#[cfg(target_arch = "aarch64")]
impl Backend<MlKem> for Neon {
    const MAX_TERMS: usize = NEON_MAX_TERMS;

    // Per block of 32 coefficients, eight 4-lane vectors of sums (see `basemul`), in signed
    // 32-bit lanes bounded by the final Barrett reduction's domain.
    #[cfg(feature = "bounds-probe")]
    const ACCUMULATOR_LAYOUT: crate::backend::seam::AccumulatorLayout =
        crate::backend::seam::AccumulatorLayout {
            tag: " [NEON]",
            max_terms_name: "NEON_MAX_TERMS",
            coefficient_of: neon_accumulator_coefficient,
            entry_limit: NEON_ACCUMULATOR_LIMIT as u128,
            entry_limit_name: "NEON_ACCUMULATOR_LIMIT",
            lane_max: i32::MAX as u128,
        };

    #[inline]
    fn ntt_canonical(self, _: KernelCall, coeffs: &mut [u16; N]) {
        ntt::ntt_neon(coeffs);
    }

    #[inline]
    fn inverse_ntt_canonical(self, _: KernelCall, coeffs: &mut [u16; N]) {
        ntt::inverse_ntt_neon(coeffs);
    }

    #[inline]
    fn ntt_canonical_into(self, _: KernelCall, src: &[u16; N], dst: &mut [u16; N]) {
        ntt::ntt_neon_into(src, dst);
    }

    #[inline]
    fn inverse_ntt_canonical_into(self, _: KernelCall, src: &[u16; N], dst: &mut [u16; N]) {
        ntt::inverse_ntt_neon_into(src, dst);
    }

    #[inline]
    fn mul_cache(self, _: KernelCall, b: &[u16; N], out: &mut [u16; PAIRS]) {
        // SAFETY: `self` exists, so the CPU has NEON.
        unsafe { basemul::mul_cache_neon(b, out) };
    }

    #[inline]
    fn accumulate(
        self,
        _: KernelCall,
        acc: &mut [u32; N],
        a: &[u16; N],
        b: &[u16; N],
        b_zeta: &[u16; PAIRS],
    ) {
        // SAFETY: `self` exists, so the CPU has NEON.
        unsafe { basemul::accumulate_neon(acc, a, b, b_zeta) };
    }

    #[inline]
    fn reduce_accumulator(self, _: KernelCall, acc: &[u32; N], out: &mut [u16; N]) {
        // SAFETY: `self` exists, so the CPU has NEON.
        unsafe { basemul::reduce_accumulator_neon(acc, out) };
    }

    #[inline]
    fn dot_product(self, call: KernelCall, out: &mut [u16; N], terms: &[DotTerm<'_, MlKem>]) {
        // Public: the number of terms is the module rank.
        if terms.len() <= NEON_MAX_TERMS {
            // SAFETY: `self` exists, so the CPU has NEON.
            unsafe { basemul::dot_product_neon(out, terms) };
        } else {
            crate::backend::seam::dot_product_accumulated::<MlKem, Self>(self, call, out, terms);
        }
    }

    #[inline]
    fn dot_product_plus_chunks(
        self,
        call: KernelCall,
        out: &mut [u16; N],
        terms: &[DotTerm<'_, MlKem>],
        plus: &[u16; N],
        chunks: core::ops::Range<usize>,
    ) {
        // Public: the number of terms is the module rank.
        if terms.len() <= NEON_MAX_TERMS {
            // SAFETY: `self` exists, so the CPU has NEON.
            unsafe { basemul::dot_product_plus_chunks_neon(out, terms, plus, chunks) };
        } else {
            crate::backend::seam::dot_product_plus_chunks_default::<MlKem, Self>(
                self, call, out, terms, plus, chunks,
            );
        }
    }

    #[inline]
    fn add(self, _: KernelCall, a: &mut [u16; N], b: &[u16; N]) {
        debug_assert!(arith::canonical(a, b), "non-canonical operand");
        // SAFETY: `self` exists, so the CPU has NEON.
        unsafe { arith::add_neon(a, b) };
    }

    #[inline]
    fn sub(self, _: KernelCall, a: &mut [u16; N], b: &[u16; N]) {
        debug_assert!(arith::canonical(a, b), "non-canonical operand");
        // SAFETY: `self` exists, so the CPU has NEON.
        unsafe { arith::sub_neon(a, b) };
    }
}

/// ML-DSA's ring: the portable kernels.
#[cfg(target_arch = "aarch64")]
impl Backend<MlDsa> for Neon {}

#[cfg(all(test, target_arch = "aarch64"))]
mod tests;
