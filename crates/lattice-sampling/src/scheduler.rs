//! The lane scheduler: the independent jobs of a batch share the lanes of one `W`-state
//! Keccak-f\[1600\] ([`PermuteLanes`]), whatever their kinds and rates, and every backend runs
//! it: the portable one on a scalar permutation, the x86-64 ones on their AVX2 and AVX-512
//! permutations, the NEON one on its 2-way NEON or FEAT_SHA3 permutation. It is generic
//! over the permutation and the block kernels ([`Kernels`]) and knows no instruction set
//! (its misspeculation flag comes from `crate::speculation`); how many lanes to use is the
//! caller's choice ([`run`], or [`run_narrowing`] from `W` lanes to fewer once few jobs are
//! left).
//!
//! An operation of ML-KEM has sponges of several kinds that are independent of one another:
//! importing an encapsulation key needs the `k^2` SHAKE128 streams of A-hat *and* `H(ek)`, a
//! SHA3-256 of 800 to 1568 bytes (6 to 12 permutations, as many as three `SampleNTT`
//! streams). Run in lock step by kind, the hash would take the scalar Keccak while a lane of
//! the matrix's last group idles; here it takes a lane of the same permutations.
//!
//! # Schedule
//! Each lane runs one job at a time ([`Lane`]): it absorbs the job's message a block per
//! permutation (padding included), then squeezes a block per permutation until the job has
//! what it needs (an `Absorb` job starts from its sponge's state, absorbs whole blocks and
//! hands the state back). A lane whose job is done takes the next job of the list, so callers
//! put the longest jobs first. When a single job is left running and none is waiting, it
//! moves to the single-state permutation ([`crate::keccak::KeccakF1600`] of the same
//! implementation), which costs about what a multi-state one does (idle lanes gain nothing).
//! [`run_narrowing`] moves the running jobs, with their states, from `W` lanes to `V` once
//! they fit (on x86, from eight zmm lanes to four ymm ones).
//!
//! A [`crate::FeedingBatch`] adds a fed sponge: before each round it takes a free lane,
//! ahead of any waiting job, if a whole block of its message is ready (its state set into
//! the lane), absorbs one block per round while blocks are ready, and goes back to its
//! sponge when none is; the fed jobs report each parsed block to the feed, which may make
//! more of the message ready. Every round of such a batch runs on the lanes (a job alone on
//! the single-state permutation would keep the sponge out); the batch ends when its jobs
//! do, and the caller absorbs the rest of the message.
//!
//! The schedule depends only on the jobs' kinds, message lengths and, for the rejection
//! samplers, on the XOF output of the public seed: never on secret data. Every buffer that
//! held message bytes or output, and the states, are zeroized.

use core::iter::Peekable;

use zeroize::Zeroize;

use crate::feed::Feeding;
use crate::job::{Block, CBD3_CARRY_WORDS, Job, Lane};
use crate::keccak::{PermuteLanes, WORDS, read_lane};
use crate::kernels::Kernels;
use crate::speculation::{Msf, init_msf, launder, update_nonzero, update_zero};

/// `W` interleaved Keccak states: `words[i][l]` is word `i` of state `l`.
struct States<const W: usize> {
    words: [[u64; W]; WORDS],
}

impl<const W: usize> States<W> {
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

    /// Copies state `lane` to `out`.
    fn get_lane(&self, lane: usize, out: &mut [u64; WORDS]) {
        for (o, word) in out.iter_mut().zip(&self.words) {
            *o = word[lane];
        }
    }
}

impl<const W: usize> Drop for States<W> {
    fn drop(&mut self) {
        self.words.as_flattened_mut().zeroize();
    }
}

/// `W` lanes: the interleaved states, the job each runs and its eta = 3 PRF output so far.
struct Lanes<'j, 'a, const W: usize, K> {
    /// The block kernels (parsers, CBD).
    kernels: K,
    states: States<W>,
    jobs: [Option<Lane<'j, 'a>>; W],
    /// eta = 3 PRF output carried from a lane's first block to its second.
    carry: [[u64; CBD3_CARRY_WORDS]; W],
    /// The squeezing lanes' states after a permutation, one lane per row, each word in
    /// little-endian byte order (see [`Self::round`] and [`read_lane`]).
    out: [[u64; WORDS]; W],
    /// Bit `l`: lane `l` has run a job, so its state is not the zero state it started with
    /// (`W` is at most 16, checked in [`Self::new`]).
    used: u16,
    /// The lane holding a fed sponge's state ([`crate::FeedingBatch`]), if one does: it
    /// has no job, and takes a block of the feed's message each round.
    chain: Option<usize>,
    /// The misspeculation flag of the batch (`crate::speculation`): set up (a
    /// barrier) when the lanes are, updated by the lane walk that consumes output and by the
    /// parsers.
    msf: Msf,
}

impl<const W: usize, K> Drop for Lanes<'_, '_, W, K> {
    fn drop(&mut self) {
        self.carry.as_flattened_mut().zeroize();
        self.out.as_flattened_mut().zeroize();
    }
}

impl<'j, 'a, const W: usize, K: Kernels> Lanes<'j, 'a, W, K> {
    #[inline(always)]
    fn new(kernels: K) -> Self {
        // A power of two: a protected lane number is masked into range (see `round`).
        const { assert!(W >= 1 && W <= 16 && W.is_power_of_two()) };
        Self {
            kernels,
            states: States {
                words: [[0; W]; WORDS],
            },
            jobs: core::array::from_fn(|_| None),
            carry: [[0; CBD3_CARRY_WORDS]; W],
            out: [[0; WORDS]; W],
            used: 0,
            chain: None,
            msf: init_msf(),
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
                match job.start_state() {
                    // A sponge that has absorbed before goes on from its state.
                    Some(state) => self.states.set_lane(l, state),
                    // A fresh lane is zero already (no 25 strided stores).
                    None if used & (1 << l) == 0 => {}
                    None => self.states.clear_lane(l),
                }
                used |= 1 << l;
                *slot = Some(Lane::new(job));
            }
        }
        self.used = used;
    }

    /// The number of lanes with a job.
    #[inline(always)]
    fn running(&self) -> usize {
        self.jobs.iter().filter(|lane| lane.is_some()).count()
    }

    /// One step of every running job: its next block in, the `W`-state permutation, its
    /// output out; a finished job frees its lane.
    // sct: protected(updates), required
    #[inline(always)]
    fn round<P: PermuteLanes<W>>(
        &mut self,
        perm: P,
        block: &mut Block,
        mut feeding: Option<&mut Feeding<'_>>,
    ) {
        for (l, slot) in self.jobs.iter_mut().enumerate() {
            if let Some(lane) = slot
                && let Some((bytes, pad)) = lane.next_block(block)
            {
                perm.xor_lane(&mut self.states.words, l, bytes);
                self.states.words[lane.rate_words() - 1][l] ^= pad;
            }
        }
        // The fed sponge's next block (`chain_step` put it in a lane only with one ready).
        if let (Some(l), Some(feeding)) = (self.chain, feeding.as_deref_mut())
            && let Some(bytes) = feeding.take_block()
        {
            perm.xor_lane(&mut self.states.words, l, bytes);
        }
        // Every squeezing lane's state is copied out (by the permutation, transposed in
        // registers, or word by word after it) before any is consumed: the parsers read
        // their bytes from stores that left the store buffer while the other lanes were
        // written (a wide load of bytes that narrow stores wrote a few cycles earlier waits
        // for them to reach the cache).
        if P::COPIES_OUT {
            perm.permute_copying(&mut self.states.words, &mut self.out);
        } else {
            perm.permute(&mut self.states.words);
            for (l, slot) in self.jobs.iter().enumerate() {
                if slot.as_ref().is_some_and(Lane::squeezing) {
                    read_lane(&self.states.words, l, &mut self.out[l]);
                }
            }
        }
        // SCT: the lane number that picks the job, `out` and `carry` is masked into range
        // through an opaque copy (`launder`: the compiler would drop a mask it can prove
        // useless), so a mispredicted exit of the walk goes on with a real lane, its own job
        // and buffers, never past the arrays. The test that a lane squeezes updates the
        // flag on both sides: a lane still absorbing may hold an older job's PRF output in
        // `out[l]`. (A lane without a job is a null job reference: a mispredicted test of
        // it faults, reading nothing.)
        let kernels = self.kernels;
        let mut msf = self.msf;
        for l in 0..W {
            let at = launder(l) & (W - 1);
            let Some(lane) = &mut self.jobs[at] else {
                continue;
            };
            let squeezing = lane.squeezing();
            let squeezing_seen = launder(usize::from(squeezing));
            if !squeezing {
                msf = update_zero(msf, squeezing_seen);
                continue;
            }
            msf = update_nonzero(msf, squeezing_seen);
            if lane.consume(
                kernels,
                &self.out[at],
                &mut self.carry[at],
                feeding.as_deref_mut(),
                &mut msf,
            ) {
                self.jobs[at] = None;
            }
        }
        self.msf = msf;
    }

    /// Runs the jobs of the lanes and of `waiting` to their end on `perm`; the last one
    /// alone finishes on `perm`'s single-state permutation.
    #[inline(always)]
    fn finish<P: PermuteLanes<W>>(
        &mut self,
        perm: P,
        waiting: &mut Peekable<impl Iterator<Item = &'j mut Job<'a>>>,
        block: &mut Block,
        mut feeding: Option<&mut Feeding<'_>>,
    ) {
        loop {
            if let Some(feeding) = feeding.as_deref_mut() {
                self.chain_step(feeding);
            }
            self.fill(waiting);
            match self.running() {
                // Done, unless the fed sponge holds the only free lane while jobs wait (one
                // lane): it absorbs a round, and gives the lane back when no block is ready.
                0 if self.chain.is_none() || waiting.peek().is_none() => {
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
                    // multi-state one does, and frees the loop of idle lanes.
                    let (l, lane) = self
                        .jobs
                        .iter_mut()
                        .enumerate()
                        .find_map(|(l, lane)| lane.as_mut().map(|lane| (l, lane)))
                        .expect("one lane runs");
                    let mut single = [0u64; WORDS];
                    self.states.get_lane(l, &mut single);
                    finish_alone(
                        lane,
                        perm,
                        self.kernels,
                        &mut single,
                        block,
                        &mut self.carry[l],
                        &mut self.msf,
                    );
                    single.zeroize();
                    return;
                }
                _ => self.round(perm, block, feeding.as_deref_mut()),
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
                    self.states.set_lane(l, feeding.state());
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
            self.states.get_lane(l, feeding.state());
        }
    }

    /// Moves every running job, with its state and PRF output so far, to a lane of
    /// `narrow` (which has no job and at least as many lanes as there are running jobs).
    #[allow(dead_code, reason = "for backends that narrow (x86's AVX-512)")]
    #[inline(always)]
    fn move_into<const V: usize>(&mut self, narrow: &mut Lanes<'j, 'a, V, K>) {
        let mut to = 0;
        let mut single = [0u64; WORDS];
        for (l, slot) in self.jobs.iter_mut().enumerate() {
            if let Some(lane) = slot.take() {
                self.states.get_lane(l, &mut single);
                narrow.states.set_lane(to, &single);
                narrow.carry[to] = self.carry[l];
                narrow.jobs[to] = Some(lane);
                narrow.used |= 1 << to;
                to += 1;
            }
        }
        single.zeroize();
    }
}

/// Runs `lane`'s job to its end on `perm`'s single-state permutation, from `state` (the
/// lane's state, taken out of the multi-state one after the last multi-state permutation).
// sct: protected()
#[inline]
fn finish_alone<K: Kernels, P: crate::keccak::KeccakF1600>(
    lane: &mut Lane<'_, '_>,
    perm: P,
    kernels: K,
    state: &mut [u64; WORDS],
    block: &mut Block,
    carry: &mut [u64; CBD3_CARRY_WORDS],
    msf: &mut Msf,
) {
    loop {
        let rate_words = lane.rate_words();
        if let Some((bytes, pad)) = lane.next_block(block) {
            for (s, w) in state.iter_mut().zip(bytes.as_chunks::<8>().0) {
                *s ^= u64::from_le_bytes(*w);
            }
            state[rate_words - 1] ^= pad;
        }
        perm.f1600(state);
        // Never a fed job: a batch with a feed runs every round on the lanes.
        // The jobs read the state's words in little-endian byte order: as they are on a
        // little-endian target, swapped in a copy (erased after: it may hold PRF output) on
        // a big-endian one.
        let done = lane.squeezing()
            && if cfg!(target_endian = "little") {
                lane.consume(kernels, state, carry, None, msf)
            } else {
                let mut swapped = state.map(u64::to_le);
                let done = lane.consume(kernels, &swapped, carry, None, msf);
                swapped.zeroize();
                done
            };
        if done {
            break;
        }
    }
}

/// Runs every job of `jobs`, in order as lanes free up (see the module docs), on `W` lanes
/// of `perm`, with `kernels` taking the squeezed blocks and `feeding`'s sponge in a lane
/// whenever a block of its message is ready.
///
/// Inlined into the backend's entry point, which is compiled with the instruction set of
/// `perm` and `kernels`, so that their code inlines here.
#[inline(always)]
pub(crate) fn run<'j, 'a: 'j, const W: usize, P: PermuteLanes<W>, K: Kernels>(
    jobs: impl IntoIterator<Item = &'j mut Job<'a>>,
    perm: P,
    kernels: K,
    feeding: Option<&mut Feeding<'_>>,
) {
    let mut block = Block::new();
    let mut lanes = Lanes::<W, K>::new(kernels);
    lanes.finish(perm, &mut jobs.into_iter().peekable(), &mut block, feeding);
}

/// Runs every job of `jobs` on `W` lanes of `wide` while more jobs run than `V` lanes hold
/// (one fewer beside a fed sponge, which needs a lane of its own), then moves the running
/// ones, with their states, to `V` lanes of `narrow` (see [`run`]). For an instruction set
/// whose `V`-state permutation costs well under `V / W` of its `W`-state one.
#[allow(dead_code, reason = "for backends that narrow (x86's AVX-512)")]
#[inline(always)]
pub(crate) fn run_narrowing<
    'j,
    'a: 'j,
    const W: usize,
    const V: usize,
    PW: PermuteLanes<W>,
    PV: PermuteLanes<V>,
    K: Kernels,
>(
    jobs: impl IntoIterator<Item = &'j mut Job<'a>>,
    wide: PW,
    narrow: PV,
    kernels: K,
    mut feeding: Option<&mut Feeding<'_>>,
) {
    const { assert!(V < W) };
    let mut block = Block::new();
    let mut waiting = jobs.into_iter().peekable();
    let mut lanes = Lanes::<W, K>::new(kernels);
    let narrow_at = if feeding.is_some() { V - 1 } else { V };
    loop {
        if let Some(feeding) = feeding.as_deref_mut() {
            lanes.chain_step(feeding);
        }
        lanes.fill(&mut waiting);
        if lanes.running() <= narrow_at && waiting.peek().is_none() {
            break;
        }
        lanes.round(wide, &mut block, feeding.as_deref_mut());
    }
    match feeding.as_deref_mut() {
        // The sponge leaves its lane; the narrow lanes give it one again when it is ready.
        Some(feeding) => lanes.park_chain(feeding),
        None if lanes.running() <= 1 => {
            // Nothing for the narrow lanes: the last job, if any, finishes on the
            // single-state permutation from here (no narrow buffers to set up and erase).
            lanes.finish(wide, &mut waiting, &mut block, None);
            return;
        }
        None => {}
    }
    let mut narrower = Lanes::<V, K>::new(kernels);
    lanes.move_into(&mut narrower);
    narrower.finish(narrow, &mut waiting, &mut block, feeding);
}
