//! The ring of ML-KEM (FIPS 203): `R_q = Z_3329[X]/(X^256 + 1)` with the incomplete 7-layer
//! NTT (zeta = 17), whose NTT domain is 128 degree-2 rings `Z_q[X]/(X^2 - gamma_i)`.
//!
//! The ML-KEM-only pieces of this crate live here: the degree-2 base-case product
//! (FIPS 203 Alg. 11 and FIPS 203 Alg. 12) summed lazily in `u32` (each term at most
//! [`PRODUCT_TERM_MAX`] = `2(q-1)^2`), and the `b[2i+1] * gamma_i` cache of asymmetric
//! multiplication, which is this ring's [`Ring::RhsCache`]. The type aliases ([`Poly`],
//! [`NttPoly`], [`Matrix`], ...) name the generic types at this ring.
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

use crate::backend::Backend;
use crate::ring::{KernelCall, Ring};
use lattice_field::Gf3329;
use lattice_field::gf3329::{CANONICAL_MAX, add, mul};
use zeroize::Zeroize;

/// Number of coefficients of a polynomial (FIPS 203: n = 256).
pub const N: usize = 256;

/// Number of base-case rings (pairs of coefficients) in the NTT domain.
pub const PAIRS: usize = N / 2;

/// Largest value one base-case product adds to one accumulator entry: `2 (q-1)^2`
/// (two products of canonical values, `b1*gamma` being reduced first).
pub const PRODUCT_TERM_MAX: u32 = 2 * (CANONICAL_MAX as u32) * (CANONICAL_MAX as u32);

/// How many products the portable backend's `u32` accumulator entries can take before
/// one could overflow (= [`MlKem`]'s [`Ring::MAX_TERMS`]). Each backend states its own limit
/// as [`Backend::MAX_TERMS`].
pub const ACCUMULATOR_MAX_TERMS: usize = (u32::MAX / PRODUCT_TERM_MAX) as usize;

/// The largest module rank used by ML-KEM (ML-KEM-1024).
pub const MAX_RANK: usize = 4;

/// Largest coefficient the NTT, the inverse NTT and the reduced products return: `q - 1`.
pub const NTT_OUTPUT_MAX: u16 = CANONICAL_MAX;

/// ML-KEM's ring: q = 3329, n = 256, 7 NTT layers, degree-2 base cases, `b*zeta` cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MlKem;

impl Ring for MlKem {
    type Field = Gf3329;
    const N: usize = N;
    type Coeffs = [u16; N];
    type WideCoeffs = [u32; N];
    const ZERO_COEFFS: [u16; N] = [0; N];
    const ZERO_WIDE: [u32; N] = [0; N];
    const NTT_LAYERS: u32 = 7;
    const ZETA: u64 = zetas::ZETA as u64;
    const ZETAS: &'static [u16] = &zetas::ZETAS;
    const NTT_SCALE: u16 = zetas::INV_128;
    type RhsCache = [u16; PAIRS];
    const ZERO_RHS_CACHE: [u16; PAIRS] = [0; PAIRS];
    const PRODUCT_TERM_MAX: u128 = PRODUCT_TERM_MAX as u128;

    fn rhs_cache(_: KernelCall, b: &[u16; N], out: &mut [u16; PAIRS]) {
        for i in 0..PAIRS {
            out[i] = mul(b[2 * i + 1], zetas::GAMMAS[i]);
        }
    }

    fn accumulate(
        _: KernelCall,
        acc: &mut [u32; N],
        a: &[u16; N],
        b: &[u16; N],
        b_zeta: &[u16; PAIRS],
    ) {
        for i in 0..PAIRS {
            let (a0, a1) = (a[2 * i] as u32, a[2 * i + 1] as u32);
            let (b0, b1) = (b[2 * i] as u32, b[2 * i + 1] as u32);
            let bz = b_zeta[i] as u32;
            // Each sum is at most 2(q-1)^2 = PRODUCT_TERM_MAX (all inputs canonical); the
            // caller bounds the number of terms (ACCUMULATOR_MAX_TERMS).
            acc[2 * i] += a0 * b0 + a1 * bz;
            acc[2 * i + 1] += a0 * b1 + a1 * b0;
        }
    }

    fn zeroize_rhs_cache(cache: &mut [u16; PAIRS]) {
        // Bulk slice zeroization (see `NttPoly`'s impl).
        cache.as_mut_slice().zeroize();
    }
}

// The ring's compile-time checks, and the lazy bound of DESIGN.md: k = 4 terms of 2(q-1)^2
// fit a u32, with room to spare; the final reduction accepts any u32.
const _: () = MlKem::CHECKS;
const _: () = assert!(PRODUCT_TERM_MAX == 22_151_168);
const _: () = assert!(ACCUMULATOR_MAX_TERMS == <MlKem as Ring>::MAX_TERMS);
const _: () = assert!(MAX_RANK <= ACCUMULATOR_MAX_TERMS);
const _: () = assert!(MAX_RANK as u64 * PRODUCT_TERM_MAX as u64 <= u32::MAX as u64);
const _: () = assert!(lattice_field::gf3329::BARRETT_INPUT_MAX == u32::MAX);
const _: () =
    assert!(zetas::INV_128 as u64 == lattice_field::inverse_mod(1 << MlKem::NTT_LAYERS, 3329));

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
