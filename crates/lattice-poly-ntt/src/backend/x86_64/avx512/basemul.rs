//! AVX-512 base-case products: the AVX2 kernels on two blocks of 16 coefficients per zmm
//! register, with the AVX2 accumulator layout unchanged (for each block of 8 pairs `m`,
//! `acc[16m .. 16m + 8]` the `c0` sums and `acc[16m + 8 .. 16m + 16]` the `c1` sums), so the
//! accumulator's bounds and its bounds-checker description are the AVX2 ones. Every lane
//! goes through the AVX2 kernel's operations: the same `vpmaddwd` terms (at most
//! `PRODUCT_TERM_MAX` per call) and the same Montgomery reduction (domain
//! `[0, AVX2_ACCUMULATOR_LIMIT]`).
#![allow(unsafe_code)]

use super::ntt::{add_q_if_negative, montgomery_mul};
use crate::backend::seam::DotTerm;
use crate::backend::x86_64::consts::{GAMMAS_ODD, GAMMAS_ODD_QINV, Q_I16, QINV, R2, qinv_of};
use crate::mlkem::{MlKem, N, PAIRS};
use core::arch::x86_64::{
    __m512i, _mm256_loadu_si256, _mm256_storeu_si256, _mm512_add_epi16, _mm512_add_epi32,
    _mm512_cvtepi32_epi16, _mm512_cvtepu16_epi32, _mm512_loadu_si512, _mm512_madd_epi16,
    _mm512_mask_blend_epi16, _mm512_min_epu16, _mm512_mulhi_epi16, _mm512_mullo_epi16,
    _mm512_packs_epi32, _mm512_rol_epi32, _mm512_set1_epi16, _mm512_setzero_si512,
    _mm512_shuffle_i64x2, _mm512_slli_epi32, _mm512_srai_epi32, _mm512_srli_epi32,
    _mm512_storeu_si512, _mm512_sub_epi16, _mm512_unpackhi_epi32, _mm512_unpacklo_epi32,
};

/// `vshufi64x2` selectors: the low 256 bits of both operands, and the high 256 bits.
const LOW_HALVES: i32 = 0b01_00_01_00;
const HIGH_HALVES: i32 = 0b11_10_11_10;

/// AVX2's `montgomery_reduce_i32` on 16 lanes: for `x` in `[0, AVX2_ACCUMULATOR_LIMIT]`,
/// `x 2^-16 mod q` with `|r| < 2^15`, sign-extended to 32 bits.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn montgomery_reduce_i32(x: __m512i) -> __m512i {
    let m = _mm512_mullo_epi16(x, _mm512_set1_epi16(QINV));
    let mq_hi = _mm512_mulhi_epi16(m, _mm512_set1_epi16(Q_I16));
    let r = _mm512_sub_epi16(_mm512_srai_epi32::<16>(x), mq_hi);
    _mm512_srai_epi32::<16>(_mm512_slli_epi32::<16>(r))
}

/// `out[i] = b[2i + 1] * gamma_i mod q`, canonical.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline(never)]
pub(super) fn mul_cache_avx512(b: &[u16; N], out: &mut [u16; PAIRS]) {
    let (gammas, gammas_qinv) = (GAMMAS_ODD.as_flattened(), GAMMAS_ODD_QINV.as_flattened());
    for m in 0..8 {
        // SAFETY: reads of 32 coefficients of `b` and of the gamma tables (64 bytes each) at
        // block pair m, and a write of 16 entries (32 bytes) of `out`, all in bounds.
        unsafe {
            let v = _mm512_loadu_si512(b.as_ptr().add(32 * m).cast());
            let g = _mm512_loadu_si512(gammas.as_ptr().add(32 * m).cast());
            let gq = _mm512_loadu_si512(gammas_qinv.as_ptr().add(32 * m).cast());
            // Odd lanes: b[2i+1] * gamma_i; even lanes: 0. The odd lanes are the high
            // halves of the 32-bit lanes: shift them down and narrow, in pair order.
            let prod = add_q_if_negative(montgomery_mul(v, g, gq));
            let odd = _mm512_cvtepi32_epi16(_mm512_srli_epi32::<16>(prod));
            _mm256_storeu_si256(out.as_mut_ptr().add(16 * m).cast(), odd);
        }
    }
}

/// Adds the unreduced base-case products of `a` and `b` (FIPS 203 Alg. 11 and FIPS 203 Alg. 12
/// without their reductions) to `acc`, in the AVX2 layout.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline(never)]
pub(super) fn accumulate_avx512(
    acc: &mut [u32; N],
    a: &[u16; N],
    b: &[u16; N],
    b_zeta: &[u16; PAIRS],
) {
    for m in 0..8 {
        // SAFETY: reads of 32 coefficients (64 bytes) of `a`, `b` and 16 entries (32 bytes)
        // of `b_zeta` at block pair m, and a read-modify-write of 32 u32 (128 bytes) of
        // `acc`, all inside their arrays.
        unsafe {
            let av = _mm512_loadu_si512(a.as_ptr().add(32 * m).cast());
            let bv = _mm512_loadu_si512(b.as_ptr().add(32 * m).cast());
            let bz = _mm256_loadu_si256(b_zeta.as_ptr().add(16 * m).cast());
            // [b0, b1*gamma, b2, b3*gamma', ...] and [b1, b0, b3, b2, ...].
            let bz = _mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(bz));
            let b_c0 = _mm512_mask_blend_epi16(0xaaaa_aaaa, bv, bz);
            let b_c1 = _mm512_rol_epi32::<16>(bv);
            // Each 32-bit lane gains at most 2 (q-1)^2 = PRODUCT_TERM_MAX (operands canonical).
            // c0 = [block 2m's c0 sums | block 2m + 1's], c1 likewise.
            let c0 = _mm512_madd_epi16(av, b_c0);
            let c1 = _mm512_madd_epi16(av, b_c1);
            // The AVX2 layout: [c0 of 2m | c1 of 2m] then [c0 of 2m + 1 | c1 of 2m + 1].
            let first = _mm512_shuffle_i64x2::<LOW_HALVES>(c0, c1);
            let second = _mm512_shuffle_i64x2::<HIGH_HALVES>(c0, c1);
            let p0 = acc.as_mut_ptr().add(32 * m);
            let p1 = acc.as_mut_ptr().add(32 * m + 16);
            _mm512_storeu_si512(
                p0.cast(),
                _mm512_add_epi32(_mm512_loadu_si512(p0.cast()), first),
            );
            _mm512_storeu_si512(
                p1.cast(),
                _mm512_add_epi32(_mm512_loadu_si512(p1.cast()), second),
            );
        }
    }
}

/// `out = sum over terms of a * b` in T_q, canonical: [`accumulate_avx512`] on each term
/// then [`reduce_accumulator_avx512`], with the sums kept in registers (no accumulator in
/// memory, no layout shuffles). Each 32-bit lane sums the same `vpmaddwd` terms in the same
/// order as the accumulator entry it replaces, and goes through the same reduction, so the
/// values, and the bounds, are the accumulator's: the caller passes at most `MAX_TERMS`
/// terms. The bounds checker's `[AVX-512]` product rows run it (through `Matrix::mul_vector`,
/// `transpose_mul_vector` and `NttVector::dot`) on their extreme operands against the
/// portable results, beside the accumulator sums they bound.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline(never)]
pub(super) fn dot_product_avx512(out: &mut [u16; N], terms: &[DotTerm<'_, MlKem>]) {
    dot_product_chunks(out, terms, None, 0..N / 32);
}

/// [`dot_product_avx512`] on the chunks (32 coefficients each) in `chunks` only, plus
/// `plus` (canonical) if given; the other coefficients of `out` are left alone.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline(never)]
pub(super) fn dot_product_plus_chunks_avx512(
    out: &mut [u16; N],
    terms: &[DotTerm<'_, MlKem>],
    plus: &[u16; N],
    chunks: core::ops::Range<usize>,
) {
    dot_product_chunks(out, terms, Some(plus), chunks);
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn dot_product_chunks(
    out: &mut [u16; N],
    terms: &[DotTerm<'_, MlKem>],
    plus: Option<&[u16; N]>,
    chunks: core::ops::Range<usize>,
) {
    let r2 = _mm512_set1_epi16(R2);
    let r2q = _mm512_set1_epi16(qinv_of(R2));
    let q = _mm512_set1_epi16(Q_I16);
    for m in chunks.start..chunks.end.min(N / 32) {
        // [c0 of block 2m | c0 of block 2m + 1] and the c1 sums, as in `accumulate_avx512`
        // before its layout shuffles (which `reduce_accumulator_avx512` undoes).
        let (mut c0, mut c1) = (_mm512_setzero_si512(), _mm512_setzero_si512());
        for &(a, b, b_zeta) in terms {
            // SAFETY: reads of 32 coefficients (64 bytes) of `a`, `b` and 16 entries (32
            // bytes) of `b_zeta` at block pair m < 8, inside their arrays.
            let (av, bv, bz) = unsafe {
                (
                    _mm512_loadu_si512(a.as_ptr().add(32 * m).cast()),
                    _mm512_loadu_si512(b.as_ptr().add(32 * m).cast()),
                    _mm256_loadu_si256(b_zeta.as_ptr().add(16 * m).cast()),
                )
            };
            let bz = _mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(bz));
            let b_c0 = _mm512_mask_blend_epi16(0xaaaa_aaaa, bv, bz);
            let b_c1 = _mm512_rol_epi32::<16>(bv);
            // Each lane gains at most PRODUCT_TERM_MAX per term (operands canonical).
            c0 = _mm512_add_epi32(c0, _mm512_madd_epi16(av, b_c0));
            c1 = _mm512_add_epi32(c1, _mm512_madd_epi16(av, b_c1));
        }
        let lo = montgomery_reduce_i32(_mm512_unpacklo_epi32(c0, c1));
        let hi = montgomery_reduce_i32(_mm512_unpackhi_epi32(c0, c1));
        let packed = _mm512_packs_epi32(lo, hi);
        // Undo the 2^-16 of the reduction: Montgomery multiplication by 2^32 mod q.
        let mut x = add_q_if_negative(montgomery_mul(packed, r2, r2q));
        if let Some(plus) = plus {
            // SAFETY: reads 32 u16 of `plus` at block pair m < 8, in bounds.
            let p = unsafe { _mm512_loadu_si512(plus.as_ptr().add(32 * m).cast()) };
            // Both canonical: the sum is below 2q < 2^16, and min(s, s - q) (unsigned,
            // s - q wrapping when s < q) is s mod q.
            let sum = _mm512_add_epi16(x, p);
            x = _mm512_min_epu16(sum, _mm512_sub_epi16(sum, q));
        }
        // SAFETY: writes 32 u16 of `out` at block pair m < 8, in bounds.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().add(32 * m).cast(), x) };
    }
}

/// Reduces every accumulator entry (AVX2 layout) to its canonical coefficient.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline(never)]
pub(super) fn reduce_accumulator_avx512(acc: &[u32; N], out: &mut [u16; N]) {
    let r2 = _mm512_set1_epi16(R2);
    let r2q = _mm512_set1_epi16(qinv_of(R2));
    for m in 0..8 {
        // SAFETY: reads 32 u32 of `acc` and writes 32 u16 of `out` at block pair m, in
        // bounds.
        unsafe {
            let first = _mm512_loadu_si512(acc.as_ptr().add(32 * m).cast());
            let second = _mm512_loadu_si512(acc.as_ptr().add(32 * m + 16).cast());
            // [c0 of 2m | c0 of 2m + 1] and the c1 sums, then AVX2's interleave per half.
            let c0 = _mm512_shuffle_i64x2::<LOW_HALVES>(first, second);
            let c1 = _mm512_shuffle_i64x2::<HIGH_HALVES>(first, second);
            let lo = montgomery_reduce_i32(_mm512_unpacklo_epi32(c0, c1));
            let hi = montgomery_reduce_i32(_mm512_unpackhi_epi32(c0, c1));
            let packed = _mm512_packs_epi32(lo, hi);
            // Undo the 2^-16 of the reduction: Montgomery multiplication by 2^32 mod q.
            let x = add_q_if_negative(montgomery_mul(packed, r2, r2q));
            _mm512_storeu_si512(out.as_mut_ptr().add(32 * m).cast(), x);
        }
    }
}
