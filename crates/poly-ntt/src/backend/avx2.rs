//! The AVX2 backend: 16-lane `i16` NTTs with Montgomery multiplication and lazy
//! base-case accumulation in 32-bit lanes (`vpmaddwd`).
//!
//! # Representation
//! Inputs and outputs are the same as the portable backend's: canonical coefficients in
//! FIPS 203 order. Inside, coefficients are signed `i16` lanes that grow without reduction
//! as far as the bounds below allow, and are brought back to `[0, q)` at the end.
//!
//! # Bounds (checked by `cargo xtask bounds` and the differential tests)
//! - `montgomery_mul`: for `|a| <= 2^15` and a constant `|b| < q`, the result is
//!   `a b 2^-16 mod q` in `(-q, q)` (exact: `(ab - mq) / 2^16` with `|m| <= 2^15`).
//! - Forward NTT: canonical input; each of the 7 layers adds at most `q` to `|x|`, so every
//!   lane stays below [`NTT_LANE_BOUND`] = `8q < 2^15`, inside the `i16` range and inside
//!   Montgomery's input domain. One signed Barrett reduction (`barrett_reduce_i16`, exact
//!   for every `i16`) and one conditional addition end it.
//! - Inverse NTT: sums double per layer, so after layers 3 and 6 every lane is reduced
//!   with `barrett_reduce_i16` (to `|x| <= q/2`), keeping lanes below `8 * (q/2) * 2` before
//!   each reduction ([`INTT_LANE_BOUND`]); the final multiplication by `128^-1 2^16` is Montgomery.
//! - Accumulation: `vpmaddwd` of canonical operands adds at most
//!   [`crate::mlkem::PRODUCT_TERM_MAX`] = `2 (q-1)^2` per term to a signed 32-bit lane; the final
//!   Montgomery reduction needs the sum at most [`AVX2_ACCUMULATOR_LIMIT`] =
//!   `2^31 - 2^15 q - 1`, which allows [`AVX2_MAX_TERMS`] terms.
//! - Coefficient-wise addition / subtraction: canonical operands in unsigned 16-bit lanes;
//!   the sum `a + b` is below `2q` (and `a - b + q` lies in `[1, 2q)`), so one conditional
//!   subtraction of q, done as an unsigned minimum, makes them canonical.
#![allow(unsafe_code)]

use super::{Backend, Portable};
use crate::mlkem::zetas::{GAMMAS, ZETAS};
use crate::mlkem::{MlKem, N, PAIRS};
use core::arch::x86_64::{
    __m256i, _mm_loadu_si128, _mm256_add_epi16, _mm256_add_epi32, _mm256_and_si256,
    _mm256_blend_epi16, _mm256_cvtepu16_epi32, _mm256_loadu_si256, _mm256_madd_epi16,
    _mm256_min_epu16, _mm256_mulhi_epi16, _mm256_mullo_epi16, _mm256_or_si256, _mm256_packs_epi32,
    _mm256_permute2x128_si256, _mm256_set1_epi16, _mm256_shuffle_epi32, _mm256_slli_epi32,
    _mm256_srai_epi16, _mm256_srai_epi32, _mm256_srli_epi32, _mm256_storeu_si256, _mm256_sub_epi16,
    _mm256_unpackhi_epi32, _mm256_unpackhi_epi64, _mm256_unpacklo_epi32, _mm256_unpacklo_epi64,
};
use lattice_field::gf3329::Q;

/// The AVX2 backend. Its functions fall back to [`Portable`] on CPUs without AVX2
/// (detection is done once and cached), so it is always safe to call; select it with
/// [`super::use_avx2`] to honour [`super::force_portable`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Avx2;

const Q_I16: i16 = Q as i16;
/// `q^-1 mod 2^16`, as a signed 16-bit value.
const QINV: i16 = -3327;
/// `2^32 mod q`: multiplying a Montgomery-reduced value by it (Montgomery) restores it.
const R2: i16 = 1353;
/// `128^-1 * 2^16 mod q`: the inverse NTT's final scaling, in Montgomery form.
const INTT_SCALE: i16 = 512;

const _: () = assert!((Q as i32 * QINV as i32) & 0xffff == 1);
const _: () = assert!(R2 as i64 == (1i64 << 32) % Q as i64);
const _: () = assert!((INTT_SCALE as i64 * 128) % Q as i64 == (1i64 << 16) % Q as i64);

/// Bound on `|lane|` inside the forward NTT: `8q`.
pub const NTT_LANE_BOUND: i32 = 8 * Q as i32;
/// Bound on `|lane|` inside the inverse NTT between reductions: three layers of doubling
/// from canonical inputs (`< q`) or from Barrett outputs (`<= q/2`) stay below `8q`.
pub const INTT_LANE_BOUND: i32 = 8 * Q as i32;
/// Largest accumulator lane value the final Montgomery reduction accepts:
/// `2^31 - 2^15 q - 1` (at `2^31 - 2^15 q` the result, `2^15`, no longer fits an `i16`).
pub const AVX2_ACCUMULATOR_LIMIT: i64 = (1i64 << 31) - (1i64 << 15) * Q as i64 - 1;
/// Number of base-case products one AVX2 accumulator lane can take.
pub const AVX2_MAX_TERMS: usize =
    (AVX2_ACCUMULATOR_LIMIT / crate::mlkem::PRODUCT_TERM_MAX as i64) as usize;

const _: () = assert!(NTT_LANE_BOUND < i16::MAX as i32);
const _: () = assert!(INTT_LANE_BOUND < i16::MAX as i32);
const _: () = assert!(AVX2_MAX_TERMS >= crate::mlkem::MAX_RANK);

/// `x * 2^16 mod q`, centered in `(-q/2, q/2]`, for twiddle tables in Montgomery form.
const fn to_mont(x: u16) -> i16 {
    let r = ((x as u32) << 16) % Q as u32;
    if r > Q as u32 / 2 {
        r as i16 - Q_I16
    } else {
        r as i16
    }
}

/// `b * q^-1 mod 2^16`: the precomputed second factor of a Montgomery multiplication by b.
const fn qinv_of(b: i16) -> i16 {
    b.wrapping_mul(QINV)
}

/// Coefficient (within a 32-coefficient pair of vectors `x`, `y`) held by lane `lane` of
/// the "lo" operand of a layer with butterfly length `len` in {8, 4, 2}; the "hi" operand's
/// lane holds that coefficient plus `len`.
const fn lo_lane_coefficient(len: usize, lane: usize) -> usize {
    let (half, p) = (lane / 8, lane % 8);
    match len {
        // lo = [x0..8 | y0..8]
        8 => {
            if lane < 8 {
                lane
            } else {
                16 + lane - 8
            }
        }
        // lo = unpacklo_epi64(x, y) = [x(8h)..+4, y(8h)..+4] per 128-bit half h
        4 => {
            if p < 4 {
                8 * half + p
            } else {
                16 + 8 * half + p - 4
            }
        }
        // x' = dword order [0, 2, 1, 3] within each half; lo = unpacklo_epi64(x', y')
        2 => {
            let (src, q) = if p < 4 { (0, p) } else { (16, p - 4) };
            let dword = [0, 2][q / 2];
            src + 8 * half + 2 * dword + q % 2
        }
        _ => panic!("len must be 8, 4 or 2"),
    }
}

/// Twiddles, in Montgomery form, for the in-register layers (len 8, 4, 2), one vector per
/// pair of coefficient vectors: `[layer][pair][lane]`. `inverse` selects Algorithm 10's
/// order (zeta index `256/len - 1 - block`) instead of Algorithm 9's (`128/len + block`).
const fn shuffled_zetas(inverse: bool, with_qinv: bool) -> [[[i16; 16]; 8]; 3] {
    let mut t = [[[0i16; 16]; 8]; 3];
    let lens = [8usize, 4, 2];
    let mut l = 0;
    while l < 3 {
        let len = lens[l];
        let mut pair = 0;
        while pair < 8 {
            let mut lane = 0;
            while lane < 16 {
                let c = 32 * pair + lo_lane_coefficient(len, lane);
                let block = c / (2 * len);
                let idx = if inverse {
                    256 / len - 1 - block
                } else {
                    128 / len + block
                };
                let z = to_mont(ZETAS[idx]);
                t[l][pair][lane] = if with_qinv { qinv_of(z) } else { z };
                lane += 1;
            }
            pair += 1;
        }
        l += 1;
    }
    t
}

const FWD_SHUFFLED: [[[i16; 16]; 8]; 3] = shuffled_zetas(false, false);
const FWD_SHUFFLED_QINV: [[[i16; 16]; 8]; 3] = shuffled_zetas(false, true);
const INV_SHUFFLED: [[[i16; 16]; 8]; 3] = shuffled_zetas(true, false);
const INV_SHUFFLED_QINV: [[[i16; 16]; 8]; 3] = shuffled_zetas(true, true);

/// Scalar twiddles in Montgomery form with their q^-1 multiples, for the layers between
/// whole vectors (len 128 .. 16).
const ZETAS_MONT: [(i16, i16); 128] = {
    let mut t = [(0i16, 0i16); 128];
    let mut i = 0;
    while i < 128 {
        let z = to_mont(ZETAS[i]);
        t[i] = (z, qinv_of(z));
        i += 1;
    }
    t
};

/// Gammas in Montgomery form, placed in the odd lanes of each 16-lane vector (pairs 8m..8m+8).
const GAMMAS_ODD: [[i16; 16]; 16] = {
    let mut t = [[0i16; 16]; 16];
    let mut m = 0;
    while m < 16 {
        let mut j = 0;
        while j < 8 {
            t[m][2 * j + 1] = to_mont(GAMMAS[8 * m + j]);
            j += 1;
        }
        m += 1;
    }
    t
};

#[inline]
#[target_feature(enable = "avx2")]
fn load(src: &[i16; 16]) -> __m256i {
    // SAFETY: `src` is 32 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_si256(src.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx2")]
fn load_coeffs(f: &[u16; N]) -> [__m256i; 16] {
    // SAFETY: each of the 16 reads covers coefficients 16i..16i+16 of the 256-entry array.
    core::array::from_fn(|i| unsafe { _mm256_loadu_si256(f.as_ptr().add(16 * i).cast()) })
}

#[inline]
#[target_feature(enable = "avx2")]
fn store_coeffs(f: &mut [u16; N], v: &[__m256i; 16]) {
    for (i, x) in v.iter().enumerate() {
        // SAFETY: each write covers coefficients 16i..16i+16 of the 256-entry array.
        unsafe { _mm256_storeu_si256(f.as_mut_ptr().add(16 * i).cast(), *x) };
    }
}

/// `a * b * 2^-16 mod q` in `(-q, q)`, for `|a| <= 2^15`, `|b| < q`, `b_qinv = b q^-1 mod 2^16`.
#[inline]
#[target_feature(enable = "avx2")]
fn montgomery_mul(a: __m256i, b: __m256i, b_qinv: __m256i) -> __m256i {
    let hi = _mm256_mulhi_epi16(a, b);
    let m = _mm256_mullo_epi16(a, b_qinv);
    let mq_hi = _mm256_mulhi_epi16(m, _mm256_set1_epi16(Q_I16));
    _mm256_sub_epi16(hi, mq_hi)
}

/// Signed Barrett reduction of every `i16` lane: a representative of `x mod q` in
/// `[-(q-1)/2, (q-1)/2]` (exact for every `i16` input; checked exhaustively in the tests).
#[inline]
#[target_feature(enable = "avx2")]
fn barrett_reduce_i16(x: __m256i) -> __m256i {
    // v = round(2^26 / q); t = round(x v / 2^26).
    let t = _mm256_mulhi_epi16(x, _mm256_set1_epi16(20159));
    let t = _mm256_srai_epi16(_mm256_add_epi16(t, _mm256_set1_epi16(1 << 9)), 10);
    _mm256_sub_epi16(x, _mm256_mullo_epi16(t, _mm256_set1_epi16(Q_I16)))
}

/// Adds q to negative lanes: `(-q, q)` to `[0, q)`.
#[inline]
#[target_feature(enable = "avx2")]
fn add_q_if_negative(x: __m256i) -> __m256i {
    _mm256_add_epi16(
        x,
        _mm256_and_si256(_mm256_srai_epi16(x, 15), _mm256_set1_epi16(Q_I16)),
    )
}

/// Cooley-Tukey butterfly: `(a + zeta b, a - zeta b)`.
#[inline]
#[target_feature(enable = "avx2")]
fn ct_butterfly(a: __m256i, b: __m256i, z: __m256i, z_qinv: __m256i) -> (__m256i, __m256i) {
    let t = montgomery_mul(b, z, z_qinv);
    (_mm256_add_epi16(a, t), _mm256_sub_epi16(a, t))
}

/// Gentleman-Sande butterfly: `(a + b, zeta (b - a))`.
#[inline]
#[target_feature(enable = "avx2")]
fn gs_butterfly(a: __m256i, b: __m256i, z: __m256i, z_qinv: __m256i) -> (__m256i, __m256i) {
    (
        _mm256_add_epi16(a, b),
        montgomery_mul(_mm256_sub_epi16(b, a), z, z_qinv),
    )
}

/// Splits two vectors into the "lo" and "hi" butterfly operands of layer `len`.
#[inline]
#[target_feature(enable = "avx2")]
fn split(len: usize, x: __m256i, y: __m256i) -> (__m256i, __m256i) {
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
fn join(len: usize, lo: __m256i, hi: __m256i) -> (__m256i, __m256i) {
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
fn ntt_avx2(f: &mut [u16; N]) {
    ntt_kernel(f, &mut ());
}

#[target_feature(enable = "avx2")]
fn inverse_ntt_avx2(f: &mut [u16; N]) {
    inverse_ntt_kernel(f, &mut ());
}

#[inline]
#[target_feature(enable = "avx2")]
fn ntt_kernel<O: Observer>(f: &mut [u16; N], obs: &mut O) {
    let mut v = load_coeffs(f);
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
    store_coeffs(f, &v);
}

#[inline]
#[target_feature(enable = "avx2")]
fn inverse_ntt_kernel<O: Observer>(f: &mut [u16; N], obs: &mut O) {
    let mut v = load_coeffs(f);
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
    store_coeffs(f, &v);
}

/// One forward layer between whole vectors: Cooley-Tukey butterflies on `v[j]`,
/// `v[j + step]`, the zeta index counting up from `first_zeta` (one zeta per block of
/// `2 step` vectors). The caller passes both as constants (no division here: at low
/// opt-levels `8 / step` would stay a `div`, which the constant-time check forbids).
#[inline]
#[target_feature(enable = "avx2")]
fn forward_vector_layer<O: Observer>(
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
fn inverse_vector_layer<O: Observer>(
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

#[target_feature(enable = "avx2")]
fn mul_cache_avx2(b: &[u16; N], out: &mut [u16; PAIRS]) {
    let v = load_coeffs(b);
    for m in 0..16 {
        let g = load(&GAMMAS_ODD[m]);
        let gq = load(&GAMMAS_ODD_QINV[m]);
        // Odd lanes: b[2i+1] * gamma_i; even lanes: 0.
        let prod = add_q_if_negative(montgomery_mul(v[m], g, gq));
        let mut lanes = [0u16; 16];
        // SAFETY: `lanes` is 32 writable bytes.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), prod) };
        for j in 0..8 {
            out[8 * m + j] = lanes[2 * j + 1];
        }
    }
}

const GAMMAS_ODD_QINV: [[i16; 16]; 16] = {
    let mut t = GAMMAS_ODD;
    let mut m = 0;
    while m < 16 {
        let mut j = 0;
        while j < 16 {
            t[m][j] = qinv_of(t[m][j]);
            j += 1;
        }
        m += 1;
    }
    t
};

/// Accumulator layout of this backend: for each block of 16 coefficients (8 pairs) `m`,
/// `acc[16m .. 16m+8]` holds the eight `c0` sums and `acc[16m+8 .. 16m+16]` the eight `c1`
/// sums, in pair order (the natural output of `vpmaddwd`).
// The __m256i pointers below are only used with unaligned loads and stores.
#[allow(clippy::cast_ptr_alignment)]
#[target_feature(enable = "avx2")]
fn accumulate_avx2(acc: &mut [u32; N], a: &[u16; N], b: &[u16; N], b_zeta: &[u16; PAIRS]) {
    for m in 0..16 {
        // SAFETY: reads of 16 coefficients (32 bytes) of `a`, `b` and 8 entries (16 bytes)
        // of `b_zeta` at block m, and a read-modify-write of 16 u32 (64 bytes) of `acc`,
        // all inside their arrays.
        unsafe {
            let av = _mm256_loadu_si256(a.as_ptr().add(16 * m).cast());
            let bv = _mm256_loadu_si256(b.as_ptr().add(16 * m).cast());
            let bz = _mm_loadu_si128(b_zeta.as_ptr().add(8 * m).cast());
            // [b0, b1*gamma, b2, b3*gamma', ...] and [b1, b0, b3, b2, ...].
            let bz = _mm256_slli_epi32(_mm256_cvtepu16_epi32(bz), 16);
            let b_c0 = _mm256_blend_epi16(bv, bz, 0b1010_1010);
            let b_c1 = _mm256_or_si256(_mm256_slli_epi32(bv, 16), _mm256_srli_epi32(bv, 16));
            // Each 32-bit lane gains at most 2 (q-1)^2 = PRODUCT_TERM_MAX (operands canonical).
            let c0 = _mm256_madd_epi16(av, b_c0);
            let c1 = _mm256_madd_epi16(av, b_c1);
            let p0 = acc.as_mut_ptr().add(16 * m).cast::<__m256i>();
            let p1 = acc.as_mut_ptr().add(16 * m + 8).cast::<__m256i>();
            _mm256_storeu_si256(p0, _mm256_add_epi32(_mm256_loadu_si256(p0), c0));
            _mm256_storeu_si256(p1, _mm256_add_epi32(_mm256_loadu_si256(p1), c1));
        }
    }
}

/// Montgomery reduction of 32-bit lanes in `[0, AVX2_ACCUMULATOR_LIMIT]`: `x 2^-16 mod q`,
/// with `|r| <= (x + 2^15 q) / 2^16 < 2^15`, sign-extended to 32 bits.
#[inline]
#[target_feature(enable = "avx2")]
fn montgomery_reduce_i32(x: __m256i) -> __m256i {
    {
        let m = _mm256_mullo_epi16(x, _mm256_set1_epi16(QINV));
        let mq_hi = _mm256_mulhi_epi16(m, _mm256_set1_epi16(Q_I16));
        // Low 16 bits of each 32-bit lane: (x >> 16) - (m q >> 16) = (x - m q) / 2^16.
        let r = _mm256_sub_epi16(_mm256_srai_epi32(x, 16), mq_hi);
        _mm256_srai_epi32(_mm256_slli_epi32(r, 16), 16)
    }
}

#[target_feature(enable = "avx2")]
fn reduce_accumulator_avx2(acc: &[u32; N], out: &mut [u16; N]) {
    let r2 = _mm256_set1_epi16(R2);
    let r2q = _mm256_set1_epi16(qinv_of(R2));
    for m in 0..16 {
        // SAFETY: reads 16 u32 of `acc` and writes 16 u16 of `out` at block m, in bounds.
        unsafe {
            let c0 = _mm256_loadu_si256(acc.as_ptr().add(16 * m).cast());
            let c1 = _mm256_loadu_si256(acc.as_ptr().add(16 * m + 8).cast());
            // Interleave to coefficient order: [c0_0, c1_0, c0_1, c1_1 | c0_4, c1_4, ...].
            let lo = montgomery_reduce_i32(_mm256_unpacklo_epi32(c0, c1));
            let hi = montgomery_reduce_i32(_mm256_unpackhi_epi32(c0, c1));
            // packs: [lo.0 (pairs 0,1), hi.0 (pairs 2,3) | lo.1 (pairs 4,5), hi.1 (pairs 6,7)].
            let packed = _mm256_packs_epi32(lo, hi);
            // Undo the 2^-16 of the reduction: Montgomery multiplication by 2^32 mod q.
            let x = add_q_if_negative(montgomery_mul(packed, r2, r2q));
            _mm256_storeu_si256(out.as_mut_ptr().add(16 * m).cast(), x);
        }
    }
}

/// `a + b mod q` in every lane, for canonical (`[0, q)`) lanes; output canonical.
///
/// The sum `s` is at most `2q - 2` (sum < 2q, one conditional subtraction): if `s >= q`,
/// `s - q` is in `[0, q - 1)` and is the smaller of the two as unsigned numbers; if `s < q`,
/// `s - q` wraps to at least `2^16 - q` and `s` is the smaller. One unsigned minimum
/// therefore subtracts q exactly when needed, with no data-dependent branch.
#[inline]
#[target_feature(enable = "avx2")]
fn add_mod_q(a: __m256i, b: __m256i) -> __m256i {
    let s = _mm256_add_epi16(a, b);
    _mm256_min_epu16(s, _mm256_sub_epi16(s, _mm256_set1_epi16(Q_I16)))
}

/// `a - b mod q` in every lane, for canonical (`[0, q)`) lanes; output canonical.
///
/// `d = a - b` (mod 2^16): if `a >= b`, `d` is in `[0, q)` and `d + q` in `[q, 2q)` is the
/// larger; if `a < b`, `d` wrapped to at least `2^16 - q + 1` while `d + q` wraps back to
/// `a - b + q` in `[1, q)`, the smaller. The unsigned minimum is `a - b + q` (in `[1, 2q)`)
/// reduced by one conditional subtraction, with no data-dependent branch.
#[inline]
#[target_feature(enable = "avx2")]
fn sub_mod_q(a: __m256i, b: __m256i) -> __m256i {
    let d = _mm256_sub_epi16(a, b);
    _mm256_min_epu16(d, _mm256_add_epi16(d, _mm256_set1_epi16(Q_I16)))
}

#[target_feature(enable = "avx2")]
fn add_avx2(a: &mut [u16; N], b: &[u16; N]) {
    for m in 0..16 {
        // SAFETY: reads 16 coefficients (32 bytes) of `a` and `b` at block m and writes them
        // back to `a`, all inside the 256-entry arrays; `loadu`/`storeu` need no alignment.
        unsafe {
            let pa = a.as_mut_ptr().add(16 * m);
            let vb = _mm256_loadu_si256(b.as_ptr().add(16 * m).cast());
            _mm256_storeu_si256(pa.cast(), add_mod_q(_mm256_loadu_si256(pa.cast()), vb));
        }
    }
}

#[target_feature(enable = "avx2")]
fn sub_avx2(a: &mut [u16; N], b: &[u16; N]) {
    for m in 0..16 {
        // SAFETY: reads 16 coefficients (32 bytes) of `a` and `b` at block m and writes them
        // back to `a`, all inside the 256-entry arrays; `loadu`/`storeu` need no alignment.
        unsafe {
            let pa = a.as_mut_ptr().add(16 * m);
            let vb = _mm256_loadu_si256(b.as_ptr().add(16 * m).cast());
            _mm256_storeu_si256(pa.cast(), sub_mod_q(_mm256_loadu_si256(pa.cast()), vb));
        }
    }
}

/// Whether every coefficient of `a` and `b` is canonical, for debug assertions (the scalar
/// field helpers assert it per coefficient; the vector kernels cannot).
fn canonical(a: &[u16; N], b: &[u16; N]) -> bool {
    a.iter().chain(b).all(|&c| c < Q)
}

impl Backend<MlKem> for Avx2 {
    const MAX_TERMS: usize = AVX2_MAX_TERMS;

    fn ntt(coeffs: &mut [u16; N]) {
        if super::avx2_detected() {
            // SAFETY: the CPU supports AVX2 (runtime detection above).
            unsafe { ntt_avx2(coeffs) }
        } else {
            <Portable as Backend<MlKem>>::ntt(coeffs);
        }
    }

    fn inverse_ntt(coeffs: &mut [u16; N]) {
        if super::avx2_detected() {
            // SAFETY: the CPU supports AVX2 (runtime detection above).
            unsafe { inverse_ntt_avx2(coeffs) }
        } else {
            <Portable as Backend<MlKem>>::inverse_ntt(coeffs);
        }
    }

    fn mul_cache(b: &[u16; N], out: &mut [u16; PAIRS]) {
        if super::avx2_detected() {
            // SAFETY: the CPU supports AVX2 (runtime detection above).
            unsafe { mul_cache_avx2(b, out) }
        } else {
            <Portable as Backend<MlKem>>::mul_cache(b, out);
        }
    }

    fn accumulate(acc: &mut [u32; N], a: &[u16; N], b: &[u16; N], b_zeta: &[u16; PAIRS]) {
        // The detection result never changes, so the accumulator layout chosen here is the
        // one `reduce_accumulator` reads.
        if super::avx2_detected() {
            // SAFETY: the CPU supports AVX2 (runtime detection above).
            unsafe { accumulate_avx2(acc, a, b, b_zeta) }
        } else {
            <Portable as Backend<MlKem>>::accumulate(acc, a, b, b_zeta);
        }
    }

    fn reduce_accumulator(acc: &[u32; N], out: &mut [u16; N]) {
        if super::avx2_detected() {
            // SAFETY: the CPU supports AVX2 (runtime detection above).
            unsafe { reduce_accumulator_avx2(acc, out) }
        } else {
            <Portable as Backend<MlKem>>::reduce_accumulator(acc, out);
        }
    }

    fn add(a: &mut [u16; N], b: &[u16; N]) {
        debug_assert!(canonical(a, b), "non-canonical operand");
        if super::avx2_detected() {
            // SAFETY: the CPU supports AVX2 (runtime detection above).
            unsafe { add_avx2(a, b) }
        } else {
            <Portable as Backend<MlKem>>::add(a, b);
        }
    }

    fn sub(a: &mut [u16; N], b: &[u16; N]) {
        debug_assert!(canonical(a, b), "non-canonical operand");
        if super::avx2_detected() {
            // SAFETY: the CPU supports AVX2 (runtime detection above).
            unsafe { sub_avx2(a, b) }
        } else {
            <Portable as Backend<MlKem>>::sub(a, b);
        }
    }
}

/// Entry points for `cargo xtask bounds`; not part of the API.
///
/// The batch wrappers run the kernels' own `montgomery_mul`, `barrett_reduce_i16` and
/// `montgomery_reduce_i32` on arrays of lanes. [`probe::ntt`] and [`probe::inverse_ntt`]
/// replay the layer schedule of the kernels with the kernels' butterflies, shuffles and
/// twiddle tables and record the largest `|lane|` after every stage; the checker compares
/// their outputs with the unmodified kernels. A change to the kernels' schedule of
/// reductions must be mirrored in these two functions (the checker's output comparison
/// does not see intermediate ranges).
///
/// Every function panics when the CPU lacks AVX2: check
/// [`avx2_detected`](crate::backend::avx2_detected) first.
#[doc(hidden)]
pub mod probe {
    use super::{
        FWD_SHUFFLED, FWD_SHUFFLED_QINV, GAMMAS_ODD, GAMMAS_ODD_QINV, INTT_SCALE, INV_SHUFFLED,
        INV_SHUFFLED_QINV, R2, ZETAS_MONT, load, qinv_of,
    };
    use crate::mlkem::N;
    use core::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm256_set1_epi16, _mm256_storeu_si256};

    /// One step of an NTT kernel, as recorded by [`Trace`].
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Stage {
        /// A butterfly layer with this length (Cooley-Tukey forward, Gentleman-Sande inverse).
        Layer(usize),
        /// The signed Barrett reduction (`barrett_reduce_i16`) of every lane.
        Barrett,
        /// The inverse NTT's Montgomery multiplication by `128^-1 2^16`.
        Scale,
        /// The final conditional addition of q (the stored output).
        Output,
    }

    /// The forward kernel's stages, in order.
    pub const NTT_STAGES: [Stage; 9] = [
        Stage::Layer(128),
        Stage::Layer(64),
        Stage::Layer(32),
        Stage::Layer(16),
        Stage::Layer(8),
        Stage::Layer(4),
        Stage::Layer(2),
        Stage::Barrett,
        Stage::Output,
    ];

    /// The inverse kernel's stages, in order.
    pub const INTT_STAGES: [Stage; 11] = [
        Stage::Layer(2),
        Stage::Layer(4),
        Stage::Layer(8),
        Stage::Barrett,
        Stage::Layer(16),
        Stage::Layer(32),
        Stage::Layer(64),
        Stage::Barrett,
        Stage::Layer(128),
        Stage::Scale,
        Stage::Output,
    ];

    /// What one traced run saw, per stage (same order as [`NTT_STAGES`] / [`INTT_STAGES`]).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Trace<const S: usize> {
        /// Largest `|lane|` after the stage.
        pub lane_max: [i32; S],
        /// Largest `|a|` of the variable operand of the stage's Montgomery multiplications,
        /// computed exactly in `i32` (for the inverse butterflies, `b - a` before it is
        /// formed in 16 bits); 0 for stages without one.
        pub mont_input_max: [i32; S],
    }

    impl<const S: usize> Default for Trace<S> {
        fn default() -> Self {
            Self {
                lane_max: [0; S],
                mont_input_max: [0; S],
            }
        }
    }

    fn require_avx2() {
        assert!(
            crate::backend::avx2_detected(),
            "the AVX2 probe needs a CPU with AVX2"
        );
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn lanes(x: __m256i) -> [i16; 16] {
        let mut out = [0i16; 16];
        // SAFETY: `out` is 32 writable bytes; `storeu` has no alignment requirement.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), x) };
        out
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn store(out: &mut [i16; 16], x: __m256i) {
        // SAFETY: `out` is 32 writable bytes; `storeu` has no alignment requirement.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), x) };
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn store_i32(out: &mut [i32; 8], x: __m256i) {
        // SAFETY: `out` is 32 writable bytes; `storeu` has no alignment requirement.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), x) };
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn load_i32(x: &[i32; 8]) -> __m256i {
        // SAFETY: `x` is 32 readable bytes; `loadu` has no alignment requirement.
        unsafe { _mm256_loadu_si256(x.as_ptr().cast()) }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn abs_max(x: __m256i) -> i32 {
        lanes(x)
            .iter()
            .map(|&l| i32::from(l).abs())
            .max()
            .unwrap_or(0)
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn abs_max_all(v: &[__m256i; 16]) -> i32 {
        v.iter().map(|&x| abs_max(x)).max().unwrap_or(0)
    }

    /// Largest `|hi - lo|` over the lanes, in `i32`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn difference_max(lo: __m256i, hi: __m256i) -> i32 {
        let (lo, hi) = (lanes(lo), lanes(hi));
        lo.iter()
            .zip(&hi)
            .map(|(&a, &b)| (i32::from(b) - i32::from(a)).abs())
            .max()
            .unwrap_or(0)
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn barrett_blocks(x: &[[i16; 16]], out: &mut [[i16; 16]]) {
        for (o, v) in out.iter_mut().zip(x) {
            store(o, super::barrett_reduce_i16(load(v)));
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn montgomery_mul_blocks(a: &[[i16; 16]], b: i16, b_qinv: i16, out: &mut [[i16; 16]]) {
        let (b, b_qinv) = (_mm256_set1_epi16(b), _mm256_set1_epi16(b_qinv));
        for (o, v) in out.iter_mut().zip(a) {
            store(o, super::montgomery_mul(load(v), b, b_qinv));
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn montgomery_reduce_blocks(x: &[[i32; 8]], out: &mut [[i32; 8]]) {
        for (o, v) in out.iter_mut().zip(x) {
            store_i32(o, super::montgomery_reduce_i32(load_i32(v)));
        }
    }

    /// The kernels' signed Barrett reduction of every lane of `x`, into `out`.
    #[inline]
    pub fn barrett_reduce_i16(x: &[[i16; 16]], out: &mut [[i16; 16]]) {
        require_avx2();
        assert_eq!(x.len(), out.len(), "input and output lengths differ");
        // SAFETY: the CPU supports AVX2 (checked above).
        unsafe { barrett_blocks(x, out) }
    }

    /// The kernels' Montgomery multiplication of every lane of `a` by the constant `b`
    /// (with its precomputed `b_qinv = b q^-1 mod 2^16`), into `out`.
    #[inline]
    pub fn montgomery_mul(a: &[[i16; 16]], b: i16, b_qinv: i16, out: &mut [[i16; 16]]) {
        require_avx2();
        assert_eq!(a.len(), out.len(), "input and output lengths differ");
        // SAFETY: the CPU supports AVX2 (checked above).
        unsafe { montgomery_mul_blocks(a, b, b_qinv, out) }
    }

    /// The accumulator's Montgomery reduction of every 32-bit lane of `x`, into `out`
    /// (sign-extended 16-bit results).
    #[inline]
    pub fn montgomery_reduce_i32(x: &[[i32; 8]], out: &mut [[i32; 8]]) {
        require_avx2();
        assert_eq!(x.len(), out.len(), "input and output lengths differ");
        // SAFETY: the CPU supports AVX2 (checked above).
        unsafe { montgomery_reduce_blocks(x, out) }
    }

    /// Calls `visit(table, b, b_qinv)` for every constant operand of a Montgomery
    /// multiplication in the kernels: every lane of the in-register twiddle tables, every
    /// entry of the scalar twiddle table, every lane of the gamma tables (zero in the even
    /// lanes), `R2` and `INTT_SCALE`, each with the `q^-1` multiple the kernels use with it.
    pub fn for_each_montgomery_constant(mut visit: impl FnMut(&'static str, i16, i16)) {
        for (name, t, tq) in [
            ("FWD_SHUFFLED", &FWD_SHUFFLED, &FWD_SHUFFLED_QINV),
            ("INV_SHUFFLED", &INV_SHUFFLED, &INV_SHUFFLED_QINV),
        ] {
            let lanes = t.iter().flatten().flatten();
            for (&b, &bq) in lanes.zip(tq.iter().flatten().flatten()) {
                visit(name, b, bq);
            }
        }
        for &(z, zq) in &ZETAS_MONT {
            visit("ZETAS_MONT", z, zq);
        }
        let gammas = GAMMAS_ODD.iter().flatten();
        for (&g, &gq) in gammas.zip(GAMMAS_ODD_QINV.iter().flatten()) {
            visit("GAMMAS_ODD", g, gq);
        }
        visit("R2", R2, qinv_of(R2));
        visit("INTT_SCALE", INTT_SCALE, qinv_of(INTT_SCALE));
    }

    /// Records a [`Trace`] while a kernel runs (the kernels' [`super::Observer`]).
    struct Recorder<const S: usize> {
        trace: Trace<S>,
        stage: usize,
    }

    impl<const S: usize> super::Observer for Recorder<S> {
        fn butterfly(&mut self, a: __m256i, b: __m256i, inverse: bool) {
            // SAFETY: the probe's entry points checked that the CPU supports AVX2.
            let input = unsafe {
                if inverse {
                    difference_max(a, b)
                } else {
                    abs_max(b)
                }
            };
            let slot = &mut self.trace.mont_input_max[self.stage];
            *slot = (*slot).max(input);
        }

        fn scale_input(&mut self, v: &[__m256i; 16]) {
            // SAFETY: the probe's entry points checked that the CPU supports AVX2.
            self.trace.mont_input_max[self.stage] = unsafe { abs_max_all(v) };
        }

        fn stage_done(&mut self, v: &[__m256i; 16]) {
            // SAFETY: the probe's entry points checked that the CPU supports AVX2.
            self.trace.lane_max[self.stage] = unsafe { abs_max_all(v) };
            self.stage += 1;
        }
    }

    /// The forward NTT of `f` in place, by the kernel itself, recording every stage.
    #[inline]
    pub fn ntt(f: &mut [u16; N]) -> Trace<9> {
        require_avx2();
        let mut recorder = Recorder {
            trace: Trace::default(),
            stage: 0,
        };
        // SAFETY: the CPU supports AVX2 (checked above).
        unsafe { super::ntt_kernel(f, &mut recorder) };
        assert_eq!(
            recorder.stage,
            NTT_STAGES.len(),
            "the kernel's stages changed"
        );
        recorder.trace
    }

    /// The inverse NTT of `f` in place, by the kernel itself, recording every stage.
    #[inline]
    pub fn inverse_ntt(f: &mut [u16; N]) -> Trace<11> {
        require_avx2();
        let mut recorder = Recorder {
            trace: Trace::default(),
            stage: 0,
        };
        // SAFETY: the CPU supports AVX2 (checked above).
        unsafe { super::inverse_ntt_kernel(f, &mut recorder) };
        assert_eq!(
            recorder.stage,
            INTT_STAGES.len(),
            "the kernel's stages changed"
        );
        recorder.trace
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::arch::x86_64::_mm256_set_epi16;

    #[target_feature(enable = "avx2")]
    fn lanes(x: __m256i) -> [i16; 16] {
        let mut out = [0i16; 16];
        // SAFETY: `out` is 32 writable bytes.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), x) };
        out
    }

    #[test]
    fn barrett_i16_exact_for_every_i16() {
        if !super::super::avx2_detected() {
            return;
        }
        let q = i32::from(Q_I16);
        let mut x = i32::from(i16::MIN);
        while x <= i32::from(i16::MAX) {
            let chunk: [i16; 16] =
                core::array::from_fn(|i| (x + i as i32).min(i32::from(i16::MAX)) as i16);
            // SAFETY: AVX2 is present (checked above).
            let out = unsafe { lanes(barrett_reduce_i16(load(&chunk))) };
            for (i, &r) in out.iter().enumerate() {
                let v = i32::from(chunk[i]);
                assert_eq!((i32::from(r) - v).rem_euclid(q), 0, "x = {v}");
                assert!(i32::from(r).abs() <= (q - 1) / 2, "x = {v}: r = {r}");
            }
            x += 16;
        }
    }

    #[test]
    fn montgomery_mul_range_and_value() {
        if !super::super::avx2_detected() {
            return;
        }
        let q = i64::from(Q_I16);
        for b in [1i16, -1, 1353, 512, (Q_I16 - 1) / 2, -(Q_I16 - 1) / 2] {
            for start in (i32::from(i16::MIN)..=i32::from(i16::MAX)).step_by(16 * 37) {
                let a: [i16; 16] = core::array::from_fn(|i| (start + i as i32).min(32767) as i16);
                // SAFETY: AVX2 is present (checked above).
                let out = unsafe {
                    lanes(montgomery_mul(
                        load(&a),
                        _mm256_set1_epi16(b),
                        _mm256_set1_epi16(qinv_of(b)),
                    ))
                };
                for i in 0..16 {
                    let r = i64::from(out[i]);
                    assert!(r.abs() < q);
                    assert_eq!(
                        (r * 65536 - i64::from(a[i]) * i64::from(b)).rem_euclid(q),
                        0
                    );
                }
            }
        }
        // Keep the import used on every path.
        // SAFETY: AVX2 is present (checked above).
        let _ = unsafe {
            lanes(_mm256_set_epi16(
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            ))
        };
    }
}
