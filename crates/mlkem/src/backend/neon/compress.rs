//! NEON Compress_d and Decompress_d (FIPS 203 section 4.2.1), 32 coefficients a step.
//!
//! Same results as [`crate::compress`] for every input (tested exhaustively in
//! `super::tests`). Compress multiplies by the same reciprocal [`COMPRESS_MULTIPLIER`]:
//! `sqdmulh` gives `floor(2 n M / 2^32) = floor(n M / 2^31)` in 32-bit lanes and the
//! narrowing `shrn #5` the remaining 5 bits of [`COMPRESS_SHIFT`]. Decompress is one
//! rounding multiply-high, `sqrdmulh`: `(2 a b + 2^15) >> 16` with `a = y 2^(15-d)`, `b = q`,
//! which is `(q y + 2^(d-1)) >> d` exactly. No division anywhere.

use crate::compress::{COMPRESS_D_MAX, COMPRESS_MULTIPLIER, COMPRESS_SHIFT};
use core::arch::aarch64::{
    uint16x8_t, uint16x8x4_t, vandq_u16, vdup_n_u16, vdupq_n_s16, vdupq_n_s32, vdupq_n_u16,
    vdupq_n_u32, vget_low_u16, vld1q_u16_x4, vmlal_high_n_u16, vmlal_u16, vqdmulhq_s32,
    vqrdmulhq_s16, vreinterpretq_s16_u16, vreinterpretq_s32_u32, vreinterpretq_u16_s16,
    vreinterpretq_u32_s32, vshlq_u16, vshrn_high_n_u32, vshrn_n_u32, vst1q_u16_x4,
};
use lattice_field::gf3329::Q;
use lattice_poly_ntt::mlkem::N;

// sqdmulh supplies 31 bits of the shift, the narrowing shift the other 5.
const _: () = assert!(COMPRESS_SHIFT == 31 + 5);
// M < 2^31 is a positive i32, and so is every numerator (x << 11) + q/2 < 2^23: sqdmulh
// saturates only for i32::MIN * i32::MIN.
const _: () = assert!(COMPRESS_MULTIPLIER < 1 << 31);
const _: () = assert!(((Q as u64 - 1) << COMPRESS_D_MAX) + (Q as u64 / 2) < 1 << 31);

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

/// Compress_d of eight canonical values.
#[inline]
#[target_feature(enable = "neon")]
fn compress_x8<const D: usize>(x: uint16x8_t) -> uint16x8_t {
    let half = vdupq_n_u32(u32::from(Q / 2));
    let m = vdupq_n_s32(COMPRESS_MULTIPLIER as i32);
    // n = x 2^d + floor(q/2) < 2^23 in 32-bit lanes (`umlal`: 2^d <= 2^11 fits u16).
    let lo = vmlal_u16(half, vget_low_u16(x), vdup_n_u16(1 << D));
    let hi = vmlal_high_n_u16(half, x, 1 << D);
    // floor(n M / 2^31) < 2^17, non-negative.
    let lo = vreinterpretq_u32_s32(vqdmulhq_s32(vreinterpretq_s32_u32(lo), m));
    let hi = vreinterpretq_u32_s32(vqdmulhq_s32(vreinterpretq_s32_u32(hi), m));
    // floor(n M / 2^36) <= 2^d fits 16 bits; reduced mod 2^d.
    let q = vshrn_high_n_u32::<5>(vshrn_n_u32::<5>(lo), hi);
    vandq_u16(q, vdupq_n_u16((1 << D) - 1))
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
