//! Worst-case composition: the real lazy accumulation code of `lattice-poly-ntt`
//! ([`Accumulator`], [`Matrix::mul_vector`], [`Matrix::transpose_mul_vector`],
//! [`NttVector::dot`], [`multiply_ntts`]) with each backend ([`Portable`], and `Avx2` on
//! CPUs with AVX2) run on operands at the extremes of their declared ranges, recording the
//! largest raw sum (`__bounds::raw`) per lane and checking every reduced result against
//! an independent computation mod q and against the portable backend.
//!
//! The raw entries are the backend's own ([`Checked::layout`], as the backend declares it): `u32` sums interleaved
//! `c0, c1` per pair for [`Portable`]; signed 32-bit `vpmaddwd` lanes in blocks of eight
//! `c0` then eight `c1` sums for AVX2. Read as `u32`, an AVX2 lane that wrapped negative is
//! above every limit, so it cannot pass unnoticed.
//!
//! Declared ranges: both operands canonical (`<= CANONICAL_MAX`), and the `b*zeta` cache a
//! reduced product, so also `<= CANONICAL_MAX`. A term of the even lane is
//! `a0*b0 + a1*bz`, of the odd lane `a0*b1 + a1*b0`. The even lane reaches its maximum
//! only when `bz = q - 1`, which needs `b1 = -(gamma_i)^-1`; the operand patterns below
//! construct exactly that, and check that the cache really reached `q - 1`.

use super::report::{LazySite, Method, Row, group};
use lattice_field::gf3329::{CANONICAL_MAX, Q, pow};
use lattice_poly_ntt::__bounds::{HasAccumulatorLayout, raw};
use lattice_poly_ntt::mlkem::MlKem;
use lattice_poly_ntt::mlkem::zetas::GAMMAS;
use lattice_poly_ntt::mlkem::{ACCUMULATOR_MAX_TERMS, multiply_ntts};
use lattice_poly_ntt::mlkem::{
    Accumulator, CachedNttPoly, MAX_RANK, Matrix, N, NttPoly, NttVector, PRODUCT_TERM_MAX,
};
use lattice_poly_ntt::{Backend, Portable};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Where the sums of each pair live in a backend's raw accumulator, as the backend itself
/// declares it (`HasAccumulatorLayout::ACCUMULATOR_LAYOUT.coefficient_of`).
#[derive(Clone, Copy)]
pub(crate) struct Layout(fn(usize) -> usize);

impl core::fmt::Debug for Layout {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let first: Vec<usize> = (0..16).map(self.0).collect();
        write!(f, "Layout(first 16 entries hold coefficients {first:?})")
    }
}

impl Layout {
    /// The layout backend `B` declares.
    pub(crate) fn of<B: HasAccumulatorLayout<MlKem>>() -> Self {
        Self(B::ACCUMULATOR_LAYOUT.coefficient_of)
    }

    /// `(pair, is_c1)` of raw entry `index`.
    pub(crate) fn entry(self, index: usize) -> (usize, bool) {
        let c = (self.0)(index);
        (c / 2, c % 2 == 1)
    }

    /// Whether entry `i` holds coefficient `i` (the portable layout).
    pub(crate) fn is_interleaved(self) -> bool {
        (0..N).all(|i| (self.0)(i) == i)
    }

    /// Whether the layout is a permutation of the `N` coefficients (checked before use).
    pub(crate) fn is_permutation(self) -> bool {
        let mut seen = [false; N];
        for i in 0..N {
            let c = (self.0)(i);
            if c >= N || seen[c] {
                return false;
            }
            seen[c] = true;
        }
        true
    }
}

/// A backend as this checker sees it: everything comes from the backend's own
/// `ACCUMULATOR_LAYOUT` (nothing about a particular backend is written here).
pub(crate) trait Checked: Backend<MlKem> + HasAccumulatorLayout<MlKem> {
    /// Appended to the names of its rows.
    const TAG: &'static str = Self::ACCUMULATOR_LAYOUT.tag;
    /// How its [`Backend::MAX_TERMS`] is spelled in the library.
    const MAX_TERMS_NAME: &'static str = Self::ACCUMULATOR_LAYOUT.max_terms_name;
    /// Largest raw entry allowed: the smaller of the lane type's maximum and the domain of
    /// the final reduction.
    const LIMIT: u64 = Self::ACCUMULATOR_LAYOUT.entry_limit as u64;
    /// What [`Self::LIMIT`] is.
    const LIMIT_NAME: &'static str = Self::ACCUMULATOR_LAYOUT.entry_limit_name;
    /// The lane type's maximum.
    const LANE_MAX: u64 = Self::ACCUMULATOR_LAYOUT.lane_max as u64;
    /// Its raw accumulator layout.
    fn layout() -> Layout {
        Layout::of::<Self>()
    }
}

impl<B: Backend<MlKem> + HasAccumulatorLayout<MlKem>> Checked for B {}

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

/// A small deterministic generator (SplitMix64) for the random operands (here and in
/// [`super::sampled`]).
pub(crate) struct SplitMix(pub(crate) u64);

impl SplitMix {
    /// The increment of the state per draw.
    const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

    /// The generator of seed `seed` after `position` draws.
    pub(crate) const fn at(seed: u64, position: u64) -> Self {
        Self(seed.wrapping_add(position.wrapping_mul(Self::GAMMA)))
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(Self::GAMMA);
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
    fn record(&mut self, raw: &[u32; N], layout: Layout) {
        for (index, &value) in raw.iter().enumerate() {
            let lane = if layout.entry(index).1 {
                &mut self.odd
            } else {
                &mut self.even
            };
            *lane = (*lane).max(value);
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

/// Accumulates `terms` through a fresh [`Accumulator`] with backend `B`, records its raw
/// sums, and checks the reduced result against the reference and against what the public
/// API returned, and the raw sums entry by entry against the portable backend's.
fn accumulate_and_check<B: Checked>(
    backend: B,
    run: &mut SiteRun,
    label: &str,
    terms: &[(&NttPoly, &CachedNttPoly)],
    api: &NttPoly,
) {
    let mut acc = Accumulator::new(backend);
    let mut portable = Accumulator::new(Portable);
    for (a, rhs) in terms {
        acc.add_product(a, rhs);
        portable.add_product(a, rhs);
    }
    run.seen.record(raw(&acc), B::layout());
    run.accumulations += 1;
    let reduced = acc.reduce();
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
    let same_raw = raw(&acc).iter().enumerate().all(|(index, &value)| {
        let (pair, c1) = B::layout().entry(index);
        value == raw(&portable)[2 * pair + usize::from(c1)]
    });
    if !same_raw {
        run.problems.push(format!(
            "{label}: raw sums differ from the portable backend's ({:?})",
            B::layout()
        ));
    }
    if reduced != portable.reduce() {
        run.problems.push(format!(
            "{label}: result differs from the portable backend's"
        ));
    }
}

/// The three products of rank `K` on one pair of operand patterns; results go to
/// `runs[site]` with sites `[A*s, A^T*r, dot]`. The public functions return reduced values
/// only, so each of their sums is replayed term by term on a real [`Accumulator`] (same
/// operands, same order) to read its raw entries, and the replay's reduced result must equal
/// what the public function returned.
fn run_rank<B: Checked, const K: usize>(
    backend: B,
    a_pat: APattern,
    b_pat: BPattern,
    runs: &mut [SiteRun; 3],
) {
    let a = Matrix::<K> {
        rows: std::array::from_fn(|r| std::array::from_fn(|c| poly(&a_pat.coeffs(r * K + c)))),
    };
    let plain = NttVector::<K>::new(std::array::from_fn(|j| poly(&b_pat.coeffs(j))));
    let v = plain.cached(backend);
    let reference = plain.cached(Portable);
    let same_cache =
        v.0.iter()
            .zip(&reference.0)
            .all(|(x, y)| x.b_zeta() == y.b_zeta());
    let cache_max = v.0.iter().flat_map(|b| b.b_zeta().iter()).copied().max();
    let cache_max = cache_max.unwrap_or(0);
    let all_cache_max = v.0.iter().all(|b| b.b_zeta().iter().all(|&z| z == MAX));
    for run in runs.iter_mut() {
        run.cache_max = run.cache_max.max(cache_max);
        if b_pat.forces_cache_max() && !all_cache_max {
            run.problems
                .push(format!("{b_pat:?}: the b*zeta cache did not reach q - 1"));
        }
        if !same_cache {
            run.problems.push(format!(
                "{b_pat:?}: the b*zeta cache differs from the portable backend's"
            ));
        }
    }
    let label = format!("K = {K}, {a_pat:?} x {b_pat:?}");
    let [mul, transpose, dot] = runs;
    let api = a.mul_vector(backend, &v);
    if api != a.mul_vector(Portable, &reference) {
        mul.problems.push(format!(
            "{label}: result differs from the portable backend's"
        ));
    }
    for i in 0..K {
        let terms: Vec<_> = (0..K).map(|j| (&a.rows[i][j], &v.0[j])).collect();
        accumulate_and_check(backend, mul, &label, &terms, &api.0[i]);
        // The chunked form with a polynomial added (key generation's t = A s + e, chunk by
        // chunk): the same sums, then an addition mod q of canonical values.
        let plus = &plain.0[0];
        let mut want = api.0[i].clone();
        want.add_assign(Portable, plus);
        let mut got = NttPoly::zero();
        a.mul_vector_row_plus_chunks(backend, &v, i, plus, 0..3, &mut got);
        a.mul_vector_row_plus_chunks(backend, &v, i, plus, 3..N / 32, &mut got);
        if got != want {
            mul.problems.push(format!(
                "{label}: row {i} in chunks plus a polynomial differs from A*v + it"
            ));
        }
    }
    let api = a.transpose_mul_vector(backend, &v);
    if api != a.transpose_mul_vector(Portable, &reference) {
        transpose.problems.push(format!(
            "{label}: result differs from the portable backend's"
        ));
    }
    for i in 0..K {
        let terms: Vec<_> = (0..K).map(|j| (&a.rows[j][i], &v.0[j])).collect();
        accumulate_and_check(backend, transpose, &label, &terms, &api.0[i]);
    }
    let lhs = NttVector::<K>::new(a.rows[0].clone());
    let api = lhs.dot(backend, &v);
    if api != lhs.dot(Portable, &reference) {
        dot.problems.push(format!(
            "{label}: result differs from the portable backend's"
        ));
    }
    let terms: Vec<_> = (0..K).map(|j| (&lhs.0[j], &v.0[j])).collect();
    accumulate_and_check(backend, dot, &label, &terms, &api);
}

/// Runs every operand pattern pair through the products of rank `K` with backend `B`.
pub(crate) fn runs_for_rank<B: Checked, const K: usize>(backend: B) -> [SiteRun; 3] {
    let mut runs: [SiteRun; 3] = Default::default();
    for a_pat in A_PATTERNS {
        for b_pat in B_PATTERNS {
            run_rank::<B, K>(backend, a_pat, b_pat, &mut runs);
        }
    }
    runs
}

/// [`multiply_ntts`] (one product, one reduction) with backend `B` on every operand
/// pattern pair.
pub(crate) fn runs_single_product<B: Checked>(backend: B) -> SiteRun {
    let mut run = SiteRun::default();
    for a_pat in A_PATTERNS {
        for b_pat in B_PATTERNS {
            let a = poly(&a_pat.coeffs(0));
            let b = CachedNttPoly::new(backend, &poly(&b_pat.coeffs(0)));
            if b.b_zeta() != CachedNttPoly::new(Portable, b.poly()).b_zeta() {
                run.problems.push(format!(
                    "{b_pat:?}: the b*zeta cache differs from the portable backend's"
                ));
            }
            run.cache_max = run
                .cache_max
                .max(b.b_zeta().iter().copied().max().unwrap_or(0));
            let api = multiply_ntts(backend, &a, &b);
            let label = format!("K = 1, {a_pat:?} x {b_pat:?}");
            accumulate_and_check(backend, &mut run, &label, &[(&a, &b)], &api);
        }
    }
    run
}

/// The row of one accumulation site: declared term bound and term count against the
/// backend's limit ([`Checked::LIMIT`]: `u32::MAX`, which is also `BARRETT_INPUT_MAX`, for
/// the portable backend; `AVX2_ACCUMULATOR_LIMIT` for AVX2).
pub(crate) fn site_row<B: Checked>(site: &str, terms: usize, run: &SiteRun) -> Row {
    let mut row = LazySite {
        site: format!("{site}{}", B::TAG),
        term_bound: PRODUCT_TERM_MAX.into(),
        terms: terms as u64,
        limit: B::LIMIT,
        seen: Some(run.seen.max().into()),
        method: Method::WorstCase,
    }
    .check();
    row.how_detail = format!("{} sums", run.accumulations);
    row.failures.extend(run.problems.iter().cloned());
    limit_requirements::<B>(&mut row);
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

/// The requirements on [`Checked::LIMIT`] itself.
fn limit_requirements<B: Checked>(row: &mut Row) {
    row.require(B::layout().is_permutation(), || {
        "the declared accumulator layout is not a permutation of the coefficients".into()
    });
    row.require(B::LIMIT <= B::LANE_MAX, || {
        format!("{} is above the lane type's maximum", B::LIMIT_NAME)
    });
    if B::layout().is_interleaved() {
        row.require(
            u64::from(lattice_field::gf3329::BARRETT_INPUT_MAX) >= u64::from(u32::MAX),
            || "the final barrett_reduce does not accept every u32".into(),
        );
    }
}

/// One real [`Accumulator`] filled with all-maximal products.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fill {
    /// Largest raw entries (both lane maxima, over two accumulators).
    pub(crate) seen: LaneMax,
    /// Whether the reduced sums equal the exact sums mod q.
    pub(crate) correct: bool,
}

/// Fills one real [`Accumulator`] with `terms` all-maximal products with backend `B` (both
/// lane maxima in two accumulators) and returns the largest raw values and whether the
/// reduction was right, or `None` if the accumulator panicked.
pub(crate) fn fill_accumulator<B: Checked>(backend: B, terms: usize) -> Option<Fill> {
    let a = poly(&[MAX; N]);
    let mut fill = Fill {
        seen: LaneMax::default(),
        correct: true,
    };
    for b_pat in [BPattern::AllMax, BPattern::CacheMax] {
        let b = CachedNttPoly::new(backend, &poly(&b_pat.coeffs(0)));
        let filled = catch_unwind(AssertUnwindSafe(|| {
            let mut acc = Accumulator::new(backend);
            for _ in 0..terms {
                acc.add_product(&a, &b);
            }
            (*raw(&acc), acc.reduce())
        }));
        let (raw, reduced) = filled.ok()?;
        fill.seen.record(&raw, B::layout());
        let exact = reference_sum(&vec![(&a, b.poly()); terms]);
        fill.correct &= reduced.coeffs() == &exact;
    }
    Some(fill)
}

/// The capacity of [`Accumulator`] with backend `B`: `B::MAX_TERMS` all-maximal products
/// fit [`Checked::LIMIT`] and reduce correctly, the declared capacity is the largest that
/// fits, and one more product folds the sums (stays within the limit, reduces correctly).
pub(crate) fn capacity_row<B: Checked>(backend: B) -> Row {
    let max_terms = B::MAX_TERMS;
    let fill = fill_accumulator(backend, max_terms);
    let mut row = LazySite {
        site: format!("Accumulator capacity ({}){}", B::MAX_TERMS_NAME, B::TAG),
        term_bound: PRODUCT_TERM_MAX.into(),
        terms: max_terms as u64,
        limit: B::LIMIT,
        seen: fill.map(|f| f.seen.max().into()),
        method: Method::WorstCase,
    }
    .check();
    limit_requirements::<B>(&mut row);
    match fill {
        None => row
            .failures
            .push(format!("{max_terms} all-maximal products panicked")),
        Some(f) => row.require(f.correct, || {
            format!("{max_terms} all-maximal products reduce to a wrong result")
        }),
    }
    let next = (max_terms as u128 + 1) * u128::from(PRODUCT_TERM_MAX);
    row.require(next > u128::from(B::LIMIT), || {
        format!("{} is not the largest count that fits", B::MAX_TERMS_NAME)
    });
    match fill_accumulator(backend, max_terms + 1) {
        Some(f) if f.correct && u64::from(f.seen.max()) <= B::LIMIT => {}
        _ => row.failures.push(overfill_report(backend)),
    }
    row.how_detail = "folds at +1".into();
    row
}

/// What happens past the capacity when product `B::MAX_TERMS + 1` does not fold cleanly:
/// adds all-maximal products one at a time (up to twice the largest capacity of any
/// backend) and reports where the accumulator panics, where the entries pass the limit and
/// the lane type, and where the reduced result first goes wrong.
fn overfill_report<B: Checked>(backend: B) -> String {
    let cap = 2 * ACCUMULATOR_MAX_TERMS;
    let a = poly(&[MAX; N]);
    let (mut accepted, mut over_limit, mut over_lane, mut wrong) = (0, None, None, None);
    for b_pat in [BPattern::AllMax, BPattern::CacheMax] {
        let b = CachedNttPoly::new(backend, &poly(&b_pat.coeffs(0)));
        let one = reference_sum(&[(&a, b.poly())]);
        let mut acc = Accumulator::new(backend);
        let mut n = 0;
        while n < cap && catch_unwind(AssertUnwindSafe(|| acc.add_product(&a, &b))).is_ok() {
            n += 1;
            let mut seen = LaneMax::default();
            seen.record(raw(&acc), B::layout());
            let first = |at: &mut Option<usize>, hit: bool| {
                if hit {
                    *at = Some(at.map_or(n, |m| m.min(n)));
                }
            };
            first(&mut over_limit, u64::from(seen.max()) > B::LIMIT);
            first(&mut over_lane, u64::from(seen.max()) > B::LANE_MAX);
            let exact = one.map(|c| ((u64::from(c) * n as u64) % u64::from(Q)) as u16);
            first(&mut wrong, acc.reduce().coeffs() != &exact);
        }
        accepted = accepted.max(n);
    }
    let at =
        |n: Option<usize>| n.map_or_else(|| "never".to_owned(), |n| format!("from product {n}"));
    format!(
        "product number {} (one more than {} = {}) does not fold cleanly: {}; with \
         all-maximal operands the entries pass {} {}, the lane type's maximum {}, and the \
         reduced result is wrong {}",
        B::MAX_TERMS + 1,
        B::MAX_TERMS_NAME,
        B::MAX_TERMS,
        if accepted == cap {
            format!("{cap} products taken without a panic")
        } else {
            format!(
                "{accepted} products taken, number {} panicked",
                accepted + 1
            )
        },
        B::LIMIT_NAME,
        at(over_limit),
        at(over_lane),
        at(wrong)
    )
}

/// The declared capacity `B::MAX_TERMS` against its definition `floor(limit / term)` and
/// against [`MAX_RANK`] (the library asserts the latter at compile time).
pub(crate) fn rank_row<B: Checked>() -> Row {
    let max_terms = B::MAX_TERMS;
    let mut rank = Row::new(
        format!("MAX_RANK <= {}{}", B::MAX_TERMS_NAME, B::TAG),
        Method::ConstAssert,
    );
    rank.terms = MAX_RANK.to_string();
    rank.limit = max_terms.to_string();
    rank.headroom = super::report::headroom(max_terms as u128, MAX_RANK as u128);
    rank.require(MAX_RANK <= max_terms, || {
        "the largest rank does not fit the accumulator".into()
    });
    let fits = B::LIMIT / u64::from(PRODUCT_TERM_MAX);
    rank.require(max_terms as u64 == fits, || {
        format!(
            "{} = {max_terms}, but floor({} / PRODUCT_TERM_MAX) = {fits}",
            B::MAX_TERMS_NAME,
            B::LIMIT_NAME
        )
    });
    if B::layout().is_interleaved() {
        rank.require(max_terms == ACCUMULATOR_MAX_TERMS, || {
            "Portable::MAX_TERMS != ACCUMULATOR_MAX_TERMS".into()
        });
    }
    rank
}
