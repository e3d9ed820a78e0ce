//! The NEON token's encodings (aarch64): ByteEncode/ByteDecode for d = 1, 4, 5, 10, 11, 12
//! and Compress/Decompress for d = 1, 4, 5, 10, 11, eight coefficients (one 128-bit
//! register of `u16`) at a time, each exactly equal to the portable code for every input.
//!
//! NEON is part of the aarch64 baseline; the kernels are `#[target_feature(enable = "neon")]`
//! functions all the same (the intrinsics require it), called through the token.
#![allow(unsafe_code)]

mod compress;
mod encode;

use crate::backend::EncodeBackend;
use lattice_poly_ntt::backend::Neon;
use lattice_poly_ntt::mlkem::N;

/// Every kernel below needs only NEON, which every aarch64 CPU has.
impl EncodeBackend for Neon {
    #[inline]
    fn byte_encode<const D: usize>(self, coeffs: &[u16; N], out: &mut [u8]) {
        // SAFETY: `self` exists, so the CPU has NEON (every aarch64 CPU does).
        unsafe { encode::byte_encode_neon::<D>(coeffs, out) }
    }

    #[inline]
    fn byte_encode_12_chunks(
        self,
        coeffs: &[u16; N],
        out: &mut [u8],
        chunks: core::ops::Range<usize>,
    ) {
        // SAFETY: `self` exists, so the CPU has NEON (every aarch64 CPU does).
        unsafe { encode::byte_encode_12_chunks_neon(coeffs, out, chunks) }
    }

    #[inline]
    fn byte_decode<const D: usize>(self, bytes: &[u8], out: &mut [u16; N]) {
        // SAFETY: `self` exists, so the CPU has NEON (every aarch64 CPU does).
        unsafe { encode::byte_decode_neon::<D>(bytes, out) }
    }

    #[inline]
    fn compress<const D: usize>(self, coeffs: &[u16; N], out: &mut [u16; N]) {
        // SAFETY: `self` exists, so the CPU has NEON (every aarch64 CPU does).
        unsafe { compress::compress_neon::<D>(coeffs, out) }
    }

    #[inline]
    fn decompress<const D: usize>(self, values: &[u16; N], out: &mut [u16; N]) {
        // SAFETY: `self` exists, so the CPU has NEON (every aarch64 CPU does).
        unsafe { compress::decompress_neon::<D>(values, out) }
    }
}
