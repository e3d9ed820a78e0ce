//! AVX2 base-case products: the `b*zeta` cache, lazy accumulation in signed 32-bit lanes
//! (`vpmaddwd`) and the final Montgomery reduction of the accumulator.
#![allow(unsafe_code)]

use super::arith::{add_mod_q, add_q_if_negative, load, load_coeffs, montgomery_mul};
use crate::backend::seam::DotTerm;
use crate::backend::x86_64::consts::{GAMMAS_ODD, GAMMAS_ODD_QINV, Q_I16, QINV, R2, qinv_of};
use crate::mlkem::{MlKem, N, PAIRS};
use core::arch::x86_64::{
    __m256i, _mm_loadu_si128, _mm256_add_epi32, _mm256_blend_epi16, _mm256_cvtepu16_epi32,
    _mm256_loadu_si256, _mm256_madd_epi16, _mm256_mulhi_epi16, _mm256_mullo_epi16, _mm256_or_si256,
    _mm256_packs_epi32, _mm256_set1_epi16, _mm256_setzero_si256, _mm256_slli_epi32,
    _mm256_srai_epi32, _mm256_srli_epi32, _mm256_storeu_si256, _mm256_sub_epi16,
    _mm256_unpackhi_epi32, _mm256_unpacklo_epi32,
};

#[target_feature(enable = "avx2")]
#[inline(never)]
pub(super) fn mul_cache_avx2(b: &[u16; N], out: &mut [u16; PAIRS]) {
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

/// Accumulator layout of this backend: for each block of 16 coefficients (8 pairs) `m`,
/// `acc[16m .. 16m+8]` holds the eight `c0` sums and `acc[16m+8 .. 16m+16]` the eight `c1`
/// sums, in pair order (the natural output of `vpmaddwd`).
// The __m256i pointers below are only used with unaligned loads and stores.
#[allow(clippy::cast_ptr_alignment)]
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(super) fn accumulate_avx2(
    acc: &mut [u32; N],
    a: &[u16; N],
    b: &[u16; N],
    b_zeta: &[u16; PAIRS],
) {
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
pub(super) fn montgomery_reduce_i32(x: __m256i) -> __m256i {
    {
        let m = _mm256_mullo_epi16(x, _mm256_set1_epi16(QINV));
        let mq_hi = _mm256_mulhi_epi16(m, _mm256_set1_epi16(Q_I16));
        // Low 16 bits of each 32-bit lane: (x >> 16) - (m q >> 16) = (x - m q) / 2^16.
        let r = _mm256_sub_epi16(_mm256_srai_epi32(x, 16), mq_hi);
        _mm256_srai_epi32(_mm256_slli_epi32(r, 16), 16)
    }
}

/// The products of `terms` summed in registers and reduced once, plus `plus` (canonical),
/// on the chunks (32 coefficients, two blocks of 16) in `chunks` only: for each block, the
/// `c0` / `c1` sums [`accumulate_avx2`] would leave in the accumulator, then
/// [`reduce_accumulator_avx2`]'s reduction, then the addition mod q. The other coefficients
/// of `out` are left alone. At most the backend's `MAX_TERMS` terms (the caller checks):
/// each lane then stays within the reduction's domain, as in the accumulator.
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(super) fn dot_product_plus_chunks_avx2(
    out: &mut [u16; N],
    terms: &[DotTerm<'_, MlKem>],
    plus: &[u16; N],
    chunks: core::ops::Range<usize>,
) {
    dot_product_chunks(out, terms, Some(plus), chunks);
}

/// The whole dot product of `terms` (at most `MAX_TERMS` of them) in registers: the
/// chunked kernel on every chunk, nothing added.
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(super) fn dot_product_avx2(out: &mut [u16; N], terms: &[DotTerm<'_, MlKem>]) {
    dot_product_chunks(out, terms, None, 0..N / 32);
}

#[inline]
#[target_feature(enable = "avx2")]
fn dot_product_chunks(
    out: &mut [u16; N],
    terms: &[DotTerm<'_, MlKem>],
    plus: Option<&[u16; N]>,
    chunks: core::ops::Range<usize>,
) {
    let r2 = _mm256_set1_epi16(R2);
    let r2q = _mm256_set1_epi16(qinv_of(R2));
    for m in 2 * chunks.start.min(N / 32)..2 * chunks.end.min(N / 32) {
        let (mut c0, mut c1) = (_mm256_setzero_si256(), _mm256_setzero_si256());
        for &(a, b, b_zeta) in terms {
            // SAFETY: reads of 16 coefficients (32 bytes) of `a`, `b` and 8 entries (16
            // bytes) of `b_zeta` at block m < 16, inside their arrays.
            let (av, bv, bz) = unsafe {
                (
                    _mm256_loadu_si256(a.as_ptr().add(16 * m).cast()),
                    _mm256_loadu_si256(b.as_ptr().add(16 * m).cast()),
                    _mm_loadu_si128(b_zeta.as_ptr().add(8 * m).cast()),
                )
            };
            // As in `accumulate_avx2`: [b0, b1*gamma, ...] and [b1, b0, ...].
            let bz = _mm256_slli_epi32(_mm256_cvtepu16_epi32(bz), 16);
            let b_c0 = _mm256_blend_epi16(bv, bz, 0b1010_1010);
            let b_c1 = _mm256_or_si256(_mm256_slli_epi32(bv, 16), _mm256_srli_epi32(bv, 16));
            // Each 32-bit lane gains at most PRODUCT_TERM_MAX per term (operands canonical).
            c0 = _mm256_add_epi32(c0, _mm256_madd_epi16(av, b_c0));
            c1 = _mm256_add_epi32(c1, _mm256_madd_epi16(av, b_c1));
        }
        let lo = montgomery_reduce_i32(_mm256_unpacklo_epi32(c0, c1));
        let hi = montgomery_reduce_i32(_mm256_unpackhi_epi32(c0, c1));
        let packed = _mm256_packs_epi32(lo, hi);
        // Undo the 2^-16 of the reduction: Montgomery multiplication by 2^32 mod q.
        let mut x = add_q_if_negative(montgomery_mul(packed, r2, r2q));
        if let Some(plus) = plus {
            // SAFETY: reads 16 u16 of `plus` at block m < 16, in bounds.
            let p = unsafe { _mm256_loadu_si256(plus.as_ptr().add(16 * m).cast()) };
            x = add_mod_q(x, p);
        }
        // SAFETY: writes 16 u16 of `out` at block m < 16, in bounds.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(16 * m).cast(), x) };
    }
}

#[target_feature(enable = "avx2")]
#[inline(never)]
pub(super) fn reduce_accumulator_avx2(acc: &[u32; N], out: &mut [u16; N]) {
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
