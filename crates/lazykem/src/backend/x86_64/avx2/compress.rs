//! AVX2 Compress_d and Decompress_d (FIPS 203 §4.2.1), 16 coefficients at a time.
//!
//! Same results as [`crate::compress`] for every input (tested exhaustively in
//! `backend/tests.rs`): Compress multiplies by the same reciprocal [`COMPRESS_MULTIPLIER`]
//! in 64-bit lanes (`vpmuludq`), and Decompress is one rounding multiply-high,
//! `(a b + 2^14) >> 15` with `a = y 2^(15-d)`, `b = q`, which is `round(q y / 2^d)`
//! exactly. No division anywhere.

use crate::compress::{COMPRESS_MULTIPLIER, COMPRESS_SHIFT};
use core::arch::x86_64::{
    __m256i, _mm_set_epi64x, _mm256_add_epi32, _mm256_and_si256, _mm256_blend_epi32,
    _mm256_castsi256_si128, _mm256_cvtepu16_epi32, _mm256_extracti128_si256, _mm256_loadu_si256,
    _mm256_mul_epu32, _mm256_mulhrs_epi16, _mm256_packus_epi32, _mm256_permute4x64_epi64,
    _mm256_set1_epi16, _mm256_set1_epi32, _mm256_sll_epi16, _mm256_sll_epi32, _mm256_slli_epi64,
    _mm256_srli_epi64, _mm256_storeu_si256,
};
use lattice_field::gf3329::Q;
use lattice_poly_ntt::mlkem::N;

/// Compress_d of eight canonical values in 32-bit lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn compress_x8<const D: usize>(x: __m256i) -> __m256i {
    let m = _mm256_set1_epi32(COMPRESS_MULTIPLIER as i32);
    // n = (x << d) + floor(q/2) < 2^23; n * M < 2^48 fits the 64-bit products.
    let shift = _mm_set_epi64x(0, D as i64);
    let n = _mm256_add_epi32(
        _mm256_sll_epi32(x, shift),
        _mm256_set1_epi32(i32::from(Q / 2)),
    );
    let even = _mm256_srli_epi64(_mm256_mul_epu32(n, m), COMPRESS_SHIFT as i32);
    let odd = _mm256_srli_epi64(
        _mm256_mul_epu32(_mm256_srli_epi64(n, 32), m),
        COMPRESS_SHIFT as i32,
    );
    let q = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0b1010_1010);
    _mm256_and_si256(q, _mm256_set1_epi32((1 << D) - 1))
}

/// `out[i] = Compress_d(coeffs[i])` for canonical coefficients.
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(super) fn compress_avx2<const D: usize>(coeffs: &[u16; N], out: &mut [u16; N]) {
    const { assert!(D >= 1 && D <= crate::compress::COMPRESS_D_MAX) };
    for (src, dst) in coeffs.chunks_exact(16).zip(out.chunks_exact_mut(16)) {
        // SAFETY: `src` is 16 readable u16 (32 bytes); unaligned load.
        let v = unsafe { _mm256_loadu_si256(src.as_ptr().cast()) };
        let lo = compress_x8::<D>(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(v)));
        let hi = compress_x8::<D>(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(v, 1)));
        // packus interleaves the 128-bit halves; the permute restores coefficient order.
        let packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0b11_01_10_00);
        // SAFETY: `dst` is 16 writable u16 (32 bytes); unaligned store.
        unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), packed) };
    }
}

/// `out[i] = Decompress_d(values[i])` for values below `2^d`.
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(super) fn decompress_avx2<const D: usize>(values: &[u16; N], out: &mut [u16; N]) {
    const { assert!(D >= 1 && D <= 11) };
    let q = _mm256_set1_epi16(Q as i16);
    let shift = _mm_set_epi64x(0, 15 - D as i64);
    for (src, dst) in values.chunks_exact(16).zip(out.chunks_exact_mut(16)) {
        // SAFETY: `src` is 16 readable u16 (32 bytes); unaligned load.
        let y = unsafe { _mm256_loadu_si256(src.as_ptr().cast()) };
        // y 2^(15-d) < 2^15 is a non-negative i16; (y 2^(15-d) q + 2^14) >> 15 =
        // (q y + 2^(d-1)) >> d.
        let r = _mm256_mulhrs_epi16(_mm256_sll_epi16(y, shift), q);
        // SAFETY: `dst` is 16 writable u16 (32 bytes); unaligned store.
        unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), r) };
    }
}
