//! The backend seam: the hot functions of this crate behind one static interface.
//!
//! A backend is a zero-sized type implementing [`Backend`]. Callers are generic over
//! `B: Backend` and monomorphized for it, so there is no dynamic dispatch in hot paths: the
//! top-level crate picks a backend once per operation and runs the whole operation with it.
//! [`Portable`] is always present and is the reference every other backend is
//! differentially tested against.
//!
//! A backend implements [`Backend<R>`] for the rings it serves; every method has a portable
//! default, so it overrides only the kernels it accelerates.

#[cfg(target_arch = "x86_64")]
pub mod avx2;
mod portable;

#[cfg(target_arch = "x86_64")]
pub use avx2::Avx2;
pub use portable::Portable;

use core::sync::atomic::{AtomicBool, Ordering};

#[cfg(target_arch = "x86_64")]
cpufeatures::new!(cpuid_avx2, "avx2");

static PORTABLE_ONLY: AtomicBool = AtomicBool::new(false);

/// Forces (or stops forcing) the portable backend process-wide.
///
/// SIMD backends are used only when the CPU has them *and* this is not set. Results are
/// identical either way; this exists for tests, benchmarks and users who want the scalar
/// code. It is a process-wide switch: set it before starting work, not from several threads
/// that want different answers.
pub fn force_portable(portable_only: bool) {
    PORTABLE_ONLY.store(portable_only, Ordering::Relaxed);
}

/// Whether [`force_portable`] is in effect.
#[must_use]
pub fn portable_forced() -> bool {
    PORTABLE_ONLY.load(Ordering::Relaxed)
}

/// Whether the CPU supports AVX2 (detected once, then cached), ignoring [`force_portable`].
#[must_use]
pub fn avx2_detected() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        cpuid_avx2::get()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether AVX2 code should run: the CPU has it and the portable backend is not forced.
#[must_use]
pub fn use_avx2() -> bool {
    avx2_detected() && !portable_forced()
}

use crate::ring::{self, Ring};

/// The hot functions of ring `R` on one backend.
///
/// Every method has a portable default body (the generic algorithms of [`crate::ring`] and
/// the ring's own product), so a backend implements only the kernels it accelerates for a
/// ring and falls back for the rest. [`Portable`] implements the trait for every ring with
/// the defaults alone; [`Avx2`] overrides every kernel for ML-KEM's ring.
///
/// Every function takes and returns canonical coefficients (in `[0, q)`) in the order of
/// FIPS 203 / FIPS 204, so backends are interchangeable at every call.
pub trait Backend<R: Ring>: Copy + Default + core::fmt::Debug + 'static {
    /// How many products one accumulator can take with this backend's lane width and final
    /// reduction (at most [`Ring::MAX_TERMS`]).
    const MAX_TERMS: usize = R::MAX_TERMS;

    /// Forward NTT in place (FIPS 203 Algorithm 9, FIPS 204 Algorithm 41).
    #[inline]
    fn ntt(coeffs: &mut R::Coeffs) {
        ring::ntt::<R>(coeffs);
    }

    /// Inverse NTT in place, including the final scaling (FIPS 203 Algorithm 10, FIPS 204
    /// Algorithm 42).
    #[inline]
    fn inverse_ntt(coeffs: &mut R::Coeffs) {
        ring::inverse_ntt::<R>(coeffs);
    }

    /// The product cache of a right-hand side `b` ([`Ring::RhsCache`]; for ML-KEM
    /// `out[i] = b[2i + 1] * gamma_i mod q`).
    #[inline]
    fn mul_cache(b: &R::Coeffs, out: &mut R::RhsCache) {
        R::rhs_cache(b, out);
    }

    /// Adds the unreduced NTT-domain product of `a` and `b` to `acc` (for ML-KEM, FIPS 203
    /// Algorithms 11 and 12 without their reductions; for ML-DSA the pointwise product).
    ///
    /// Each call adds at most [`Ring::PRODUCT_TERM_MAX`] to every entry; the caller keeps
    /// the number of calls per accumulator within [`Self::MAX_TERMS`]. The layout of `acc`
    /// is the backend's own: only the same backend's [`Self::reduce_accumulator`] reads it.
    #[inline]
    fn accumulate(acc: &mut R::WideCoeffs, a: &R::Coeffs, b: &R::Coeffs, b_cache: &R::RhsCache) {
        R::accumulate(acc, a, b, b_cache);
    }

    /// Reduces every accumulator entry to its canonical representative.
    #[inline]
    fn reduce_accumulator(acc: &R::WideCoeffs, out: &mut R::Coeffs) {
        ring::reduce_accumulator::<R>(acc, out);
    }

    /// `a[i] = a[i] + b[i] mod q` for every coefficient, in place (constant time).
    #[inline]
    fn add(a: &mut R::Coeffs, b: &R::Coeffs) {
        ring::add::<R>(a, b);
    }

    /// `a[i] = a[i] - b[i] mod q` for every coefficient, in place (constant time).
    #[inline]
    fn sub(a: &mut R::Coeffs, b: &R::Coeffs) {
        ring::sub::<R>(a, b);
    }
}
