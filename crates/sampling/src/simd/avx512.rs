//! The AVX-512 token's Keccak kernels: the lane scheduler on the 8-way zmm permutation
//! (`crate::keccak::x8`) for batches of more than four jobs and on the 4-way AVX-512VL one
//! (`crate::keccak::x4_vl`) otherwise, with the AVX2 rejection parser and CBD, and the
//! BMI1/BMI2 scalar permutation.

use crate::backend::{Jobs, SamplingBackend};
use lattice_poly_ntt::backend::Avx512;

/// The token exists only on a CPU with AVX-512F/VL/BW and the AVX2 token's features.
impl SamplingBackend for Avx512 {
    #[inline]
    fn f1600(self, state: &mut [u64; 25]) {
        // SAFETY: `self` exists, so the CPU supports BMI1 and BMI2.
        unsafe { crate::keccak::permute_bmi(state) }
    }

    #[inline]
    fn run_jobs(self, mut jobs: Jobs<'_, '_>) {
        // The width with the smaller estimated time: a batch takes at least as many
        // permutations as its longest job, and at least its total over the lanes; an 8-way
        // zmm permutation costs about 1.45 of a 4-way ymm one (8 x 105 against 4 x 145 cycles
        // per state, measured on an Intel Xeon guest). A long sequential hash beside a few
        // streams (importing a key: H(ek) and A-hat) keeps four lanes; many short streams
        // (key generation's A-hat rows and noise, encryption's noise) take eight. Public:
        // the estimate depends on the jobs' kinds and lengths only.
        let (longest, total) = jobs.estimated_permutations();
        // Shifts for the rounded-up quotients (no `div` in our code, see `Job`).
        let cost4 = 100 * longest.max((total + 3) >> 2);
        let cost8 = 145 * longest.max((total + 7) >> 3);
        if cost8 < cost4 {
            // SAFETY: `self` exists, so the CPU supports AVX2, BMI1/BMI2 and AVX-512F.
            unsafe { crate::keccak::lanes::run_x8(jobs.drain()) }
        } else {
            // SAFETY: `self` exists, so the CPU supports AVX2, BMI1/BMI2 and AVX-512F/VL.
            unsafe { crate::keccak::lanes::run_vl(jobs.drain()) }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::keccak::{SHA3_256_RATE, Sponge};
    use crate::{Batch, Digest32, Eta, sample_matrix, sample_noise_vector};
    use lattice_poly_ntt::backend::{Avx512, Portable};
    use lattice_poly_ntt::mlkem::Poly;

    /// Matrix streams, noise of both etas, hashes and a sponge absorption, mixed in one batch
    /// on the AVX-512 scheduler and on the portable one.
    #[test]
    fn batches_match_portable() {
        let Some(avx512) = Avx512::detect() else {
            std::println!("note: CPU without AVX-512, AVX-512 scheduler test skipped");
            return;
        };
        for n in 0..6u8 {
            let rho = [n.wrapping_mul(77); 32];
            let sigma = [n ^ 0x5a; 32];
            assert_eq!(
                sample_matrix::<4>(avx512, &rho),
                sample_matrix::<4>(Portable, &rho)
            );
            for eta in [Eta::Two, Eta::Three] {
                assert_eq!(
                    sample_noise_vector::<4>(avx512, &sigma, eta, n),
                    sample_noise_vector::<4>(Portable, &sigma, eta, n)
                );
            }
            let message = std::vec![n; 100 + 300 * usize::from(n)];
            let run = |backend_is_512: bool| {
                let (mut h, mut j) = ([0u8; 32], [0u8; 32]);
                let mut sponge = Sponge::<SHA3_256_RATE>::new();
                let mut e = Poly::zero();
                let mut m = lattice_poly_ntt::mlkem::Matrix::<2>::zero();
                macro_rules! fill {
                    ($b:expr) => {{
                        let mut batch = Batch::new($b);
                        batch.digest(Digest32::sha3_256(&message, &mut h));
                        batch.digest(Digest32::shake256([&sigma, &message], &mut j));
                        batch.absorb(&mut sponge, &message);
                        batch.matrix_rows::<2>(&rho, 0, &mut m.rows);
                        batch.noise(&sigma, Eta::Three, 7, &mut e);
                        batch.run();
                    }};
                }
                if backend_is_512 {
                    fill!(avx512);
                } else {
                    fill!(Portable);
                }
                sponge.finalize(Portable, crate::keccak::SHA3_DOMAIN);
                let mut s = [0u8; 32];
                sponge.squeeze(Portable, &mut s);
                (h, j, s, e, m)
            };
            assert!(run(true) == run(false), "mixed batch {n}");
        }
    }
}
