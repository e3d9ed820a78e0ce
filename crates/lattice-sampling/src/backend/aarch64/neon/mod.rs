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
//! per state than the single-state one on both (qemu-aarch64 counts in
//! docs/performance-history.md). The last job alone finishes on the single state:
//! FEAT_SHA3's round on one lane, or the scalar rounds.

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
    use crate::backend::test_support::{
        Entry, check_fourth_blocks, check_noise, check_noise_batches, check_sample_ntt,
        noise_requests, run_sample_ntt, seeds,
    };
    use crate::cbd::Eta;
    use proptest::prelude::*;
    use std::vec::Vec;

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

    #[test]
    fn sample_ntt_batch_matches_portable() {
        for count in 0..=9 {
            check_sample_ntt(&entries(), &seeds(&[count as u8; 32], count));
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

    /// Seeds that need a fourth block, in both lane positions of a batch and alone: the
    /// parser's tail path near N, from blocks that end mid-step.
    #[test]
    fn sample_ntt_batch_with_fourth_blocks() {
        check_fourth_blocks(&entries(), 2, 3);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        #[test]
        fn scheduled_noise_matches_portable(
            sigma in any::<[u8; 32]>(),
            etas in proptest::collection::vec(prop_oneof![Just(Eta::Two), Just(Eta::Three)], 0..=5),
            first_nonce in any::<u8>(),
        ) {
            check_noise(&entries(), &sigma, &noise_requests(&etas, first_nonce));
        }
    }

    #[test]
    fn noise_batches_of_every_size() {
        check_noise_batches(&entries(), 5);
    }
}
