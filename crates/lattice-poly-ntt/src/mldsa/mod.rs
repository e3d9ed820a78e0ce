//! The ring of ML-DSA (FIPS 204): `R_q = Z_8380417[X]/(X^256 + 1)` with the complete
//! 8-layer NTT (zeta = 1753, a primitive 512th root of unity), whose NTT domain is 256
//! values multiplied pointwise.
//!
//! Products are summed unreduced in `u64`: each term is at most [`PRODUCT_TERM_MAX`] =
//! `(q-1)^2 < 2^46`, the Barrett reduction of [`lattice_field::gf8380417`] accepts every
//! `u64`, so an accumulator takes [`ACCUMULATOR_MAX_TERMS`] = 262,656 products and ML-DSA's
//! widest matrix (ML-DSA-87, l = 7 columns) needs [`MAX_COLUMNS`]. Nothing is cached for a
//! right-hand side ([`Ring::RhsCache`](crate::Ring::RhsCache) is `()`).
//!
//! ```
//! use lattice_poly_ntt::Portable;
//! use lattice_poly_ntt::mldsa::{Matrix, Poly, PolyVector};
//!
//! // A 2 x 3 matrix times a vector, every product accumulated in u64 and reduced once.
//! let x = Poly::from_fn(|i| u64::from(i == 1)); // the polynomial X
//! let one = Poly::from_fn(|i| u64::from(i == 0));
//! let mut a = Matrix::<2, 3>::zero();
//! a.rows[1][2] = x.ntt(Portable);
//! let v = PolyVector::<3>::new([one.clone(), one.clone(), x.clone()]).ntt_cached(Portable);
//! let av = a.mul_vector(Portable, &v).inverse_ntt(Portable);
//! assert_eq!(av.0[0], Poly::zero());
//! assert_eq!(av.0[1].get(2), Some(1)); // X * X = X^2
//! ```

mod ring;

pub use ring::{
    ACCUMULATOR_MAX_TERMS, INV_256, MAX_COLUMNS, MlDsa, N, PRODUCT_TERM_MAX, ZETA, ZETAS,
};

/// A polynomial of ML-DSA's R_q.
pub type Poly = crate::Poly<MlDsa>;
/// A polynomial of ML-DSA's T_q.
pub type NttPoly = crate::NttPoly<MlDsa>;
/// A right-hand side (nothing cached).
pub type CachedNttPoly = crate::CachedNttPoly<MlDsa>;
/// A vector of `K` polynomials in R_q.
pub type PolyVector<const K: usize> = crate::PolyVector<MlDsa, K>;
/// A vector of `K` polynomials in T_q.
pub type NttVector<const K: usize> = crate::NttVector<MlDsa, K>;
/// A vector of `K` right-hand sides.
pub type CachedNttVector<const K: usize> = crate::CachedNttVector<MlDsa, K>;
/// A `K x L` matrix A-hat.
pub type Matrix<const K: usize, const L: usize> = crate::Matrix<MlDsa, K, L>;
/// A lazy `u64` accumulator of pointwise products.
pub type Accumulator<B> = crate::Accumulator<MlDsa, B>;
