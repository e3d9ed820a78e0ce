//! GF(8380417), the prime field of ML-DSA (FIPS 204) and Dilithium:
//! q = 8380417 = 2^23 - 2^13 + 1.
//!
//! ```
//! use lattice_field::gf8380417::{barrett_reduce, mul, sub, Q};
//!
//! assert_eq!(mul(Q - 1, Q - 1), 1);
//! assert_eq!(sub(0, 1), Q - 1);
//! // Every u64 reduces, so 2^18 products of canonical elements can be summed unreduced:
//! assert_eq!(barrett_reduce(u64::MAX), (u64::MAX % 8380417) as u32);
//! ```
//!
//! Elements are `u32` values, canonical in `[0, q)`; wide values are `u64`.

/// The ML-DSA modulus q = 8380417 = 2^23 - 2^13 + 1.
pub const Q: u32 = 8380417;

/// Largest canonical element, `q - 1`: the largest operand of [`add`] and [`sub`] ([`mul`]
/// takes every `u32`).
pub const CANONICAL_MAX: u32 = Q - 1;

/// Largest input accepted by [`reduce_once`]: `2q - 1`.
pub const REDUCE_ONCE_INPUT_MAX: u32 = 2 * Q - 1;

/// Largest input accepted by [`barrett_reduce`]: the whole `u64` range.
pub const BARRETT_INPUT_MAX: u64 = u64::MAX;

/// Barrett multiplier `floor(2^64 / q)`, used with a shift of 64 (the high half of a
/// 64x64->128-bit product).
///
/// For every `x < 2^64` the quotient estimate `floor(x * m / 2^64)` is `floor(x / q)` or one
/// less: the error of `x * m / 2^64` against `x / q` is `x * (2^64 - m q) / (q 2^64)`, and
/// `2^64 - m q = 2^64 mod q < q`, so the error is below `x / 2^64 < 1`. The remainder
/// `x - t q` is then in `[0, 2q)` and one conditional subtraction finishes.
pub const BARRETT_MULTIPLIER: u64 = u64::MAX / Q as u64;

// m = floor(2^64 / q), written without 2^64 (which does not fit a u64).
const _: () = assert!(BARRETT_MULTIPLIER as u128 == (1u128 << 64) / Q as u128);
// The error argument: 0 <= 2^64 - m q < q.
const _: () = assert!((1u128 << 64) - (BARRETT_MULTIPLIER as u128) * (Q as u128) < Q as u128);
// 2q - 1 < 2^31, so reduce_once's sign trick works on an i32.
const _: () = assert!(REDUCE_ONCE_INPUT_MAX < 1 << 31);

/// Smallest input accepted by [`from_signed`]: `-(q - 1)`.
pub const FROM_SIGNED_INPUT_MIN: i32 = -(Q as i32 - 1);

/// Largest input accepted by [`from_signed`]: `q - 1`.
pub const FROM_SIGNED_INPUT_MAX: i32 = Q as i32 - 1;

/// Subtracts q from `x` if `x >= q`, without branching.
///
/// Input domain: `x <= REDUCE_ONCE_INPUT_MAX`. Output: `x mod q`, in `[0, q)`.
///
/// Total: every `u32` gives `x` or `x - q`, congruent to `x` mod q, with no panic; the
/// result is canonical exactly on the domain.
#[inline(always)]
#[must_use]
pub const fn reduce_once(x: u32) -> u32 {
    // On the domain x - q lies in [-q, q): its sign spread over the word is all ones
    // exactly when x < q. (Off the domain the wrapping operations give x or x - q.)
    let d = x.wrapping_sub(Q);
    let mask = ((d as i32) >> 31) as u32;
    d.wrapping_add(Q & mask)
}

/// Reduces any `u64` to its canonical representative mod q.
///
/// Input domain: all of `u64`. Output: `x mod q`, in `[0, q)`. One 64x64->128-bit
/// multiplication (its high half), a multiply-subtract and [`reduce_once`].
#[inline(always)]
#[must_use]
pub const fn barrett_reduce(x: u64) -> u32 {
    let quotient = ((x as u128 * BARRETT_MULTIPLIER as u128) >> 64) as u64;
    // quotient is floor(x/q) or one less (see BARRETT_MULTIPLIER): the remainder is in
    // [0, 2q) and fits a u32.
    let remainder = x - quotient * Q as u64;
    reduce_once(remainder as u32)
}

/// `a + b mod q` for canonical `a`, `b`. Output in `[0, q)`.
///
/// Total: other operands go through the same formula in wrapping 32-bit arithmetic (no
/// panic, the same value on every target), whose result need not be `a + b mod q`.
#[inline(always)]
#[must_use]
pub const fn add(a: u32, b: u32) -> u32 {
    // Canonical operands: a + b <= 2q - 2, no wrap.
    reduce_once(a.wrapping_add(b))
}

/// `a - b mod q` for canonical `a`, `b`. Output in `[0, q)`.
///
/// Total in the same way as [`add`].
#[inline(always)]
#[must_use]
pub const fn sub(a: u32, b: u32) -> u32 {
    // Canonical operands: a + q - b lies in [1, 2q - 1], no wrap.
    reduce_once(a.wrapping_add(Q).wrapping_sub(b))
}

/// `a * b mod q` for any `a`, `b` (canonical or not). Output in `[0, q)`.
///
/// The product is below `(2^32 - 1)^2 < 2^64`, inside [`barrett_reduce`]'s domain, all of
/// `u64`.
#[inline(always)]
#[must_use]
pub const fn mul(a: u32, b: u32) -> u32 {
    barrett_reduce(a as u64 * b as u64)
}

/// Maps a signed `x` with `|x| < q` to its canonical representative (ML-DSA's small
/// secrets, in `[-eta, eta]`).
///
/// Total: other values go through the same formula in wrapping 32-bit arithmetic (no
/// panic, the same value on every target), whose result need not be `x mod q`.
#[inline(always)]
#[must_use]
pub const fn from_signed(x: i32) -> u32 {
    // On the domain x + q lies in [1, 2q - 1]: no wrap.
    reduce_once(x.wrapping_add(Q as i32) as u32)
}

/// 1 if `x >= q`, 0 otherwise, for any `u32`, without branching.
#[inline(always)]
#[must_use]
pub const fn not_canonical(x: u32) -> u8 {
    (((Q - 1).wrapping_sub(x & 0x7fff_ffff) | (x & 0x8000_0000)) >> 31) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduce_once_whole_domain() {
        for x in 0..=REDUCE_ONCE_INPUT_MAX {
            assert_eq!(reduce_once(x), x % Q);
        }
    }

    #[test]
    fn barrett_edges() {
        let q = u64::from(Q);
        for k in [
            0u64,
            1,
            2,
            q - 1,
            q,
            1 << 32,
            u64::MAX / q - 1,
            u64::MAX / q,
        ] {
            for d in [0u64, 1, q - 1] {
                let x = (k * q).saturating_add(d);
                assert_eq!(u64::from(barrett_reduce(x)), x % q, "x = {x}");
            }
        }
        assert_eq!(u64::from(barrett_reduce(u64::MAX)), u64::MAX % q);
    }

    #[test]
    fn signed_edges() {
        for x in [
            FROM_SIGNED_INPUT_MIN,
            -4,
            -2,
            -1,
            0,
            1,
            4,
            FROM_SIGNED_INPUT_MAX,
        ] {
            assert_eq!(
                i64::from(from_signed(x)),
                i64::from(x).rem_euclid(i64::from(Q))
            );
        }
    }
}
