//! The AVX2 backend of this crate: 4-way SHAKE for matrix and noise generation, and the
//! vectorized `SampleNTT` candidate parser.
//!
//! This is the only module of the crate allowed to use `unsafe`, for two reasons only:
//! calling `#[target_feature(enable = "avx2")]` functions (sound once AVX2 is detected) and
//! the unaligned loads and stores of SIMD registers (each on a bounds-checked slice or a
//! local array of the right size). Every `unsafe` block states why it is sound.
//!
//! # Dispatch
//! The hot functions are `#[target_feature(enable = "avx2")]` so that the whole Keccak
//! permutation, the parser and the CBD are compiled for AVX2 and inlined into one another,
//! with the default release profile and no `target-cpu` flag. They are reached only through
//! the `SamplingBackend` impl of `lattice-poly-ntt`'s AVX2 token, which exists only on a CPU
//! with the features: a batch run with that token runs here, with no further checks.
//!
//! # Scheduling
//! All hashing goes through one scheduler, `crate::keccak::lanes`: a list of independent jobs (`SampleNTT`
//! streams, PRF noise, 32-byte hashes such as `H(ek)` or `J(z || c)`) runs on the four lanes
//! of a 4-way Keccak-f\[1600\], each lane taking the next job as soon as its own is done, and
//! a job left alone finishing on the scalar Keccak. Measured on the target machine (AMD
//! EPYC, release profile): a 4-way permutation costs ~1,030 cycles (~257 per state), a
//! scalar one ~740, so one stream alone is faster scalar while two or more are faster 4-way.
//! Importing an ML-KEM-768 key this way (its 9 matrix streams and `H(ek)` in the same
//! lanes) takes 9 permutations where hashing apart took 6 4-way and 12 scalar ones.

pub(crate) mod avx512;
pub(crate) mod cbd;
pub(crate) mod rej;

#[cfg(test)]
use crate::batch::Job;
#[cfg(test)]
use lattice_poly_ntt::mlkem::N;

// The two crate-wide rate constants describe the same sponge.
const _: () = assert!(crate::keccak::x4::SHAKE128_RATE == crate::SHAKE128_RATE);

pub(crate) use lattice_poly_ntt::backend::Avx2;

use crate::backend::{Jobs, SamplingBackend};
use crate::batch::Feeding;

/// The AVX2 token's Keccak kernels: the 4-way lane scheduler (with the AVX2 rejection parser
/// and CBD) for batches, and the BMI1/BMI2 build of the scalar permutation. The token exists
/// only on a CPU with AVX2, BMI1 and BMI2, so both are sound to call.
impl SamplingBackend for Avx2 {
    #[inline]
    fn f1600(self, state: &mut [u64; 25]) {
        // SAFETY: `self` exists, so the CPU supports BMI1 and BMI2.
        unsafe { crate::keccak::permute_bmi(state) }
    }

    #[inline]
    fn run_jobs(self, mut jobs: Jobs<'_, '_>) {
        // SAFETY: `self` exists, so the CPU supports AVX2 and BMI1/BMI2.
        unsafe { crate::keccak::lanes::run(jobs.iter_mut()) }
    }

    #[inline]
    fn run_jobs_feeding(self, mut jobs: Jobs<'_, '_>, feeding: &mut Feeding<'_>) {
        // SAFETY: `self` exists, so the CPU supports AVX2 and BMI1/BMI2.
        unsafe { crate::keccak::lanes::run_feeding(jobs.iter_mut(), feeding) }
    }
}

/// Test entry points of the AVX2 kernels (the token proves the features).
#[cfg(test)]
pub(crate) trait Avx2Kernels {
    /// Runs jobs on the four lanes.
    fn run_job_list<'a>(self, jobs: impl IntoIterator<Item = Job<'a>>);
    /// The AVX2 candidate parser (same contract as `parse_candidates`).
    fn parse_candidates(self, bytes: &[u8], coeffs: &mut [u16; N], filled: usize) -> usize;
}

#[cfg(test)]
impl Avx2Kernels for Avx2 {
    fn run_job_list<'a>(self, jobs: impl IntoIterator<Item = Job<'a>>) {
        let mut jobs: std::vec::Vec<Job<'a>> = jobs.into_iter().collect();
        // SAFETY: `self` exists, so the CPU supports AVX2.
        unsafe { crate::keccak::lanes::run(jobs.iter_mut()) }
    }

    fn parse_candidates(self, bytes: &[u8], coeffs: &mut [u16; N], filled: usize) -> usize {
        // SAFETY: `self` exists, so the CPU supports AVX2.
        unsafe { rej::parse_candidates_avx2(bytes, coeffs, filled) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_poly_ntt::backend::Portable;
    const P: Portable = Portable;
    use crate::cbd::Eta;
    use crate::noise::sample_noise_polys_portable;
    use crate::sample_ntt::sample_ntt_batch_portable;
    use crate::sample_ntt::{INITIAL_BYTES, SAMPLE_NTT_SEED_BYTES};
    use lattice_poly_ntt::mlkem::{NttPoly, Poly};
    use proptest::prelude::*;
    use sha3::Shake128;
    use sha3::digest::{ExtendableOutput, Update, XofReader};
    use std::vec::Vec;

    fn avx2_or_note(what: &str) -> Option<Avx2> {
        let avx2 = Avx2::detect();
        if avx2.is_none() {
            std::println!("note: CPU without AVX2, {what} skipped");
        }
        avx2
    }

    fn seeds(rho: &[u8; 32], count: usize) -> Vec<[u8; SAMPLE_NTT_SEED_BYTES]> {
        (0..count)
            .map(|n| {
                let mut seed = [0u8; SAMPLE_NTT_SEED_BYTES];
                seed[..32].copy_from_slice(rho);
                seed[32] = (n % 4) as u8;
                seed[33] = (n / 4) as u8;
                seed
            })
            .collect()
    }

    /// The AVX2 batch against the portable one for every batch size up to 16 (all the
    /// remainders of 4, and the matrix sizes 4, 9, 16).
    fn check_sample_ntt(avx2: Avx2, seeds: &[[u8; SAMPLE_NTT_SEED_BYTES]]) {
        let mut want = std::vec![NttPoly::zero(); seeds.len()];
        let mut got = std::vec![NttPoly::zero(); seeds.len()];
        sample_ntt_batch_portable(seeds, &mut want);
        avx2.run_job_list(
            seeds
                .iter()
                .zip(&mut got)
                .map(|(seed, poly)| Job::SampleNtt {
                    seed: *seed,
                    out: poly.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
                }),
        );
        assert_eq!(got, want, "{} seeds", seeds.len());
    }

    #[test]
    fn sample_ntt_batch_matches_portable() {
        let Some(avx2) = avx2_or_note("AVX2 SampleNTT test") else {
            return;
        };
        for count in 0..=16 {
            check_sample_ntt(avx2, &seeds(&[count as u8; 32], count));
        }
    }

    #[test]
    fn sample_ntt_batch_with_fourth_blocks() {
        let Some(avx2) = avx2_or_note("AVX2 SampleNTT test") else {
            return;
        };
        // Seeds that need a fourth block (about 1 in 100), each placed in every lane
        // position of a 4-way batch and alone, so the extra-block loop runs with lanes
        // that are already full.
        let needs_fourth = |seed: &[u8; SAMPLE_NTT_SEED_BYTES]| {
            let mut xof = Shake128::default();
            xof.update(seed);
            let mut bytes = [0u8; INITIAL_BYTES];
            xof.finalize_xof().read(&mut bytes);
            let mut coeffs = [0u16; N];
            crate::sample_ntt::parse_candidates(&bytes, &mut coeffs, 0) < N
        };
        let mut special = Vec::new();
        for n in 0u32.. {
            let mut seed = [0u8; SAMPLE_NTT_SEED_BYTES];
            seed[..4].copy_from_slice(&n.to_le_bytes());
            if needs_fourth(&seed) {
                special.push(seed);
                if special.len() == 3 {
                    break;
                }
            }
        }
        let plain = seeds(&[9; 32], 4);
        for &seed in &special {
            for pos in 0..4 {
                let mut batch = plain.clone();
                batch[pos] = seed;
                check_sample_ntt(avx2, &batch);
            }
            check_sample_ntt(avx2, &[seed]);
        }
        check_sample_ntt(avx2, &special);
    }

    #[test]
    fn sample_matrix_matches_portable() {
        fn check<const K: usize>(avx2: Avx2, rho: &[u8; 32]) {
            let mut flat_seeds = Vec::new();
            for i in 0..K {
                for j in 0..K {
                    flat_seeds.push(crate::sample_ntt::matrix_seed(rho, i as u8, j as u8));
                }
            }
            check_sample_ntt(avx2, &flat_seeds);
            // The public function (whichever backend it picks) agrees too.
            let a = crate::sample_matrix::<K>(P, rho);
            let mut want = std::vec![NttPoly::zero(); K * K];
            sample_ntt_batch_portable(&flat_seeds, &mut want);
            assert_eq!(a.rows.as_flattened(), &want[..]);
        }
        let Some(avx2) = avx2_or_note("AVX2 matrix test") else {
            return;
        };
        for r in 0..8u8 {
            let rho: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(31) ^ r);
            check::<2>(avx2, &rho);
            check::<3>(avx2, &rho);
            check::<4>(avx2, &rho);
        }
    }

    fn noise_requests(etas: &[Eta], first_nonce: u8) -> Vec<(Eta, u8)> {
        etas.iter()
            .enumerate()
            .map(|(n, &eta)| (eta, first_nonce.wrapping_add(n as u8)))
            .collect()
    }

    fn check_noise(avx2: Avx2, sigma: &[u8; 32], requests: &[(Eta, u8)]) {
        let mut want = std::vec![Poly::zero(); requests.len()];
        sample_noise_polys_portable(
            sigma,
            requests
                .iter()
                .zip(&mut want)
                .map(|(&(eta, nonce), p)| (eta, nonce, p)),
        );
        let mut got = std::vec![Poly::zero(); requests.len()];
        avx2.run_job_list(
            requests
                .iter()
                .zip(&mut got)
                .map(|(&(eta, nonce), p)| Job::Noise {
                    sigma,
                    nonce: [nonce],
                    eta,
                    out: p.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
                }),
        );
        assert_eq!(got, want, "{requests:?}");
    }

    proptest! {
        #[test]
        fn scheduled_noise_matches_portable(
            sigma in any::<[u8; 32]>(),
            etas in proptest::collection::vec(prop_oneof![Just(Eta::Two), Just(Eta::Three)], 0..=9),
            first_nonce in any::<u8>(),
        ) {
            let Some(avx2) = avx2_or_note("AVX2 noise test") else { return Ok(()) };
            check_noise(avx2, &sigma, &noise_requests(&etas, first_nonce));
        }
    }

    #[test]
    fn noise_batches_of_every_size() {
        let Some(avx2) = avx2_or_note("AVX2 noise test") else {
            return;
        };
        for len in 0..=9 {
            for eta in [Eta::Two, Eta::Three] {
                check_noise(
                    avx2,
                    &[len as u8; 32],
                    &noise_requests(&std::vec![eta; len], 0),
                );
            }
        }
        // ML-KEM-512 encryption: y with eta1 = 3, e1 and e2 with eta2 = 2, in one batch.
        let mixed = [Eta::Three, Eta::Three, Eta::Two, Eta::Two, Eta::Two];
        check_noise(avx2, &[0x77; 32], &noise_requests(&mixed, 0));
    }

    #[test]
    fn public_noise_functions_match_portable() {
        let Some(_) = avx2_or_note("AVX2 noise test") else {
            return;
        };
        let sigma = [0x3c; 32];
        let mut want = [Poly::zero(), Poly::zero(), Poly::zero()];
        sample_noise_polys_portable(
            &sigma,
            want.iter_mut()
                .enumerate()
                .map(|(n, p)| (Eta::Two, 5 + n as u8, p)),
        );
        assert_eq!(
            crate::sample_noise_vector::<3>(P, &sigma, Eta::Two, 5).0,
            want
        );
    }
}
