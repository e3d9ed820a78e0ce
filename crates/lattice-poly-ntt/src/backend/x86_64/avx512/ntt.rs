//! The AVX-512 forward and inverse NTT: the AVX2 kernels' schedule on 512-bit registers,
//! 32 coefficients per instruction.
//!
//! # Layout
//! The AVX2 kernels keep the polynomial in 16 ymm vectors `v[0..16]` (`v[i]` holds
//! coefficients `16i .. 16i + 16`). Here zmm register `z[i]` (`i < 8`) holds `v[i]` in its
//! low half and `v[i + 8]` in its high half. Every AVX2 layer but the first then becomes the
//! same operation on whole zmm registers:
//! - len 64, 32, 16: the AVX2 butterflies on `(v[j], v[j + s])` and `(v[j + 8], v[j + 8 + s])`
//!   are one butterfly on `(z[j], z[j + s])`, its twiddle vector each half's own zeta;
//! - len 8, 4, 2 (inside vectors, on pairs `v[2p], v[2p + 1]`): one butterfly on
//!   `(z[2p], z[2p + 1])` covers AVX2 pairs `p` and `p + 4`, with the AVX2 shuffles done in
//!   each 256-bit half (the 128-bit ones are per lane already; the 256-bit one is a
//!   `vpermt2q`) and the AVX2 twiddle tables side by side.
//!
//! The first forward layer (len 128) pairs `v[j]` with `v[j + 8]`, the two halves of one
//! register: it runs on the coefficients as loaded (`a[j]` = coefficients `32j' ..`, `b[j]`
//! 128 further) and two `vshufi64x2` per register pair move them into the layout; the last
//! inverse layer does the reverse. Each coefficient goes through exactly the AVX2 kernel's
//! operations, in the same order, so the AVX2 bounds (`NTT_LANE_BOUND`, `INTT_LANE_BOUND`)
//! hold unchanged; the bounds probe runs these kernels too ([`super::probe`] calls them
//! with its recording observer, halves split back into the 16-vector view).
#![allow(unsafe_code)]

use crate::backend::x86_64::avx2::Observer;
use crate::backend::x86_64::consts::{
    FWD_SHUFFLED, FWD_SHUFFLED_QINV, INTT_SCALE, INV_SHUFFLED, INV_SHUFFLED_QINV, Q_I16,
    ZETAS_MONT, qinv_of,
};
use crate::mlkem::N;
use core::arch::x86_64::{
    __m256i, __m512i, _mm256_loadu_si256, _mm256_set1_epi16, _mm256_storeu_si256, _mm512_add_epi16,
    _mm512_and_si512, _mm512_castsi256_si512, _mm512_castsi512_si256, _mm512_extracti64x4_epi64,
    _mm512_inserti64x4, _mm512_loadu_si512, _mm512_mulhi_epi16, _mm512_mullo_epi16,
    _mm512_permutex2var_epi64, _mm512_set1_epi16, _mm512_setzero_si512, _mm512_shuffle_epi32,
    _mm512_shuffle_i64x2, _mm512_srai_epi16, _mm512_storeu_si512, _mm512_sub_epi16,
    _mm512_unpackhi_epi64, _mm512_unpacklo_epi64,
};

/// The AVX2 in-register twiddle tables (`[layer][pair]`, pairs 0..8) as zmm vectors: pair
/// `p` of the AVX2 table in the low half, pair `p + 4` in the high half.
const fn side_by_side(t: &[[[i16; 16]; 8]; 3]) -> [[[i16; 32]; 4]; 3] {
    let mut out = [[[0i16; 32]; 4]; 3];
    let mut layer = 0;
    while layer < 3 {
        let mut p = 0;
        while p < 4 {
            let mut lane = 0;
            while lane < 16 {
                out[layer][p][lane] = t[layer][p][lane];
                out[layer][p][16 + lane] = t[layer][p + 4][lane];
                lane += 1;
            }
            p += 1;
        }
        layer += 1;
    }
    out
}

const FWD_TABLE: [[[i16; 32]; 4]; 3] = side_by_side(&FWD_SHUFFLED);
const FWD_TABLE_QINV: [[[i16; 32]; 4]; 3] = side_by_side(&FWD_SHUFFLED_QINV);
const INV_TABLE: [[[i16; 32]; 4]; 3] = side_by_side(&INV_SHUFFLED);
const INV_TABLE_QINV: [[[i16; 32]; 4]; 3] = side_by_side(&INV_SHUFFLED_QINV);

/// `vpermt2q` selectors of the len-8 split (and join): per 256-bit half, the low 128 bits of
/// both operands, and the high 128 bits of both (AVX2's `vperm2i128` 0x20 and 0x31).
const LOW_BLOCKS: [i64; 8] = [0, 1, 8, 9, 4, 5, 12, 13];
const HIGH_BLOCKS: [i64; 8] = [2, 3, 10, 11, 6, 7, 14, 15];
/// `vshufi64x2` selectors: the low 256 bits of both operands, and the high 256 bits.
const LOW_HALVES: i32 = 0b01_00_01_00;
const HIGH_HALVES: i32 = 0b11_10_11_10;

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn load_table(t: &[i16; 32]) -> __m512i {
    // SAFETY: `t` is 64 readable bytes; the load is unaligned.
    unsafe { _mm512_loadu_si512(t.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn load_i64s(t: &[i64; 8]) -> __m512i {
    // SAFETY: `t` is 64 readable bytes; the load is unaligned.
    unsafe { _mm512_loadu_si512(t.as_ptr().cast()) }
}

/// The twiddle vector of a butterfly between whole registers: `lo` in the low half, `hi`
/// in the high half.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn halves_of(lo: i16, hi: i16) -> __m512i {
    _mm512_inserti64x4::<1>(_mm512_set1_epi16(lo), _mm256_set1_epi16(hi))
}

/// AVX2's `montgomery_mul` on 32 lanes: `a b 2^-16 mod q` in `(-q, q)` (also the base-case
/// products').
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn montgomery_mul(a: __m512i, b: __m512i, b_qinv: __m512i) -> __m512i {
    let hi = _mm512_mulhi_epi16(a, b);
    let m = _mm512_mullo_epi16(a, b_qinv);
    let mq_hi = _mm512_mulhi_epi16(m, _mm512_set1_epi16(Q_I16));
    _mm512_sub_epi16(hi, mq_hi)
}

/// AVX2's `barrett_reduce_i16` on 32 lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn barrett_reduce_i16(x: __m512i) -> __m512i {
    let t = _mm512_mulhi_epi16(x, _mm512_set1_epi16(20159));
    let t = _mm512_srai_epi16::<10>(_mm512_add_epi16(t, _mm512_set1_epi16(1 << 9)));
    _mm512_sub_epi16(x, _mm512_mullo_epi16(t, _mm512_set1_epi16(Q_I16)))
}

/// AVX2's `add_q_if_negative` on 32 lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn add_q_if_negative(x: __m512i) -> __m512i {
    _mm512_add_epi16(
        x,
        _mm512_and_si512(_mm512_srai_epi16::<15>(x), _mm512_set1_epi16(Q_I16)),
    )
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn ct_butterfly(a: __m512i, b: __m512i, z: __m512i, zq: __m512i) -> (__m512i, __m512i) {
    let t = montgomery_mul(b, z, zq);
    (_mm512_add_epi16(a, t), _mm512_sub_epi16(a, t))
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn gs_butterfly(a: __m512i, b: __m512i, z: __m512i, zq: __m512i) -> (__m512i, __m512i) {
    (
        _mm512_add_epi16(a, b),
        montgomery_mul(_mm512_sub_epi16(b, a), z, zq),
    )
}

/// AVX2's `split` in each 256-bit half.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn split(len: usize, x: __m512i, y: __m512i) -> (__m512i, __m512i) {
    match len {
        8 => (
            _mm512_permutex2var_epi64(x, load_i64s(&LOW_BLOCKS), y),
            _mm512_permutex2var_epi64(x, load_i64s(&HIGH_BLOCKS), y),
        ),
        4 => (_mm512_unpacklo_epi64(x, y), _mm512_unpackhi_epi64(x, y)),
        _ => {
            let x = _mm512_shuffle_epi32::<0b11_01_10_00>(x);
            let y = _mm512_shuffle_epi32::<0b11_01_10_00>(y);
            (_mm512_unpacklo_epi64(x, y), _mm512_unpackhi_epi64(x, y))
        }
    }
}

/// Inverse of [`split`] (AVX2's `join` in each 256-bit half).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn join(len: usize, lo: __m512i, hi: __m512i) -> (__m512i, __m512i) {
    match len {
        8 => split(8, lo, hi),
        4 => (_mm512_unpacklo_epi64(lo, hi), _mm512_unpackhi_epi64(lo, hi)),
        _ => {
            let x = _mm512_unpacklo_epi64(lo, hi);
            let y = _mm512_unpackhi_epi64(lo, hi);
            (
                _mm512_shuffle_epi32::<0b11_01_10_00>(x),
                _mm512_shuffle_epi32::<0b11_01_10_00>(y),
            )
        }
    }
}

/// The low and high 256-bit halves.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn halves(x: __m512i) -> (__m256i, __m256i) {
    (_mm512_castsi512_si256(x), _mm512_extracti64x4_epi64::<1>(x))
}

/// The AVX2 kernels' 16-vector view of registers in this module's layout (for the
/// observer; compiled away with `()`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn view(z: &[__m512i; 8]) -> [__m256i; 16] {
    let mut v = [_mm512_castsi512_si256(_mm512_setzero_si512()); 16];
    for (i, &x) in z.iter().enumerate() {
        (v[i], v[i + 8]) = halves(x);
    }
    v
}

/// The 16-vector view of the loaded layout (`ab[2m]`: coefficients `32m ..`, `ab[2m + 1]`
/// 128 further, `m < 4`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn view_loaded(ab: &[__m512i; 8]) -> [__m256i; 16] {
    let mut v = [_mm512_castsi512_si256(_mm512_setzero_si512()); 16];
    for m in 0..4 {
        (v[2 * m], v[2 * m + 1]) = halves(ab[2 * m]);
        (v[2 * m + 8], v[2 * m + 9]) = halves(ab[2 * m + 1]);
    }
    v
}

/// Butterflies between whole registers for one layer (len 16 * `STEP`, `STEP` in 1, 2, 4):
/// `(z[j], z[j + STEP])`, each half with the zeta of its AVX2 vector's block, counting up
/// from `first_zeta` (forward) or down (inverse) per block of `2 STEP` AVX2 vectors. The
/// step is a constant parameter: with a run-time step the loop's trip count stays a `div`
/// at low opt-levels, which the constant-time check forbids.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn vector_layer<O: Observer, const STEP: usize>(
    z: &mut [__m512i; 8],
    first_zeta: usize,
    inverse: bool,
    obs: &mut O,
) {
    const { assert!(STEP == 1 || STEP == 2 || STEP == 4) };
    // The AVX2 vector v[j + 8] is `8 / (2 STEP)` blocks after v[j].
    let blocks_to_high = const { 4 / STEP };
    let mut start = 0;
    let mut block = 0;
    while start < 8 {
        let (lo, hi) = if inverse {
            (first_zeta - block, first_zeta - block - blocks_to_high)
        } else {
            (first_zeta + block, first_zeta + block + blocks_to_high)
        };
        let (zl, zh) = (ZETAS_MONT[lo], ZETAS_MONT[hi]);
        let (w, wq) = (halves_of(zl.0, zh.0), halves_of(zl.1, zh.1));
        for j in start..start + STEP {
            let ((a_lo, a_hi), (b_lo, b_hi)) = (halves(z[j]), halves(z[j + STEP]));
            obs.butterfly(a_lo, b_lo, inverse);
            obs.butterfly(a_hi, b_hi, inverse);
            (z[j], z[j + STEP]) = if inverse {
                gs_butterfly(z[j], z[j + STEP], w, wq)
            } else {
                ct_butterfly(z[j], z[j + STEP], w, wq)
            };
        }
        start += 2 * STEP;
        block += 1;
    }
    obs.stage_done(&view(z));
}

/// The in-register layers (`LEN` 8, 4, 2) on register pairs `(z[2p], z[2p + 1])`. The
/// length is a constant parameter: each layer's shuffles and table loads are then fixed
/// instructions (a loop over the three layers kept a run-time `match` and reloaded the
/// tables through the stack).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn register_layer<O: Observer, const LEN: usize>(
    z: &mut [__m512i; 8],
    table: (&[[i16; 32]; 4], &[[i16; 32]; 4]),
    inverse: bool,
    obs: &mut O,
) {
    const { assert!(LEN == 8 || LEN == 4 || LEN == 2) };
    for p in 0..4 {
        let (lo, hi) = split(LEN, z[2 * p], z[2 * p + 1]);
        let (w, wq) = (load_table(&table.0[p]), load_table(&table.1[p]));
        let ((a_lo, a_hi), (b_lo, b_hi)) = (halves(lo), halves(hi));
        obs.butterfly(a_lo, b_lo, inverse);
        obs.butterfly(a_hi, b_hi, inverse);
        let (lo, hi) = if inverse {
            gs_butterfly(lo, hi, w, wq)
        } else {
            ct_butterfly(lo, hi, w, wq)
        };
        (z[2 * p], z[2 * p + 1]) = join(LEN, lo, hi);
    }
    obs.stage_done(&view(z));
}

#[target_feature(enable = "avx512f,avx512bw")]
#[inline(never)]
pub(super) fn ntt_avx512(src: &[u16; N], dst: &mut [u16; N]) {
    ntt_kernel(src, dst, &mut ());
}

#[target_feature(enable = "avx512f,avx512bw")]
#[inline(never)]
pub(super) fn inverse_ntt_avx512(src: &[u16; N], dst: &mut [u16; N]) {
    inverse_ntt_kernel(src, dst, &mut ());
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) fn ntt_kernel<O: Observer>(src: &[u16; N], dst: &mut [u16; N], obs: &mut O) {
    // Layer len = 128 on the coefficients as loaded: ab[2m] = coefficients 32m .. 32m + 32,
    // ab[2m + 1] = 128 further; one zeta (index 1).
    let mut ab = [_mm512_setzero_si512(); 8];
    for m in 0..4 {
        // SAFETY: each read covers 32 coefficients (64 bytes) inside the 256-entry array.
        unsafe {
            ab[2 * m] = _mm512_loadu_si512(src.as_ptr().add(32 * m).cast());
            ab[2 * m + 1] = _mm512_loadu_si512(src.as_ptr().add(128 + 32 * m).cast());
        }
    }
    let (z1, z1q) = ZETAS_MONT[1];
    let (w, wq) = (_mm512_set1_epi16(z1), _mm512_set1_epi16(z1q));
    for m in 0..4 {
        let ((a_lo, a_hi), (b_lo, b_hi)) = (halves(ab[2 * m]), halves(ab[2 * m + 1]));
        obs.butterfly(a_lo, b_lo, false);
        obs.butterfly(a_hi, b_hi, false);
        (ab[2 * m], ab[2 * m + 1]) = ct_butterfly(ab[2 * m], ab[2 * m + 1], w, wq);
    }
    obs.stage_done(&view_loaded(&ab));
    // Into the layout: z[2m] = [v[2m] | v[2m + 8]], z[2m + 1] = [v[2m + 1] | v[2m + 9]].
    let mut z = [_mm512_setzero_si512(); 8];
    for m in 0..4 {
        z[2 * m] = _mm512_shuffle_i64x2::<LOW_HALVES>(ab[2 * m], ab[2 * m + 1]);
        z[2 * m + 1] = _mm512_shuffle_i64x2::<HIGH_HALVES>(ab[2 * m], ab[2 * m + 1]);
    }
    // Layers len = 64, 32, 16 (AVX2 steps 4, 2, 1; first zetas 2, 4, 8).
    vector_layer::<_, 4>(&mut z, 2, false, obs);
    vector_layer::<_, 2>(&mut z, 4, false, obs);
    vector_layer::<_, 1>(&mut z, 8, false, obs);
    // Layers len = 8, 4, 2 (the AVX2 tables are in the order len 8, 4, 2).
    register_layer::<_, 8>(&mut z, (&FWD_TABLE[0], &FWD_TABLE_QINV[0]), false, obs);
    register_layer::<_, 4>(&mut z, (&FWD_TABLE[1], &FWD_TABLE_QINV[1]), false, obs);
    register_layer::<_, 2>(&mut z, (&FWD_TABLE[2], &FWD_TABLE_QINV[2]), false, obs);
    // |lane| < 8q: reduce to [0, q).
    for x in &mut z {
        *x = barrett_reduce_i16(*x);
    }
    obs.stage_done(&view(&z));
    for x in &mut z {
        *x = add_q_if_negative(*x);
    }
    obs.stage_done(&view(&z));
    for (i, &x) in z.iter().enumerate() {
        let (lo, hi) = halves(x);
        // SAFETY: each write covers 16 coefficients (32 bytes) inside the 256-entry array.
        unsafe {
            _mm256_storeu_si256(dst.as_mut_ptr().add(16 * i).cast(), lo);
            _mm256_storeu_si256(dst.as_mut_ptr().add(16 * (i + 8)).cast(), hi);
        }
    }
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) fn inverse_ntt_kernel<O: Observer>(src: &[u16; N], dst: &mut [u16; N], obs: &mut O) {
    let mut z = [_mm512_setzero_si512(); 8];
    for (i, x) in z.iter_mut().enumerate() {
        // SAFETY: each read covers 16 coefficients (32 bytes) inside the 256-entry array.
        unsafe {
            let lo = _mm256_loadu_si256(src.as_ptr().add(16 * i).cast());
            let hi = _mm256_loadu_si256(src.as_ptr().add(16 * (i + 8)).cast());
            *x = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi);
        }
    }
    // Layers len = 2, 4, 8 (tables in the order len = 8, 4, 2), then a reduction.
    register_layer::<_, 2>(&mut z, (&INV_TABLE[2], &INV_TABLE_QINV[2]), true, obs);
    register_layer::<_, 4>(&mut z, (&INV_TABLE[1], &INV_TABLE_QINV[1]), true, obs);
    register_layer::<_, 8>(&mut z, (&INV_TABLE[0], &INV_TABLE_QINV[0]), true, obs);
    for x in &mut z {
        *x = barrett_reduce_i16(*x);
    }
    obs.stage_done(&view(&z));
    // Layers len = 16, 32, 64 (AVX2 steps 1, 2, 4; first zetas 15, 7, 3, counting down),
    // then a reduction.
    vector_layer::<_, 1>(&mut z, 15, true, obs);
    vector_layer::<_, 2>(&mut z, 7, true, obs);
    vector_layer::<_, 4>(&mut z, 3, true, obs);
    for x in &mut z {
        *x = barrett_reduce_i16(*x);
    }
    obs.stage_done(&view(&z));
    // Out of the layout: ab[2m] = coefficients 32m .. 32m + 32, ab[2m + 1] 128 further;
    // then layer len = 128 (zeta index 1).
    let mut ab = [_mm512_setzero_si512(); 8];
    for m in 0..4 {
        ab[2 * m] = _mm512_shuffle_i64x2::<LOW_HALVES>(z[2 * m], z[2 * m + 1]);
        ab[2 * m + 1] = _mm512_shuffle_i64x2::<HIGH_HALVES>(z[2 * m], z[2 * m + 1]);
    }
    let (z1, z1q) = ZETAS_MONT[1];
    let (w, wq) = (_mm512_set1_epi16(z1), _mm512_set1_epi16(z1q));
    for m in 0..4 {
        let ((a_lo, a_hi), (b_lo, b_hi)) = (halves(ab[2 * m]), halves(ab[2 * m + 1]));
        obs.butterfly(a_lo, b_lo, true);
        obs.butterfly(a_hi, b_hi, true);
        (ab[2 * m], ab[2 * m + 1]) = gs_butterfly(ab[2 * m], ab[2 * m + 1], w, wq);
    }
    obs.stage_done(&view_loaded(&ab));
    // Multiply by 128^-1 (Montgomery form) and bring to [0, q).
    let s = _mm512_set1_epi16(INTT_SCALE);
    let sq = _mm512_set1_epi16(qinv_of(INTT_SCALE));
    obs.scale_input(&view_loaded(&ab));
    for x in &mut ab {
        *x = montgomery_mul(*x, s, sq);
    }
    obs.stage_done(&view_loaded(&ab));
    for x in &mut ab {
        *x = add_q_if_negative(*x);
    }
    obs.stage_done(&view_loaded(&ab));
    for m in 0..4 {
        // SAFETY: each write covers 32 coefficients (64 bytes) inside the 256-entry array.
        unsafe {
            _mm512_storeu_si512(dst.as_mut_ptr().add(32 * m).cast(), ab[2 * m]);
            _mm512_storeu_si512(dst.as_mut_ptr().add(128 + 32 * m).cast(), ab[2 * m + 1]);
        }
    }
}
