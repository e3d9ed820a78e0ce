//! The AVX2 backend (`lattice_poly_ntt::__bounds::avx2`): its lane reductions exhaustively and
//! its NTT lanes layer by layer, through the backend's `probe` module, which runs the
//! kernels' own reductions, butterflies and tables on plain arrays.
//!
//! | row | how |
//! |---|---|
//! | `barrett_reduce_i16` | every `i16`: `r = x mod q`, `|r| <= (q-1)/2` |
//! | `montgomery_mul` | every `i16` times every constant the kernels use (twiddles, gammas, `R2`, `INTT_SCALE`, each with its `q^-1` multiple): `r = a b 2^-16 mod q`, `|r| < q` |
//! | `montgomery_reduce_i32` | every input of `[0, AVX2_ACCUMULATOR_LIMIT]`, 8 lanes per kernel call on all cores: `r = x 2^-16 mod q`, `|r| <= (x + 2^15 q) / 2^16 < 2^15` (each result compared with the signed Montgomery representative `(x - m q) / 2^16`, which is proved to satisfy both; a differing result must satisfy both itself) |
//! | NTT / inverse NTT lanes | the probe's largest `|lane|` after every layer on extreme, random and hill-climbed inputs, against the analytic bound of each layer and `NTT_LANE_BOUND` / `INTT_LANE_BOUND`; outputs equal to the unmodified kernels' and the portable backend's |
//!
//! The accumulator rows (the real `Accumulator` with `Avx2`) come from [`super::accumulate`].

use super::ntt::extreme_inputs;
use super::report::{Method, Row, group, group_signed, headroom};
use lattice_field::gf3329::{CANONICAL_MAX, Q};
use lattice_poly_ntt::__bounds::avx2::probe::{self, INTT_STAGES, NTT_STAGES, Stage, Trace};
use lattice_poly_ntt::__bounds::avx2::{AVX2_ACCUMULATOR_LIMIT, INTT_LANE_BOUND, NTT_LANE_BOUND};
use lattice_poly_ntt::backend::Avx512;
use lattice_poly_ntt::mlkem::MlKem;
use lattice_poly_ntt::mlkem::{N, NTT_OUTPUT_MAX};
use lattice_poly_ntt::{Avx2, Backend, Portable};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::thread;
use std::time::Instant;

/// q as an `i64`.
const QI: i64 = Q as i64;
/// q as an `i32`.
const Q32: i32 = Q as i32;
/// `2^15`: the Montgomery multiplication's input bound `|a| <= 2^15` and the `m` range.
const HALF_R: i64 = 1 << 15;

/// `q^-1 mod 2^16` as a signed 16-bit value, found by search (independent of the library).
fn q_inverse_16() -> i16 {
    (1..=u16::MAX)
        .step_by(2)
        .find(|&x| u32::from(x).wrapping_mul(u32::from(Q)) & 0xffff == 1)
        .expect("q is odd") as i16
}

/// Every `i16`, ascending, in 16-lane blocks.
fn all_i16() -> Vec<[i16; 16]> {
    (0..1 << 12)
        .map(|block| {
            std::array::from_fn(|lane| (i32::from(i16::MIN) + 16 * block + lane as i32) as i16)
        })
        .collect()
}

// ---------------------------------------------------------------- 16-bit reductions

/// `barrett_reduce_i16` on every `i16`: `r = x mod q` and `|r| <= (q-1)/2`.
pub(crate) fn barrett_row() -> Row {
    barrett_row_with((QI - 1) / 2)
}

/// `barrett_reduce_i16` on every `i16` against a declared output bound `|r| <= bound`.
pub(crate) fn barrett_row_with(bound: i64) -> Row {
    let start = Instant::now();
    let inputs = all_i16();
    let mut out = vec![[0i16; 16]; inputs.len()];
    probe::barrett_reduce_i16(&inputs, &mut out);
    let mut row = Row::new("barrett_reduce_i16 [AVX2]", Method::Exhaustive);
    let mut worst = 0;
    let mut checked = 0u64;
    for (x, r) in inputs.iter().flatten().zip(out.iter().flatten()) {
        let (x, r) = (i64::from(*x), i64::from(*r));
        worst = worst.max(r.abs());
        checked += 1;
        if (r - x).rem_euclid(QI) != 0 || r.abs() > bound {
            row.failures.push(format!(
                "counterexample: input {x}: got {r}, expected the representative of {} in [-{bound}, {bound}]",
                x.rem_euclid(QI)
            ));
            break;
        }
    }
    row.worst = format!("out |r| {} / {}", group_signed(worst), group_signed(bound));
    row.limit = "x in [-32,768, 32,767]".into();
    row.how_detail = format!(
        "{} inputs, {:.2} s",
        group(checked.into()),
        start.elapsed().as_secs_f64()
    );
    row.require(checked == 1 << 16, || "not every i16 was checked".into());
    row
}

/// The distinct Montgomery constants of the kernels, `(b, b_qinv)`, with the tables each
/// comes from.
fn montgomery_constants() -> BTreeMap<(i16, i16), Vec<&'static str>> {
    let mut constants: BTreeMap<(i16, i16), Vec<&'static str>> = BTreeMap::new();
    probe::for_each_montgomery_constant(|table, b, bq| {
        let tables = constants.entry((b, bq)).or_default();
        if !tables.contains(&table) {
            tables.push(table);
        }
    });
    constants
}

/// `montgomery_mul(a, b)` for every `i16` `a` and every constant `b` the kernels use (with
/// the kernels' own `q^-1` multiple of it): `r = a b 2^-16 mod q` and `|r| < q`; the
/// constants are within the declared `|b| < q` and their `q^-1` multiples are right.
/// Returns the row and a line naming the tables the constants come from.
pub(crate) fn montgomery_mul_row(threads: usize) -> (Row, String) {
    let constants: Vec<_> = montgomery_constants().into_iter().collect();
    let row = check_montgomery_mul(&constants, threads);
    let mut tables: BTreeMap<&str, usize> = BTreeMap::new();
    probe::for_each_montgomery_constant(|table, _, _| *tables.entry(table).or_default() += 1);
    let tables: Vec<String> = tables
        .iter()
        .map(|(name, count)| format!("{name} ({count})"))
        .collect();
    let details = format!(
        "AVX2 montgomery_mul constants: {} distinct (b, b q^-1) from {}\n",
        constants.len(),
        tables.join(", ")
    );
    (row, details)
}

/// A constant `b`, its `q^-1` multiple, and the tables it comes from.
pub(crate) type MontgomeryConstant = ((i16, i16), Vec<&'static str>);

/// The exhaustive `montgomery_mul` check of every `i16` times each of `constants`.
pub(crate) fn check_montgomery_mul(constants: &[MontgomeryConstant], threads: usize) -> Row {
    let start = Instant::now();
    let qinv = q_inverse_16();
    let inputs = all_i16();
    let mut row = Row::new("montgomery_mul [AVX2]", Method::Exhaustive);
    let b_max = constants
        .iter()
        .map(|((b, _), _)| i32::from(*b).abs())
        .max()
        .unwrap_or(0);
    for ((b, bq), names) in constants {
        row.require(i32::from(*b).abs() < Q32, || {
            format!("constant {b} ({names:?}) is outside |b| < q")
        });
        row.require(*bq == b.wrapping_mul(qinv), || {
            format!(
                "constant {b} ({names:?}): q^-1 multiple {bq}, expected {}",
                b.wrapping_mul(qinv)
            )
        });
    }
    // Each worker takes every `threads`-th constant; a result is (largest |r|, failure).
    let results: Vec<(i64, Option<String>)> = thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|w| {
                let inputs = &inputs;
                scope.spawn(move || {
                    let mut out = vec![[0i16; 16]; inputs.len()];
                    let mut worst = 0i64;
                    for ((b, bq), names) in constants.iter().skip(w).step_by(threads.max(1)) {
                        probe::montgomery_mul(inputs, *b, *bq, &mut out);
                        for (a, r) in inputs.iter().flatten().zip(out.iter().flatten()) {
                            let (a, r) = (i64::from(*a), i64::from(*r));
                            worst = worst.max(r.abs());
                            if (r * (1 << 16) - a * i64::from(*b)).rem_euclid(QI) != 0
                                || r.abs() >= QI
                            {
                                let failure = format!(
                                    "counterexample: a = {a}, b = {b} ({names:?}): got {r}, \
                                     not a b 2^-16 mod q in (-q, q)"
                                );
                                return (worst, Some(failure));
                            }
                        }
                    }
                    (worst, None)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("montgomery_mul worker panicked"))
            .collect()
    });
    let worst = results.iter().map(|(w, _)| *w).max().unwrap_or(0);
    row.failures
        .extend(results.into_iter().filter_map(|(_, failure)| failure));
    row.term_bound = format!("|b| <= {}", group(b_max.unsigned_abs().into()));
    row.terms = format!("{} b", constants.len());
    row.worst = format!("out |r| {} / {}", group_signed(worst), group_signed(QI - 1));
    row.limit = "a in [-32,768, 32,767]".into();
    row.how_detail = format!(
        "{} x {} = {} inputs, {:.2} s",
        constants.len(),
        group(65_536),
        group((constants.len() as u128) << 16),
        start.elapsed().as_secs_f64()
    );
    row
}

// ---------------------------------------------------------------- montgomery_reduce_i32

/// What a `montgomery_reduce_i32` scan found.
#[derive(Clone, Debug)]
pub(crate) struct ReduceScan {
    /// Inputs checked (the domain size when nothing failed).
    pub(crate) checked: u64,
    /// Smallest result.
    pub(crate) out_min: i32,
    /// Largest result.
    pub(crate) out_max: i32,
    /// The smallest failing input, its result, and why.
    pub(crate) counterexample: Option<(i64, i64, String)>,
}

impl Default for ReduceScan {
    fn default() -> Self {
        Self {
            checked: 0,
            out_min: i32::MAX,
            out_max: i32::MIN,
            counterexample: None,
        }
    }
}

impl ReduceScan {
    fn merge(&mut self, other: Self) {
        self.checked += other.checked;
        self.out_min = self.out_min.min(other.out_min);
        self.out_max = self.out_max.max(other.out_max);
        self.counterexample = match (self.counterexample.take(), other.counterexample) {
            (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
            (a, b) => a.or(b),
        };
    }
}

/// Why `r` is not a valid `montgomery_reduce_i32(x)` (`None` if it is): the declared
/// `r = x 2^-16 mod q` and `|r| <= (x + 2^15 q) / 2^16`.
pub(crate) fn reduce_violation(x: i64, r: i64) -> Option<String> {
    if (x - r * (1 << 16)).rem_euclid(QI) != 0 {
        let r_inv = i64::from(lattice_field::gf3329::pow(2, u32::from(Q) - 17));
        return Some(format!(
            "not x 2^-16 mod q (that is {})",
            (x.rem_euclid(QI) * r_inv).rem_euclid(QI)
        ));
    }
    if r.abs() * (1 << 16) > x + HALF_R * QI {
        return Some("|r| above (x + 2^15 q) / 2^16".into());
    }
    None
}

/// `delta[l] = (l - m q) / 2^16` with `m = l q^-1 mod 2^16` in `[-2^15, 2^15)`, for every
/// 16-bit `l`. For `x = 2^16 h + l`, `h + delta[l] = (x - m q) / 2^16` is the signed
/// Montgomery representative of `x`: it is `x 2^-16 mod q` and, as `|m| <= 2^15` and
/// `x >= 0`, `|h + delta[l]| <= (x + 2^15 q) / 2^16`. Both facts are checked here, entry by
/// entry (the division must be exact and every entry must pass [`reduce_violation`] at the
/// smallest `x` with that low half); the scan then compares the kernel with `h + delta[l]`,
/// a comparison the compiler vectorizes, and runs [`reduce_violation`] where they differ.
fn montgomery_deltas() -> Vec<i32> {
    let qinv = q_inverse_16();
    (0..1i64 << 16)
        .map(|l| {
            let m = i64::from((l as i16).wrapping_mul(qinv));
            let t = l - m * QI;
            assert_eq!(
                t.rem_euclid(1 << 16),
                0,
                "l - m q is not a multiple of 2^16"
            );
            let delta = t.div_euclid(1 << 16);
            assert!(
                reduce_violation(l, delta).is_none(),
                "reference formula wrong at {l}"
            );
            delta as i32
        })
        .collect()
}

/// Lanes per kernel batch of the scan (small enough for the buffers to stay in L1).
const CHUNK: usize = 2048;

/// The precomputed expectations of the scan: [`montgomery_deltas`] and the extremes of each
/// [`CHUNK`] of it.
struct Deltas {
    delta: Vec<i32>,
    chunk_extremes: Vec<(i32, i32)>,
}

impl Deltas {
    fn new() -> Self {
        let delta = montgomery_deltas();
        let chunk_extremes = delta
            .chunks(CHUNK)
            .map(|c| {
                let min = c.iter().copied().min().unwrap_or(i32::MAX);
                (min, c.iter().copied().max().unwrap_or(i32::MIN))
            })
            .collect();
        Self {
            delta,
            chunk_extremes,
        }
    }
}

/// Checks the kernel on `x = 2^16 h + l` for `l` in `first..=last`, one [`CHUNK`] at a
/// time, stopping at the first failure.
fn check_block(
    h: i64,
    first: usize,
    last: usize,
    deltas: &Deltas,
    out: &mut [[i32; 8]],
) -> ReduceScan {
    let mut inputs = [[0i32; 8]; CHUNK / 8];
    let mut scan = ReduceScan::default();
    let h32 = h as i32;
    for c in first / CHUNK..=last / CHUNK {
        let base = (h << 16) as i32 + (c * CHUNK) as i32;
        // Wrapping arithmetic (it cannot wrap here) keeps the per-lane loops free of
        // overflow-check branches, so that they vectorize.
        for (i, x) in inputs.as_flattened_mut().iter_mut().enumerate() {
            *x = base.wrapping_add(i as i32);
        }
        probe::montgomery_reduce_i32(&inputs, out);
        let lo = first.max(c * CHUNK) - c * CHUNK;
        let hi = last.min(c * CHUNK + CHUNK - 1) - c * CHUNK;
        let got = &out.as_flattened()[lo..=hi];
        let expected = &deltas.delta[c * CHUNK + lo..=c * CHUNK + hi];
        let differs = got
            .iter()
            .zip(expected)
            .fold(0, |acc, (&r, &d)| acc | (r ^ h32.wrapping_add(d)))
            != 0;
        let (min, max) = if differs {
            let min = got.iter().copied().min().unwrap_or(i32::MAX);
            (min, got.iter().copied().max().unwrap_or(i32::MIN))
        } else if got.len() == CHUNK {
            // The kernel agrees with h + delta: its extremes are those of delta, plus h.
            let (min, max) = deltas.chunk_extremes[c];
            (min + h32, max + h32)
        } else {
            let min = expected.iter().copied().min().unwrap_or(i32::MAX);
            (
                min + h32,
                expected.iter().copied().max().unwrap_or(i32::MIN) + h32,
            )
        };
        scan.out_min = scan.out_min.min(min);
        scan.out_max = scan.out_max.max(max);
        scan.checked += got.len() as u64;
        if differs {
            let violation = got
                .iter()
                .zip(expected)
                .enumerate()
                .find_map(|(i, (&r, &d))| {
                    let x = (h << 16) + (c * CHUNK + lo + i) as i64;
                    (r != h32 + d)
                        .then(|| reduce_violation(x, r.into()))
                        .flatten()
                        .map(|why| (i, x, i64::from(r), why))
                });
            if let Some((i, x, r, why)) = violation {
                // Inputs after the counterexample do not count as checked.
                scan.checked -= (got.len() - i - 1) as u64;
                scan.counterexample = Some((x, r, why));
                return scan;
            }
        }
    }
    scan
}

/// Runs the kernel's `montgomery_reduce_i32` on every `x` of `lo..=hi` (8 lanes per call)
/// in blocks of the `2^16` inputs sharing a high half, taken in ascending order by
/// `threads` workers that stop at the first failure (so the counterexample reported is
/// the smallest failing input).
pub(crate) fn scan_montgomery_reduce(lo: i64, hi: i64, threads: usize) -> ReduceScan {
    assert!(
        0 <= lo && lo <= hi && hi <= i64::from(i32::MAX),
        "domain outside [0, i32::MAX]"
    );
    let deltas = Deltas::new();
    let next = AtomicI64::new(lo >> 16);
    let stop = AtomicBool::new(false);
    let mut total = ReduceScan::default();
    thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = ReduceScan::default();
                    let mut out = [[0i32; 8]; CHUNK / 8];
                    while !stop.load(Ordering::Relaxed) {
                        let h = next.fetch_add(1, Ordering::Relaxed);
                        if h > hi >> 16 {
                            break;
                        }
                        // The part of the block inside the domain.
                        let first = (lo - (h << 16)).max(0) as usize;
                        let last = (hi - (h << 16)).min((1 << 16) - 1) as usize;
                        let block = check_block(h, first, last, &deltas, &mut out);
                        if block.counterexample.is_some() {
                            stop.store(true, Ordering::Relaxed);
                        }
                        mine.merge(block);
                    }
                    mine
                })
            })
            .collect();
        for worker in workers {
            total.merge(
                worker
                    .join()
                    .expect("montgomery_reduce_i32 worker panicked"),
            );
        }
    });
    total
}

/// The row of a `montgomery_reduce_i32` scan over `[lo, hi]`.
pub(crate) fn montgomery_reduce_row(lo: i64, hi: i64, domain: &str, threads: usize) -> Row {
    let start = Instant::now();
    let scan = scan_montgomery_reduce(lo, hi, threads);
    let mut row = Row::new("montgomery_reduce_i32 [AVX2]", Method::Exhaustive);
    let out_bound = (hi + HALF_R * QI) / (1 << 16);
    row.worst = format!(
        "out [{}, {}] / |r| <= {}",
        group_signed(scan.out_min.into()),
        group_signed(scan.out_max.into()),
        group_signed(out_bound)
    );
    row.limit = format!(
        "x in [{}, {}] ({domain})",
        group_signed(lo),
        group_signed(hi)
    );
    let size = (hi - lo + 1) as u64;
    row.how_detail = format!(
        "{} inputs, 8 lanes per call, {:.2} s; r == (x - m q) / 2^16",
        group(scan.checked.into()),
        start.elapsed().as_secs_f64()
    );
    if let Some((x, r, why)) = &scan.counterexample {
        row.failures.push(format!(
            "counterexample: input {} (smallest failing; {} inputs below it pass): got {r}, {why}",
            group_signed(*x),
            group((x - lo) as u128)
        ));
    } else {
        row.require(scan.checked == size, || {
            format!("only {} of {size} inputs checked", scan.checked)
        });
    }
    row
}

/// The Montgomery argument for the accumulator's reduction, from the constants:
/// `|r| <= (x + 2^15 q) / 2^16` stays below `2^15` iff `x + 2^15 q < 2^31`.
pub(crate) fn montgomery_domain_row(limit: i64) -> Row {
    let mut row = Row::new(
        "AVX2_ACCUMULATOR_LIMIT -> montgomery_reduce_i32 [AVX2]",
        Method::Analytic,
    );
    let worst = limit + HALF_R * QI;
    let two31 = 1i64 << 31;
    row.term_bound = format!("x <= {}", group_signed(limit));
    row.worst = format!("- / x + 2^15 q = {}", group_signed(worst));
    row.limit = format!("< 2^31 = {}", group_signed(two31));
    row.headroom = headroom(two31 as u128, worst as u128);
    row.require(worst < two31, || {
        format!(
            "x + 2^15 q reaches {}: the result (x - m q) / 2^16 can be 2^15, which wraps in \
             16 bits; the largest safe limit is 2^31 - 2^15 q - 1 = {}",
            group_signed(worst),
            group_signed(two31 - HALF_R * QI - 1)
        )
    });
    row.require(limit <= i64::from(i32::MAX), || {
        "limit above i32::MAX".into()
    });
    row
}

// ---------------------------------------------------------------- NTT lanes

/// Analytic bounds of every stage, derived from the stage list: `(|lane| after the stage,
/// |Montgomery input| of the stage)`. Forward layers add at most `q - 1` (a Montgomery
/// product is in `(-q, q)`); inverse layers double the sums (the products stay below `q`)
/// and multiply differences of up to twice the previous bound; a Barrett reduction leaves
/// `(q-1)/2`; the scaling leaves `q - 1`; the output is canonical.
fn analytic_bounds(stages: &[Stage], inverse: bool) -> Vec<(i32, i32)> {
    let canonical = i32::from(CANONICAL_MAX);
    let mut bound = canonical;
    stages
        .iter()
        .map(|stage| match stage {
            Stage::Layer(_) if inverse => {
                let input = 2 * bound;
                bound = (2 * bound).max(canonical);
                (bound, input)
            }
            Stage::Layer(_) => {
                let input = bound;
                bound += canonical;
                (bound, input)
            }
            Stage::Barrett => {
                bound = canonical / 2;
                (bound, 0)
            }
            Stage::Scale => {
                let input = bound;
                bound = canonical;
                (bound, input)
            }
            Stage::Output => {
                bound = canonical;
                (bound, 0)
            }
        })
        .collect()
}

/// Per-stage maxima over all runs.
#[derive(Clone, Debug)]
struct StageMax {
    lanes: Vec<i32>,
    mont_inputs: Vec<i32>,
}

impl StageMax {
    fn new(stages: usize) -> Self {
        Self {
            lanes: vec![0; stages],
            mont_inputs: vec![0; stages],
        }
    }

    fn record<const S: usize>(&mut self, trace: &Trace<S>) {
        for s in 0..S {
            self.lanes[s] = self.lanes[s].max(trace.lane_max[s]);
            self.mont_inputs[s] = self.mont_inputs[s].max(trace.mont_input_max[s]);
        }
    }
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Hill-climbs an input to maximize `objective` of the probe's trace: random single
/// coefficient changes (to 0, q-1, (q-1)/2 or a uniform value), kept when not worse.
fn climb(
    start: &[u16; N],
    steps: usize,
    seed: u64,
    objective: impl Fn(&[u16; N]) -> i32,
) -> [u16; N] {
    let mut rng = Rng(seed);
    let mut best = *start;
    let mut best_score = objective(&best);
    let max = CANONICAL_MAX;
    for _ in 0..steps {
        let mut candidate = best;
        for _ in 0..=rng.below(3) {
            let i = rng.below(N as u64) as usize;
            candidate[i] = match rng.below(4) {
                0 => 0,
                1 => max,
                2 => max / 2,
                _ => rng.below(u64::from(Q)) as u16,
            };
        }
        let score = objective(&candidate);
        if score >= best_score {
            (best, best_score) = (candidate, score);
        }
    }
    best
}

fn forward_layers_max(c: &[u16; N]) -> i32 {
    let mut c = *c;
    let trace = probe::ntt(&mut c);
    trace.lane_max[..7].iter().copied().max().unwrap_or(0)
}

/// The inverse NTT's lanes after its first reduction (layers 4 to 7).
fn inverse_late_layers_max(c: &[u16; N]) -> i32 {
    let mut c = *c;
    let trace = probe::inverse_ntt(&mut c);
    [4, 5, 6, 8]
        .map(|s| trace.lane_max[s])
        .into_iter()
        .max()
        .unwrap_or(0)
}

/// The inputs of the NTT checks: the named extreme inputs, `random` uniform ones, and one
/// input hill-climbed for each direction (`climb_steps` steps from the best extreme).
pub(crate) fn ntt_inputs(random: usize, climb_steps: usize) -> Vec<(String, [u16; N])> {
    let mut inputs = extreme_inputs();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for i in 0..random {
        let c = std::array::from_fn(|_| rng.below(u64::from(Q)) as u16);
        inputs.push((format!("uniform #{i}"), c));
    }
    if climb_steps > 0 {
        let best_of = |f: &dyn Fn(&[u16; N]) -> i32| {
            inputs
                .iter()
                .max_by_key(|(_, c)| f(c))
                .map(|(_, c)| *c)
                .expect("inputs")
        };
        let fwd = climb(
            &best_of(&forward_layers_max),
            climb_steps,
            1,
            forward_layers_max,
        );
        let inv = climb(
            &best_of(&inverse_late_layers_max),
            climb_steps,
            2,
            inverse_late_layers_max,
        );
        inputs.push(("hill-climbed (ntt lanes)".into(), fwd));
        inputs.push(("hill-climbed (inverse_ntt lanes after layer 3)".into(), inv));
    }
    inputs
}

/// One backend's NTT kernels and the probe's replay of them, for [`ntt_rows`].
pub(crate) struct NttKernels<B> {
    /// The row tag (`AVX2`, `AVX-512`).
    pub(crate) tag: &'static str,
    pub(crate) backend: B,
    /// The probe's traced forward and inverse kernels of `backend`.
    pub(crate) ntt: fn(&mut [u16; N]) -> Trace<9>,
    pub(crate) inverse_ntt: fn(&mut [u16; N]) -> Trace<11>,
}

impl NttKernels<Avx2> {
    /// The AVX2 backend's kernels.
    pub(crate) fn avx2(backend: Avx2) -> Self {
        Self {
            tag: "AVX2",
            backend,
            ntt: probe::ntt,
            inverse_ntt: probe::inverse_ntt,
        }
    }
}

impl NttKernels<Avx512> {
    /// The AVX-512 backend's zmm kernels (the AVX2 schedule on two halves: the same bounds).
    pub(crate) fn avx512(backend: Avx512) -> Self {
        Self {
            tag: "AVX-512",
            backend,
            ntt: probe::ntt_avx512,
            inverse_ntt: probe::inverse_ntt_avx512,
        }
    }
}

/// The NTT rows: the probe's per-stage lane maxima against the analytic bounds and the
/// declared `ntt_bound` / `intt_bound` (and `i16`), and the outputs of probe, real kernel
/// and portable backend, all equal and canonical. Returns the rows and per-stage details.
pub(crate) fn ntt_rows<B: Backend<MlKem>>(
    kernels: &NttKernels<B>,
    inputs: &[(String, [u16; N])],
    ntt_bound: i32,
    intt_bound: i32,
) -> (Vec<Row>, String) {
    let start = Instant::now();
    let mut fwd = StageMax::new(NTT_STAGES.len());
    let mut inv = StageMax::new(INTT_STAGES.len());
    let tag = kernels.tag;
    let mut fwd_out = Row::new(
        format!("ntt output == kernel == Portable [{tag}]"),
        Method::WorstCase,
    );
    let mut inv_out = Row::new(
        format!("inverse_ntt output == kernel == Portable [{tag}]"),
        Method::WorstCase,
    );
    let (mut fwd_max, mut inv_max) = (0u16, 0u16);
    for (name, c) in inputs {
        let mut traced = *c;
        fwd.record(&(kernels.ntt)(&mut traced));
        let (mut kernel, mut portable) = (*c, *c);
        Backend::<MlKem>::ntt(kernels.backend, &mut kernel);
        <Portable as Backend<MlKem>>::ntt(Portable, &mut portable);
        fwd_max = fwd_max.max(traced.iter().copied().max().unwrap_or(0));
        fwd_out.require(traced == kernel, || {
            format!("{name}: probe output != {tag} ntt")
        });
        fwd_out.require(kernel == portable, || {
            format!("{name}: {tag} ntt != Portable::ntt")
        });
        // The inverse on the input itself and on its transform (the round trip).
        for (what, x) in [("input", *c), ("ntt(input)", portable)] {
            let mut traced = x;
            inv.record(&(kernels.inverse_ntt)(&mut traced));
            let (mut kernel, mut reference) = (x, x);
            Backend::<MlKem>::inverse_ntt(kernels.backend, &mut kernel);
            <Portable as Backend<MlKem>>::inverse_ntt(Portable, &mut reference);
            inv_max = inv_max.max(traced.iter().copied().max().unwrap_or(0));
            inv_out.require(traced == kernel, || {
                format!("{name} ({what}): probe output != {tag} inverse_ntt")
            });
            inv_out.require(kernel == reference, || {
                format!("{name} ({what}): {tag} inverse_ntt != Portable::inverse_ntt")
            });
        }
        inv_out.require(
            {
                let mut back = portable;
                Backend::<MlKem>::inverse_ntt(kernels.backend, &mut back);
                back == *c
            },
            || format!("{name}: {tag} inverse_ntt(ntt(x)) != x"),
        );
    }
    let elapsed = start.elapsed().as_secs_f64();
    for (row, seen) in [(&mut fwd_out, fwd_max), (&mut inv_out, inv_max)] {
        row.worst = format!("{} / {}", group(seen.into()), group(NTT_OUTPUT_MAX.into()));
        row.limit = format!("{} (NTT_OUTPUT_MAX)", group(NTT_OUTPUT_MAX.into()));
        row.how_detail = format!("{} inputs", inputs.len());
        row.require(seen <= NTT_OUTPUT_MAX, || {
            "output above NTT_OUTPUT_MAX".into()
        });
    }
    let mut details = format!(
        "{tag} NTT lanes per stage (largest |lane| seen / analytic; Montgomery input seen / analytic), {} inputs, {elapsed:.2} s:\n",
        inputs.len()
    );
    let fwd_row = lane_row(
        &format!("ntt lanes, layers 1-7 [{tag}]"),
        "NTT_LANE_BOUND",
        &NTT_STAGES,
        false,
        &fwd,
        ntt_bound,
        &mut details,
    );
    let inv_row = lane_row(
        &format!("inverse_ntt lanes between reductions [{tag}]"),
        "INTT_LANE_BOUND",
        &INTT_STAGES,
        true,
        &inv,
        intt_bound,
        &mut details,
    );
    let mut rows = vec![fwd_row, fwd_out, inv_row, inv_out];
    for row in &mut rows[..] {
        if row.how_detail.is_empty() {
            row.how_detail = format!("{} inputs, per stage below", inputs.len());
        }
    }
    (rows, details)
}

/// One direction's lane row: every stage's largest `|lane|` (and Montgomery input) against
/// its analytic bound, every layer's against the declared `bound` (strictly below it, as
/// the module docs say), the analytic bounds against `bound`, `i16` and `2^15`.
fn lane_row(
    site: &str,
    bound_name: &str,
    stages: &[Stage],
    inverse: bool,
    seen: &StageMax,
    bound: i32,
    details: &mut String,
) -> Row {
    let analytic = analytic_bounds(stages, inverse);
    let mut row = Row::new(site, Method::WorstCase);
    let _ = write!(
        details,
        "  {}:",
        if inverse { "inverse_ntt" } else { "ntt" }
    );
    let (mut layer_seen, mut layer_analytic) = (0, 0);
    for (s, stage) in stages.iter().enumerate() {
        let (lane_bound, input_bound) = analytic[s];
        let (lanes, inputs) = (seen.lanes[s], seen.mont_inputs[s]);
        let label = match stage {
            Stage::Layer(len) => format!("len {len}"),
            Stage::Barrett => "barrett".into(),
            Stage::Scale => "x 128^-1".into(),
            Stage::Output => "output".into(),
        };
        let _ = write!(
            details,
            " {label} {} / {}",
            group_signed(lanes.into()),
            group_signed(lane_bound.into())
        );
        if input_bound > 0 {
            let _ = write!(
                details,
                " (mont in {} / {})",
                group_signed(inputs.into()),
                group_signed(input_bound.into())
            );
        }
        details.push(';');
        row.require(lanes <= lane_bound, || {
            format!("{label}: |lane| {lanes} above the analytic bound {lane_bound}")
        });
        row.require(inputs <= input_bound, || {
            format!("{label}: Montgomery input {inputs} above the analytic bound {input_bound}")
        });
        row.require(i64::from(input_bound) <= HALF_R, || {
            format!("{label}: Montgomery input bound {input_bound} above 2^15")
        });
        row.require(lane_bound <= i32::from(i16::MAX), || {
            format!("{label}: analytic bound {lane_bound} above i16::MAX")
        });
        if let Stage::Layer(_) = stage {
            layer_seen = layer_seen.max(lanes);
            layer_analytic = layer_analytic.max(lane_bound);
            row.require(lanes < bound, || {
                format!(
                    "{label}: measured |lane| {} not below the declared {bound_name} = {}",
                    group_signed(lanes.into()),
                    group_signed(bound.into())
                )
            });
            row.require(lane_bound < bound, || {
                format!(
                    "{label}: analytic bound {} not below the declared {bound_name} = {}",
                    group_signed(lane_bound.into()),
                    group_signed(bound.into())
                )
            });
        }
    }
    details.push('\n');
    row.require(bound <= i32::from(i16::MAX), || {
        format!("{bound_name} = {bound} above i16::MAX")
    });
    row.worst = format!(
        "{} / {}",
        group_signed(layer_seen.into()),
        group_signed(layer_analytic.into())
    );
    row.limit = format!(
        "< {} ({bound_name}) <= {}",
        group_signed(bound.into()),
        group_signed(i16::MAX.into())
    );
    row.headroom = headroom(
        bound.unsigned_abs().into(),
        layer_analytic.unsigned_abs().into(),
    );
    row
}

/// Every AVX2 row of this module with the library's declared bounds, and the details.
pub(crate) fn rows(avx2: Avx2, threads: usize) -> (Vec<Row>, String) {
    let (mul, mut details) = montgomery_mul_row(threads);
    let mut rows = vec![barrett_row(), mul];
    rows.push(montgomery_reduce_row(
        0,
        AVX2_ACCUMULATOR_LIMIT,
        "AVX2_ACCUMULATOR_LIMIT",
        threads,
    ));
    rows.push(montgomery_domain_row(AVX2_ACCUMULATOR_LIMIT));
    let inputs = ntt_inputs(2048, 3000);
    let (ntt, ntt_details) = ntt_rows(
        &NttKernels::avx2(avx2),
        &inputs,
        NTT_LANE_BOUND,
        INTT_LANE_BOUND,
    );
    rows.extend(ntt);
    details.push_str(&ntt_details);
    // The AVX-512 backend's zmm NTTs run the same schedule; checked with the same inputs
    // and bounds where the CPU has AVX-512.
    if let Some(avx512) = Avx512::detect() {
        let (ntt, ntt_details) = ntt_rows(
            &NttKernels::avx512(avx512),
            &inputs,
            NTT_LANE_BOUND,
            INTT_LANE_BOUND,
        );
        rows.extend(ntt);
        details.push_str(&ntt_details);
    } else {
        details.push_str("AVX-512 NTT rows skipped: this CPU has no AVX-512F/VL/BW\n");
    }
    (rows, details)
}
