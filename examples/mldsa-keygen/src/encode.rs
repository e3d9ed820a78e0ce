//! Power2Round and the key encodings of ML-DSA (FIPS 204, §7.1, §7.2, §7.4).
//!
//! # Coefficient representation
//! Polynomials are `[u32; 256]` arrays of *canonical* values in `[0, q)`. A signed coefficient
//! x < 0 (s1, s2 and t0 have them) is stored as `q + x`, so a coefficient of s1 with
//! eta = 2 is one of `0, 1, 2, q - 2, q - 1`.
//!
//! # Bit order
//! All packing is little-endian at both levels, as FIPS 204 specifies with IntegerToBits
//! (FIPS 204 Alg. 9, least significant bit first) followed by BitsToBytes (FIPS 204 Alg. 12,
//! bit i of the stream is bit i mod 8 of byte i / 8): coefficient 0 occupies the lowest bits
//! of byte 0.
//!
//! # Constant time
//! Nothing here branches on, or indexes memory by, a coefficient value: [`power2round`] is
//! masks and shifts, the signed-to-unsigned map of [`bit_pack`] is a masked conditional
//! subtraction, and the packer's loop structure depends only on the (public) bit width. The
//! only local that holds secret bits is the packer's 64-bit accumulator, which is fully shifted
//! out (zero) when packing finishes, so there is no secret temporary to wipe.

use crate::error::LengthError;
use crate::params::{
    D, N, ParameterSet, Q, SEED_BYTES, T0_POLY_BYTES, T1_BITS, T1_POLY_BYTES, TR_BYTES, bitlen,
};

/// 2^(d-1) = 4096: t0 lies in (-2^(d-1), 2^(d-1)].
const T0_HALF: u32 = 1 << (D - 1);

/// Offset of the packed s1 in sk: rho || K || tr (FIPS 204 Alg. 24).
const SK_S1_OFFSET: usize = 2 * SEED_BYTES + TR_BYTES;

/// `x - q` if `x >= q`, else `x`, for `x < 2q`; branch-free.
#[inline(always)]
pub(crate) const fn reduce_once(x: u32) -> u32 {
    let y = x.wrapping_sub(Q);
    // q < 2^31 and x < 2q, so the top bit of y is set exactly when x < q.
    let keep = 0u32.wrapping_sub(y >> 31);
    y.wrapping_add(keep & Q)
}

/// Power2Round (FIPS 204 Alg. 35): splits r into (r1, r0) with r = r1 * 2^d + r0 and
/// r0 = r mod± 2^d, i.e. r0 in (-2^12, 2^12].
///
/// `r` must be canonical (`r < q`); then r1 lies in `[0, 1023]`. The second component is r0 in
/// this crate's canonical form: r0 itself when r0 >= 0, `q + r0` when r0 < 0.
///
/// Constant time: no branch or table lookup depends on `r`.
#[must_use]
#[inline]
pub const fn power2round(r: u32) -> (u32, u32) {
    // low = r mod 2^d, in [0, 2^d).
    let low = r & ((1 << D) - 1);
    // wrap = 1 exactly when low > 2^(d-1): then r0 = low - 2^d < 0 and r1 absorbs one 2^d.
    let wrap = T0_HALF.wrapping_sub(low) >> 31;
    let r1 = (r >> D) + wrap;
    // r0 < 0 is stored as q + r0 = low + (q - 2^d).
    let r0 = low + (0u32.wrapping_sub(wrap) & (Q - (1 << D)));
    (r1, r0)
}

/// [`power2round`] on every coefficient of `t`: t1 gets the high parts, t0 the low parts
/// (FIPS 204 Alg. 6 l. 5).
///
/// Coefficients of `t` must be canonical. Constant time.
pub fn power2round_poly(t: &[u32; N], t1: &mut [u32; N], t0: &mut [u32; N]) {
    for ((r, hi), lo) in t.iter().zip(t1.iter_mut()).zip(t0.iter_mut()) {
        (*hi, *lo) = power2round(*r);
    }
}

/// Writes the low `bits` bits of each value, least significant bit first, as one contiguous
/// little-endian bit stream into `out` (IntegerToBits then BitsToBytes, FIPS 204 Alg. 9
/// and FIPS 204 Alg. 12). Callers guarantee `out.len() == 32 * bits` and `bits <= 32`.
fn pack_bits(values: impl IntoIterator<Item = u32>, bits: usize, out: &mut [u8]) {
    debug_assert!(bits <= 32);
    debug_assert_eq!(out.len(), N * bits / 8);
    let mask = (1u64 << bits) - 1;
    let mut acc = 0u64;
    let mut pending = 0usize;
    let mut bytes = out.iter_mut();
    for v in values {
        acc |= (u64::from(v) & mask) << pending;
        pending += bits;
        // The loop trip count depends on `bits` only, never on the value.
        while pending >= 8 {
            if let Some(byte) = bytes.next() {
                *byte = acc as u8;
            }
            acc >>= 8;
            pending -= 8;
        }
    }
}

/// SimpleBitPack (FIPS 204 Alg. 16): packs coefficients in `[0, b]` into bitlen(b) bits
/// each, so `out` must be exactly `32 * bitlen(b)` bytes.
///
/// Only the low bitlen(b) bits of each coefficient are used, so an out-of-range coefficient
/// corrupts only its own field.
///
/// # Errors
/// [`LengthError`] (and nothing is written) if `out` is not `32 * bitlen(b)` bytes.
pub fn simple_bit_pack(w: &[u32; N], b: u32, out: &mut [u8]) -> Result<(), LengthError> {
    let bits = bitlen(b);
    LengthError::check("out", 32 * bits, out.len())?;
    pack_bits(w.iter().copied(), bits, out);
    Ok(())
}

/// BitPack (FIPS 204 Alg. 17): packs coefficients in `[-a, b]` as `b - w_i`, a value in
/// `[0, a + b]`, into bitlen(a + b) bits each, so `out` must be exactly `32 * bitlen(a + b)`
/// bytes.
///
/// Coefficients are canonical mod q (a negative x is `q + x`); `b - w_i` is computed mod q as
/// `(b + q - w_i) mod q` with a branch-free conditional subtraction. Meaningful for
/// `a + b < q` (every use in FIPS 204); other inputs give unspecified bytes but never panic.
///
/// # Errors
/// [`LengthError`] (and nothing is written) if `out` is not `32 * bitlen(a + b)` bytes.
pub fn bit_pack(w: &[u32; N], a: u32, b: u32, out: &mut [u8]) -> Result<(), LengthError> {
    let bits = bitlen(a.saturating_add(b));
    LengthError::check("out", 32 * bits, out.len())?;
    pack_signed(w, b, bits, out);
    Ok(())
}

/// The packing step of [`bit_pack`], lengths already checked.
fn pack_signed(w: &[u32; N], b: u32, bits: usize, out: &mut [u8]) {
    pack_bits(
        w.iter()
            .map(|&wi| reduce_once(b.wrapping_add(Q).wrapping_sub(wi))),
        bits,
        out,
    );
}

/// pkEncode (FIPS 204 Alg. 22): `pk = rho || SimpleBitPack(t1[0], 2^10 - 1) || ... ||
/// SimpleBitPack(t1[k-1], 2^10 - 1)`.
///
/// `t1` must hold exactly `P::K` polynomials with coefficients in `[0, 1023]`, and `pk` must be
/// exactly `P::PK_BYTES` bytes.
///
/// # Errors
/// [`LengthError`] (and nothing is written) if `t1` or `pk` has the wrong length.
pub fn pk_encode<P: ParameterSet>(
    rho: &[u8; SEED_BYTES],
    t1: &[[u32; N]],
    pk: &mut [u8],
) -> Result<(), LengthError> {
    LengthError::check("t1", P::K, t1.len())?;
    LengthError::check("pk", P::PK_BYTES, pk.len())?;
    let (head, body) = pk.split_at_mut(SEED_BYTES);
    head.copy_from_slice(rho);
    for (poly, out) in t1.iter().zip(body.chunks_exact_mut(T1_POLY_BYTES)) {
        pack_bits(poly.iter().copied(), T1_BITS, out);
    }
    Ok(())
}

/// skEncode (FIPS 204 Alg. 24): `sk = rho || K || tr || BitPack(s1[i], eta, eta) (i < l)
/// || BitPack(s2[i], eta, eta) (i < k) || BitPack(t0[i], 2^12 - 1, 2^12) (i < k)`.
///
/// `s1` must hold `P::L` polynomials, `s2` and `t0` `P::K` each, all coefficients canonical mod
/// q (s1, s2 in `[-eta, eta]`, t0 in `(-2^12, 2^12]`), and `sk` must be exactly `P::SK_BYTES`
/// bytes.
///
/// Constant time in the coefficient values (see the module documentation).
///
/// # Errors
/// [`LengthError`] (and nothing is written) if `s1`, `s2`, `t0` or `sk` has the wrong length.
pub fn sk_encode<P: ParameterSet>(
    rho: &[u8; SEED_BYTES],
    key: &[u8; SEED_BYTES],
    tr: &[u8; TR_BYTES],
    s1: &[[u32; N]],
    s2: &[[u32; N]],
    t0: &[[u32; N]],
    sk: &mut [u8],
) -> Result<(), LengthError> {
    LengthError::check("s1", P::L, s1.len())?;
    LengthError::check("s2", P::K, s2.len())?;
    LengthError::check("t0", P::K, t0.len())?;
    LengthError::check("sk", P::SK_BYTES, sk.len())?;

    let (seeds, rest) = sk.split_at_mut(SK_S1_OFFSET);
    let (rho_out, seeds) = seeds.split_at_mut(SEED_BYTES);
    let (key_out, tr_out) = seeds.split_at_mut(SEED_BYTES);
    rho_out.copy_from_slice(rho);
    key_out.copy_from_slice(key);
    tr_out.copy_from_slice(tr);

    let (s_out, t0_out) = rest.split_at_mut((P::L + P::K) * P::ETA_POLY_BYTES);
    for (poly, out) in s1
        .iter()
        .chain(s2.iter())
        .zip(s_out.chunks_exact_mut(P::ETA_POLY_BYTES))
    {
        pack_signed(poly, P::ETA, P::ETA_BITS, out);
    }
    for (poly, out) in t0.iter().zip(t0_out.chunks_exact_mut(T0_POLY_BYTES)) {
        pack_signed(poly, T0_HALF, D as usize, out);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::params::{MlDsa44, MlDsa65};

    /// Power2Round written as in FIPS 204 Alg. 35, with signed arithmetic and branches.
    fn power2round_spec(r: u32) -> (u32, i32) {
        let r_plus = (r % Q) as i32;
        let m = 1i32 << D;
        let mut r0 = r_plus.rem_euclid(m);
        if r0 > m / 2 {
            r0 -= m;
        }
        (((r_plus - r0) / m) as u32, r0)
    }

    fn canonical(x: i32) -> u32 {
        x.rem_euclid(Q as i32) as u32
    }

    fn check_power2round(r: u32) {
        let (r1, r0) = power2round(r);
        let (s1, s0) = power2round_spec(r);
        assert_eq!((r1, r0), (s1, canonical(s0)), "r = {r}");
        assert!(r1 < 1024, "r = {r}");
        assert!(-(T0_HALF as i32) < s0 && s0 <= T0_HALF as i32, "r = {r}");
        assert_eq!((r1 * (1 << D) + r0) % Q, r, "r = {r}");
    }

    #[test]
    fn power2round_boundaries() {
        let mut values = std::vec![0, 1, Q - 1, Q - 2, Q - T0_HALF, Q - T0_HALF - 1];
        // Around every multiple of 2^d and every midpoint, on both sides.
        for hi in 0..=(Q >> D) {
            for centre in [hi << D, (hi << D) + T0_HALF] {
                for delta in [-2i64, -1, 0, 1, 2] {
                    let r = i64::from(centre) + delta;
                    if (0..i64::from(Q)).contains(&r) {
                        values.push(r as u32);
                    }
                }
            }
        }
        for r in values {
            check_power2round(r);
        }
    }

    #[test]
    fn power2round_exhaustive_stride() {
        // Every 7th canonical value: about 1.2 million inputs, all residues mod 2^d covered.
        for r in (0..Q).step_by(7) {
            check_power2round(r);
        }
    }

    proptest::proptest! {
        #[test]
        fn power2round_matches_spec(r in 0..Q) {
            check_power2round(r);
        }

        #[test]
        fn power2round_poly_is_per_coefficient(seed in proptest::prelude::any::<u64>()) {
            let mut x = seed | 1;
            let t: [u32; N] = core::array::from_fn(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % u64::from(Q)) as u32
            });
            let (mut t1, mut t0) = ([0; N], [0; N]);
            power2round_poly(&t, &mut t1, &mut t0);
            for i in 0..N {
                proptest::prop_assert_eq!((t1[i], t0[i]), power2round(t[i]));
            }
        }
    }

    #[test]
    fn reduce_once_domain() {
        for x in [0, 1, Q - 1, Q, Q + 1, 2 * Q - 1] {
            assert_eq!(reduce_once(x), x % Q);
        }
    }

    #[test]
    fn pack_bits_layout_is_little_endian() {
        // Coefficient 0 = 0b101 (3 bits), coefficient 1 = 0b011: byte 0 = 0b00_011_101.
        let mut w = [0u32; N];
        w[0] = 0b101;
        w[1] = 0b011;
        w[2] = 0b111;
        let mut out = [0u8; 96];
        simple_bit_pack(&w, 7, &mut out).unwrap();
        // Bits 6..9 of the stream are coefficient 2: low two bits in byte 0, high bit in byte 1.
        assert_eq!(out[0], 0b11_011_101);
        assert_eq!(out[1], 0b0000_0001);
        assert!(out[2..].iter().all(|&b| b == 0));
    }

    #[test]
    fn bit_pack_maps_signed_values() {
        // BitPack(w, eta, eta) with eta = 2 stores 2 - w: w = 2 -> 0, w = -2 -> 4.
        let mut w = [0u32; N];
        w[0] = 2;
        w[1] = Q - 2;
        w[2] = Q - 1;
        let mut out = [0u8; 96];
        bit_pack(&w, 2, 2, &mut out).unwrap();
        // Fields: 0, 4, 3, then 2 (= 2 - 0) for every other coefficient.
        let field = |i: usize| {
            let bit = 3 * i;
            let word =
                u32::from(out[bit / 8]) | u32::from(*out.get(bit / 8 + 1).unwrap_or(&0)) << 8;
            (word >> (bit % 8)) & 7
        };
        assert_eq!(
            [field(0), field(1), field(2), field(3), field(255)],
            [0, 4, 3, 2, 2]
        );
    }

    #[test]
    fn wrong_lengths_are_errors_and_write_nothing() {
        let w = [0u32; N];
        let mut short = [0xAAu8; 95];
        assert_eq!(
            bit_pack(&w, 2, 2, &mut short),
            Err(LengthError {
                what: "out",
                expected: 96,
                actual: 95
            })
        );
        assert!(short.iter().all(|&b| b == 0xAA));
        assert!(simple_bit_pack(&w, 1023, &mut [0u8; 321]).is_err());

        let polys = [[0u32; N]; 6];
        let mut pk = std::vec![0xAAu8; MlDsa44::PK_BYTES];
        assert_eq!(
            pk_encode::<MlDsa44>(&[0; 32], &polys[..3], &mut pk),
            Err(LengthError {
                what: "t1",
                expected: 4,
                actual: 3
            })
        );
        assert_eq!(
            pk_encode::<MlDsa44>(&[0; 32], &polys[..4], &mut pk[..1311]),
            Err(LengthError {
                what: "pk",
                expected: 1312,
                actual: 1311
            })
        );
        assert!(pk.iter().all(|&b| b == 0xAA));

        let mut sk = std::vec![0xAAu8; MlDsa65::SK_BYTES];
        let seeds = ([0u8; 32], [0u8; 32], [0u8; 64]);
        let (rho, key, tr) = (&seeds.0, &seeds.1, &seeds.2);
        let l = &polys[..5];
        let k = &polys[..6];
        assert_eq!(
            sk_encode::<MlDsa65>(rho, key, tr, k, k, k, &mut sk)
                .unwrap_err()
                .what,
            "s1"
        );
        assert_eq!(
            sk_encode::<MlDsa65>(rho, key, tr, l, l, k, &mut sk)
                .unwrap_err()
                .what,
            "s2"
        );
        assert_eq!(
            sk_encode::<MlDsa65>(rho, key, tr, l, k, l, &mut sk)
                .unwrap_err()
                .what,
            "t0"
        );
        assert_eq!(
            sk_encode::<MlDsa65>(rho, key, tr, l, k, k, &mut sk[1..])
                .unwrap_err()
                .what,
            "sk"
        );
        assert!(sk.iter().all(|&b| b == 0xAA));
        assert_eq!(sk_encode::<MlDsa65>(rho, key, tr, l, k, k, &mut sk), Ok(()));
    }
}
