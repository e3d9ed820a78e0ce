//! [`Batch`]: the independent Keccak work of one step of an operation, run together.
//!
//! Every sampling function of this crate builds a batch and runs it; callers with work of
//! several kinds that does not depend on each other (key generation's A-hat rows and noise,
//! and its `H(ek)` absorbing the rows of `t-hat` already encoded) build one themselves, so
//! that a multi-way Keccak fills its lanes across all of it. See the crate docs on
//! multi-way hashing.

use lattice_poly_ntt::mlkem::NttPoly;
use lattice_poly_ntt::mlkem::{MAX_RANK, N, Poly};

use crate::backend::{Jobs, SamplingBackend};
use crate::cbd::Eta;
use crate::digest::Digest32;
use crate::expand_a::{Shake, XofSink};
use crate::keccak::{SHA3_256_RATE, SHA3_512_RATE, SHA3_DOMAIN, Sponge};
use crate::sample_ntt::{SAMPLE_NTT_SEED_BYTES, SHAKE128_RATE, matrix_seed};

/// Jobs held before a batch runs what it has (pushing more runs the held ones first; jobs
/// are independent, so the results do not change). ML-KEM-1024 key generation's largest
/// batch has 24.
pub(crate) const MAX_JOBS: usize = 32;

/// One independent piece of Keccak work.
pub(crate) enum Job<'a> {
    /// A 32-byte digest of `message[0] || message[1]` with a rate of 136 bytes: SHA3-256
    /// (`domain` = 0x06, FIPS 203's H) or SHAKE256 truncated to 32 bytes (`domain` = 0x1f,
    /// FIPS 203's J).
    Hash32 {
        /// The message, in two parts (`z || c` for J).
        message: [&'a [u8]; 2],
        /// The domain-separation byte that starts the padding.
        domain: u8,
        /// Where the digest goes.
        out: &'a mut [u8; 32],
    },
    /// SHA3-512 of `message[0] || message[1]` (rate 72 bytes; FIPS 203's G).
    Hash64 {
        /// The message, in two parts (`m || H(ek)` for G).
        message: [&'a [u8]; 2],
        /// Where the digest goes.
        out: &'a mut [u8; 64],
    },
    /// `SampleNTT(seed)` (FIPS 203 Algorithm 7) into `out`, squeezing as many SHAKE128
    /// blocks as the seed needs.
    SampleNtt {
        /// `rho || j || i`.
        seed: [u8; SAMPLE_NTT_SEED_BYTES],
        /// The coefficients (only values below q are written).
        out: &'a mut [u16; N],
    },
    /// `SamplePolyCBD_eta(PRF_eta(sigma, nonce))` into `out`.
    Noise {
        /// The PRF key.
        sigma: &'a [u8; 32],
        /// The PRF's one-byte input.
        nonce: [u8; 1],
        /// The noise parameter.
        eta: Eta,
        /// The coefficients (only values in `[0, q)` are written).
        out: &'a mut [u16; N],
    },
    /// `RejNTTPoly(seed)` (FIPS 204 Algorithm 30) into `out`: ML-DSA's matrix entries.
    RejNttPoly {
        /// `rho || s || r`.
        seed: [u8; SAMPLE_NTT_SEED_BYTES],
        /// The coefficients (only values below ML-DSA's q are written).
        out: &'a mut [u32; 256],
    },
    /// `shake(message[0] || message[1])` fed to `sink` a block at a time until it is done.
    Xof {
        /// SHAKE128 or SHAKE256.
        shake: Shake,
        /// The message, in two parts.
        message: [&'a [u8]; 2],
        /// The consumer of the output.
        sink: &'a mut dyn XofSink,
    },
    /// `SampleNTT(seed)` into the [`Feed`]'s output `slot`, each block's progress reported
    /// to it ([`FeedingBatch::fed_matrix_entry`]).
    FedSampleNtt {
        /// `rho || j || i`.
        seed: [u8; SAMPLE_NTT_SEED_BYTES],
        /// The feed's output slot.
        slot: usize,
    },
    /// `SamplePolyCBD_eta(PRF_eta(sigma, nonce))` into the [`Feed`]'s output `slot`,
    /// reported to it once done ([`FeedingBatch::fed_noise`]).
    FedNoise {
        /// The PRF key.
        sigma: &'a [u8; 32],
        /// The PRF's one-byte input.
        nonce: [u8; 1],
        /// The noise parameter.
        eta: Eta,
        /// The feed's output slot.
        slot: usize,
    },
    /// Absorbs `blocks` (whole blocks) into `sponge`, which is between blocks, then `tail`
    /// (shorter than a block, buffered by the sponge without a permutation).
    Absorb {
        /// The sponge, which goes on afterwards (more input, padding, output).
        sponge: &'a mut Sponge<SHA3_256_RATE>,
        /// A whole number of blocks.
        blocks: &'a [u8],
        /// Less than a block.
        tail: &'a [u8],
    },
}

/// The other side of [`FeedingBatch`]: it owns the outputs of the batch's fed jobs
/// ([`FeedingBatch::fed_matrix_entry`], [`FeedingBatch::fed_noise`]), hears of their progress while the
/// batch runs, and builds from them a message that a sponge absorbs in the same run, a
/// block as soon as one is known. ML-KEM key generation is the use: `H(ek)` needs 6 to 12
/// permutations one after another, and each block of `ek` can be encoded as soon as the
/// first coefficients of its row of A-hat are sampled, so `H` runs beside the sampling of
/// the later rows instead of after all of it.
pub trait Feed {
    /// The coefficients of fed job `slot`'s output. The batch writes them only through
    /// this, each at most once, with values below q (`SampleNTT`) or in `[0, q)` (CBD).
    fn output(&mut self, slot: usize) -> &mut [u16; N];

    /// Fed job `slot` has its first `filled` coefficients written and final, `filled`
    /// growing from report to report: a `SampleNTT` job may report after each block it
    /// parses (a multi-way scheduler does; the portable one reports once), a noise job
    /// reports once; the last report of each job is `N`. Called during the run, in the
    /// order the work happens.
    fn progress(&mut self, slot: usize, filled: usize);

    /// The message known so far: a prefix of the whole message that only grows.
    fn ready(&self) -> &[u8];
}

/// A sponge fed from a [`Feed`] during a batch run: whole blocks of its ready message, in
/// order (`SHA3_256_RATE` bytes each, the sponge between blocks). Opaque outside the
/// crate, like [`Jobs`]: a backend receives it to pass on.
pub struct Feeding<'f> {
    sponge: &'f mut Sponge<SHA3_256_RATE>,
    feed: &'f mut (dyn Feed + 'f),
    /// Bytes of the message absorbed so far (whole blocks).
    fed: usize,
    /// Whether the sponge was between blocks at the start: only then can whole blocks go
    /// in during the run.
    open: bool,
}

impl<'f> Feeding<'f> {
    /// `sponge` to be fed from `feed`, nothing fed yet.
    fn new(sponge: &'f mut Sponge<SHA3_256_RATE>, feed: &'f mut (dyn Feed + 'f)) -> Self {
        let open = sponge.bytes_to_block_end() == 0;
        Self {
            sponge,
            feed,
            fed: 0,
            open,
        }
    }

    /// Whether a whole block of the message is ready to go in.
    pub(crate) fn has_block(&self) -> bool {
        self.open && self.feed.ready().len().saturating_sub(self.fed) >= SHA3_256_RATE
    }

    /// The next whole block of the message, if ready; the feeding moves past it.
    pub(crate) fn take_block(&mut self) -> Option<&[u8]> {
        if !self.has_block() {
            return None;
        }
        let at = self.fed;
        self.fed += SHA3_256_RATE;
        self.feed.ready().get(at..at + SHA3_256_RATE)
    }

    /// The sponge's state, between blocks, for a lane to go on from or to give back.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn state(&mut self) -> &mut [u64; 25] {
        self.sponge.state_between_blocks()
    }

    /// The output of fed job `slot`.
    pub(crate) fn output(&mut self, slot: usize) -> &mut [u16; N] {
        self.feed.output(slot)
    }

    /// Reports fed job `slot`'s progress to the feed.
    pub(crate) fn progress(&mut self, slot: usize, filled: usize) {
        self.feed.progress(slot, filled);
    }

    /// Absorbs every whole block ready now on `backend`'s single-state Keccak.
    pub(crate) fn absorb_ready<B: SamplingBackend>(&mut self, backend: B) {
        if !self.open {
            return;
        }
        let ready = self.feed.ready();
        // Saturating: a feed whose message shrank (against `Feed::ready`'s contract) gives
        // nothing more rather than a panic.
        let whole = ready.len().saturating_sub(self.fed) / SHA3_256_RATE * SHA3_256_RATE;
        if let Some(blocks) = ready.get(self.fed..self.fed + whole) {
            self.sponge.absorb(backend, blocks);
            self.fed += whole;
        }
    }
}

impl<'a> From<Digest32<'a>> for Job<'a> {
    fn from(digest: Digest32<'a>) -> Self {
        Job::Hash32 {
            domain: digest.domain(),
            message: digest.message,
            out: digest.out,
        }
    }
}

impl Job<'_> {
    /// About how many Keccak permutations the job takes: its message's blocks (with the
    /// padding, exact) and, for outputs, the blocks it typically squeezes (SampleNTT about 3
    /// of 168 bytes, RejNTTPoly about 5, CBD 1 or 2, a sink about 2). An estimate for
    /// choosing a lane count. Block counts by subtraction: the division scan allows no `div`
    /// in our code, even on public lengths.
    pub(crate) fn estimated_permutations(&self) -> usize {
        // floor(len / rate) + 1, the block the padding ends, by a multiplication with
        // ceil(2^40 / rate) and a shift: exact below 7 * 10^9 bytes (the error of the
        // reciprocal times the length stays below 2^40), a slight underestimate beyond.
        // Not a loop of subtractions, which LLVM turns back into a `div` at opt-level z.
        const RECIPROCAL_72: u128 = (1u128 << 40).div_ceil(SHA3_512_RATE as u128);
        const RECIPROCAL_136: u128 = (1u128 << 40).div_ceil(SHA3_256_RATE as u128);
        const RECIPROCAL_168: u128 = (1u128 << 40).div_ceil(SHAKE128_RATE as u128);
        let blocks = |len: usize, rate: usize| {
            // The three rates of the jobs: 72 (SHA3-512), 136 (SHA3-256, SHAKE256) and
            // 168 (SHAKE128).
            let reciprocal = match rate {
                SHA3_512_RATE => RECIPROCAL_72,
                SHA3_256_RATE => RECIPROCAL_136,
                _ => RECIPROCAL_168,
            };
            ((len as u128 * reciprocal) >> 40) as usize + 1
        };
        match self {
            Job::Hash32 { message, .. } => {
                blocks(message[0].len() + message[1].len(), SHA3_256_RATE)
            }
            Job::Hash64 { message, .. } => {
                blocks(message[0].len() + message[1].len(), SHA3_512_RATE)
            }
            Job::Xof { message, shake, .. } => {
                blocks(message[0].len() + message[1].len(), shake.rate()) + 1
            }
            Job::SampleNtt { .. } | Job::FedSampleNtt { .. } => 3,
            Job::RejNttPoly { .. } => 5,
            Job::Noise { eta: Eta::Two, .. } | Job::FedNoise { eta: Eta::Two, .. } => 1,
            Job::Noise {
                eta: Eta::Three, ..
            }
            | Job::FedNoise {
                eta: Eta::Three, ..
            } => 2,
            // Whole blocks, no padding.
            Job::Absorb { blocks: b, .. } => blocks(b.len(), SHA3_256_RATE) - 1,
        }
    }

    /// Runs the job on `backend`'s scalar Keccak, a fed one into `feeding`'s output and
    /// reported to it (fed jobs come only with a feeding: [`FeedingBatch`]).
    pub(crate) fn run_scalar<B: SamplingBackend>(
        self,
        backend: B,
        feeding: Option<&mut Feeding<'_>>,
    ) {
        match self {
            Job::FedSampleNtt { seed, slot } => {
                let feeding = feeding.expect("fed jobs run with their feed");
                crate::sample_ntt::sample_ntt_into(backend, &seed, feeding.output(slot));
                feeding.progress(slot, N);
            }
            Job::FedNoise {
                sigma,
                nonce: [nonce],
                eta,
                slot,
            } => {
                let feeding = feeding.expect("fed jobs run with their feed");
                crate::noise::noise_into(backend, sigma, eta, nonce, feeding.output(slot));
                feeding.progress(slot, N);
            }
            Job::Hash32 {
                message,
                domain,
                out,
            } => {
                let mut sponge = Sponge::<SHA3_256_RATE>::new();
                for part in message {
                    sponge.absorb(backend, part);
                }
                sponge.finalize(backend, domain);
                sponge.squeeze(backend, out);
            }
            Job::Hash64 { message, out } => {
                let mut sponge = Sponge::<SHA3_512_RATE>::new();
                for part in message {
                    sponge.absorb(backend, part);
                }
                sponge.finalize(backend, SHA3_DOMAIN);
                sponge.squeeze(backend, out);
            }
            Job::SampleNtt { seed, out } => crate::sample_ntt::sample_ntt_into(backend, &seed, out),
            Job::RejNttPoly { seed, out } => {
                crate::expand_a::rej_ntt_poly_into(backend, &seed, out);
            }
            Job::Xof {
                shake,
                message,
                sink,
            } => crate::expand_a::run_sink_scalar(backend, shake, message, sink),
            Job::Noise {
                sigma,
                nonce: [nonce],
                eta,
                out,
            } => crate::noise::noise_into(backend, sigma, eta, nonce, out),
            Job::Absorb {
                sponge,
                blocks,
                tail,
            } => {
                sponge.absorb(backend, blocks);
                sponge.absorb(backend, tail);
            }
        }
    }
}

/// Independent sampling and hashing work, computed together by [`Batch::run`]: with AVX2
/// on the four lanes of a 4-way Keccak (each lane taking the next job when its own is done,
/// a job left alone finishing on the scalar Keccak), otherwise one job after another. The
/// results are the same either way; nothing is written before `run`.
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

    /// Rows `first_row ..` of a `K x K` A-hat (FIPS 203 Algorithm 13 lines 3-7), one
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

    /// `*out = SamplePolyCBD_eta(PRF_eta(sigma, nonce))` (FIPS 203 Algorithm 8 over the PRF
    /// of section 4.1). Constant time with respect to `sigma`; the PRF output is zeroized.
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
        self.push(digest.into());
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

    /// `SampleNTT(rho || j || i)` (A-hat`[i, j]`, FIPS 203 Algorithm 13 line 5) into output
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
        self.feeding.fed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_poly_ntt::backend::Portable;
    const P: Portable = Portable;
    use crate::keccak::{SHA3_DOMAIN, sha3_256};
    use crate::{sample_noise_poly, sample_ntt};
    use proptest::prelude::*;

    /// The block count of the estimate is `floor(len / rate) + 1`, exactly.
    #[test]
    fn estimated_blocks_are_exact() {
        let data = std::vec![0u8; 5000];
        let mut out = [0u8; 32];
        for len in 0..data.len() {
            let job: Job<'_> = Digest32::sha3_256(&data[..len], &mut out).into();
            assert_eq!(
                job.estimated_permutations(),
                len / SHA3_256_RATE + 1,
                "{len}"
            );
        }
    }
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

    fn on_every_backend(f: impl Fn(&dyn Fn(&[bool], &[u8]) -> usize)) {
        // The portable backend runs one job after another and reports each once.
        f(&|kinds, prefix| check_feeding(P, false, kinds, prefix));
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(b) = lattice_poly_ntt::backend::Avx2::detect() {
                f(&|kinds, prefix| check_feeding(b, true, kinds, prefix));
            }
            if let Some(b) = lattice_poly_ntt::backend::Avx512::detect() {
                f(&|kinds, prefix| check_feeding(b, true, kinds, prefix));
            }
        }
    }

    /// [`on_every_backend`] plus, on an AVX-512 CPU, every fed batch on eight lanes first
    /// (where the CPU splits zmm operations, the AVX-512 token never runs them so).
    fn on_every_backend_and_eight_lanes(f: impl Fn(&dyn Fn(&[bool], &[u8]) -> usize)) {
        on_every_backend(&f);
        #[cfg(target_arch = "x86_64")]
        if let Some(b) = lattice_poly_ntt::backend::Avx512::detect() {
            let wide = crate::simd::avx512::WideFeeding(b);
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
