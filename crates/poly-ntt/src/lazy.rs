//! Lazy base-case accumulation (FIPS 203 Algorithms 11 and 12, reduced once per sum).
//!
//! In T_q a product is 128 products in Z_q\[X\]/(X^2 - gamma_i):
//! `c0 = a0*b0 + a1*(b1*gamma_i)`, `c1 = a0*b1 + a1*b0`. Matrix-vector and inner products
//! only ever add such products, so [`Accumulator`] sums the unreduced terms in `u32` and
//! reduces each coefficient once at the end. With canonical inputs a term is at most
//! [`PRODUCT_TERM_MAX`] = 2(q-1)^2, and up to [`ACCUMULATOR_MAX_TERMS`] = 193 of them fit a `u32`
//! (the AVX2 backend's signed 32-bit lanes take 92):
//! ML-KEM needs at most k = 4.
//!
//! `b1*gamma_i` depends only on the right-hand side, so [`CachedNttPoly`] computes it once
//! per polynomial and every product with that right-hand side reuses it ("asymmetric
//! multiplication").

use crate::backend::{Backend, PAIRS};
use crate::{N, NttPoly};
use mlkem_field::{CANONICAL_MAX, mul};
use zeroize::Zeroize;

/// Largest value one base-case product adds to one accumulator entry: `2 (q-1)^2`
/// (two products of canonical values, `b1*gamma` being reduced first).
pub const PRODUCT_TERM_MAX: u32 = 2 * (CANONICAL_MAX as u32) * (CANONICAL_MAX as u32);

/// How many products the portable backend's `u32` accumulator entries can take before
/// one could overflow. Each backend states its own limit as [`crate::Backend::MAX_TERMS`].
pub const ACCUMULATOR_MAX_TERMS: usize = (u32::MAX / PRODUCT_TERM_MAX) as usize;

/// The largest module rank used by ML-KEM (ML-KEM-1024).
pub const MAX_RANK: usize = 4;

// The lazy bound of DESIGN.md: k = 4 terms of 2(q-1)^2 fit a u32, with room to spare.
const _: () = assert!(PRODUCT_TERM_MAX == 22_151_168);
const _: () = assert!(MAX_RANK <= ACCUMULATOR_MAX_TERMS);
const _: () = assert!(MAX_RANK as u64 * PRODUCT_TERM_MAX as u64 <= u32::MAX as u64);
// The final reduction accepts any u32, so every possible sum is inside its domain.
const _: () = assert!(mlkem_field::BARRETT_INPUT_MAX == u32::MAX);

/// A right-hand-side polynomial together with its `b[2i+1] * gamma_i` cache.
///
/// Build it once per vector element; every product with it then skips that multiplication.
#[derive(Clone, Debug)]
pub struct CachedNttPoly {
    poly: NttPoly,
    b_zeta: [u16; PAIRS],
}

impl Zeroize for CachedNttPoly {
    fn zeroize(&mut self) {
        self.poly.zeroize();
        // Bulk slice zeroization (see `NttPoly`'s impl).
        self.b_zeta.as_mut_slice().zeroize();
    }
}

impl Default for CachedNttPoly {
    fn default() -> Self {
        Self::zero()
    }
}

impl CachedNttPoly {
    /// The zero polynomial with its (all-zero) cache.
    #[must_use]
    pub const fn zero() -> Self {
        Self {
            poly: NttPoly::zero(),
            b_zeta: [0; PAIRS],
        }
    }

    /// Copies `poly` and computes its cache with backend `B`.
    #[must_use]
    pub fn new<B: Backend>(poly: &NttPoly) -> Self {
        let mut b_zeta = [0u16; PAIRS];
        B::mul_cache(poly.coeffs(), &mut b_zeta);
        Self {
            poly: poly.clone(),
            b_zeta,
        }
    }

    /// Replaces `self` with a copy of `poly` and its cache.
    pub fn set<B: Backend>(&mut self, poly: &NttPoly) {
        self.poly.clone_from(poly);
        B::mul_cache(self.poly.coeffs(), &mut self.b_zeta);
    }

    /// Replaces `self` with the NTT of `poly` (a copy; the caller erases `poly` if secret)
    /// and its cache.
    pub fn set_ntt_of<B: Backend>(&mut self, poly: &crate::Poly) {
        poly.ntt_into::<B>(&mut self.poly);
        B::mul_cache(self.poly.coeffs(), &mut self.b_zeta);
    }

    /// The polynomial.
    #[must_use]
    pub const fn poly(&self) -> &NttPoly {
        &self.poly
    }

    /// The cache: `b[2i+1] * gamma_i mod q` for each pair `i`.
    #[must_use]
    pub const fn b_zeta(&self) -> &[u16; PAIRS] {
        &self.b_zeta
    }
}

/// 256 unreduced `u32` sums of base-case products.
///
/// It counts the products it has taken and refuses more than the backend's
/// [`Backend::MAX_TERMS`], so it can never overflow, whatever the caller does. Use one
/// backend for all products and the reduction of one accumulator (the entry layout is the
/// backend's own).
#[derive(Clone)]
pub struct Accumulator {
    acc: [u32; N],
    terms: usize,
}

impl Zeroize for Accumulator {
    fn zeroize(&mut self) {
        self.acc.as_mut_slice().zeroize();
        self.terms = 0;
    }
}

impl Default for Accumulator {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for Accumulator {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Accumulator")
            .field("terms", &self.terms)
            .finish_non_exhaustive()
    }
}

impl Accumulator {
    /// An empty accumulator.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            acc: [0; N],
            terms: 0,
        }
    }

    /// Adds the unreduced product `a * b` (in T_q).
    ///
    /// # Panics
    /// If this would be product number `B::MAX_TERMS + 1`. The count is public
    /// (it is the module rank), so the check leaks nothing.
    pub fn add_product<B: Backend>(&mut self, a: &NttPoly, b: &CachedNttPoly) {
        assert!(self.terms < B::MAX_TERMS, "lazy accumulator bound exceeded");
        self.terms += 1;
        B::accumulate(&mut self.acc, a.coeffs(), b.poly.coeffs(), &b.b_zeta);
    }

    /// Number of products taken so far.
    #[must_use]
    pub const fn terms(&self) -> usize {
        self.terms
    }

    /// The raw sums, for the bounds checker and tests (in the backend's own layout).
    #[must_use]
    pub const fn raw(&self) -> &[u32; N] {
        &self.acc
    }

    /// Reduces every sum once and returns the result.
    #[must_use]
    pub fn reduce<B: Backend>(&self) -> NttPoly {
        let mut out = NttPoly::zero();
        self.reduce_into::<B>(&mut out);
        out
    }

    /// Reduces every sum once into `out`.
    pub fn reduce_into<B: Backend>(&self, out: &mut NttPoly) {
        B::reduce_accumulator(&self.acc, out.coeffs_mut());
    }

    /// Empties the accumulator for reuse.
    pub fn clear(&mut self) {
        self.acc = [0; N];
        self.terms = 0;
    }
}

/// `a * b` in T_q computed the eager way: FIPS 203 Algorithms 11 and 12 with a reduction
/// after every multiplication and addition, as implementations did before lazy accumulation.
///
/// This is the reference the lazy path is tested against and the "eager" side of the
/// benchmarks; prefer [`Accumulator`] for sums of products.
#[must_use]
pub fn multiply_ntts_eager(a: &NttPoly, b: &NttPoly) -> NttPoly {
    let (a, b) = (a.coeffs(), b.coeffs());
    let mut out = NttPoly::zero();
    let c = out.coeffs_mut();
    for i in 0..PAIRS {
        let gamma = crate::zetas::GAMMAS[i];
        let (a0, a1, b0, b1) = (a[2 * i], a[2 * i + 1], b[2 * i], b[2 * i + 1]);
        c[2 * i] = mlkem_field::add(mul(a0, b0), mul(mul(a1, b1), gamma));
        c[2 * i + 1] = mlkem_field::add(mul(a0, b1), mul(a1, b0));
    }
    out
}

/// `a * b` in T_q with one lazy accumulation (two reductions per pair instead of five).
#[must_use]
pub fn multiply_ntts<B: Backend>(a: &NttPoly, b: &CachedNttPoly) -> NttPoly {
    let mut acc = Accumulator::new();
    acc.add_product::<B>(a, b);
    acc.reduce::<B>()
}
