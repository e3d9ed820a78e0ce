//! The backend seam: the hot functions of this crate behind one static interface, and the
//! one place where a backend is chosen.
//!
//! A backend is a zero-sized **capability token**: [`Portable`] can always be made, a SIMD
//! token only by detecting its CPU features ([`Avx2::detect`]), so holding one proves its
//! kernels may run and they need no per-call checks. Callers are generic over the token type
//! and pass the token down; everything is monomorphized for it, with no dynamic dispatch in
//! hot paths. [`AnyBackend`] is the one place the choice is made: [`AnyBackend::best`]
//! (detected once, cached) or [`AnyBackend::of`] a [`BackendKind`] for tests and benchmarks;
//! [`dispatch!`](crate::dispatch) runs an expression with the chosen token, inside the
//! token's [`run`](Avx2::run) so that the whole operation is compiled for its features.
//!
//! A backend implements [`Backend<R>`] for the rings it serves; every method has a portable
//! default, so it overrides only the kernels it accelerates. Crates above this one define
//! their own kernel traits the same way (`lattice-sampling`'s Keccak, `mlkem`'s encodings)
//! and implement them for the same tokens.
//!
//! # Adding a backend
//! A token here (a module with its detection and `run`, a [`BackendKind`] variant, an
//! [`AnyBackend`] arm), its `Backend<R>` impls, and in each crate above one impl of that
//! crate's kernel trait (an empty one falls back to portable code everywhere).

#[cfg(any(target_arch = "aarch64", feature = "bounds-probe"))]
mod aarch64;
mod portable;
#[cfg(target_arch = "x86_64")]
mod x86_64;

#[cfg(any(target_arch = "aarch64", feature = "bounds-probe"))]
pub use aarch64::neon;
#[cfg(target_arch = "aarch64")]
pub use aarch64::neon::Neon;
pub use portable::Portable;
#[cfg(target_arch = "x86_64")]
pub use x86_64::avx2::{self, Avx2};
#[cfg(target_arch = "x86_64")]
pub use x86_64::avx512::{self, Avx512};

/// The tokens of this target, re-exported at the crate root.
pub mod tokens {
    #[cfg(target_arch = "aarch64")]
    pub use super::Neon;
    #[cfg(target_arch = "x86_64")]
    pub use super::{Avx2, Avx512};
    pub use super::{Backend, Portable};
}

/// The backends this crate knows, whether or not this CPU has them (more may come: match
/// with a wildcard arm).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BackendKind {
    /// The portable scalar code, available everywhere.
    Portable,
    /// AVX2 (with BMI1/2, FMA, POPCNT) on x86-64.
    Avx2,
    /// AVX-512F, VL and BW (with everything AVX2 needs) on x86-64.
    Avx512,
    /// NEON (Advanced SIMD) on aarch64, with the SHA3 extension's Keccak where the CPU has it.
    Neon,
}

impl BackendKind {
    /// Every kind, the reference (portable) first.
    pub const ALL: [Self; 4] = [Self::Portable, Self::Avx2, Self::Avx512, Self::Neon];

    /// The kind's name, as `Display` prints it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Portable => "portable",
            Self::Avx2 => "avx2",
            Self::Avx512 => "avx512",
            Self::Neon => "neon",
        }
    }

    /// Whether this CPU can run the kind.
    #[must_use]
    pub fn is_available(self) -> bool {
        AnyBackend::of(self).is_some()
    }
}

impl core::fmt::Display for BackendKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A detected backend: one token of any kind. Only [`Self::best`] and [`Self::of`] make
/// one, through the tokens' own detection. More kinds may come: run code on one with
/// [`dispatch!`](crate::dispatch), which covers them all.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum AnyBackend {
    /// The portable token.
    Portable(Portable),
    /// The AVX2 token.
    #[cfg(target_arch = "x86_64")]
    Avx2(Avx2),
    /// The AVX-512 token.
    #[cfg(target_arch = "x86_64")]
    Avx512(Avx512),
    /// The NEON token.
    #[cfg(target_arch = "aarch64")]
    Neon(Neon),
}

impl AnyBackend {
    /// The fastest backend this CPU has (CPU features are detected once and cached).
    #[must_use]
    pub fn best() -> Self {
        #[cfg(target_arch = "x86_64")]
        if let Some(avx512) = Avx512::detect() {
            return Self::Avx512(avx512);
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(avx2) = Avx2::detect() {
            return Self::Avx2(avx2);
        }
        #[cfg(target_arch = "aarch64")]
        if let Some(neon) = Neon::detect() {
            return Self::Neon(neon);
        }
        Self::Portable(Portable)
    }

    /// The backend of `kind`, if this CPU has it.
    #[must_use]
    pub fn of(kind: BackendKind) -> Option<Self> {
        match kind {
            BackendKind::Portable => Some(Self::Portable(Portable)),
            #[cfg(target_arch = "x86_64")]
            BackendKind::Avx2 => Avx2::detect().map(Self::Avx2),
            #[cfg(target_arch = "x86_64")]
            BackendKind::Avx512 => Avx512::detect().map(Self::Avx512),
            #[cfg(not(target_arch = "x86_64"))]
            BackendKind::Avx2 | BackendKind::Avx512 => None,
            #[cfg(target_arch = "aarch64")]
            BackendKind::Neon => Neon::detect().map(Self::Neon),
            #[cfg(not(target_arch = "aarch64"))]
            BackendKind::Neon => None,
        }
    }

    /// Which kind this is.
    #[must_use]
    pub const fn kind(self) -> BackendKind {
        match self {
            Self::Portable(_) => BackendKind::Portable,
            #[cfg(target_arch = "x86_64")]
            Self::Avx2(_) => BackendKind::Avx2,
            #[cfg(target_arch = "x86_64")]
            Self::Avx512(_) => BackendKind::Avx512,
            #[cfg(target_arch = "aarch64")]
            Self::Neon(_) => BackendKind::Neon,
        }
    }
}

/// Runs `$body` with `$b` bound to the token of the backend `$any` (an [`AnyBackend`]), each
/// arm monomorphized for its token type and run inside the token's `run`, so that the whole
/// operation, glue included, is compiled for the backend's CPU features.
///
/// ```
/// use lattice_poly_ntt::backend::AnyBackend;
/// use lattice_poly_ntt::mlkem::Poly;
/// use lattice_poly_ntt::dispatch;
///
/// let p = Poly::from_fn(|i| i as u32);
/// let back = dispatch!(AnyBackend::best(), |b| p.ntt(b).inverse_ntt(b));
/// assert_eq!(back, p);
/// ```
#[macro_export]
macro_rules! dispatch {
    ($any:expr, |$b:ident| $body:expr) => {
        match $any {
            #[cfg(target_arch = "x86_64")]
            $crate::backend::AnyBackend::Avx2(token) => token.run(|$b| $body),
            #[cfg(target_arch = "x86_64")]
            $crate::backend::AnyBackend::Avx512(token) => token.run(|$b| $body),
            #[cfg(target_arch = "aarch64")]
            $crate::backend::AnyBackend::Neon(token) => token.run(|$b| $body),
            // `Portable`, and in other crates any kind this version does not know
            // (`AnyBackend` is non-exhaustive): the portable token, available everywhere.
            _ => {
                let $b = $crate::backend::Portable;
                $body
            }
        }
    };
}

use crate::ring::{self, KernelCall, Ring};
#[cfg(feature = "bounds-probe")]
use lattice_field::Field;

/// How a backend lays out and bounds its raw accumulator entries, for `cargo xtask bounds`
/// (which checks every backend against its own description; `bounds-probe` feature only).
#[cfg(feature = "bounds-probe")]
#[doc(hidden)]
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

/// Raw entry `i` holds coefficient `i` (the portable layout).
#[cfg(feature = "bounds-probe")]
const fn same_index(i: usize) -> usize {
    i
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
pub(crate) fn through_copy(
    coeffs: &mut [u16; crate::mlkem::N],
    kernel: impl FnOnce(&[u16; crate::mlkem::N], &mut [u16; crate::mlkem::N]),
) {
    let mut src = *coeffs;
    kernel(&src, coeffs);
    zeroize::Zeroize::zeroize(src.as_mut_slice());
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

/// [`Backend::dot_product`]'s default: [`Backend::accumulate`] on each term into an
/// [`crate::Accumulator`] (which folds past [`Backend::MAX_TERMS`] terms), then
/// [`Backend::reduce_accumulator`].
#[inline]
pub(crate) fn dot_product_accumulated<R: Ring, B: Backend<R>>(
    backend: B,
    call: KernelCall,
    out: &mut R::Coeffs,
    terms: &[DotTerm<'_, R>],
) {
    let mut acc = crate::Accumulator::new(backend);
    for &(a, b, b_cache) in terms {
        acc.add_raw(a, b, b_cache);
    }
    acc.reduce_raw_into(call, out);
    zeroize::Zeroize::zeroize(&mut acc);
}

/// The hot functions of ring `R` on one backend.
///
/// Every method has a portable default body (the generic algorithms of [`crate::ring`] and
/// the ring's own product), so a backend implements only the kernels it accelerates for a
/// ring and falls back for the rest. [`Portable`] implements the trait for every ring with
/// the defaults alone; [`Avx2`] overrides every kernel for ML-KEM's ring.
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

    /// The layout and limits of this backend's accumulator entries (the portable default:
    /// one wide entry per coefficient, bounded by the field's wide reduction).
    #[cfg(feature = "bounds-probe")]
    #[doc(hidden)]
    const ACCUMULATOR_LAYOUT: AccumulatorLayout = AccumulatorLayout {
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
    };

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
