//! The AVX2 token's Keccak permutations (`keccak`: four ymm lanes, the BMI1/BMI2 scalar
//! rounds for a single state), `SampleNTT` candidate parser (`rej`) and CBD (`cbd`); the
//! AVX-512 token runs the parser where the CPU has no VBMI2, and the eta = 3 CBD.
//!
//! # Lanes
//! Four lanes; the last job alone runs on the BMI1/BMI2 scalar permutation, which costs less
//! than a 4-way one but more than half of it (AMD EPYC, docs/performance-history.md), so two
//! or more jobs stay on the 4-way one.

pub(crate) mod cbd;
mod keccak;
pub(crate) mod rej;

use lattice_poly_ntt::backend::Avx2;
use lattice_poly_ntt::mlkem::N;

use self::keccak::{Bmi, X4Avx2};
use crate::backend::SamplingBackend;
use crate::cbd::CBD2_INPUT_BYTES;
use crate::feed::Feeding;
use crate::job::{Job, Jobs};
use crate::keccak::KeccakF1600;
use crate::keccak::SHAKE128_RATE;
use crate::kernels::Kernels;
use crate::speculation::Msf;

/// The AVX2 token's block kernels: the AVX2 rejection parser and CBD.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2Kernels(());

impl Avx2Kernels {
    pub(crate) const fn new(_: Avx2) -> Self {
        Self(())
    }
}

impl Kernels for Avx2Kernels {
    #[inline(always)]
    fn parse_sample_ntt(
        self,
        block: &[u8; SHAKE128_RATE],
        coeffs: &mut [u16; N],
        filled: usize,
        msf: &mut Msf,
    ) -> usize {
        // The flag by value across the call (a pointer would keep it in memory).
        // SAFETY: made only from an AVX2 token.
        let (filled, m) = unsafe { rej::parse_block_avx2(block, coeffs, filled, *msf) };
        *msf = m;
        filled
    }

    #[inline(always)]
    fn cbd2(self, bytes: &[u8; CBD2_INPUT_BYTES], out: &mut [u16; N]) {
        // SAFETY: made only from an AVX2 token.
        unsafe { cbd::cbd2_avx2(bytes, out) }
    }

    #[inline(always)]
    fn cbd3_steps(self, bytes: &[u8], out: &mut [u16]) {
        // SAFETY: made only from an AVX2 token.
        unsafe { cbd::cbd3_steps_avx2(bytes, out) }
    }
}

impl KeccakF1600 for Avx2 {
    #[inline]
    fn f1600(self, state: &mut [u64; 25]) {
        Bmi::new(self).f1600(state);
    }
}

/// The AVX2 token: four AVX2 lanes, the AVX2 parser and CBD, the BMI1/BMI2 single state.
impl SamplingBackend for Avx2 {
    #[inline]
    fn run_jobs(self, mut jobs: Jobs<'_, '_>) {
        // SAFETY: `self` exists, so the CPU has AVX2, BMI1 and BMI2.
        unsafe { run_avx2(self, jobs.iter_mut(), None) };
    }

    #[inline]
    fn run_jobs_feeding(self, mut jobs: Jobs<'_, '_>, feeding: &mut Feeding<'_>) {
        // SAFETY: `self` exists, so the CPU has AVX2, BMI1 and BMI2.
        unsafe { run_avx2(self, jobs.iter_mut(), Some(feeding)) };
    }
}

/// Runs every job of `jobs` on four AVX2 lanes (`crate::scheduler::run`).
#[target_feature(enable = "avx2,bmi1,bmi2")]
#[inline(never)]
fn run_avx2<'j, 'a: 'j>(
    token: Avx2,
    jobs: impl IntoIterator<Item = &'j mut Job<'a>>,
    feeding: Option<&mut Feeding<'_>>,
) {
    crate::scheduler::run::<4, _, _>(jobs, X4Avx2::new(token), Avx2Kernels::new(token), feeding);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::test_support::{
        Entry, check_fourth_blocks, check_noise, check_noise_batches, check_sample_ntt,
        noise_requests, raw_candidates, run_sample_ntt, seeds,
    };
    use crate::cbd::Eta;
    use lattice_poly_ntt::backend::Portable;
    use lattice_poly_ntt::mlkem::{NttPoly, Poly};
    use proptest::prelude::*;
    use sha3::Shake128;
    use sha3::digest::{ExtendableOutput, Update, XofReader};
    use std::vec::Vec;

    const P: Portable = Portable;

    /// The AVX2 token's four lanes, if the CPU has them (else a note and none).
    fn entries(what: &str) -> Vec<Entry> {
        if Avx2::detect().is_none() {
            std::println!("note: CPU without AVX2, {what} skipped");
            return Vec::new();
        }
        std::vec![("avx2", |jobs| {
            let avx2 = Avx2::detect().expect("detected above");
            // SAFETY: the token exists, so the CPU has the entry point's features.
            unsafe { run_avx2(avx2, jobs.iter_mut(), None) };
        })]
    }

    /// A whole batch with the scheduler's flag forced set, as if it all ran on a mispredicted
    /// path: every parse step, in every lane and the lone job's, takes its whole step of
    /// candidates (the protected masks are all ones), so each polynomial is the first 256
    /// 12-bit candidates of its stream, none rejected. A step whose mask were not protected
    /// would filter a candidate and fail.
    #[test]
    fn misspeculated_batches_take_every_candidate() {
        for (name, run) in entries("forced misspeculation test") {
            for count in [1, 3, 4, 5, 9] {
                let seeds = seeds(&[count as u8 ^ 0x5a; 32], count);
                let got = crate::speculation::force_misspeculation(|| run_sample_ntt(run, &seeds));
                for (seed, poly) in seeds.iter().zip(&got) {
                    let mut xof = Shake128::default();
                    xof.update(seed);
                    // 256 candidates: 384 bytes, 16 per 24-byte step, none past a block's end.
                    let mut bytes = [0u8; 384];
                    xof.finalize_xof().read(&mut bytes);
                    assert_eq!(
                        poly.coeffs()[..],
                        raw_candidates(&bytes),
                        "{name}, {count} seeds"
                    );
                }
            }
        }
    }

    /// The AVX2 batch against the portable one for every batch size up to 16 (all the
    /// remainders of 4, and the matrix sizes 4, 9, 16).
    #[test]
    fn sample_ntt_batch_matches_portable() {
        let entries = entries("AVX2 SampleNTT test");
        for count in 0..=16 {
            check_sample_ntt(&entries, &seeds(&[count as u8; 32], count));
        }
    }

    #[test]
    fn sample_ntt_batch_with_fourth_blocks() {
        check_fourth_blocks(&entries("AVX2 SampleNTT test"), 3, 4);
    }

    #[test]
    fn sample_matrix_matches_portable() {
        fn check<const K: usize>(entries: &[Entry], rho: &[u8; 32]) {
            let mut flat_seeds = Vec::new();
            for i in 0..K {
                for j in 0..K {
                    flat_seeds.push(crate::job::matrix_seed(rho, i as u8, j as u8));
                }
            }
            check_sample_ntt(entries, &flat_seeds);
            // The public function (whichever backend it picks) agrees too.
            let a = crate::sample_matrix::<K>(P, rho);
            let mut want = std::vec![NttPoly::zero(); K * K];
            crate::reference::sample_ntt_batch_portable(&flat_seeds, &mut want);
            assert_eq!(a.rows.as_flattened(), &want[..]);
        }
        let entries = entries("AVX2 matrix test");
        if entries.is_empty() {
            return;
        }
        for r in 0..8u8 {
            let rho: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(31) ^ r);
            check::<2>(&entries, &rho);
            check::<3>(&entries, &rho);
            check::<4>(&entries, &rho);
        }
    }

    proptest! {
        #[test]
        fn scheduled_noise_matches_portable(
            sigma in any::<[u8; 32]>(),
            etas in proptest::collection::vec(prop_oneof![Just(Eta::Two), Just(Eta::Three)], 0..=9),
            first_nonce in any::<u8>(),
        ) {
            check_noise(&entries("AVX2 noise test"), &sigma, &noise_requests(&etas, first_nonce));
        }
    }

    #[test]
    fn noise_batches_of_every_size() {
        check_noise_batches(&entries("AVX2 noise test"), 9);
    }

    #[test]
    fn public_noise_functions_match_portable() {
        if entries("AVX2 noise test").is_empty() {
            return;
        }
        let sigma = [0x3c; 32];
        let mut want = [Poly::zero(), Poly::zero(), Poly::zero()];
        crate::reference::sample_noise_polys_portable(
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
