//! NEON base-case products (FIPS 203 Alg. 11 and 12, summed lazily): the `b[2i+1] gamma_i`
//! cache, products accumulated in signed 32-bit lanes with `smull`/`smlal` (and their
//! `2` forms on the high halves), one Barrett reduction per coefficient at the end.
//!
//! # Layout
//! A block of 32 coefficients (16 pairs) is loaded as two halves with `ld2 {.8h}`: vectors
//! 0-1 are `(x0, x1)` of pairs 0-7 of the block and 2-3 those of pairs 8-15; the cache's 16
//! entries are two plain vectors (pairs 0-7, 8-15). Per term and block, 16
//! multiply(-accumulate)s make the eight 4-lane sums
//! `[c0 lo lo, hi, c1 lo, hi, c0 hi lo, hi, c1 hi lo, hi]` (pairs 0-7 then 8-15), which is
//! also the order of the in-memory accumulator ([`super::consts::neon_accumulator_coefficient`]).
//! The reduced vectors are stored with two `st2 {.8h}`, back in FIPS 203 order. (`ld4`/`st4`
//! `{.8h}` would need one instruction less per 32 coefficients but cost three times the
//! micro-ops in `llvm-mca`'s models; figures in `docs/performance-history.md`.)
//!
//! # Bounds
//! Canonical operands (and cache): every term adds at most
//! [`PRODUCT_TERM_MAX`](crate::mlkem::PRODUCT_TERM_MAX) `= 2 (q-1)^2` to a lane, all terms
//! non-negative; the reduction is exact on `[0, NEON_ACCUMULATOR_LIMIT]`
//! ([`super::model::reduce_wide`]), which allows [`NEON_MAX_TERMS`](super::consts::NEON_MAX_TERMS).
#![allow(unsafe_code)]

use super::arith::NeonLanes;
use super::arith::{add_mod_q, store_address};
use super::consts::{Q_I16, WIDE_V};
use super::lanes::Lanes;
use super::ntt::GAMMA_TABLE;
use crate::backend::seam::DotTerm;
use crate::mlkem::{MlKem, N, PAIRS};
use core::arch::aarch64::{
    int16x8_t, int16x8x2_t, int32x4_t, int32x4x4_t, vdupq_n_s16, vdupq_n_s32, vget_low_s16,
    vld1q_s16_x2, vld1q_s32_x4, vld1q_u16, vld2q_s16, vld2q_u16, vmlal_high_s16, vmlal_s16,
    vmlsq_s16, vmull_high_s16, vmull_s16, vqdmulhq_n_s32, vreinterpretq_s16_s32,
    vreinterpretq_s16_u16, vreinterpretq_u16_s16, vshrn_high_n_s32, vshrn_n_s32, vst1q_s32_x4,
    vst1q_u16, vst2q_s16, vuzp1q_s16, vuzp2q_u16,
};

#[inline(always)]
fn chunk<const C: usize, T, const M: usize>(f: &[T; M], c: usize) -> &[T; C] {
    &f.as_chunks::<C>().0[c]
}

/// `out[i] = b[2i+1] gamma_i mod q`, canonical: Barrett products of canonical lanes are in
/// `(-q, q)`, one conditional addition of q. 32 coefficients a step: four plain loads and
/// two `uzp2` put the odd coefficients of pairs 0-7 and 8-15 in two vectors, whose products
/// are the step's 16 outputs in order. Plain loads and stores take immediate offsets, so
/// the unrolled loop needs no address arithmetic; `ld4 {.8h}` + `st2` (or `ld2`) cost more
/// micro-ops in `llvm-mca`'s Apple-M1 and Neoverse-V2 models (`docs/performance-history.md`).
#[inline(never)]
#[target_feature(enable = "neon")]
pub(super) fn mul_cache_neon(b: &[u16; N], out: &mut [u16; PAIRS]) {
    let mut l = NeonLanes;
    let table = l.table(&GAMMA_TABLE);
    for (m, g) in table.iter().enumerate() {
        let src: &[u16; 32] = chunk(b, m);
        // SAFETY: `src` is 64 readable bytes.
        let x: [_; 4] = core::array::from_fn(|i| unsafe { vld1q_u16(src.as_ptr().add(8 * i)) });
        let (lo, hi) = (vuzp2q_u16(x[0], x[1]), vuzp2q_u16(x[2], x[3]));
        let (lo, hi) = (vreinterpretq_s16_u16(lo), vreinterpretq_s16_u16(hi));
        let [z0, zt0, z1, zt1] = g.each_ref().map(|t| l.twiddles(t));
        let (lo, hi) = (l.bmul(lo, z0, zt0), l.bmul(hi, z1, zt1));
        let (lo, hi) = (l.add_q_if_negative(lo), l.add_q_if_negative(hi));
        let dst = &mut out.as_chunks_mut::<16>().0[m];
        // SAFETY: `dst` is 32 writable bytes.
        unsafe {
            vst1q_u16(dst.as_mut_ptr(), vreinterpretq_u16_s16(lo));
            vst1q_u16(dst.as_mut_ptr().add(8), vreinterpretq_u16_s16(hi));
        }
    }
}

/// The eight 4-lane sums of a block (see the module docs).
type Sums = [int32x4_t; 8];

/// One term's operands of one block: two `ld2` each of `a` and `b`, the cache as two
/// vectors.
#[inline(always)]
fn load_term(
    blk: usize,
    a: &[u16; N],
    b: &[u16; N],
    bz: &[u16; PAIRS],
) -> ([int16x8_t; 4], [int16x8_t; 4], [int16x8_t; 2]) {
    let (a, b, bz): (&[u16; 32], &[u16; 32], &[u16; 16]) =
        (chunk(a, blk), chunk(b, blk), chunk(bz, blk));
    // SAFETY: 64, 64 and 32 readable bytes; no alignment needed.
    unsafe {
        let (a, b) = (a.as_ptr().cast::<i16>(), b.as_ptr().cast::<i16>());
        let (x0, x1) = (vld2q_s16(a), vld2q_s16(a.add(16)));
        let (y0, y1) = (vld2q_s16(b), vld2q_s16(b.add(16)));
        let z = vld1q_s16_x2(bz.as_ptr().cast());
        (
            [x0.0, x0.1, x1.0, x1.1],
            [y0.0, y0.1, y1.0, y1.1],
            [z.0, z.1],
        )
    }
}

/// The operand pairs of each sum: `c0 = x0 y0 + x1 (y1 gamma)`, `c1 = x0 y1 + x1 y0`, for
/// pairs 0-7 then 8-15 of the block.
#[inline(always)]
fn factors(
    x: [int16x8_t; 4],
    y: [int16x8_t; 4],
    z: [int16x8_t; 2],
) -> [[(int16x8_t, int16x8_t); 2]; 4] {
    [
        [(x[0], y[0]), (x[1], z[0])],
        [(x[0], y[1]), (x[1], y[0])],
        [(x[2], y[2]), (x[3], z[1])],
        [(x[2], y[3]), (x[3], y[2])],
    ]
}

/// The first term's sums: `smull`, `smlal` (and `smull2`, `smlal2`) per sum.
#[inline(always)]
fn first_products(x: [int16x8_t; 4], y: [int16x8_t; 4], z: [int16x8_t; 2]) -> Sums {
    // SAFETY: NEON is part of the aarch64 baseline: every aarch64 CPU has it.
    unsafe {
        let mut s = [vdupq_n_s32(0); 8];
        for (k, [(p, q), (r, t)]) in factors(x, y, z).into_iter().enumerate() {
            s[2 * k] = vmlal_s16(
                vmull_s16(vget_low_s16(p), vget_low_s16(q)),
                vget_low_s16(r),
                vget_low_s16(t),
            );
            s[2 * k + 1] = vmlal_high_s16(vmull_high_s16(p, q), r, t);
        }
        s
    }
}

/// Adds one term to the sums: two `smlal` (and two `smlal2`) per sum; each lane gains at
/// most `PRODUCT_TERM_MAX` (canonical operands).
#[inline(always)]
fn add_products(s: &mut Sums, x: [int16x8_t; 4], y: [int16x8_t; 4], z: [int16x8_t; 2]) {
    // SAFETY: NEON is part of the aarch64 baseline: every aarch64 CPU has it.
    unsafe {
        for (k, [(p, q), (r, t)]) in factors(x, y, z).into_iter().enumerate() {
            let lo = vmlal_s16(s[2 * k], vget_low_s16(p), vget_low_s16(q));
            s[2 * k] = vmlal_s16(lo, vget_low_s16(r), vget_low_s16(t));
            s[2 * k + 1] = vmlal_high_s16(vmlal_high_s16(s[2 * k + 1], p, q), r, t);
        }
    }
}

/// Reduces the sums of a block (each in `[0, NEON_ACCUMULATOR_LIMIT]`) to canonical, in
/// the order `c0, c1` of pairs 0-7, then of pairs 8-15 (`st2` makes FIPS order of them): per 8
/// lanes `sqdmulh` x2, `shrn`, `shrn2`, `uzp1`, `mls` ([`super::model::reduce_wide`]).
#[inline(always)]
pub(super) fn reduce_sums(s: &Sums) -> [int16x8_t; 4] {
    // SAFETY: NEON is part of the aarch64 baseline: every aarch64 CPU has it.
    unsafe {
        let q = vdupq_n_s16(Q_I16);
        core::array::from_fn(|k| {
            let (lo, hi) = (s[2 * k], s[2 * k + 1]);
            let t = vshrn_high_n_s32::<11>(
                vshrn_n_s32::<11>(vqdmulhq_n_s32(lo, WIDE_V)),
                vqdmulhq_n_s32(hi, WIDE_V),
            );
            let x = vuzp1q_s16(vreinterpretq_s16_s32(lo), vreinterpretq_s16_s32(hi));
            vmlsq_s16(x, t, q)
        })
    }
}

/// Stores four reduced vectors of a block in FIPS order (two `st2`).
#[inline(always)]
fn store_block(out: &mut [u16; N], blk: usize, r: [int16x8_t; 4]) {
    let dst = &mut out.as_chunks_mut::<32>().0[blk];
    // SAFETY: `dst` is 64 writable bytes.
    unsafe {
        let p = store_address(dst).cast::<i16>();
        vst2q_s16(p, int16x8x2_t(r[0], r[1]));
        vst2q_s16(p.add(16), int16x8x2_t(r[2], r[3]));
    };
}

/// The in-memory accumulator's eight vectors of block `blk`.
#[inline(always)]
fn acc_block(acc: &mut [u32; N], blk: usize) -> &mut [u32; 32] {
    &mut acc.as_chunks_mut::<32>().0[blk]
}

/// Adds the base-case products of `a` and `b` to the accumulator (layout:
/// [`super::consts::neon_accumulator_coefficient`]).
#[inline(never)]
#[target_feature(enable = "neon")]
pub(super) fn accumulate_neon(acc: &mut [u32; N], a: &[u16; N], b: &[u16; N], bz: &[u16; PAIRS]) {
    for blk in 0..N / 32 {
        let (x, y, z) = load_term(blk, a, b, bz);
        let dst = acc_block(acc, blk);
        // SAFETY: `dst` is 128 bytes, read then written; no alignment needed.
        unsafe {
            let p = dst.as_mut_ptr().cast::<i32>();
            let (lo, hi) = (vld1q_s32_x4(p), vld1q_s32_x4(p.add(16)));
            let mut s = [lo.0, lo.1, lo.2, lo.3, hi.0, hi.1, hi.2, hi.3];
            add_products(&mut s, x, y, z);
            vst1q_s32_x4(p, int32x4x4_t(s[0], s[1], s[2], s[3]));
            vst1q_s32_x4(p.add(16), int32x4x4_t(s[4], s[5], s[6], s[7]));
        }
    }
}

/// Reduces every accumulator entry (each at most `NEON_ACCUMULATOR_LIMIT`) to canonical, in
/// FIPS order.
#[inline(never)]
#[target_feature(enable = "neon")]
pub(super) fn reduce_accumulator_neon(acc: &[u32; N], out: &mut [u16; N]) {
    for blk in 0..N / 32 {
        let src: &[u32; 32] = chunk(acc, blk);
        // SAFETY: `src` is 128 readable bytes.
        let s = unsafe {
            let p = src.as_ptr().cast::<i32>();
            let (lo, hi) = (vld1q_s32_x4(p), vld1q_s32_x4(p.add(16)));
            [lo.0, lo.1, lo.2, lo.3, hi.0, hi.1, hi.2, hi.3]
        };
        store_block(out, blk, reduce_sums(&s));
    }
}

/// The sums of `terms` for one block, in registers.
#[inline(always)]
fn block_sums(blk: usize, terms: &[DotTerm<'_, MlKem>]) -> Sums {
    let Some((&(a, b, bz), rest)) = terms.split_first() else {
        // SAFETY: NEON is part of the aarch64 baseline: every aarch64 CPU has it.
        return [unsafe { vdupq_n_s32(0) }; 8];
    };
    let (x, y, z) = load_term(blk, a, b, bz);
    let mut s = first_products(x, y, z);
    for &(a, b, bz) in rest {
        let (x, y, z) = load_term(blk, a, b, bz);
        add_products(&mut s, x, y, z);
    }
    s
}

/// Runs `$body` with `$t` bound to `$terms` as an array when it has two terms (ML-KEM-512's
/// rank, public), so that copy of the kernel has the term loop unrolled and the operand
/// addresses in registers; other lengths take the slice as it is (unrolled copies for
/// ranks 3 and 4 spilled; figures in `docs/performance-history.md`).
macro_rules! by_rank {
    ($terms:expr, |$t:ident| $body:expr) => {{
        let terms: &[DotTerm<'_, MlKem>] = $terms;
        if let Ok($t) = <&[DotTerm<'_, MlKem>; 2]>::try_from(terms) {
            $body
        } else {
            let $t = terms;
            $body
        }
    }};
}

/// The blocks `blocks` of the dot product of `terms`, plus `plus` if given.
#[inline(always)]
fn dot_blocks(
    out: &mut [u16; N],
    terms: &[DotTerm<'_, MlKem>],
    plus: Option<&[u16; N]>,
    blocks: core::ops::Range<usize>,
) {
    for blk in blocks {
        let r = reduce_sums(&block_sums(blk, terms));
        let r = match plus {
            None => r,
            Some(plus) => {
                let p: &[u16; 32] = chunk(plus, blk);
                // SAFETY: `p` is 64 readable bytes; NEON is in the aarch64 baseline.
                unsafe {
                    let (h0, h1) = (vld2q_u16(p.as_ptr()), vld2q_u16(p.as_ptr().add(16)));
                    let p = [h0.0, h0.1, h1.0, h1.1];
                    core::array::from_fn(|k| {
                        vreinterpretq_s16_u16(add_mod_q(vreinterpretq_u16_s16(r[k]), p[k]))
                    })
                }
            }
        };
        store_block(out, blk, r);
    }
}

/// `out = sum of the products of terms` (at most `NEON_MAX_TERMS` of them, the caller
/// checks), the sums kept in registers and reduced once.
#[inline(never)]
#[target_feature(enable = "neon")]
pub(super) fn dot_product_neon(out: &mut [u16; N], terms: &[DotTerm<'_, MlKem>]) {
    by_rank!(terms, |t| dot_blocks(out, t, None, 0..N / 32));
}

/// [`dot_product_neon`] plus `plus` (canonical) on the blocks `chunks` only (a chunk of
/// `DOT_CHUNK` = 32 coefficients is one block); chunks past the end are ignored.
#[inline(never)]
#[target_feature(enable = "neon")]
pub(super) fn dot_product_plus_chunks_neon(
    out: &mut [u16; N],
    terms: &[DotTerm<'_, MlKem>],
    plus: &[u16; N],
    chunks: core::ops::Range<usize>,
) {
    let blocks = chunks.start.min(N / 32)..chunks.end.min(N / 32);
    by_rank!(terms, |t| dot_blocks(out, t, Some(plus), blocks.clone()));
}
