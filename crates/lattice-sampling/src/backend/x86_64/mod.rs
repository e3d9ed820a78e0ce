//! The x86-64 backends of this crate: the AVX2 and AVX-512 tokens' Keccak permutations
//! (`keccak`), `SampleNTT` candidate parsers (`rej`), CBD (`cbd`), and how many lanes of
//! the lane scheduler each runs (`avx512` for the AVX-512 token's choice between eight and
//! four).
//!
//! This is the crate's SIMD code, the only place allowed `unsafe`, for two reasons only:
//! calling `#[target_feature]` functions (sound once the features are detected: every type
//! here that calls them is made only from the token that proves them) and the unaligned
//! loads and stores of SIMD registers (each on a bounds-checked slice or a local array of
//! the right size). Every `unsafe` block states why it is sound.
//!
//! # Dispatch
//! The entry points ([`run_avx2`], and those of `avx512`) are `#[target_feature]` functions
//! that the generic lane scheduler (`crate::scheduler`) inlines into, with the permutation
//! and kernels of the token, so the whole batch, Keccak, parser and CBD are compiled for the
//! instruction set and inlined into one another, with the default release profile and no
//! `target-cpu` flag. They are reached only through the `SamplingBackend` impls of the
//! tokens of `lattice-poly-ntt`, which exist only on a CPU with the features.
//!
//! # Lanes
//! AVX2: four lanes; the last job alone runs on the BMI1/BMI2 scalar permutation, which
//! costs less than a 4-way one but more than half of it (about 740 against 1,030 cycles on
//! an AMD EPYC), so two or more jobs stay on the 4-way one. AVX-512: see `avx512`.

pub(crate) mod avx512;
pub(crate) mod cbd;
pub(crate) mod keccak;
pub(crate) mod rej;

use lattice_poly_ntt::backend::{Avx2, Avx512};
use lattice_poly_ntt::mlkem::N;

use self::keccak::{Bmi, VlSingle, X4Avx2};
use self::rej::Parser;
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

/// The AVX-512 token's block kernels: VBMI2's parser where the CPU has it (else AVX2's),
/// the zmm CBD for eta = 2 and the AVX2 one for eta = 3.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512Kernels {
    parser: Parser,
}

impl Avx512Kernels {
    /// The parser is chosen once per batch (public: a CPU feature).
    #[inline]
    pub(crate) fn new(_: Avx512) -> Self {
        Self {
            parser: Parser::for_avx512(),
        }
    }
}

impl Kernels for Avx512Kernels {
    #[inline(always)]
    fn parse_sample_ntt(
        self,
        block: &[u8; SHAKE128_RATE],
        coeffs: &mut [u16; N],
        filled: usize,
        msf: &mut Msf,
    ) -> usize {
        // SAFETY: made only from an AVX-512 token, whose CPU has AVX2.
        let (filled, m) = unsafe { self.parser.parse(block, coeffs, filled, *msf) };
        *msf = m;
        filled
    }

    #[inline(always)]
    fn cbd2(self, bytes: &[u8; CBD2_INPUT_BYTES], out: &mut [u16; N]) {
        // SAFETY: made only from an AVX-512 token (AVX-512F/BW).
        unsafe { cbd::cbd2_avx512(bytes, out) }
    }

    #[inline(always)]
    fn cbd3_steps(self, bytes: &[u8], out: &mut [u16]) {
        // SAFETY: made only from an AVX-512 token, whose CPU has AVX2.
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

impl KeccakF1600 for Avx512 {
    #[inline]
    fn f1600(self, state: &mut [u64; 25]) {
        // One lane of the AVX-512VL round: it runs on the vector units, so it is faster than
        // the BMI1/BMI2 scalar permutation and keeps its speed when the integer units are
        // busy (see `keccak_f1600_vl_single`).
        VlSingle::new(self).f1600(state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_poly_ntt::backend::Portable;
    const P: Portable = Portable;
    use crate::cbd::Eta;
    use crate::job::SAMPLE_NTT_SEED_BYTES;
    use crate::reference::{sample_noise_polys_portable, sample_ntt_batch_portable};
    use lattice_poly_ntt::mlkem::{NttPoly, Poly};
    use proptest::prelude::*;
    use sha3::Shake128;
    use sha3::digest::{ExtendableOutput, Update, XofReader};
    use std::vec::Vec;

    /// Runs `jobs` on the AVX2 token's four lanes.
    fn run_job_list<'a>(avx2: Avx2, jobs: impl IntoIterator<Item = Job<'a>>) {
        let mut jobs: Vec<Job<'a>> = jobs.into_iter().collect();
        // SAFETY: the token exists, so the CPU has the entry point's features.
        unsafe { run_avx2(avx2, jobs.iter_mut(), None) };
    }

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
        run_job_list(
            avx2,
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

    /// A whole batch with the scheduler's flag forced set, as if it all ran on a mispredicted
    /// path: every parse step, in every lane and the lone job's, takes its whole step of
    /// candidates (the protected masks are all ones), so each polynomial is the first 256
    /// 12-bit candidates of its stream, none rejected. A step whose mask were not protected
    /// would filter a candidate and fail.
    #[test]
    fn misspeculated_batches_take_every_candidate() {
        let Some(avx2) = avx2_or_note("forced misspeculation test") else {
            return;
        };
        for count in [1, 3, 4, 5, 9] {
            let seeds = seeds(&[count as u8 ^ 0x5a; 32], count);
            let mut got = std::vec![NttPoly::zero(); count];
            crate::speculation::force_misspeculation(|| {
                run_job_list(
                    avx2,
                    seeds
                        .iter()
                        .zip(&mut got)
                        .map(|(seed, poly)| Job::SampleNtt {
                            seed: *seed,
                            out: poly.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
                        }),
                );
            });
            for (seed, poly) in seeds.iter().zip(&got) {
                let mut xof = Shake128::default();
                xof.update(seed);
                // 256 candidates: 384 bytes, 16 per 24-byte step, none past a block's end.
                let mut bytes = [0u8; 384];
                xof.finalize_xof().read(&mut bytes);
                let want: Vec<u16> = bytes
                    .as_chunks::<3>()
                    .0
                    .iter()
                    .flat_map(|&[b0, b1, b2]| {
                        let (b0, b1, b2) = (u16::from(b0), u16::from(b1), u16::from(b2));
                        [b0 | (b1 & 0x0f) << 8, b1 >> 4 | b2 << 4]
                    })
                    .collect();
                let coeffs: Vec<u16> = poly.coeffs().to_vec();
                assert_eq!(coeffs, want, "{count} seeds");
            }
        }
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
        let special = crate::reference::seeds_needing_a_fourth_block(3);
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
                    flat_seeds.push(crate::job::matrix_seed(rho, i as u8, j as u8));
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
        run_job_list(
            avx2,
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
