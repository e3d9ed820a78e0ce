//! The seam: what a backend is ([`Backend<R>`], the hot functions of ring `R` with their
//! portable default bodies) and the helpers those bodies and the SIMD backends share.
//!
//! It depends only on the ring description ([`crate::ring`]) and the field: everything
//! above it (the typed API, the backends, the registry) depends on it, never the reverse.

use crate::ring::{self, KernelCall, Ring, zeroize_array};
use lattice_field::Field;
use zeroize::{DefaultIsZeroes, Zeroize};

/// How a backend lays out and bounds its raw accumulator entries, for `cargo xtask bounds`
/// (which checks every backend against its own description; `bounds-probe` feature only,
/// read through [`crate::__bounds`]).
#[cfg(feature = "bounds-probe")]
#[derive(Clone, Copy, Debug)]
pub struct AccumulatorLayout {
    /// Appended to the names of the backend's rows (`""` for the portable backend).
    pub tag: &'static str,
    /// How the backend's `MAX_TERMS` is spelled in the library.
    pub max_terms_name: &'static str,
    /// The coefficient whose sum raw entry `i` holds.
    pub coefficient_of: fn(usize) -> usize,
    /// Largest raw entry allowed: the smaller of the lane type's maximum and the final
    /// reduction's input domain.
    pub entry_limit: u128,
    /// What `entry_limit` is.
    pub entry_limit_name: &'static str,
    /// The lane type's maximum.
    pub lane_max: u128,
}

#[cfg(feature = "bounds-probe")]
impl AccumulatorLayout {
    /// The portable layout of ring `R`: one wide entry per coefficient, bounded by the
    /// field's wide reduction.
    #[must_use]
    pub const fn wide<R: Ring>() -> Self {
        Self {
            tag: "",
            max_terms_name: "ACCUMULATOR_MAX_TERMS",
            coefficient_of: same_index,
            entry_limit: if R::Field::WIDE_MAX < R::Field::REDUCE_WIDE_INPUT_MAX {
                R::Field::WIDE_MAX
            } else {
                R::Field::REDUCE_WIDE_INPUT_MAX
            },
            entry_limit_name: "the wide type's maximum (= the reduction's domain)",
            lane_max: R::Field::WIDE_MAX,
        }
    }
}

/// Raw entry `i` holds coefficient `i` (the portable layout).
#[cfg(feature = "bounds-probe")]
const fn same_index(i: usize) -> usize {
    i
}

/// The accumulator layout a backend declares for ring `R`, next to its kernels (every
/// token implements it for every ring it serves; `bounds-probe` feature only, read through
/// [`crate::__bounds`]).
#[cfg(feature = "bounds-probe")]
pub trait HasAccumulatorLayout<R: Ring>: Backend<R> {
    /// The layout and limits of this backend's accumulator entries for `R`.
    const ACCUMULATOR_LAYOUT: AccumulatorLayout;
}

/// One term of [`Backend::dot_product`]: canonical `a`, canonical `b` and `b`'s product
/// cache.
pub type DotTerm<'a, R> = (
    &'a <R as Ring>::Coeffs,
    &'a <R as Ring>::Coeffs,
    &'a <R as Ring>::RhsCache,
);

/// Coefficients per chunk of [`Backend::dot_product_plus_chunks`] (a zmm register of
/// 16-bit lanes).
pub const DOT_CHUNK: usize = 32;

/// An out-of-place kernel (`ntt_canonical_into` and its inverse) applied in place: through
/// a copy of `coeffs`, erased afterwards (the coefficients may be secret). For the SIMD
/// backends, whose kernels read the whole source before they write.
#[cfg_attr(
    not(target_arch = "x86_64"),
    allow(dead_code, reason = "no out-of-place SIMD kernel here yet")
)]
#[inline]
pub(crate) fn through_copy<T: DefaultIsZeroes, C: Copy + AsMut<[T]>>(
    coeffs: &mut C,
    kernel: impl FnOnce(&C, &mut C),
) {
    let mut src = *coeffs;
    kernel(&src, coeffs);
    src.as_mut().zeroize();
}

/// [`Backend::dot_product_plus_chunks`]'s default: every coefficient, then the chunks
/// asked for copied out.
#[inline]
pub(crate) fn dot_product_plus_chunks_default<R: Ring, B: Backend<R>>(
    backend: B,
    call: KernelCall,
    out: &mut R::Coeffs,
    terms: &[DotTerm<'_, R>],
    plus: &R::Coeffs,
    chunks: core::ops::Range<usize>,
) {
    let mut whole = *out;
    backend.dot_product(call, &mut whole, terms);
    backend.add(call, &mut whole, plus);
    let n = out.as_ref().len();
    let (start, end) = (
        chunks.start.saturating_mul(DOT_CHUNK).min(n),
        chunks.end.saturating_mul(DOT_CHUNK).min(n),
    );
    if start < end {
        out.as_mut()[start..end].copy_from_slice(&whole.as_ref()[start..end]);
    }
    zeroize::Zeroize::zeroize(whole.as_mut());
}

/// [`Backend::dot_product`]'s default: [`Backend::accumulate`] on each term into
/// [`LazySums`] (which fold past [`Backend::MAX_TERMS`] terms), then
/// [`Backend::reduce_accumulator`].
#[inline]
pub(crate) fn dot_product_accumulated<R: Ring, B: Backend<R>>(
    backend: B,
    call: KernelCall,
    out: &mut R::Coeffs,
    terms: &[DotTerm<'_, R>],
) {
    let mut sums = LazySums::new(backend);
    for &(a, b, b_cache) in terms {
        sums.add(a, b, b_cache);
    }
    sums.reduce_into(call, out);
    sums.zeroize();
}

/// `n` unreduced wide sums of NTT-domain products in the layout of backend `B`, and how
/// many terms they hold since they were last folded: the raw core of
/// [`Accumulator`](crate::Accumulator) and of [`Backend::dot_product`]'s default.
///
/// Term number [`Backend::MAX_TERMS`] + 1 first folds the sums (reduces each and takes the
/// result back as one term), so they never pass the backend's bound. Every product and the
/// reduction run on the one backend whose layout the sums are in.
#[derive(Clone)]
pub(crate) struct LazySums<R: Ring, B: Backend<R>> {
    acc: R::WideCoeffs,
    /// Terms in `acc` since it was last folded: at most `B::MAX_TERMS`, the bound.
    pending: usize,
    backend: B,
}

impl<R: Ring, B: Backend<R>> Zeroize for LazySums<R, B> {
    fn zeroize(&mut self) {
        zeroize_array(&mut self.acc);
        self.pending = 0;
    }
}

impl<R: Ring, B: Backend<R>> LazySums<R, B> {
    /// No term yet, on `backend`.
    #[inline]
    pub(crate) const fn new(backend: B) -> Self {
        Self {
            acc: R::ZERO_WIDE,
            pending: 0,
            backend,
        }
    }

    /// The backend the sums are laid out for.
    #[inline]
    pub(crate) const fn backend(&self) -> B {
        self.backend
    }

    /// Adds the unreduced product of canonical `a` and `b` (with `b`'s cache), folding
    /// first if the sums already hold `B::MAX_TERMS` terms: a branch on the count, which is
    /// public (the module rank), so it leaks nothing.
    #[inline]
    pub(crate) fn add(&mut self, a: &R::Coeffs, b: &R::Coeffs, b_cache: &R::RhsCache) {
        if self.pending == B::MAX_TERMS {
            self.fold();
        }
        // pending < B::MAX_TERMS: the sums stay within the backend's bound.
        self.pending += 1;
        self.backend
            .accumulate(KernelCall::NEW, &mut self.acc, a, b, b_cache);
    }

    /// Reduces every sum and starts again from the reduced values as one term: their
    /// product with NTT(1), the one of T_q, which the backend's own kernel writes in its
    /// own layout. Off the hot path: reached only past `B::MAX_TERMS` terms.
    #[cold]
    #[inline(never)]
    fn fold(&mut self) {
        let call = KernelCall::NEW;
        let mut reduced = R::ZERO_COEFFS;
        self.backend
            .reduce_accumulator(call, &self.acc, &mut reduced);
        // NTT(1): the constant polynomial one in T_q (pairs (1, 0) for ML-KEM, all ones for
        // a pointwise ring), with its product cache.
        let mut one_poly = R::ZERO_COEFFS;
        one_poly.as_mut()[0] = R::Field::ONE;
        let mut one = R::ZERO_COEFFS;
        self.backend.ntt_canonical_into(call, &one_poly, &mut one);
        let mut one_cache = R::ZERO_RHS_CACHE;
        self.backend.mul_cache(call, &one, &mut one_cache);
        self.acc = R::ZERO_WIDE;
        // One term of canonical operands: within every backend's bound.
        self.backend
            .accumulate(call, &mut self.acc, &reduced, &one, &one_cache);
        self.pending = 1;
        zeroize_array(&mut reduced);
    }

    /// Reduces every sum once into `out` (canonical).
    #[inline]
    pub(crate) fn reduce_into(&self, call: KernelCall, out: &mut R::Coeffs) {
        self.backend.reduce_accumulator(call, &self.acc, out);
    }

    /// No term again.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.acc = R::ZERO_WIDE;
        self.pending = 0;
    }

    /// The raw sums, in the backend's own layout (for the bounds checker).
    #[cfg(feature = "bounds-probe")]
    pub(crate) const fn raw(&self) -> &R::WideCoeffs {
        &self.acc
    }
}

/// The hot functions of ring `R` on one backend.
///
/// Every method has a portable default body (the generic algorithms of [`crate::ring`] and
/// the ring's own product), so a backend implements only the kernels it accelerates for a
/// ring and falls back for the rest. [`Portable`](crate::Portable) implements the trait for
/// every ring with the defaults alone; the SIMD tokens override the kernels they accelerate.
///
/// The kernels take and return canonical coefficients (in `[0, q)`) in the order of
/// FIPS 203 / FIPS 204, so backends are interchangeable at every call. They take a
/// [`KernelCall`] first, which only this crate can make: they are reached through the typed
/// API ([`Poly`](crate::Poly), [`CachedNttPoly`](crate::CachedNttPoly),
/// [`Accumulator`](crate::Accumulator), ...), whose values are canonical. The two methods
/// callable on bare arrays, [`Self::ntt`] and [`Self::inverse_ntt`], accept any array:
/// they reduce it first, so their result is the same on every backend for every input.
pub trait Backend<R: Ring>: Copy + core::fmt::Debug + 'static {
    /// How many products one accumulator can take with this backend's lane width and final
    /// reduction (at most [`Ring::MAX_TERMS`]).
    const MAX_TERMS: usize = R::MAX_TERMS;

    /// Forward NTT in place (FIPS 203 Alg. 9, FIPS 204 Alg. 41) of the
    /// coefficients taken mod q: any array is accepted (each coefficient is reduced first,
    /// which changes nothing for a canonical one), the output is canonical and the same on
    /// every backend. Backends override [`Self::ntt_canonical`], not this.
    #[inline]
    fn ntt(self, coeffs: &mut R::Coeffs) {
        ring::canonicalize::<R>(coeffs);
        self.ntt_canonical(KernelCall::NEW, coeffs);
    }

    /// Inverse NTT in place, including the final scaling (FIPS 203 Alg. 10,
    /// FIPS 204 Alg. 42), of the coefficients taken mod q, as [`Self::ntt`]. Backends override
    /// [`Self::inverse_ntt_canonical`], not this.
    #[inline]
    fn inverse_ntt(self, coeffs: &mut R::Coeffs) {
        ring::canonicalize::<R>(coeffs);
        self.inverse_ntt_canonical(KernelCall::NEW, coeffs);
    }

    /// The forward NTT kernel, for canonical coefficients.
    #[inline]
    fn ntt_canonical(self, _: KernelCall, coeffs: &mut R::Coeffs) {
        ring::ntt::<R>(coeffs);
    }

    /// The inverse NTT kernel (with the final scaling), for canonical coefficients.
    #[inline]
    fn inverse_ntt_canonical(self, _: KernelCall, coeffs: &mut R::Coeffs) {
        ring::inverse_ntt::<R>(coeffs);
    }

    /// [`Self::ntt_canonical`] out of place: the transform of `src` written to `dst`. A
    /// kernel that holds the whole polynomial in registers reads `src` and writes `dst`
    /// once, where the in-place form would need `src` copied to `dst` first.
    #[inline]
    fn ntt_canonical_into(self, call: KernelCall, src: &R::Coeffs, dst: &mut R::Coeffs) {
        *dst = *src;
        self.ntt_canonical(call, dst);
    }

    /// [`Self::inverse_ntt_canonical`] out of place, as [`Self::ntt_canonical_into`].
    #[inline]
    fn inverse_ntt_canonical_into(self, call: KernelCall, src: &R::Coeffs, dst: &mut R::Coeffs) {
        *dst = *src;
        self.inverse_ntt_canonical(call, dst);
    }

    /// The product cache of a canonical right-hand side `b` ([`Ring::RhsCache`]; for
    /// ML-KEM `out[i] = b[2i + 1] * gamma_i mod q`).
    #[inline]
    fn mul_cache(self, call: KernelCall, b: &R::Coeffs, out: &mut R::RhsCache) {
        R::rhs_cache(call, b, out);
    }

    /// Adds the unreduced NTT-domain product of `a` and `b` to `acc` (for ML-KEM,
    /// FIPS 203 Alg. 11 and FIPS 203 Alg. 12 without their reductions; for ML-DSA the
    /// pointwise product).
    ///
    /// Each call adds at most [`Ring::PRODUCT_TERM_MAX`] to every entry; the caller keeps
    /// the number of calls per accumulator within [`Self::MAX_TERMS`]. The layout of `acc`
    /// is the backend's own: only the same backend's [`Self::reduce_accumulator`] reads it.
    #[inline]
    fn accumulate(
        self,
        call: KernelCall,
        acc: &mut R::WideCoeffs,
        a: &R::Coeffs,
        b: &R::Coeffs,
        b_cache: &R::RhsCache,
    ) {
        R::accumulate(call, acc, a, b, b_cache);
    }

    /// `out = a[0] * b[0] + .. + a[k-1] * b[k-1]` in T_q, canonical: the products of `terms`
    /// (`(a, b, b's cache)`) summed lazily and reduced once, the same values as
    /// [`Self::accumulate`] on each term then [`Self::reduce_accumulator`] (the default,
    /// through a wide accumulator in memory). A backend may override it with a kernel that
    /// keeps the sums in registers, for at most [`Self::MAX_TERMS`] terms (more take the
    /// default, which folds as [`crate::Accumulator`] does).
    #[inline]
    fn dot_product(self, call: KernelCall, out: &mut R::Coeffs, terms: &[DotTerm<'_, R>]) {
        dot_product_accumulated(self, call, out, terms);
    }

    /// [`Self::dot_product`] plus `plus`, on some coefficients only: for each chunk `c` in
    /// `chunks`, coefficients `DOT_CHUNK c .. DOT_CHUNK (c + 1)` of `out` become those of
    /// `sum(terms) + plus` (mod q, canonical); the other coefficients of `out` are left
    /// alone, and chunks past the end are ignored. For a caller that gets its operands a
    /// few coefficients at a time (ML-KEM key generation encodes `t-hat = A-hat s-hat +
    /// e-hat` block by block as A-hat is sampled). The default computes every coefficient
    /// and keeps the chunks asked for.
    #[inline]
    fn dot_product_plus_chunks(
        self,
        call: KernelCall,
        out: &mut R::Coeffs,
        terms: &[DotTerm<'_, R>],
        plus: &R::Coeffs,
        chunks: core::ops::Range<usize>,
    ) {
        dot_product_plus_chunks_default(self, call, out, terms, plus, chunks);
    }

    /// Reduces every accumulator entry (filled by this backend's [`Self::accumulate`]) to its
    /// canonical representative.
    #[inline]
    fn reduce_accumulator(self, _: KernelCall, acc: &R::WideCoeffs, out: &mut R::Coeffs) {
        ring::reduce_accumulator::<R>(acc, out);
    }

    /// `a[i] = a[i] + b[i] mod q` for every canonical coefficient, in place (constant time).
    #[inline]
    fn add(self, _: KernelCall, a: &mut R::Coeffs, b: &R::Coeffs) {
        ring::add::<R>(a, b);
    }

    /// `a[i] = a[i] - b[i] mod q` for every canonical coefficient, in place (constant time).
    #[inline]
    fn sub(self, _: KernelCall, a: &mut R::Coeffs, b: &R::Coeffs) {
        ring::sub::<R>(a, b);
    }
}
