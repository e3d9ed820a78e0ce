//! The ring description: what this crate needs to know about `Z_q[X]/(X^n + 1)` and its
//! NTT, and the generic (portable) algorithms every ring gets from it.
//!
//! A ring is a zero-sized type implementing [`Ring`]: the field, the degree `n`, the number
//! of NTT layers and the root of unity they use (with its twiddle table in bit-reversed
//! order), and the NTT-domain product: what a right-hand side caches ([`Ring::RhsCache`]),
//! how one unreduced product is added to a wide accumulator, and the largest value one such
//! product adds ([`Ring::PRODUCT_TERM_MAX`]), from which [`Ring::MAX_TERMS`] follows.
//!
//! Two rings are provided: [`crate::mlkem::MlKem`] (q = 3329, 7 layers, degree-2 base cases
//! with a cached `b*zeta`) and [`crate::mldsa::MlDsa`] (q = 8380417, 8 layers, pointwise
//! products). Parameters that cannot work are compile-time errors: [`Ring::CHECKS`] is
//! evaluated wherever the ring is used (its NTT, its products, its accumulators). Here 17
//! has order 256 mod 3329, too small for an 8-layer NTT, and the NTT does not compile:
//!
//! ```compile_fail
//! use lattice_field::Gf3329;
//! use lattice_poly_ntt::ring::{KernelCall, Ring, accumulate_pointwise};
//! use lattice_poly_ntt::{Poly, Portable};
//!
//! #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
//! struct Broken;
//!
//! impl Ring for Broken {
//!     type Field = Gf3329;
//!     const N: usize = 256;
//!     type Coeffs = [u16; 256];
//!     type WideCoeffs = [u32; 256];
//!     const ZERO_COEFFS: [u16; 256] = [0; 256];
//!     const ZERO_WIDE: [u32; 256] = [0; 256];
//!     const NTT_LAYERS: u32 = 8; // needs a primitive 512th root of unity: 3329 has none
//!     const ZETA: u64 = 17;
//!     const ZETAS: &'static [u16] = &[1; 256];
//!     const NTT_SCALE: u16 = 1;
//!     type RhsCache = ();
//!     const ZERO_RHS_CACHE: () = ();
//!     const PRODUCT_TERM_MAX: u128 = 3328 * 3328;
//!     fn rhs_cache(_: KernelCall, _: &[u16; 256], (): &mut ()) {}
//!     fn accumulate(k: KernelCall, acc: &mut [u32; 256], a: &[u16; 256], b: &[u16; 256], (): &()) {
//!         accumulate_pointwise::<Self>(k, acc, a, b);
//!     }
//!     fn zeroize_rhs_cache((): &mut ()) {}
//! }
//!
//! let _ = Poly::<Broken>::zero().ntt(Portable);
//! ```

use core::fmt::Debug;
use lattice_field::{Field, is_primitive_root_of_unity, pow_mod};
use zeroize::{DefaultIsZeroes, Zeroize};

/// A field element of ring `R`.
pub type Elem<R> = <<R as Ring>::Field as Field>::Elem;
/// A wide (unreduced) value of ring `R`.
pub type Wide<R> = <<R as Ring>::Field as Field>::Wide;

/// A fixed-size array of `n` values: the storage of a polynomial (`[Elem; n]`) or of an
/// accumulator (`[Wide; n]`).
pub trait CoeffArray<T>:
    Copy + Eq + Debug + AsRef<[T]> + AsMut<[T]> + Send + Sync + 'static
{
}

impl<T, const N: usize> CoeffArray<T> for [T; N] where T: Copy + Eq + Debug + Send + Sync + 'static {}

/// The first argument of every raw kernel: [`Ring::rhs_cache`], [`Ring::accumulate`],
/// [`accumulate_pointwise`] and the kernels of [`Backend`](crate::Backend).
///
/// Those take bare coefficient arrays and rely on them being canonical (and, for an
/// accumulator, on its entries being in the backend's own layout and below its bound): on
/// other values they would panic in a debug build or give results that differ between
/// backends. Only this crate can make a `KernelCall`, and it calls the kernels only from its
/// typed API ([`Poly`](crate::Poly), [`NttPoly`](crate::NttPoly),
/// [`CachedNttPoly`](crate::CachedNttPoly), [`Accumulator`](crate::Accumulator)), whose
/// values keep those invariants, so no caller outside can reach a kernel with inputs it was
/// not written for. A ring implemented outside this crate receives one in its
/// [`Ring::rhs_cache`] and [`Ring::accumulate`] and passes it on (to
/// [`accumulate_pointwise`]).
#[derive(Clone, Copy, Debug)]
pub struct KernelCall {
    _private: (),
}

impl KernelCall {
    /// The token, for this crate's typed API only.
    pub(crate) const NEW: Self = Self { _private: () };
}

/// A polynomial ring `Z_q[X]/(X^n + 1)` with an NTT of [`Self::NTT_LAYERS`] layers.
///
/// The NTT is FIPS 203 Alg. 9 / FIPS 204 Alg. 41 with `len` running from `n/2`
/// down to `n / 2^NTT_LAYERS`, so the NTT domain is `n / 2^NTT_LAYERS`-degree base rings
/// (`X^d - gamma_i`); its inverse ends with the scaling by `2^-NTT_LAYERS`.
pub trait Ring: Copy + Default + Debug + Eq + Send + Sync + 'static {
    /// The coefficient field.
    type Field: Field<Elem: DefaultIsZeroes, Wide: DefaultIsZeroes>;
    /// The degree n (a power of two).
    const N: usize;
    /// `[Elem; n]`.
    type Coeffs: CoeffArray<Elem<Self>>;
    /// `[Wide; n]`: one accumulator entry per coefficient.
    type WideCoeffs: CoeffArray<Wide<Self>>;
    /// The zero polynomial's coefficients.
    const ZERO_COEFFS: Self::Coeffs;
    /// An empty accumulator.
    const ZERO_WIDE: Self::WideCoeffs;

    /// Number of NTT layers (ML-KEM 7, incomplete; ML-DSA 8, complete).
    const NTT_LAYERS: u32;
    /// The root of unity of the NTT: primitive of order `2^(NTT_LAYERS + 1)` mod q.
    const ZETA: u64;
    /// `ZETAS[i] = ZETA^BitRev(i) mod q` for `i < 2^NTT_LAYERS`, the bit reversal on
    /// `NTT_LAYERS` bits (FIPS 203 Appendix A; FIPS 204 Appendix B).
    const ZETAS: &'static [Elem<Self>];
    /// `2^-NTT_LAYERS mod q`, the inverse NTT's final scaling.
    const NTT_SCALE: Elem<Self>;

    /// What a right-hand side of a product carries so that every product with it is
    /// cheaper (ML-KEM: `b[2i+1] * gamma_i`; pointwise rings: nothing, `()`).
    type RhsCache: Clone + Send + Sync + 'static;
    /// The cache of the zero polynomial.
    const ZERO_RHS_CACHE: Self::RhsCache;
    /// Largest value one unreduced NTT-domain product adds to one accumulator entry, for
    /// canonical operands.
    const PRODUCT_TERM_MAX: u128;

    /// How many products one accumulator entry ([`Self::WideCoeffs`]) takes before it could
    /// leave the wide type or the domain of [`Field::reduce_wide`].
    const MAX_TERMS: usize = {
        let limit = if Self::Field::WIDE_MAX < Self::Field::REDUCE_WIDE_INPUT_MAX {
            Self::Field::WIDE_MAX
        } else {
            Self::Field::REDUCE_WIDE_INPUT_MAX
        };
        let terms = limit / Self::PRODUCT_TERM_MAX;
        if terms > usize::MAX as u128 {
            usize::MAX
        } else {
            terms as usize
        }
    };

    /// The compile-time checks of the description; generic code evaluates it (`let () =
    /// R::CHECKS;`) so that a broken ring fails to compile where it is used.
    const CHECKS: () = {
        let q = Self::Field::MODULUS;
        assert!(Self::N.is_power_of_two(), "n must be a power of two");
        assert!(
            Self::NTT_LAYERS >= 1 && (1usize << Self::NTT_LAYERS) <= Self::N,
            "1 <= NTT layers <= log2(n)"
        );
        assert!(
            Self::N / (1usize << Self::NTT_LAYERS) <= 2,
            "base cases of degree at most 2"
        );
        assert!(
            Self::ZETAS.len() == 1 << Self::NTT_LAYERS,
            "one twiddle per NTT block"
        );
        assert!(
            is_primitive_root_of_unity(Self::ZETA, 2 << Self::NTT_LAYERS, q),
            "ZETA must be a primitive 2^(layers+1)-th root of unity mod q"
        );
        assert!(
            (q as u128 - 1) * (q as u128 - 1) <= Self::PRODUCT_TERM_MAX,
            "a product term is at least (q-1)^2"
        );
        assert!(Self::MAX_TERMS >= 1, "one product must fit the accumulator");
        assert!(
            (1u128 << (8 * core::mem::size_of::<Elem<Self>>())) - 1
                <= Self::Field::REDUCE_WIDE_INPUT_MAX,
            "reduce_wide must accept every element-type value (the public NTT reduces its input)"
        );
    };

    /// The cache of a right-hand side `b` (portable), for canonical `b`. Called by this
    /// crate only (see [`KernelCall`]).
    fn rhs_cache(call: KernelCall, b: &Self::Coeffs, out: &mut Self::RhsCache);

    /// Adds the unreduced NTT-domain product of `a` and `b` (with `b`'s cache) to `acc`
    /// (portable; every entry grows by at most [`Self::PRODUCT_TERM_MAX`]), for canonical
    /// `a`, `b` and cache. Called by this crate only (see [`KernelCall`]), within
    /// [`Self::MAX_TERMS`] products per accumulator.
    fn accumulate(
        call: KernelCall,
        acc: &mut Self::WideCoeffs,
        a: &Self::Coeffs,
        b: &Self::Coeffs,
        b_cache: &Self::RhsCache,
    );

    /// Erases a cache (a right-hand side may be secret).
    fn zeroize_rhs_cache(cache: &mut Self::RhsCache);
}

/// Zeroizes a coefficient array with one bulk fill and an optimization barrier (the array
/// impl of `zeroize` would issue `n` separate volatile stores).
pub(crate) fn zeroize_array<T: DefaultIsZeroes>(a: &mut impl AsMut<[T]>) {
    a.as_mut().zeroize();
}

/// Every coefficient taken mod q (the field's wide reduction of the widened value, exact for
/// every element-type value: [`Ring::CHECKS`]), so that the public NTTs accept any array.
#[inline]
pub(crate) fn canonicalize<R: Ring>(f: &mut R::Coeffs) {
    let () = R::CHECKS;
    for c in f.as_mut() {
        *c = R::Field::reduce_wide(R::Field::widen(*c));
    }
}

/// The forward NTT of any ring, in place (FIPS 203 Alg. 9, FIPS 204 Alg. 41, with
/// `len` stopping at `n / 2^layers`). Canonical input and output.
#[inline]
pub(crate) fn ntt<R: Ring>(f: &mut R::Coeffs) {
    let () = R::CHECKS;
    let f = f.as_mut();
    let stop = R::N >> R::NTT_LAYERS;
    let mut zetas = R::ZETAS[1..].iter();
    let mut len = R::N / 2;
    while len >= stop {
        for block in f.chunks_exact_mut(2 * len) {
            let zeta = *zetas.next().expect("2^layers - 1 twiddles");
            let (lo, hi) = block.split_at_mut(len);
            for (a, b) in lo.iter_mut().zip(hi) {
                let t = R::Field::mul(zeta, *b);
                *b = R::Field::sub(*a, t);
                *a = R::Field::add(*a, t);
            }
        }
        len /= 2;
    }
}

/// The inverse NTT of any ring, in place, including the scaling by `2^-layers`
/// (FIPS 203 Alg. 10, FIPS 204 Alg. 42). Canonical input and output.
#[inline]
pub(crate) fn inverse_ntt<R: Ring>(f: &mut R::Coeffs) {
    let () = R::CHECKS;
    let f = f.as_mut();
    let mut zetas = R::ZETAS[1..].iter().rev();
    let mut len = R::N >> R::NTT_LAYERS;
    while len < R::N {
        for block in f.chunks_exact_mut(2 * len) {
            let zeta = *zetas.next().expect("2^layers - 1 twiddles");
            let (lo, hi) = block.split_at_mut(len);
            for (a, b) in lo.iter_mut().zip(hi) {
                // FIPS 204 writes -zeta * (a - b); that is zeta * (b - a), FIPS 203's form.
                let t = *a;
                *a = R::Field::add(t, *b);
                *b = R::Field::mul(zeta, R::Field::sub(*b, t));
            }
        }
        len *= 2;
    }
    for c in f.iter_mut() {
        *c = R::Field::mul(*c, R::NTT_SCALE);
    }
}

/// Reduces every accumulator entry once (the portable reduction of every ring).
#[inline]
pub(crate) fn reduce_accumulator<R: Ring>(acc: &R::WideCoeffs, out: &mut R::Coeffs) {
    for (o, &a) in out.as_mut().iter_mut().zip(acc.as_ref()) {
        *o = R::Field::reduce_wide(a);
    }
}

/// `a[i] = a[i] + b[i] mod q` (portable), for canonical `a`, `b`.
#[inline]
pub(crate) fn add<R: Ring>(a: &mut R::Coeffs, b: &R::Coeffs) {
    for (x, &y) in a.as_mut().iter_mut().zip(b.as_ref()) {
        *x = R::Field::add(*x, y);
    }
}

/// `a[i] = a[i] - b[i] mod q` (portable), for canonical `a`, `b`.
#[inline]
pub(crate) fn sub<R: Ring>(a: &mut R::Coeffs, b: &R::Coeffs) {
    for (x, &y) in a.as_mut().iter_mut().zip(b.as_ref()) {
        *x = R::Field::sub(*x, y);
    }
}

/// The pointwise product of a complete NTT (base rings of degree 1): `acc[i] += a[i] * b[i]`,
/// for rings whose [`Ring::accumulate`] is this (ML-DSA's). Each entry grows by at most
/// `(q-1)^2` for canonical `a`, `b` (reached only through a [`KernelCall`]).
#[inline]
pub fn accumulate_pointwise<R: Ring>(
    _: KernelCall,
    acc: &mut R::WideCoeffs,
    a: &R::Coeffs,
    b: &R::Coeffs,
) {
    for ((s, &x), &y) in acc.as_mut().iter_mut().zip(a.as_ref()).zip(b.as_ref()) {
        *s = R::Field::add_wide(*s, R::Field::mul_wide(x, y));
    }
}

/// `ZETA^BitRev(i)` for `i < 2^layers`, as `u64`s, for ring descriptions that build their
/// twiddle table at compile time (then narrow it to the element type).
///
/// `LEN` must be a power of two (checked at compile time); a zero `q` gives zeros
/// ([`pow_mod`]).
#[must_use]
pub const fn bit_reversed_powers<const LEN: usize>(zeta: u64, q: u64) -> [u64; LEN] {
    const { assert!(LEN.is_power_of_two(), "the table length is a power of two") };
    let bits = LEN.trailing_zeros();
    let mut table = [0u64; LEN];
    let mut i = 0;
    while i < LEN {
        let rev = if bits == 0 {
            0
        } else {
            (i as u64).reverse_bits() >> (64 - bits)
        };
        table[i] = pow_mod(zeta, rev, q);
        i += 1;
    }
    table
}
