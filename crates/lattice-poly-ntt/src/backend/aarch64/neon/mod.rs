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
//! - Forward NTT (`ntt`): lanes below `consts::NEON_NTT_LANE_BOUND` (`5.5 q`), then one
//!   canonical Barrett reduction, exact on `[-2^15, CANONICAL_REDUCE_INPUT_MAX]`.
//! - Inverse NTT: lanes below `consts::NEON_INTT_LANE_BOUND`, with centered Barrett
//!   reductions of the growing sums after len 4 (one vector in four) and len 32 (half of
//!   them); the scaling is merged into the last layer; one conditional addition of q at the
//!   end.
//! - Base case (`basemul`): canonical operands add at most `mlkem::PRODUCT_TERM_MAX` per term
//!   to a 32-bit lane; the final Barrett reduction is exact up to
//!   `consts::NEON_ACCUMULATOR_LIMIT`, which allows `consts::NEON_MAX_TERMS` terms.
//! - Addition / subtraction: canonical operands, one unsigned minimum (`add`/`sub`, `umin`).
//!
//! The kernels' instruction counts under qemu and `llvm-mca` cycles, against mlkem-native's
//! aarch64 assembly, are in `docs/performance-history.md` (aarch64 section).
#![allow(unsafe_code)]

#[cfg(target_arch = "aarch64")]
mod arith;
#[cfg(target_arch = "aarch64")]
mod basemul;
// The constants, the lane vocabulary, the NTT schedules and the scalar models are `pub` for
// the bounds checker, which runs them on any host (through `crate::__bounds::neon`,
// `bounds-probe` feature only).
#[cfg_attr(not(feature = "bounds-probe"), allow(unreachable_pub))]
pub(crate) mod consts;
#[cfg_attr(not(feature = "bounds-probe"), allow(unreachable_pub))]
#[cfg_attr(not(any(test, feature = "bounds-probe")), allow(dead_code))]
pub mod lanes;
#[cfg(any(test, feature = "bounds-probe"))]
#[cfg_attr(not(feature = "bounds-probe"), allow(unreachable_pub))]
pub mod model;
#[cfg_attr(not(feature = "bounds-probe"), allow(unreachable_pub))]
#[cfg_attr(not(any(test, feature = "bounds-probe")), allow(dead_code))]
pub mod ntt;

#[cfg(target_arch = "aarch64")]
use consts::NEON_MAX_TERMS;
#[cfg(all(target_arch = "aarch64", feature = "bounds-probe"))]
use {
    crate::backend::seam::{AccumulatorLayout, HasAccumulatorLayout},
    consts::{NEON_ACCUMULATOR_LIMIT, neon_accumulator_coefficient},
};
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

// Per block of 32 coefficients, eight 4-lane vectors of sums (see `basemul`), in signed
// 32-bit lanes bounded by the final Barrett reduction's domain.
#[cfg(all(target_arch = "aarch64", feature = "bounds-probe"))]
impl HasAccumulatorLayout<MlKem> for Neon {
    const ACCUMULATOR_LAYOUT: AccumulatorLayout = AccumulatorLayout {
        tag: " [NEON]",
        max_terms_name: "NEON_MAX_TERMS",
        coefficient_of: neon_accumulator_coefficient,
        entry_limit: NEON_ACCUMULATOR_LIMIT as u128,
        entry_limit_name: "NEON_ACCUMULATOR_LIMIT",
        lane_max: i32::MAX as u128,
    };
}

#[cfg(all(target_arch = "aarch64", feature = "bounds-probe"))]
impl HasAccumulatorLayout<MlDsa> for Neon {
    const ACCUMULATOR_LAYOUT: AccumulatorLayout = AccumulatorLayout::wide::<MlDsa>();
}

/// ML-DSA's ring: the portable kernels.
#[cfg(target_arch = "aarch64")]
impl Backend<MlDsa> for Neon {}

#[cfg(all(test, target_arch = "aarch64"))]
mod tests;
