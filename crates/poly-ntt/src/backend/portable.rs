//! The portable scalar backend: straight-line Rust, one FIPS 203 loop per function.

use super::{Backend, PAIRS};
use crate::N;
use crate::zetas::{GAMMAS, INV_128, ZETAS};
use mlkem_field::{add, barrett_reduce, mul, sub};

/// The portable backend, available on every target.
#[derive(Clone, Copy, Debug, Default)]
pub struct Portable;

impl Backend for Portable {
    const MAX_TERMS: usize = crate::ACCUMULATOR_MAX_TERMS;

    fn ntt(f: &mut [u16; N]) {
        // Algorithm 9. Every butterfly keeps its outputs canonical: one Barrett reduction
        // of the product (< q^2) and one conditional subtraction each for the sum and the
        // difference.
        let mut i = 1;
        let mut len = 128;
        while len >= 2 {
            for start in (0..N).step_by(2 * len) {
                let zeta = ZETAS[i];
                i += 1;
                for j in start..start + len {
                    let t = mul(zeta, f[j + len]);
                    f[j + len] = sub(f[j], t);
                    f[j] = add(f[j], t);
                }
            }
            len /= 2;
        }
    }

    fn inverse_ntt(f: &mut [u16; N]) {
        // Algorithm 10.
        let mut i = 127;
        let mut len = 2;
        while len <= 128 {
            for start in (0..N).step_by(2 * len) {
                let zeta = ZETAS[i];
                i -= 1;
                for j in start..start + len {
                    let t = f[j];
                    f[j] = add(t, f[j + len]);
                    f[j + len] = mul(zeta, sub(f[j + len], t));
                }
            }
            len *= 2;
        }
        for c in f.iter_mut() {
            *c = mul(*c, INV_128);
        }
    }

    fn mul_cache(b: &[u16; N], out: &mut [u16; PAIRS]) {
        for i in 0..PAIRS {
            out[i] = mul(b[2 * i + 1], GAMMAS[i]);
        }
    }

    fn accumulate(acc: &mut [u32; N], a: &[u16; N], b: &[u16; N], b_zeta: &[u16; PAIRS]) {
        for i in 0..PAIRS {
            let (a0, a1) = (a[2 * i] as u32, a[2 * i + 1] as u32);
            let (b0, b1) = (b[2 * i] as u32, b[2 * i + 1] as u32);
            let bz = b_zeta[i] as u32;
            // Each sum is at most 2(q-1)^2 = PRODUCT_TERM_MAX (all inputs canonical); the
            // caller bounds the number of terms (ACCUMULATOR_MAX_TERMS).
            acc[2 * i] += a0 * b0 + a1 * bz;
            acc[2 * i + 1] += a0 * b1 + a1 * b0;
        }
    }

    fn reduce_accumulator(acc: &[u32; N], out: &mut [u16; N]) {
        // barrett_reduce accepts every u32.
        for (o, &a) in out.iter_mut().zip(acc) {
            *o = barrett_reduce(a);
        }
    }

    fn add(a: &mut [u16; N], b: &[u16; N]) {
        // `add` (the field's) reduces a + b <= 2q - 2 with one conditional subtraction.
        for (x, &y) in a.iter_mut().zip(b) {
            *x = add(*x, y);
        }
    }

    fn sub(a: &mut [u16; N], b: &[u16; N]) {
        // `sub` (the field's) reduces a + q - b in [1, 2q - 1] with one conditional subtraction.
        for (x, &y) in a.iter_mut().zip(b) {
            *x = sub(*x, y);
        }
    }
}
