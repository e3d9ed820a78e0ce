//! The AVX-512 token's lane counts: the lane scheduler on the 8-way zmm permutation
//! (`keccak::X8`) while a batch has more than four jobs left and on the 4-way AVX-512VL one
//! (`keccak::X4Vl`) after that (`crate::scheduler::run_narrowing`), when the estimate below
//! says eight lanes pay; on the 4-way one throughout where the CPU splits zmm operations in
//! two (see `Avx512::splits_zmm`). Fed batches (`crate::FeedingBatch`) run on four AVX-512VL
//! lanes, or on eight zmm lanes first where zmm operations are full width and every job
//! gets a lane at once (at most eight jobs). The kernels ([`Avx512Kernels`]): VBMI2's
//! parser (`rej`) where the CPU has it, else AVX2's; the zmm CBD for eta = 2 (`cbd`) and
//! AVX2's for eta = 3; the permutations are in `keccak`.

pub(crate) mod cbd;
mod keccak;
pub(crate) mod rej;

use lattice_poly_ntt::backend::Avx512;
use lattice_poly_ntt::mlkem::N;

use self::keccak::{VlSingle, X4Vl, X8};
use self::rej::Parser;
use crate::backend::SamplingBackend;
use crate::backend::x86_64::avx2::cbd::cbd3_steps_avx2;
use crate::cbd::CBD2_INPUT_BYTES;
use crate::feed::Feeding;
use crate::job::{Job, Jobs, MAX_JOBS};
use crate::keccak::{KeccakF1600, SHAKE128_RATE};
use crate::kernels::Kernels;
use crate::speculation::Msf;

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
        unsafe { cbd3_steps_avx2(bytes, out) }
    }
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

/// The token exists only on a CPU with AVX-512F/VL/BW and the AVX2 token's features.
impl SamplingBackend for Avx512 {
    #[inline]
    fn run_jobs(self, mut jobs: Jobs<'_, '_>) {
        // Where the CPU splits zmm operations in two (AMD Zen 4), an 8-way round costs two
        // 4-way ones plus the transposition (docs/performance-history.md): eight lanes
        // never pay, and no estimate is made. Public: a CPU property.
        let eight = !self.splits_zmm() && eight_lanes_pay(&jobs);
        // SAFETY: `self` exists, so the CPU has the entry points' features.
        unsafe { run_avx512(self, jobs.iter_mut(), eight, None) }
    }

    #[inline]
    fn run_jobs_feeding(self, mut jobs: Jobs<'_, '_>, feeding: &mut Feeding<'_>) {
        // Where zmm operations are full width and every job gets a lane in the first round
        // (ML-KEM-512 key generation: s, e and A-hat are eight jobs), eight lanes finish
        // what the fed sponge's first block depends on in two rounds, four lanes in four, so
        // the sponge starts two rounds earlier.
        // With more jobs than that (ML-KEM-768 and -1024) the sponge would pay 8-way rounds
        // for blocks that four lanes give it as early: four lanes, as on every CPU that
        // splits zmm operations. Public: a CPU property and the number of jobs.
        let eight = !self.splits_zmm() && jobs.len() <= 8;
        // SAFETY: `self` exists, so the CPU has the entry points' features.
        unsafe { run_avx512(self, jobs.iter_mut(), eight, Some(feeding)) }
    }
}

/// Runs every job of `jobs` on eight zmm lanes narrowing to four AVX-512VL ones if `eight`,
/// else on four AVX-512VL lanes throughout.
///
/// # Safety
/// The CPU has the AVX-512 token's features (the token is passed by value for the lanes'
/// types; this function's own features are checked by the caller).
#[target_feature(enable = "avx2,bmi1,bmi2,avx512f,avx512vl,avx512bw")]
#[inline(never)]
unsafe fn run_avx512<'j, 'a: 'j>(
    token: Avx512,
    jobs: impl IntoIterator<Item = &'j mut Job<'a>>,
    eight: bool,
    feeding: Option<&mut Feeding<'_>>,
) {
    let kernels = Avx512Kernels::new(token);
    if eight {
        crate::scheduler::run_narrowing::<8, 4, _, _, _>(
            jobs,
            X8::new(token),
            X4Vl::new(token),
            kernels,
            feeding,
        );
    } else {
        crate::scheduler::run::<4, _, _>(jobs, X4Vl::new(token), kernels, feeding);
    }
}

/// The AVX-512 token with every fed batch on eight lanes first, whatever the CPU and the
/// number of jobs, so that the tests check that path on CPUs that split zmm operations too.
#[cfg(test)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct WideFeeding(pub(crate) Avx512);

#[cfg(test)]
impl crate::keccak::KeccakF1600 for WideFeeding {
    fn f1600(self, state: &mut [u64; 25]) {
        self.0.f1600(state);
    }
}

#[cfg(test)]
impl SamplingBackend for WideFeeding {
    fn run_jobs(self, jobs: Jobs<'_, '_>) {
        self.0.run_jobs(jobs);
    }

    fn run_jobs_feeding(self, mut jobs: Jobs<'_, '_>, feeding: &mut Feeding<'_>) {
        // SAFETY: the token exists.
        unsafe { run_avx512(self.0, jobs.iter_mut(), true, Some(feeding)) }
    }
}

/// Whether eight zmm lanes while more than four jobs are left, then four ymm ones
/// (`run_x8`), have the smaller estimated time than four ymm lanes throughout, on a CPU
/// with full-width zmm operations. Public: the estimate depends on the jobs' kinds and
/// lengths only.
fn eight_lanes_pay(jobs: &Jobs<'_, '_>) -> bool {
    let mut lengths = [0usize; MAX_JOBS];
    let n = jobs.estimated_lengths(&mut lengths);
    let lengths = &lengths[..n];
    // Four jobs or fewer fit four lanes, and five to eight one-permutation jobs (a batch of
    // noise) take one 8-way round instead of two 4-way ones: no estimate needed (it would
    // say the same, see the tests).
    let one_round = n <= 8 && lengths.iter().all(|&len| len <= 1);
    n > 4 && (one_round || wide_is_faster(lengths))
}

/// The cost model of the lane-count choice: TSC ticks of one 8-way zmm, one 4-way ymm and
/// one scalar permutation (measured on an Intel Xeon guest).
const TICKS_X8: usize = 960;
const TICKS_X4: usize = 730;
const TICKS_SCALAR: usize = 700;
// One 8-way round is cheaper than two 4-way ones (the shortcut in `run_jobs`).
const _: () = assert!(TICKS_X8 < 2 * TICKS_X4);

/// Whether eight lanes narrowing to four have the smaller estimated time than four lanes:
/// `estimated_ticks(lengths, 8) < estimated_ticks(lengths, 4)`, without simulating four
/// lanes when eight beat a bound no four-lane schedule can go below (at best four
/// permutations per 4-way round, one per scalar one, which costs more per permutation).
fn wide_is_faster(lengths: &[usize]) -> bool {
    let wide = estimated_ticks(lengths, 8);
    let permutations: usize = lengths.iter().map(|&len| len.max(1)).sum();
    // 4-way rounds cost TICKS_X4 for at most 4 permutations, scalar ones TICKS_SCALAR for 1.
    const { assert!(4 * TICKS_SCALAR >= TICKS_X4) };
    4 * wide < TICKS_X4 * permutations || wide < estimated_ticks(lengths, 4)
}

/// The estimated time of the lane scheduler on jobs of `lengths` permutations (in order)
/// with `width` lanes at the start (8: narrowing to 4 once at most four jobs are left, as
/// `run_x8` does; 4: as `run_vl`), the last job alone on the scalar Keccak: a simulation
/// of the schedule from one job's end to the next (nothing changes in between), so it takes
/// about as many steps as there are jobs, not rounds.
fn estimated_ticks(lengths: &[usize], width: usize) -> usize {
    if width == 8 {
        estimated_ticks_on::<8>(lengths)
    } else {
        estimated_ticks_on::<4>(lengths)
    }
}

/// [`estimated_ticks`] for `WIDTH` lanes (a constant, so the loops over the lanes unroll).
fn estimated_ticks_on<const WIDTH: usize>(lengths: &[usize]) -> usize {
    let round = if WIDTH == 8 { TICKS_X8 } else { TICKS_X4 };
    let mut lanes = [0usize; WIDTH];
    let mut next = 0;
    let mut ticks = 0;
    loop {
        for lane in &mut lanes {
            if *lane == 0
                && let Some(&len) = lengths.get(next)
            {
                *lane = len.max(1);
                next += 1;
            }
        }
        let (mut running, mut longest, mut shortest) = (0, 0, usize::MAX);
        for &left in &lanes {
            if left > 0 {
                running += 1;
                longest = longest.max(left);
                shortest = shortest.min(left);
            }
        }
        let none_waiting = next == lengths.len();
        if running == 0 {
            return ticks;
        }
        if none_waiting && running == 1 {
            return ticks + TICKS_SCALAR * longest;
        }
        if none_waiting && running <= 4 {
            // Every job left runs on four lanes (`move_into` packs them) to the end of the
            // longest (about: the last one alone would go to the scalar Keccak, which costs
            // about the same).
            return ticks + TICKS_X4 * longest;
        }
        // The rounds until the next job ends.
        ticks += round * shortest;
        for lane in &mut lanes {
            *lane = lane.saturating_sub(shortest);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::keccak::{SHA3_256_RATE, Sponge};
    use crate::{Batch, Digest32, Eta, sample_matrix, sample_noise_vector};
    use lattice_poly_ntt::backend::{Avx512, Portable};
    use lattice_poly_ntt::mlkem::Poly;

    /// The schedule simulated round by round: the definition [`super::estimated_ticks`]
    /// jumps through from one job's end to the next.
    fn ticks_round_by_round(lengths: &[usize], width: usize) -> usize {
        use super::{TICKS_SCALAR, TICKS_X4, TICKS_X8};
        let mut lanes = [0usize; 8];
        let mut next = 0;
        let mut ticks = 0;
        loop {
            for lane in &mut lanes[..width] {
                if *lane == 0
                    && let Some(&len) = lengths.get(next)
                {
                    *lane = len.max(1);
                    next += 1;
                }
            }
            let running = lanes.iter().filter(|&&left| left > 0).count();
            let longest = lanes.iter().copied().max().unwrap_or(0);
            let none_waiting = next == lengths.len();
            if running == 0 {
                return ticks;
            }
            if none_waiting && running == 1 {
                return ticks + TICKS_SCALAR * longest;
            }
            if none_waiting && running <= 4 {
                return ticks + TICKS_X4 * longest;
            }
            ticks += if width == 8 { TICKS_X8 } else { TICKS_X4 };
            for lane in &mut lanes[..width] {
                *lane = lane.saturating_sub(1);
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn the_estimate_jumps_to_the_same_result(
            lengths in proptest::collection::vec(0usize..20, 0..32),
            wide in proptest::bool::ANY,
        ) {
            let width = if wide { 8 } else { 4 };
            proptest::prop_assert_eq!(
                super::estimated_ticks(&lengths, width),
                ticks_round_by_round(&lengths, width)
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn the_bound_decides_as_both_estimates_do(
            lengths in proptest::collection::vec(0usize..12, 0..32),
        ) {
            proptest::prop_assert_eq!(
                super::wide_is_faster(&lengths),
                super::estimated_ticks(&lengths, 8) < super::estimated_ticks(&lengths, 4)
            );
        }
    }

    /// The bound alone decides for ML-KEM key generation's first batches (streams of about
    /// three blocks, then noise of one or two).
    #[test]
    fn key_generation_batches_skip_the_four_lane_estimate() {
        use super::{TICKS_X4, estimated_ticks};
        for lengths in [
            [[3; 4].as_slice(), &[2; 4]].concat(),
            [[3; 6].as_slice(), &[1; 6]].concat(),
            [[3; 8].as_slice(), &[1; 8]].concat(),
        ] {
            let total: usize = lengths.iter().sum();
            assert!(
                4 * estimated_ticks(&lengths, 8) < TICKS_X4 * total,
                "{lengths:?}"
            );
        }
    }

    /// `run_jobs`'s shortcut: five to eight one-permutation jobs go to eight lanes, as the
    /// estimate says.
    #[test]
    fn one_round_batches_go_to_eight_lanes() {
        for n in 5..=8 {
            for ones in 0..=n {
                let mut lengths = std::vec![0usize; n];
                lengths[..ones].fill(1);
                assert!(super::estimated_ticks(&lengths, 8) < super::estimated_ticks(&lengths, 4));
            }
        }
    }

    /// The cost model simulates the schedule the lanes run: one 8-way round for up to eight
    /// one-permutation jobs, narrowing to four lanes, a last job alone on the scalar Keccak.
    #[test]
    fn estimate_follows_the_schedule() {
        use super::{TICKS_SCALAR, TICKS_X4, TICKS_X8, estimated_ticks};
        assert_eq!(estimated_ticks(&[], 8), 0);
        assert_eq!(estimated_ticks(&[3], 4), 3 * TICKS_SCALAR);
        assert_eq!(estimated_ticks(&[1; 8], 8), TICKS_X8);
        assert_eq!(estimated_ticks(&[1; 8], 4), 2 * TICKS_X4);
        // Eight lanes for three rounds, then the two long jobs on four lanes for three more.
        assert_eq!(
            estimated_ticks(&[6, 6, 3, 3, 3, 3, 3, 3], 8),
            3 * TICKS_X8 + 3 * TICKS_X4
        );
        // Four lanes: the long jobs and two short ones, then two short ones, then the end
        // of the long jobs.
        assert_eq!(
            estimated_ticks(&[6, 6, 3, 3, 3, 3, 3, 3], 4),
            6 * TICKS_X4 + 3 * TICKS_X4
        );
    }

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
