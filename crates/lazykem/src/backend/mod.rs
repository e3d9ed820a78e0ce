//! Which backend the KEM runs on, and the KEM's own kernels (ByteEncode/ByteDecode,
//! Compress/Decompress) behind the backend tokens of `lattice-poly-ntt`.
//!
//! Every public operation picks its backend once, at its start ([`AnyBackend::best`]: CPU
//! features detected once and cached), and runs monomorphized for that token: arithmetic
//! (`lattice_poly_ntt::Backend`), Keccak and sampling (`lattice_sampling::SamplingBackend`)
//! and the encodings ([`EncodeBackend`]), glue included, inside the token's `run`, so the
//! whole operation is compiled for the backend's CPU features. There is no global switch:
//! tests and benchmarks pick a backend per call through the `hazmat` entry points that take
//! an [`AnyBackend`] (`*_on`).
//!
//! This module is the only place of the crate that names an instruction set, grouped by
//! architecture: the AVX2 kernels are in `x86_64/avx2`; the AVX-512 token runs them too,
//! with zmm Compress/Decompress (`x86_64/avx512.rs`); the NEON kernels are in
//! `aarch64/neon`. The barrier every public operation starts with is
//! `lattice_sampling::speculation::barrier` (`lfence` on x86-64, `sb` or `dsb nsh; isb` on
//! aarch64).

#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(target_arch = "x86_64")]
mod x86_64;

pub(crate) use lattice_sampling::speculation::barrier as speculation_barrier;

use crate::encode::{byte_decode_portable, byte_encode_portable};
use lattice_poly_ntt::Backend;
pub(crate) use lattice_poly_ntt::backend::AnyBackend;
pub use lattice_poly_ntt::backend::BackendKind;
use lattice_poly_ntt::backend::Portable;
use lattice_poly_ntt::mlkem::{MlKem, N};
use lattice_sampling::SamplingBackend;

/// The kind of backend this CPU runs the KEM on (the fastest it has).
///
/// ```
/// let kind = lazykem::backend();
/// println!("ML-KEM runs on the {kind} backend");
/// assert!(kind.is_available());
/// ```
#[must_use]
pub fn backend() -> BackendKind {
    AnyBackend::best().kind()
}

/// The encodings of FIPS 203 §4.2.1 on a backend; the defaults are the portable
/// code of [`crate::encode`] and [`crate::compress`].
pub(crate) trait EncodeBackend: Copy + core::fmt::Debug + 'static {
    /// Whether key generation hashes `ek` block by block while A-hat is sampled
    /// (`kpke::key_gen_fed`): on a backend with a lane scheduler (the fed sponge rides in
    /// a lane) and a chunked product (`Backend::dot_product_plus_chunks`) of its own; the
    /// portable one computes whole rows (it runs one job after another, and its chunked
    /// product computes every coefficient per call).
    const FEEDS_KEY_GENERATION: bool = false;

    /// ByteEncode_D (FIPS 203 Alg. 5) of values below `2^D` into `out` (`32 D` bytes).
    #[inline]
    fn byte_encode<const D: usize>(self, coeffs: &[u16; N], out: &mut [u8]) {
        byte_encode_portable::<D>(coeffs, out);
    }

    /// ByteEncode_12 (FIPS 203 Alg. 5) of the coefficients of chunks `chunks` only (chunk `c`:
    /// coefficients `32 c .. 32 c + 32`, bytes `48 c .. 48 c + 48`) into their bytes of
    /// `out`, the 384-byte encoding of all of `coeffs`; no other byte of `out` is written,
    /// and chunks past the end are ignored. For key generation, which encodes `t-hat` as
    /// its chunks are computed.
    #[inline]
    fn byte_encode_12_chunks(
        self,
        coeffs: &[u16; N],
        out: &mut [u8],
        chunks: core::ops::Range<usize>,
    ) {
        crate::encode::byte_encode_12_chunks_portable(coeffs, out, chunks);
    }

    /// ByteDecode_D (FIPS 203 Alg. 6) of `32 D` bytes into `out`.
    #[inline]
    fn byte_decode<const D: usize>(self, bytes: &[u8], out: &mut [u16; N]) {
        *out = byte_decode_portable::<D>(bytes);
    }

    /// `out[i] = Compress_d(coeffs[i])` for canonical coefficients.
    #[inline]
    fn compress<const D: usize>(self, coeffs: &[u16; N], out: &mut [u16; N]) {
        for (o, &x) in out.iter_mut().zip(coeffs) {
            *o = crate::compress::compress_canonical::<D>(x);
        }
    }

    /// `out[i] = Decompress_d(values[i])` for values below `2^d` (outputs canonical).
    #[inline]
    fn decompress<const D: usize>(self, values: &[u16; N], out: &mut [u16; N]) {
        for (o, &y) in out.iter_mut().zip(values) {
            *o = crate::compress::decompress_reduced::<D>(y);
        }
    }
}

impl EncodeBackend for Portable {}

/// Everything an ML-KEM operation needs of its backend.
pub(crate) trait KemBackend: Backend<MlKem> + SamplingBackend + EncodeBackend {}

impl<T: Backend<MlKem> + SamplingBackend + EncodeBackend> KemBackend for T {}

/// Runs `$body` with `$b` bound to the token of `$any` (an [`AnyBackend`]), monomorphized
/// per backend and compiled for its features (see `lattice_poly_ntt::dispatch!`).
macro_rules! with_backend {
    ($any:expr, |$b:ident| $body:expr) => {
        lattice_poly_ntt::dispatch!($any, |$b| $body)
    };
}

pub(crate) use with_backend;

#[cfg(test)]
mod tests;
