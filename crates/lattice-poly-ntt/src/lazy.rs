//! Lazy NTT-domain accumulation: unreduced products summed in the field's wide type,
//! reduced once per coefficient.
//!
//! Matrix-vector and inner products only ever add NTT-domain products, so [`Accumulator`]
//! sums the unreduced terms (each at most [`Ring::PRODUCT_TERM_MAX`]) and reduces each
//! coefficient once at the end; it counts its terms, and a product past the backend's limit
//! ([`Backend::MAX_TERMS`], at most [`Ring::MAX_TERMS`]) first folds the sums (one
//! reduction, then the reduced values re-enter as one term), so no count overflows it. For ML-KEM a term is
//! `2(q-1)^2` in a `u32` (193 fit; k <= 4 are needed); for ML-DSA `(q-1)^2` in a `u64`
//! (262,656 fit; l <= 7 are needed).
//!
//! The right-hand side of every product is a [`CachedNttPoly`]: the polynomial with the
//! ring's [`Ring::RhsCache`] (ML-KEM's `b[2i+1] * gamma_i`, "asymmetric multiplication";
//! nothing for pointwise rings), computed once and reused by every product.

use crate::backend::Backend;
use crate::backend::seam::LazySums;
use crate::poly::{NttPoly, Poly};
use crate::ring::{KernelCall, Ring};
use zeroize::Zeroize;

/// A right-hand-side polynomial together with its ring's product cache.
///
/// Build it once per vector element; every product with it then skips that work.
#[derive(Clone)]
pub struct CachedNttPoly<R: Ring> {
    poly: NttPoly<R>,
    cache: R::RhsCache,
}

impl<R: Ring> Zeroize for CachedNttPoly<R> {
    fn zeroize(&mut self) {
        self.poly.zeroize();
        R::zeroize_rhs_cache(&mut self.cache);
    }
}

impl<R: Ring> Default for CachedNttPoly<R> {
    fn default() -> Self {
        Self::zero()
    }
}

impl<R: Ring> core::fmt::Debug for CachedNttPoly<R> {
    /// Prints only the type: right-hand sides are often secret (ŝ, r̂).
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("CachedNttPoly { .. }")
    }
}

impl<R: Ring> CachedNttPoly<R> {
    /// The zero polynomial with its cache.
    #[must_use]
    pub const fn zero() -> Self {
        Self {
            poly: NttPoly::zero(),
            cache: R::ZERO_RHS_CACHE,
        }
    }

    /// Copies `poly` and computes its cache with backend `B`.
    #[must_use]
    #[inline]
    pub fn new<B: Backend<R>>(backend: B, poly: &NttPoly<R>) -> Self {
        let mut out = Self::zero();
        out.set(backend, poly);
        out
    }

    /// Replaces `self` with a copy of `poly` and its cache.
    #[inline]
    pub fn set<B: Backend<R>>(&mut self, backend: B, poly: &NttPoly<R>) {
        self.poly.clone_from(poly);
        backend.mul_cache(KernelCall::NEW, self.poly.coeffs(), &mut self.cache);
    }

    /// Replaces `self` with the NTT of `poly` (a copy; the caller erases `poly` if secret)
    /// and its cache.
    #[inline]
    pub fn set_ntt_of<B: Backend<R>>(&mut self, backend: B, poly: &Poly<R>) {
        poly.ntt_into(backend, &mut self.poly);
        backend.mul_cache(KernelCall::NEW, self.poly.coeffs(), &mut self.cache);
    }

    /// The polynomial.
    #[must_use]
    pub const fn poly(&self) -> &NttPoly<R> {
        &self.poly
    }

    /// The ring's cache (ML-KEM: `b[2i+1] * gamma_i mod q` for each pair `i`).
    #[must_use]
    pub const fn cache(&self) -> &R::RhsCache {
        &self.cache
    }
}

/// `n` unreduced wide sums of NTT-domain products, in the layout of backend `B`.
///
/// It counts the products it has taken since its sums were last reduced; product number
/// [`Backend::MAX_TERMS`] + 1 first folds them (reduces every sum and takes the result back
/// as one term), so it can never overflow, whatever the caller does. It holds its
/// backend's token: every product it takes and its reduction run on that backend (the entry
/// layout is the backend's own), so one filled by one backend cannot be reduced by another.
#[derive(Clone)]
pub struct Accumulator<R: Ring, B: Backend<R>> {
    /// The sums, folded past `B::MAX_TERMS` terms (the bound).
    sums: LazySums<R, B>,
    /// Products taken in all (saturating), for [`Accumulator::terms`].
    terms: usize,
}

impl<R: Ring, B: Backend<R>> Zeroize for Accumulator<R, B> {
    fn zeroize(&mut self) {
        self.sums.zeroize();
        self.terms = 0;
    }
}

impl<R: Ring, B: Backend<R>> core::fmt::Debug for Accumulator<R, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Accumulator")
            .field("backend", &self.sums.backend())
            .field("terms", &self.terms)
            .finish_non_exhaustive()
    }
}

impl<R: Ring, B: Backend<R>> Accumulator<R, B> {
    /// An empty accumulator on `backend`.
    #[must_use]
    #[inline]
    pub const fn new(backend: B) -> Self {
        Self {
            sums: LazySums::new(backend),
            terms: 0,
        }
    }

    /// Adds the unreduced product `a * b` (in T_q).
    ///
    /// Every `B::MAX_TERMS` products (193 or more for ML-KEM, far above its rank 4) the sums
    /// are folded first: a branch on the count, which is public (it is the module rank),
    /// so it leaks nothing.
    #[inline]
    pub fn add_product(&mut self, a: &NttPoly<R>, b: &CachedNttPoly<R>) {
        self.terms = self.terms.saturating_add(1);
        self.sums.add(a.coeffs(), b.poly.coeffs(), &b.cache);
    }

    /// Number of products taken so far (saturating at `usize::MAX`).
    #[must_use]
    pub const fn terms(&self) -> usize {
        self.terms
    }

    /// The raw sums, in the backend's own layout (for the bounds checker, through
    /// [`crate::__bounds::raw`]).
    #[cfg(feature = "bounds-probe")]
    pub(crate) const fn raw(&self) -> &R::WideCoeffs {
        self.sums.raw()
    }

    /// Reduces every sum once and returns the result.
    #[must_use]
    #[inline]
    pub fn reduce(&self) -> NttPoly<R> {
        let mut out = NttPoly::zero();
        self.reduce_into(&mut out);
        out
    }

    /// Reduces every sum once into `out`.
    #[inline]
    pub fn reduce_into(&self, out: &mut NttPoly<R>) {
        self.sums
            .reduce_into(KernelCall::NEW, out.coeffs_mut(crate::__private::WORKSPACE));
    }

    /// Empties the accumulator for reuse.
    #[inline]
    pub fn clear(&mut self) {
        self.sums.clear();
        self.terms = 0;
    }
}

/// `a * b` in T_q with one lazy accumulation.
#[must_use]
pub fn multiply_ntts<R: Ring, B: Backend<R>>(
    backend: B,
    a: &NttPoly<R>,
    b: &CachedNttPoly<R>,
) -> NttPoly<R> {
    let mut acc = Accumulator::new(backend);
    acc.add_product(a, b);
    acc.reduce()
}
