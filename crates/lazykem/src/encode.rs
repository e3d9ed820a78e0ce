//! ByteEncode_d and ByteDecode_d (FIPS 203 Alg. 5 and FIPS 203 Alg. 6).
//!
//! Coefficients are packed little-endian, `d` bits each. Eight coefficients always fill
//! exactly `d` bytes, so both directions work on 8-coefficient chunks through a `u128`:
//! no branches, no indexing by values, one loop shape for every `d`.
//!
//! These are the portable reference implementations; inside an operation the KEM runs its
//! backend's encodings (AVX2 for the `d` that ML-KEM uses), which give identical results.

use lattice_poly_ntt::mlkem::N;

/// Number of bytes of one polynomial encoded with `d` bits per coefficient.
#[must_use]
pub(crate) const fn encoded_len(d: usize) -> usize {
    32 * d
}

/// ByteEncode_d (FIPS 203 Alg. 5): packs 256 values of `D` bits into `out`, `32 * D` bytes.
///
/// Total: only the low `D` bits of each value are encoded (ByteEncode_d takes its input in
/// `Z_{2^d}`; for `D = 12`, values of `Z_q` fit), and an `out` of any other length is an
/// error with nothing written.
///
/// `None` if `out.len() != 32 * D`. For the tests: the KEM calls the unchecked forms.
#[cfg(test)]
fn byte_encode<const D: usize>(coeffs: &[u16; N], out: &mut [u8]) -> Option<()> {
    const { assert!(D >= 1 && D <= 12) };
    (out.len() == encoded_len(D)).then_some(())?;
    let mask = ((1u32 << D) - 1) as u16;
    // The values may be secret (a caller encoding s-hat): the copy is erased.
    let mut masked: [u16; N] = core::array::from_fn(|i| coeffs[i] & mask);
    byte_encode_portable::<D>(&masked, out);
    zeroize::Zeroize::zeroize(masked.as_mut_slice());
    Some(())
}

/// The portable [`byte_encode`], also the reference the AVX2 code is tested against.
pub(crate) fn byte_encode_portable<const D: usize>(coeffs: &[u16; N], out: &mut [u8]) {
    const { assert!(D >= 1 && D <= 12) };
    debug_assert_eq!(out.len(), encoded_len(D));
    for (group, bytes) in coeffs.chunks_exact(8).zip(out.chunks_exact_mut(D)) {
        encode_group::<D>(group, bytes);
    }
}

/// ByteEncode_D of eight values below `2^D` into their `D` bytes.
#[inline(always)]
fn encode_group<const D: usize>(group: &[u16], bytes: &mut [u8]) {
    let mut acc = 0u128;
    for (i, &c) in group.iter().enumerate() {
        debug_assert!(u32::from(c) < 1 << D);
        acc |= u128::from(c) << (D * i);
    }
    bytes.copy_from_slice(&acc.to_le_bytes()[..D]);
}

/// [`byte_encode_portable`] for `D = 12` on the chunks `chunks` of 32 coefficients (48
/// bytes) only, writing no other byte of `out` (the whole polynomial's 384-byte encoding).
pub(crate) fn byte_encode_12_chunks_portable(
    coeffs: &[u16; N],
    out: &mut [u8],
    chunks: core::ops::Range<usize>,
) {
    let out = &mut out[..encoded_len(12)];
    let (start, end) = (chunks.start.min(N / 32), chunks.end.min(N / 32));
    if start >= end {
        return;
    }
    let groups = coeffs[32 * start..32 * end].chunks_exact(8);
    for (group, bytes) in groups.zip(out[48 * start..48 * end].chunks_exact_mut(12)) {
        encode_group::<12>(group, bytes);
    }
}

/// ByteDecode_d (FIPS 203 Alg. 6): unpacks `32 * D` bytes into 256 values of `D` bits.
///
/// For `D = 12` the values may be up to 4095, so callers check them against q (the
/// modulus check of FIPS 203 §7.2); for `D < 12` the values are then decompressed.
///
/// `None` if `bytes.len() != 32 * D`. For the tests: the KEM calls the unchecked forms.
#[cfg(test)]
fn byte_decode<const D: usize>(bytes: &[u8]) -> Option<[u16; N]> {
    const { assert!(D >= 1 && D <= 12) };
    (bytes.len() == encoded_len(D)).then_some(())?;
    Some(byte_decode_portable::<D>(bytes))
}

/// The portable [`byte_decode`], also the reference the AVX2 code is tested against.
#[must_use]
pub(crate) fn byte_decode_portable<const D: usize>(bytes: &[u8]) -> [u16; N] {
    const { assert!(D >= 1 && D <= 12) };
    debug_assert_eq!(bytes.len(), encoded_len(D));
    let mask = (1u128 << D) - 1;
    let mut out = [0u16; N];
    for (chunk, bytes) in out.chunks_exact_mut(8).zip(bytes.chunks_exact(D)) {
        let mut buf = [0u8; 16];
        buf[..D].copy_from_slice(bytes);
        let acc = u128::from_le_bytes(buf);
        for (i, c) in chunk.iter_mut().enumerate() {
            *c = ((acc >> (D * i)) & mask) as u16;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::{vec, vec::Vec};

    /// Bit-by-bit FIPS 203 Alg. 5 and FIPS 203 Alg. 6, straight from the pseudocode.
    fn encode_naive(d: usize, f: &[u16; N]) -> Vec<u8> {
        let mut bits = vec![0u8; 256 * d];
        for i in 0..N {
            let mut a = f[i];
            for j in 0..d {
                bits[i * d + j] = (a & 1) as u8;
                a >>= 1;
            }
        }
        bits.chunks(8)
            .map(|b| b.iter().enumerate().map(|(i, &x)| x << i).sum())
            .collect()
    }

    fn roundtrip<const D: usize>() {
        let mut state = 0x1234_5678_u32;
        for _ in 0..20 {
            let f: [u16; N] = core::array::from_fn(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                ((state >> 8) as u16) & ((1u32 << D) - 1) as u16
            });
            let mut out = vec![0u8; encoded_len(D)];
            byte_encode::<D>(&f, &mut out).expect("32 d bytes");
            assert_eq!(out, encode_naive(D, &f), "d = {D}");
            assert_eq!(byte_decode::<D>(&out).expect("32 d bytes"), f, "d = {D}");
        }
        let max = [((1u32 << D) - 1) as u16; N];
        let mut out = vec![0u8; encoded_len(D)];
        byte_encode::<D>(&max, &mut out).expect("32 d bytes");
        assert!(out.iter().all(|&b| b == 0xff));
        assert_eq!(byte_decode::<D>(&out).expect("32 d bytes"), max);
    }

    /// Bit-by-bit FIPS 203 Alg. 6, straight from the pseudocode.
    fn decode_naive(d: usize, bytes: &[u8]) -> [u16; N] {
        let bit = |i: usize| u16::from((bytes[i / 8] >> (i % 8)) & 1);
        core::array::from_fn(|i| (0..d).map(|j| bit(i * d + j) << j).sum())
    }

    /// The dispatching functions (AVX2 when available) and the portable ones both match the
    /// bitwise algorithms, for encode on values below `2^D` and for decode on any bytes.
    fn dispatch<const D: usize>() {
        let mut state = 0x9e37_79b9_u32;
        let mut next = || {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            state >> 8
        };
        for _ in 0..20 {
            let f: [u16; N] = core::array::from_fn(|_| (next() & ((1 << D) - 1)) as u16);
            let expected = encode_naive(D, &f);
            let mut out = vec![0u8; encoded_len(D)];
            byte_encode::<D>(&f, &mut out).expect("32 d bytes");
            assert_eq!(out, expected, "byte_encode, d = {D}");
            byte_encode_portable::<D>(&f, &mut out);
            assert_eq!(out, expected, "byte_encode_portable, d = {D}");

            let bytes: Vec<u8> = (0..encoded_len(D)).map(|_| next() as u8).collect();
            let expected = decode_naive(D, &bytes);
            assert_eq!(
                byte_decode::<D>(&bytes).expect("32 d bytes"),
                expected,
                "byte_decode, d = {D}"
            );
            assert_eq!(
                byte_decode_portable::<D>(&bytes),
                expected,
                "byte_decode_portable, d = {D}"
            );
        }
        let ones = vec![0xffu8; encoded_len(D)];
        assert_eq!(
            byte_decode::<D>(&ones).expect("32 d bytes"),
            [((1u32 << D) - 1) as u16; N]
        );
    }

    #[test]
    fn dispatch_matches_bitwise_algorithm() {
        dispatch::<1>();
        dispatch::<4>();
        dispatch::<5>();
        dispatch::<10>();
        dispatch::<11>();
        dispatch::<12>();
    }

    #[test]
    fn matches_bitwise_algorithm() {
        roundtrip::<1>();
        roundtrip::<4>();
        roundtrip::<5>();
        roundtrip::<10>();
        roundtrip::<11>();
        roundtrip::<12>();
    }

    /// Wrong lengths are `None`, not panics or silent zeros; out-of-range values are masked
    /// to their low d bits.
    #[test]
    fn checked_forms_are_total() {
        fn check<const D: usize>() {
            for len in [0, 1, 32 * D - 1, 32 * D + 1, 500] {
                assert_eq!(byte_decode::<D>(&std::vec![0xa5; len]), None, "d = {D}");
                let mut out = std::vec![0x5a; len];
                assert_eq!(byte_encode::<D>(&[1; N], &mut out), None);
                assert!(out.iter().all(|&b| b == 0x5a), "nothing written");
            }
            let mut big = [0u16; N];
            for (i, c) in big.iter_mut().enumerate() {
                *c = (i as u16).wrapping_mul(40_503);
            }
            let masked: [u16; N] = core::array::from_fn(|i| big[i] & ((1 << D) - 1) as u16);
            let (mut a, mut b) = (std::vec![0; 32 * D], std::vec![0; 32 * D]);
            byte_encode::<D>(&big, &mut a).expect("length");
            byte_encode::<D>(&masked, &mut b).expect("length");
            assert_eq!(a, b, "d = {D}: the low d bits only");
            assert_eq!(byte_decode::<D>(&a), Some(masked));
        }
        check::<1>();
        check::<4>();
        check::<5>();
        check::<10>();
        check::<11>();
        check::<12>();
    }
}
