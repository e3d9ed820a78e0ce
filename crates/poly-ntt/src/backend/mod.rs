//! The backend seam: the hot functions of this crate behind one static interface.
//!
//! A backend is a zero-sized type implementing [`Backend`]. Callers are generic over
//! `B: Backend` and monomorphized for it, so there is no dynamic dispatch in hot paths: the
//! top-level crate picks a backend once per operation and runs the whole operation with it.
//! [`Portable`] is always present and is the reference every other backend is
//! differentially tested against.
//!
//! Every function takes and returns canonical coefficients (in `[0, q)`) in FIPS 203 order,
//! so backends are interchangeable at every call.

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

use crate::N;

/// Number of base-case rings (pairs of coefficients) in the NTT domain.
pub const PAIRS: usize = N / 2;

/// The hot functions a backend provides.
pub trait Backend: Copy + Default + core::fmt::Debug + 'static {
    /// How many base-case products one accumulator can take with this backend's lane width
    /// and final reduction (at least [`crate::MAX_RANK`]).
    const MAX_TERMS: usize;

    /// Forward NTT in place (FIPS 203 Algorithm 9). Input and output canonical.
    fn ntt(coeffs: &mut [u16; N]);

    /// Inverse NTT in place, including the final multiplication by 128^-1
    /// (FIPS 203 Algorithm 10). Input and output canonical.
    fn inverse_ntt(coeffs: &mut [u16; N]);

    /// The asymmetric-multiplication cache of a right-hand side `b`:
    /// `out[i] = b[2i + 1] * gamma_i mod q`.
    fn mul_cache(b: &[u16; N], out: &mut [u16; PAIRS]);

    /// Adds the unreduced base-case product of `a` and `b` to `acc`
    /// (FIPS 203 Algorithms 11 and 12 without their reductions):
    /// `acc[2i] += a[2i]*b[2i] + a[2i+1]*b_zeta[i]`, `acc[2i+1] += a[2i]*b[2i+1] + a[2i+1]*b[2i]`.
    ///
    /// Each call adds at most [`crate::PRODUCT_TERM_MAX`] to every entry; the caller keeps
    /// the number of calls per accumulator within [`Self::MAX_TERMS`]. The layout of `acc`
    /// is the backend's own: only the same backend's [`Self::reduce_accumulator`] reads it.
    fn accumulate(acc: &mut [u32; N], a: &[u16; N], b: &[u16; N], b_zeta: &[u16; PAIRS]);

    /// Reduces every accumulator entry to its canonical representative.
    fn reduce_accumulator(acc: &[u32; N], out: &mut [u16; N]);

    /// `a[i] = a[i] + b[i] mod q` for every coefficient, in place.
    ///
    /// Inputs and output canonical: the sum is below `2q`, so one conditional subtraction
    /// of q reduces it. Constant time (no branch or index depends on the values).
    fn add(a: &mut [u16; N], b: &[u16; N]);

    /// `a[i] = a[i] - b[i] mod q` for every coefficient, in place.
    ///
    /// Inputs and output canonical: `a - b + q` lies in `[1, 2q)`, so one conditional
    /// subtraction of q reduces it. Constant time (no branch or index depends on the values).
    fn sub(a: &mut [u16; N], b: &[u16; N]);
}
