//! The AVX-512 token's encodings: Compress_d and Decompress_d (FIPS 203 §4.2.1) on
//! zmm registers, 32 coefficients at a time, with the AVX2 kernels' arithmetic (the same
//! reciprocal multiplication, the same rounding multiply-high), so the same results as
//! [`crate::compress`] for every input (tested exhaustively in `backend/tests.rs`); ByteEncode and
//! ByteDecode are the AVX2 kernels (the token holds an AVX2 token).
#![allow(unsafe_code)]

use crate::backend::EncodeBackend;
use crate::compress::{COMPRESS_MULTIPLIER, COMPRESS_SHIFT};
use core::arch::x86_64::{
    __m512i, _mm_set_epi64x, _mm256_storeu_si256, _mm512_add_epi32, _mm512_and_si512,
    _mm512_castsi512_si256, _mm512_cvtepi32_epi16, _mm512_cvtepu16_epi32,
    _mm512_extracti64x4_epi64, _mm512_loadu_si512, _mm512_mask_blend_epi32, _mm512_mul_epu32,
    _mm512_mulhrs_epi16, _mm512_set1_epi16, _mm512_set1_epi32, _mm512_sll_epi16, _mm512_sll_epi32,
    _mm512_slli_epi64, _mm512_srli_epi64, _mm512_storeu_si512,
};
use lattice_field::gf3329::Q;
use lattice_poly_ntt::backend::Avx512;
use lattice_poly_ntt::mlkem::N;

impl EncodeBackend for Avx512 {
    const FEEDS_KEY_GENERATION: bool = true;

    #[inline]
    fn byte_encode<const D: usize>(self, coeffs: &[u16; N], out: &mut [u8]) {
        self.avx2().byte_encode::<D>(coeffs, out);
    }

    #[inline]
    fn byte_encode_12_chunks(
        self,
        coeffs: &[u16; N],
        out: &mut [u8],
        chunks: core::ops::Range<usize>,
    ) {
        self.avx2().byte_encode_12_chunks(coeffs, out, chunks);
    }

    #[inline]
    fn byte_decode<const D: usize>(self, bytes: &[u8], out: &mut [u16; N]) {
        self.avx2().byte_decode::<D>(bytes, out);
    }

    #[inline]
    fn compress<const D: usize>(self, coeffs: &[u16; N], out: &mut [u16; N]) {
        // SAFETY: `self` exists, so the CPU supports AVX-512F and AVX-512BW.
        unsafe { compress_avx512::<D>(coeffs, out) }
    }

    #[inline]
    fn decompress<const D: usize>(self, values: &[u16; N], out: &mut [u16; N]) {
        // SAFETY: `self` exists, so the CPU supports AVX-512F and AVX-512BW.
        unsafe { decompress_avx512::<D>(values, out) }
    }
}

/// Compress_d of sixteen canonical values in 32-bit lanes (the AVX2 `compress_x8` on zmm).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn compress_x16<const D: usize>(x: __m512i) -> __m512i {
    let m = _mm512_set1_epi32(COMPRESS_MULTIPLIER as i32);
    // n = (x << d) + floor(q/2) < 2^23; n * M < 2^48 fits the 64-bit products.
    let shift = _mm_set_epi64x(0, D as i64);
    let n = _mm512_add_epi32(
        _mm512_sll_epi32(x, shift),
        _mm512_set1_epi32(i32::from(Q / 2)),
    );
    let even = _mm512_srli_epi64::<COMPRESS_SHIFT>(_mm512_mul_epu32(n, m));
    let odd = _mm512_srli_epi64::<COMPRESS_SHIFT>(_mm512_mul_epu32(_mm512_srli_epi64::<32>(n), m));
    let q = _mm512_mask_blend_epi32(0xaaaa, even, _mm512_slli_epi64::<32>(odd));
    _mm512_and_si512(q, _mm512_set1_epi32((1 << D) - 1))
}

/// `out[i] = Compress_d(coeffs[i])` for canonical coefficients.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline(never)]
fn compress_avx512<const D: usize>(coeffs: &[u16; N], out: &mut [u16; N]) {
    const { assert!(D >= 1 && D <= crate::compress::COMPRESS_D_MAX) };
    for (src, dst) in coeffs.chunks_exact(32).zip(out.chunks_exact_mut(32)) {
        // SAFETY: `src` is 32 readable u16 (64 bytes); unaligned load.
        let v = unsafe { _mm512_loadu_si512(src.as_ptr().cast()) };
        let lo = compress_x16::<D>(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(v)));
        let hi = compress_x16::<D>(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64::<1>(v)));
        // Narrowing keeps the order (values below 2^11 fit 16 bits).
        // SAFETY: `dst` is 32 writable u16 (64 bytes); unaligned stores of 32 bytes each.
        unsafe {
            _mm256_storeu_si256(dst.as_mut_ptr().cast(), _mm512_cvtepi32_epi16(lo));
            _mm256_storeu_si256(dst.as_mut_ptr().add(16).cast(), _mm512_cvtepi32_epi16(hi));
        }
    }
}

/// `out[i] = Decompress_d(values[i])` for values below `2^d`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline(never)]
fn decompress_avx512<const D: usize>(values: &[u16; N], out: &mut [u16; N]) {
    const { assert!(D >= 1 && D <= 11) };
    let q = _mm512_set1_epi16(Q as i16);
    let shift = _mm_set_epi64x(0, 15 - D as i64);
    for (src, dst) in values.chunks_exact(32).zip(out.chunks_exact_mut(32)) {
        // SAFETY: `src` is 32 readable u16 (64 bytes); unaligned load.
        let y = unsafe { _mm512_loadu_si512(src.as_ptr().cast()) };
        // y 2^(15-d) < 2^15 is a non-negative i16; (y 2^(15-d) q + 2^14) >> 15 =
        // (q y + 2^(d-1)) >> d.
        let r = _mm512_mulhrs_epi16(_mm512_sll_epi16(y, shift), q);
        // SAFETY: `dst` is 32 writable u16 (64 bytes); unaligned store.
        unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), r) };
    }
}
