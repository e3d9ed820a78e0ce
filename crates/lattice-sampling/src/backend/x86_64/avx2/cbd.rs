//! SamplePolyCBD_eta (FIPS 203 Alg. 8) in AVX2: eta = 2 on 32 bytes (64 coefficients) at a
//! time, eta = 3 on 24 bytes (32 coefficients) at a time (the AVX-512 token's too).
//!
//! Constant time: only shifts, masks, additions and fixed shuffles on the secret bytes.

use crate::cbd::CBD2_INPUT_BYTES;
#[cfg(test)]
use crate::cbd::CBD3_INPUT_BYTES;
use crate::kernels::{CBD3_STEP_BYTES, CBD3_STEP_COEFFS};
use core::arch::x86_64::{
    __m256i, _mm256_add_epi8, _mm256_add_epi16, _mm256_add_epi32, _mm256_and_si256,
    _mm256_castsi256_si128, _mm256_cvtepu8_epi16, _mm256_extracti128_si256, _mm256_loadu_si256,
    _mm256_loadu2_m128i, _mm256_or_si256, _mm256_permute2x128_si256, _mm256_set1_epi8,
    _mm256_set1_epi16, _mm256_set1_epi32, _mm256_setr_epi8, _mm256_shuffle_epi8, _mm256_slli_epi32,
    _mm256_srai_epi16, _mm256_srli_epi16, _mm256_srli_epi32, _mm256_storeu_si256, _mm256_sub_epi8,
    _mm256_sub_epi16, _mm256_unpackhi_epi8, _mm256_unpackhi_epi16, _mm256_unpacklo_epi8,
    _mm256_unpacklo_epi16,
};
use lattice_field::gf3329::Q;
use lattice_poly_ntt::mlkem::N;

/// `c - 2 mod q` for lanes `c` in `[0, 4]`: the coefficient `x - y` from the biased `x + 2 - y`.
#[inline]
#[target_feature(enable = "avx2")]
fn unbias(w: __m256i) -> __m256i {
    let r = _mm256_sub_epi16(w, _mm256_set1_epi16(2));
    _mm256_add_epi16(
        r,
        _mm256_and_si256(_mm256_srai_epi16(r, 15), _mm256_set1_epi16(Q as i16)),
    )
}

/// FIPS 203 Alg. 8 with eta = 2 into `coeffs` (values in `[0, q)`), same output as the scalar
/// `cbd2_into`.
#[target_feature(enable = "avx2")]
pub(crate) fn cbd2_avx2(bytes: &[u8; CBD2_INPUT_BYTES], coeffs: &mut [u16; N]) {
    let m55 = _mm256_set1_epi8(0x55);
    let m33 = _mm256_set1_epi8(0x33);
    let m0f = _mm256_set1_epi8(0x0f);
    for (block, out) in bytes.chunks_exact(32).zip(coeffs.chunks_exact_mut(64)) {
        // SAFETY: `block` is 32 readable bytes; `loadu` has no alignment requirement.
        let x = unsafe { _mm256_loadu_si256(block.as_ptr().cast()) };
        // Sums of bit pairs: in each byte, bits 0-1 = x0, 2-3 = y0, 4-5 = x1, 6-7 = y1 of the
        // byte's two coefficients (the 16-bit shift's carry into bit 7 is masked off).
        let d = _mm256_add_epi8(
            _mm256_and_si256(x, m55),
            _mm256_and_si256(_mm256_srli_epi16(x, 1), m55),
        );
        let xs = _mm256_and_si256(d, m33);
        let ys = _mm256_and_si256(_mm256_srli_epi16(d, 2), m33);
        // Per nibble x + 2 - y in [0, 4]: no borrow between the two nibbles of a byte.
        let t = _mm256_sub_epi8(_mm256_add_epi8(xs, _mm256_set1_epi8(0x22)), ys);
        let lo = _mm256_and_si256(t, m0f); // coefficient 2k of byte k
        let hi = _mm256_and_si256(_mm256_srli_epi16(t, 4), m0f); // coefficient 2k + 1
        // Per 128-bit half: bytes 0-7 -> coefficients 0-15, bytes 8-15 -> 16-31.
        let v0 = _mm256_unpacklo_epi8(lo, hi);
        let v1 = _mm256_unpackhi_epi8(lo, hi);
        let first = _mm256_permute2x128_si256(v0, v1, 0x20); // coefficients 0-31
        let second = _mm256_permute2x128_si256(v0, v1, 0x31); // coefficients 32-63
        let words = [
            _mm256_cvtepu8_epi16(_mm256_castsi256_si128(first)),
            _mm256_cvtepu8_epi16(_mm256_extracti128_si256(first, 1)),
            _mm256_cvtepu8_epi16(_mm256_castsi256_si128(second)),
            _mm256_cvtepu8_epi16(_mm256_extracti128_si256(second, 1)),
        ];
        for (w, chunk) in words.into_iter().zip(out.chunks_exact_mut(16)) {
            // SAFETY: `chunk` is 16 writable u16 (32 bytes); `storeu` has no alignment
            // requirement.
            unsafe { _mm256_storeu_si256(chunk.as_mut_ptr().cast(), unbias(w)) };
        }
    }
}

/// `v mod q` for 16-bit lanes `v` in `[-3, 3]`: `v + q` where `v` is negative.
#[inline]
#[target_feature(enable = "avx2")]
fn signed_to_field(v: __m256i) -> __m256i {
    _mm256_add_epi16(
        v,
        _mm256_and_si256(_mm256_srai_epi16(v, 15), _mm256_set1_epi16(Q as i16)),
    )
}

/// FIPS 203 Alg. 8 with eta = 3 into `coeffs`, all at once (the tests' view of
/// [`cbd3_steps_avx2`]).
#[cfg(test)]
#[target_feature(enable = "avx2")]
fn cbd3_avx2(bytes: &[u8; CBD3_INPUT_BYTES], coeffs: &mut [u16; N]) {
    cbd3_steps_avx2(bytes, coeffs);
}

/// FIPS 203 Alg. 8 with eta = 3 (values in `[0, q)`), the same output as the scalar
/// `cbd3_into`, on whole 24-byte steps of `bytes` into 32 coefficients of `coeffs` each, as
/// many as both have: the PRF output may come in pieces that end on a step (the lane
/// scheduler's first SHAKE256 block holds five steps). 3 bytes (24 bits: `x0 y0 x1 y1 x2
/// y2 x3 y3`, 3 bits each) per 4 coefficients, 8 such groups per step, one in each 32-bit
/// lane.
#[target_feature(enable = "avx2")]
pub(crate) fn cbd3_steps_avx2(bytes: &[u8], coeffs: &mut [u16]) {
    // Groups 0-3 are bytes 0..12 of the step, taken from a load of bytes 0..16; groups 4-7
    // are bytes 12..24, at offsets 4..16 of a load of bytes 8..24 (so the last step reads
    // no byte past the input). Each group goes to the low 3 bytes of its lane, 0 above.
    let spread = _mm256_setr_epi8(
        0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1, //
        4, 5, 6, -1, 7, 8, 9, -1, 10, 11, 12, -1, 13, 14, 15, -1,
    );
    let bits = _mm256_set1_epi32(0x0024_9249);
    let low12 = _mm256_set1_epi32(0x0000_0fff);
    let high12 = _mm256_set1_epi32(0x0fff_0000);
    let m7 = _mm256_set1_epi16(7);
    for (step, out) in bytes
        .chunks_exact(CBD3_STEP_BYTES)
        .zip(coeffs.chunks_exact_mut(CBD3_STEP_COEFFS))
    {
        // SAFETY: `step` is 24 readable bytes; the loads read bytes 0..16 and 8..24 of it,
        // unaligned loads need no alignment.
        let raw = unsafe { _mm256_loadu2_m128i(step[8..].as_ptr().cast(), step.as_ptr().cast()) };
        let t = _mm256_shuffle_epi8(raw, spread);
        // Each 3-bit field of d holds the sum of its three bits of t (at most 3: no carry
        // between fields; the zero top byte of t brings nothing in).
        let d = _mm256_add_epi32(
            _mm256_add_epi32(
                _mm256_and_si256(t, bits),
                _mm256_and_si256(_mm256_srli_epi32(t, 1), bits),
            ),
            _mm256_and_si256(_mm256_srli_epi32(t, 2), bits),
        );
        // Fields 0-3 (coefficients 0, 1) in the low 16-bit word, fields 4-7 (coefficients
        // 2, 3) in the high one.
        let w = _mm256_or_si256(
            _mm256_and_si256(d, low12),
            _mm256_and_si256(_mm256_slli_epi32(d, 4), high12),
        );
        // In each word: a = x - y from bits 0-5, b = x - y from bits 6-11, in [-3, 3].
        let a = _mm256_sub_epi16(
            _mm256_and_si256(w, m7),
            _mm256_and_si256(_mm256_srli_epi16(w, 3), m7),
        );
        let b = _mm256_sub_epi16(
            _mm256_and_si256(_mm256_srli_epi16(w, 6), m7),
            _mm256_and_si256(_mm256_srli_epi16(w, 9), m7),
        );
        let (a, b) = (signed_to_field(a), signed_to_field(b));
        // Words (a, b) interleaved are the coefficients in order: per 128-bit half,
        // unpacklo holds its lanes 0-1 (coefficients 4l .. 4l+3 of lanes l), unpackhi
        // lanes 2-3.
        let lo = _mm256_unpacklo_epi16(a, b);
        let hi = _mm256_unpackhi_epi16(a, b);
        let first = _mm256_permute2x128_si256(lo, hi, 0x20); // groups 0-3: coefficients 0-15
        let second = _mm256_permute2x128_si256(lo, hi, 0x31); // groups 4-7: 16-31
        for (v, chunk) in [first, second].into_iter().zip(out.chunks_exact_mut(16)) {
            // SAFETY: `chunk` is 16 writable u16 (32 bytes); `storeu` has no alignment
            // requirement.
            unsafe { _mm256_storeu_si256(chunk.as_mut_ptr().cast(), v) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::test_support::every_byte;
    use crate::cbd::{cbd2_into, cbd3_into};
    use proptest::prelude::*;

    /// The AVX2 kernel (`simd`) against the scalar one on `bytes` (nothing without AVX2).
    fn agree<const LEN: usize>(
        simd: unsafe fn(&[u8; LEN], &mut [u16; N]),
        scalar: fn(&[u8; LEN], &mut [u16; N]),
        bytes: &[u8; LEN],
    ) {
        let Some(_) = lattice_poly_ntt::backend::Avx2::detect() else {
            return;
        };
        let (mut fast, mut slow) = ([0u16; N], [0u16; N]);
        // SAFETY: AVX2 is present (checked above).
        unsafe { simd(bytes, &mut fast) };
        scalar(bytes, &mut slow);
        assert_eq!(fast, slow);
    }

    fn check(bytes: &[u8; CBD2_INPUT_BYTES]) {
        agree(cbd2_avx2, cbd2_into, bytes);
    }

    fn check3(bytes: &[u8; CBD3_INPUT_BYTES]) {
        agree(cbd3_avx2, cbd3_into, bytes);
    }

    #[test]
    fn every_byte_value_in_every_position() {
        every_byte(check);
    }

    #[test]
    fn cbd3_every_byte_value_in_every_position() {
        every_byte(check3);
    }

    proptest! {
        #[test]
        fn matches_scalar(bytes in proptest::collection::vec(any::<u8>(), CBD2_INPUT_BYTES)) {
            check(&bytes.try_into().unwrap());
        }

        #[test]
        fn cbd3_matches_scalar(bytes in proptest::collection::vec(any::<u8>(), CBD3_INPUT_BYTES)) {
            check3(&bytes.try_into().unwrap());
        }
    }
}
