//! Deterministic pseudo-random benchmark inputs.
//!
//! Every input is derived from a small tag through SplitMix64, so runs are reproducible and
//! different benchmarks (or different libraries in the KEM comparison) see the same bytes.
//! The generator is for benchmark inputs only: it is not a cryptographic RNG.

use lattice_field::gf3329::{Q, Q32};
use lattice_poly_ntt::mlkem::{Matrix, Poly};
use lattice_poly_ntt::mlkem::{N, NttPoly, NttVector, PRODUCT_TERM_MAX};

/// SplitMix64: a tiny, fast, well-mixed generator of benchmark inputs.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator whose whole output is determined by `tag`.
    #[must_use]
    pub const fn new(tag: u64) -> Self {
        Self(tag ^ 0x6a09_e667_f3bc_c908)
    }

    /// The next 64 pseudo-random bits.
    pub const fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in `[0, bound)` (`bound > 0`; the tiny modulo bias is irrelevant here).
    pub const fn below(&mut self, bound: u64) -> u64 {
        self.next_u64() % bound
    }

    /// Fills `out` with pseudo-random bytes.
    pub fn fill(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(8) {
            let word = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
    }

    /// `LEN` pseudo-random bytes.
    pub fn bytes<const LEN: usize>(&mut self) -> [u8; LEN] {
        let mut out = [0u8; LEN];
        self.fill(&mut out);
        out
    }
}

/// `LEN` pseudo-random bytes determined by `tag`.
#[must_use]
pub fn bytes<const LEN: usize>(tag: u64) -> [u8; LEN] {
    Rng::new(tag).bytes()
}

/// 256 canonical field elements (each in `[0, q)`).
#[must_use]
pub fn canonical(tag: u64) -> [u16; N] {
    let mut rng = Rng::new(tag);
    core::array::from_fn(|_| rng.below(u64::from(Q)) as u16)
}

/// 256 inputs of `reduce_once`: each in `[0, 2q)`, as left by an addition of canonical values.
#[must_use]
pub fn below_two_q(tag: u64) -> [u16; N] {
    let mut rng = Rng::new(tag);
    core::array::from_fn(|_| rng.below(2 * u64::from(Q)) as u16)
}

/// Largest value of a lazy accumulator entry after a rank-4 matrix-vector product:
/// 4 terms of at most `PRODUCT_TERM_MAX` each.
pub const LAZY_ACCUMULATOR_MAX: u32 = 4 * PRODUCT_TERM_MAX;

/// 256 inputs of `barrett_reduce` as the lazy accumulators produce them: each in
/// `[0, 4 * PRODUCT_TERM_MAX]` (the rank-4 bound, below 2^27).
#[must_use]
pub fn accumulator_values(tag: u64) -> [u32; N] {
    let mut rng = Rng::new(tag);
    core::array::from_fn(|_| rng.below(u64::from(LAZY_ACCUMULATOR_MAX) + 1) as u32)
}

/// 256 inputs of `from_signed` as CBD noise produces them: each in `[-3, 3]`.
#[must_use]
pub fn small_signed(tag: u64) -> [i16; N] {
    let mut rng = Rng::new(tag);
    core::array::from_fn(|_| rng.below(7) as i16 - 3)
}

/// A polynomial with uniformly distributed canonical coefficients.
#[must_use]
pub fn poly(tag: u64) -> Poly {
    let mut rng = Rng::new(tag);
    Poly::from_fn(|_| rng.below(u64::from(Q32)) as u32)
}

/// An NTT-domain polynomial with uniformly distributed canonical coefficients.
#[must_use]
pub fn ntt_poly(tag: u64) -> NttPoly {
    let mut rng = Rng::new(tag);
    NttPoly::from_fn(|_| rng.below(u64::from(Q32)) as u32)
}

/// A rank-`K` vector of uniform NTT-domain polynomials.
#[must_use]
pub fn ntt_vector<const K: usize>(tag: u64) -> NttVector<K> {
    NttVector::new(core::array::from_fn(|i| {
        ntt_poly(tag.wrapping_mul(31) + i as u64)
    }))
}

/// A `K x K` matrix of uniform NTT-domain polynomials.
#[must_use]
pub fn matrix<const K: usize>(tag: u64) -> Matrix<K> {
    Matrix {
        rows: core::array::from_fn(|i| {
            core::array::from_fn(|j| ntt_poly(tag.wrapping_mul(1009) + (i * K + j) as u64))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_in_their_domains() {
        assert!(canonical(1).iter().all(|&c| c < Q));
        assert!(below_two_q(2).iter().all(|&c| c < 2 * Q));
        assert!(
            accumulator_values(3)
                .iter()
                .all(|&c| c <= LAZY_ACCUMULATOR_MAX)
        );
        assert!(small_signed(4).iter().all(|&c| (-3..=3).contains(&c)));
        assert_ne!(bytes::<32>(5), bytes::<32>(6));
        assert_eq!(bytes::<32>(5), bytes::<32>(5));
    }
}
