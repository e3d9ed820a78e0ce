//! The AVX-512 token's encodings: the AVX2 kernels (the token holds an AVX2 token).

use super::EncodeBackend;
use lattice_poly_ntt::backend::Avx512;
use lattice_poly_ntt::mlkem::N;

impl EncodeBackend for Avx512 {
    #[inline]
    fn byte_encode<const D: usize>(self, coeffs: &[u16; N], out: &mut [u8]) {
        self.avx2().byte_encode::<D>(coeffs, out);
    }

    #[inline]
    fn byte_decode<const D: usize>(self, bytes: &[u8], out: &mut [u16; N]) {
        self.avx2().byte_decode::<D>(bytes, out);
    }

    #[inline]
    fn compress<const D: usize>(self, coeffs: &[u16; N], out: &mut [u16; N]) {
        self.avx2().compress::<D>(coeffs, out);
    }

    #[inline]
    fn decompress<const D: usize>(self, values: &[u16; N], out: &mut [u16; N]) {
        self.avx2().decompress::<D>(values, out);
    }
}
