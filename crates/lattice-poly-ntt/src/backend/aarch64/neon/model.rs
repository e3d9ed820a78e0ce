//! Scalar models of the NEON lane operations, bit for bit (plain Rust, on every target):
//! what `cargo xtask bounds` checks exhaustively on the host, and what a unit test under
//! qemu compares the NEON instructions with. [`Scalar`] runs the NTT schedules with them
//! and records the largest `|lane|` after every stage.

use super::consts::{BARRETT_V, Q_I16, WIDE_V};
use super::lanes::Lanes;

/// `sqrdmulh` on one `i16` lane: `(2 a b + 2^15) >> 16`, saturated.
#[must_use]
pub const fn sqrdmulh(a: i16, b: i16) -> i16 {
    let r = (2 * a as i64 * b as i64 + (1 << 15)) >> 16;
    if r > i16::MAX as i64 {
        i16::MAX
    } else {
        r as i16
    }
}

/// `sqdmulh` on one `i16` lane: `(2 a b) >> 16`, saturated.
#[must_use]
pub const fn sqdmulh(a: i16, b: i16) -> i16 {
    let r = (2 * a as i64 * b as i64) >> 16;
    if r > i16::MAX as i64 {
        i16::MAX
    } else {
        r as i16
    }
}

/// `sqdmulh` on one `i32` lane: `(2 a b) >> 32`, saturated.
#[must_use]
pub const fn sqdmulh32(a: i32, b: i32) -> i32 {
    let r = (2 * a as i128 * b as i128) >> 32;
    if r > i32::MAX as i128 {
        i32::MAX
    } else {
        r as i32
    }
}

/// [`Lanes::bmul`] on one lane.
#[must_use]
pub const fn bmul(a: i16, z: i16, zt: i16) -> i16 {
    a.wrapping_mul(z)
        .wrapping_sub(sqrdmulh(a, zt).wrapping_mul(Q_I16))
}

/// [`Lanes::reduce_centered`] on one lane (`srshr #11` rounds: `(t + 2^10) >> 11`).
#[must_use]
pub const fn reduce_centered(a: i16) -> i16 {
    let t = ((sqdmulh(a, BARRETT_V) as i32 + (1 << 10)) >> 11) as i16;
    a.wrapping_sub(t.wrapping_mul(Q_I16))
}

/// [`Lanes::reduce_canonical`] on one lane.
#[must_use]
pub const fn reduce_canonical(a: i16) -> i16 {
    let t = sqrdmulh(a, BARRETT_V) >> 11;
    a.wrapping_sub(t.wrapping_mul(Q_I16))
}

/// [`Lanes::add_q_if_negative`] on one lane: the unsigned minimum of `a` and `a + q`.
#[must_use]
pub const fn add_q_if_negative(a: i16) -> i16 {
    let (x, y) = (a as u16, a.wrapping_add(Q_I16) as u16);
    (if x < y { x } else { y }) as i16
}

/// `a + b mod q` of canonical lanes (`add`, `sub`, `umin`): the unsigned minimum of
/// `a + b` and `a + b - q`.
#[must_use]
pub const fn add_mod(a: u16, b: u16) -> u16 {
    let s = a.wrapping_add(b);
    let t = s.wrapping_sub(Q_I16 as u16);
    if s < t { s } else { t }
}

/// `a - b mod q` of canonical lanes (`sub`, `add`, `umin`): the unsigned minimum of
/// `a - b` and `a - b + q`.
#[must_use]
pub const fn sub_mod(a: u16, b: u16) -> u16 {
    let d = a.wrapping_sub(b);
    let t = d.wrapping_add(Q_I16 as u16);
    if d < t { d } else { t }
}

/// The reduction of one 32-bit accumulator lane to canonical (`sqdmulh` by
/// `ceil(2^42/q)`, `shrn #11`, `uzp1`, `mls`): `x - q floor(x v / 2^42)` computed mod
/// 2^16, which is `x mod q` for `x` in `[0, NEON_ACCUMULATOR_LIMIT]`.
#[must_use]
pub const fn reduce_wide(x: i32) -> u16 {
    let t = (sqdmulh32(x, WIDE_V) >> 11) as u16;
    (x as u16).wrapping_sub(t.wrapping_mul(Q_I16 as u16))
}

/// The scalar model of [`Lanes`]: `[i16; 8]` vectors, recording per stage the largest
/// `|lane|` it sees (`lane_max[stage]`).
#[derive(Clone, Debug, Default)]
pub struct Scalar {
    /// Largest `|lane|` after each stage of the schedule run.
    pub lane_max: [i32; 10],
}

fn map2(a: [i16; 8], b: [i16; 8], f: impl Fn(i16, i16) -> i16) -> [i16; 8] {
    core::array::from_fn(|i| f(a[i], b[i]))
}

fn pair(v: &[i16; 8], e: usize) -> [i16; 2] {
    [v[2 * e], v[2 * e + 1]]
}

impl Lanes for Scalar {
    type V = [i16; 8];

    fn zero(&mut self) -> [i16; 8] {
        [0; 8]
    }
    fn add(&mut self, a: [i16; 8], b: [i16; 8]) -> [i16; 8] {
        map2(a, b, i16::wrapping_add)
    }
    fn sub(&mut self, a: [i16; 8], b: [i16; 8]) -> [i16; 8] {
        map2(a, b, i16::wrapping_sub)
    }
    fn bmul(&mut self, a: [i16; 8], z: [i16; 8], zt: [i16; 8]) -> [i16; 8] {
        core::array::from_fn(|i| bmul(a[i], z[i], zt[i]))
    }
    fn bmul_lane<const L: i32>(&mut self, a: [i16; 8], z: [i16; 8], zt: [i16; 8]) -> [i16; 8] {
        let l = L as usize % 8;
        a.map(|x| bmul(x, z[l], zt[l]))
    }
    fn reduce_centered(&mut self, a: [i16; 8]) -> [i16; 8] {
        a.map(reduce_centered)
    }
    fn reduce_canonical(&mut self, a: [i16; 8]) -> [i16; 8] {
        a.map(reduce_canonical)
    }
    fn add_q_if_negative(&mut self, a: [i16; 8]) -> [i16; 8] {
        a.map(add_q_if_negative)
    }
    fn transpose4(&mut self, v: [[i16; 8]; 4]) -> [[i16; 8]; 4] {
        core::array::from_fn(|r| {
            let mut out = [0; 8];
            for e in 0..4 {
                [out[2 * e], out[2 * e + 1]] = pair(&v[e], r);
            }
            out
        })
    }
    fn twiddles(&mut self, t: &[i16; 8]) -> [i16; 8] {
        *t
    }
    fn load2(&mut self, src: &[u16; 16]) -> [[i16; 8]; 2] {
        core::array::from_fn(|r| core::array::from_fn(|l| src[8 * r + l] as i16))
    }
    fn store2(&mut self, dst: &mut [u16; 16], v: [[i16; 8]; 2]) {
        for (i, x) in v.as_flattened().iter().enumerate() {
            dst[i] = *x as u16;
        }
    }
    fn load4(&mut self, src: &[u16; 32]) -> [[i16; 8]; 4] {
        core::array::from_fn(|r| core::array::from_fn(|l| src[8 * r + l] as i16))
    }
    fn store4(&mut self, dst: &mut [u16; 32], v: [[i16; 8]; 4]) {
        for (i, x) in v.as_flattened().iter().enumerate() {
            dst[i] = *x as u16;
        }
    }
    fn load4_pairs(&mut self, src: &[u16; 32]) -> [[i16; 8]; 4] {
        core::array::from_fn(|r| core::array::from_fn(|l| src[8 * (l / 2) + 2 * r + l % 2] as i16))
    }
    fn store4_pairs(&mut self, dst: &mut [u16; 32], v: [[i16; 8]; 4]) {
        for (r, x) in v.iter().enumerate() {
            for (l, c) in x.iter().enumerate() {
                dst[8 * (l / 2) + 2 * r + l % 2] = *c as u16;
            }
        }
    }
    fn stage(&mut self, index: usize, v: &[[i16; 8]]) {
        let m = v
            .as_flattened()
            .iter()
            .map(|x| i32::from(*x).abs())
            .max()
            .unwrap_or(0);
        if let Some(slot) = self.lane_max.get_mut(index) {
            *slot = (*slot).max(m);
        }
    }
}
