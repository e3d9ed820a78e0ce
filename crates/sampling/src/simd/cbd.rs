//! SamplePolyCBD_2 (FIPS 203 Algorithm 8, eta = 2) on 32 bytes (64 coefficients) at a time.
//!
//! Constant time: only shifts, masks, byte additions and fixed shuffles on the secret bytes.

use crate::cbd::CBD2_INPUT_BYTES;
use core::arch::x86_64::{
    __m256i, _mm256_add_epi8, _mm256_add_epi16, _mm256_and_si256, _mm256_castsi256_si128,
    _mm256_cvtepu8_epi16, _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_permute2x128_si256,
    _mm256_set1_epi8, _mm256_set1_epi16, _mm256_srai_epi16, _mm256_srli_epi16, _mm256_storeu_si256,
    _mm256_sub_epi8, _mm256_sub_epi16, _mm256_unpackhi_epi8, _mm256_unpacklo_epi8,
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

/// Algorithm 8 with eta = 2 into `coeffs` (values in `[0, q)`), same output as the scalar
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cbd::cbd2_into;
    use proptest::prelude::*;

    fn check(bytes: &[u8; CBD2_INPUT_BYTES]) {
        let Some(_) = super::super::Avx2::detect() else {
            return;
        };
        let (mut simd, mut scalar) = ([0u16; N], [0u16; N]);
        // SAFETY: AVX2 is present (checked above).
        unsafe { cbd2_avx2(bytes, &mut simd) };
        cbd2_into(bytes, &mut scalar);
        assert_eq!(simd, scalar);
    }

    #[test]
    fn every_byte_value_in_every_position() {
        for v in 0..=255u8 {
            let bytes: [u8; CBD2_INPUT_BYTES] = core::array::from_fn(|i| v.wrapping_add(i as u8));
            check(&bytes);
            check(&[v; CBD2_INPUT_BYTES]);
        }
    }

    proptest! {
        #[test]
        fn matches_scalar(bytes in proptest::collection::vec(any::<u8>(), CBD2_INPUT_BYTES)) {
            check(&bytes.try_into().unwrap());
        }
    }
}
