//! GF(3329), the prime field of ML-KEM (FIPS 203) and Kyber.
//!
//! ```
//! use lattice_field::gf3329::{add, barrett_reduce, mul, Q};
//!
//! let a = 3000u16;
//! let b = 1000u16;
//! assert_eq!(add(a, b), (3000 + 1000) % Q);
//! assert_eq!(mul(a, b), ((3000u32 * 1000) % 3329) as u16);
//! // The lazy accumulators of `lattice-poly-ntt` end with one Barrett reduction of a u32:
//! assert_eq!(barrett_reduce(u32::MAX), (u32::MAX % 3329) as u16);
//! ```
//!
//! Elements are plain `u16` values, canonical in `[0, q)`; wide values (unreduced sums of
//! products) are `u32`. The functions are `const fn`, so twiddle tables are built at
//! compile time; [`Gf3329`](crate::Gf3329) is the same arithmetic behind the
//! [`Field`](crate::Field) trait.

/// The ML-KEM modulus q = 3329 = 13 * 2^8 + 1.
pub const Q: u16 = 3329;

/// `Q` as a `u32`, for accumulator arithmetic.
pub const Q32: u32 = Q as u32;

/// Largest input accepted by [`reduce_once`]: `2q - 1`.
pub const REDUCE_ONCE_INPUT_MAX: u16 = 2 * Q - 1;

/// Largest input accepted by [`barrett_reduce`]: the whole `u32` range.
pub const BARRETT_INPUT_MAX: u32 = u32::MAX;

/// Shift of the Barrett quotient estimate in [`barrett_reduce`].
pub const BARRETT_SHIFT: u32 = 43;

/// Barrett multiplier `floor(2^43 / q)`.
///
/// With this choice the quotient estimate `floor(x * m / 2^43)` is never above
/// `floor(x / q)` and never more than one below it for any `x < 2^32`: the truncation error
/// is `x * (2^43 - m*q) / (q * 2^43) < 2^32 * 1217 / (3329 * 2^43) < 1`. So the remainder
/// `x - t*q` lies in `[0, 2q)` and one conditional subtraction finishes the job.
pub const BARRETT_MULTIPLIER: u64 = (1u64 << BARRETT_SHIFT) / Q as u64;

// m < 2^32, so x * m < 2^64 for every u32 x: the u64 product cannot overflow.
const _: () = assert!(BARRETT_MULTIPLIER < 1 << 32);
// The truncation error argument above: 2^32 * (2^43 - m q) < q * 2^43.
const _: () = assert!(
    (1u128 << 32) * ((1u128 << BARRETT_SHIFT) - BARRETT_MULTIPLIER as u128 * Q as u128)
        < (Q as u128) << BARRETT_SHIFT
);

/// Largest operand accepted by [`add`] and [`sub`]: `q - 1` (canonical inputs; [`mul`]
/// takes every `u16`).
pub const CANONICAL_MAX: u16 = Q - 1;

/// Smallest input accepted by [`from_signed`]: `-(q - 1)`.
pub const FROM_SIGNED_INPUT_MIN: i16 = -(Q as i16 - 1);

/// Largest input accepted by [`from_signed`]: `q - 1`.
pub const FROM_SIGNED_INPUT_MAX: i16 = Q as i16 - 1;

/// Subtracts q from `x` if `x >= q`, without branching.
///
/// Input domain: `x <= REDUCE_ONCE_INPUT_MAX` (that is, `x < 2q`). Output: `x mod q`, in `[0, q)`.
///
/// Total: every `u16` gives `x` or `x - q`, congruent to `x` mod q, with no panic; the
/// result is canonical exactly on the domain (from `2q` on it may not be).
#[inline(always)]
#[must_use]
pub const fn reduce_once(x: u16) -> u16 {
    // On the domain, x - q lies in [-q, q) and fits an i16 since 2q < 2^15; its sign bit
    // spread over the word is all ones exactly when x < q, in which case q is added back.
    // (Off the domain the wrapping operations give x or x - q, never a panic.)
    let d = x.wrapping_sub(Q);
    let mask = ((d as i16) >> 15) as u16;
    d.wrapping_add(Q & mask)
}

/// Reduces any `u32` to its canonical representative mod q.
///
/// Input domain: all of `u32` (`x <= BARRETT_INPUT_MAX`). Output: `x mod q`, in `[0, q)`.
/// One 32x32->64-bit multiplication by [`BARRETT_MULTIPLIER`], a shift, a 32-bit
/// multiply-subtract and [`reduce_once`].
#[inline(always)]
#[must_use]
pub const fn barrett_reduce(x: u32) -> u16 {
    let quotient = ((x as u64 * BARRETT_MULTIPLIER) >> BARRETT_SHIFT) as u32;
    // quotient is floor(x/q) or one less (see BARRETT_MULTIPLIER), so the remainder
    // is in [0, 2q) and fits a u16.
    let remainder = x - quotient * Q32;
    reduce_once(remainder as u16)
}

/// `a + b mod q` for canonical `a`, `b` (both `<= CANONICAL_MAX`). Output in `[0, q)`.
///
/// Total: other operands go through the same formula in wrapping 16-bit arithmetic (no
/// panic, the same value on every target), whose result need not be `a + b mod q`.
#[inline(always)]
#[must_use]
pub const fn add(a: u16, b: u16) -> u16 {
    // Canonical operands: a + b <= 2q - 2, inside reduce_once's domain, no wrap.
    reduce_once(a.wrapping_add(b))
}

/// `a - b mod q` for canonical `a`, `b` (both `<= CANONICAL_MAX`). Output in `[0, q)`.
///
/// Total in the same way as [`add`].
#[inline(always)]
#[must_use]
pub const fn sub(a: u16, b: u16) -> u16 {
    // Canonical operands: a + q - b lies in [1, 2q - 1], inside reduce_once's domain.
    reduce_once(a.wrapping_add(Q).wrapping_sub(b))
}

/// `a * b mod q` for any `a`, `b` (canonical or not). Output in `[0, q)`.
///
/// The product is below `(2^16 - 1)^2 < 2^32` (below `q^2 < 2^24` for canonical operands),
/// inside [`barrett_reduce`]'s domain, all of `u32`.
#[inline(always)]
#[must_use]
pub const fn mul(a: u16, b: u16) -> u16 {
    barrett_reduce(a as u32 * b as u32)
}

/// Maps a small signed value to its canonical representative mod q.
///
/// Input domain: `FROM_SIGNED_INPUT_MIN <= x <= FROM_SIGNED_INPUT_MAX` (that is, `|x| < q`).
/// Output: `x mod q`, in `[0, q)`. Used for the centered binomial noise of
/// FIPS 203 Alg. 8, whose values lie in `[-eta, eta]`.
///
/// Total: other values go through the same formula in wrapping 16-bit arithmetic (no
/// panic, the same value on every target), whose result need not be `x mod q`.
#[inline(always)]
#[must_use]
pub const fn from_signed(x: i16) -> u16 {
    // On the domain x + q lies in [1, 2q - 1]: no wrap, inside reduce_once's domain.
    reduce_once(x.wrapping_add(Q as i16) as u16)
}

/// 1 if `x >= q`, 0 otherwise, for any `u16`, without branching (the check applied to
/// untrusted coefficients, FIPS 203 §7.2).
#[inline(always)]
#[must_use]
pub const fn not_canonical(x: u16) -> u8 {
    // (q - 1 - x) wraps to a value with the top bit set iff x >= q, for x < 2^15; the top
    // bit of x itself covers the rest.
    (((Q - 1).wrapping_sub(x & 0x7fff) | (x & 0x8000)) >> 15) as u8
}

/// `x^e mod q` by square-and-multiply, for building constant tables at compile time.
///
/// Branches on the (public) exponent only.
#[must_use]
pub const fn pow(x: u16, mut e: u32) -> u16 {
    let mut base = barrett_reduce(x as u32);
    let mut acc = 1u16;
    while e > 0 {
        if e & 1 == 1 {
            acc = mul(acc, base);
        }
        base = mul(base, base);
        e >>= 1;
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive(x: u64) -> u16 {
        (x % u64::from(Q)) as u16
    }

    #[test]
    fn reduce_once_whole_domain() {
        for x in 0..=REDUCE_ONCE_INPUT_MAX {
            assert_eq!(reduce_once(x), naive(x.into()), "x = {x}");
        }
    }

    #[test]
    fn barrett_domain_edges() {
        let edges = [
            0u32,
            1,
            Q32 - 1,
            Q32,
            Q32 + 1,
            2 * Q32 - 1,
            Q32 * Q32,
            8 * (Q32 - 1) * (Q32 - 1),
            u32::MAX / Q32 * Q32,
            u32::MAX / Q32 * Q32 - 1,
            u32::MAX - 1,
            u32::MAX,
        ];
        for x in edges {
            assert_eq!(barrett_reduce(x), naive(x.into()), "x = {x}");
        }
    }

    #[test]
    fn signed_whole_domain() {
        for x in FROM_SIGNED_INPUT_MIN..=FROM_SIGNED_INPUT_MAX {
            let expected = (i32::from(x)).rem_euclid(i32::from(Q)) as u16;
            assert_eq!(from_signed(x), expected, "x = {x}");
        }
    }

    #[test]
    fn zeta_is_primitive_256th_root() {
        assert_eq!(pow(17, 128), Q - 1);
        assert_eq!(pow(17, 256), 1);
        assert_eq!(pow(3, 0), 1);
    }

    proptest! {
        #[test]
        fn barrett_random(x in any::<u32>()) {
            prop_assert_eq!(barrett_reduce(x), naive(x.into()));
        }

        #[test]
        fn ops_match_naive(a in 0..Q, b in 0..Q) {
            prop_assert_eq!(add(a, b), naive(u64::from(a) + u64::from(b)));
            prop_assert_eq!(sub(a, b), naive(u64::from(a) + u64::from(Q) - u64::from(b)));
            prop_assert_eq!(mul(a, b), naive(u64::from(a) * u64::from(b)));
        }
    }
}
