//! The AVX-512 backend's capability token (AVX-512F, VL and BW, on top of everything the
//! AVX2 token needs).
//!
//! It holds an [`Avx2`] token, so it runs every AVX2 kernel, and opts in where AVX-512 is
//! faster: ML-KEM's forward and inverse NTT (`ntt`) and base-case products (`basemul`) on
//! zmm registers, the AVX2 schedule and accumulator layout with 32 coefficients per
//! instruction, and in `lattice-sampling` the 8-way and 4-way Keccak with ternary logic and
//! native rotations. The coefficient additions are the AVX2 kernels. Its [`Avx512::run`]
//! compiles the operation for AVX-512 as well.
#![allow(unsafe_code)]

use super::Backend;
use super::avx2::Avx2;
use crate::mldsa::MlDsa;
use crate::mlkem::{MlKem, N, PAIRS};
use crate::ring::KernelCall;

mod basemul;
mod ntt;
#[cfg(feature = "bounds-probe")]
pub(crate) use ntt::{inverse_ntt_kernel, ntt_kernel};

/// The AVX-512 capability token: it exists only on a CPU with AVX-512F, AVX-512VL and
/// AVX-512BW besides the AVX2 token's features (made by [`Avx512::detect`], which checks once
/// and caches).
#[derive(Clone, Copy, Debug)]
pub struct Avx512 {
    avx2: Avx2,
}

cpufeatures::new!(cpuid_avx512, "avx512f", "avx512vl", "avx512bw");

impl Avx512 {
    /// The token, if this CPU has the features (detected once, then cached).
    #[must_use]
    #[inline]
    pub fn detect() -> Option<Self> {
        let avx2 = Avx2::detect()?;
        cpuid_avx512::get().then_some(Self { avx2 })
    }

    /// The AVX2 token this one implies.
    #[must_use]
    #[inline]
    pub const fn avx2(self) -> Avx2 {
        self.avx2
    }

    /// Runs `f` with this token inside a function compiled for AVX-512 and AVX2 (see
    /// [`Avx2::run`]).
    #[inline]
    pub fn run<T>(self, f: impl FnOnce(Self) -> T) -> T {
        // SAFETY: `self` exists, so the CPU has every feature `with_features` enables.
        unsafe { with_features(self, f) }
    }
}

/// Calls `f` in a function compiled with the token's features (`#[inline]`: instantiated
/// beside `f`, as for AVX2).
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,fma,popcnt,avx512f,avx512vl,avx512bw")]
unsafe fn with_features<T>(token: Avx512, f: impl FnOnce(Avx512) -> T) -> T {
    f(token)
}

/// ML-KEM's ring: zmm NTTs and base-case products (in the AVX2 accumulator layout, so its
/// bounds and `MAX_TERMS` are the AVX2 ones); the AVX2 coefficient additions.
impl Backend<MlKem> for Avx512 {
    const MAX_TERMS: usize = <Avx2 as Backend<MlKem>>::MAX_TERMS;

    #[cfg(feature = "bounds-probe")]
    const ACCUMULATOR_LAYOUT: super::AccumulatorLayout = {
        let mut layout = <Avx2 as Backend<MlKem>>::ACCUMULATOR_LAYOUT;
        layout.tag = " [AVX-512]";
        layout
    };

    #[inline]
    fn ntt_canonical(self, _: KernelCall, coeffs: &mut [u16; N]) {
        // SAFETY: `self` exists, so the CPU supports AVX-512F and AVX-512BW.
        unsafe { ntt::ntt_avx512(coeffs) }
    }

    #[inline]
    fn inverse_ntt_canonical(self, _: KernelCall, coeffs: &mut [u16; N]) {
        // SAFETY: `self` exists, so the CPU supports AVX-512F and AVX-512BW.
        unsafe { ntt::inverse_ntt_avx512(coeffs) }
    }

    #[inline]
    fn mul_cache(self, _: KernelCall, b: &[u16; N], out: &mut [u16; PAIRS]) {
        // SAFETY: `self` exists, so the CPU supports AVX-512F and AVX-512BW.
        unsafe { basemul::mul_cache_avx512(b, out) }
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
        // SAFETY: `self` exists, so the CPU supports AVX-512F and AVX-512BW.
        unsafe { basemul::accumulate_avx512(acc, a, b, b_zeta) }
    }

    #[inline]
    fn reduce_accumulator(self, _: KernelCall, acc: &[u32; N], out: &mut [u16; N]) {
        // SAFETY: `self` exists, so the CPU supports AVX-512F and AVX-512BW.
        unsafe { basemul::reduce_accumulator_avx512(acc, out) }
    }

    #[inline]
    fn add(self, call: KernelCall, a: &mut [u16; N], b: &[u16; N]) {
        Backend::<MlKem>::add(self.avx2, call, a, b);
    }

    #[inline]
    fn sub(self, call: KernelCall, a: &mut [u16; N], b: &[u16; N]) {
        Backend::<MlKem>::sub(self.avx2, call, a, b);
    }
}

/// ML-DSA's ring: the portable defaults, compiled for AVX-512 under [`Avx512::run`].
impl Backend<MlDsa> for Avx512 {}
