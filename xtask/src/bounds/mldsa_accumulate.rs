//! ML-DSA's lazy accumulation ([`lattice_poly_ntt::mldsa`]): the real
//! [`Matrix::mul_vector`] and [`Accumulator`] code with the [`Portable`] backend, for the
//! matrix shapes k x l of ML-DSA-44, -65 and -87 (4 x 4, 6 x 5, 8 x 7), on all-maximal
//! operands (every coefficient q - 1, where each pointwise product reaches `(q-1)^2` =
//! [`PRODUCT_TERM_MAX`]) and on random canonical operands.
//!
//! Every raw `u64` entry (`__bounds::raw`) is compared with the exact sum computed in
//! `u128` (so a wrap would show even without overflow checks), the all-maximal run must
//! reach `l (q-1)^2` on every entry, and every reduced coefficient must equal the exact sum
//! mod q and what the public [`Matrix::mul_vector`] returned. The limit of every entry is
//! the smaller of the wide type's maximum and the domain of the final reduction
//! (`Field::WIDE_MAX`, `Field::REDUCE_WIDE_INPUT_MAX`: both `u64::MAX` for GF(8380417)).

use super::accumulate::SplitMix;
use super::report::{LazySite, Method, Row, group, headroom};
use lattice_field::gf8380417::{BARRETT_INPUT_MAX, CANONICAL_MAX, Q};
use lattice_field::{Field, Gf8380417};
use lattice_poly_ntt::__bounds::raw;
use lattice_poly_ntt::mldsa::{
    ACCUMULATOR_MAX_TERMS, Accumulator, CachedNttPoly, CachedNttVector, MAX_COLUMNS, Matrix, MlDsa,
    N, NttPoly, PRODUCT_TERM_MAX,
};
use lattice_poly_ntt::{Backend, Portable, Ring};
use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Largest raw entry allowed: the smaller of the `u64` maximum and the domain of
/// `barrett_reduce` (the trait's constants, so a narrower reduction would show here).
pub(crate) const LIMIT: u64 = {
    let wide = <Gf8380417 as Field>::WIDE_MAX;
    let reduce = <Gf8380417 as Field>::REDUCE_WIDE_INPUT_MAX;
    (if wide < reduce { wide } else { reduce }) as u64
};

/// Operand patterns.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Pattern {
    /// Every coefficient q - 1: every product is `(q-1)^2`.
    AllMax,
    /// Uniform canonical values.
    Random(u64),
}

const PATTERNS: [Pattern; 3] = [Pattern::AllMax, Pattern::Random(1), Pattern::Random(2)];

impl Pattern {
    /// Coefficients of the operand with tag `tag` (distinct per matrix entry and vector
    /// element).
    fn coeffs(self, tag: usize) -> [u32; N] {
        match self {
            Self::AllMax => [CANONICAL_MAX; N],
            Self::Random(seed) => {
                let mut rng = SplitMix(seed.wrapping_mul(1000).wrapping_add(tag as u64));
                std::array::from_fn(|_| (rng.next() % u64::from(Q)) as u32)
            }
        }
    }
}

fn poly(coeffs: &[u32; N]) -> NttPoly {
    NttPoly::from_coeffs(*coeffs).expect("operand patterns are canonical")
}

/// What the runs of one matrix shape found.
#[derive(Clone, Debug)]
pub(crate) struct MatrixRun {
    /// k (rows of A-hat).
    pub(crate) rows: usize,
    /// l (columns: the number of products per accumulator).
    pub(crate) cols: usize,
    /// Largest raw entry seen.
    pub(crate) seen: u64,
    /// Smallest raw entry of the all-maximal run (must equal [`Self::seen`]).
    pub(crate) all_max_min: u64,
    /// Number of accumulations run.
    pub(crate) accumulations: usize,
    /// Wrong results, panics, raw sums that differ from the exact ones.
    pub(crate) problems: Vec<String>,
}

/// `A * v` for `A` of shape `K x L` on every operand pattern: the public
/// [`Matrix::mul_vector`], and each of its rows replayed term by term on a real
/// [`Accumulator`] (same operands, same order) to read its raw entries.
pub(crate) fn run_matrix<const K: usize, const L: usize>() -> MatrixRun {
    let mut run = MatrixRun {
        rows: K,
        cols: L,
        seen: 0,
        all_max_min: u64::MAX,
        accumulations: 0,
        problems: Vec::new(),
    };
    for pattern in PATTERNS {
        let label = format!("{K} x {L}, {pattern:?}");
        let a = Matrix::<K, L> {
            rows: std::array::from_fn(|r| {
                std::array::from_fn(|c| poly(&pattern.coeffs(r * L + c)))
            }),
        };
        let v: CachedNttVector<L> = lattice_poly_ntt::CachedNttVector(std::array::from_fn(|j| {
            CachedNttPoly::new(Portable, &poly(&pattern.coeffs(1000 + j)))
        }));
        let Ok(api) = catch_unwind(AssertUnwindSafe(|| a.mul_vector(Portable, &v))) else {
            run.problems
                .push(format!("{label}: Matrix::mul_vector panicked"));
            continue;
        };
        for i in 0..K {
            let replay = catch_unwind(AssertUnwindSafe(|| {
                let mut acc = Accumulator::new(Portable);
                for j in 0..L {
                    acc.add_product(&a.rows[i][j], &v.0[j]);
                }
                (*raw(&acc), acc.reduce())
            }));
            let Ok((raw, reduced)) = replay else {
                run.problems
                    .push(format!("{label}, row {i}: the accumulator panicked"));
                continue;
            };
            run.accumulations += 1;
            let exact: [u128; N] = std::array::from_fn(|c| {
                (0..L)
                    .map(|j| {
                        u128::from(a.rows[i][j].coeffs()[c]) * u128::from(v.0[j].poly().coeffs()[c])
                    })
                    .sum()
            });
            run.seen = run.seen.max(raw.iter().copied().max().unwrap_or(0));
            if matches!(pattern, Pattern::AllMax) {
                run.all_max_min = run.all_max_min.min(raw.iter().copied().min().unwrap_or(0));
            }
            if raw.iter().zip(&exact).any(|(&r, &e)| u128::from(r) != e) {
                run.problems.push(format!(
                    "{label}, row {i}: raw sums differ from the exact u128 sums"
                ));
            }
            let expected = exact.map(|e| (e % u128::from(Q)) as u32);
            if reduced.coeffs() != &expected {
                run.problems.push(format!(
                    "{label}, row {i}: reduced sum differs from the exact sum mod q"
                ));
            }
            if reduced != api.0[i] {
                run.problems.push(format!(
                    "{label}, row {i}: Matrix::mul_vector differs from the accumulator"
                ));
            }
        }
    }
    run
}

/// The three shapes of ML-DSA-44, -65 and -87.
pub(crate) fn runs() -> [MatrixRun; 3] {
    [
        run_matrix::<4, 4>(),
        run_matrix::<6, 5>(),
        run_matrix::<8, 7>(),
    ]
}

/// The row of one shape, with the declared bound of one term and the declared number of
/// terms (the real values are [`PRODUCT_TERM_MAX`] and l; the sabotage tests pass others).
pub(crate) fn matrix_row(run: &MatrixRun, term_bound: u64, terms: u64) -> Row {
    let mut row = LazySite {
        site: format!("mldsa Matrix::<{}, {}>::mul_vector", run.rows, run.cols),
        term_bound,
        terms,
        limit: LIMIT,
        seen: Some(run.seen),
        method: Method::WorstCase,
    }
    .check();
    row.how_detail = format!("{} sums", run.accumulations);
    row.failures.extend(run.problems.iter().cloned());
    limit_requirements(&mut row);
    // The all-maximal operands must reach the analytic worst case on every entry:
    // otherwise "seen" proves less than it claims.
    let analytic = u128::from(terms) * u128::from(term_bound);
    row.require(
        u128::from(run.seen) == analytic && run.all_max_min == run.seen,
        || {
            format!(
                "worst case not reached on every entry: all-maximal entries in [{}, {}], analytic {}",
                group(run.all_max_min.into()),
                group(run.seen.into()),
                group(analytic)
            )
        },
    );
    row
}

/// The library's constants against each other: the ring's term bound, the capacities, and
/// that the last reduction accepts every `u64`.
fn limit_requirements(row: &mut Row) {
    row.require(BARRETT_INPUT_MAX == u64::MAX && LIMIT == u64::MAX, || {
        "the final barrett_reduce does not accept every u64".into()
    });
    row.require(
        <MlDsa as Ring>::PRODUCT_TERM_MAX == u128::from(PRODUCT_TERM_MAX),
        || "Ring::PRODUCT_TERM_MAX != mldsa::PRODUCT_TERM_MAX".into(),
    );
}

/// One real [`Accumulator`] filled with all-maximal products.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fill {
    /// Largest raw entry.
    pub(crate) seen: u64,
    /// Whether every raw entry is the exact sum and the reduced sums are right.
    pub(crate) correct: bool,
    /// Whether one more product folded the sums: the raw entries are then the reduced
    /// sums plus that one product, the count went on, and the reduction is right.
    pub(crate) folds_next: bool,
}

/// Fills one real [`Accumulator`] with `terms` all-maximal products, or `None` if that
/// panicked; then adds one more product.
pub(crate) fn fill_accumulator(terms: usize) -> Option<Fill> {
    let a = poly(&[CANONICAL_MAX; N]);
    let b = CachedNttPoly::new(Portable, &a);
    let mut acc = Accumulator::new(Portable);
    catch_unwind(AssertUnwindSafe(|| {
        for _ in 0..terms {
            acc.add_product(&a, &b);
        }
    }))
    .ok()?;
    let exact = terms as u128 * u128::from(PRODUCT_TERM_MAX);
    let sums = *raw(&acc);
    let expected = (exact % u128::from(Q)) as u32;
    let correct = sums.iter().all(|&r| u128::from(r) == exact)
        && acc.reduce().coeffs().iter().all(|&c| c == expected);
    let next = catch_unwind(AssertUnwindSafe(|| acc.add_product(&a, &b)));
    let folded = u64::from(expected) + PRODUCT_TERM_MAX;
    let expected_next = ((exact + u128::from(PRODUCT_TERM_MAX)) % u128::from(Q)) as u32;
    let folds_next = next.is_ok()
        && acc.terms() == terms + 1
        && raw(&acc).iter().all(|&r| r == folded)
        && acc.reduce().coeffs().iter().all(|&c| c == expected_next);
    Some(Fill {
        seen: sums.iter().copied().max().unwrap_or(0),
        correct,
        folds_next,
    })
}

/// One pointwise product of canonical operands against the declared [`PRODUCT_TERM_MAX`].
pub(crate) fn term_row() -> Row {
    let canonical = u64::from(CANONICAL_MAX);
    let fill = fill_accumulator(1);
    let mut row = LazySite {
        site: "mldsa pointwise term a b".into(),
        term_bound: canonical * canonical,
        terms: 1,
        limit: PRODUCT_TERM_MAX,
        seen: fill.map(|f| f.seen),
        method: Method::WorstCase,
    }
    .check();
    row.limit = format!("{} (PRODUCT_TERM_MAX)", row.limit);
    match fill {
        None => row.failures.push("one product panicked".into()),
        Some(f) => {
            row.require(f.correct, || "one product reduces wrongly".into());
            row.require(f.seen == PRODUCT_TERM_MAX, || {
                format!(
                    "the all-maximal product {} is not PRODUCT_TERM_MAX",
                    group(f.seen.into())
                )
            });
        }
    }
    limit_requirements(&mut row);
    row
}

/// The capacity: [`ACCUMULATOR_MAX_TERMS`] all-maximal products fit [`LIMIT`] and reduce
/// correctly, it is the largest count that fits, and one more product folds the sums.
pub(crate) fn capacity_row() -> Row {
    capacity_check(ACCUMULATOR_MAX_TERMS)
}

/// [`capacity_row`] for a declared capacity `max_terms`.
pub(crate) fn capacity_check(max_terms: usize) -> Row {
    let fill = fill_accumulator(max_terms);
    let mut row = LazySite {
        site: "mldsa Accumulator capacity (ACCUMULATOR_MAX_TERMS)".into(),
        term_bound: PRODUCT_TERM_MAX,
        terms: max_terms as u64,
        limit: LIMIT,
        seen: fill.map(|f| f.seen),
        method: Method::WorstCase,
    }
    .check();
    limit_requirements(&mut row);
    match fill {
        None => row
            .failures
            .push(format!("{max_terms} all-maximal products panicked")),
        Some(f) => {
            row.require(f.correct, || {
                format!("{max_terms} all-maximal products reduce to a wrong result")
            });
            row.require(f.folds_next, || {
                format!(
                    "the accumulator does not fold at product number {}",
                    max_terms + 1
                )
            });
        }
    }
    let next = (max_terms as u128 + 1) * u128::from(PRODUCT_TERM_MAX);
    row.require(next > u128::from(LIMIT), || {
        format!("{max_terms} is not the largest count that fits")
    });
    row.require(
        <Portable as Backend<MlDsa>>::MAX_TERMS == max_terms
            && <MlDsa as Ring>::MAX_TERMS == max_terms,
        || "Backend::MAX_TERMS / Ring::MAX_TERMS differ from the declared capacity".into(),
    );
    row.how_detail = "folds at +1".into();
    row
}

/// `MAX_COLUMNS <= ACCUMULATOR_MAX_TERMS` (a library `const` assertion), and the widest
/// shape run is `MAX_COLUMNS` wide.
pub(crate) fn columns_row(runs: &[MatrixRun]) -> Row {
    let mut row = Row::new(
        "mldsa MAX_COLUMNS <= ACCUMULATOR_MAX_TERMS",
        Method::ConstAssert,
    );
    row.terms = MAX_COLUMNS.to_string();
    row.limit = group(ACCUMULATOR_MAX_TERMS as u128);
    row.headroom = headroom(ACCUMULATOR_MAX_TERMS as u128, MAX_COLUMNS as u128);
    row.require(MAX_COLUMNS <= ACCUMULATOR_MAX_TERMS, || {
        "the widest matrix does not fit the accumulator".into()
    });
    let fits = LIMIT / PRODUCT_TERM_MAX;
    row.require(ACCUMULATOR_MAX_TERMS as u64 == fits, || {
        format!("ACCUMULATOR_MAX_TERMS = {ACCUMULATOR_MAX_TERMS}, but floor(u64::MAX / PRODUCT_TERM_MAX) = {fits}")
    });
    row.require(runs.iter().all(|r| r.cols <= MAX_COLUMNS), || {
        "a checked shape is wider than MAX_COLUMNS".into()
    });
    row.require(runs.iter().any(|r| r.cols == MAX_COLUMNS), || {
        format!("MAX_COLUMNS = {MAX_COLUMNS} is not among the shapes run by the worst-case check")
    });
    row
}

/// `reduce_accumulator`: every sum of at most `MAX_COLUMNS` products is in the domain of
/// `barrett_reduce`.
pub(crate) fn reduce_row(runs: &[MatrixRun]) -> Row {
    let mut row = LazySite {
        site: "mldsa reduce_accumulator -> gf8380417::barrett_reduce".into(),
        term_bound: PRODUCT_TERM_MAX,
        terms: MAX_COLUMNS as u64,
        limit: BARRETT_INPUT_MAX,
        seen: runs.iter().map(|r| r.seen).max(),
        method: Method::WorstCase,
    }
    .check();
    row.limit = format!("{} (BARRETT_INPUT_MAX)", row.limit);
    row
}

/// The rows, and the per-shape lines printed below the table.
pub(crate) fn rows() -> (Vec<Row>, String) {
    let runs = runs();
    let mut rows = vec![term_row()];
    let mut lines = format!(
        "ML-DSA accumulator (largest raw u64 entry seen / analytic l (q-1)^2, headroom to u64::MAX = BARRETT_INPUT_MAX = {}):\n",
        group(LIMIT.into())
    );
    for run in &runs {
        rows.push(matrix_row(run, PRODUCT_TERM_MAX, run.cols as u64));
        let analytic = run.cols as u128 * u128::from(PRODUCT_TERM_MAX);
        let _ = writeln!(
            lines,
            "  {} x {}: {} / {}, headroom {}",
            run.rows,
            run.cols,
            group(run.seen.into()),
            group(analytic),
            headroom(LIMIT.into(), analytic)
        );
    }
    rows.push(columns_row(&runs));
    rows.push(super::quietly(capacity_row));
    rows.push(reduce_row(&runs));
    (rows, lines)
}
