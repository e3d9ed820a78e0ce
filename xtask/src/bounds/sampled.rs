//! The sampled checker, for declared domains too large to enumerate (all of `u64`, pairs
//! of canonical GF(8380417) elements): a function against a reference on a list of
//! BOUNDARY inputs (every input where a bound can bite, chosen by the caller), then on a
//! large deterministic RANDOM sample.
//!
//! This is weaker than [`super::exhaustive`], and the table says so: its rows carry
//! [`super::report::Method::Sampled`] and count both parts. The exactness argument itself
//! (for Barrett: the constant inequality) is a separate `const-assert` row; the sample
//! checks that the code implements that argument.
//!
//! The random sample is one SplitMix64 stream cut into blocks of [`BLOCK`] inputs: block `b`
//! starts at position `b * 2^20` of the stream, so the inputs do not depend on the number of
//! threads and no two blocks overlap. Workers take blocks in ascending order from a shared
//! counter; the first failure stops every worker after its current block, and the failure
//! reported is the first of the lowest failing block, so it is deterministic too.
//!
//! As in the exhaustive checker, a panic of the checked function (an overflow, a library
//! `debug_assert!`) is a failure: the block is run again one input at a time to find it.

use super::accumulate::SplitMix;
use super::exhaustive::Outcome;
use std::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// Random inputs per unit of work.
const BLOCK: u64 = 1 << 16;

/// Stream positions reserved per block (a block draws at most 16 values per input).
const BLOCK_STRIDE: u64 = 1 << 20;

/// Where a failing input came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// The caller's boundary list.
    Boundary,
    /// The random sample.
    Random,
}

/// An input on which the checked function disagrees with the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SampleFailure<T> {
    /// The input.
    pub(crate) input: T,
    /// What the function did.
    pub(crate) got: Outcome,
    /// What the reference returned.
    pub(crate) expected: i64,
    /// Which part of the check found it.
    pub(crate) phase: Phase,
}

impl<T: Debug> std::fmt::Display for SampleFailure<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let phase = match self.phase {
            Phase::Boundary => "boundary",
            Phase::Random => "random",
        };
        match self.got {
            Outcome::Value(v) => write!(
                f,
                "{phase} input {:?}: got {v}, expected {}",
                self.input, self.expected
            ),
            Outcome::Panicked => write!(
                f,
                "{phase} input {:?}: panicked, expected {}",
                self.input, self.expected
            ),
        }
    }
}

/// The result of one sampled check.
#[derive(Clone, Debug)]
pub(crate) struct Sampled<T> {
    /// What was checked.
    pub(crate) name: String,
    /// Number of boundary inputs given.
    pub(crate) boundaries: u64,
    /// Number of random inputs asked for.
    pub(crate) random: u64,
    /// How many inputs were checked (`boundaries + random` when the check passes).
    pub(crate) checked: u64,
    /// The largest value the function returned.
    pub(crate) max_output: Option<i64>,
    /// The first failure, if any (boundaries are run first, and stop the check).
    pub(crate) failure: Option<SampleFailure<T>>,
    /// Wall-clock time of the check.
    pub(crate) elapsed: Duration,
}

impl<T> Sampled<T> {
    /// Whether the function matched the reference on every boundary and random input.
    pub(crate) fn passed(&self) -> bool {
        self.failure.is_none() && self.checked == self.boundaries + self.random
    }
}

/// What one scan found.
#[derive(Clone, Copy)]
struct Partial<T> {
    checked: u64,
    max_output: Option<i64>,
    /// The failure and the index of its block (boundaries: 0).
    failure: Option<(u64, SampleFailure<T>)>,
}

impl<T> Default for Partial<T> {
    fn default() -> Self {
        Self {
            checked: 0,
            max_output: None,
            failure: None,
        }
    }
}

impl<T> Partial<T> {
    fn merge(&mut self, other: Self) {
        self.checked += other.checked;
        self.max_output = self.max_output.max(other.max_output);
        self.failure = match (self.failure.take(), other.failure) {
            (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
            (a, b) => a.or(b),
        };
    }
}

/// The random part of a sampled check: `count` inputs from the stream seeded with `seed`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RandomSample {
    /// Number of random inputs.
    pub(crate) count: u64,
    /// Seed of the stream (fixed by the caller: a failure is reproducible).
    pub(crate) seed: u64,
}

/// Checks `f(x) == reference(x)` on every input of `boundaries`, then on the random
/// inputs `draw` makes from the generator of `random`, on `threads` worker threads.
///
/// `reference` must not panic on the domain. Stops at the first failure; a boundary
/// failure skips the random sample.
pub(crate) fn check_sampled<T, F, R, D>(
    name: &str,
    boundaries: &[T],
    random: RandomSample,
    threads: usize,
    f: F,
    reference: R,
    draw: D,
) -> Sampled<T>
where
    T: Copy + Send + Sync,
    F: Fn(T) -> i64 + Sync,
    R: Fn(T) -> i64 + Sync,
    D: Fn(&mut SplitMix) -> T + Sync,
{
    let start = Instant::now();
    let (f, reference, draw) = (&f, &reference, &draw);
    let RandomSample {
        count: random,
        seed,
    } = random;
    let mut total = scan(
        || boundaries.iter().copied(),
        0,
        Phase::Boundary,
        f,
        reference,
    );
    if total.failure.is_none() {
        let blocks = random.div_ceil(BLOCK);
        let next = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        thread::scope(|scope| {
            let workers: Vec<_> = (0..threads.max(1))
                .map(|_| {
                    scope.spawn(|| {
                        let mut mine = Partial::default();
                        while !stop.load(Ordering::Relaxed) {
                            let block = next.fetch_add(1, Ordering::Relaxed);
                            if block >= blocks {
                                break;
                            }
                            let len = BLOCK.min(random - block * BLOCK);
                            let inputs = || {
                                let mut rng = block_stream(seed, block);
                                (0..len).map(move |_| draw(&mut rng))
                            };
                            let part = scan(inputs, block, Phase::Random, f, reference);
                            let failed = part.failure.is_some();
                            mine.merge(part);
                            if failed {
                                stop.store(true, Ordering::Relaxed);
                                break;
                            }
                        }
                        mine
                    })
                })
                .collect();
            for worker in workers {
                total.merge(worker.join().expect("the reference panicked"));
            }
        });
    }
    Sampled {
        name: name.to_owned(),
        boundaries: boundaries.len() as u64,
        random,
        checked: total.checked,
        max_output: total.max_output,
        failure: total.failure.map(|(_, failure)| failure),
        elapsed: start.elapsed(),
    }
}

/// The generator of random block `block`: position `block * BLOCK_STRIDE` of the stream.
fn block_stream(seed: u64, block: u64) -> SplitMix {
    SplitMix::at(seed, block * BLOCK_STRIDE)
}

/// Runs the inputs of `inputs()`, stopping at the first failure; on a panic, runs them
/// again one at a time to find the input that panics.
fn scan<T, I, F, R>(
    inputs: impl Fn() -> I,
    block: u64,
    phase: Phase,
    f: &F,
    reference: &R,
) -> Partial<T>
where
    T: Copy,
    I: Iterator<Item = T>,
    F: Fn(T) -> i64,
    R: Fn(T) -> i64,
{
    let fast = catch_unwind(AssertUnwindSafe(|| {
        let mut part = Partial::default();
        let mut max = i64::MIN;
        for x in inputs() {
            let got = f(x);
            let expected = reference(x);
            max = max.max(got);
            part.checked += 1;
            if got != expected {
                part.failure = Some((
                    block,
                    SampleFailure {
                        input: x,
                        got: Outcome::Value(got),
                        expected,
                        phase,
                    },
                ));
                break;
            }
        }
        part.max_output = (part.checked > 0).then_some(max);
        part
    }));
    fast.unwrap_or_else(|_| {
        let mut part = Partial::default();
        for x in inputs() {
            let expected = reference(x);
            let got =
                catch_unwind(AssertUnwindSafe(|| f(x))).map_or(Outcome::Panicked, Outcome::Value);
            part.checked += 1;
            if let Outcome::Value(v) = got {
                part.max_output = part.max_output.max(Some(v));
            }
            if got != Outcome::Value(expected) {
                part.failure = Some((
                    block,
                    SampleFailure {
                        input: x,
                        got,
                        expected,
                        phase,
                    },
                ));
                return part;
            }
        }
        // The fast scan panicked but no single input does: impossible for a pure function.
        part.checked = 0;
        part
    })
}
