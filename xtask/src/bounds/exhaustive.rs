//! The exhaustive checker: a function against a reference on every input of a declared domain.
//!
//! The domain is cut into blocks of [`BLOCK`] inputs that worker threads take in ascending
//! order from a shared counter, so the work spreads over every core whatever the cost per
//! input. The first mismatch stops every worker after its current block; since all blocks
//! below a failing block were taken earlier and are always finished, the counterexample
//! reported is the smallest failing input of the domain.
//!
//! A panic of the checked function (an overflow or a `debug_assert!` of the library firing
//! on an input outside what the code can handle) is a failure like a wrong value: the block
//! is scanned again one input at a time to find the input that panics.

use std::ops::RangeInclusive;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// Inputs per unit of work.
const BLOCK: i64 = 1 << 16;

/// What the checked function did on one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// It returned this value.
    Value(i64),
    /// It panicked (overflow check, debug assertion, ...).
    Panicked,
}

/// An input on which the checked function disagrees with the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Counterexample {
    /// The input.
    pub(crate) input: i64,
    /// What the function did.
    pub(crate) got: Outcome,
    /// What the reference returned.
    pub(crate) expected: i64,
}

impl std::fmt::Display for Counterexample {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.got {
            Outcome::Value(v) => write!(
                f,
                "input {}: got {v}, expected {}",
                self.input, self.expected
            ),
            Outcome::Panicked => write!(
                f,
                "input {}: panicked, expected {}",
                self.input, self.expected
            ),
        }
    }
}

/// The result of one exhaustive check.
#[derive(Clone, Debug)]
pub(crate) struct Exhaustive {
    /// What was checked.
    pub(crate) name: String,
    /// The declared domain.
    pub(crate) domain: RangeInclusive<i64>,
    /// How many inputs were checked (the domain size when the check passes).
    pub(crate) checked: u64,
    /// The largest value the function returned.
    pub(crate) max_output: Option<i64>,
    /// The smallest failing input, if any.
    pub(crate) counterexample: Option<Counterexample>,
    /// Wall-clock time of the check.
    pub(crate) elapsed: Duration,
}

impl Exhaustive {
    /// Whether the function matched the reference on the whole domain.
    pub(crate) fn passed(&self) -> bool {
        self.counterexample.is_none() && self.checked == self.domain_size()
    }

    /// Number of inputs in the declared domain.
    pub(crate) fn domain_size(&self) -> u64 {
        (self.domain.end() - self.domain.start()) as u64 + 1
    }
}

/// What one worker found.
#[derive(Clone, Copy, Default)]
struct Partial {
    checked: u64,
    max_output: Option<i64>,
    counterexample: Option<Counterexample>,
}

impl Partial {
    fn merge(&mut self, other: Self) {
        self.checked += other.checked;
        self.max_output = self.max_output.max(other.max_output);
        self.counterexample = match (self.counterexample, other.counterexample) {
            (Some(a), Some(b)) => Some(if a.input <= b.input { a } else { b }),
            (a, b) => a.or(b),
        };
    }
}

/// Checks `f(x) == reference(x)` for every `x` in `domain`, on `threads` worker threads.
///
/// `f` is the code under test, `reference` the exact mathematical definition (it must not
/// panic on the domain). Stops at the first mismatch or panic of `f`.
pub(crate) fn check_exhaustive<F, R>(
    name: &str,
    domain: RangeInclusive<i64>,
    threads: usize,
    f: F,
    reference: R,
) -> Exhaustive
where
    F: Fn(i64) -> i64 + Sync,
    R: Fn(i64) -> i64 + Sync,
{
    let start = Instant::now();
    let (lo, hi) = (*domain.start(), *domain.end());
    assert!(lo <= hi, "empty domain for {name}");
    assert!(
        hi < i64::MAX / 2 && lo > i64::MIN / 2,
        "domain of {name} too large"
    );
    let next = AtomicI64::new(lo);
    let stop = AtomicBool::new(false);
    let mut total = Partial::default();
    thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Partial::default();
                    while !stop.load(Ordering::Relaxed) {
                        let block_lo = next.fetch_add(BLOCK, Ordering::Relaxed);
                        if block_lo > hi {
                            break;
                        }
                        let block = scan(block_lo, (block_lo + BLOCK - 1).min(hi), &f, &reference);
                        let failed = block.counterexample.is_some();
                        mine.merge(block);
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
    Exhaustive {
        name: name.to_owned(),
        domain,
        checked: total.checked,
        max_output: total.max_output,
        counterexample: total.counterexample,
        elapsed: start.elapsed(),
    }
}

/// Scans `lo..=hi`, stopping at the first failure.
fn scan<F, R>(lo: i64, hi: i64, f: &F, reference: &R) -> Partial
where
    F: Fn(i64) -> i64,
    R: Fn(i64) -> i64,
{
    // Fast path: no per-input unwinding bookkeeping.
    let fast = catch_unwind(AssertUnwindSafe(|| {
        let mut max = i64::MIN;
        for x in lo..=hi {
            let got = f(x);
            max = max.max(got);
            let expected = reference(x);
            if got != expected {
                return Partial {
                    checked: (x - lo) as u64 + 1,
                    max_output: Some(max),
                    counterexample: Some(Counterexample {
                        input: x,
                        got: Outcome::Value(got),
                        expected,
                    }),
                };
            }
        }
        Partial {
            checked: (hi - lo) as u64 + 1,
            max_output: Some(max),
            counterexample: None,
        }
    }));
    fast.unwrap_or_else(|_| scan_slowly(lo, hi, f, reference))
}

/// Scans `lo..=hi` one input at a time, catching a panic of `f` on each.
fn scan_slowly<F, R>(lo: i64, hi: i64, f: &F, reference: &R) -> Partial
where
    F: Fn(i64) -> i64,
    R: Fn(i64) -> i64,
{
    let mut max_output = None;
    for x in lo..=hi {
        let expected = reference(x);
        let got = catch_unwind(AssertUnwindSafe(|| f(x))).map_or(Outcome::Panicked, Outcome::Value);
        if let Outcome::Value(v) = got {
            max_output = max_output.max(Some(v));
        }
        if got != Outcome::Value(expected) {
            return Partial {
                checked: (x - lo) as u64 + 1,
                max_output,
                counterexample: Some(Counterexample {
                    input: x,
                    got,
                    expected,
                }),
            };
        }
    }
    // The fast scan panicked but no single input does: impossible for a pure function.
    Partial {
        checked: 0,
        max_output,
        counterexample: None,
    }
}
