//! The NEON forward and inverse NTT (FIPS 203 Alg. 9 and 10): Barrett multiplication by
//! constants with precomputed `round(zeta 2^15 / q)` ("Neon NTT", eprint 2021/986), the
//! seven layers in two passes over the polynomial, lazy bounds between layers and one final
//! reduction to canonical.
//!
//! # Schedule
//! - Pass A, layers len 128, 64, 32 (forward; len 32, 64, 128 inverse): 16 vectors at a
//!   time (coefficients `32p + 16i + 8j`, `p < 8`, `j < 2`, for `i = 0, 1`), loaded and
//!   stored two consecutive vectors per instruction; the 7 twiddles are lanes of two
//!   vectors used by element.
//! - Pass B, layers len 16, 8, 4, 2 (inverse: 2, 4, 8, 16), on each block of 32
//!   coefficients: len 16 and 8 between whole vectors in the natural layout, len 4 and 2
//!   between whole vectors after a 4x4 transpose of lane pairs, which `st4 {.4s}` undoes
//!   as it stores (`ld4 {.4s}` makes it as it loads, for the inverse). The block's eight
//!   twiddle vectors are one table row.
//!
//! # Bounds (`cargo xtask bounds` runs these schedules in an interval domain and with the
//! scalar model on extreme and random inputs)
//! - Forward: canonical input; each layer adds a Barrett product, `|t| <= q/2 + q|b|/2^16`,
//!   so the lanes stay below [`NEON_NTT_LANE_BOUND`](super::consts::NEON_NTT_LANE_BOUND)
//!   (`5.5 q`, inside `reduce_canonical`'s domain); one canonical Barrett reduction ends it.
//! - Inverse: sums double per layer. After len 2 and 4 only the vector holding the
//!   four-term sums (`< 4q`) is reduced (centered, to `|x| <= (q-1)/2`); after len 8, 16
//!   and 32 the sums are below `9q`, and the half of the vectors holding sums is reduced
//!   again; len 64 and the scaled len 128 stay below
//!   [`NEON_INTT_LANE_BOUND`](super::consts::NEON_INTT_LANE_BOUND). The scaling by `128^-1` is
//!   merged into the last layer (its sums times `128^-1`, its differences times
//!   `zeta 128^-1`), whose Barrett products are in `(-q, q)`; one conditional addition of
//!   q makes them canonical.

use super::lanes::Lanes;
use crate::mlkem::N;
use crate::mlkem::zetas::{GAMMAS, INV_128, ZETAS};
use lattice_field::gf3329::Q;

/// `z` mod q as the centered representative in `(-q/2, q/2]`.
#[must_use]
pub const fn centered(z: u32) -> i16 {
    let z = (z % Q as u32) as i32;
    if z > Q as i32 / 2 {
        (z - Q as i32) as i16
    } else {
        z as i16
    }
}

/// `round(z 2^15 / q)`: the `sqrdmulh` companion of a Barrett multiplication by `z`
/// (`z 2^15 / q` is never a half-integer: q is odd and does not divide `z`, or `z = 0`).
#[must_use]
pub const fn twist(z: i16) -> i16 {
    let num = 2 * (z as i64) * (1 << 15) + Q as i64;
    num.div_euclid(2 * Q as i64) as i16
}

/// `[z, round(z 2^15 / q)]` vectors of the canonical zetas `zs` (centered).
const fn pair_of(zs: [u32; 8]) -> [[i16; 8]; 2] {
    let mut out = [[0i16; 8]; 2];
    let mut l = 0;
    while l < 8 {
        out[0][l] = centered(zs[l]);
        out[1][l] = twist(out[0][l]);
        l += 1;
    }
    out
}

const fn zeta(i: usize) -> u32 {
    ZETAS[i] as u32
}

/// Forward pass A: lanes 0..7 are `ZETAS[1..8]` (len 128, 64, 64, 32 x 4).
pub const FWD_A: [[i16; 8]; 2] = {
    let mut zs = [0u32; 8];
    let mut l = 0;
    while l < 7 {
        zs[l] = zeta(l + 1);
        l += 1;
    }
    pair_of(zs)
};

/// Forward pass B, per block `b` of 32 coefficients: `[z, zt]` of lanes `(ZETAS[8 + b],
/// ZETAS[16 + 2b], ZETAS[17 + 2b])` (len 16, 8, 8, by element), then per lane of the
/// transposed layout: len 4 (`ZETAS[32 + 4b + l/2]`), len 2 for vectors 0-1
/// (`ZETAS[64 + 8b + 2(l/2)]`) and 2-3 (`+ 1`).
pub const FWD_B: [[[i16; 8]; 8]; 8] = {
    let mut t = [[[0i16; 8]; 8]; 8];
    let mut b = 0;
    while b < 8 {
        let s = pair_of([
            zeta(8 + b),
            zeta(16 + 2 * b),
            zeta(17 + 2 * b),
            0,
            0,
            0,
            0,
            0,
        ]);
        let mut len4 = [0u32; 8];
        let mut len2_lo = [0u32; 8];
        let mut len2_hi = [0u32; 8];
        let mut l = 0;
        while l < 8 {
            len4[l] = zeta(32 + 4 * b + l / 2);
            len2_lo[l] = zeta(64 + 8 * b + 2 * (l / 2));
            len2_hi[l] = zeta(64 + 8 * b + 2 * (l / 2) + 1);
            l += 1;
        }
        let (v4, v2l, v2h) = (pair_of(len4), pair_of(len2_lo), pair_of(len2_hi));
        t[b] = [s[0], s[1], v4[0], v4[1], v2l[0], v2l[1], v2h[0], v2h[1]];
        b += 1;
    }
    t
};

/// Inverse pass B, per block `b`: `[z, zt]` of lanes `(ZETAS[31 - 2b], ZETAS[30 - 2b],
/// ZETAS[15 - b])` (len 8, 8, 16), then per lane of the transposed layout: len 4
/// (`ZETAS[63 - 4b - l/2]`), len 2 for vectors 0-1 (`ZETAS[127 - 8b - 2(l/2)]`) and 2-3
/// (`- 1`). (FIPS 203 Alg. 10 takes `ZETAS[256/len - 1 - block]`.)
pub const INV_B: [[[i16; 8]; 8]; 8] = {
    let mut t = [[[0i16; 8]; 8]; 8];
    let mut b = 0;
    while b < 8 {
        let s = pair_of([
            zeta(31 - 2 * b),
            zeta(30 - 2 * b),
            zeta(15 - b),
            0,
            0,
            0,
            0,
            0,
        ]);
        let mut len4 = [0u32; 8];
        let mut len2_lo = [0u32; 8];
        let mut len2_hi = [0u32; 8];
        let mut l = 0;
        while l < 8 {
            len4[l] = zeta(63 - 4 * b - l / 2);
            len2_lo[l] = zeta(127 - 8 * b - 2 * (l / 2));
            len2_hi[l] = zeta(126 - 8 * b - 2 * (l / 2));
            l += 1;
        }
        let (v4, v2l, v2h) = (pair_of(len4), pair_of(len2_lo), pair_of(len2_hi));
        t[b] = [s[0], s[1], v4[0], v4[1], v2l[0], v2l[1], v2h[0], v2h[1]];
        b += 1;
    }
    t
};

/// Inverse pass A: lanes `ZETAS[7], [6], [5], [4]` (len 32), `ZETAS[3], [2]` (len 64),
/// `128^-1` and `ZETAS[1] 128^-1` (len 128 with the scaling of Alg. 10 line 14).
pub const INV_A: [[i16; 8]; 2] = pair_of([
    zeta(7),
    zeta(6),
    zeta(5),
    zeta(4),
    zeta(3),
    zeta(2),
    INV_128 as u32,
    (zeta(1) * INV_128 as u32) % Q as u32,
]);

/// Per block `m` of 16 pairs: `[gamma, round(gamma 2^15 / q)]` (centered) of the pairs
/// `16m + j`, then of the pairs `16m + 8 + j` (the halves two `ld2 {.8h}` load).
pub const GAMMA_TABLE: [[[i16; 8]; 4]; 8] = {
    let mut t = [[[0i16; 8]; 4]; 8];
    let mut m = 0;
    while m < 8 {
        let mut j = 0;
        while j < 8 {
            let lo = centered(GAMMAS[16 * m + j] as u32);
            let hi = centered(GAMMAS[16 * m + 8 + j] as u32);
            t[m][0][j] = lo;
            t[m][1][j] = twist(lo);
            t[m][2][j] = hi;
            t[m][3][j] = twist(hi);
            j += 1;
        }
        m += 1;
    }
    t
};

/// Every twiddle table of the backend (NTTs and product cache), by name, for the bounds
/// checker.
pub const TWIDDLE_TABLES: [(&str, &[[i16; 8]]); 5] = [
    ("FWD_A", FWD_A.as_slice()),
    ("FWD_B", FWD_B.as_flattened()),
    ("INV_A", INV_A.as_slice()),
    ("INV_B", INV_B.as_flattened()),
    ("GAMMA_TABLE", GAMMA_TABLE.as_flattened()),
];

/// Cooley-Tukey butterfly by lane `LANE` of `z`: `(a + z b, a - z b)`.
#[inline(always)]
fn ct_lane<L: Lanes, const LANE: i32>(
    l: &mut L,
    x: &mut [L::V],
    (i, j): (usize, usize),
    z: L::V,
    zt: L::V,
) {
    let t = l.bmul_lane::<LANE>(x[j], z, zt);
    x[j] = l.sub(x[i], t);
    x[i] = l.add(x[i], t);
}

/// Cooley-Tukey butterfly with a vector of twiddles.
#[inline(always)]
fn ct<L: Lanes>(l: &mut L, x: &mut [L::V], (i, j): (usize, usize), z: L::V, zt: L::V) {
    let t = l.bmul(x[j], z, zt);
    x[j] = l.sub(x[i], t);
    x[i] = l.add(x[i], t);
}

/// Gentleman-Sande butterfly by lane `LANE` of `z`: `(a + b, z (b - a))`.
#[inline(always)]
fn gs_lane<L: Lanes, const LANE: i32>(
    l: &mut L,
    x: &mut [L::V],
    (i, j): (usize, usize),
    z: L::V,
    zt: L::V,
) {
    let d = l.sub(x[j], x[i]);
    x[i] = l.add(x[i], x[j]);
    x[j] = l.bmul_lane::<LANE>(d, z, zt);
}

/// Gentleman-Sande butterfly with a vector of twiddles.
#[inline(always)]
fn gs<L: Lanes>(l: &mut L, x: &mut [L::V], (i, j): (usize, usize), z: L::V, zt: L::V) {
    let d = l.sub(x[j], x[i]);
    x[i] = l.add(x[i], x[j]);
    x[j] = l.bmul(d, z, zt);
}

/// 16-coefficient chunk `c` of `f`.
#[inline(always)]
fn chunk16(f: &[u16; N], c: usize) -> &[u16; 16] {
    &f.as_chunks::<16>().0[c]
}

#[inline(always)]
fn chunk16_mut(f: &mut [u16; N], c: usize) -> &mut [u16; 16] {
    &mut f.as_chunks_mut::<16>().0[c]
}

#[inline(always)]
fn chunk32(f: &[u16; N], c: usize) -> &[u16; 32] {
    &f.as_chunks::<32>().0[c]
}

#[inline(always)]
fn chunk32_mut(f: &mut [u16; N], c: usize) -> &mut [u16; 32] {
    &mut f.as_chunks_mut::<32>().0[c]
}

/// The forward NTT of `src` (or of `dst` itself when `src` is `None`) into `dst`, both
/// canonical in FIPS 203 order.
#[inline(always)]
pub fn ntt<L: Lanes>(l: &mut L, src: Option<&[u16; N]>, dst: &mut [u16; N]) {
    let [z, zt] = {
        let t = l.table(&FWD_A);
        l.twiddles2(t)
    };
    // Two calls with constant `i`: every address is then an immediate offset.
    ntt_pass_a(l, src, dst, 0, z, zt);
    ntt_pass_a(l, src, dst, 1, z, zt);
    // Eight calls with constant `b` (no loop): immediate offsets, and each block's
    // structure store independent of the previous block's.
    let table = l.table(&FWD_B);
    ntt_pass_b(l, dst, 0, &table[0]);
    ntt_pass_b(l, dst, 1, &table[1]);
    ntt_pass_b(l, dst, 2, &table[2]);
    ntt_pass_b(l, dst, 3, &table[3]);
    ntt_pass_b(l, dst, 4, &table[4]);
    ntt_pass_b(l, dst, 5, &table[5]);
    ntt_pass_b(l, dst, 6, &table[6]);
    ntt_pass_b(l, dst, 7, &table[7]);
}

/// Forward pass B (layers len 16, 8, 4, 2 and the final reduction) on block `b`.
#[inline(always)]
fn ntt_pass_b<L: Lanes>(l: &mut L, dst: &mut [u16; N], b: usize, t: &[[i16; 8]; 8]) {
    let t = l.twiddles8(t);
    let mut v = l.load4(chunk32(dst, b));
    // len 16 and 8 between whole vectors (natural layout).
    ct_lane::<L, 0>(l, &mut v, (0, 2), t[0], t[1]);
    ct_lane::<L, 0>(l, &mut v, (1, 3), t[0], t[1]);
    l.stage(3, &v);
    ct_lane::<L, 1>(l, &mut v, (0, 1), t[0], t[1]);
    ct_lane::<L, 2>(l, &mut v, (2, 3), t[0], t[1]);
    l.stage(4, &v);
    // len 4 and 2 between whole vectors of the transposed layout.
    let mut w = l.transpose4(v);
    ct(l, &mut w, (0, 2), t[2], t[3]);
    ct(l, &mut w, (1, 3), t[2], t[3]);
    l.stage(5, &w);
    ct(l, &mut w, (0, 1), t[4], t[5]);
    ct(l, &mut w, (2, 3), t[6], t[7]);
    l.stage(6, &w);
    // |w| <= NEON_NTT_LANE_BOUND, inside reduce_canonical's domain.
    let w = w.map(|x| l.reduce_canonical(x));
    l.stage(7, &w);
    l.store4_pairs(chunk32_mut(dst, b), w);
}

/// The inverse NTT with the final scaling (FIPS 203 Alg. 10) of `src` (or of `dst` itself
/// when `src` is `None`) into `dst`, both canonical in FIPS 203 order.
#[inline(always)]
pub fn inverse_ntt<L: Lanes>(l: &mut L, src: Option<&[u16; N]>, dst: &mut [u16; N]) {
    // Eight calls with constant `b`, as in the forward NTT.
    let table = l.table(&INV_B);
    inverse_pass_b(l, src, dst, 0, &table[0]);
    inverse_pass_b(l, src, dst, 1, &table[1]);
    inverse_pass_b(l, src, dst, 2, &table[2]);
    inverse_pass_b(l, src, dst, 3, &table[3]);
    inverse_pass_b(l, src, dst, 4, &table[4]);
    inverse_pass_b(l, src, dst, 5, &table[5]);
    inverse_pass_b(l, src, dst, 6, &table[6]);
    inverse_pass_b(l, src, dst, 7, &table[7]);
    let [z, zt] = {
        let t = l.table(&INV_A);
        l.twiddles2(t)
    };
    inverse_pass_a(l, dst, 0, z, zt);
    inverse_pass_a(l, dst, 1, z, zt);
}

/// Inverse pass B (layers len 2, 4, 8, 16) on block `b`.
#[inline(always)]
fn inverse_pass_b<L: Lanes>(
    l: &mut L,
    src: Option<&[u16; N]>,
    dst: &mut [u16; N],
    b: usize,
    t: &[[i16; 8]; 8],
) {
    let t = l.twiddles8(t);
    let mut w = match src {
        Some(s) => l.load4_pairs(chunk32(s, b)),
        None => l.load4_pairs(chunk32(dst, b)),
    };
    // len 2 and 4 between whole vectors of the transposed layout.
    gs(l, &mut w, (0, 1), t[4], t[5]);
    gs(l, &mut w, (2, 3), t[6], t[7]);
    l.stage(0, &w);
    gs(l, &mut w, (0, 2), t[2], t[3]);
    gs(l, &mut w, (1, 3), t[2], t[3]);
    l.stage(1, &w);
    // w[0] holds sums of four canonical values (< 4q); the others are below 2q.
    w[0] = l.reduce_centered(w[0]);
    l.stage(2, &w);
    // len 8 and 16 in the natural layout.
    let mut v = l.transpose4(w);
    gs_lane::<L, 0>(l, &mut v, (0, 1), t[0], t[1]);
    gs_lane::<L, 1>(l, &mut v, (2, 3), t[0], t[1]);
    l.stage(3, &v);
    gs_lane::<L, 2>(l, &mut v, (0, 2), t[0], t[1]);
    gs_lane::<L, 2>(l, &mut v, (1, 3), t[0], t[1]);
    l.stage(4, &v);
    l.store4(chunk32_mut(dst, b), v);
}

/// Inverse pass A (layers len 32, 64, 128 and the scaling) on coefficients
/// `32p + 16i + 8j`.
#[inline(always)]
fn inverse_pass_a<L: Lanes>(l: &mut L, dst: &mut [u16; N], i: usize, z: L::V, zt: L::V) {
    let mut x = [l.zero(); 16];
    for p in 0..8 {
        [x[2 * p], x[2 * p + 1]] = l.load2(chunk16(dst, 2 * p + i));
    }
    // len 32 (ZETAS[7..3]).
    for k in 0..2 {
        gs_lane::<L, 0>(l, &mut x, (k, k + 2), z, zt);
        gs_lane::<L, 1>(l, &mut x, (k + 4, k + 6), z, zt);
        gs_lane::<L, 2>(l, &mut x, (k + 8, k + 10), z, zt);
        gs_lane::<L, 3>(l, &mut x, (k + 12, k + 14), z, zt);
    }
    l.stage(5, &x);
    // The sums (vectors 0, 1, 4, 5, 8, 9, 12, 13) are below 9q: reduce them.
    for k in [0, 1, 4, 5, 8, 9, 12, 13] {
        x[k] = l.reduce_centered(x[k]);
    }
    l.stage(6, &x);
    // len 64 (ZETAS[3], ZETAS[2]).
    for k in 0..4 {
        gs_lane::<L, 4>(l, &mut x, (k, k + 4), z, zt);
        gs_lane::<L, 5>(l, &mut x, (k + 8, k + 12), z, zt);
    }
    l.stage(7, &x);
    // len 128 (ZETAS[1]) with the scaling: (128^-1 (a + b), ZETAS[1] 128^-1 (b - a)).
    for k in 0..8 {
        let d = l.sub(x[k + 8], x[k]);
        let s = l.add(x[k], x[k + 8]);
        x[k] = l.bmul_lane::<6>(s, z, zt);
        x[k + 8] = l.bmul_lane::<7>(d, z, zt);
    }
    l.stage(8, &x);
    // Barrett products are in (-q, q).
    for v in &mut x {
        *v = l.add_q_if_negative(*v);
    }
    l.stage(9, &x);
    for p in 0..8 {
        l.store2(chunk16_mut(dst, 2 * p + i), [x[2 * p], x[2 * p + 1]]);
    }
}

/// Forward pass A (layers len 128, 64, 32) on coefficients `32p + 16i + 8j`.
#[inline(always)]
fn ntt_pass_a<L: Lanes>(
    l: &mut L,
    src: Option<&[u16; N]>,
    dst: &mut [u16; N],
    i: usize,
    z: L::V,
    zt: L::V,
) {
    let mut x = [l.zero(); 16];
    for p in 0..8 {
        [x[2 * p], x[2 * p + 1]] = match src {
            Some(s) => l.load2(chunk16(s, 2 * p + i)),
            None => l.load2(chunk16(dst, 2 * p + i)),
        };
    }
    // len 128 (ZETAS[1]); |x| < q + (q/2 + q (q-1) / 2^16) on canonical input.
    for k in 0..8 {
        ct_lane::<L, 0>(l, &mut x, (k, k + 8), z, zt);
    }
    l.stage(0, &x);
    // len 64 (ZETAS[2], ZETAS[3]).
    for k in 0..4 {
        ct_lane::<L, 1>(l, &mut x, (k, k + 4), z, zt);
        ct_lane::<L, 2>(l, &mut x, (k + 8, k + 12), z, zt);
    }
    l.stage(1, &x);
    // len 32 (ZETAS[4..8]).
    for k in 0..2 {
        ct_lane::<L, 3>(l, &mut x, (k, k + 2), z, zt);
        ct_lane::<L, 4>(l, &mut x, (k + 4, k + 6), z, zt);
        ct_lane::<L, 5>(l, &mut x, (k + 8, k + 10), z, zt);
        ct_lane::<L, 6>(l, &mut x, (k + 12, k + 14), z, zt);
    }
    l.stage(2, &x);
    for p in 0..8 {
        l.store2(chunk16_mut(dst, 2 * p + i), [x[2 * p], x[2 * p + 1]]);
    }
}

/// The NEON forward NTT in place.
#[cfg(target_arch = "aarch64")]
#[inline(never)]
pub(super) fn ntt_neon(coeffs: &mut [u16; N]) {
    ntt(&mut super::arith::NeonLanes, None, coeffs);
}

/// The NEON forward NTT of `src` into `dst`.
#[cfg(target_arch = "aarch64")]
#[inline(never)]
pub(super) fn ntt_neon_into(src: &[u16; N], dst: &mut [u16; N]) {
    ntt(&mut super::arith::NeonLanes, Some(src), dst);
}

/// The NEON inverse NTT in place.
#[cfg(target_arch = "aarch64")]
#[inline(never)]
pub(super) fn inverse_ntt_neon(coeffs: &mut [u16; N]) {
    inverse_ntt(&mut super::arith::NeonLanes, None, coeffs);
}

/// The NEON inverse NTT of `src` into `dst`.
#[cfg(target_arch = "aarch64")]
#[inline(never)]
pub(super) fn inverse_ntt_neon_into(src: &[u16; N], dst: &mut [u16; N]) {
    inverse_ntt(&mut super::arith::NeonLanes, Some(src), dst);
}
