//! Worst-case composition: the real lazy accumulation code of `mlkem-poly-ntt`
//! ([`Accumulator`] with the [`Portable`] backend, [`Matrix::mul_vector`],
//! [`Matrix::transpose_mul_vector`], [`NttVector::dot`], [`multiply_ntts`]) run on operands at
//! the extremes of their declared ranges, recording the largest raw `u32` sum
//! ([`Accumulator::raw`]) per lane and checking every reduced result against an independent
//! computation mod q.
//!
//! Declared ranges: both operands canonical (`<= CANONICAL_MAX`), and the `b*zeta` cache a
//! reduced product, so also `<= CANONICAL_MAX`. A term of the even lane is
//! `a0*b0 + a1*bz`, of the odd lane `a0*b1 + a1*b0`. The even lane reaches its maximum
//! only when `bz = q - 1`, which needs `b1 = -(gamma_i)^-1`; the operand patterns below
//! construct exactly that, and check that the cache really reached `q - 1`.

use super::report::{LazySite, Method, Row, group};
use mlkem_field::{CANONICAL_MAX, Q, pow};
use mlkem_poly_ntt::zetas::GAMMAS;
use mlkem_poly_ntt::{
    ACCUMULATOR_MAX_TERMS, Accumulator, CachedNttPoly, Matrix, N, NttPoly, NttVector,
    PRODUCT_TERM_MAX, Portable, multiply_ntts,
};
use std::panic::{AssertUnwindSafe, catch_unwind};

const PAIRS: usize = N / 2;
const MAX: u16 = CANONICAL_MAX;
/// Values at and next to the ends of the canonical range.
const EXTREMES: [u16; 5] = [0, 1, MAX / 2, MAX - 1, MAX];

/// `gamma_i^-1 mod q`.
fn gamma_inv(i: usize) -> u16 {
    pow(GAMMAS[i], u32::from(Q) - 2)
}

/// `b1` such that the cache entry `b1 * gamma_i mod q` equals `target`.
fn b1_for_cache(i: usize, target: u16) -> u16 {
    ((u32::from(target) * u32::from(gamma_inv(i))) % u32::from(Q)) as u16
}

/// A small deterministic generator (SplitMix64) for the random operands.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn canonical(&mut self) -> u16 {
        (self.next() % u64::from(Q)) as u16
    }
}

/// Left-hand operand (matrix entry) patterns.
#[derive(Clone, Copy, Debug)]
pub(crate) enum APattern {
    /// Every coefficient q - 1.
    AllMax,
    /// `a0 = q - 1`, `a1 = 0`.
    EvenMax,
    /// `a0 = 0`, `a1 = q - 1`.
    OddMax,
    /// Every combination of [`EXTREMES`] over the pairs, shifted per element.
    Sweep,
    /// Uniform canonical values.
    Random(u64),
}

/// Right-hand operand (vector element) patterns.
#[derive(Clone, Copy, Debug)]
pub(crate) enum BPattern {
    /// Every coefficient q - 1 (the cache `(q-1) gamma_i` varies).
    AllMax,
    /// `b0 = q - 1` and the cache at its maximum `q - 1`.
    CacheMax,
    /// `b0 = q - 1`, `b1 = 0` (cache 0).
    B0Only,
    /// `b0 = 0`, `b1 = q - 1`.
    B1Only,
    /// `b0 = 0`, cache `q - 1`.
    CacheOnly,
    /// Combinations of [`EXTREMES`] for `b0` and for `b1` or the cache.
    Sweep,
    /// Uniform canonical values.
    Random(u64),
}

const A_PATTERNS: [APattern; 6] = [
    APattern::AllMax,
    APattern::EvenMax,
    APattern::OddMax,
    APattern::Sweep,
    APattern::Random(1),
    APattern::Random(2),
];

const B_PATTERNS: [BPattern; 8] = [
    BPattern::AllMax,
    BPattern::CacheMax,
    BPattern::B0Only,
    BPattern::B1Only,
    BPattern::CacheOnly,
    BPattern::Sweep,
    BPattern::Random(3),
    BPattern::Random(4),
];

impl APattern {
    /// Coefficients of the element with tag `tag` (distinct per matrix entry).
    fn coeffs(self, tag: usize) -> [u16; N] {
        let mut rng = SplitMix(match self {
            Self::Random(seed) => seed.wrapping_mul(1000).wrapping_add(tag as u64),
            _ => 0,
        });
        let mut c = [0u16; N];
        for i in 0..PAIRS {
            (c[2 * i], c[2 * i + 1]) = match self {
                Self::AllMax => (MAX, MAX),
                Self::EvenMax => (MAX, 0),
                Self::OddMax => (0, MAX),
                Self::Sweep => {
                    let k = i + 7 * tag;
                    (EXTREMES[k % 5], EXTREMES[(k / 5) % 5])
                }
                Self::Random(_) => (rng.canonical(), rng.canonical()),
            };
        }
        c
    }
}

impl BPattern {
    /// Coefficients of vector element `tag`.
    fn coeffs(self, tag: usize) -> [u16; N] {
        let mut rng = SplitMix(match self {
            Self::Random(seed) => seed.wrapping_mul(1000).wrapping_add(tag as u64),
            _ => 0,
        });
        let mut c = [0u16; N];
        for i in 0..PAIRS {
            (c[2 * i], c[2 * i + 1]) = match self {
                Self::AllMax => (MAX, MAX),
                Self::CacheMax => (MAX, b1_for_cache(i, MAX)),
                Self::B0Only => (MAX, 0),
                Self::B1Only => (0, MAX),
                Self::CacheOnly => (0, b1_for_cache(i, MAX)),
                Self::Sweep => {
                    // 5 values of b0 x (5 values of b1, 5 values of the cache).
                    let k = i + 11 * tag;
                    let second = EXTREMES[(k / 5) % 5];
                    let b1 = if (k / 25).is_multiple_of(2) {
                        second
                    } else {
                        b1_for_cache(i, second)
                    };
                    (EXTREMES[k % 5], b1)
                }
                Self::Random(_) => (rng.canonical(), rng.canonical()),
            };
        }
        c
    }

    /// Whether every cache entry must equal q - 1.
    fn forces_cache_max(self) -> bool {
        matches!(self, Self::CacheMax | Self::CacheOnly)
    }
}

/// Largest raw sums seen, per lane.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LaneMax {
    /// Even lanes (`c0 = a0*b0 + a1*b1*gamma`).
    pub(crate) even: u32,
    /// Odd lanes (`c1 = a0*b1 + a1*b0`).
    pub(crate) odd: u32,
}

impl LaneMax {
    fn record(&mut self, raw: &[u32; N]) {
        for i in 0..PAIRS {
            self.even = self.even.max(raw[2 * i]);
            self.odd = self.odd.max(raw[2 * i + 1]);
        }
    }

    /// The larger of the two lanes.
    pub(crate) fn max(self) -> u32 {
        self.even.max(self.odd)
    }
}

/// What the runs of one site at one rank found.
#[derive(Clone, Debug, Default)]
pub(crate) struct SiteRun {
    /// Largest raw accumulator value per lane.
    pub(crate) seen: LaneMax,
    /// Number of accumulations run.
    pub(crate) accumulations: usize,
    /// Largest `b*zeta` cache entry seen.
    pub(crate) cache_max: u16,
    /// Wrong results, unreached extremes, ...
    pub(crate) problems: Vec<String>,
}

/// An independent `sum_j a_j * b_j` in T_q: exact integers, one `% q` per coefficient.
fn reference_sum(terms: &[(&NttPoly, &NttPoly)]) -> [u16; N] {
    let q = u64::from(Q);
    let mut out = [0u64; N];
    for (a, b) in terms {
        let (a, b) = (a.coeffs(), b.coeffs());
        for i in 0..PAIRS {
            let (a0, a1) = (u64::from(a[2 * i]), u64::from(a[2 * i + 1]));
            let (b0, b1) = (u64::from(b[2 * i]), u64::from(b[2 * i + 1]));
            out[2 * i] += a0 * b0 + a1 * b1 * u64::from(GAMMAS[i]);
            out[2 * i + 1] += a0 * b1 + a1 * b0;
        }
    }
    out.map(|x| (x % q) as u16)
}

fn poly(coeffs: &[u16; N]) -> NttPoly {
    NttPoly::from_coeffs(*coeffs).expect("operand patterns are canonical")
}

/// Accumulates `terms` through a fresh [`Accumulator`], records its raw sums, and checks the
/// reduced result against the reference and against what the public API returned.
fn accumulate_and_check(
    run: &mut SiteRun,
    label: &str,
    terms: &[(&NttPoly, &CachedNttPoly)],
    api: &NttPoly,
) {
    let mut acc = Accumulator::new();
    for (a, b) in terms {
        acc.add_product::<Portable>(a, b);
    }
    run.seen.record(acc.raw());
    run.accumulations += 1;
    let reduced = acc.reduce::<Portable>();
    let plain: Vec<_> = terms.iter().map(|(a, b)| (*a, b.poly())).collect();
    if reduced.coeffs() != &reference_sum(&plain) {
        run.problems.push(format!(
            "{label}: reduced sum differs from the exact sum mod q"
        ));
    }
    if &reduced != api {
        run.problems.push(format!(
            "{label}: public API result differs from the accumulator"
        ));
    }
}

/// The three products of rank `K` on one pair of operand patterns; results go to
/// `runs[site]` with sites `[A*s, A^T*r, dot]`. The public functions return reduced values
/// only, so each of their sums is replayed term by term on a real [`Accumulator`] (same
/// operands, same order) to read its raw entries, and the replay's reduced result must equal
/// what the public function returned.
fn run_rank<const K: usize>(a_pat: APattern, b_pat: BPattern, runs: &mut [SiteRun; 3]) {
    let a = Matrix::<K> {
        rows: std::array::from_fn(|r| std::array::from_fn(|c| poly(&a_pat.coeffs(r * K + c)))),
    };
    let v = NttVector::<K>(std::array::from_fn(|j| poly(&b_pat.coeffs(j)))).cached::<Portable>();
    let cache_max = v.0.iter().flat_map(|b| b.b_zeta().iter()).copied().max();
    let cache_max = cache_max.unwrap_or(0);
    let all_cache_max = v.0.iter().all(|b| b.b_zeta().iter().all(|&z| z == MAX));
    for run in runs.iter_mut() {
        run.cache_max = run.cache_max.max(cache_max);
        if b_pat.forces_cache_max() && !all_cache_max {
            run.problems
                .push(format!("{b_pat:?}: the b*zeta cache did not reach q - 1"));
        }
    }
    let label = format!("K = {K}, {a_pat:?} x {b_pat:?}");
    let [mul, transpose, dot] = runs;
    let api = a.mul_vector::<Portable>(&v);
    for i in 0..K {
        let terms: Vec<_> = (0..K).map(|j| (&a.rows[i][j], &v.0[j])).collect();
        accumulate_and_check(mul, &label, &terms, &api.0[i]);
    }
    let api = a.transpose_mul_vector::<Portable>(&v);
    for i in 0..K {
        let terms: Vec<_> = (0..K).map(|j| (&a.rows[j][i], &v.0[j])).collect();
        accumulate_and_check(transpose, &label, &terms, &api.0[i]);
    }
    let lhs = NttVector::<K>(a.rows[0].clone());
    let api = lhs.dot::<Portable>(&v);
    let terms: Vec<_> = (0..K).map(|j| (&lhs.0[j], &v.0[j])).collect();
    accumulate_and_check(dot, &label, &terms, &api);
}

/// Runs every operand pattern pair through the products of rank `K`.
pub(crate) fn runs_for_rank<const K: usize>() -> [SiteRun; 3] {
    let mut runs: [SiteRun; 3] = Default::default();
    for a_pat in A_PATTERNS {
        for b_pat in B_PATTERNS {
            run_rank::<K>(a_pat, b_pat, &mut runs);
        }
    }
    runs
}

/// [`multiply_ntts`] (one product, one reduction) on every operand pattern pair.
pub(crate) fn runs_single_product() -> SiteRun {
    let mut run = SiteRun::default();
    for a_pat in A_PATTERNS {
        for b_pat in B_PATTERNS {
            let a = poly(&a_pat.coeffs(0));
            let b = CachedNttPoly::new::<Portable>(&poly(&b_pat.coeffs(0)));
            run.cache_max = run
                .cache_max
                .max(b.b_zeta().iter().copied().max().unwrap_or(0));
            let api = multiply_ntts::<Portable>(&a, &b);
            let label = format!("K = 1, {a_pat:?} x {b_pat:?}");
            accumulate_and_check(&mut run, &label, &[(&a, &b)], &api);
        }
    }
    run
}

/// The row of one accumulation site: declared term bound and term count against `u32::MAX`
/// (which is also `BARRETT_INPUT_MAX`, the domain of the final reduction).
pub(crate) fn site_row(site: &str, terms: usize, run: &SiteRun) -> Row {
    let mut row = LazySite {
        site: site.into(),
        term_bound: PRODUCT_TERM_MAX.into(),
        terms: terms as u64,
        limit: u32::MAX.into(),
        seen: Some(run.seen.max().into()),
        method: Method::WorstCase,
    }
    .check();
    row.how_detail = format!("{} sums", run.accumulations);
    row.failures.extend(run.problems.iter().cloned());
    row.require(
        u64::from(mlkem_field::BARRETT_INPUT_MAX) >= u64::from(u32::MAX),
        || "the final barrett_reduce does not accept every u32".into(),
    );
    // The all-maximal operands must actually reach the analytic worst case on both lanes:
    // otherwise the patterns missed the extreme and "seen" proves less than it claims.
    let analytic = terms as u64 * u64::from(PRODUCT_TERM_MAX);
    row.require(
        u64::from(run.seen.even) == analytic && u64::from(run.seen.odd) == analytic,
        || {
            format!(
                "worst case not reached: even lanes {}, odd lanes {}, analytic {}",
                group(run.seen.even.into()),
                group(run.seen.odd.into()),
                group(analytic.into())
            )
        },
    );
    row
}

/// The analytic maximum of one term per lane, from the formulas of the backend contract,
/// against the exported `PRODUCT_TERM_MAX`.
pub(crate) fn term_rows(single: &SiteRun) -> Vec<Row> {
    let canonical = u64::from(CANONICAL_MAX);
    // even: a0*b0 + a1*bz with bz a reduced product; odd: a0*b1 + a1*b0.
    let lanes = [
        ("base-case term c0 = a0 b0 + a1 (b1 zeta)", single.seen.even),
        ("base-case term c1 = a0 b1 + a1 b0", single.seen.odd),
    ];
    let mut rows: Vec<Row> = lanes
        .into_iter()
        .map(|(site, seen)| {
            let mut row = LazySite {
                site: site.into(),
                term_bound: canonical * canonical,
                terms: 2,
                limit: PRODUCT_TERM_MAX.into(),
                seen: Some(seen.into()),
                method: Method::WorstCase,
            }
            .check();
            row.limit = format!("{} (PRODUCT_TERM_MAX)", row.limit);
            row
        })
        .collect();
    let mut cache = Row::new("b*zeta cache (mul_cache)", Method::WorstCase);
    cache.worst = format!(
        "{} / {}",
        group(single.cache_max.into()),
        group(CANONICAL_MAX.into())
    );
    cache.limit = format!("{} (CANONICAL_MAX)", group(CANONICAL_MAX.into()));
    cache.require(single.cache_max == CANONICAL_MAX, || {
        format!(
            "cache maximum {} (expected the extreme {CANONICAL_MAX} to be reached and not exceeded)",
            single.cache_max
        )
    });
    rows.push(cache);
    rows
}

/// Fills one real [`Accumulator`] with `terms` all-maximal products (both lane maxima in
/// two accumulators) and returns the largest raw value, or `None` if the accumulator
/// panicked (its guard, or an overflow).
pub(crate) fn fill_accumulator(terms: usize) -> Option<LaneMax> {
    let a = poly(&[MAX; N]);
    let mut seen = LaneMax::default();
    for b_pat in [BPattern::AllMax, BPattern::CacheMax] {
        let b = CachedNttPoly::new::<Portable>(&poly(&b_pat.coeffs(0)));
        let filled = catch_unwind(AssertUnwindSafe(|| {
            let mut acc = Accumulator::new();
            for _ in 0..terms {
                acc.add_product::<Portable>(&a, &b);
            }
            *acc.raw()
        }));
        seen.record(&filled.ok()?);
    }
    Some(seen)
}

/// The capacity of [`Accumulator`]: `ACCUMULATOR_MAX_TERMS` all-maximal products fit, the
/// declared capacity is the largest that does, and the guard refuses one more product.
pub(crate) fn capacity_row() -> Row {
    let seen = fill_accumulator(ACCUMULATOR_MAX_TERMS);
    let mut row = LazySite {
        site: "Accumulator capacity (ACCUMULATOR_MAX_TERMS)".into(),
        term_bound: PRODUCT_TERM_MAX.into(),
        terms: ACCUMULATOR_MAX_TERMS as u64,
        limit: u32::MAX.into(),
        seen: seen.map(|s| s.max().into()),
        method: Method::WorstCase,
    }
    .check();
    row.require(seen.is_some(), || {
        format!("{ACCUMULATOR_MAX_TERMS} all-maximal products panicked")
    });
    let next = (ACCUMULATOR_MAX_TERMS as u128 + 1) * u128::from(PRODUCT_TERM_MAX);
    row.require(next > u128::from(u32::MAX), || {
        "ACCUMULATOR_MAX_TERMS is not the largest count that fits".into()
    });
    row.require(
        fill_accumulator(ACCUMULATOR_MAX_TERMS + 1).is_none(),
        || "the accumulator accepted one product more than its capacity".into(),
    );
    row.how_detail = "guard refuses +1".into();
    row
}
