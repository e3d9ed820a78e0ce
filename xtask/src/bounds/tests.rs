//! Tests of the checker itself, above all SABOTAGE tests: each one feeds the checker a
//! deliberately broken bound (a domain one too large, a constant off by one, an
//! accumulator with one term too many, ...) and requires a FAIL, next to a control that
//! passes with the correct bound. They use small domains where the failure is reachable,
//! so they stay fast in a test build.

use super::accumulate::{self, fill_accumulator};
use super::exhaustive::{Outcome, check_exhaustive};
use super::reductions::{
    barrett_constants_check, check_reduction, compress_reciprocal_row, exhaustive_row,
    round_half_up,
};
use super::report::{LazySite, Method, Row, render};
use super::{ntt, parse_threads, reductions};
use mlkem::compress::{COMPRESS_MULTIPLIER, COMPRESS_NUMERATOR_MAX, COMPRESS_SHIFT};
use mlkem_field::{BARRETT_MULTIPLIER, BARRETT_SHIFT, Q, Q32, REDUCE_ONCE_INPUT_MAX};
use mlkem_poly_ntt::{ACCUMULATOR_MAX_TERMS, PRODUCT_TERM_MAX};

const THREADS: usize = 2;

/// A conditional subtraction written independently of the library (no debug assertion):
/// correct on `[0, 2q)`, wrong from `2q` on.
fn subtract_q_once(x: i64) -> i64 {
    if x >= i64::from(Q) {
        x - i64::from(Q)
    } else {
        x
    }
}

/// The library's Barrett structure with a chosen multiplier and shift: quotient estimate,
/// multiply-subtract in `u32` (overflow-checked in test builds), then `reduce_once`.
fn barrett_with(x: i64, m: u64, s: u32) -> i64 {
    let x = x as u32;
    let t = ((u64::from(x) * m) >> s) as u32;
    let r = x - t * Q32;
    i64::from(mlkem_field::reduce_once(r as u16))
}

// ---------------------------------------------------------------- reductions

#[test]
fn sabotage_reduce_once_domain_one_too_large() {
    let max = i64::from(REDUCE_ONCE_INPUT_MAX);
    let good = check_reduction("reduce_once-like", 0..=max, THREADS, subtract_q_once);
    assert!(good.passed(), "control: correct domain must pass");
    let bad = check_reduction("reduce_once-like", 0..=max + 1, THREADS, subtract_q_once);
    assert!(!bad.passed());
    let cx = bad.counterexample.expect("counterexample");
    assert_eq!(cx.input, 2 * i64::from(Q));
    assert_eq!(cx.got, Outcome::Value(i64::from(Q)));
    assert_eq!(cx.expected, 0);
    assert!(!exhaustive_row(&bad, i64::from(Q) - 1, "").passed());
}

#[test]
fn sabotage_library_reduce_once_beyond_its_domain() {
    // The real function at 2q: its debug assertion panics (or, without it, returns q).
    let max = i64::from(REDUCE_ONCE_INPUT_MAX);
    let f = |x: i64| i64::from(mlkem_field::reduce_once(x as u16));
    assert!(check_reduction("reduce_once", 0..=max, THREADS, f).passed());
    let bad = check_reduction("reduce_once", 0..=max + 1, THREADS, f);
    let cx = bad.counterexample.expect("counterexample");
    assert_eq!(cx.input, max + 1);
    assert!(matches!(cx.got, Outcome::Panicked | Outcome::Value(3329)));
}

#[test]
fn sabotage_barrett_multiplier_off_by_one() {
    // With m + 1 the estimate exceeds floor(x / q) only for x = -1 mod q above
    // 2^43 / 2112 ~ 4.16e9: check the top 2^20 inputs of the u32 domain.
    let window = i64::from(u32::MAX) - (1 << 20)..=i64::from(u32::MAX);
    let good = check_reduction("barrett m", window.clone(), THREADS, |x| {
        barrett_with(x, BARRETT_MULTIPLIER, BARRETT_SHIFT)
    });
    assert!(good.passed(), "control: the real multiplier must pass");
    let bad = check_reduction("barrett m + 1", window, THREADS, |x| {
        barrett_with(x, BARRETT_MULTIPLIER + 1, BARRETT_SHIFT)
    });
    let cx = bad.counterexample.expect("counterexample");
    assert_eq!(cx.input % i64::from(Q), i64::from(Q) - 1);
    // The remainder x - t q underflows: an overflow panic in checked builds.
    assert!(matches!(cx.got, Outcome::Panicked | Outcome::Value(_)));
    // The constant argument rejects it too, and accepts the real constants.
    assert!(barrett_constants_check(BARRETT_MULTIPLIER, BARRETT_SHIFT, u32::MAX.into()).passed());
    assert!(
        !barrett_constants_check(BARRETT_MULTIPLIER + 1, BARRETT_SHIFT, u32::MAX.into()).passed()
    );
}

#[test]
fn sabotage_weakened_barrett_fails_early_on_the_full_u32_domain() {
    // Shift 20 instead of 43: the estimate can be two below floor(x / q) from x ~ 1.07e6,
    // so the checker stops after a few blocks although the declared domain is all of u32.
    let s = 20;
    let m = (1u64 << s) / u64::from(Q);
    let bad = check_reduction("weak barrett", 0..=i64::from(u32::MAX), THREADS, |x| {
        barrett_with(x, m, s)
    });
    let cx = bad.counterexample.expect("counterexample");
    assert!(cx.input < 1 << 21, "failure at {}", cx.input);
    assert!(bad.checked < 1 << 22);
    assert!(!barrett_constants_check(m, s, u32::MAX.into()).passed());
    // The same constants are fine on a domain small enough for them.
    assert!(barrett_constants_check(m, s, 1 << 18).passed());
    assert!(
        check_reduction("weak barrett", 0..=1 << 18, THREADS, |x| barrett_with(
            x, m, s
        ))
        .passed()
    );
}

#[test]
fn sabotage_compress_reciprocal_rounded_down() {
    let good = compress_reciprocal_row(
        COMPRESS_MULTIPLIER,
        COMPRESS_SHIFT,
        COMPRESS_NUMERATOR_MAX,
        THREADS,
    );
    assert!(good.passed(), "{:?}", good.failures);
    // floor(2^36 / q) instead of the ceiling: wrong already at y = q.
    let bad = compress_reciprocal_row(
        COMPRESS_MULTIPLIER - 1,
        COMPRESS_SHIFT,
        COMPRESS_NUMERATOR_MAX,
        THREADS,
    );
    assert!(!bad.passed());
    assert!(
        bad.failures[0].contains("input 3329:"),
        "{:?}",
        bad.failures
    );
}

#[test]
fn sabotage_compress_reciprocal_shift_too_small() {
    let s = 20;
    let m = (1u64 << s).div_ceil(u64::from(Q));
    assert!(!compress_reciprocal_row(m, s, COMPRESS_NUMERATOR_MAX, THREADS).passed());
}

#[test]
fn sabotage_compress_without_rounding() {
    // Truncating instead of rounding half up disagrees with the FIPS 203 formula.
    let d = 4;
    let ex = check_exhaustive(
        "truncating compress_4",
        0..=i64::from(Q) - 1,
        THREADS,
        |x| ((x << d) / i64::from(Q)) % (1 << d),
        |x| round_half_up(x << d, i64::from(Q)) % (1 << d),
    );
    assert!(!ex.passed());
}

// ---------------------------------------------------------------- lazy accumulation

fn site(terms: u64, term_bound: u64, seen: Option<u64>) -> Row {
    LazySite {
        site: "site".into(),
        term_bound,
        terms,
        limit: u32::MAX.into(),
        seen,
        method: Method::WorstCase,
    }
    .check()
}

#[test]
fn sabotage_accumulator_site_declaring_more_terms_than_fit() {
    let ptm = u64::from(PRODUCT_TERM_MAX);
    let max_terms = ACCUMULATOR_MAX_TERMS as u64;
    assert!(site(max_terms, ptm, None).passed(), "control");
    let bad = site(max_terms + 1, ptm, None);
    assert!(!bad.passed());
    assert!(bad.failures[0].contains("above the limit"));
    // Run for real: the accumulator holds ACCUMULATOR_MAX_TERMS all-maximal products, and
    // refuses (panics, caught) at one more.
    let full = fill_accumulator(ACCUMULATOR_MAX_TERMS).expect("capacity fits");
    assert_eq!(u64::from(full.max()), max_terms * ptm);
    assert_eq!(full.even, full.odd);
    assert!(fill_accumulator(ACCUMULATOR_MAX_TERMS + 1).is_none());
}

#[test]
fn sabotage_understated_term_bound_is_caught_by_the_worst_case_run() {
    // Declaring a term as one product (q-1)^2, forgetting the second one: the real code
    // reaches 2 (q-1)^2 per term, above what the analysis allows.
    let [mul, _, _] = accumulate::runs_for_rank::<2>();
    let seen = Some(u64::from(mul.seen.max()));
    let ptm = u64::from(PRODUCT_TERM_MAX);
    assert!(site(2, ptm, seen).passed(), "control");
    let one_product = u64::from(Q - 1) * u64::from(Q - 1);
    let bad = site(2, one_product, seen);
    assert!(!bad.passed());
    assert!(
        bad.failures
            .iter()
            .any(|f| f.contains("term bound is wrong"))
    );
}

#[test]
fn worst_case_runs_reach_the_analytic_bound_on_both_lanes() {
    let runs = accumulate::runs_for_rank::<3>();
    for run in &runs {
        assert!(run.problems.is_empty(), "{:?}", run.problems);
        assert_eq!(run.seen.even, 3 * PRODUCT_TERM_MAX);
        assert_eq!(run.seen.odd, 3 * PRODUCT_TERM_MAX);
        assert_eq!(run.cache_max, Q - 1);
        assert!(accumulate::site_row("x", 3, run).passed());
    }
    // A site row whose run missed the extreme fails: "seen" would prove too little.
    let mut weak = runs[0].clone();
    weak.seen.even -= 1;
    assert!(!accumulate::site_row("x", 3, &weak).passed());
    let single = accumulate::runs_single_product();
    assert!(accumulate::term_rows(&single).iter().all(Row::passed));
}

// ---------------------------------------------------------------- the rest

#[test]
fn ntt_ranges_and_tables_pass() {
    assert!(ntt::ntt_rows().iter().all(Row::passed));
    assert!(ntt::table_row().passed());
}

#[test]
fn real_compress_rows_pass() {
    for row in reductions::compress_rows(THREADS) {
        assert!(row.passed(), "{}: {:?}", row.site, row.failures);
    }
}

#[test]
fn smallest_counterexample_is_reported_and_panics_are_failures() {
    // Failures at 300_000 and 200_000 (different blocks, several threads): the smallest wins.
    let ex = check_exhaustive(
        "two bugs",
        0..=1 << 20,
        4,
        |x| i64::from(x == 300_000 || x == 200_000),
        |_| 0,
    );
    assert_eq!(ex.counterexample.map(|c| c.input), Some(200_000));
    let ex = check_exhaustive(
        "panics",
        -5..=1 << 17,
        THREADS,
        |x| {
            assert!(x != 70_000, "boom");
            x
        },
        |x| x,
    );
    let cx = ex.counterexample.expect("counterexample");
    assert_eq!((cx.input, cx.got), (70_000, Outcome::Panicked));
    let fine = check_exhaustive("identity", -5..=1 << 17, THREADS, |x| x, |x| x);
    assert!(fine.passed());
    assert_eq!(fine.checked, (1 << 17) + 6);
    assert_eq!(fine.max_output, Some(1 << 17));
}

#[test]
fn table_marks_failures() {
    let rows = [
        site(1, u64::from(PRODUCT_TERM_MAX), None),
        site(1000, u64::from(PRODUCT_TERM_MAX), None),
    ];
    let table = render(&rows);
    assert!(table.contains("PASS"));
    assert!(table.contains("FAIL site:"));
    assert!(table.contains("193.89x"));
}

#[test]
fn threads_argument() {
    assert!(parse_threads(&[]).unwrap() >= 1);
    assert_eq!(parse_threads(&["--threads".into(), "3".into()]), Ok(3));
    assert!(parse_threads(&["--threads".into(), "0".into()]).is_err());
    assert!(parse_threads(&["--bogus".into()]).is_err());
}
