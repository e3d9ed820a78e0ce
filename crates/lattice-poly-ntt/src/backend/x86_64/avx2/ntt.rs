//! The AVX2 forward and inverse NTT: twiddle tables in Montgomery form, shuffled for the
//! in-register layers, the butterflies, and the layer schedule (with an observer hook that
//! the bounds probe uses and the kernels compile away).
#![allow(unsafe_code)]

use super::arith::{
    add_q_if_negative, barrett_reduce_i16, load, load_coeffs, montgomery_mul, store_coeffs,
};
use crate::backend::x86_64::consts::{
    FWD_SHUFFLED, FWD_SHUFFLED_QINV, INTT_SCALE, INV_SHUFFLED, INV_SHUFFLED_QINV, ZETAS_MONT,
    qinv_of,
};
use crate::mlkem::N;
use core::arch::x86_64::{
    __m256i, _mm256_add_epi16, _mm256_permute2x128_si256, _mm256_set1_epi16, _mm256_shuffle_epi32,
    _mm256_sub_epi16, _mm256_unpackhi_epi64, _mm256_unpacklo_epi64,
};

/// Cooley-Tukey butterfly: `(a + zeta b, a - zeta b)`.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn ct_butterfly(
    a: __m256i,
    b: __m256i,
    z: __m256i,
    z_qinv: __m256i,
) -> (__m256i, __m256i) {
    let t = montgomery_mul(b, z, z_qinv);
    (_mm256_add_epi16(a, t), _mm256_sub_epi16(a, t))
}

/// Gentleman-Sande butterfly: `(a + b, zeta (b - a))`.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn gs_butterfly(
    a: __m256i,
    b: __m256i,
    z: __m256i,
    z_qinv: __m256i,
) -> (__m256i, __m256i) {
    (
        _mm256_add_epi16(a, b),
        montgomery_mul(_mm256_sub_epi16(b, a), z, z_qinv),
    )
}

/// Splits two vectors into the "lo" and "hi" butterfly operands of layer `len`.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn split(len: usize, x: __m256i, y: __m256i) -> (__m256i, __m256i) {
    {
        match len {
            8 => (
                _mm256_permute2x128_si256(x, y, 0x20),
                _mm256_permute2x128_si256(x, y, 0x31),
            ),
            4 => (_mm256_unpacklo_epi64(x, y), _mm256_unpackhi_epi64(x, y)),
            _ => {
                let x = _mm256_shuffle_epi32(x, 0b11_01_10_00);
                let y = _mm256_shuffle_epi32(y, 0b11_01_10_00);
                (_mm256_unpacklo_epi64(x, y), _mm256_unpackhi_epi64(x, y))
            }
        }
    }
}

/// Inverse of [`split`].
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn join(len: usize, lo: __m256i, hi: __m256i) -> (__m256i, __m256i) {
    {
        match len {
            8 => (
                _mm256_permute2x128_si256(lo, hi, 0x20),
                _mm256_permute2x128_si256(lo, hi, 0x31),
            ),
            4 => (_mm256_unpacklo_epi64(lo, hi), _mm256_unpackhi_epi64(lo, hi)),
            _ => {
                let x = _mm256_unpacklo_epi64(lo, hi);
                let y = _mm256_unpackhi_epi64(lo, hi);
                (
                    _mm256_shuffle_epi32(x, 0b11_01_10_00),
                    _mm256_shuffle_epi32(y, 0b11_01_10_00),
                )
            }
        }
    }
}

/// Watches an NTT kernel stage by stage. The kernels run with `()`, whose hooks are empty
/// and compile to nothing; the bounds checker's [`probe`] records lane maxima through it, so
/// the bounds are measured on the very schedule that ships.
pub(crate) trait Observer {
    /// Before a butterfly's Montgomery multiplication: its operands `a`, `b` (the forward
    /// butterfly multiplies `b`, the inverse one `b - a`).
    #[inline(always)]
    fn butterfly(&mut self, _a: __m256i, _b: __m256i, _inverse: bool) {}
    /// Before the inverse NTT's final Montgomery multiplication by `128^-1 2^16`.
    #[inline(always)]
    fn scale_input(&mut self, _v: &[__m256i; 16]) {}
    /// After each stage (a layer, a reduction, the scaling, the output normalization).
    #[inline(always)]
    fn stage_done(&mut self, _v: &[__m256i; 16]) {}
}

impl Observer for () {}

#[target_feature(enable = "avx2")]
#[inline(never)]
pub(super) fn ntt_avx2(src: &[u16; N], dst: &mut [u16; N]) {
    ntt_kernel(src, dst, &mut ());
}

#[target_feature(enable = "avx2")]
#[inline(never)]
pub(super) fn inverse_ntt_avx2(src: &[u16; N], dst: &mut [u16; N]) {
    inverse_ntt_kernel(src, dst, &mut ());
}

#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn ntt_kernel<O: Observer>(src: &[u16; N], dst: &mut [u16; N], obs: &mut O) {
    let mut v = load_coeffs(src);
    // Layers len = 128 .. 16: butterflies between whole vectors (step = len / 16 vectors),
    // one call per layer with a constant step so the loops unroll.
    // (step, first zeta index): the layers before used indices 1 .. 8 / step - 1.
    for (step, first_zeta) in [(8, 1), (4, 2), (2, 4), (1, 8)] {
        forward_vector_layer(&mut v, step, first_zeta, obs);
    }
    // Layers len = 8, 4, 2: inside vectors, on pairs of vectors.
    for (layer, len) in [8usize, 4, 2].into_iter().enumerate() {
        for pair in 0..8 {
            let (lo, hi) = split(len, v[2 * pair], v[2 * pair + 1]);
            let z = load(&FWD_SHUFFLED[layer][pair]);
            let zq = load(&FWD_SHUFFLED_QINV[layer][pair]);
            obs.butterfly(lo, hi, false);
            let (lo, hi) = ct_butterfly(lo, hi, z, zq);
            (v[2 * pair], v[2 * pair + 1]) = join(len, lo, hi);
        }
        obs.stage_done(&v);
    }
    // |lane| < 8q: reduce to [0, q).
    for x in &mut v {
        *x = barrett_reduce_i16(*x);
    }
    obs.stage_done(&v);
    for x in &mut v {
        *x = add_q_if_negative(*x);
    }
    obs.stage_done(&v);
    store_coeffs(dst, &v);
}

#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn inverse_ntt_kernel<O: Observer>(src: &[u16; N], dst: &mut [u16; N], obs: &mut O) {
    let mut v = load_coeffs(src);
    // Layers len = 2, 4, 8: inside vectors. Inputs are canonical, so after three layers
    // every lane is below 8q; reduce before the sums can double further.
    for (layer, len) in [2usize, 4, 8].into_iter().enumerate() {
        let table = 2 - layer; // the tables are stored in the order len = 8, 4, 2
        for pair in 0..8 {
            let (lo, hi) = split(len, v[2 * pair], v[2 * pair + 1]);
            let z = load(&INV_SHUFFLED[table][pair]);
            let zq = load(&INV_SHUFFLED_QINV[table][pair]);
            obs.butterfly(lo, hi, true);
            let (lo, hi) = gs_butterfly(lo, hi, z, zq);
            (v[2 * pair], v[2 * pair + 1]) = join(len, lo, hi);
        }
        obs.stage_done(&v);
    }
    for x in &mut v {
        *x = barrett_reduce_i16(*x);
    }
    obs.stage_done(&v);
    // Layers len = 16 .. 128 between whole vectors (step = len / 16 vectors); each layer is
    // its own call with a constant step, so the loops unroll and `v` stays in registers.
    // (step, first zeta index), counting down: 16 / step - 1.
    inverse_vector_layer(&mut v, 1, 15, obs);
    inverse_vector_layer(&mut v, 2, 7, obs);
    inverse_vector_layer(&mut v, 4, 3, obs);
    // After len = 16, 32, 64 (three more doublings from |x| <= q/2): reduce again.
    for x in &mut v {
        *x = barrett_reduce_i16(*x);
    }
    obs.stage_done(&v);
    inverse_vector_layer(&mut v, 8, 1, obs);
    // Multiply by 128^-1 (Montgomery form) and bring to [0, q).
    let s = _mm256_set1_epi16(INTT_SCALE);
    let sq = _mm256_set1_epi16(qinv_of(INTT_SCALE));
    obs.scale_input(&v);
    for x in &mut v {
        *x = montgomery_mul(*x, s, sq);
    }
    obs.stage_done(&v);
    for x in &mut v {
        *x = add_q_if_negative(*x);
    }
    obs.stage_done(&v);
    store_coeffs(dst, &v);
}

/// One forward layer between whole vectors: Cooley-Tukey butterflies on `v[j]`,
/// `v[j + step]`, the zeta index counting up from `first_zeta` (one zeta per block of
/// `2 step` vectors). The caller passes both as constants (no division here: at low
/// opt-levels `8 / step` would stay a `div`, which the constant-time check forbids).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn forward_vector_layer<O: Observer>(
    v: &mut [__m256i; 16],
    step: usize,
    first_zeta: usize,
    obs: &mut O,
) {
    let mut k = first_zeta;
    let mut start = 0;
    while start < 16 {
        let (z, zq) = ZETAS_MONT[k];
        k += 1;
        let (z, zq) = (_mm256_set1_epi16(z), _mm256_set1_epi16(zq));
        for j in start..start + step {
            obs.butterfly(v[j], v[j + step], false);
            (v[j], v[j + step]) = ct_butterfly(v[j], v[j + step], z, zq);
        }
        start += 2 * step;
    }
    obs.stage_done(v);
}

/// One inverse layer between whole vectors: Gentleman-Sande butterflies on `v[j]`,
/// `v[j + step]`, the zeta index counting down from `first_zeta` (one zeta per block of
/// `2 step` vectors; constants from the caller, as for [`forward_vector_layer`]).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn inverse_vector_layer<O: Observer>(
    v: &mut [__m256i; 16],
    step: usize,
    first_zeta: usize,
    obs: &mut O,
) {
    let mut k = first_zeta;
    let mut start = 0;
    while start < 16 {
        let (z, zq) = ZETAS_MONT[k];
        k -= 1;
        let (z, zq) = (_mm256_set1_epi16(z), _mm256_set1_epi16(zq));
        for j in start..start + step {
            obs.butterfly(v[j], v[j + step], true);
            (v[j], v[j + step]) = gs_butterfly(v[j], v[j + step], z, zq);
        }
        start += 2 * step;
    }
    obs.stage_done(v);
}
