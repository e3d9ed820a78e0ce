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

mod portable;

pub use portable::Portable;

use crate::N;

/// Number of base-case rings (pairs of coefficients) in the NTT domain.
pub const PAIRS: usize = N / 2;

/// The hot functions a backend provides.
pub trait Backend: Copy + Default + core::fmt::Debug + 'static {
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
    /// the number of calls per accumulator within [`crate::ACCUMULATOR_MAX_TERMS`].
    fn accumulate(acc: &mut [u32; N], a: &[u16; N], b: &[u16; N], b_zeta: &[u16; PAIRS]);

    /// Reduces every accumulator entry to its canonical representative.
    fn reduce_accumulator(acc: &[u32; N], out: &mut [u16; N]);
}
