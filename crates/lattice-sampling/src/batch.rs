//! [`Batch`]: the independent Keccak work of one step of an operation, run together.
//!
//! Every sampling function of this crate builds a batch and runs it; callers with work of
//! several kinds that does not depend on each other (key generation's A-hat rows and noise,
//! and its `H(ek)` absorbing the rows of `t-hat` already encoded) build one themselves, so
//! that a multi-way Keccak fills its lanes across all of it. See the crate docs on
//! multi-way hashing.

use lattice_poly_ntt::mlkem::NttPoly;
use lattice_poly_ntt::mlkem::{MAX_RANK, Poly};

use crate::backend::SamplingBackend;
use crate::cbd::Eta;
use crate::digest::Digest32;
use crate::feed::{Feed, Feeding};
use crate::job::{Job, Jobs, MAX_JOBS, matrix_seed};
use crate::keccak::{SHA3_256_RATE, Sponge};

/// Independent sampling and hashing work, computed together by [`Batch::run`] on the lanes
/// of the backend's multi-state Keccak (each lane taking the next job when its own is done,
/// a job left alone finishing on the single-state Keccak). The results are the same on
/// every backend; nothing is written before `run`.
///
/// Jobs start in the order they were added: add long ones (hashes of long messages) first.
///
/// ```
/// use lattice_poly_ntt::mlkem::{Matrix, NttPoly, Poly};
/// use lattice_sampling::keccak::{SHA3_DOMAIN, SHA3_256_RATE, Sponge, sha3_256};
/// use lattice_sampling::{Batch, Eta, sample_matrix, sample_noise_poly};
///
/// // Any backend token: `Portable` everywhere, or one detected by `AnyBackend::best()`.
/// let b = lattice_poly_ntt::backend::Portable;
///
/// // Rows 0 and 1 of a 3 x 3 A-hat, two noise polynomials and a hash, in one run.
/// let (rho, sigma) = ([1u8; 32], [2u8; 32]);
/// let mut a_hat = Matrix::<3> {
///     rows: core::array::from_fn(|_| core::array::from_fn(|_| NttPoly::zero())),
/// };
/// let (mut s0, mut s1) = (Poly::zero(), Poly::zero());
/// let message = [3u8; 300];
/// let mut sponge = Sponge::<SHA3_256_RATE>::new();
///
/// let mut batch = Batch::new(b);
/// batch.absorb(&mut sponge, &message);
/// batch.matrix_rows::<3>(&rho, 0, &mut a_hat.rows[..2]);
/// batch.noise(&sigma, Eta::Two, 0, &mut s0);
/// batch.noise(&sigma, Eta::Two, 1, &mut s1);
/// batch.run();
///
/// let full = sample_matrix::<3>(b, &rho);
/// assert_eq!(a_hat.rows[..2], full.rows[..2]);
/// assert_eq!(s1, sample_noise_poly(b, &sigma, Eta::Two, 1));
/// // The sponge went on from where the batch left it.
/// sponge.finalize(b, SHA3_DOMAIN);
/// let mut h = [0u8; 32];
/// sponge.squeeze(b, &mut h);
/// assert_eq!(h, sha3_256(b, &[&message]));
/// ```
#[must_use = "nothing is computed until `run`"]
pub struct Batch<'a, B: SamplingBackend> {
    jobs: [Option<Job<'a>>; MAX_JOBS],
    len: usize,
    backend: B,
}

impl<'a, B: SamplingBackend> Batch<'a, B> {
    /// An empty batch, to run on `backend`.
    #[inline]
    pub const fn new(backend: B) -> Self {
        Self {
            jobs: [const { None }; MAX_JOBS],
            len: 0,
            backend,
        }
    }

    /// Adds a job (running the held ones first when the batch is full).
    pub(crate) fn push(&mut self, job: Job<'a>) {
        if self.len == MAX_JOBS {
            self.run_held();
        }
        self.jobs[self.len] = Some(job);
        self.len += 1;
    }

    /// Rows `first_row ..` of a `K x K` A-hat (FIPS 203 Alg. 13 l. 3-7), one
    /// `SampleNTT` job per entry: entry `j` of `rows[r]` is `SampleNTT(rho || j || i)` with
    /// `i = first_row + r`.
    ///
    /// A matrix has `K` rows: entries of `rows` that would be rows `K` and beyond are left
    /// alone (none if `first_row >= K`). `K` is at most 4 (checked at compile time).
    ///
    /// Not constant time with respect to rho, by design (rho is public).
    pub fn matrix_rows<const K: usize>(
        &mut self,
        rho: &[u8; 32],
        first_row: usize,
        rows: &'a mut [[NttPoly; K]],
    ) {
        const { assert!(K <= MAX_RANK, "ML-KEM ranks are at most 4") };
        for (i, row) in (first_row..K).zip(rows) {
            for (j, poly) in row.iter_mut().enumerate() {
                // i, j < K <= 4: the casts are exact.
                self.push(Job::SampleNtt {
                    seed: matrix_seed(rho, i as u8, j as u8),
                    // The parser writes only values below q: the canonical invariant holds.
                    out: poly.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
                });
            }
        }
    }

    /// `*out = SamplePolyCBD_eta(PRF_eta(sigma, nonce))` (FIPS 203 Alg. 8 over the PRF
    /// of FIPS 203 §4.1). Constant time with respect to `sigma`; the PRF output is zeroized.
    pub fn noise(&mut self, sigma: &'a [u8; 32], eta: Eta, nonce: u8, out: &'a mut Poly) {
        self.push(Job::Noise {
            sigma,
            nonce: [nonce],
            eta,
            // CBD writes only values in [0, q): the canonical invariant holds.
            out: out.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
        });
    }

    /// A 32-byte hash (see [`Digest32`]). Constant time with respect to the message's
    /// content.
    pub fn digest(&mut self, digest: Digest32<'a>) {
        let domain = digest.domain();
        let Digest32 { message, out, .. } = digest;
        self.push(Job::Hash32 {
            domain,
            message,
            out,
        });
    }

    /// `*out = SHA3-512(parts[0] || parts[1])` (FIPS 203's G). Constant time with respect
    /// to the message's content.
    pub fn sha3_512(&mut self, parts: [&'a [u8]; 2], out: &'a mut [u8; 64]) {
        self.push(Job::Hash64 {
            message: parts,
            out,
        });
    }

    /// Absorbs `data` into `sponge`, which goes on afterwards (more input, padding, output):
    /// a hash whose message is only partly known yet (key generation's `H(ek)` absorbing
    /// the rows of `t-hat` already encoded while the next rows of A-hat are sampled).
    ///
    /// Bytes completing a block the sponge has started are absorbed right away (on the
    /// scalar Keccak), then the whole blocks by the batch, then the rest is buffered in
    /// the sponge. Constant time with respect to `data`'s content.
    pub fn absorb(&mut self, sponge: &'a mut Sponge<SHA3_256_RATE>, data: &'a [u8]) {
        let head = sponge.bytes_to_block_end().min(data.len());
        let (head, rest) = data.split_at(head);
        sponge.absorb(self.backend, head);
        let tail = rest.chunks_exact(SHA3_256_RATE).remainder();
        let blocks = &rest[..rest.len() - tail.len()];
        if blocks.is_empty() {
            sponge.absorb(self.backend, tail);
            return;
        }
        self.push(Job::Absorb {
            sponge,
            blocks,
            tail,
        });
    }

    /// Computes everything added so far, writing every output; the batch is then empty.
    /// (By reference: taking the batch by value copied its job list, 1.8 KB, at every
    /// call.)
    #[inline]
    pub fn run(&mut self) {
        self.run_held();
    }

    fn run_held(&mut self) {
        let held = self.len;
        self.len = 0;
        self.backend.run_jobs(Jobs {
            jobs: &mut self.jobs[..held],
        });
    }

    fn run_held_feeding(&mut self, feeding: &mut Feeding<'_>) {
        let held = self.len;
        self.len = 0;
        self.backend.run_jobs_feeding(
            Jobs {
                jobs: &mut self.jobs[..held],
            },
            feeding,
        );
    }
}

/// A [`Batch`] of jobs whose outputs go to a [`Feed`], while a sponge absorbs the message
/// the feed builds from them, a block as soon as one is known (on a multi-way Keccak, in a
/// lane of the same permutations as the jobs).
///
/// ```
/// use lattice_poly_ntt::mlkem::N;
/// use lattice_sampling::keccak::{SHA3_DOMAIN, SHA3_256_RATE, Sponge, sha3_256};
/// use lattice_sampling::{Eta, Feed, FeedingBatch, sample_noise_poly};
///
/// // A message made of the low bytes of three noise polynomials, as they are sampled.
/// struct Bytes { polys: [[u16; N]; 3], bytes: Vec<u8> }
/// impl Feed for Bytes {
///     fn output(&mut self, slot: usize) -> &mut [u16; N] { &mut self.polys[slot] }
///     fn progress(&mut self, slot: usize, _filled: usize) {
///         self.bytes.extend(self.polys[slot].iter().map(|&c| c as u8));
///     }
///     fn ready(&self) -> &[u8] { &self.bytes }
/// }
///
/// let b = lattice_poly_ntt::backend::Portable;
/// let sigma = [5u8; 32];
/// let mut feed = Bytes { polys: [[0; N]; 3], bytes: Vec::new() };
/// let mut sponge = Sponge::<SHA3_256_RATE>::new();
/// let mut batch = FeedingBatch::new(b, &mut sponge, &mut feed);
/// for n in 0..3 {
///     batch.fed_noise(&sigma, Eta::Two, n, usize::from(n));
/// }
/// let fed = batch.run();
/// // The sponge took `fed` bytes: whole blocks from the start. The rest is the caller's.
/// sponge.absorb(b, &feed.bytes[fed..]);
/// sponge.finalize(b, SHA3_DOMAIN);
/// let mut h = [0u8; 32];
/// sponge.squeeze(b, &mut h);
/// assert_eq!(h, sha3_256(b, &[&feed.bytes]));
/// assert_eq!(&feed.polys[2], sample_noise_poly(b, &sigma, Eta::Two, 2).coeffs());
/// ```
#[must_use = "nothing is computed until `run`"]
pub struct FeedingBatch<'a, B: SamplingBackend> {
    batch: Batch<'a, B>,
    feeding: Feeding<'a>,
}

impl<'a, B: SamplingBackend> FeedingBatch<'a, B> {
    /// An empty batch, to run on `backend` with `feed`, `sponge` absorbing its message.
    ///
    /// `sponge` must be between blocks (fresh, or having absorbed whole blocks only); if it
    /// is not, it takes nothing during the run (and [`Self::run`] returns 0).
    pub fn new(
        backend: B,
        sponge: &'a mut Sponge<SHA3_256_RATE>,
        feed: &'a mut (dyn Feed + 'a),
    ) -> Self {
        Self {
            batch: Batch::new(backend),
            feeding: Feeding::new(sponge, feed),
        }
    }

    fn push(&mut self, job: Job<'a>) {
        if self.batch.len == MAX_JOBS {
            self.batch.run_held_feeding(&mut self.feeding);
        }
        self.batch.jobs[self.batch.len] = Some(job);
        self.batch.len += 1;
    }

    /// `SampleNTT(rho || j || i)` (A-hat`[i, j]`, FIPS 203 Alg. 13 l. 5) into output
    /// `slot` of the feed, which hears of each block parsed.
    ///
    /// Not constant time with respect to rho, by design (rho is public).
    pub fn fed_matrix_entry(&mut self, rho: &[u8; 32], i: u8, j: u8, slot: usize) {
        self.push(Job::FedSampleNtt {
            seed: matrix_seed(rho, i, j),
            slot,
        });
    }

    /// `SamplePolyCBD_eta(PRF_eta(sigma, nonce))` into output `slot` of the feed, which
    /// hears of it once it is done. Constant time with respect to `sigma`.
    pub fn fed_noise(&mut self, sigma: &'a [u8; 32], eta: Eta, nonce: u8, slot: usize) {
        self.push(Job::FedNoise {
            sigma,
            nonce: [nonce],
            eta,
            slot,
        });
    }

    /// Computes everything added so far; returns how many bytes of the feed's message the
    /// sponge has taken (whole blocks from its start). The caller absorbs the rest.
    pub fn run(&mut self) -> usize {
        self.batch.run_held_feeding(&mut self.feeding);
        // 0 for a sponge that was mid-block: it takes no block during the run.
        self.feeding.fed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_poly_ntt::backend::Portable;
    const P: Portable = Portable;
    use crate::job::SAMPLE_NTT_SEED_BYTES;
    use crate::keccak::{SHA3_DOMAIN, sha3_256};
    use crate::{sample_noise_poly, sample_ntt};
    use lattice_poly_ntt::backend::AnyBackend;
    use lattice_poly_ntt::mlkem::N;
    use proptest::prelude::*;

    use std::vec::Vec;

    /// Absorbs `prefix` on the scalar sponge, then `data` through a batch run with other
    /// jobs, and checks the digest and the other outputs.
    fn check_absorb(prefix: &[u8], data: &[u8], others: usize) {
        let mut sponge = Sponge::<SHA3_256_RATE>::new();
        sponge.absorb(P, prefix);
        let seeds: Vec<[u8; SAMPLE_NTT_SEED_BYTES]> = (0..others)
            .map(|n| [n as u8; SAMPLE_NTT_SEED_BYTES])
            .collect();
        let mut polys = std::vec![NttPoly::zero(); others];
        let mut noise = Poly::zero();
        let sigma = [7u8; 32];
        let mut batch = Batch::new(P);
        batch.absorb(&mut sponge, data);
        for (seed, poly) in seeds.iter().zip(&mut polys) {
            batch.push(Job::SampleNtt {
                seed: *seed,
                out: poly.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
            });
        }
        batch.noise(&sigma, Eta::Three, 9, &mut noise);
        batch.run();
        sponge.finalize(P, SHA3_DOMAIN);
        let mut h = [0u8; 32];
        sponge.squeeze(P, &mut h);
        assert_eq!(
            h,
            sha3_256(P, &[prefix, data]),
            "{} + {}",
            prefix.len(),
            data.len()
        );
        for (seed, poly) in seeds.iter().zip(&polys) {
            assert_eq!(*poly, sample_ntt(P, seed));
        }
        assert_eq!(noise, sample_noise_poly(P, &sigma, Eta::Three, 9));
    }

    #[test]
    fn absorb_at_every_alignment() {
        // A sponge between blocks, mid-block, one byte short of a block; data from empty to
        // several blocks; alone (finishing on the scalar Keccak) and beside other jobs.
        for prefix in [0, 1, 100, SHA3_256_RATE - 1, SHA3_256_RATE, 300] {
            for data in [0, 1, 35, 36, 135, 136, 137, 272, 768, 1000] {
                let p: Vec<u8> = (0..prefix).map(|i| i as u8).collect();
                let d: Vec<u8> = (0..data).map(|i| (i * 3 + 1) as u8).collect();
                check_absorb(&p, &d, 0);
                check_absorb(&p, &d, 3);
            }
        }
    }

    #[test]
    fn more_jobs_than_a_batch_holds() {
        // Past MAX_JOBS the held jobs run first; every output is still written.
        let seeds: Vec<[u8; SAMPLE_NTT_SEED_BYTES]> = (0..MAX_JOBS + 5)
            .map(|n| [n as u8; SAMPLE_NTT_SEED_BYTES])
            .collect();
        let mut polys = std::vec![NttPoly::zero(); seeds.len()];
        let mut batch = Batch::new(P);
        for (seed, poly) in seeds.iter().zip(&mut polys) {
            batch.push(Job::SampleNtt {
                seed: *seed,
                out: poly.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
            });
        }
        batch.run();
        for (seed, poly) in seeds.iter().zip(&polys) {
            assert_eq!(*poly, sample_ntt(P, seed));
        }
    }

    /// A feed whose message is the low bytes of its slots' coefficients, slot after slot,
    /// each coefficient as soon as it is reported (so the message grows block by block with
    /// the matrix streams' progress, as key generation's `ek` does).
    struct Prefixes {
        polys: Vec<[u16; N]>,
        filled: Vec<usize>,
        reports: Vec<Vec<usize>>,
        message: Vec<u8>,
    }

    impl Prefixes {
        fn new(slots: usize) -> Self {
            Self {
                polys: std::vec![[0; N]; slots],
                filled: std::vec![0; slots],
                reports: std::vec![Vec::new(); slots],
                message: Vec::new(),
            }
        }
    }

    impl Feed for Prefixes {
        fn output(&mut self, slot: usize) -> &mut [u16; N] {
            &mut self.polys[slot]
        }

        fn progress(&mut self, slot: usize, filled: usize) {
            self.reports[slot].push(filled);
            self.filled[slot] = filled;
            // Extend the message through every slot whose coefficients are all in, then the
            // reported prefix of the first that is not.
            self.message.clear();
            for (poly, &filled) in self.polys.iter().zip(&self.filled) {
                self.message.extend(poly[..filled].iter().map(|&c| c as u8));
                if filled < N {
                    break;
                }
            }
        }

        fn ready(&self) -> &[u8] {
            &self.message
        }
    }

    /// Runs fed jobs (`true`: a matrix entry, `false`: noise) with a sponge absorbing the
    /// feed's message on `backend`, and checks every output, every report and the digest.
    fn check_feeding<B: SamplingBackend>(
        backend: B,
        per_block: bool,
        kinds: &[bool],
        prefix: &[u8],
    ) -> usize {
        let sigma = [9u8; 32];
        let rho = [4u8; 32];
        let mut feed = Prefixes::new(kinds.len());
        let mut sponge = Sponge::<SHA3_256_RATE>::new();
        sponge.absorb(backend, prefix);
        let mut batch = FeedingBatch::new(backend, &mut sponge, &mut feed);
        for (slot, &matrix) in kinds.iter().enumerate() {
            let n = slot as u8;
            if matrix {
                batch.fed_matrix_entry(&rho, n / 4, n % 4, slot);
            } else {
                batch.fed_noise(
                    &sigma,
                    if n.is_multiple_of(2) {
                        Eta::Two
                    } else {
                        Eta::Three
                    },
                    n,
                    slot,
                );
            }
        }
        let fed = batch.run();
        assert!(
            fed <= feed.message.len() && fed.is_multiple_of(SHA3_256_RATE),
            "{fed}"
        );
        if !prefix.len().is_multiple_of(SHA3_256_RATE) {
            assert_eq!(fed, 0, "a sponge mid-block takes nothing during the run");
        }
        sponge.absorb(backend, &feed.message[fed..]);
        sponge.finalize(backend, SHA3_DOMAIN);
        let mut h = [0u8; 32];
        sponge.squeeze(backend, &mut h);
        assert_eq!(h, sha3_256(P, &[prefix, &feed.message]));
        for (slot, &matrix) in kinds.iter().enumerate() {
            let n = slot as u8;
            let want = if matrix {
                *sample_ntt(P, &matrix_seed(&rho, n / 4, n % 4)).coeffs()
            } else {
                let eta = if n.is_multiple_of(2) {
                    Eta::Two
                } else {
                    Eta::Three
                };
                *sample_noise_poly(P, &sigma, eta, n).coeffs()
            };
            assert_eq!(feed.polys[slot], want, "slot {slot}");
            let reports = &feed.reports[slot];
            assert_eq!(reports.last(), Some(&N), "slot {slot}: {reports:?}");
            assert!(reports.windows(2).all(|w| w[0] < w[1]), "{reports:?}");
            if !matrix {
                assert_eq!(reports.len(), 1, "noise reports once");
            } else if per_block {
                // At least 3 blocks (3 x 112 candidates) for 256 coefficients.
                assert!(reports.len() >= 3, "one report per block: {reports:?}");
            }
        }
        assert_eq!(feed.message.len(), N * kinds.len());
        fed
    }

    /// Runs `f` with the feeding check on every backend this CPU has (every backend runs
    /// the lane scheduler, which reports each parsed block).
    fn on_every_backend(f: impl Fn(&dyn Fn(&[bool], &[u8]) -> usize)) {
        for any in AnyBackend::available() {
            lattice_poly_ntt::dispatch!(any, |b| f(&|kinds, prefix| check_feeding(
                b, true, kinds, prefix
            )));
        }
    }

    /// [`on_every_backend`] plus, on an AVX-512 CPU, every fed batch on eight lanes first
    /// (where the CPU splits zmm operations, the AVX-512 token never runs them so).
    fn on_every_backend_and_eight_lanes(f: impl Fn(&dyn Fn(&[bool], &[u8]) -> usize)) {
        on_every_backend(&f);
        if let Some(wide) = crate::backend::eight_lane_feeding() {
            f(&|kinds, prefix| check_feeding(wide, true, kinds, prefix));
        }
    }

    #[test]
    fn feeding_key_generation_shape() {
        // ML-KEM-768's order: s, e_0, row 0, e_1, e_2, rows 1 and 2; then a sponge mid-block.
        let mut kinds = std::vec![false; 4];
        kinds.extend([true; 3]);
        kinds.extend([false; 2]);
        kinds.extend([true; 6]);
        on_every_backend(|check| {
            // The sponge takes blocks during the run: the stream blocks of the last row
            // leave the message of the first rows ready well before the end.
            assert!(check(&kinds, &[]) >= 8 * SHA3_256_RATE);
            assert!(check(&kinds, &[1; SHA3_256_RATE]) >= 8 * SHA3_256_RATE);
            check(&kinds, &[1; 5]);
            check(&[], &[]);
            check(&[true], &[]);
        });
        // ML-KEM-512's: s, e_0, row 0, e_1, row 1 (eight jobs: eight lanes on full-width
        // AVX-512 CPUs).
        let kinds = [false, false, false, true, true, false, true, true];
        on_every_backend_and_eight_lanes(|check| {
            // The jobs end sooner on eight lanes (two blocks went in during the run there,
            // six on four lanes): at least one, the rest after the run.
            assert!(check(&kinds, &[]) >= SHA3_256_RATE);
            check(&kinds, &[1; SHA3_256_RATE]);
            check(&kinds, &[1; 5]);
        });
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn feeding_matches_one_shot_hash(
            kinds in proptest::collection::vec(any::<bool>(), 0..14),
            whole_blocks in 0usize..3,
        ) {
            let prefix = std::vec![7u8; whole_blocks * SHA3_256_RATE];
            on_every_backend_and_eight_lanes(|check| {
                check(&kinds, &prefix);
            });
        }

        #[test]
        fn absorb_matches_one_shot_hash(
            prefix in proptest::collection::vec(any::<u8>(), 0..400),
            data in proptest::collection::vec(any::<u8>(), 0..900),
            others in 0usize..6,
        ) {
            check_absorb(&prefix, &data, others);
        }
    }
}
