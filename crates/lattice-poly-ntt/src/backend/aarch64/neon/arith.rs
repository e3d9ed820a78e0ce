//! Lane arithmetic of the NEON backend: [`Lanes`] on `int16x8_t` (each method the one to
//! three instructions its contract names; [`super::model`] is the scalar model of each),
//! and the coefficient-wise addition and subtraction kernels.
#![allow(unsafe_code)]

use super::consts::{BARRETT_V, Q_I16};
use super::lanes::Lanes;
use crate::mlkem::N;
use core::arch::aarch64::{
    int16x8_t, uint16x8_t, vaddq_s16, vaddq_u16, vdupq_n_s16, vdupq_n_u16, vld1q_s16, vld1q_s16_x2,
    vld1q_u16_x4, vld4q_s32, vminq_u16, vmlsq_s16, vmulq_laneq_s16, vmulq_s16, vqdmulhq_n_s16,
    vqrdmulhq_laneq_s16, vqrdmulhq_n_s16, vqrdmulhq_s16, vreinterpretq_s16_s32,
    vreinterpretq_s16_s64, vreinterpretq_s16_u16, vreinterpretq_s32_s16, vreinterpretq_s64_s32,
    vreinterpretq_u16_s16, vrshrq_n_s16, vshrq_n_s16, vst1q_s16_x2, vst1q_u16_x4, vst4q_s32,
    vsubq_s16, vsubq_u16, vtrn1q_s32, vtrn1q_s64, vtrn2q_s32, vtrn2q_s64,
};
use core::arch::aarch64::{int16x8x2_t, int32x4x4_t, uint16x8x4_t};

/// The NEON implementation of [`Lanes`] (zero-sized; made only by the backend's kernels).
#[derive(Clone, Copy, Debug)]
pub(super) struct NeonLanes;

#[inline(always)]
fn q() -> int16x8_t {
    // SAFETY: NEON is part of the aarch64 baseline: every aarch64 CPU has it.
    unsafe { vdupq_n_s16(Q_I16) }
}

impl Lanes for NeonLanes {
    type V = int16x8_t;

    #[inline(always)]
    fn zero(&mut self) -> int16x8_t {
        // SAFETY: NEON is part of the aarch64 baseline: every aarch64 CPU has it.
        unsafe { vdupq_n_s16(0) }
    }
    #[inline(always)]
    fn add(&mut self, a: int16x8_t, b: int16x8_t) -> int16x8_t {
        // SAFETY: NEON is part of the aarch64 baseline: every aarch64 CPU has it.
        unsafe { vaddq_s16(a, b) }
    }
    #[inline(always)]
    fn sub(&mut self, a: int16x8_t, b: int16x8_t) -> int16x8_t {
        // SAFETY: NEON is part of the aarch64 baseline: every aarch64 CPU has it.
        unsafe { vsubq_s16(a, b) }
    }
    #[inline(always)]
    fn bmul(&mut self, a: int16x8_t, z: int16x8_t, zt: int16x8_t) -> int16x8_t {
        // SAFETY: NEON is part of the aarch64 baseline: every aarch64 CPU has it.
        unsafe {
            let t = vqrdmulhq_s16(a, zt);
            vmlsq_s16(vmulq_s16(a, z), t, q())
        }
    }
    #[inline(always)]
    fn bmul_lane<const L: i32>(&mut self, a: int16x8_t, z: int16x8_t, zt: int16x8_t) -> int16x8_t {
        // SAFETY: NEON is part of the aarch64 baseline: every aarch64 CPU has it.
        unsafe {
            let t = vqrdmulhq_laneq_s16::<L>(a, zt);
            vmlsq_s16(vmulq_laneq_s16::<L>(a, z), t, q())
        }
    }
    #[inline(always)]
    fn reduce_centered(&mut self, a: int16x8_t) -> int16x8_t {
        // SAFETY: NEON is part of the aarch64 baseline: every aarch64 CPU has it.
        unsafe {
            let t = vrshrq_n_s16::<11>(vqdmulhq_n_s16(a, BARRETT_V));
            vmlsq_s16(a, t, q())
        }
    }
    #[inline(always)]
    fn reduce_canonical(&mut self, a: int16x8_t) -> int16x8_t {
        // SAFETY: NEON is part of the aarch64 baseline: every aarch64 CPU has it.
        unsafe {
            let t = vshrq_n_s16::<11>(vqrdmulhq_n_s16(a, BARRETT_V));
            vmlsq_s16(a, t, q())
        }
    }
    #[inline(always)]
    fn add_q_if_negative(&mut self, a: int16x8_t) -> int16x8_t {
        // SAFETY: NEON is part of the aarch64 baseline: every aarch64 CPU has it.
        unsafe {
            let x = vreinterpretq_u16_s16(a);
            let y = vreinterpretq_u16_s16(vaddq_s16(a, q()));
            vreinterpretq_s16_u16(vminq_u16(x, y))
        }
    }
    #[inline(always)]
    fn transpose4(&mut self, v: [int16x8_t; 4]) -> [int16x8_t; 4] {
        // SAFETY: NEON is part of the aarch64 baseline: every aarch64 CPU has it.
        unsafe {
            let s = v.map(|x| vreinterpretq_s32_s16(x));
            let t0 = vreinterpretq_s64_s32(vtrn1q_s32(s[0], s[1]));
            let t1 = vreinterpretq_s64_s32(vtrn2q_s32(s[0], s[1]));
            let t2 = vreinterpretq_s64_s32(vtrn1q_s32(s[2], s[3]));
            let t3 = vreinterpretq_s64_s32(vtrn2q_s32(s[2], s[3]));
            [
                vreinterpretq_s16_s64(vtrn1q_s64(t0, t2)),
                vreinterpretq_s16_s64(vtrn1q_s64(t1, t3)),
                vreinterpretq_s16_s64(vtrn2q_s64(t0, t2)),
                vreinterpretq_s16_s64(vtrn2q_s64(t1, t3)),
            ]
        }
    }
    #[inline(always)]
    fn twiddles(&mut self, t: &[i16; 8]) -> int16x8_t {
        // SAFETY: `t` is 16 readable bytes; `ld1` needs no alignment.
        unsafe { vld1q_s16(t.as_ptr()) }
    }
    #[inline(always)]
    fn twiddles2(&mut self, t: &[[i16; 8]; 2]) -> [int16x8_t; 2] {
        let (a, b);
        // SAFETY: reads the 32 bytes of `t`. Assembly rather than `vld1q_s16_x2`: the
        // compiler splits a load whose lanes are not all used into scalar loads.
        unsafe {
            core::arch::asm!(
                "ldp {a:q}, {b:q}, [{p}]",
                p = in(reg) t.as_ptr(), a = out(vreg) a, b = out(vreg) b,
                options(pure, readonly, nostack, preserves_flags),
            );
        }
        [a, b]
    }
    #[inline(always)]
    fn twiddles8(&mut self, t: &[[i16; 8]; 8]) -> [int16x8_t; 8] {
        let (a, b, c, d, e, f, g, h);
        // SAFETY: reads the 128 bytes of `t` (four pairs at immediate offsets from one
        // base register).
        unsafe {
            core::arch::asm!(
                "ldp {a:q}, {b:q}, [{p}]",
                "ldp {c:q}, {d:q}, [{p}, #32]",
                "ldp {e:q}, {f:q}, [{p}, #64]",
                "ldp {g:q}, {h:q}, [{p}, #96]",
                p = in(reg) t.as_ptr(),
                a = out(vreg) a, b = out(vreg) b, c = out(vreg) c, d = out(vreg) d,
                e = out(vreg) e, f = out(vreg) f, g = out(vreg) g, h = out(vreg) h,
                options(pure, readonly, nostack, preserves_flags),
            );
        }
        [a, b, c, d, e, f, g, h]
    }
    #[inline(always)]
    fn table<'a, T>(&mut self, t: &'a T) -> &'a T {
        let p = hide_address(core::ptr::from_ref(t));
        // SAFETY: `p` is `t`, unchanged, valid for `'a`.
        unsafe { &*p }
    }
    #[inline(always)]
    fn load2(&mut self, src: &[u16; 16]) -> [int16x8_t; 2] {
        // SAFETY: `src` is 32 readable bytes.
        let int16x8x2_t(a, b) = unsafe { vld1q_s16_x2(src.as_ptr().cast()) };
        [a, b]
    }
    #[inline(always)]
    fn store2(&mut self, dst: &mut [u16; 16], v: [int16x8_t; 2]) {
        // SAFETY: `dst` is 32 writable bytes.
        unsafe { vst1q_s16_x2(dst.as_mut_ptr().cast(), int16x8x2_t(v[0], v[1])) };
    }
    #[inline(always)]
    fn load4(&mut self, src: &[u16; 32]) -> [int16x8_t; 4] {
        let (a, b, c, d);
        // SAFETY: reads the 64 bytes of `src`. Two `ldp` (the compiler splits `ld1 {4
        // regs}` into three loads).
        unsafe {
            core::arch::asm!(
                "ldp {a:q}, {b:q}, [{p}]",
                "ldp {c:q}, {d:q}, [{p}, #32]",
                p = in(reg) src.as_ptr(),
                a = out(vreg) a, b = out(vreg) b, c = out(vreg) c, d = out(vreg) d,
                options(pure, readonly, nostack, preserves_flags),
            );
        }
        [a, b, c, d]
    }
    #[inline(always)]
    fn store4(&mut self, dst: &mut [u16; 32], v: [int16x8_t; 4]) {
        // SAFETY: writes the 64 bytes of `dst`.
        unsafe {
            core::arch::asm!(
                "stp {a:q}, {b:q}, [{p}]",
                "stp {c:q}, {d:q}, [{p}, #32]",
                p = in(reg) dst.as_mut_ptr(),
                a = in(vreg) v[0], b = in(vreg) v[1], c = in(vreg) v[2], d = in(vreg) v[3],
                options(nostack, preserves_flags),
            );
        }
    }
    #[inline(always)]
    fn load4_pairs(&mut self, src: &[u16; 32]) -> [int16x8_t; 4] {
        // SAFETY: `src` is 64 readable bytes (16 lane pairs); `ld4` needs no alignment.
        let int32x4x4_t(a, b, c, d) = unsafe { vld4q_s32(src.as_ptr().cast()) };
        // SAFETY: NEON is part of the aarch64 baseline: every aarch64 CPU has it.
        unsafe {
            [
                vreinterpretq_s16_s32(a),
                vreinterpretq_s16_s32(b),
                vreinterpretq_s16_s32(c),
                vreinterpretq_s16_s32(d),
            ]
        }
    }
    #[inline(always)]
    fn store4_pairs(&mut self, dst: &mut [u16; 32], v: [int16x8_t; 4]) {
        // SAFETY: `dst` is 64 writable bytes.
        unsafe {
            let [a, b, c, d] = v.map(|x| vreinterpretq_s32_s16(x));
            vst4q_s32(store_address(dst).cast(), int32x4x4_t(a, b, c, d));
        }
    }
}

/// `p` as an address the compiler cannot relate to the loop's other addresses, for the
/// structure stores (`st2`/`st4`), which have no immediate-offset form: otherwise they get
/// a post-increment, whose base-register writeback then waits for the stored data and
/// chains every block of a loop to the previous one (a scheduling model such as
/// `llvm-mca` sees the blocks serialized). Compiles to nothing.
#[inline(always)]
pub(super) fn store_address<T>(p: &mut T) -> *mut T {
    hide_address(core::ptr::from_mut(p).cast_const()).cast_mut()
}

/// `p` unchanged, through an empty assembly block: the compiler can no longer see which
/// object or offset it is (compiles to nothing).
#[inline(always)]
fn hide_address<T>(p: *const T) -> *const T {
    p.map_addr(|mut a| {
        // SAFETY: an empty assembly block that returns its input integer unchanged.
        unsafe {
            core::arch::asm!("/* {0} */", inout(reg) a, options(pure, nomem, nostack, preserves_flags));
        }
        a
    })
}

/// `a + b mod q` of canonical lanes: the sum is below `2q`; the unsigned minimum of `s`
/// and `s - q` subtracts q exactly when `s >= q` (below, `s - q` wraps above `2^16 - q`).
#[inline]
#[target_feature(enable = "neon")]
pub(super) fn add_mod_q(a: uint16x8_t, b: uint16x8_t) -> uint16x8_t {
    let s = vaddq_u16(a, b);
    vminq_u16(s, vsubq_u16(s, vdupq_n_u16(Q_I16 as u16)))
}

/// `a - b mod q` of canonical lanes: `d = a - b` wraps above `2^16 - q` when `a < b`, where
/// `d + q` is the answer and the smaller; otherwise `d < q <= d + q`.
#[inline]
#[target_feature(enable = "neon")]
pub(super) fn sub_mod_q(a: uint16x8_t, b: uint16x8_t) -> uint16x8_t {
    let d = vsubq_u16(a, b);
    vminq_u16(d, vaddq_u16(d, vdupq_n_u16(Q_I16 as u16)))
}

/// `a = f(a, b)` lane-wise over the 256 coefficients, 32 at a time.
#[inline]
#[target_feature(enable = "neon")]
fn zip_in_place(a: &mut [u16; N], b: &[u16; N], f: fn(uint16x8_t, uint16x8_t) -> uint16x8_t) {
    let (a, b) = (a.as_chunks_mut::<32>().0, b.as_chunks::<32>().0);
    for (a, b) in a.iter_mut().zip(b) {
        // SAFETY: `a` and `b` are 64 bytes each (readable, and writable for `a`).
        unsafe {
            let x = vld1q_u16_x4(a.as_ptr());
            let y = vld1q_u16_x4(b.as_ptr());
            let r = uint16x8x4_t(f(x.0, y.0), f(x.1, y.1), f(x.2, y.2), f(x.3, y.3));
            vst1q_u16_x4(a.as_mut_ptr(), r);
        }
    }
}

/// `a[i] = a[i] + b[i] mod q` for canonical coefficients (output canonical).
#[inline(never)]
#[target_feature(enable = "neon")]
pub(super) fn add_neon(a: &mut [u16; N], b: &[u16; N]) {
    zip_in_place(a, b, |x, y| add_mod_q(x, y));
}

/// `a[i] = a[i] - b[i] mod q` for canonical coefficients (output canonical).
#[inline(never)]
#[target_feature(enable = "neon")]
pub(super) fn sub_neon(a: &mut [u16; N], b: &[u16; N]) {
    zip_in_place(a, b, |x, y| sub_mod_q(x, y));
}

/// Whether every coefficient of `a` and `b` is canonical, for debug assertions.
pub(super) fn canonical(a: &[u16; N], b: &[u16; N]) -> bool {
    a.iter().chain(b).all(|&c| c < Q_I16 as u16)
}
