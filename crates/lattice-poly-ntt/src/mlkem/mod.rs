//! The ring of ML-KEM (FIPS 203): `R_q = Z_3329[X]/(X^256 + 1)` with the incomplete 7-layer
//! NTT (zeta = 17), whose NTT domain is 128 degree-2 rings `Z_q[X]/(X^2 - gamma_i)`.
//!
//! The ML-KEM-only pieces of this crate live here: the degree-2 base-case product
//! (FIPS 203 Alg. 11 and FIPS 203 Alg. 12) summed lazily in `u32` (each term at most
//! [`PRODUCT_TERM_MAX`] = `2(q-1)^2`), and the `b[2i+1] * gamma_i` cache of asymmetric
//! multiplication, which is this ring's [`Ring::RhsCache`](crate::Ring::RhsCache). The type
//! aliases ([`Poly`], [`NttPoly`], [`Matrix`], ...) name the generic types at this ring.
//!
//! ```
//! use lattice_poly_ntt::Portable;
//! use lattice_poly_ntt::mlkem::{NttVector, Poly};
//!
//! // x * x^255 = x^256 = -1 in Z_q[X]/(X^256 + 1).
//! let x = Poly::from_fn(|i| u32::from(i == 1));
//! let x255 = Poly::from_fn(|i| u32::from(i == 255));
//!
//! let a = NttVector::new([x.ntt(Portable)]);
//! let b = NttVector::new([x255.ntt(Portable)]).cached(Portable);
//! let product = a.dot(Portable, &b).inverse_ntt(Portable);
//! assert_eq!(product.coeffs()[0], 3329 - 1);
//! assert!(product.coeffs()[1..].iter().all(|&c| c == 0));
//! ```

pub mod zetas;

mod ring;

pub use ring::{
    ACCUMULATOR_MAX_TERMS, MAX_RANK, MlKem, N, NTT_OUTPUT_MAX, PAIRS, PRODUCT_TERM_MAX,
};

use crate::backend::Backend;
use lattice_field::gf3329::{add, mul};

/// A polynomial of ML-KEM's R_q.
pub type Poly = crate::Poly<MlKem>;
/// A polynomial of ML-KEM's T_q.
pub type NttPoly = crate::NttPoly<MlKem>;
/// A right-hand side with its `b*zeta` cache.
pub type CachedNttPoly = crate::CachedNttPoly<MlKem>;
/// A vector of `K` polynomials in R_q.
pub type PolyVector<const K: usize> = crate::PolyVector<MlKem, K>;
/// A vector of `K` polynomials in T_q.
pub type NttVector<const K: usize> = crate::NttVector<MlKem, K>;
/// A vector of `K` right-hand sides with their caches.
pub type CachedNttVector<const K: usize> = crate::CachedNttVector<MlKem, K>;
/// ML-KEM's square `K x K` matrix A-hat.
pub type Matrix<const K: usize> = crate::Matrix<MlKem, K, K>;
/// A lazy `u32` accumulator of base-case products.
pub type Accumulator<B> = crate::Accumulator<MlKem, B>;

impl crate::CachedNttPoly<MlKem> {
    /// The cache: `b[2i+1] * gamma_i mod q` for each pair `i`.
    #[must_use]
    pub const fn b_zeta(&self) -> &[u16; PAIRS] {
        self.cache()
    }
}

/// `a * b` in T_q computed the eager way: FIPS 203 Alg. 11 and FIPS 203 Alg. 12 with a reduction
/// after every multiplication and addition, as implementations did before lazy accumulation.
///
/// This is the reference the lazy path is tested against and the "eager" side of the
/// benchmarks; prefer [`Accumulator`] for sums of products.
#[must_use]
pub fn multiply_ntts_eager(a: &NttPoly, b: &NttPoly) -> NttPoly {
    let (a, b) = (a.coeffs(), b.coeffs());
    let mut out = NttPoly::zero();
    let c = out.coeffs_mut(crate::__private::WORKSPACE);
    for i in 0..PAIRS {
        let gamma = zetas::GAMMAS[i];
        let (a0, a1, b0, b1) = (a[2 * i], a[2 * i + 1], b[2 * i], b[2 * i + 1]);
        c[2 * i] = add(mul(a0, b0), mul(mul(a1, b1), gamma));
        c[2 * i + 1] = add(mul(a0, b1), mul(a1, b0));
    }
    out
}

/// `a * b` in T_q with one lazy accumulation (two reductions per pair instead of five).
#[must_use]
pub fn multiply_ntts<B: Backend<MlKem>>(backend: B, a: &NttPoly, b: &CachedNttPoly) -> NttPoly {
    crate::multiply_ntts(backend, a, b)
}
