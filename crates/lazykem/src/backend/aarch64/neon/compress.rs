//! NEON Compress_d and Decompress_d (FIPS 203 §4.2.1), 32 coefficients a step.
//!
//! Same results as [`crate::compress`] for every input (tested exhaustively in
//! `backend/tests.rs`). Compress multiplies by the same reciprocal [`COMPRESS_MULTIPLIER`]:
//! `sqdmulh` of the numerator and the reciprocal, each scaled by a power of two, gives
//! `floor(n M / 2^(20+d))` in 32-bit lanes; narrowing to its low 16 bits and shifting right
//! by `16 - d` finish the division by `2^36` ([`COMPRESS_SHIFT`]) and the reduction mod
//! `2^d` at once. Decompress is one
//! rounding multiply-high, `sqrdmulh`: `(2 a b + 2^15) >> 16` with `a = y 2^(15-d)`, `b = q`,
//! which is `(q y + 2^(d-1)) >> d` exactly. No division anywhere.

use crate::compress::{COMPRESS_D_MAX, COMPRESS_MULTIPLIER, COMPRESS_SHIFT};
use core::arch::aarch64::{
    uint16x8_t, uint16x8x4_t, vaddq_u16, vdup_n_u16, vdupq_n_s16, vdupq_n_s32, vdupq_n_u16,
    vdupq_n_u32, vget_low_u16, vld1q_u16_x4, vmlal_high_n_u16, vmlal_u16, vqdmulhq_s32,
    vqrdmulhq_s16, vreinterpretq_s16_u16, vreinterpretq_s32_u32, vreinterpretq_u16_s16,
    vreinterpretq_u16_s32, vshll_high_n_u16, vshll_n_u16, vshlq_u16, vst1q_u16_x4, vuzp1q_u16,
};
use lattice_field::gf3329::Q;
use lattice_poly_ntt::mlkem::N;

// sqdmulh supplies 20 + d bits of the shift (with the scaling of `scales`), the shift after
// the narrowing the other 16 - d.
const _: () = assert!(COMPRESS_SHIFT == 36);
// Every scaled numerator, (x << 11) + q/2 < 2^23 or (x + q/2) << 5 < 2^18, is a positive
// i32.
const _: () = assert!(((Q as u64 - 1) << COMPRESS_D_MAX) + (Q as u64 / 2) < 1 << 31);
// floor(q/2) is a multiple of 2^5 (and of 2^d for every d <= 5).
const _: () = assert!((Q / 2).is_multiple_of(1 << 5));

/// Loads 32 coefficients.
#[inline]
#[target_feature(enable = "neon")]
fn load32(src: &[u16; 32]) -> uint16x8x4_t {
    // SAFETY: `src` is 32 readable u16; `ld1` has no alignment requirement beyond u16's.
    unsafe { vld1q_u16_x4(src.as_ptr()) }
}

/// Stores 32 coefficients.
#[inline]
#[target_feature(enable = "neon")]
fn store32(dst: &mut [u16; 32], v: uint16x8x4_t) {
    // SAFETY: `dst` is 32 writable u16; `st1` has no alignment requirement beyond u16's.
    unsafe { vst1q_u16_x4(dst.as_mut_ptr(), v) }
}

/// The factors `2^k` of `M` and `2^j` of the numerator `n` in [`compress_x8`], with
/// `k + j = 11 - d`: `sqdmulh(n 2^j, M 2^k) = floor(n M 2^(11-d) / 2^31) = floor(n M / 2^(20+d))`.
const fn scales(d: usize) -> (u32, u32) {
    if d <= 5 {
        (6, 5 - d as u32)
    } else {
        (11 - d as u32, 0)
    }
}

/// Compress_d of eight canonical values.
///
/// `r = floor(n M / 2^(20+d))` for `n = x 2^d + floor(q/2)`; its low 16 bits (the narrowing)
/// shifted right by `16 - d` are `floor(n M / 2^36) mod 2^d`, the portable result, with no
/// mask.
#[inline]
#[target_feature(enable = "neon")]
fn compress_x8<const D: usize>(x: uint16x8_t) -> uint16x8_t {
    let k = const { scales(D).0 };
    const {
        assert!(scales(D).0 + scales(D).1 == 11 - D as u32);
        // The numerators below are n 2^(5-d) for d <= 5, n otherwise.
        assert!(scales(D).1 == if D <= 5 { 5 - D as u32 } else { 0 });
        // M 2^k < 2^31: a positive i32 (sqdmulh saturates only for i32::MIN * i32::MIN).
        assert!(COMPRESS_MULTIPLIER << scales(D).0 < 1 << 31);
    };
    let (lo, hi) = if D <= 5 {
        // floor(q/2) = 13 * 2^7, so n 2^(5-d) = (x + floor(q/2) / 2^d) 2^5: the add in
        // 16-bit lanes (x + 1664 / 2^d < 2^13), the shift in the widening.
        let t = vaddq_u16(x, vdupq_n_u16((Q / 2) >> D));
        (vshll_n_u16::<5>(vget_low_u16(t)), vshll_high_n_u16::<5>(t))
    } else {
        // n = x 2^d + floor(q/2) < 2^23 in 32-bit lanes (`umlal`: 2^d <= 2^11 fits u16).
        let half = vdupq_n_u32(u32::from(Q / 2));
        (
            vmlal_u16(half, vget_low_u16(x), vdup_n_u16(1 << D)),
            vmlal_high_n_u16(half, x, 1 << D),
        )
    };
    let m = vdupq_n_s32((COMPRESS_MULTIPLIER << k) as i32);
    // r < 2^31, non-negative.
    let lo = vreinterpretq_u16_s32(vqdmulhq_s32(vreinterpretq_s32_u32(lo), m));
    let hi = vreinterpretq_u16_s32(vqdmulhq_s32(vreinterpretq_s32_u32(hi), m));
    vshlq_u16(vuzp1q_u16(lo, hi), vdupq_n_s16(D as i16 - 16))
}

/// `out[i] = Compress_d(coeffs[i])` for canonical coefficients.
#[target_feature(enable = "neon")]
#[inline(never)]
pub(super) fn compress_neon<const D: usize>(coeffs: &[u16; N], out: &mut [u16; N]) {
    const { assert!(D >= 1 && D <= COMPRESS_D_MAX) };
    let (srcs, _) = coeffs.as_chunks::<32>();
    let (dsts, _) = out.as_chunks_mut::<32>();
    for (src, dst) in srcs.iter().zip(dsts) {
        let v = load32(src);
        let r = uint16x8x4_t(
            compress_x8::<D>(v.0),
            compress_x8::<D>(v.1),
            compress_x8::<D>(v.2),
            compress_x8::<D>(v.3),
        );
        store32(dst, r);
    }
}

/// Decompress_d of eight values below `2^d`.
#[inline]
#[target_feature(enable = "neon")]
fn decompress_x8<const D: usize>(y: uint16x8_t) -> uint16x8_t {
    // y 2^(15-d) < 2^15 is a non-negative i16; sqrdmulh by q never saturates (only
    // i16::MIN * i16::MIN does) and gives (y 2^(15-d) q + 2^14) >> 15 = (q y + 2^(d-1)) >> d.
    let a = vshlq_u16(y, vdupq_n_s16(15 - D as i16));
    vreinterpretq_u16_s16(vqrdmulhq_s16(
        vreinterpretq_s16_u16(a),
        vdupq_n_s16(Q as i16),
    ))
}

/// `out[i] = Decompress_d(values[i])` for values below `2^d`.
#[target_feature(enable = "neon")]
#[inline(never)]
pub(super) fn decompress_neon<const D: usize>(values: &[u16; N], out: &mut [u16; N]) {
    const { assert!(D >= 1 && D <= 11) };
    let (srcs, _) = values.as_chunks::<32>();
    let (dsts, _) = out.as_chunks_mut::<32>();
    for (src, dst) in srcs.iter().zip(dsts) {
        let v = load32(src);
        let r = uint16x8x4_t(
            decompress_x8::<D>(v.0),
            decompress_x8::<D>(v.1),
            decompress_x8::<D>(v.2),
            decompress_x8::<D>(v.3),
        );
        store32(dst, r);
    }
}
