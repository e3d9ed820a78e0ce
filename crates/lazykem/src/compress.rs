//! Compress_d and Decompress_d (FIPS 203 §4.2.1, equations 4.7 and 4.8), without
//! division.
//!
//! `Compress_d(x) = round(2^d * x / q) mod 2^d` is computed as
//! `floor(((x << d) + floor(q / 2)) / q) mod 2^d`, with the division by q replaced by a
//! multiplication by [`COMPRESS_MULTIPLIER`] and a shift by [`COMPRESS_SHIFT`]. The
//! replacement is exact for every numerator that can occur (`x < q`, `d <= 11`), which the
//! unit tests and `cargo xtask bounds` check exhaustively for every d used by ML-KEM.
//! No secret value is ever divided (KyberSlash).
#![cfg_attr(not(feature = "bounds-probe"), allow(unreachable_pub))]

use lattice_field::gf3329::{Q, Q32};

/// Shift of the reciprocal multiplication in [`compress`].
pub const COMPRESS_SHIFT: u32 = 36;

/// `ceil(2^36 / q)`: `floor(y * COMPRESS_MULTIPLIER / 2^36) = floor(y / q)` for every
/// `y <= COMPRESS_NUMERATOR_MAX`.
pub const COMPRESS_MULTIPLIER: u64 = (1u64 << COMPRESS_SHIFT).div_ceil(Q as u64);

/// The largest compression width used by ML-KEM (d_u = 11 in ML-KEM-1024).
pub const COMPRESS_D_MAX: usize = 11;

/// Largest numerator `(x << d) + q/2` that [`compress`] divides by q: `x = q - 1`, `d = 11`.
pub const COMPRESS_NUMERATOR_MAX: u64 = ((Q as u64 - 1) << COMPRESS_D_MAX) + (Q as u64 / 2);

// Exactness of the reciprocal: with M = ceil(2^s/q) = (2^s + e)/q, 0 <= e < q,
// y*M/2^s = y/q + y*e/(q 2^s); the floor is unchanged when y*e < 2^s (the fractional part
// of y/q is at most (q-1)/q). Here y*e <= COMPRESS_NUMERATOR_MAX * (q - 1) < 2^36.
const _: () = assert!(
    COMPRESS_NUMERATOR_MAX * (COMPRESS_MULTIPLIER * Q as u64 - (1u64 << COMPRESS_SHIFT))
        < 1u64 << COMPRESS_SHIFT
);
// The product y * M stays far below 2^64.
const _: () = assert!(COMPRESS_NUMERATOR_MAX < u64::MAX / COMPRESS_MULTIPLIER);

/// `Compress_d(x mod q) = round(2^d * (x mod q) / q) mod 2^d` for `1 <= d <= 11`.
///
/// Total: an `x` that is not canonical is reduced first (FIPS 203 defines `Compress_d` on
/// `Z_q`), so every input has the answer of its residue. Rounds half up, as FIPS 203
/// specifies; constant time.
#[cfg(any(test, feature = "bounds-probe"))]
#[inline(always)]
#[must_use]
pub const fn compress<const D: usize>(x: u16) -> u16 {
    compress_canonical::<D>(lattice_field::gf3329::barrett_reduce(x as u32))
}

/// [`compress`] for a canonical `x < q` (the KEM's inputs are), without the reduction.
#[inline(always)]
#[must_use]
pub(crate) const fn compress_canonical<const D: usize>(x: u16) -> u16 {
    const { assert!(D >= 1 && D <= COMPRESS_D_MAX) };
    debug_assert!(x < Q);
    // round(2^d x / q) = floor((2^d x + floor(q/2)) / q) since q is odd.
    let numerator = ((x as u64) << D) + (Q as u64 / 2);
    let quotient = (numerator * COMPRESS_MULTIPLIER) >> COMPRESS_SHIFT;
    (quotient as u16) & ((1u16 << D) - 1)
}

/// `Decompress_d(y mod 2^d) = round(q * (y mod 2^d) / 2^d)` for `1 <= d <= 12`. Output in
/// `[0, q)` for every input.
///
/// Total: bits of `y` above the low `d` are ignored (FIPS 203 defines `Decompress_d` on
/// `Z_{2^d}`). The masked value passes through an optimization barrier: told that it is a
/// single bit, the compiler would turn `q * y` into a select, which it may compile to a
/// branch on `y`.
#[cfg(any(test, feature = "bounds-probe"))]
#[inline]
#[must_use]
pub fn decompress<const D: usize>(y: u16) -> u16 {
    const { assert!(D >= 1 && D <= 12) };
    decompress_reduced::<D>(core::hint::black_box(y & ((1u32 << D) - 1) as u16))
}

/// [`decompress`] for `y < 2^d` (the KEM's inputs are: they come from ByteDecode_d), without
/// the mask.
#[inline(always)]
#[must_use]
pub(crate) const fn decompress_reduced<const D: usize>(y: u16) -> u16 {
    const { assert!(D >= 1 && D <= 12) };
    debug_assert!((y as u32) < 1 << D);
    // (q y + 2^(d-1)) >> d: the rounding is half up, and q (2^d - 1) + 2^(d-1) < q 2^d keeps
    // the result below q.
    ((Q32 * y as u32 + (1 << (D - 1))) >> D) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// round(a / b) with ties rounded up, in exact integer arithmetic.
    fn round_div(a: u64, b: u64) -> u64 {
        (2 * a + b) / (2 * b)
    }

    fn check<const D: usize>() {
        let q = u64::from(Q);
        for x in 0..Q {
            let expected = round_div(u64::from(x) << D, q) % (1 << D);
            assert_eq!(u64::from(compress::<D>(x)), expected, "compress_{D}({x})");
        }
        for y in 0..1u16 << D {
            let expected = round_div(q * u64::from(y), 1 << D);
            assert_eq!(
                u64::from(decompress::<D>(y)),
                expected,
                "decompress_{D}({y})"
            );
            assert!(decompress::<D>(y) < Q);
        }
    }

    /// Every input, canonical or not, has the answer of its residue, and decompression is
    /// always below q.
    #[test]
    fn total_on_every_input() {
        fn check<const D: usize>() {
            for x in 0..=u16::MAX {
                assert_eq!(compress::<D>(x), compress::<D>(x % Q), "compress_{D}({x})");
                let y = decompress::<D>(x);
                assert!(y < Q, "decompress_{D}({x}) = {y}");
                assert_eq!(y, decompress::<D>(x & ((1 << D) - 1)));
            }
        }
        check::<1>();
        check::<4>();
        check::<5>();
        check::<10>();
        check::<11>();
    }

    #[test]
    fn exhaustive_against_rational_formula() {
        check::<1>();
        check::<4>();
        check::<5>();
        check::<10>();
        check::<11>();
    }

    #[test]
    fn decompress_12_is_identity_range() {
        for y in 0..Q {
            assert_eq!(
                decompress::<12>(y),
                ((u32::from(Q) * u32::from(y) + 2048) >> 12) as u16
            );
        }
    }
}
