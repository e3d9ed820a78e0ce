//! A multi-lane Keccak job scheduler: independent sponges of different kinds share one 4-way
//! (AVX2, AVX-512VL) or 8-way (AVX-512F) permutation.
//!
//! An operation of ML-KEM has sponges of several kinds that are independent of one another:
//! importing an encapsulation key needs the `k^2` SHAKE128 streams of A-hat *and* `H(ek)`, a
//! SHA3-256 of 800 to 1568 bytes (6 to 12 permutations, as many as three `SampleNTT`
//! streams). Run in lock step by kind, the hash would take the scalar Keccak while a lane of
//! the matrix's last 4-way group idles; here it takes a lane of the same permutations. The
//! jobs come from a [`crate::Batch`].
//!
//! # Schedule
//! Each lane runs one [`Job`] at a time: it absorbs the job's message a block
//! per permutation (padding included), then squeezes a block per permutation until the job
//! has what it needs (an `Absorb` job starts from its sponge's state, absorbs whole blocks
//! and hands the state back). A lane whose job is done takes the next job of the list, so callers
//! put the longest jobs first. On eight lanes, once at most four jobs are left, they move
//! with their states to four lanes (a 4-way permutation costs about 0.75 of an 8-way one).
//! When a single job is left running and none is waiting, it moves to the single-state
//! permutation ([`Permute::permute_single`]: the scalar one, or one lane of the AVX-512VL
//! round), which costs about what a 4-way permutation does (three idle lanes gain nothing).
//!
//! A [`crate::FeedingBatch`] adds a fed sponge: before each round it takes a free lane,
//! ahead of any waiting job, if a whole block of its message is ready (its state set into
//! the lane), absorbs one block per round while blocks are ready, and goes back to its
//! sponge when none is; the fed jobs report each parsed block to the feed, which may make
//! more of the message ready. Every round of such a batch runs on the lanes (a job alone on
//! the single-state permutation would keep the sponge out); the batch ends when its jobs
//! do, and the caller absorbs the rest of the message. On eight lanes (`run_x8_feeding`)
//! the sponge leaves its lane when the batch narrows to four and takes one of the four as
//! soon as a block is ready.
//!
//! The schedule depends only on the jobs' kinds, message lengths and, for `SampleNTT`, on
//! the XOF output of the public seed: never on secret data. Every buffer that held message
//! bytes or output, and the state, is zeroized.

use core::arch::x86_64::{
    __m256i, __m512i, __mmask8, _mm256_loadu_si256, _mm256_mask_xor_epi64,
    _mm256_permute2x128_si256, _mm256_set1_epi64x, _mm256_setzero_si256, _mm256_storeu_si256,
    _mm256_unpackhi_epi64, _mm256_unpacklo_epi64, _mm512_loadu_si512, _mm512_mask_xor_epi64,
    _mm512_set1_epi64, _mm512_setzero_si512, _mm512_shuffle_i64x2, _mm512_storeu_si512,
    _mm512_unpackhi_epi64, _mm512_unpacklo_epi64,
};

use lattice_poly_ntt::mlkem::N;
use zeroize::Zeroize;

use super::x4::{SHAKE128_RATE, SHAKE256_RATE, WORDS, keccak_f1600_x4};
use super::x4_vl::{keccak_f1600_vl_single, keccak_f1600_x4_vl};
use super::x8::keccak_f1600_x8;
use super::{SHA3_256_RATE, SHA3_512_RATE, SHA3_DOMAIN, SHAKE_DOMAIN, permute_bmi};
use crate::batch::{Feeding, Job};
use crate::cbd::{CBD2_INPUT_BYTES, CBD3_INPUT_BYTES, Eta};
use crate::sample_ntt::SAMPLE_NTT_SEED_BYTES;
use crate::simd::cbd;
use crate::simd::rej::Parser;

/// Words in the largest rate (SHAKE128).
const MAX_RATE_WORDS: usize = SHAKE128_RATE / 8;

// eta = 2 takes its PRF output from one block; eta = 3 from the first block and part of a
// second, so it collects them in the lane.
const _: () = assert!(CBD2_INPUT_BYTES <= SHAKE256_RATE);
const _: () = assert!(SHAKE256_RATE < CBD3_INPUT_BYTES && CBD3_INPUT_BYTES <= 2 * SHAKE256_RATE);

/// The last padding bit of pad10*1, in the last byte of the rate.
const PAD_LAST: u8 = 0x80;

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

/// The progress of one job in a lane.
struct Lane<'j, 'a> {
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

/// eta = 3's 192 bytes of PRF output in two SHAKE256 blocks: CBD runs on the first block's
/// whole 24-byte steps right away, and keeps the rest of it (`CBD3_CARRY_WORDS` words)
/// until the second block's first bytes complete the last steps.
const CBD3_FIRST_STEPS: usize = SHAKE256_RATE / cbd::CBD3_STEP_BYTES;
const CBD3_FIRST_BYTES: usize = CBD3_FIRST_STEPS * cbd::CBD3_STEP_BYTES;
const CBD3_CARRY_WORDS: usize = (SHAKE256_RATE - CBD3_FIRST_BYTES) / 8;
/// Words of the second block eta = 3 takes.
const CBD3_SECOND_WORDS: usize = (CBD3_INPUT_BYTES - SHAKE256_RATE) / 8;
// 136 = 5 * 24 + 16: the carry is whole words, and carry + second block's part is whole
// steps that end at 192 bytes, 256 coefficients.
const _: () = {
    assert!((SHAKE256_RATE - CBD3_FIRST_BYTES).is_multiple_of(8));
    assert!((CBD3_INPUT_BYTES - SHAKE256_RATE).is_multiple_of(8));
    assert!((8 * (CBD3_CARRY_WORDS + CBD3_SECOND_WORDS)).is_multiple_of(cbd::CBD3_STEP_BYTES));
    assert!(CBD3_INPUT_BYTES / cbd::CBD3_STEP_BYTES * cbd::CBD3_STEP_COEFFS == N);
};

impl<'j, 'a> Lane<'j, 'a> {
    fn new(job: &'j mut Job<'a>) -> Self {
        Self {
            job,
            absorbed: 0,
            padded: false,
            filled: 0,
        }
    }

    /// Words of the rate.
    fn rate_words(&self) -> usize {
        self.job.rate() / 8
    }

    /// The next block to absorb, `None` once the message and its padding are in (the lane
    /// is squeezing): `(bytes, pad)`, XOR `bytes` (`8 n` of them) into the first words of
    /// the state and `pad` (the padding's last bit, or 0) into its last rate word. `bytes`
    /// is a whole block of the message itself where it lies in one part (no copy), else
    /// the words [`Self::absorb_block`] writes to `words`.
    #[inline(always)]
    fn next_block<'w>(&mut self, words: &'w mut [u64; MAX_RATE_WORDS]) -> Option<(&'w [u8], u64)>
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
        let (n, pad) = self.absorb_block(words);
        Some((bytes_of(&words[..n]), pad))
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

    /// [`Self::next_block`] of a lane still absorbing, through `words`: returns `(n, pad)`,
    /// XOR `words[..n]` into the first words of the state and `pad` into its last rate
    /// word.
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
                    *w = u64::from_le_bytes(*chunk);
                }
                words[4] =
                    u64::from(seed[32]) | u64::from(seed[33]) << 8 | u64::from(SHAKE_DOMAIN) << 16;
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
                    *w = u64::from_le_bytes(*chunk);
                }
                words[4] = u64::from(*n) | u64::from(SHAKE_DOMAIN) << 8;
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
            *word = message_word(message, self.absorbed + 8 * i, 8);
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
        words[n - 1] = message_word(message, start + 8 * (n - 1), tail)
            | u64::from(self.job.domain()) << (8 * tail);
        self.padded = true;
        (n, u64::from(PAD_LAST) << 56)
    }

    /// Takes the output of one permutation (`state`: the lane's whole state, in a buffer of
    /// its own); returns whether the job is done. Only called once `padded`. `noise`
    /// carries eta = 3 PRF output from the first block to the second.
    ///
    /// The output is parsed straight from `state`. [`Lanes::round`] writes every lane's copy
    /// before consuming any: a wide load of bytes that narrow stores wrote a few cycles
    /// earlier cannot be forwarded from the store buffer and waits for the stores to reach
    /// the cache (measured: the VBMI2 parser's first load of each block held ~20 % of its
    /// time). The scalar path ([`Self::finish_scalar`]) parses the permutation's own state.
    #[target_feature(enable = "avx2")]
    fn consume<const W: usize, P: Permute<W>>(
        &mut self,
        parser: Parser,
        state: &[u64; WORDS],
        noise: &mut [u64; CBD3_CARRY_WORDS],
        feeding: Option<&mut Feeding<'_>>,
    ) -> bool {
        debug_assert!(self.padded);
        match &mut *self.job {
            Job::FedSampleNtt { slot, .. } => {
                // Fed jobs run only with their feeding (a `FeedingBatch`).
                let feeding = feeding.expect("fed jobs run with their feed");
                let block = bytes_of(&state[..SHAKE128_RATE / 8]);
                self.filled = parser.parse(block, feeding.output(*slot), self.filled);
                feeding.progress(*slot, self.filled);
                self.filled == N
            }
            Job::FedNoise { eta, slot, .. } => {
                let (eta, slot) = (*eta, *slot);
                let feeding = feeding.expect("fed jobs run with their feed");
                let done = consume_noise::<W, P>(
                    &mut self.filled,
                    eta,
                    state,
                    noise,
                    feeding.output(slot),
                );
                if done {
                    feeding.progress(slot, N);
                }
                done
            }
            Job::Absorb { sponge, tail, .. } => {
                *sponge.state_between_blocks() = *state;
                // Shorter than a block, between blocks: buffered without a permutation.
                sponge.absorb(lattice_poly_ntt::backend::Portable, tail);
                true
            }
            Job::Hash32 { out, .. } => {
                for (chunk, w) in out.as_chunks_mut::<8>().0.iter_mut().zip(state) {
                    *chunk = w.to_le_bytes();
                }
                true
            }
            Job::Hash64 { out, .. } => {
                // 64 bytes: 8 of the 9 rate words.
                for (chunk, w) in out.as_chunks_mut::<8>().0.iter_mut().zip(state) {
                    *chunk = w.to_le_bytes();
                }
                true
            }
            Job::SampleNtt { out, .. } => {
                let block = bytes_of(&state[..SHAKE128_RATE / 8]);
                self.filled = parser.parse(block, out, self.filled);
                self.filled == N
            }
            Job::RejNttPoly { out, .. } => {
                let block = bytes_of(&state[..SHAKE128_RATE / 8]);
                self.filled = crate::expand_a::parse_three_byte_candidates(block, out, self.filled);
                self.filled == N
            }
            Job::Xof { shake, sink, .. } => sink.take_block(bytes_of(&state[..shake.rate() / 8])),
            Job::Noise { eta, out, .. } => {
                consume_noise::<W, P>(&mut self.filled, *eta, state, noise, out)
            }
        }
    }

    /// Runs the job to its end on `P`'s single-state permutation, from `state` (the lane's
    /// state, taken out of the multi-way one after the last multi-way permutation).
    #[target_feature(enable = "avx2")]
    fn finish_scalar<const W: usize, P: Permute<W>>(
        &mut self,
        parser: Parser,
        state: &mut [u64; WORDS],
        words: &mut [u64; MAX_RATE_WORDS],
        noise: &mut [u64; CBD3_CARRY_WORDS],
    ) {
        loop {
            let rate_words = self.rate_words();
            if let Some((bytes, pad)) = self.next_block(words) {
                for (s, w) in state.iter_mut().zip(bytes.as_chunks::<8>().0) {
                    *s ^= u64::from_le_bytes(*w);
                }
                state[rate_words - 1] ^= pad;
            }
            // SAFETY: the scheduler runs `P` only where the CPU has its instruction set.
            unsafe { P::permute_single(state) };
            // Never a fed job: a batch with a feed runs every round on the lanes.
            if self.padded && self.consume::<W, P>(parser, state, noise, None) {
                return;
            }
        }
    }
}

/// A noise job's output block: CBD into `out`; returns whether the job is done (`filled`
/// counts the blocks taken, for eta = 3). eta is public: branching on it is fine.
#[target_feature(enable = "avx2")]
fn consume_noise<const W: usize, P: Permute<W>>(
    filled: &mut usize,
    eta: Eta,
    state: &[u64; WORDS],
    noise: &mut [u64; CBD3_CARRY_WORDS],
    out: &mut [u16; N],
) -> bool {
    match eta {
        Eta::Two => {
            let block = bytes_of(&state[..CBD2_INPUT_BYTES / 8]);
            // SAFETY: the scheduler runs `P` only where the CPU has its instruction set.
            unsafe { P::cbd2(block.try_into().expect("128 bytes"), out) };
            true
        }
        Eta::Three => {
            let first_coeffs = CBD3_FIRST_STEPS * cbd::CBD3_STEP_COEFFS;
            if *filled == 0 {
                // The first block: its whole steps now, the rest carried.
                cbd::cbd3_steps_avx2(
                    bytes_of(&state[..CBD3_FIRST_BYTES / 8]),
                    &mut out[..first_coeffs],
                );
                noise.copy_from_slice(&state[CBD3_FIRST_BYTES / 8..SHAKE256_RATE / 8]);
                *filled = 1;
                return false;
            }
            // The second block: the carry and its first words make the last steps.
            let mut rest = [0u64; CBD3_CARRY_WORDS + CBD3_SECOND_WORDS];
            let (carry, second) = rest.split_at_mut(CBD3_CARRY_WORDS);
            carry.copy_from_slice(noise);
            second.copy_from_slice(&state[..CBD3_SECOND_WORDS]);
            cbd::cbd3_steps_avx2(bytes_of(&rest), &mut out[first_coeffs..]);
            rest.as_mut_slice().zeroize();
            noise.as_mut_slice().zeroize();
            true
        }
    }
}

/// The bytes of `words` in memory order, which is little-endian on x86-64: byte `8i + k`
/// is byte `k` of `words[i].to_le_bytes()`, as Keccak's byte order wants.
fn bytes_of(words: &[u64]) -> &[u8] {
    // SAFETY: the bytes of the words' memory, read-only while `words` is borrowed; `u8`
    // needs no alignment and every bit pattern is a valid `u8`.
    unsafe { core::slice::from_raw_parts(words.as_ptr().cast::<u8>(), 8 * words.len()) }
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

/// One block on its way in or out of a lane (erased on drop).
struct Block {
    words: [u64; MAX_RATE_WORDS],
}

impl Drop for Block {
    fn drop(&mut self) {
        self.words.as_mut_slice().zeroize();
    }
}

/// `W` interleaved Keccak states as plain words: `words[i][l]` is word `i` of state `l`
/// (the layout of the `W`-way permutation's registers).
struct StateX<const W: usize> {
    words: [[u64; W]; WORDS],
}

impl<const W: usize> StateX<W> {
    /// Clears state `lane` for a new sponge.
    fn clear_lane(&mut self, lane: usize) {
        for word in &mut self.words {
            word[lane] = 0;
        }
    }

    /// Sets state `lane` to `words`.
    fn set_lane(&mut self, lane: usize, words: &[u64; WORDS]) {
        for (word, w) in self.words.iter_mut().zip(words) {
            word[lane] = *w;
        }
    }

    /// Copies the first `out.len()` words of state `lane` to `out`.
    fn read_lane(&self, lane: usize, out: &mut [u64]) {
        for (o, word) in out.iter_mut().zip(&self.words) {
            *o = word[lane];
        }
    }

    /// Keccak-f\[1600\] on all `W` states; `out[l]` gets a copy of state `l` if
    /// `P::TRANSPOSES`.
    #[inline]
    fn permute<P: Permute<W>>(&mut self, out: &mut [[u64; WORDS]; W]) {
        // SAFETY: `P` is chosen by the caller of `run_with`, whose contract is that the CPU
        // has its features.
        unsafe { P::permute(&mut self.words, out) };
    }
}

impl<const W: usize> Drop for StateX<W> {
    fn drop(&mut self) {
        self.words.as_flattened_mut().zeroize();
    }
}

/// A `W`-way Keccak-f\[1600\] on `W` interleaved states (word `i` of state `l` at
/// `words[i][l]`).
pub(crate) trait Permute<const W: usize> {
    /// Whether [`Self::permute`] writes `out`. The AVX2 one does not: with AVX2's 16 ymm
    /// registers a transposition spills, and the spill slots kept PRF output in the dead
    /// stack (`ct-harness residue` found 16- and 32-byte pieces); the scheduler then copies
    /// the squeezing lanes out word by word ([`StateX::read_lane`]).
    const TRANSPOSES: bool = true;

    /// The single-state permutation a job left alone finishes on (the scalar BMI1/BMI2
    /// one; with AVX-512VL, one lane of the four-way round, which is faster: see
    /// `super::x4_vl::keccak_f1600_vl_single`).
    ///
    /// # Safety
    /// The CPU has the instruction set of the implementation.
    #[inline(always)]
    unsafe fn permute_single(state: &mut [u64; WORDS]) {
        // SAFETY: this module runs only under an AVX2 token, which implies BMI1/BMI2.
        unsafe { permute_bmi(state) }
    }

    /// Permutes the `W` states and, if [`Self::TRANSPOSES`], writes a copy of each, state
    /// `l` to `out[l]` (transposed in registers: 8 by 8 or 4 by 4 words per step, instead of
    /// `25 W` loads and stores).
    ///
    /// # Safety
    /// The CPU has the instruction set of the implementation.
    unsafe fn permute(words: &mut [[u64; W]; WORDS], out: &mut [[u64; WORDS]; W]);

    /// eta = 2's CBD: the AVX2 kernel (the default), or on the AVX-512 permutations'
    /// CPUs the zmm one (`cbd::cbd2_avx512`, twice as wide).
    ///
    /// # Safety
    /// The CPU has the instruction set of the implementation.
    #[inline(always)]
    unsafe fn cbd2(bytes: &[u8; CBD2_INPUT_BYTES], out: &mut [u16; N]) {
        // SAFETY: this module runs only under an AVX2 token.
        unsafe { cbd::cbd2_avx2(bytes, out) }
    }

    /// XORs `block` into the first words of state `lane`: word by word (the AVX2 default),
    /// or, with AVX-512, a masked XOR of the word broadcast into each row (LLVM vectorizes
    /// the word-by-word loop into a `vpscatterqq`, microcoded and slow on AMD).
    ///
    /// # Safety
    /// The CPU has the instruction set of the implementation.
    #[inline(always)]
    unsafe fn xor_lane(words: &mut [[u64; W]; WORDS], lane: usize, block: &[u8]) {
        for (word, b) in words.iter_mut().zip(block.as_chunks::<8>().0) {
            word[lane] ^= u64::from_le_bytes(*b);
        }
    }
}

/// The AVX2 4-way permutation.
pub(crate) struct X4Avx2;

impl Permute<4> for X4Avx2 {
    const TRANSPOSES: bool = false;

    #[inline]
    unsafe fn permute(words: &mut [[u64; 4]; WORDS], _: &mut [[u64; WORDS]; 4]) {
        // SAFETY: the caller guarantees AVX2.
        unsafe { permute_x4_avx2(words) }
    }
}

/// The AVX-512VL 4-way permutation (ternary logic, native rotations).
pub(crate) struct X4Vl;

impl Permute<4> for X4Vl {
    #[inline(always)]
    unsafe fn cbd2(bytes: &[u8; CBD2_INPUT_BYTES], out: &mut [u16; N]) {
        // SAFETY: the caller guarantees AVX-512F/BW (the AVX-512 token's features).
        unsafe { cbd::cbd2_avx512(bytes, out) }
    }

    #[inline(always)]
    unsafe fn permute_single(state: &mut [u64; WORDS]) {
        // SAFETY: the caller guarantees AVX-512F/VL.
        unsafe { keccak_f1600_vl_single(state) }
    }

    #[inline]
    unsafe fn permute(words: &mut [[u64; 4]; WORDS], out: &mut [[u64; WORDS]; 4]) {
        // SAFETY: the caller guarantees AVX2 and AVX-512F/VL.
        unsafe { permute_x4_vl(words, out) }
    }

    #[inline(always)]
    unsafe fn xor_lane(words: &mut [[u64; 4]; WORDS], lane: usize, block: &[u8]) {
        // SAFETY: the caller guarantees AVX-512F/VL.
        unsafe { xor_lane_x4_vl(words, lane, block) }
    }
}

/// [`Permute::xor_lane`] on four lanes with AVX-512VL: a masked XOR per row.
///
/// # Safety
/// The CPU has AVX-512F/VL.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512vl")]
unsafe fn xor_lane_x4_vl(words: &mut [[u64; 4]; WORDS], lane: usize, block: &[u8]) {
    // lane < 4: the mask selects it.
    let mask: __mmask8 = 1 << lane;
    for (row, b) in words.iter_mut().zip(block.as_chunks::<8>().0) {
        // SAFETY: `row` is 32 readable and writable bytes; the accesses are unaligned.
        unsafe {
            let r = _mm256_loadu_si256(row.as_ptr().cast());
            let b = i64::from_le_bytes(*b);
            let r = _mm256_mask_xor_epi64(r, mask, r, _mm256_set1_epi64x(b));
            _mm256_storeu_si256(row.as_mut_ptr().cast(), r);
        }
    }
}

/// The AVX-512F 8-way permutation on zmm registers.
pub(crate) struct X8;

impl Permute<8> for X8 {
    #[inline(always)]
    unsafe fn cbd2(bytes: &[u8; CBD2_INPUT_BYTES], out: &mut [u16; N]) {
        // SAFETY: the caller guarantees AVX-512F/BW (the AVX-512 token's features).
        unsafe { cbd::cbd2_avx512(bytes, out) }
    }

    #[inline(always)]
    unsafe fn permute_single(state: &mut [u64; WORDS]) {
        // SAFETY: the 8-way permutation runs only where the scheduler's caller guarantees
        // AVX-512F/VL (`run_x8`).
        unsafe { keccak_f1600_vl_single(state) }
    }

    #[inline]
    unsafe fn permute(words: &mut [[u64; 8]; WORDS], out: &mut [[u64; WORDS]; 8]) {
        // SAFETY: the caller guarantees AVX-512F.
        unsafe { permute_x8(words, out) }
    }

    #[inline(always)]
    unsafe fn xor_lane(words: &mut [[u64; 8]; WORDS], lane: usize, block: &[u8]) {
        // SAFETY: the caller guarantees AVX-512F.
        unsafe { xor_lane_x8(words, lane, block) }
    }
}

/// [`Permute::xor_lane`] on eight lanes: a masked XOR per row (the word-by-word XOR waited
/// on the permutation's 64-byte stores of the same rows).
///
/// # Safety
/// The CPU has AVX-512F.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn xor_lane_x8(words: &mut [[u64; 8]; WORDS], lane: usize, block: &[u8]) {
    // lane < 8: the mask selects it.
    let mask: __mmask8 = 1 << lane;
    for (row, b) in words.iter_mut().zip(block.as_chunks::<8>().0) {
        // SAFETY: `row` is 64 readable and writable bytes; the accesses are unaligned.
        unsafe {
            let r = _mm512_loadu_si512(row.as_ptr().cast());
            let b = i64::from_le_bytes(*b);
            let r = _mm512_mask_xor_epi64(r, mask, r, _mm512_set1_epi64(b));
            _mm512_storeu_si512(row.as_mut_ptr().cast(), r);
        }
    }
}

/// The four states of `words` in ymm registers (word `i` of the four in `regs[i]`).
///
/// # Safety
/// The CPU has AVX2. (Not a `target_feature` function: it inlines into the permutations,
/// which are.)
#[inline(always)]
unsafe fn load_x4(words: &[[u64; 4]; WORDS]) -> [__m256i; WORDS] {
    // A plain loop rather than `core::array::from_fn` (whose closure is not always
    // inlined under AVX2).
    // SAFETY: the caller guarantees AVX2.
    let mut regs = [unsafe { _mm256_setzero_si256() }; WORDS];
    for (reg, word) in regs.iter_mut().zip(words.iter()) {
        // SAFETY: `word` is 32 readable bytes; the load is unaligned; AVX2 as above.
        *reg = unsafe { _mm256_loadu_si256(word.as_ptr().cast()) };
    }
    regs
}

/// Stores `regs` back to `words` (the inverse of [`load_x4`]).
///
/// # Safety
/// As for [`load_x4`].
#[inline(always)]
unsafe fn store_x4(regs: &[__m256i; WORDS], words: &mut [[u64; 4]; WORDS]) {
    for (word, reg) in words.iter_mut().zip(regs) {
        // SAFETY: `word` is 32 writable bytes; the store is unaligned; the caller
        // guarantees AVX2.
        unsafe { _mm256_storeu_si256(word.as_mut_ptr().cast(), *reg) };
    }
}

/// The AVX2 4-way permutation of the states in `words` (the caller copies the lanes out:
/// see `Permute::TRANSPOSES`).
///
/// # Safety
/// The CPU has AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn permute_x4_avx2(words: &mut [[u64; 4]; WORDS]) {
    // SAFETY: this function's `target_feature`.
    let mut regs = unsafe { load_x4(words) };
    keccak_f1600_x4(&mut regs);
    // SAFETY: as above.
    unsafe { store_x4(&regs, words) };
    regs.zeroize();
}

/// The AVX-512VL 4-way permutation of the states in `words`, which also stores them
/// transposed to `out`. Compiled with AVX-512VL itself, so that the permutation inlines and
/// the state stays in registers from the loads to the stores (called from an AVX2-only
/// function, the permutation stayed a call, and its state went through memory twice).
///
/// # Safety
/// The CPU has AVX2 and AVX-512F/VL.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512vl")]
unsafe fn permute_x4_vl(words: &mut [[u64; 4]; WORDS], out: &mut [[u64; WORDS]; 4]) {
    // SAFETY: this function's `target_feature`.
    let mut regs = unsafe { load_x4(words) };
    keccak_f1600_x4_vl(&mut regs);
    // SAFETY: as above.
    unsafe { store_x4(&regs, words) };
    // Transposed in registers (AVX-512VL has 32 ymm registers: nothing spills).
    for (first, rows) in regs.as_chunks::<4>().0.iter().enumerate() {
        let [r0, r1, r2, r3] = *rows;
        let (a0, a1) = (_mm256_unpacklo_epi64(r0, r1), _mm256_unpackhi_epi64(r0, r1));
        let (a2, a3) = (_mm256_unpacklo_epi64(r2, r3), _mm256_unpackhi_epi64(r2, r3));
        // Lane l gets [r0[l], r1[l], r2[l], r3[l]].
        let lanes: [__m256i; 4] = [
            _mm256_permute2x128_si256::<0x20>(a0, a2),
            _mm256_permute2x128_si256::<0x20>(a1, a3),
            _mm256_permute2x128_si256::<0x31>(a0, a2),
            _mm256_permute2x128_si256::<0x31>(a1, a3),
        ];
        for (o, lane) in out.iter_mut().zip(lanes) {
            let dst = &mut o[4 * first..4 * first + 4];
            // SAFETY: `dst` is 32 writable bytes; the store is unaligned.
            unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), lane) };
        }
    }
    for (o, w) in out.iter_mut().zip(words[WORDS - 1]) {
        o[WORDS - 1] = w;
    }
    regs.zeroize();
}

/// `vshufi64x2` selectors: the 128-bit blocks `[a.0, a.2, b.0, b.2]` of operands a, b, and
/// `[a.1, a.3, b.1, b.3]`.
const EVEN: i32 = 0b10_00_10_00;
const ODD: i32 = 0b11_01_11_01;

/// Loads eight states into zmm registers, permutes them, stores them, and stores them
/// transposed to `out`.
#[inline]
#[target_feature(enable = "avx512f")]
fn permute_x8(words: &mut [[u64; 8]; WORDS], out: &mut [[u64; WORDS]; 8]) {
    let mut regs: [__m512i; WORDS] = [_mm512_setzero_si512(); WORDS];
    for (reg, word) in regs.iter_mut().zip(words.iter()) {
        // SAFETY: `word` is 64 readable bytes; the load is unaligned.
        *reg = unsafe { _mm512_loadu_si512(word.as_ptr().cast()) };
    }
    keccak_f1600_x8(&mut regs);
    for (word, reg) in words.iter_mut().zip(regs) {
        // SAFETY: `word` is 64 writable bytes; the store is unaligned.
        unsafe { _mm512_storeu_si512(word.as_mut_ptr().cast(), reg) };
    }
    for (first, rows) in regs.as_chunks::<8>().0.iter().enumerate() {
        let [r0, r1, r2, r3, r4, r5, r6, r7] = *rows;
        // a[2j] = [r(2j)[0] r(2j+1)[0] | r(2j)[2] r(2j+1)[2] | .. 4 .. | .. 6 ..], a[2j+1]
        // the same for the odd words.
        let a = [
            _mm512_unpacklo_epi64(r0, r1),
            _mm512_unpackhi_epi64(r0, r1),
            _mm512_unpacklo_epi64(r2, r3),
            _mm512_unpackhi_epi64(r2, r3),
            _mm512_unpacklo_epi64(r4, r5),
            _mm512_unpackhi_epi64(r4, r5),
            _mm512_unpacklo_epi64(r6, r7),
            _mm512_unpackhi_epi64(r6, r7),
        ];
        // b[0] = [r0[0] r1[0] | r0[4] r1[4] | r2[0] r3[0] | r2[4] r3[4]], b[1]: words 2, 6;
        // b[2]: words 1, 5; b[3]: words 3, 7; b[4..8] the same for rows 4..8.
        let b = [
            _mm512_shuffle_i64x2::<EVEN>(a[0], a[2]),
            _mm512_shuffle_i64x2::<ODD>(a[0], a[2]),
            _mm512_shuffle_i64x2::<EVEN>(a[1], a[3]),
            _mm512_shuffle_i64x2::<ODD>(a[1], a[3]),
            _mm512_shuffle_i64x2::<EVEN>(a[4], a[6]),
            _mm512_shuffle_i64x2::<ODD>(a[4], a[6]),
            _mm512_shuffle_i64x2::<EVEN>(a[5], a[7]),
            _mm512_shuffle_i64x2::<ODD>(a[5], a[7]),
        ];
        // Lane l gets [r0[l], .., r7[l]].
        let lanes = [
            _mm512_shuffle_i64x2::<EVEN>(b[0], b[4]),
            _mm512_shuffle_i64x2::<EVEN>(b[2], b[6]),
            _mm512_shuffle_i64x2::<EVEN>(b[1], b[5]),
            _mm512_shuffle_i64x2::<EVEN>(b[3], b[7]),
            _mm512_shuffle_i64x2::<ODD>(b[0], b[4]),
            _mm512_shuffle_i64x2::<ODD>(b[2], b[6]),
            _mm512_shuffle_i64x2::<ODD>(b[1], b[5]),
            _mm512_shuffle_i64x2::<ODD>(b[3], b[7]),
        ];
        for (o, lane) in out.iter_mut().zip(lanes) {
            let dst = &mut o[8 * first..8 * first + 8];
            // SAFETY: `dst` is 64 writable bytes; the store is unaligned.
            unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), lane) };
        }
    }
    for (o, w) in out.iter_mut().zip(words[WORDS - 1]) {
        o[WORDS - 1] = w;
    }
    regs.zeroize();
}

/// Runs every job of `jobs` on the AVX2 permutation (see [`run_with`]).
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(crate) fn run<'j, 'a: 'j>(jobs: impl IntoIterator<Item = &'j mut Job<'a>>) {
    // SAFETY: this function's `target_feature` is `X4Avx2`'s.
    unsafe { run_with::<4, X4Avx2>(jobs, Parser::Avx2, None) };
}

/// Runs every job of `jobs` on the AVX2 permutation with `feeding`'s sponge in a lane
/// whenever a block of its message is ready (see [`crate::FeedingBatch`]).
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(crate) fn run_feeding<'j, 'a: 'j>(
    jobs: impl IntoIterator<Item = &'j mut Job<'a>>,
    feeding: &mut Feeding<'_>,
) {
    // SAFETY: this function's `target_feature` is `X4Avx2`'s.
    unsafe { run_with::<4, X4Avx2>(jobs, Parser::Avx2, Some(feeding)) };
}

/// Runs every job of `jobs` on the AVX-512VL permutation (see [`run_with`]), parsing
/// `SampleNTT` candidates with `parser`.
///
/// # Safety
/// The CPU has AVX2, BMI1/2 and AVX-512F/VL/BW (the AVX-512 token's features).
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline(never)]
pub(crate) unsafe fn run_vl<'j, 'a: 'j>(
    jobs: impl IntoIterator<Item = &'j mut Job<'a>>,
    parser: Parser,
) {
    // SAFETY: this function's `target_feature` covers `X4Vl`'s; the caller's guarantee.
    unsafe { run_with::<4, X4Vl>(jobs, parser, None) };
}

/// [`run_vl`] with `feeding`'s sponge in a lane whenever a block of its message is ready
/// (see [`crate::FeedingBatch`]).
///
/// # Safety
/// The CPU has AVX2, BMI1/2 and AVX-512F/VL/BW (the AVX-512 token's features).
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline(never)]
pub(crate) unsafe fn run_vl_feeding<'j, 'a: 'j>(
    jobs: impl IntoIterator<Item = &'j mut Job<'a>>,
    parser: Parser,
    feeding: &mut Feeding<'_>,
) {
    // SAFETY: this function's `target_feature` covers `X4Vl`'s; the caller's guarantee.
    unsafe { run_with::<4, X4Vl>(jobs, parser, Some(feeding)) };
}

/// [`run_vl_feeding`] on eight zmm lanes while more jobs run than fit beside the fed sponge
/// in four, then on four AVX-512VL lanes (the sponge leaves its lane before the move and
/// takes one of the four again as soon as a block of its message is ready). With all jobs
/// running from the first round, the ones the sponge's first block depends on are done
/// sooner than on four lanes, where some of them wait for a lane.
///
/// # Safety
/// The CPU has AVX2, BMI1/2 and AVX-512F/VL/BW (the AVX-512 token's features).
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline(never)]
pub(crate) unsafe fn run_x8_feeding<'j, 'a: 'j>(
    jobs: impl IntoIterator<Item = &'j mut Job<'a>>,
    parser: Parser,
    feeding: &mut Feeding<'_>,
) {
    run_narrowing(jobs, parser, Some(feeding));
}

/// Runs every job of `jobs` on the AVX-512F 8-way permutation while more than four are
/// left, then on the 4-way AVX-512VL one (see [`run_with`]): one 8-way permutation costs
/// about 1.3 of a 4-way one (960 against 730 TSC ticks measured on an Intel Xeon guest),
/// so four lanes or fewer run cheaper on ymm. The jobs that are running move over with
/// their states.
///
/// # Safety
/// The CPU has AVX2, BMI1/2 and AVX-512F/VL/BW (the AVX-512 token's features).
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline(never)]
pub(crate) unsafe fn run_x8<'j, 'a: 'j>(
    jobs: impl IntoIterator<Item = &'j mut Job<'a>>,
    parser: Parser,
) {
    run_narrowing(jobs, parser, None);
}

/// `W` lanes: the interleaved states, the job each runs and its eta = 3 PRF output so far.
struct Lanes<'j, 'a, const W: usize> {
    /// The `SampleNTT` candidate parser.
    parser: Parser,
    state: StateX<W>,
    jobs: [Option<Lane<'j, 'a>>; W],
    /// eta = 3 PRF output carried from a lane's first block to its second.
    noise: [[u64; CBD3_CARRY_WORDS]; W],
    /// The squeezing lanes' states after a permutation, one lane per row (see
    /// [`Self::round`]).
    out: [[u64; WORDS]; W],
    /// Bit `l`: lane `l` has run a job, so its state is not the zero state it started with
    /// (`W` is at most 16, checked in [`Self::new`]).
    used: u16,
    /// The lane holding a fed sponge's state ([`crate::FeedingBatch`]), if one does: it
    /// has no job, and takes a block of the feed's message each round.
    chain: Option<usize>,
}

impl<const W: usize> Drop for Lanes<'_, '_, W> {
    fn drop(&mut self) {
        self.noise.as_flattened_mut().zeroize();
        self.out.as_flattened_mut().zeroize();
    }
}

impl<'j, 'a, const W: usize> Lanes<'j, 'a, W> {
    fn new(parser: Parser) -> Self {
        const { assert!(W <= 16) };
        Self {
            parser,
            state: StateX {
                words: [[0; W]; WORDS],
            },
            jobs: core::array::from_fn(|_| None),
            noise: [[0; CBD3_CARRY_WORDS]; W],
            out: [[0; WORDS]; W],
            used: 0,
            chain: None,
        }
    }

    /// Gives every free lane the next waiting job, if any.
    #[inline(always)]
    fn fill(&mut self, waiting: &mut impl Iterator<Item = &'j mut Job<'a>>) {
        // Kept in a register across the lanes (a narrow store and a wider reload of the
        // field in the next lane's turn do not forward).
        let mut used = self.used;
        for (l, slot) in self.jobs.iter_mut().enumerate() {
            if slot.is_none()
                && self.chain != Some(l)
                && let Some(job) = waiting.next()
            {
                match &mut *job {
                    // A sponge that has absorbed before goes on from its state.
                    Job::Absorb { sponge, .. } => {
                        self.state.set_lane(l, sponge.state_between_blocks());
                    }
                    // A fresh lane is zero already (no 25 strided stores).
                    _ if used & (1 << l) == 0 => {}
                    _ => self.state.clear_lane(l),
                }
                used |= 1 << l;
                *slot = Some(Lane::new(job));
            }
        }
        self.used = used;
    }

    /// The number of lanes with a job.
    fn running(&self) -> usize {
        self.jobs.iter().filter(|lane| lane.is_some()).count()
    }

    /// One step of every running job: its next block in, the `W`-way permutation `P`, its
    /// output out; a finished job frees its lane.
    ///
    /// # Safety
    /// The CPU has AVX2 and `P`'s instruction set. (Not a `target_feature` function, so that
    /// it inlines into the entry points, which are.)
    #[inline(always)]
    unsafe fn round<P: Permute<W>>(
        &mut self,
        block: &mut Block,
        mut feeding: Option<&mut Feeding<'_>>,
    ) {
        for (l, slot) in self.jobs.iter_mut().enumerate() {
            if let Some(lane) = slot
                && let Some((bytes, pad)) = lane.next_block(&mut block.words)
            {
                // SAFETY: the caller guarantees `P`'s instruction set.
                unsafe { P::xor_lane(&mut self.state.words, l, bytes) };
                self.state.words[lane.rate_words() - 1][l] ^= pad;
            }
        }
        // The fed sponge's next block (`chain_step` put it in a lane only with one ready).
        if let (Some(l), Some(feeding)) = (self.chain, feeding.as_deref_mut())
            && let Some(bytes) = feeding.take_block()
        {
            // SAFETY: the caller guarantees `P`'s instruction set.
            unsafe { P::xor_lane(&mut self.state.words, l, bytes) };
        }
        // Every squeezing lane's state is copied out (by the permutation, transposed in
        // registers, or word by word after it) before any is consumed: the parsers read
        // their bytes from stores that left the store buffer while the other lanes were
        // written (a wide load of bytes that narrow stores wrote a few cycles earlier waits
        // for them to reach the cache).
        self.state.permute::<P>(&mut self.out);
        if !P::TRANSPOSES {
            for (l, slot) in self.jobs.iter().enumerate() {
                if slot.as_ref().is_some_and(|lane| lane.padded) {
                    self.state.read_lane(l, &mut self.out[l]);
                }
            }
        }
        let parser = self.parser;
        for (l, slot) in self.jobs.iter_mut().enumerate() {
            // SAFETY: the caller guarantees AVX2.
            if let Some(lane) = slot
                && lane.padded
                && unsafe {
                    lane.consume::<W, P>(
                        parser,
                        &self.out[l],
                        &mut self.noise[l],
                        feeding.as_deref_mut(),
                    )
                }
            {
                *slot = None;
            }
        }
    }

    /// Runs the jobs of the lanes and of `waiting` to their end on `P`; the last one alone
    /// finishes on `P`'s single-state permutation.
    ///
    /// # Safety
    /// As for [`Self::round`].
    #[inline(always)]
    unsafe fn finish<P: Permute<W>>(
        &mut self,
        waiting: &mut core::iter::Peekable<impl Iterator<Item = &'j mut Job<'a>>>,
        block: &mut Block,
        mut feeding: Option<&mut Feeding<'_>>,
    ) {
        loop {
            if let Some(feeding) = feeding.as_deref_mut() {
                self.chain_step(feeding);
            }
            self.fill(waiting);
            match self.running() {
                0 => {
                    if let Some(feeding) = feeding.as_deref_mut() {
                        self.park_chain(feeding);
                    }
                    return;
                }
                // With a fed sponge, every round runs on the lanes: a block of its message
                // may become ready during any of them (a job alone on the single-state
                // permutation would keep it out).
                1 if waiting.peek().is_none() && feeding.is_none() => {
                    // A last job alone: the single-state permutation costs about what the
                    // 4-way one does, and frees the loop of idle lanes.
                    let (l, lane) = self
                        .jobs
                        .iter_mut()
                        .enumerate()
                        .find_map(|(l, lane)| lane.as_mut().map(|lane| (l, lane)))
                        .expect("one lane runs");
                    let mut single = [0u64; WORDS];
                    self.state.read_lane(l, &mut single);
                    // SAFETY: the caller guarantees AVX2.
                    unsafe {
                        lane.finish_scalar::<W, P>(
                            self.parser,
                            &mut single,
                            &mut block.words,
                            &mut self.noise[l],
                        );
                    }
                    single.zeroize();
                    return;
                }
                // SAFETY: the caller's guarantee.
                _ => unsafe { self.round::<P>(block, feeding.as_deref_mut()) },
            }
        }
    }

    /// Before a round: the fed sponge leaves its lane if no block of its message is ready
    /// (its state goes back to the sponge), and takes a free lane, ahead of any waiting
    /// job, if one is.
    #[inline(always)]
    fn chain_step(&mut self, feeding: &mut Feeding<'_>) {
        let ready = feeding.has_block();
        match self.chain {
            Some(_) if !ready => self.park_chain(feeding),
            None if ready => {
                if let Some(l) = (0..W).find(|&l| self.jobs[l].is_none()) {
                    self.state.set_lane(l, feeding.state());
                    self.used |= 1 << l;
                    self.chain = Some(l);
                }
            }
            _ => {}
        }
    }

    /// The fed sponge's state back from its lane, if it has one.
    #[inline(always)]
    fn park_chain(&mut self, feeding: &mut Feeding<'_>) {
        if let Some(l) = self.chain.take() {
            self.state.read_lane(l, feeding.state());
        }
    }

    /// Moves every running job, with its state and PRF output so far, to a lane of
    /// `narrow` (which has no job and at least as many lanes as there are running jobs).
    fn move_into<const V: usize>(&mut self, narrow: &mut Lanes<'j, 'a, V>) {
        let mut to = 0;
        let mut single = [0u64; WORDS];
        for (l, slot) in self.jobs.iter_mut().enumerate() {
            if let Some(lane) = slot.take() {
                self.state.read_lane(l, &mut single);
                narrow.state.set_lane(to, &single);
                narrow.noise[to] = self.noise[l];
                narrow.jobs[to] = Some(lane);
                narrow.used |= 1 << to;
                to += 1;
            }
        }
        single.zeroize();
    }
}

/// Runs every job of `jobs`, in order as lanes free up (see the module docs), on the
/// `W`-way permutation `P`.
///
/// # Safety
/// The CPU has AVX2 and `P`'s instruction set. Not a `target_feature` function: it inlines
/// into the entry points ([`run`], [`run_vl`]), which are compiled with `P`'s features, so
/// that `P`'s kernels inline into it (compiled for AVX2 only, it kept the AVX-512VL XOR
/// as a call).
#[inline(always)]
unsafe fn run_with<'j, 'a: 'j, const W: usize, P: Permute<W>>(
    jobs: impl IntoIterator<Item = &'j mut Job<'a>>,
    parser: Parser,
    feeding: Option<&mut Feeding<'_>>,
) {
    let mut block = Block {
        words: [0; MAX_RATE_WORDS],
    };
    let mut lanes = Lanes::<W>::new(parser);
    // SAFETY: the caller's guarantee.
    unsafe { lanes.finish::<P>(&mut jobs.into_iter().peekable(), &mut block, feeding) };
}

/// Runs every job of `jobs` on the 8-way permutation while more than four remain (more
/// than three beside a fed sponge, which needs a lane of its own), then moves the rest to
/// four AVX-512VL lanes (see [`run_x8`] and [`run_x8_feeding`]).
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn run_narrowing<'j, 'a: 'j>(
    jobs: impl IntoIterator<Item = &'j mut Job<'a>>,
    parser: Parser,
    mut feeding: Option<&mut Feeding<'_>>,
) {
    let mut block = Block {
        words: [0; MAX_RATE_WORDS],
    };
    let mut waiting = jobs.into_iter().peekable();
    let mut wide = Lanes::<8>::new(parser);
    let narrow_at = if feeding.is_some() { 3 } else { 4 };
    loop {
        if let Some(feeding) = feeding.as_deref_mut() {
            wide.chain_step(feeding);
        }
        wide.fill(&mut waiting);
        if wide.running() <= narrow_at && waiting.peek().is_none() {
            break;
        }
        // SAFETY: this function's `target_feature` covers `X8`'s AVX-512F.
        unsafe { wide.round::<X8>(&mut block, feeding.as_deref_mut()) };
    }
    match feeding.as_deref_mut() {
        // The sponge leaves its lane; the four lanes give it one again when it is ready.
        Some(feeding) => wide.park_chain(feeding),
        None if wide.running() <= 1 => {
            // Nothing for four lanes: the last job, if any, finishes on the single-state
            // permutation from here (no 4-lane buffers to set up and erase).
            // SAFETY: as above.
            unsafe { wide.finish::<X8>(&mut waiting, &mut block, None) };
            return;
        }
        None => {}
    }
    let mut narrow = Lanes::<4>::new(parser);
    wide.move_into(&mut narrow);
    // SAFETY: as above, and AVX-512VL for `X4Vl`.
    unsafe { narrow.finish::<X4Vl>(&mut waiting, &mut block, feeding) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_poly_ntt::backend::Portable;
    const P: Portable = Portable;
    use crate::cbd::sample_poly_cbd;
    use crate::keccak::{SHA3_DOMAIN, sha3_256, sha3_512, shake256};
    use crate::sample_ntt::SAMPLE_NTT_SEED_BYTES;
    use crate::sample_ntt::sample_ntt;
    use crate::simd::{Avx2, Avx2Kernels};
    use proptest::prelude::*;
    use std::vec::Vec;

    /// One job's description, owning its inputs, and the expected result.
    #[derive(Clone, Debug)]
    enum Spec {
        Hash {
            a: Vec<u8>,
            b: Vec<u8>,
            sha3: bool,
        },
        Sha512 {
            a: Vec<u8>,
            b: Vec<u8>,
        },
        Ntt {
            seed: [u8; SAMPLE_NTT_SEED_BYTES],
        },
        Noise {
            sigma: [u8; 32],
            nonce: u8,
            three: bool,
        },
    }

    /// The expected output of a spec, by the portable code (32 bytes or 256 coefficients).
    fn expected(spec: &Spec) -> Vec<u16> {
        match spec {
            Spec::Hash { a, b, sha3 } => {
                let digest = if *sha3 {
                    sha3_256(P, &[a, b])
                } else {
                    let mut out = [0u8; 32];
                    shake256(P, &[a, b], &mut out);
                    out
                };
                digest.iter().map(|&x| u16::from(x)).collect()
            }
            Spec::Sha512 { a, b } => sha3_512(P, &[a, b]).iter().map(|&x| u16::from(x)).collect(),
            Spec::Ntt { seed } => sample_ntt(P, seed).coeffs().to_vec(),
            Spec::Noise {
                sigma,
                nonce,
                three,
            } => {
                let eta = if *three { Eta::Three } else { Eta::Two };
                let mut prf = std::vec![0u8; eta.prf_output_len()];
                shake256(P, &[sigma, &[*nonce]], &mut prf);
                sample_poly_cbd(eta, &prf)
                    .expect("PRF output of the right length")
                    .coeffs()
                    .to_vec()
            }
        }
    }

    /// Runs the specs through the scheduler and returns each output as above.
    fn scheduled(runner: Runner, specs: &[Spec]) -> Vec<Vec<u16>> {
        let mut digests = std::vec![[0u8; 32]; specs.len()];
        let mut wide = std::vec![[0u8; 64]; specs.len()];
        let mut polys = std::vec![[0u16; N]; specs.len()];
        let jobs = specs
            .iter()
            .zip(
                digests
                    .iter_mut()
                    .zip(wide.iter_mut())
                    .zip(polys.iter_mut()),
            )
            .map(|(spec, ((digest, wide), poly))| match spec {
                Spec::Hash { a, b, sha3 } => Job::Hash32 {
                    message: [a, b],
                    domain: if *sha3 { SHA3_DOMAIN } else { SHAKE_DOMAIN },
                    out: digest,
                },
                Spec::Sha512 { a, b } => Job::Hash64 {
                    message: [a, b],
                    out: wide,
                },
                Spec::Ntt { seed } => Job::SampleNtt {
                    seed: *seed,
                    out: poly,
                },
                Spec::Noise {
                    sigma,
                    nonce,
                    three,
                } => Job::Noise {
                    sigma,
                    nonce: [*nonce],
                    eta: if *three { Eta::Three } else { Eta::Two },
                    out: poly,
                },
            });
        let mut jobs: Vec<Job<'_>> = jobs.collect();
        match runner {
            Runner::Avx2(avx2) => avx2.run_job_list(jobs),
            // SAFETY: `Runner::available` checked the features.
            Runner::Vl(parser) => unsafe { run_vl(jobs.iter_mut(), parser) },
            // SAFETY: as above.
            Runner::X8(parser) => unsafe { run_x8(jobs.iter_mut(), parser) },
        }
        specs
            .iter()
            .zip(digests.iter().zip(&wide).zip(&polys))
            .map(|(spec, ((digest, wide), poly))| match spec {
                Spec::Hash { .. } => digest.iter().map(|&x| u16::from(x)).collect(),
                Spec::Sha512 { .. } => wide.iter().map(|&x| u16::from(x)).collect(),
                _ => poly.to_vec(),
            })
            .collect()
    }

    /// A scheduler entry point: the AVX2 one, or the AVX-512 ones (4-way VL, and 8-way
    /// narrowing to 4-way VL) with each candidate parser the CPU has, called directly
    /// whatever their cost estimate would pick.
    #[derive(Clone, Copy, Debug)]
    enum Runner {
        Avx2(Avx2),
        Vl(Parser),
        X8(Parser),
    }

    impl Runner {
        /// Every entry point this CPU can run.
        fn available() -> Vec<Runner> {
            let mut runners = Vec::new();
            let Some(avx2) = Avx2::detect() else {
                std::eprintln!("note: no AVX2 on this CPU, lane scheduler not tested");
                return runners;
            };
            runners.push(Runner::Avx2(avx2));
            if lattice_poly_ntt::backend::Avx512::detect().is_some() {
                runners.extend([Runner::Vl(Parser::Avx2), Runner::X8(Parser::Avx2)]);
                if let Some(vbmi2) = crate::simd::rej::Vbmi2::detect() {
                    let parser = Parser::Vbmi2(vbmi2);
                    runners.extend([Runner::Vl(parser), Runner::X8(parser)]);
                } else {
                    std::eprintln!("note: no AVX-512 VBMI2 on this CPU, its parser not tested");
                }
            } else {
                std::eprintln!("note: no AVX-512 on this CPU, its lane schedulers not tested");
            }
            runners
        }
    }

    fn check(specs: &[Spec]) {
        for runner in Runner::available() {
            let got = scheduled(runner, specs);
            for (spec, got) in specs.iter().zip(got) {
                assert_eq!(got, expected(spec), "{runner:?} {spec:?}");
            }
        }
    }

    fn spec() -> impl Strategy<Value = Spec> {
        prop_oneof![
            (
                proptest::collection::vec(any::<u8>(), 0..600),
                proptest::collection::vec(any::<u8>(), 0..300),
                any::<bool>()
            )
                .prop_map(|(a, b, sha3)| Spec::Hash { a, b, sha3 }),
            (
                proptest::collection::vec(any::<u8>(), 0..200),
                proptest::collection::vec(any::<u8>(), 0..100),
            )
                .prop_map(|(a, b)| Spec::Sha512 { a, b }),
            any::<[u8; SAMPLE_NTT_SEED_BYTES]>().prop_map(|seed| Spec::Ntt { seed }),
            (any::<[u8; 32]>(), any::<u8>(), any::<bool>()).prop_map(|(sigma, nonce, three)| {
                Spec::Noise {
                    sigma,
                    nonce,
                    three,
                }
            }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn any_mix_of_jobs_matches_portable(specs in proptest::collection::vec(spec(), 0..20)) {
            check(&specs);
        }
    }

    #[test]
    fn message_lengths_around_block_boundaries() {
        // Every length from 0 to three blocks, split at several points, both domains: the
        // padding lands at every offset, in its own block when the message fills the last.
        let data: Vec<u8> = (0..3 * SHAKE256_RATE + 2)
            .map(|i| (i * 7 + 3) as u8)
            .collect();
        let mut specs = Vec::new();
        for len in 0..=data.len() {
            for split in [0, len / 2, len] {
                let (a, b) = data[..len].split_at(split);
                specs.push(Spec::Hash {
                    a: a.to_vec(),
                    b: b.to_vec(),
                    sha3: len % 2 == 0,
                });
                // SHA3-512's rate is 72 bytes: these lengths cross five of its blocks.
                specs.push(Spec::Sha512 {
                    a: a.to_vec(),
                    b: b.to_vec(),
                });
            }
        }
        check(&specs);
    }

    #[test]
    fn lone_jobs_of_each_kind_finish_scalar() {
        // A single job never uses the 4-way permutation; each kind alone, and a long hash
        // that outlives three short jobs (it finishes alone on the scalar Keccak).
        let long = Spec::Hash {
            a: std::vec![0x5a; 1184],
            b: Vec::new(),
            sha3: true,
        };
        let seed = Spec::Ntt {
            seed: [3; SAMPLE_NTT_SEED_BYTES],
        };
        let noise = Spec::Noise {
            sigma: [9; 32],
            nonce: 4,
            three: true,
        };
        for specs in [
            std::vec![long.clone()],
            std::vec![seed.clone()],
            std::vec![noise.clone()],
            std::vec![long, seed, noise.clone(), noise],
        ] {
            check(&specs);
        }
    }
}
