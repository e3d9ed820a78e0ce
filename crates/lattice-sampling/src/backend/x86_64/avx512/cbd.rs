//! SamplePolyCBD_2 (FIPS 203 Alg. 8, eta = 2) on zmm registers: 64 bytes (128
//! coefficients) at a time. eta = 3 runs the AVX2 kernel (`super::super::avx2::cbd`).
//!
//! Constant time: only shifts, masks, additions and fixed shuffles on the secret bytes.

use crate::cbd::CBD2_INPUT_BYTES;
use core::arch::x86_64::{
    _mm512_add_epi8, _mm512_add_epi16, _mm512_and_si512, _mm512_castsi512_si256,
    _mm512_cvtepu8_epi16, _mm512_extracti64x4_epi64, _mm512_loadu_si512, _mm512_permutex2var_epi64,
    _mm512_set1_epi8, _mm512_set1_epi16, _mm512_srai_epi16, _mm512_srli_epi16, _mm512_storeu_si512,
    _mm512_sub_epi8, _mm512_sub_epi16, _mm512_unpackhi_epi8, _mm512_unpacklo_epi8,
};
use lattice_field::gf3329::Q;
use lattice_poly_ntt::mlkem::N;

/// `vpermt2q` selectors for [`cbd2_avx512`]: the 128-bit lanes of the byte interleaves
/// `lo = [c0..16 | c32..48 | c64..80 | c96..112]` and `hi = [c16..32 | c48..64 | ..]` put
/// back in coefficient order, 64 coefficients per register.
const CBD2_FIRST_HALF: [i64; 8] = [0, 1, 8, 9, 2, 3, 10, 11];
const CBD2_SECOND_HALF: [i64; 8] = [4, 5, 12, 13, 6, 7, 14, 15];

/// FIPS 203 Alg. 8 with eta = 2 into `coeffs` (values in `[0, q)`), the same output as
/// the AVX2 `cbd2_avx2` on 512-bit registers: 64 bytes (128 coefficients) per step, the same
/// bit-pair sums per byte, then the nibbles interleaved to bytes in coefficient order and
/// widened to 16 bits (`vpmovzxbw`), and the bias taken off with a signed-mask add of q.
///
/// # Safety
/// The CPU has AVX-512F and AVX-512BW.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw")]
pub(crate) unsafe fn cbd2_avx512(bytes: &[u8; CBD2_INPUT_BYTES], coeffs: &mut [u16; N]) {
    let m55 = _mm512_set1_epi8(0x55);
    let m33 = _mm512_set1_epi8(0x33);
    let m0f = _mm512_set1_epi8(0x0f);
    // SAFETY: the selector array is 64 readable bytes; the load needs no alignment.
    let first = unsafe { _mm512_loadu_si512(CBD2_FIRST_HALF.as_ptr().cast()) };
    // SAFETY: as above.
    let second = unsafe { _mm512_loadu_si512(CBD2_SECOND_HALF.as_ptr().cast()) };
    let two = _mm512_set1_epi16(2);
    let q = _mm512_set1_epi16(Q as i16);
    for (block, out) in bytes.chunks_exact(64).zip(coeffs.chunks_exact_mut(128)) {
        // SAFETY: `block` is 64 readable bytes; the load needs no alignment.
        let x = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        // As in the AVX2 kernel: per byte, bit-pair sums, then x + 2 - y per nibble.
        let d = _mm512_add_epi8(
            _mm512_and_si512(x, m55),
            _mm512_and_si512(_mm512_srli_epi16::<1>(x), m55),
        );
        let xs = _mm512_and_si512(d, m33);
        let ys = _mm512_and_si512(_mm512_srli_epi16::<2>(d), m33);
        let t = _mm512_sub_epi8(_mm512_add_epi8(xs, _mm512_set1_epi8(0x22)), ys);
        let lo = _mm512_and_si512(t, m0f);
        let hi = _mm512_and_si512(_mm512_srli_epi16::<4>(t), m0f);
        let (a, b) = (_mm512_unpacklo_epi8(lo, hi), _mm512_unpackhi_epi8(lo, hi));
        let halves = [
            _mm512_permutex2var_epi64(a, first, b),
            _mm512_permutex2var_epi64(a, second, b),
        ];
        for (v, chunk) in halves.into_iter().zip(out.chunks_exact_mut(64)) {
            let words = [
                _mm512_cvtepu8_epi16(_mm512_castsi512_si256(v)),
                _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64::<1>(v)),
            ];
            for (w, dst) in words.into_iter().zip(chunk.chunks_exact_mut(32)) {
                let r = _mm512_sub_epi16(w, two);
                let r = _mm512_add_epi16(r, _mm512_and_si512(_mm512_srai_epi16::<15>(r), q));
                // SAFETY: `dst` is 32 writable u16 (64 bytes); the store needs no alignment.
                unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), r) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::test_support::every_byte;
    use crate::cbd::cbd2_into;
    use lattice_poly_ntt::backend::Avx512;
    use proptest::prelude::*;

    /// The zmm kernel against the scalar one on `bytes` (nothing without AVX-512).
    fn check(bytes: &[u8; CBD2_INPUT_BYTES]) {
        if Avx512::detect().is_none() {
            return;
        }
        let (mut fast, mut slow) = ([0u16; N], [0u16; N]);
        // SAFETY: the AVX-512 token exists, so the CPU has AVX-512F/BW.
        unsafe { cbd2_avx512(bytes, &mut fast) };
        cbd2_into(bytes, &mut slow);
        assert_eq!(fast, slow);
    }

    #[test]
    fn every_byte_value_in_every_position() {
        every_byte(check);
    }

    proptest! {
        #[test]
        fn matches_scalar(bytes in any::<[u8; CBD2_INPUT_BYTES]>()) {
            check(&bytes);
        }
    }
}
