//! SamplePolyCBD_eta (FIPS 203 Alg. 8) in NEON: eta = 2 on 16 bytes (32 coefficients)
//! at a time, eta = 3 on 12 bytes (16 coefficients) at a time.
//!
//! Constant time: only loads and stores at fixed offsets, fixed `tbl` patterns, shifts,
//! masks, additions, subtractions and `umin` (data-independent on every core) on the
//! secret bytes. Each coefficient `x - y` is first biased to `x - y + eta` in `[0, 2 eta]`,
//! then widened to 16 bits with `q - eta` added (`[q - eta, q + eta]`), and brought to
//! `[0, q)` by `umin(v, v - q)`: `v - q` wraps to at least `2^16 - eta` when `v < q`.

use core::arch::aarch64::{
    uint16x8_t, vaddq_u8, vaddq_u16, vaddq_u32, vaddw_high_u8, vaddw_u8, vandq_u8, vandq_u16,
    vandq_u32, vdupq_n_u8, vdupq_n_u16, vdupq_n_u32, vget_low_u8, vld1q_u8, vminq_u16, vorrq_u32,
    vqtbl1q_u8, vreinterpretq_u16_u32, vreinterpretq_u32_u8, vshlq_n_u32, vshrq_n_u8, vshrq_n_u16,
    vshrq_n_u32, vst1q_u16, vsubq_u8, vsubq_u16, vsubq_u32, vzip1q_u8, vzip1q_u16, vzip2q_u8,
    vzip2q_u16,
};

use lattice_field::gf3329::Q;
use lattice_poly_ntt::mlkem::N;

use crate::cbd::CBD2_INPUT_BYTES;
use crate::kernels::{CBD3_STEP_BYTES, CBD3_STEP_COEFFS};

/// `v mod q` for lanes `v` in `[q - eta, q + eta]` (`eta <= 3`): `umin(v, v - q)`.
#[inline]
#[target_feature(enable = "neon")]
fn reduce_once(v: uint16x8_t) -> uint16x8_t {
    vminq_u16(v, vsubq_u16(v, vdupq_n_u16(Q)))
}

/// Stores `v` to the 8 coefficients `out`.
#[inline]
#[target_feature(enable = "neon")]
fn store8(out: &mut [u16], v: uint16x8_t) {
    let out: &mut [u16; 8] = out.try_into().expect("8 coefficients");
    // SAFETY: `out` is 16 writable bytes; `st1` needs no alignment.
    unsafe { vst1q_u16(out.as_mut_ptr(), v) };
}

/// FIPS 203 Alg. 8 with eta = 2 into `coeffs` (values in `[0, q)`), the same output as the
/// scalar `cbd2_into`.
#[inline]
#[target_feature(enable = "neon")]
pub(crate) fn cbd2_neon(bytes: &[u8; CBD2_INPUT_BYTES], coeffs: &mut [u16; N]) {
    let m55 = vdupq_n_u8(0x55);
    let m33 = vdupq_n_u8(0x33);
    let bias = vdupq_n_u8(0x22);
    let q_minus_2 = vdupq_n_u16(Q - 2);
    for (chunk, out) in bytes
        .as_chunks::<16>()
        .0
        .iter()
        .zip(coeffs.as_chunks_mut::<32>().0)
    {
        // SAFETY: `chunk` is 16 readable bytes; `ld1` needs no alignment.
        let x = unsafe { vld1q_u8(chunk.as_ptr()) };
        // Per byte, sums of bit pairs: bits 0-1 = x, 2-3 = y of coefficient 2k, bits 4-5 and
        // 6-7 those of coefficient 2k + 1 (each sum at most 2: no carry between fields).
        let d = vaddq_u8(vandq_u8(x, m55), vandq_u8(vshrq_n_u8::<1>(x), m55));
        let xs = vandq_u8(d, m33);
        let ys = vandq_u8(vshrq_n_u8::<2>(d), m33);
        // Per nibble x + 2 - y in [0, 4]: no borrow between the nibbles of a byte.
        let t = vsubq_u8(vaddq_u8(xs, bias), ys);
        let lo = vandq_u8(t, vdupq_n_u8(0x0f));
        let hi = vshrq_n_u8::<4>(t);
        // Coefficients 0-15 and 16-31 of the chunk, one byte each, in order.
        let ordered = [vzip1q_u8(lo, hi), vzip2q_u8(lo, hi)];
        for (v, out) in ordered.iter().zip(out.as_chunks_mut::<16>().0) {
            store8(
                &mut out[..8],
                reduce_once(vaddw_u8(q_minus_2, vget_low_u8(*v))),
            );
            store8(&mut out[8..], reduce_once(vaddw_high_u8(q_minus_2, *v)));
        }
    }
}

/// `tbl` patterns putting each 3-byte group of a half step in the low 3 bytes of its
/// 32-bit lane: groups 0-3 from a load of step bytes 0..16, groups 4-7 (bytes 12..24) from
/// a load of bytes 8..24 (so the last step reads no byte past the input); `0xff` is out of
/// range (zero).
const CBD3_SPREAD: [[u8; 16]; 2] = [
    [0, 1, 2, 0xff, 3, 4, 5, 0xff, 6, 7, 8, 0xff, 9, 10, 11, 0xff],
    [
        4, 5, 6, 0xff, 7, 8, 9, 0xff, 10, 11, 12, 0xff, 13, 14, 15, 0xff,
    ],
];

/// FIPS 203 Alg. 8 with eta = 3 (values in `[0, q)`), the same output as the scalar
/// `cbd3_groups`, on whole 24-byte steps of `bytes` into 32 coefficients of `coeffs` each,
/// as many as both have (the contract of `Kernels::cbd3_steps`). A group's 24 bits are
/// `x0 y0 x1 y1 x2 y2 x3 y3`, 3 bits each.
#[inline]
#[target_feature(enable = "neon")]
pub(crate) fn cbd3_steps_neon(bytes: &[u8], coeffs: &mut [u16]) {
    // SAFETY: each pattern is 16 readable bytes; `ld1` needs no alignment.
    let spread = unsafe {
        [
            vld1q_u8(CBD3_SPREAD[0].as_ptr()),
            vld1q_u8(CBD3_SPREAD[1].as_ptr()),
        ]
    };
    // Bit 0 of every 3-bit field; the x fields (bits 0-2 of every 6-bit slot); 3 in every
    // slot.
    let ones = vdupq_n_u32(0x0024_9249);
    let x_fields = vdupq_n_u32(0x001c_71c7);
    let threes = vdupq_n_u32(0x000c_30c3);
    let low12 = vdupq_n_u32(0x0000_0fff);
    let high12 = vdupq_n_u32(0x0fff_0000);
    let q_minus_3 = vdupq_n_u16(Q - 3);
    for (step, out) in bytes
        .as_chunks::<CBD3_STEP_BYTES>()
        .0
        .iter()
        .zip(coeffs.as_chunks_mut::<CBD3_STEP_COEFFS>().0)
    {
        // SAFETY: `step` is 24 readable bytes; the loads read bytes 0..16 and 8..24 of it.
        let raw = unsafe { [vld1q_u8(step.as_ptr()), vld1q_u8(step[8..].as_ptr())] };
        for (half, (raw, spread)) in raw.iter().zip(&spread).enumerate() {
            let t = vreinterpretq_u32_u8(vqtbl1q_u8(*raw, *spread));
            // Each 3-bit field of d holds the number of ones of its field of t (at most 3:
            // no carry between fields; the zero top byte of t brings nothing in).
            let d = vaddq_u32(
                vaddq_u32(vandq_u32(t, ones), vandq_u32(vshrq_n_u32::<1>(t), ones)),
                vandq_u32(vshrq_n_u32::<2>(t), ones),
            );
            // Each 6-bit slot k: x + 3 - y in [0, 6] (no borrow between slots).
            let v = vsubq_u32(
                vaddq_u32(vandq_u32(d, x_fields), threes),
                vandq_u32(vshrq_n_u32::<3>(d), x_fields),
            );
            // Slots 0, 1 in the low 16-bit lane (bits 0-11), slots 2, 3 in the high one.
            let w = vreinterpretq_u16_u32(vorrq_u32(
                vandq_u32(v, low12),
                vandq_u32(vshlq_n_u32::<4>(v), high12),
            ));
            // Coefficients 4g, 4g + 2 (a) and 4g + 1, 4g + 3 (b) of group g, in [0, 6].
            let a = vandq_u16(w, vdupq_n_u16(0x3f));
            let b = vshrq_n_u16::<6>(w);
            let (first, second) = (vzip1q_u16(a, b), vzip2q_u16(a, b));
            let out = &mut out[16 * half..16 * half + 16];
            store8(&mut out[..8], reduce_once(vaddq_u16(first, q_minus_3)));
            store8(&mut out[8..], reduce_once(vaddq_u16(second, q_minus_3)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::test_support::every_byte;
    use crate::cbd::{CBD3_INPUT_BYTES, cbd2_into, cbd3_groups};
    use proptest::prelude::*;

    fn check2(bytes: &[u8; CBD2_INPUT_BYTES]) {
        let (mut fast, mut slow) = ([0u16; N], [0u16; N]);
        // SAFETY: NEON is part of the aarch64 baseline.
        unsafe { cbd2_neon(bytes, &mut fast) };
        cbd2_into(bytes, &mut slow);
        assert_eq!(fast, slow);
    }

    fn check3(bytes: &[u8; CBD3_INPUT_BYTES]) {
        let (mut fast, mut slow) = ([0u16; N], [0u16; N]);
        // SAFETY: NEON is part of the aarch64 baseline.
        unsafe { cbd3_steps_neon(bytes, &mut fast) };
        cbd3_groups(bytes, &mut slow);
        assert_eq!(fast, slow);
        // Split on a step as the lane scheduler splits it (5 steps, then 3), and a short
        // output that stops the steps early.
        let (mut a, mut b) = ([0u16; N], [0u16; N]);
        // SAFETY: NEON is part of the aarch64 baseline.
        unsafe {
            cbd3_steps_neon(&bytes[..120], &mut a[..160]);
            cbd3_steps_neon(&bytes[120..], &mut a[160..]);
            cbd3_steps_neon(&bytes[..48], &mut b[..32]);
        }
        cbd3_groups(&bytes[..24], &mut slow[..32]);
        assert_eq!(a, slow);
        assert_eq!(b[..32], slow[..32]);
        assert!(b[32..].iter().all(|&c| c == 0));
    }

    #[test]
    fn every_byte_value_in_every_position() {
        every_byte(check2);
        every_byte(check3);
    }

    proptest! {
        #[test]
        fn cbd2_matches_scalar(bytes in any::<[u8; CBD2_INPUT_BYTES]>()) {
            check2(&bytes);
        }

        #[test]
        fn cbd3_matches_scalar(bytes in proptest::collection::vec(any::<u8>(), CBD3_INPUT_BYTES)) {
            check3(&bytes.try_into().unwrap());
        }
    }
}
