//! The AVX2 token's encodings: ByteEncode/ByteDecode for d = 1, 4, 5, 10, 11, 12 and
//! Compress/Decompress, 16 coefficients at a time, each exactly equal to the portable code.
#![allow(unsafe_code)]

pub(super) mod compress;
mod encode;

use crate::backend::EncodeBackend;
use lattice_poly_ntt::backend::Avx2;
use lattice_poly_ntt::mlkem::N;

/// The token exists only on a CPU with AVX2, so every kernel below may run.
impl EncodeBackend for Avx2 {
    const FEEDS_KEY_GENERATION: bool = true;

    #[inline]
    fn byte_encode<const D: usize>(self, coeffs: &[u16; N], out: &mut [u8]) {
        // SAFETY: `self` exists, so the CPU supports AVX2.
        unsafe { encode::byte_encode_avx2::<D>(coeffs, out) }
    }

    #[inline]
    fn byte_encode_12_chunks(
        self,
        coeffs: &[u16; N],
        out: &mut [u8],
        chunks: core::ops::Range<usize>,
    ) {
        // SAFETY: `self` exists, so the CPU supports AVX2.
        unsafe { encode::byte_encode_12_chunks_avx2(coeffs, out, chunks) }
    }

    #[inline]
    fn byte_decode<const D: usize>(self, bytes: &[u8], out: &mut [u16; N]) {
        // SAFETY: `self` exists, so the CPU supports AVX2.
        unsafe { encode::byte_decode_avx2::<D>(bytes, out) }
    }

    #[inline]
    fn compress<const D: usize>(self, coeffs: &[u16; N], out: &mut [u16; N]) {
        // SAFETY: `self` exists, so the CPU supports AVX2.
        unsafe { compress::compress_avx2::<D>(coeffs, out) }
    }

    #[inline]
    fn decompress<const D: usize>(self, values: &[u16; N], out: &mut [u16; N]) {
        // SAFETY: `self` exists, so the CPU supports AVX2.
        unsafe { compress::decompress_avx2::<D>(values, out) }
    }
}
