//! The NEON token's Keccak and sampling kernels (aarch64): the 2-way Keccak-f\[1600\]
//! permutations (`keccak`: FEAT_SHA3 where the CPU has it, plain NEON otherwise), the
//! `SampleNTT` candidate parser (`rej`) and CBD (`cbd`).
//!
//! This is SIMD code, allowed `unsafe` for two reasons only: calling `#[target_feature]`
//! functions (sound once the feature is detected: the FEAT_SHA3 types are made only from
//! the `keccak::Sha3` proof) and the unaligned loads and stores of NEON registers (each on
//! a bounds-checked slice, a local array or a table of the right size). Every `unsafe`
//! block states why it is sound. NEON itself is part of the aarch64 baseline.
//!
//! # Dispatch
//! FEAT_SHA3 is detected once per batch ([`SamplingBackend::run_jobs`]: one cached atomic
//! load) and once per single-state permutation; the batch then runs in one of two entry
//! points, [`run_sha3`] (compiled with `sha3`) or [`run_neon`], into which the generic lane
//! scheduler inlines with the permutation and kernels.
//!
//! # Lanes
//! Two lanes with and without FEAT_SHA3: the 2-way permutation executes fewer instructions
//! per state than the single-state one on both (qemu-aarch64: 881 against 1,771 with
//! FEAT_SHA3, 2,221 against about 3,650 without; the table in `keccak`). The last job alone
//! finishes on the single state: FEAT_SHA3's round on one lane, or the scalar rounds.
//! ML-KEM-768's `sample_matrix` (`examples/icount.rs`): 41,117 instructions with FEAT_SHA3
//! (`-cpu max`) and 79,188 without (`-cpu cortex-a72`), against 141,388 for the portable
//! backend.

pub(crate) mod cbd;
pub(crate) mod keccak;
pub(crate) mod rej;

use lattice_poly_ntt::backend::Neon;
use lattice_poly_ntt::mlkem::N;

use self::keccak::{Sha3, X2Neon, X2Sha3};
use crate::SamplingBackend;
use crate::cbd::CBD2_INPUT_BYTES;
use crate::feed::Feeding;
use crate::job::{Job, Jobs};
use crate::keccak::KeccakF1600;
use crate::keccak::SHAKE128_RATE;
use crate::kernels::Kernels;
use crate::speculation::Msf;

/// The NEON token's block kernels: the NEON rejection parser and CBD (ML-DSA's
/// `RejNTTPoly` parser stays portable).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NeonKernels;

impl Kernels for NeonKernels {
    #[inline(always)]
    fn parse_sample_ntt(
        self,
        block: &[u8; SHAKE128_RATE],
        coeffs: &mut [u16; N],
        filled: usize,
        msf: &mut Msf,
    ) -> usize {
        // SAFETY: NEON is part of the aarch64 baseline.
        unsafe { rej::parse_block_neon(block, coeffs, filled, msf) }
    }

    #[inline(always)]
    fn cbd2(self, bytes: &[u8; CBD2_INPUT_BYTES], out: &mut [u16; N]) {
        // SAFETY: NEON is part of the aarch64 baseline.
        unsafe { cbd::cbd2_neon(bytes, out) };
    }

    #[inline(always)]
    fn cbd3_steps(self, bytes: &[u8], out: &mut [u16]) {
        // SAFETY: NEON is part of the aarch64 baseline.
        unsafe { cbd::cbd3_steps_neon(bytes, out) };
    }
}

impl KeccakF1600 for Neon {
    #[inline]
    fn f1600(self, state: &mut [u64; 25]) {
        keccak::f1600_neon(state);
    }
}

/// The NEON token: two lanes of the FEAT_SHA3 or plain NEON permutation, the NEON parser
/// and CBD.
impl SamplingBackend for Neon {
    #[inline]
    fn run_jobs(self, mut jobs: Jobs<'_, '_>) {
        run(jobs.iter_mut(), None);
    }

    #[inline]
    fn run_jobs_feeding(self, mut jobs: Jobs<'_, '_>, feeding: &mut Feeding<'_>) {
        run(jobs.iter_mut(), Some(feeding));
    }
}

/// Runs every job on the entry point of this CPU (FEAT_SHA3 detected once per batch).
#[inline]
fn run<'j, 'a: 'j>(
    jobs: impl IntoIterator<Item = &'j mut Job<'a>>,
    feeding: Option<&mut Feeding<'_>>,
) {
    match Sha3::detect() {
        // SAFETY: the proof exists, so the CPU has FEAT_SHA3.
        Some(sha3) => unsafe { run_sha3(sha3, jobs, feeding) },
        // SAFETY: NEON is part of the aarch64 baseline.
        None => unsafe { run_neon(jobs, feeding) },
    }
}

/// Runs every job of `jobs` on two lanes of the FEAT_SHA3 permutation
/// (`crate::scheduler::run`).
#[target_feature(enable = "sha3")]
#[inline(never)]
fn run_sha3<'j, 'a: 'j>(
    sha3: Sha3,
    jobs: impl IntoIterator<Item = &'j mut Job<'a>>,
    feeding: Option<&mut Feeding<'_>>,
) {
    crate::scheduler::run::<2, _, _>(jobs, X2Sha3::new(sha3), NeonKernels, feeding);
}

/// Runs every job of `jobs` on two lanes of the plain NEON permutation.
#[target_feature(enable = "neon")]
#[inline(never)]
fn run_neon<'j, 'a: 'j>(
    jobs: impl IntoIterator<Item = &'j mut Job<'a>>,
    feeding: Option<&mut Feeding<'_>>,
) {
    crate::scheduler::run::<2, _, _>(jobs, X2Neon, NeonKernels, feeding);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cbd::Eta;
    use crate::job::SAMPLE_NTT_SEED_BYTES;
    use crate::reference::{sample_noise_polys_portable, sample_ntt_batch_portable};
    use lattice_poly_ntt::mlkem::{NttPoly, Poly};
    use proptest::prelude::*;
    use std::vec::Vec;

    /// An entry point under test, with its name.
    type Entry = (&'static str, fn(&mut [Job<'_>]));

    /// The entry points this CPU can run: plain NEON always, FEAT_SHA3 where present.
    fn entries() -> Vec<Entry> {
        let mut entries: Vec<Entry> = std::vec![("neon", |jobs| {
            // SAFETY: NEON is part of the aarch64 baseline.
            unsafe { run_neon(jobs.iter_mut(), None) };
        })];
        match Sha3::detect() {
            Some(_) => entries.push(("sha3", |jobs| {
                let sha3 = Sha3::detect().expect("detected above");
                // SAFETY: the proof exists, so the CPU has FEAT_SHA3.
                unsafe { run_sha3(sha3, jobs.iter_mut(), None) };
            })),
            None => std::println!("note: CPU without FEAT_SHA3, its entry point not tested"),
        }
        entries
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

    /// The `SampleNTT` polynomials of `seeds` by the entry point `run`.
    fn run_sample_ntt(
        run: fn(&mut [Job<'_>]),
        seeds: &[[u8; SAMPLE_NTT_SEED_BYTES]],
    ) -> Vec<NttPoly> {
        let mut got = std::vec![NttPoly::zero(); seeds.len()];
        let mut jobs: Vec<Job<'_>> = seeds
            .iter()
            .zip(&mut got)
            .map(|(seed, poly)| Job::SampleNtt {
                seed: *seed,
                out: poly.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
            })
            .collect();
        run(&mut jobs);
        drop(jobs);
        got
    }

    /// Both entry points against the portable batch.
    fn check_sample_ntt(seeds: &[[u8; SAMPLE_NTT_SEED_BYTES]]) {
        let mut want = std::vec![NttPoly::zero(); seeds.len()];
        sample_ntt_batch_portable(seeds, &mut want);
        for (name, run) in entries() {
            let got = run_sample_ntt(run, seeds);
            assert_eq!(got, want, "{name}, {} seeds", seeds.len());
        }
    }

    #[test]
    fn sample_ntt_batch_matches_portable() {
        for count in 0..=9 {
            check_sample_ntt(&seeds(&[count as u8; 32], count));
        }
    }

    /// A whole batch with the scheduler's flag forced set, as if it all ran on a mispredicted
    /// path: every parse, in both lanes and the lone job's, reads the zero block instead of
    /// its stream (the flag reaches the parser through the scheduler), so each polynomial is
    /// all zeros; a parse that read its own bytes would fail.
    #[test]
    fn misspeculated_batches_read_the_zero_block() {
        for (name, run) in entries() {
            for count in [1, 2, 3, 5] {
                let seeds = seeds(&[count as u8 ^ 0x5a; 32], count);
                let got = crate::speculation::force_misspeculation(|| run_sample_ntt(run, &seeds));
                assert!(
                    got.iter().all(|p| p.coeffs().iter().all(|&c| c == 0)),
                    "{name}, {count} seeds"
                );
            }
        }
    }

    #[test]
    fn sample_ntt_batch_with_fourth_blocks() {
        // Seeds that need a fourth block (about 1 in 100), in both lane positions of a
        // batch and alone: the parser's tail path near N, from blocks that end mid-step.
        let special = crate::reference::seeds_needing_a_fourth_block(2);
        let plain = seeds(&[9; 32], 3);
        for &seed in &special {
            for pos in 0..3 {
                let mut batch = plain.clone();
                batch[pos] = seed;
                check_sample_ntt(&batch);
            }
            check_sample_ntt(&[seed]);
        }
        check_sample_ntt(&special);
    }

    fn check_noise(sigma: &[u8; 32], requests: &[(Eta, u8)]) {
        let mut want = std::vec![Poly::zero(); requests.len()];
        sample_noise_polys_portable(
            sigma,
            requests
                .iter()
                .zip(&mut want)
                .map(|(&(eta, nonce), p)| (eta, nonce, p)),
        );
        for (name, run) in entries() {
            let mut got = std::vec![Poly::zero(); requests.len()];
            let mut jobs: Vec<Job<'_>> = requests
                .iter()
                .zip(&mut got)
                .map(|(&(eta, nonce), p)| Job::Noise {
                    sigma,
                    nonce: [nonce],
                    eta,
                    out: p.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
                })
                .collect();
            run(&mut jobs);
            drop(jobs);
            assert_eq!(got, want, "{name}, {requests:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        #[test]
        fn scheduled_noise_matches_portable(
            sigma in any::<[u8; 32]>(),
            etas in proptest::collection::vec(prop_oneof![Just(Eta::Two), Just(Eta::Three)], 0..=5),
            first_nonce in any::<u8>(),
        ) {
            let requests: Vec<(Eta, u8)> = etas
                .iter()
                .enumerate()
                .map(|(n, &eta)| (eta, first_nonce.wrapping_add(n as u8)))
                .collect();
            check_noise(&sigma, &requests);
        }
    }

    #[test]
    fn noise_batches_of_every_size() {
        for len in 0..=5u8 {
            for eta in [Eta::Two, Eta::Three] {
                let requests: Vec<(Eta, u8)> = (0..len).map(|n| (eta, n)).collect();
                check_noise(&[len; 32], &requests);
            }
        }
        // ML-KEM-512 encryption: y with eta1 = 3, e1 and e2 with eta2 = 2, in one batch.
        let mixed = [Eta::Three, Eta::Three, Eta::Two, Eta::Two, Eta::Two];
        let requests: Vec<(Eta, u8)> = mixed
            .iter()
            .enumerate()
            .map(|(n, &e)| (e, n as u8))
            .collect();
        check_noise(&[0x77; 32], &requests);
    }
}
