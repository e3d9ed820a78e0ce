//! Polynomials over GF(3329), the ML-KEM number-theoretic transform, and lazy base-case
//! accumulation.
//!
//! ```
//! use mlkem_poly_ntt::{Portable, Poly, NttVector, PolyVector};
//!
//! // x * x^255 = x^256 = -1 in Z_q[X]/(X^256 + 1).
//! let mut x = Poly::zero();
//! x.coeffs_mut()[1] = 1;
//! let mut x255 = Poly::zero();
//! x255.coeffs_mut()[255] = 1;
//!
//! let a = NttVector([x.ntt::<Portable>()]);
//! let b = NttVector([x255.ntt::<Portable>()]).cached::<Portable>();
//! let product = a.dot::<Portable>(&b).inverse_ntt::<Portable>();
//! assert_eq!(product.coeffs()[0], 3329 - 1);
//! assert!(product.coeffs()[1..].iter().all(|&c| c == 0));
//! ```
//!
//! # What this crate owns
//! - [`Poly`] and [`NttPoly`]: 256 canonical coefficients, in R_q and in T_q;
//! - the NTT and its inverse (FIPS 203 Algorithms 9 and 10) and base-case multiplication
//!   (Algorithms 11 and 12);
//! - lazy `u32` accumulation of base-case products ([`Accumulator`], bound
//!   [`PRODUCT_TERM_MAX`] x [`ACCUMULATOR_MAX_TERMS`]) and the cached `b*zeta` of asymmetric
//!   multiplication ([`CachedNttPoly`]);
//! - vectors and matrices over rank `K` and their products ([`Matrix::mul_vector`],
//!   [`Matrix::transpose_mul_vector`], [`NttVector::dot`]);
//! - the [`Backend`] seam behind which SIMD implementations replace the hot functions.
//!
//! It knows nothing of hashing, sampling or the KEM's byte formats.
//!
//! # Backends
//! Every operation that does arithmetic is generic over a [`Backend`]: call it with
//! [`Portable`] (always available), or with whatever backend the caller selected once.
#![no_std]
// Only the SIMD backend modules allow `unsafe` (each block with a `// SAFETY:` line).
#![deny(unsafe_code)]

pub mod backend;
mod lazy;
mod poly;
mod vector;
pub mod zetas;

#[cfg(target_arch = "x86_64")]
pub use backend::Avx2;
pub use backend::{Backend, Portable};
pub use lazy::{
    ACCUMULATOR_MAX_TERMS, Accumulator, CachedNttPoly, MAX_RANK, PRODUCT_TERM_MAX, multiply_ntts,
    multiply_ntts_eager,
};
pub use poly::{N, NttPoly, Poly};
pub use vector::{CachedNttVector, Matrix, NttVector, PolyVector};

/// Largest coefficient the NTT, the inverse NTT and the reduced products return: `q - 1`
/// (every output of this crate is canonical).
pub const NTT_OUTPUT_MAX: u16 = mlkem_field::CANONICAL_MAX;

impl Poly {
    /// The forward NTT (FIPS 203 Algorithm 9) of a copy of `self`.
    ///
    /// Takes `&self` so that a caller holding a secret polynomial keeps the one copy it
    /// has to erase.
    #[must_use]
    pub fn ntt<B: Backend>(&self) -> NttPoly {
        let mut out = NttPoly::zero();
        self.ntt_into::<B>(&mut out);
        out
    }

    /// The forward NTT of `self` written into `out` (one copy, then in place).
    pub fn ntt_into<B: Backend>(&self, out: &mut NttPoly) {
        // The backend contract keeps outputs canonical.
        *out.coeffs_mut() = *self.coeffs();
        B::ntt(out.coeffs_mut());
    }
}

impl NttPoly {
    /// The inverse NTT, including the scaling by 128^-1 (FIPS 203 Algorithm 10), of a copy
    /// of `self`: `p.ntt().inverse_ntt() == p`.
    #[must_use]
    pub fn inverse_ntt<B: Backend>(&self) -> Poly {
        let mut out = Poly::zero();
        self.inverse_ntt_into::<B>(&mut out);
        out
    }

    /// The inverse NTT of `self` written into `out` (one copy, then in place).
    pub fn inverse_ntt_into<B: Backend>(&self, out: &mut Poly) {
        *out.coeffs_mut() = *self.coeffs();
        B::inverse_ntt(out.coeffs_mut());
    }
}
