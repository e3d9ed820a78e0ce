//! Constant-time prime-field arithmetic for lattice cryptography, with every reduction's
//! input domain declared next to it.
//!
//! ```
//! use lattice_field::{Field, Gf3329, Gf8380417};
//!
//! // The same generic code runs in GF(3329) (ML-KEM) and GF(8380417) (ML-DSA).
//! fn square_plus_one<F: Field>(x: F::Elem) -> F::Elem {
//!     F::add(F::mul(x, x), F::ONE)
//! }
//! assert_eq!(square_plus_one::<Gf3329>(3000), ((3000 * 3000 + 1) % 3329) as u16);
//! assert_eq!(
//!     square_plus_one::<Gf8380417>(8380416),
//!     2, // (-1)^2 + 1
//! );
//! // A wide (unreduced) sum of products reduced once, the lazy accumulators' last step:
//! let sum = Gf8380417::mul_wide(8380416, 8380416) * 7;
//! assert!(u128::from(sum) <= Gf8380417::REDUCE_WIDE_INPUT_MAX);
//! assert_eq!(Gf8380417::reduce_wide(sum), 7);
//! ```
//!
//! # What this crate owns
//! Element arithmetic only: the [`Field`] trait (element and wide types, the modulus, the
//! reductions with their declared input domains as associated constants), two instances,
//! [`Gf3329`] (ML-KEM, FIPS 203; also as `const fn`s in [`gf3329`]) and [`Gf8380417`]
//! (ML-DSA, FIPS 204; [`gf8380417`]), and compile-time helpers ([`pow_mod`],
//! [`is_primitive_root_of_unity`]) that ring descriptions use to build their twiddle tables
//! and to refuse parameters that cannot work. It knows nothing of polynomials, hashing or
//! any scheme.
//!
//! # Representation and bounds
//! Elements are plain unsigned integers (`u16` or `u32`). A value is *canonical* when it lies
//! in `[0, q)`; every function returns canonical values. Each reduction documents its exact
//! input domain, exported as an associated constant (`*_INPUT_MAX`), and `cargo xtask bounds`
//! checks each one over its declared domain against the naive `x % q` (exhaustively where the
//! domain has at most 2^32 values, otherwise at every boundary and on a large random sample).
//!
//! # Constant time
//! No function here branches on, indexes by, or divides a value: reductions are
//! multiply-and-shift with constants, and conditional subtraction uses an arithmetic mask.
//! [`pow_mod`] divides, but only at compile time, on public constants.
//!
//! # Adding a field
//! Implement [`Field`] for a zero-sized type: choose the element type (`2q` must fit with
//! its top bit clear) and a wide type that holds the sums your accumulators need, give the
//! reductions and their domains, and add `const` assertions for the arguments that make them
//! exact (see [`gf8380417`] for a Barrett reduction of every `u64`).
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

pub mod gf3329;
pub mod gf8380417;

use core::fmt::Debug;

/// A prime field GF(q) with canonical elements of type [`Self::Elem`] and unreduced
/// (lazy) values of type [`Self::Wide`].
///
/// The implementor is a zero-sized marker type; all methods are associated functions, so
/// generic code is monomorphized and inlined per field. Every method is constant time.
///
/// Every method is total: inputs outside a method's stated domain go through the same
/// formula in wrapping arithmetic, so they never panic (not even with overflow checks on)
/// and give the same value on every target, but that value need not be the residue the
/// method computes on its domain. [`Self::reduce_once`] off its domain still returns a
/// value congruent to its input.
pub trait Field: Copy + Default + Debug + Eq + Send + Sync + 'static {
    /// A field element, canonical in `[0, q)`.
    type Elem: Copy + Default + Eq + Ord + Debug + Into<u64> + Send + Sync + 'static;
    /// An unreduced value: a product of two elements or a sum of such products.
    type Wide: Copy + Default + Eq + Ord + Debug + Into<u128> + Send + Sync + 'static;

    /// The modulus q, as a `u64` for compile-time arithmetic.
    const MODULUS: u64;
    /// The modulus q.
    const Q: Self::Elem;
    /// The element 0.
    const ZERO: Self::Elem;
    /// The element 1.
    const ONE: Self::Elem;
    /// The wide zero, an empty accumulator entry.
    const WIDE_ZERO: Self::Wide;
    /// Largest canonical element, `q - 1`: the largest operand of [`Self::add`] and
    /// [`Self::sub`] ([`Self::mul`] and [`Self::mul_wide`] take any element-type value).
    const CANONICAL_MAX: Self::Elem;
    /// Largest input of [`Self::reduce_once`]: `2q - 1`.
    const REDUCE_ONCE_INPUT_MAX: u64;
    /// Largest input of [`Self::reduce_wide`] (as a `u128`, so that bounds compose in
    /// `const` assertions whatever the wide type).
    const REDUCE_WIDE_INPUT_MAX: u128;
    /// Largest value of the wide type.
    const WIDE_MAX: u128;
    /// Smallest input of [`Self::from_signed`].
    const FROM_SIGNED_INPUT_MIN: i32;
    /// Largest input of [`Self::from_signed`].
    const FROM_SIGNED_INPUT_MAX: i32;

    /// `x mod q` for `x <= REDUCE_ONCE_INPUT_MAX` (one conditional subtraction); `x` or
    /// `x - q` for larger `x`.
    fn reduce_once(x: Self::Elem) -> Self::Elem;
    /// `x mod q` for `x <= REDUCE_WIDE_INPUT_MAX`.
    fn reduce_wide(x: Self::Wide) -> Self::Elem;
    /// `a + b mod q` for canonical `a`, `b`.
    fn add(a: Self::Elem, b: Self::Elem) -> Self::Elem;
    /// `a - b mod q` for canonical `a`, `b`.
    fn sub(a: Self::Elem, b: Self::Elem) -> Self::Elem;
    /// `a * b mod q`, canonical, for any `a`, `b` of the element type (the product of two
    /// such values fits the wide type, inside the reduction's domain).
    fn mul(a: Self::Elem, b: Self::Elem) -> Self::Elem;
    /// The exact product `a * b`, unreduced, for any `a`, `b` of the element type (it fits
    /// the wide type); at most `(q-1)^2` for canonical `a`, `b`, the bound accumulators use.
    fn mul_wide(a: Self::Elem, b: Self::Elem) -> Self::Wide;
    /// `acc + x` without reduction. The caller bounds the sum (the accumulators of
    /// `lattice-poly-ntt` count their terms for it); past the wide type's maximum it wraps.
    fn add_wide(acc: Self::Wide, x: Self::Wide) -> Self::Wide;
    /// An element as a wide value.
    fn widen(a: Self::Elem) -> Self::Wide;
    /// The canonical representative of a small signed `x`,
    /// `FROM_SIGNED_INPUT_MIN <= x <= FROM_SIGNED_INPUT_MAX`.
    fn from_signed(x: i32) -> Self::Elem;
    /// 1 if `x >= q`, 0 otherwise, for any value of the element type, without branching
    /// (for checking untrusted coefficients in time independent of their values).
    fn not_canonical(x: Self::Elem) -> u8;
}

/// `x^e mod m` by square-and-multiply, for compile-time tables and checks.
///
/// Uses `%`: call it on public constants only (in practice in `const` items, where it runs
/// at compile time). Total: `m = 0` has no residues and gives 0 (as `m = 1` does), so a
/// ring description with a zero modulus fails its root-of-unity check instead of dividing
/// by zero.
#[must_use]
pub const fn pow_mod(x: u64, mut e: u64, m: u64) -> u64 {
    if m == 0 {
        return 0;
    }
    let m = m as u128;
    let mut base = x as u128 % m;
    let mut acc = 1 % m;
    while e > 0 {
        if e & 1 == 1 {
            acc = acc * base % m;
        }
        base = base * base % m;
        e >>= 1;
    }
    acc as u64
}

/// The inverse of `x` mod the prime `p` (Fermat), for compile-time constants; a multiple of
/// `p` has none and gives 0, and so does every `x` for `p < 2` (no field).
#[must_use]
pub const fn inverse_mod(x: u64, p: u64) -> u64 {
    if p < 2 || x.is_multiple_of(p) {
        return 0;
    }
    pow_mod(x, p - 2, p)
}

/// Whether `z` is a primitive `order`-th root of unity mod the prime `p`, for a power of
/// two `order >= 2`: `z^order = 1` and `z^(order/2) = -1`. Ring descriptions assert this at
/// compile time for their NTT's root.
#[must_use]
pub const fn is_primitive_root_of_unity(z: u64, order: u64, p: u64) -> bool {
    p >= 2
        && order >= 2
        && order.is_power_of_two()
        && pow_mod(z, order, p) == 1
        && pow_mod(z, order / 2, p) == p - 1
}

/// GF(3329), the field of ML-KEM (FIPS 203); the arithmetic of [`gf3329`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Gf3329;

impl Field for Gf3329 {
    type Elem = u16;
    type Wide = u32;
    const MODULUS: u64 = gf3329::Q as u64;
    const Q: u16 = gf3329::Q;
    const ZERO: u16 = 0;
    const ONE: u16 = 1;
    const WIDE_ZERO: u32 = 0;
    const CANONICAL_MAX: u16 = gf3329::CANONICAL_MAX;
    const REDUCE_ONCE_INPUT_MAX: u64 = gf3329::REDUCE_ONCE_INPUT_MAX as u64;
    const REDUCE_WIDE_INPUT_MAX: u128 = gf3329::BARRETT_INPUT_MAX as u128;
    const WIDE_MAX: u128 = u32::MAX as u128;
    const FROM_SIGNED_INPUT_MIN: i32 = gf3329::FROM_SIGNED_INPUT_MIN as i32;
    const FROM_SIGNED_INPUT_MAX: i32 = gf3329::FROM_SIGNED_INPUT_MAX as i32;

    #[inline(always)]
    fn reduce_once(x: u16) -> u16 {
        gf3329::reduce_once(x)
    }
    #[inline(always)]
    fn reduce_wide(x: u32) -> u16 {
        gf3329::barrett_reduce(x)
    }
    #[inline(always)]
    fn add(a: u16, b: u16) -> u16 {
        gf3329::add(a, b)
    }
    #[inline(always)]
    fn sub(a: u16, b: u16) -> u16 {
        gf3329::sub(a, b)
    }
    #[inline(always)]
    fn mul(a: u16, b: u16) -> u16 {
        gf3329::mul(a, b)
    }
    #[inline(always)]
    fn mul_wide(a: u16, b: u16) -> u32 {
        // (2^16 - 1)^2 < 2^32: exact for every pair of u16.
        a as u32 * b as u32
    }
    #[inline(always)]
    fn add_wide(acc: u32, x: u32) -> u32 {
        acc.wrapping_add(x)
    }
    #[inline(always)]
    fn widen(a: u16) -> u32 {
        a as u32
    }
    #[inline(always)]
    fn from_signed(x: i32) -> u16 {
        // Off the domain the truncation is one more wrapping step (see the trait's docs).
        gf3329::from_signed(x as i16)
    }
    #[inline(always)]
    fn not_canonical(x: u16) -> u8 {
        gf3329::not_canonical(x)
    }
}

/// GF(8380417), the field of ML-DSA (FIPS 204); the arithmetic of [`gf8380417`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Gf8380417;

impl Field for Gf8380417 {
    type Elem = u32;
    type Wide = u64;
    const MODULUS: u64 = gf8380417::Q as u64;
    const Q: u32 = gf8380417::Q;
    const ZERO: u32 = 0;
    const ONE: u32 = 1;
    const WIDE_ZERO: u64 = 0;
    const CANONICAL_MAX: u32 = gf8380417::CANONICAL_MAX;
    const REDUCE_ONCE_INPUT_MAX: u64 = gf8380417::REDUCE_ONCE_INPUT_MAX as u64;
    const REDUCE_WIDE_INPUT_MAX: u128 = gf8380417::BARRETT_INPUT_MAX as u128;
    const WIDE_MAX: u128 = u64::MAX as u128;
    const FROM_SIGNED_INPUT_MIN: i32 = gf8380417::FROM_SIGNED_INPUT_MIN;
    const FROM_SIGNED_INPUT_MAX: i32 = gf8380417::FROM_SIGNED_INPUT_MAX;

    #[inline(always)]
    fn reduce_once(x: u32) -> u32 {
        gf8380417::reduce_once(x)
    }
    #[inline(always)]
    fn reduce_wide(x: u64) -> u32 {
        gf8380417::barrett_reduce(x)
    }
    #[inline(always)]
    fn add(a: u32, b: u32) -> u32 {
        gf8380417::add(a, b)
    }
    #[inline(always)]
    fn sub(a: u32, b: u32) -> u32 {
        gf8380417::sub(a, b)
    }
    #[inline(always)]
    fn mul(a: u32, b: u32) -> u32 {
        gf8380417::mul(a, b)
    }
    #[inline(always)]
    fn mul_wide(a: u32, b: u32) -> u64 {
        // (2^32 - 1)^2 < 2^64: exact for every pair of u32.
        a as u64 * b as u64
    }
    #[inline(always)]
    fn add_wide(acc: u64, x: u64) -> u64 {
        acc.wrapping_add(x)
    }
    #[inline(always)]
    fn widen(a: u32) -> u64 {
        a as u64
    }
    #[inline(always)]
    fn from_signed(x: i32) -> u32 {
        gf8380417::from_signed(x)
    }
    #[inline(always)]
    fn not_canonical(x: u32) -> u8 {
        gf8380417::not_canonical(x)
    }
}

// Both instances: 2q - 1 fits the element type with its top bit clear (reduce_once's sign
// trick), a product of canonical elements fits the wide type, and so does a product of any
// two element-type values (`mul` and `mul_wide` take every value).
const _: () = {
    assert!((u16::MAX as u128) * (u16::MAX as u128) <= Gf3329::WIDE_MAX);
    assert!(Gf3329::WIDE_MAX <= Gf3329::REDUCE_WIDE_INPUT_MAX);
    assert!((u32::MAX as u128) * (u32::MAX as u128) <= Gf8380417::WIDE_MAX);
    assert!(Gf8380417::WIDE_MAX <= Gf8380417::REDUCE_WIDE_INPUT_MAX);
    assert!(Gf3329::REDUCE_ONCE_INPUT_MAX < 1 << 15);
    assert!(Gf8380417::REDUCE_ONCE_INPUT_MAX < 1 << 31);
    assert!((Gf3329::MODULUS as u128 - 1) * (Gf3329::MODULUS as u128 - 1) <= Gf3329::WIDE_MAX);
    assert!(
        (Gf8380417::MODULUS as u128 - 1) * (Gf8380417::MODULUS as u128 - 1) <= Gf8380417::WIDE_MAX
    );
};

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive<F: Field>(x: u128) -> u64 {
        (x % u128::from(F::MODULUS)) as u64
    }

    fn check_ops<F: Field>(a: F::Elem, b: F::Elem) {
        let (x, y) = (u128::from(a.into()), u128::from(b.into()));
        let q = u128::from(F::MODULUS);
        assert_eq!(F::add(a, b).into(), naive::<F>(x + y));
        assert_eq!(F::sub(a, b).into(), naive::<F>(x + q - y));
        assert_eq!(F::mul(a, b).into(), naive::<F>(x * y));
        assert_eq!(F::mul_wide(a, b).into(), x * y);
        assert_eq!(F::reduce_wide(F::mul_wide(a, b)).into(), naive::<F>(x * y));
    }

    #[test]
    fn compile_time_helpers() {
        assert_eq!(pow_mod(17, 128, 3329), 3328);
        assert!(is_primitive_root_of_unity(17, 256, 3329));
        assert!(!is_primitive_root_of_unity(17, 512, 3329));
        assert!(!is_primitive_root_of_unity(17 * 17, 256, 3329));
        assert!(is_primitive_root_of_unity(1753, 512, 8380417));
        assert!(!is_primitive_root_of_unity(1753, 256, 8380417));
        assert_eq!(inverse_mod(128, 3329), 3303);
        assert_eq!(inverse_mod(256, 8380417), 8347681);
    }

    #[test]
    fn edges() {
        for f in [0u16, 1, 3327, 3328] {
            for g in [0u16, 1, 3327, 3328] {
                check_ops::<Gf3329>(f, g);
            }
        }
        for f in [0u32, 1, 8380415, 8380416] {
            for g in [0u32, 1, 8380415, 8380416] {
                check_ops::<Gf8380417>(f, g);
            }
        }
        assert_eq!(Gf8380417::from_signed(-4), 8380413);
        assert_eq!(Gf3329::from_signed(-3), 3326);
        assert_eq!(Gf3329::not_canonical(3329), 1);
        assert_eq!(Gf3329::not_canonical(u16::MAX), 1);
        assert_eq!(Gf3329::not_canonical(3328), 0);
        assert_eq!(Gf8380417::not_canonical(8380417), 1);
        assert_eq!(Gf8380417::not_canonical(u32::MAX), 1);
        assert_eq!(Gf8380417::not_canonical(0), 0);
    }

    proptest! {
        #[test]
        fn gf3329_ops(a in 0..3329u16, b in 0..3329u16) {
            check_ops::<Gf3329>(a, b);
        }

        #[test]
        fn gf8380417_ops(a in 0..8380417u32, b in 0..8380417u32) {
            check_ops::<Gf8380417>(a, b);
        }

        #[test]
        fn gf8380417_wide(x in any::<u64>()) {
            prop_assert_eq!(u64::from(Gf8380417::reduce_wide(x)), naive::<Gf8380417>(x.into()));
        }
    }
}
