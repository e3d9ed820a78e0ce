//! The job model: every kind of independent Keccak work a batch can hold, described in one
//! place. A job kind is its sponge's rate and domain byte, its input (a short one built
//! into the job, or a message held outside it), and what it does with each squeezed block
//! (parse rejection samples, run CBD, copy a digest, hand the block to a sink or a feed),
//! through the backend's [`Kernels`]. The scheduler ([`crate::scheduler`]) moves jobs
//! through lanes of a multi-state permutation without knowing what any of them is for:
//! adding a job kind touches this file only (and the [`crate::Batch`] method that makes it).
//!
//! The schedule a job gets depends only on its kind, its message's length and, for the
//! rejection samplers, on the XOF output of a public seed: never on secret data. Every
//! buffer that held message bytes or output is zeroized.

use lattice_poly_ntt::mlkem::N;
use zeroize::Zeroize;

use crate::cbd::{CBD2_INPUT_BYTES, CBD3_INPUT_BYTES, Eta};
use crate::feed::Feeding;
use crate::keccak::{
    SHA3_256_RATE, SHA3_512_RATE, SHA3_DOMAIN, SHAKE_DOMAIN, SHAKE128_RATE, SHAKE256_RATE, Sponge,
    WORDS,
};
use crate::kernels::{CBD3_STEP_BYTES, CBD3_STEP_COEFFS, Kernels};
use crate::speculation::Msf;
use zerocopy::IntoBytes;

/// Length of a `SampleNTT` seed: rho (32 bytes) followed by the two index bytes.
pub const SAMPLE_NTT_SEED_BYTES: usize = 34;

/// Jobs held before a batch runs what it has (pushing more runs the held ones first; jobs
/// are independent, so the results do not change). ML-KEM-1024 key generation's largest
/// batch has 24.
pub(crate) const MAX_JOBS: usize = 32;

/// Words in the largest rate (SHAKE128).
pub(crate) const MAX_RATE_WORDS: usize = SHAKE128_RATE / 8;

/// Which SHAKE an [`XofSink`] job reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shake {
    /// SHAKE128 (rate 168 bytes).
    Shake128,
    /// SHAKE256 (rate 136 bytes).
    Shake256,
}

impl Shake {
    /// The rate in bytes: the size of every block handed to [`XofSink::take_block`].
    #[must_use]
    pub const fn rate(self) -> usize {
        match self {
            Self::Shake128 => SHAKE128_RATE,
            Self::Shake256 => crate::keccak::SHAKE256_RATE,
        }
    }
}

/// A consumer of XOF output, one rate-sized block at a time: a rejection rule that belongs
/// to a scheme (ML-DSA's `RejBoundedPoly`) run by a [`Batch`](crate::Batch) beside other Keccak work.
pub trait XofSink {
    /// Takes the next block of output (exactly [`Shake::rate`] bytes); returns `true` once
    /// it needs no more.
    fn take_block(&mut self, block: &[u8]) -> bool;
}

/// The seed of matrix entry `A-hat[row][col]`: `rho || col || row` (FIPS 203 Alg. 13
/// l. 5: `SampleNTT(rho || j || i)` for entry `[i, j]`). Inlined: called out of line, its
/// two index bytes, stored one by one, were reloaded as one 16-bit word that could not be
/// forwarded from the two stores (a fifth of `Batch::matrix_rows`'s samples, three times).
#[inline(always)]
pub(crate) fn matrix_seed(rho: &[u8; 32], row: u8, col: u8) -> [u8; SAMPLE_NTT_SEED_BYTES] {
    let mut seed = [0u8; SAMPLE_NTT_SEED_BYTES];
    seed[..32].copy_from_slice(rho);
    seed[32] = col;
    seed[33] = row;
    seed
}

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
    /// `SampleNTT(seed)` (FIPS 203 Alg. 7) into `out`, squeezing as many SHAKE128
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
    /// `RejNTTPoly(seed)` (FIPS 204 Alg. 30) into `out`: ML-DSA's matrix entries.
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

/// The independent jobs of one batch run, handed to a backend (opaque outside the crate).
pub struct Jobs<'b, 'a> {
    pub(crate) jobs: &'b mut [Option<Job<'a>>],
}

// The estimates are for a backend's lane-count policy (the x86 AVX-512 one); a target
// without one leaves them unused.
#[allow(
    dead_code,
    reason = "read by the lane-count policies of the SIMD backends"
)]
impl<'a> Jobs<'_, 'a> {
    /// Writes each job's estimated Keccak permutations to `out`, in order (for a backend
    /// choosing how many lanes to use); returns the number of jobs. Public: it depends on
    /// the jobs' kinds and message lengths only.
    pub(crate) fn estimated_lengths(&self, out: &mut [usize; MAX_JOBS]) -> usize {
        let mut n = 0;
        for (o, job) in out.iter_mut().zip(self.jobs.iter().flatten()) {
            *o = job.estimated_permutations();
            n += 1;
        }
        n
    }

    /// The number of jobs.
    pub(crate) fn len(&self) -> usize {
        self.jobs.len()
    }

    /// The jobs, in order, to run in place.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut Job<'a>> + '_ {
        self.jobs.iter_mut().flatten()
    }
}

#[allow(
    dead_code,
    reason = "read by the lane-count policies of the SIMD backends"
)]
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
}

/// What a lane needs to know about a job.
impl<'a> Job<'a> {
    /// The rate of the job's sponge in bytes.
    fn rate(&self) -> usize {
        match self {
            Self::SampleNtt { .. } | Self::FedSampleNtt { .. } | Self::RejNttPoly { .. } => {
                SHAKE128_RATE
            }
            Self::Xof { shake, .. } => shake.rate(),
            Self::Hash32 { .. } | Self::Noise { .. } | Self::FedNoise { .. } => SHAKE256_RATE,
            Self::Hash64 { .. } => SHA3_512_RATE,
            Self::Absorb { .. } => SHA3_256_RATE,
        }
    }

    /// The message, if it is held outside the job (every kind but the matrix streams and
    /// the PRFs, whose short inputs are built into the job), with the message's lifetime.
    fn external_message(&self) -> Option<[&'a [u8]; 2]> {
        match self {
            Self::Hash32 { message, .. }
            | Self::Hash64 { message, .. }
            | Self::Xof { message, .. } => Some(*message),
            Self::Absorb { blocks, .. } => Some([blocks, &[]]),
            Self::SampleNtt { .. }
            | Self::FedSampleNtt { .. }
            | Self::RejNttPoly { .. }
            | Self::Noise { .. }
            | Self::FedNoise { .. } => None,
        }
    }

    /// The state a lane starts the job from: an `Absorb` job's sponge goes on from its
    /// state; `None` for a new sponge (the zero state).
    #[inline(always)]
    pub(crate) fn start_state(&mut self) -> Option<&mut [u64; 25]> {
        match self {
            Self::Absorb { sponge, .. } => Some(sponge.state_between_blocks()),
            _ => None,
        }
    }

    /// The first byte of the padding (unused by `Absorb`, which does not pad).
    fn domain(&self) -> u8 {
        match self {
            Self::Hash32 { domain, .. } => *domain,
            Self::Hash64 { .. } => SHA3_DOMAIN,
            Self::SampleNtt { .. }
            | Self::FedSampleNtt { .. }
            | Self::RejNttPoly { .. }
            | Self::Xof { .. }
            | Self::Noise { .. }
            | Self::FedNoise { .. }
            | Self::Absorb { .. } => SHAKE_DOMAIN,
        }
    }
}

/// One job on its way through a lane: the job and how far it has got.
pub(crate) struct Lane<'j, 'a> {
    /// The job, in the batch's list (not moved: a moved enum is copied through the stack
    /// in pieces whose reload waits on store forwarding).
    job: &'j mut Job<'a>,
    /// Message bytes absorbed so far.
    absorbed: usize,
    /// Whether the last block has been absorbed (the padded one; for `Absorb`, the last
    /// whole block): after the next permutation the state gives output, or, for `Absorb`,
    /// goes back to its sponge.
    padded: bool,
    /// `SampleNtt`: coefficients filled; `Noise` with eta = 3: blocks of PRF output taken.
    filled: usize,
}

// eta = 2 takes its PRF output from one block; eta = 3 from the first block and part of a
// second, so it carries the rest of the first in the lane.
const _: () = assert!(CBD2_INPUT_BYTES <= SHAKE256_RATE);
const _: () = assert!(SHAKE256_RATE < CBD3_INPUT_BYTES && CBD3_INPUT_BYTES <= 2 * SHAKE256_RATE);

/// eta = 3's 192 bytes of PRF output in two SHAKE256 blocks: CBD runs on the first block's
/// whole 24-byte steps right away, and keeps the rest of it (`CBD3_CARRY_WORDS` words) until
/// the second block's first bytes complete the last steps.
const CBD3_FIRST_STEPS: usize = SHAKE256_RATE / CBD3_STEP_BYTES;
const CBD3_FIRST_BYTES: usize = CBD3_FIRST_STEPS * CBD3_STEP_BYTES;
pub(crate) const CBD3_CARRY_WORDS: usize = (SHAKE256_RATE - CBD3_FIRST_BYTES) / 8;
/// Words of the second block eta = 3 takes.
const CBD3_SECOND_WORDS: usize = (CBD3_INPUT_BYTES - SHAKE256_RATE) / 8;
// 136 = 5 * 24 + 16: the carry is whole words, and carry + second block's part is whole
// steps that end at 192 bytes, 256 coefficients.
const _: () = {
    assert!((SHAKE256_RATE - CBD3_FIRST_BYTES).is_multiple_of(8));
    assert!((CBD3_INPUT_BYTES - SHAKE256_RATE).is_multiple_of(8));
    assert!((8 * (CBD3_CARRY_WORDS + CBD3_SECOND_WORDS)).is_multiple_of(CBD3_STEP_BYTES));
    assert!(CBD3_INPUT_BYTES / CBD3_STEP_BYTES * CBD3_STEP_COEFFS == N);
};

/// The last padding bit of pad10*1, in the last byte of the rate.
const PAD_LAST: u8 = 0x80;

/// One block on its way into a lane, words in little-endian byte order (erased on drop).
pub(crate) struct Block {
    words: [u64; MAX_RATE_WORDS],
}

impl Block {
    pub(crate) const fn new() -> Self {
        Self {
            words: [0; MAX_RATE_WORDS],
        }
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        self.words.as_mut_slice().zeroize();
    }
}

impl<'j, 'a> Lane<'j, 'a> {
    pub(crate) fn new(job: &'j mut Job<'a>) -> Self {
        Self {
            job,
            absorbed: 0,
            padded: false,
            filled: 0,
        }
    }

    /// Whether the last block is in: the state after the next permutation is output.
    #[inline(always)]
    pub(crate) fn squeezing(&self) -> bool {
        self.padded
    }

    /// Words of the rate.
    #[inline(always)]
    pub(crate) fn rate_words(&self) -> usize {
        self.job.rate() / 8
    }

    /// The next block to absorb, `None` once the message and its padding are in (the lane
    /// is squeezing): `(bytes, pad)`, XOR `bytes` (whole words) into the first words of the
    /// state and `pad` (the padding's last bit, or 0) into its last rate word. `bytes` is a
    /// whole block of the message itself where it lies in one part (no copy), else the
    /// words [`Self::absorb_block`] writes to `block`.
    #[inline(always)]
    pub(crate) fn next_block<'w>(&mut self, block: &'w mut Block) -> Option<(&'w [u8], u64)>
    where
        'a: 'w,
    {
        // Checked here, inlined into the round: a squeezing lane costs no call.
        if self.padded {
            return None;
        }
        if let Some(bytes) = self.whole_block() {
            return Some((bytes, 0));
        }
        let (n, pad) = self.absorb_block(&mut block.words);
        Some((block.words[..n].as_bytes(), pad))
    }

    /// The message's next block, if it is whole and inside one part of a message held
    /// outside the job; the lane moves past it.
    #[inline(always)]
    fn whole_block(&mut self) -> Option<&'a [u8]> {
        let rate = self.job.rate();
        let [first, second] = self.job.external_message()?;
        let at = self.absorbed;
        let block = if at + rate <= first.len() {
            &first[at..at + rate]
        } else if at >= first.len() && at - first.len() + rate <= second.len() {
            &second[at - first.len()..at - first.len() + rate]
        } else {
            return None;
        };
        self.absorbed += rate;
        if let Job::Absorb { blocks, .. } = &*self.job {
            // Whole blocks, no padding: the job is done once the permutation after its
            // last block has run.
            self.padded = self.absorbed == blocks.len();
        }
        Some(block)
    }

    /// [`Self::next_block`] of a lane still absorbing, through `words` (each in little-endian
    /// byte order): returns `(n, pad)`, XOR `words[..n]` into the first words of the state
    /// and `pad` into its last rate word.
    ///
    /// A full block is `n = rate / 8` words and `pad = 0`. The last block holds the rest of
    /// the message and the domain byte (pad10*1's first bit included), zero-filled to the
    /// end of their last word, and `pad` carries pad10*1's final bit: everything after
    /// word `n` is zero, so it is not written. The two padding bytes land on the same byte
    /// (XORed together) when the message ends one byte before the end of the rate.
    #[inline(never)]
    fn absorb_block(&mut self, words: &mut [u64; MAX_RATE_WORDS]) -> (usize, u64) {
        // The short inputs built into the job, whole in one padded block: straight to
        // words (a 34-byte seed, a 32-byte key and a nonce byte). The others are held
        // outside the job.
        let message = match &*self.job {
            Job::SampleNtt { seed, .. }
            | Job::FedSampleNtt { seed, .. }
            | Job::RejNttPoly { seed, .. } => {
                // Four words, then the last two bytes and the domain byte.
                const { assert!(SAMPLE_NTT_SEED_BYTES == 34) };
                for (w, chunk) in words.iter_mut().zip(seed.as_chunks::<8>().0) {
                    *w = u64::from_ne_bytes(*chunk);
                }
                words[4] = (u64::from(seed[32])
                    | u64::from(seed[33]) << 8
                    | u64::from(SHAKE_DOMAIN) << 16)
                    .to_le();
                self.absorbed = seed.len();
                self.padded = true;
                return (5, u64::from(PAD_LAST) << 56);
            }
            Job::Noise {
                sigma, nonce: [n], ..
            }
            | Job::FedNoise {
                sigma, nonce: [n], ..
            } => {
                // Four words (the 32-byte key), then the nonce and the domain byte.
                for (w, chunk) in words.iter_mut().zip(sigma.as_chunks::<8>().0) {
                    *w = u64::from_ne_bytes(*chunk);
                }
                words[4] = (u64::from(*n) | u64::from(SHAKE_DOMAIN) << 8).to_le();
                self.absorbed = sigma.len() + 1;
                self.padded = true;
                return (5, u64::from(PAD_LAST) << 56);
            }
            Job::Hash32 { message, .. }
            | Job::Hash64 { message, .. }
            | Job::Xof { message, .. } => *message,
            // `whole_block` takes every block of an `Absorb` job (one part, whole blocks);
            // this path handles them all the same.
            Job::Absorb { blocks, .. } => [*blocks, &[]],
        };
        let rate = self.job.rate();
        let left = message[0].len() + message[1].len() - self.absorbed;
        let taken = left.min(rate);
        // Word by word: the lanes' XOR loads these words right after (8-byte stores
        // forward to 8-byte loads; a `memcpy`'s wide stores made them wait).
        for (i, word) in words[..taken / 8].iter_mut().enumerate() {
            *word = message_word(message, self.absorbed + 8 * i, 8).to_le();
        }
        let start = self.absorbed;
        self.absorbed += taken;
        if let Job::Absorb { blocks, .. } = &*self.job {
            // Whole blocks, no padding: the sponge goes on elsewhere. The job is done once
            // the permutation after its last block has run.
            debug_assert_eq!(taken, rate, "whole blocks");
            self.padded = self.absorbed == blocks.len();
            return (rate / 8, 0);
        }
        if taken == rate {
            return (rate / 8, 0);
        }
        // The last word: the message's last bytes, then the domain byte, then zeros.
        let n = taken / 8 + 1;
        let tail = taken % 8;
        words[n - 1] = (message_word(message, start + 8 * (n - 1), tail)
            | u64::from(self.job.domain()) << (8 * tail))
            .to_le();
        self.padded = true;
        (n, u64::from(PAD_LAST) << 56)
    }

    /// Takes the output of one permutation (`state`: the lane's whole state, in a buffer of
    /// its own, each word in little-endian byte order, so that its bytes are the state's);
    /// returns whether the job is done. Only called once squeezing. `carry` holds eta = 3
    /// PRF output from the first block to the second. `msf` is the scheduler's
    /// misspeculation flag, which the parsers update and use (`crate::speculation`).
    ///
    /// The output is parsed straight from `state`: the scheduler writes every lane's copy
    /// before consuming any (a wide load of bytes that narrow stores wrote a few cycles
    /// earlier cannot be forwarded from the store buffer and waits for the stores to reach
    /// the cache).
    #[inline(always)]
    pub(crate) fn consume<K: Kernels>(
        &mut self,
        kernels: K,
        state: &[u64; WORDS],
        carry: &mut [u64; CBD3_CARRY_WORDS],
        feeding: Option<&mut Feeding<'_>>,
        msf: &mut Msf,
    ) -> bool {
        debug_assert!(self.padded);
        let bytes = state.as_bytes();
        match &mut *self.job {
            Job::FedSampleNtt { slot, .. } => {
                // Fed jobs run only with their feeding (a `FeedingBatch`).
                let feeding = feeding.expect("fed jobs run with their feed");
                let block = bytes
                    .first_chunk::<SHAKE128_RATE>()
                    .expect("the rate is inside the state");
                self.filled =
                    kernels.parse_sample_ntt(block, feeding.output(*slot), self.filled, msf);
                feeding.progress(*slot, self.filled);
                self.filled == N
            }
            Job::FedNoise { eta, slot, .. } => {
                let (eta, slot) = (*eta, *slot);
                let feeding = feeding.expect("fed jobs run with their feed");
                let done = consume_noise(
                    kernels,
                    &mut self.filled,
                    eta,
                    state,
                    carry,
                    feeding.output(slot),
                );
                if done {
                    feeding.progress(slot, N);
                }
                done
            }
            Job::Absorb { sponge, tail, .. } => {
                for (w, b) in sponge.state_between_blocks().iter_mut().zip(state) {
                    *w = u64::from_le(*b);
                }
                // Shorter than a block, between blocks: buffered without a permutation.
                sponge.absorb(crate::keccak::PortableX1, tail);
                true
            }
            Job::Hash32 { out, .. } => {
                out.copy_from_slice(&bytes[..32]);
                true
            }
            Job::Hash64 { out, .. } => {
                // 64 bytes: 8 of the 9 rate words.
                out.copy_from_slice(&bytes[..64]);
                true
            }
            Job::SampleNtt { out, .. } => {
                let block = bytes
                    .first_chunk::<SHAKE128_RATE>()
                    .expect("the rate is inside the state");
                self.filled = kernels.parse_sample_ntt(block, out, self.filled, msf);
                self.filled == N
            }
            Job::RejNttPoly { out, .. } => {
                let block = &bytes[..SHAKE128_RATE];
                self.filled = kernels.parse_rej_ntt_poly(block, out, self.filled, msf);
                self.filled == out.len()
            }
            Job::Xof { shake, sink, .. } => sink.take_block(&bytes[..shake.rate()]),
            Job::Noise { eta, out, .. } => {
                consume_noise(kernels, &mut self.filled, *eta, state, carry, out)
            }
        }
    }
}

/// A noise job's output block: CBD into `out`; returns whether the job is done (`filled`
/// counts the blocks taken, for eta = 3). eta is public: branching on it is fine.
#[inline(always)]
fn consume_noise<K: Kernels>(
    kernels: K,
    filled: &mut usize,
    eta: Eta,
    state: &[u64; WORDS],
    carry: &mut [u64; CBD3_CARRY_WORDS],
    out: &mut [u16; N],
) -> bool {
    match eta {
        Eta::Two => {
            let block = state.as_bytes()[..CBD2_INPUT_BYTES]
                .try_into()
                .expect("128 bytes");
            kernels.cbd2(block, out);
            true
        }
        Eta::Three => {
            let first_coeffs = CBD3_FIRST_STEPS * CBD3_STEP_COEFFS;
            if *filled == 0 {
                // The first block: its whole steps now, the rest carried.
                kernels.cbd3_steps(
                    state[..CBD3_FIRST_BYTES / 8].as_bytes(),
                    &mut out[..first_coeffs],
                );
                carry.copy_from_slice(&state[CBD3_FIRST_BYTES / 8..SHAKE256_RATE / 8]);
                *filled = 1;
                return false;
            }
            // The second block: the carry and its first words make the last steps.
            let mut rest = [0u64; CBD3_CARRY_WORDS + CBD3_SECOND_WORDS];
            let (head, second) = rest.split_at_mut(CBD3_CARRY_WORDS);
            head.copy_from_slice(carry);
            second.copy_from_slice(&state[..CBD3_SECOND_WORDS]);
            kernels.cbd3_steps(rest.as_bytes(), &mut out[first_coeffs..]);
            rest.as_mut_slice().zeroize();
            carry.as_mut_slice().zeroize();
            true
        }
    }
}

/// The little-endian word of the `len` (at most 8) bytes of `parts[0] || parts[1]` from
/// `offset` (which with `len` stays inside the message), its other bytes zero.
#[inline(always)]
fn message_word(parts: [&[u8]; 2], offset: usize, len: usize) -> u64 {
    let [first, second] = parts;
    if len == 8 {
        // A whole word inside one part: one load.
        if offset + 8 <= first.len() {
            return u64::from_le_bytes(first[offset..offset + 8].try_into().expect("8 bytes"));
        }
        if offset >= first.len() {
            let at = offset - first.len();
            return u64::from_le_bytes(second[at..at + 8].try_into().expect("8 bytes"));
        }
    }
    // A last partial word, or one across the two parts: byte by byte, in a register (a
    // `memcpy` into a stack word reloaded at once waited on store forwarding).
    let mut word = 0u64;
    for k in 0..len {
        let pos = offset + k;
        let byte = if pos < first.len() {
            first[pos]
        } else {
            second[pos - first.len()]
        };
        word |= u64::from(byte) << (8 * k);
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block count of the estimate is `floor(len / rate) + 1`, exactly.
    #[test]
    fn estimated_blocks_are_exact() {
        let data = std::vec![0u8; 5000];
        let mut out = [0u8; 32];
        for len in 0..data.len() {
            let job = Job::Hash32 {
                message: [&data[..len], &[]],
                domain: SHA3_DOMAIN,
                out: &mut out,
            };
            assert_eq!(
                job.estimated_permutations(),
                len / SHA3_256_RATE + 1,
                "{len}"
            );
        }
    }
}
