//! Keccak-f\[1600\] on `W` interleaved states in portable code: [`PortableX1`] (the scalar
//! permutation on the one state) and [`PortableX2`] (two states whose rounds run side by
//! side: each step is a loop over the two, which the compiler may turn into one 128-bit
//! vector operation, SSE2 on x86-64, NEON on aarch64).
// No backend runs the two-state form yet (slower than one state on x86-64: see
// `crate::backend::PortableLanes`); the tests check it against the scalar permutation.
#![cfg_attr(not(test), allow(dead_code))]

use super::f1600::{RC, permute_rounds};
use super::{KeccakF1600, PermuteLanes, WORDS};

/// One state: the scalar permutation ([`super::f1600_portable`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PortableX1;

impl KeccakF1600 for PortableX1 {
    #[inline(always)]
    fn f1600(self, state: &mut [u64; 25]) {
        permute_rounds(state);
    }
}

impl PermuteLanes<1> for PortableX1 {
    #[inline(always)]
    fn permute(self, states: &mut [[u64; 1]; WORDS]) {
        let state: &mut [u64; WORDS] = states
            .as_flattened_mut()
            .try_into()
            .expect("25 states of one word");
        permute_rounds(state);
    }
}

/// Two states, rounds side by side (see the module docs). No backend runs it on x86-64,
/// where it is slower than one state at a time (see `crate::backend::PortableLanes`); it
/// is the portable two-state reference for the vector backends to come.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PortableX2;

impl KeccakF1600 for PortableX2 {
    #[inline(always)]
    fn f1600(self, state: &mut [u64; 25]) {
        permute_rounds(state);
    }
}

impl PermuteLanes<2> for PortableX2 {
    #[inline(always)]
    fn permute(self, states: &mut [[u64; 2]; WORDS]) {
        permute_interleaved(states);
    }
}

/// The source word and rotation of each output of rho and pi, by output plane `Y` and
/// position `X`: `B[X + 5Y] = rot(A[src] ^ D[src mod 5], r)` with `(X, Y) = (y, 2x + 3y)` for
/// `src = x + 5y` (FIPS 202 §3.2.2 and FIPS 202 §3.2.3; the table of `super::f1600`'s round).
const RHO_PI: [[(usize, u32); 5]; 5] = [
    [(0, 0), (6, 44), (12, 43), (18, 21), (24, 14)],
    [(3, 28), (9, 20), (10, 3), (16, 45), (22, 61)],
    [(1, 1), (7, 6), (13, 25), (19, 8), (20, 18)],
    [(4, 27), (5, 36), (11, 10), (17, 15), (23, 56)],
    [(2, 62), (8, 55), (14, 39), (15, 41), (21, 2)],
];

/// `W` words combined lane by lane.
#[inline(always)]
fn zip<const W: usize>(a: [u64; W], b: [u64; W], f: impl Fn(u64, u64) -> u64) -> [u64; W] {
    let mut out = [0; W];
    for l in 0..W {
        out[l] = f(a[l], b[l]);
    }
    out
}

/// One round (theta, rho, pi, chi, iota) of `W` interleaved states from `a` into `e`.
#[inline(always)]
fn round<const W: usize>(a: &[[u64; W]; WORDS], e: &mut [[u64; W]; WORDS], rc: u64) {
    let xor = |x: [u64; W], y: [u64; W]| zip(x, y, |p, q| p ^ q);
    let mut c = [[0u64; W]; 5];
    for (x, c) in c.iter_mut().enumerate() {
        *c = xor(
            xor(xor(a[x], a[x + 5]), xor(a[x + 10], a[x + 15])),
            a[x + 20],
        );
    }
    let mut d = [[0u64; W]; 5];
    for (x, d) in d.iter_mut().enumerate() {
        *d = zip(c[(x + 4) % 5], c[(x + 1) % 5], |p, q| p ^ q.rotate_left(1));
    }
    for (plane, sources) in RHO_PI.iter().enumerate() {
        let mut b = [[0u64; W]; 5];
        for (b, &(src, r)) in b.iter_mut().zip(sources) {
            *b = zip(a[src], d[src % 5], |p, q| (p ^ q).rotate_left(r));
        }
        for x in 0..5 {
            let chi = zip(b[(x + 1) % 5], b[(x + 2) % 5], |p, q| !p & q);
            e[5 * plane + x] = xor(b[x], chi);
        }
    }
    for w in &mut e[0] {
        *w ^= rc;
    }
}

/// The 24 rounds on `W` interleaved states, two per iteration through a scratch copy (erased
/// after: it holds the states one round before the output).
#[inline(always)]
fn permute_interleaved<const W: usize>(s: &mut [[u64; W]; WORDS]) {
    let mut e = [[0u64; W]; WORDS];
    for pair in RC.as_chunks::<2>().0 {
        round(s, &mut e, pair[0]);
        round(&e, s, pair[1]);
    }
    zeroize::Zeroize::zeroize(e.as_flattened_mut());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keccak::f1600_portable;

    /// Two interleaved states permute as each does alone.
    #[test]
    fn two_states_match_one() {
        let mut states = [[0u64; 2]; WORDS];
        for (i, w) in states.iter_mut().enumerate() {
            *w = [
                (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                !(i as u64) << 7,
            ];
        }
        for _ in 0..3 {
            let mut want: [[u64; WORDS]; 2] =
                core::array::from_fn(|l| core::array::from_fn(|i| states[i][l]));
            for w in &mut want {
                f1600_portable(w);
            }
            PortableX2.permute(&mut states);
            for (l, w) in want.iter().enumerate() {
                assert!(states.iter().zip(w).all(|(s, w)| s[l] == *w), "state {l}");
            }
            let mut one = [[0u64; 1]; WORDS];
            for (o, s) in one.iter_mut().zip(&states) {
                o[0] = s[1];
            }
            let mut alone: [u64; WORDS] = core::array::from_fn(|i| one[i][0]);
            PortableX1.permute(&mut one);
            f1600_portable(&mut alone);
            assert!(one.iter().zip(&alone).all(|(o, a)| o[0] == *a));
        }
    }
}
