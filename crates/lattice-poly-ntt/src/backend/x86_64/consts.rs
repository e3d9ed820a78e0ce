//! What both x86-64 backends share: the Montgomery constants of q, the bounds of the NTT
//! lanes and of the accumulator lanes (the AVX-512 kernels run the AVX2 schedule and
//! accumulator layout on twice the width, so one set of bounds holds for both), and the
//! twiddle and gamma tables in Montgomery form, built at compile time.

#![cfg_attr(not(feature = "bounds-probe"), allow(unreachable_pub))]

use crate::mlkem::zetas::{GAMMAS, ZETAS};
use crate::mlkem::{MAX_RANK, PRODUCT_TERM_MAX};
use lattice_field::gf3329::Q;

/// q as an `i16`.
pub(crate) const Q_I16: i16 = Q as i16;
/// `q^-1 mod 2^16`, as a signed 16-bit value.
pub(crate) const QINV: i16 = -3327;
/// `2^32 mod q`: multiplying a Montgomery-reduced value by it (Montgomery) restores it.
pub(crate) const R2: i16 = 1353;
/// `128^-1 * 2^16 mod q`: the inverse NTT's final scaling, in Montgomery form.
pub(crate) const INTT_SCALE: i16 = 512;

const _: () = assert!((Q as i32 * QINV as i32) & 0xffff == 1);
const _: () = assert!(R2 as i64 == (1i64 << 32) % Q as i64);
const _: () = assert!((INTT_SCALE as i64 * 128) % Q as i64 == (1i64 << 16) % Q as i64);

// The bounds are `pub` for the bounds checker, which reads them (`bounds-probe` only).
/// Bound on `|lane|` inside the forward NTT: `8q`.
pub const NTT_LANE_BOUND: i32 = 8 * Q as i32;
/// Bound on `|lane|` inside the inverse NTT between reductions: three layers of doubling
/// from canonical inputs (`< q`) or from Barrett outputs (`<= q/2`) stay below `8q`.
pub const INTT_LANE_BOUND: i32 = 8 * Q as i32;
/// Largest accumulator lane value the final Montgomery reduction accepts:
/// `2^31 - 2^15 q - 1` (at `2^31 - 2^15 q` the result, `2^15`, no longer fits an `i16`).
pub const AVX2_ACCUMULATOR_LIMIT: i64 = (1i64 << 31) - (1i64 << 15) * Q as i64 - 1;
/// Number of base-case products one AVX2 accumulator lane can take.
pub const AVX2_MAX_TERMS: usize = (AVX2_ACCUMULATOR_LIMIT / PRODUCT_TERM_MAX as i64) as usize;

const _: () = assert!(NTT_LANE_BOUND < i16::MAX as i32);
const _: () = assert!(INTT_LANE_BOUND < i16::MAX as i32);
const _: () = assert!(AVX2_MAX_TERMS >= MAX_RANK);

/// `x * 2^16 mod q`, centered in `(-q/2, q/2]`, for twiddle tables in Montgomery form.
pub(crate) const fn to_mont(x: u16) -> i16 {
    let r = ((x as u32) << 16) % Q as u32;
    if r > Q as u32 / 2 {
        r as i16 - Q_I16
    } else {
        r as i16
    }
}

/// `b * q^-1 mod 2^16`: the precomputed second factor of a Montgomery multiplication by b.
pub(crate) const fn qinv_of(b: i16) -> i16 {
    b.wrapping_mul(QINV)
}

/// Coefficient (within a 32-coefficient pair of vectors `x`, `y`) held by lane `lane` of
/// the "lo" operand of a layer with butterfly length `len` in {8, 4, 2}; the "hi" operand's
/// lane holds that coefficient plus `len`.
const fn lo_lane_coefficient(len: usize, lane: usize) -> usize {
    let (half, p) = (lane / 8, lane % 8);
    match len {
        // lo = [x0..8 | y0..8]
        8 => {
            if lane < 8 {
                lane
            } else {
                16 + lane - 8
            }
        }
        // lo = unpacklo_epi64(x, y) = [x(8h)..+4, y(8h)..+4] per 128-bit half h
        4 => {
            if p < 4 {
                8 * half + p
            } else {
                16 + 8 * half + p - 4
            }
        }
        // x' = dword order [0, 2, 1, 3] within each half; lo = unpacklo_epi64(x', y')
        2 => {
            let (src, q) = if p < 4 { (0, p) } else { (16, p - 4) };
            let dword = [0, 2][q / 2];
            src + 8 * half + 2 * dword + q % 2
        }
        _ => panic!("len must be 8, 4 or 2"),
    }
}

/// Twiddles, in Montgomery form, for the in-register layers (len 8, 4, 2), one vector per
/// pair of coefficient vectors: `[layer][pair][lane]`. `inverse` selects FIPS 203 Alg. 10's
/// order (zeta index `256/len - 1 - block`) instead of FIPS 203 Alg. 9's (`128/len + block`).
const fn shuffled_zetas(inverse: bool, with_qinv: bool) -> [[[i16; 16]; 8]; 3] {
    let mut t = [[[0i16; 16]; 8]; 3];
    let lens = [8usize, 4, 2];
    let mut l = 0;
    while l < 3 {
        let len = lens[l];
        let mut pair = 0;
        while pair < 8 {
            let mut lane = 0;
            while lane < 16 {
                let c = 32 * pair + lo_lane_coefficient(len, lane);
                let block = c / (2 * len);
                let idx = if inverse {
                    256 / len - 1 - block
                } else {
                    128 / len + block
                };
                let z = to_mont(ZETAS[idx]);
                t[l][pair][lane] = if with_qinv { qinv_of(z) } else { z };
                lane += 1;
            }
            pair += 1;
        }
        l += 1;
    }
    t
}

/// The forward in-register twiddles (FIPS 203 Alg. 9), and their `q^-1` multiples.
pub(crate) const FWD_SHUFFLED: [[[i16; 16]; 8]; 3] = shuffled_zetas(false, false);
pub(crate) const FWD_SHUFFLED_QINV: [[[i16; 16]; 8]; 3] = shuffled_zetas(false, true);
/// The inverse in-register twiddles (FIPS 203 Alg. 10), and their `q^-1` multiples.
pub(crate) const INV_SHUFFLED: [[[i16; 16]; 8]; 3] = shuffled_zetas(true, false);
pub(crate) const INV_SHUFFLED_QINV: [[[i16; 16]; 8]; 3] = shuffled_zetas(true, true);

/// Scalar twiddles in Montgomery form with their q^-1 multiples, for the layers between
/// whole vectors (len 128 .. 16).
pub(crate) const ZETAS_MONT: [(i16, i16); 128] = {
    let mut t = [(0i16, 0i16); 128];
    let mut i = 0;
    while i < 128 {
        let z = to_mont(ZETAS[i]);
        t[i] = (z, qinv_of(z));
        i += 1;
    }
    t
};

/// Gammas in Montgomery form, placed in the odd lanes of each 16-lane vector (pairs 8m..8m+8).
pub(crate) const GAMMAS_ODD: [[i16; 16]; 16] = {
    let mut t = [[0i16; 16]; 16];
    let mut m = 0;
    while m < 16 {
        let mut j = 0;
        while j < 8 {
            t[m][2 * j + 1] = to_mont(GAMMAS[8 * m + j]);
            j += 1;
        }
        m += 1;
    }
    t
};

/// [`GAMMAS_ODD`] with each lane's `q^-1` multiple.
pub(crate) const GAMMAS_ODD_QINV: [[i16; 16]; 16] = {
    let mut t = GAMMAS_ODD;
    let mut m = 0;
    while m < 16 {
        let mut j = 0;
        while j < 16 {
            t[m][j] = qinv_of(t[m][j]);
            j += 1;
        }
        m += 1;
    }
    t
};
