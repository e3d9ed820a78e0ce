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
use lattice_field::gf3329::{BARRETT_MULTIPLIER, BARRETT_SHIFT, Q, Q32, REDUCE_ONCE_INPUT_MAX};
use lattice_poly_ntt::Portable;
use lattice_poly_ntt::mlkem::{ACCUMULATOR_MAX_TERMS, PRODUCT_TERM_MAX};
use lazykem::__bounds::{COMPRESS_MULTIPLIER, COMPRESS_NUMERATOR_MAX, COMPRESS_SHIFT};

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
    i64::from(lattice_field::gf3329::reduce_once(r as u16))
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
    // The real function at 2q returns q: reduce_once is total, off its domain it subtracts
    // q once.
    let max = i64::from(REDUCE_ONCE_INPUT_MAX);
    let f = |x: i64| i64::from(lattice_field::gf3329::reduce_once(x as u16));
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
    // folds at one more (its entries drop back below one term plus q, the result is right).
    let full = fill_accumulator(Portable, ACCUMULATOR_MAX_TERMS).expect("capacity fits");
    assert!(full.correct);
    assert_eq!(u64::from(full.seen.max()), max_terms * ptm);
    assert_eq!(full.seen.even, full.seen.odd);
    let past = fill_accumulator(Portable, ACCUMULATOR_MAX_TERMS + 1).expect("no panic");
    assert!(past.correct);
    assert!(u64::from(past.seen.max()) < ptm + u64::from(Q));
}

#[test]
fn sabotage_understated_term_bound_is_caught_by_the_worst_case_run() {
    // Declaring a term as one product (q-1)^2, forgetting the second one: the real code
    // reaches 2 (q-1)^2 per term, above what the analysis allows.
    let [mul, _, _] = accumulate::runs_for_rank::<Portable, 2>(Portable);
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
    let runs = accumulate::runs_for_rank::<Portable, 3>(Portable);
    for run in &runs {
        assert!(run.problems.is_empty(), "{:?}", run.problems);
        assert_eq!(run.seen.even, 3 * PRODUCT_TERM_MAX);
        assert_eq!(run.seen.odd, 3 * PRODUCT_TERM_MAX);
        assert_eq!(run.cache_max, Q - 1);
        assert!(accumulate::site_row::<Portable>("x", 3, run).passed());
    }
    // A site row whose run missed the extreme fails: "seen" would prove too little.
    let mut weak = runs[0].clone();
    weak.seen.even -= 1;
    assert!(!accumulate::site_row::<Portable>("x", 3, &weak).passed());
    let single = accumulate::runs_single_product(Portable);
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

// ---------------------------------------------------------------- GF(8380417) and ML-DSA

mod q8380417 {
    use super::super::exhaustive::{Outcome, check_exhaustive};
    use super::super::gf8380417::{
        BARRETT_SHIFT, ExactOp, FieldOp, barrett_boundaries, barrett_constants_row, barrett_row,
        check_barrett, check_op, draw_u64, sampled_row,
    };
    use super::super::mldsa_accumulate::{self, capacity_check, matrix_row};
    use super::super::reductions::barrett_constants_check_for;
    use super::super::sampled::{Phase, RandomSample, check_sampled};
    use super::THREADS;
    use lattice_field::gf8380417::{
        self as gf, BARRETT_MULTIPLIER, CANONICAL_MAX, Q, REDUCE_ONCE_INPUT_MAX,
    };
    use lattice_poly_ntt::mldsa::{ACCUMULATOR_MAX_TERMS, PRODUCT_TERM_MAX};

    const QW: u64 = Q as u64;

    /// The library's Barrett structure for q = 8380417 with a chosen multiplier and shift:
    /// quotient estimate from the 128-bit product, multiply-subtract in `u64`
    /// (overflow-checked in test builds), then `reduce_once` (which leaves a remainder of
    /// 2q or more non-canonical, for the check to catch).
    fn barrett_with(x: u64, m: u64, s: u32) -> i64 {
        let t = ((u128::from(x) * u128::from(m)) >> s) as u64;
        let r = x - t * QW;
        let r = u32::try_from(r).expect("the remainder fits a u32");
        i64::from(gf::reduce_once(r))
    }

    /// `barrett_with` on the boundaries only (no random inputs).
    fn on_boundaries(m: u64, s: u32) -> super::super::sampled::Sampled<u64> {
        check_barrett("sabotaged barrett", 0, THREADS, |x| barrett_with(x, m, s))
    }

    #[test]
    fn sabotage_reduce_once_domain_one_too_large() {
        let max = i64::from(REDUCE_ONCE_INPUT_MAX);
        let f = |x: i64| i64::from(gf::reduce_once(x as u32));
        let reference = |x: i64| x % i64::from(Q);
        assert!(check_exhaustive("reduce_once", 0..=max, THREADS, f, reference).passed());
        let bad = check_exhaustive("reduce_once", 0..=max + 1, THREADS, f, reference);
        let cx = bad.counterexample.expect("counterexample");
        assert_eq!(cx.input, 2 * i64::from(Q));
        // Off the domain reduce_once subtracts q once: 2q gives q.
        assert!(matches!(
            cx.got,
            Outcome::Panicked | Outcome::Value(8380417)
        ));
    }

    #[test]
    fn sabotage_barrett_multiplier_off_by_one_is_caught_by_the_boundaries() {
        let control = on_boundaries(BARRETT_MULTIPLIER, BARRETT_SHIFT);
        assert!(control.passed(), "control: {:?}", control.failure);
        assert_eq!(control.checked, barrett_boundaries().len() as u64);
        // m + 1: the estimate exceeds floor(x / q) for x = -1 mod q from x ~ 3.07e12 on, and
        // x - t q underflows. The first boundary past that is (2^19 - 1) q - 1.
        let bad = on_boundaries(BARRETT_MULTIPLIER + 1, BARRETT_SHIFT);
        let cx = bad.failure.expect("counterexample");
        assert_eq!(cx.phase, Phase::Boundary);
        assert_eq!(cx.input, ((1 << 19) - 1) * QW - 1);
        assert!(matches!(cx.got, Outcome::Panicked | Outcome::Value(_)));
        let row = sampled_row(&bad, CANONICAL_MAX.into(), "", "2^64");
        assert!(!row.passed());
        let expected = format!("counterexample: boundary input {}:", cx.input);
        assert!(row.failures[0].starts_with(&expected), "{:?}", row.failures);
        // m - 1: the estimate can be two below for x above ~1.44e19 (the top multiples of q).
        let bad = on_boundaries(BARRETT_MULTIPLIER - 1, BARRETT_SHIFT);
        let cx = bad.failure.expect("counterexample");
        assert_eq!(cx.phase, Phase::Boundary);
        assert!(cx.input > 14_000_000_000_000_000_000, "{}", cx.input);
        // The constant argument rejects both and accepts the real multiplier.
        let constants = |m| barrett_constants_check_for(QW, m, BARRETT_SHIFT, u64::MAX, 128);
        assert!(constants(BARRETT_MULTIPLIER).passed());
        assert!(!constants(BARRETT_MULTIPLIER + 1).passed());
        assert!(!constants(BARRETT_MULTIPLIER - 1).passed());
        assert!(barrett_constants_row().passed());
    }

    #[test]
    fn sabotage_barrett_shift_too_small_is_caught_by_the_boundaries() {
        // Shift 32, m = floor(2^32 / q) = 512: the estimate is two below from x ~ 8.6e9 on.
        let s = 32;
        let m = (1u64 << s) / QW;
        let bad = on_boundaries(m, s);
        let cx = bad.failure.expect("counterexample");
        assert_eq!(cx.phase, Phase::Boundary);
        assert!(cx.input < 1 << 34, "failure at {}", cx.input);
        assert!(!barrett_constants_check_for(QW, m, s, u64::MAX, 128).passed());
        // The same constants are fine on a domain small enough for them.
        assert!(barrett_constants_check_for(QW, m, s, 1 << 32, 128).passed());
        let small = check_exhaustive(
            "weak barrett",
            0..=1 << 22,
            THREADS,
            |x| barrett_with(x as u64, m, s),
            |x| x % i64::from(Q),
        );
        assert!(small.passed());
    }

    #[test]
    fn random_sample_alone_catches_a_wrong_multiplier_deterministically() {
        const SAMPLE: RandomSample = RandomSample {
            count: 1 << 18,
            seed: 7,
        };
        // No boundaries at all: about a third of uniform u64 fail with m + 1.
        let f = |x: u64| barrett_with(x, BARRETT_MULTIPLIER + 1, BARRETT_SHIFT);
        let reference = |x: u64| (x % QW) as i64;
        let run = |threads| check_sampled("m + 1", &[], SAMPLE, threads, f, reference, draw_u64);
        let one = run(1);
        let cx = one.failure.expect("counterexample");
        assert_eq!(cx.phase, Phase::Random);
        assert!(!one.passed());
        // The same (first) failure whatever the number of threads.
        assert_eq!(run(4).failure.map(|c| c.input), Some(cx.input));
        // The real function passes the same sample.
        let good = check_sampled(
            "barrett",
            &[],
            SAMPLE,
            THREADS,
            |x| i64::from(gf::barrett_reduce(x)),
            reference,
            draw_u64,
        );
        assert!(good.passed());
        assert_eq!(good.checked, 1 << 18);
    }

    #[test]
    fn sabotage_field_operations_are_caught_by_the_boundary_pairs() {
        let exact_mul: ExactOp = |a, b| a * b;
        let exact_sub: ExactOp = |a, b| a - b;
        let cases: [(FieldOp, ExactOp, bool); 4] = [
            (gf::mul, exact_mul, true),
            // The product truncated to 32 bits before the reduction.
            (
                |a, b| gf::barrett_reduce(u64::from(a.wrapping_mul(b))),
                exact_mul,
                false,
            ),
            (gf::sub, exact_sub, true),
            // a - b without adding q first: reduce_once of a wrapped value.
            (
                |a, b| gf::reduce_once(a.wrapping_sub(b) & 0x00ff_ffff),
                exact_sub,
                false,
            ),
        ];
        for (op, exact, correct) in cases {
            let s = check_op("op", op, exact, 0, THREADS);
            assert_eq!(s.passed(), correct, "{:?}", s.failure);
            if !correct {
                assert_eq!(s.failure.map(|f| f.phase), Some(Phase::Boundary));
            }
        }
    }

    #[test]
    fn real_field_rows_pass_on_a_smaller_sample() {
        assert!(barrett_row(1 << 16, THREADS).passed());
        let ops: [(FieldOp, ExactOp); 3] = [
            (gf::add, |a, b| a + b),
            (gf::sub, |a, b| a - b),
            (gf::mul, |a, b| a * b),
        ];
        for (op, exact) in ops {
            let s = check_op("op", op, exact, 1 << 16, THREADS);
            assert!(s.passed(), "{:?}", s.failure);
            assert_eq!(s.max_output, Some(CANONICAL_MAX.into()));
        }
    }

    #[test]
    fn sabotage_term_bound_too_small_for_8x7() {
        let run = mldsa_accumulate::run_matrix::<8, 7>();
        assert!(run.problems.is_empty(), "{:?}", run.problems);
        assert_eq!(run.seen, 7 * PRODUCT_TERM_MAX);
        assert!(matrix_row(&run, PRODUCT_TERM_MAX, 7).passed(), "control");
        // A term declared as (q-2)^2: the real code reaches 7 (q-1)^2, above the analysis.
        let q2 = u64::from(Q - 2);
        let bad = matrix_row(&run, q2 * q2, 7);
        assert!(!bad.passed());
        assert!(
            bad.failures
                .iter()
                .any(|f| f.contains("term bound is wrong"))
        );
        // Six columns declared for the 8 x 7 matrix: likewise.
        let bad = matrix_row(&run, PRODUCT_TERM_MAX, 6);
        assert!(
            bad.failures
                .iter()
                .any(|f| f.contains("term bound is wrong"))
        );
        // A run that missed the extreme fails: "seen" would prove too little.
        let mut weak = run.clone();
        weak.all_max_min -= 1;
        assert!(!matrix_row(&weak, PRODUCT_TERM_MAX, 7).passed());
        // A term bound so large that 7 terms leave u64 fails on the limit.
        let bad = matrix_row(&run, u64::MAX / 6, 7);
        assert!(bad.failures.iter().any(|f| f.contains("above the limit")));
    }

    #[test]
    fn sabotage_accumulator_capacity_off_by_one() {
        let good = super::super::quietly(|| capacity_check(ACCUMULATOR_MAX_TERMS));
        assert!(good.passed(), "{:?}", good.failures);
        // One more than fits: the analysis refuses, and the real accumulator has folded
        // before that many (its raw sums are no longer the exact sums).
        let bad = super::super::quietly(|| capacity_check(ACCUMULATOR_MAX_TERMS + 1));
        assert!(bad.failures.iter().any(|f| f.contains("above the limit")));
        assert!(bad.failures.iter().any(|f| f.contains("wrong result")));
        // One fewer: not the largest count, and the next product does not fold.
        let bad = super::super::quietly(|| capacity_check(ACCUMULATOR_MAX_TERMS - 1));
        assert!(
            bad.failures
                .iter()
                .any(|f| f.contains("not the largest count"))
        );
        assert!(bad.failures.iter().any(|f| f.contains("does not fold")));
    }

    #[test]
    fn mldsa_rows_pass() {
        let (rows, lines) = mldsa_accumulate::rows();
        for row in &rows {
            assert!(row.passed(), "{}: {:?}", row.site, row.failures);
        }
        assert!(lines.contains("8 x 7: 491,619,606,331,392 / 491,619,606,331,392"));
    }
}

// ---------------------------------------------------------------- AVX2 backend

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::super::accumulate::{self, Layout, fill_accumulator};
    use super::super::avx2::{
        NttKernels, barrett_row, barrett_row_with, check_montgomery_mul, montgomery_domain_row,
        montgomery_reduce_row, ntt_inputs, ntt_rows, scan_montgomery_reduce,
    };
    use super::{THREADS, site};
    use lattice_field::gf3329::Q;
    use lattice_poly_ntt::__bounds::avx2::probe;
    use lattice_poly_ntt::__bounds::avx2::{
        AVX2_ACCUMULATOR_LIMIT, AVX2_MAX_TERMS, INTT_LANE_BOUND, NTT_LANE_BOUND,
    };
    use lattice_poly_ntt::Avx2;
    use lattice_poly_ntt::mlkem::PRODUCT_TERM_MAX;

    /// `2^31 - 2^15 q`, computed here rather than taken from the library.
    const TOP: i64 = (1 << 31) - (1 << 15) * Q as i64;

    #[test]
    fn sabotage_montgomery_reduce_domain_beyond_2_31_minus_2_15_q() {
        // The analytic argument needs x + 2^15 q < 2^31: the last safe input is TOP - 1.
        assert!(montgomery_domain_row(TOP - 1).passed(), "control");
        assert!(!montgomery_domain_row(TOP).passed());
        assert!(!montgomery_domain_row(TOP + (1 << 15)).passed());
        if Avx2::detect().is_none() {
            return;
        }
        // Run for real on the top 2^20 inputs below TOP (control) and across it.
        let good = scan_montgomery_reduce(TOP - (1 << 20), TOP - 1, THREADS);
        assert!(good.counterexample.is_none(), "{:?}", good.counterexample);
        assert_eq!(good.checked, 1 << 20);
        let bad = scan_montgomery_reduce(TOP - (1 << 20), TOP + (1 << 12), THREADS);
        let (x, r, _) = bad.counterexample.clone().expect("counterexample");
        // The result (x - m q) / 2^16 = 2^15 wraps to -2^15 at exactly x = TOP.
        assert_eq!((x, r), (TOP, -(1 << 15)));
        assert_eq!(bad.checked, (1 << 20) + 1);
        let row = montgomery_reduce_row(TOP - (1 << 20), TOP + (1 << 12), "sabotage", THREADS);
        assert!(!row.passed());
        assert!(row.failures[0].contains("counterexample: input 2,038,398,976"));
        // The whole domain of the i32 lane (2^31 - 1) fails at the same, smallest, input.
        let all = scan_montgomery_reduce(TOP - (1 << 16), i64::from(i32::MAX), THREADS);
        assert_eq!(all.counterexample.map(|c| c.0), Some(TOP));
        // A window in the middle of the domain, not aligned on 2^16, passes.
        let mid = scan_montgomery_reduce(1_000_003, 1_000_003 + 200_000, THREADS);
        assert!(mid.counterexample.is_none());
        assert_eq!(mid.checked, 200_001);
    }

    /// The zmm NTTs run the AVX2 schedule: every stage's lane maxima and Montgomery inputs
    /// are the AVX2 kernels' own, input by input, and their rows pass.
    #[test]
    fn avx512_ntt_traces_equal_avx2() {
        let Some(avx512) = lattice_poly_ntt::backend::Avx512::detect() else {
            println!("note: CPU without AVX-512, zmm NTT trace test skipped");
            return;
        };
        let inputs = ntt_inputs(64, 0);
        for (name, c) in &inputs {
            let (mut a, mut z) = (*c, *c);
            assert_eq!(
                probe::ntt(&mut a),
                probe::ntt_avx512(&mut z),
                "{name}: forward traces"
            );
            assert_eq!(a, z, "{name}: forward outputs");
            let (mut a, mut z) = (*c, *c);
            assert_eq!(
                probe::inverse_ntt(&mut a),
                probe::inverse_ntt_avx512(&mut z),
                "{name}: inverse traces"
            );
            assert_eq!(a, z, "{name}: inverse outputs");
        }
        let (rows, _) = ntt_rows(
            &NttKernels::avx512(avx512),
            &inputs,
            NTT_LANE_BOUND,
            INTT_LANE_BOUND,
        );
        for row in &rows {
            assert!(row.passed(), "{}: {:?}", row.site, row.failures);
        }
    }

    #[test]
    fn sabotage_ntt_lane_bound_declared_7q() {
        let Some(avx2) = Avx2::detect() else {
            return;
        };
        let inputs = ntt_inputs(8, 0);
        let (good, _) = ntt_rows(
            &NttKernels::avx2(avx2),
            &inputs,
            NTT_LANE_BOUND,
            INTT_LANE_BOUND,
        );
        for row in &good {
            assert!(row.passed(), "{}: {:?}", row.site, row.failures);
        }
        let seven_q = 7 * i32::from(Q);
        let (bad, _) = ntt_rows(&NttKernels::avx2(avx2), &inputs, seven_q, seven_q);
        let (forward, inverse) = (&bad[0], &bad[2]);
        // Forward: the analytic bound of layer 7, 8 (q-1), is not below 7q.
        assert!(!forward.passed());
        assert!(
            forward
                .failures
                .iter()
                .any(|f| f.contains("analytic bound 26,624"))
        );
        // Inverse: the all-(q-1) input reaches 8 (q-1) = 26,624 after layer 3, measured.
        assert!(!inverse.passed());
        assert!(
            inverse
                .failures
                .iter()
                .any(|f| f.contains("len 8: measured |lane| 26,624 not below")),
            "{:?}",
            inverse.failures
        );
        // The output rows do not depend on the declared bound.
        assert!(bad[1].passed() && bad[3].passed());
    }

    #[test]
    fn sabotage_lane_reductions() {
        // The analytic checks run everywhere; the kernels only with AVX2.
        if Avx2::detect().is_none() {
            return;
        }
        assert!(barrett_row().passed(), "control");
        let bad = barrett_row_with((i64::from(Q) - 1) / 2 - 1);
        assert!(!bad.passed());
        assert!(bad.failures[0].contains("counterexample"));
        let qinv = -3327i16;
        let good = [((1353, 1353i16.wrapping_mul(qinv)), vec!["R2"])];
        assert!(check_montgomery_mul(&good, THREADS).passed(), "control");
        // A q^-1 multiple off by one: wrong results (and the table check fails).
        let wrong_qinv = [((1353, 1353i16.wrapping_mul(qinv) + 1), vec!["R2"])];
        let bad = check_montgomery_mul(&wrong_qinv, THREADS);
        assert!(bad.failures.iter().any(|f| f.contains("q^-1 multiple")));
        assert!(bad.failures.iter().any(|f| f.contains("counterexample")));
        // A constant outside |b| < q: the output leaves (-q, q) for some a.
        let b = 3 * Q as i16;
        let big = [((b, b.wrapping_mul(qinv)), vec!["sabotage"])];
        let bad = check_montgomery_mul(&big, THREADS);
        assert!(bad.failures.iter().any(|f| f.contains("outside |b| < q")));
        assert!(bad.failures.iter().any(|f| f.contains("counterexample")));
    }

    #[test]
    fn avx2_accumulator_rows_and_layout() {
        let avx2 = Layout::of::<lattice_poly_ntt::Avx2>();
        assert!(avx2.is_permutation() && !avx2.is_interleaved());
        assert_eq!(avx2.entry(0), (0, false));
        assert_eq!(avx2.entry(8), (0, true));
        assert_eq!(avx2.entry(16 + 7), (15, false));
        assert_eq!(avx2.entry(255), (127, true));
        assert!(Layout::of::<lattice_poly_ntt::Portable>().is_interleaved());
        let ptm = u64::from(PRODUCT_TERM_MAX);
        let limited = |terms: u64| {
            super::super::report::LazySite {
                site: "avx2".into(),
                term_bound: ptm,
                terms,
                limit: AVX2_ACCUMULATOR_LIMIT as u64,
                seen: None,
                method: super::super::report::Method::WorstCase,
            }
            .check()
        };
        assert!(limited(AVX2_MAX_TERMS as u64).passed(), "control");
        assert!(!limited(AVX2_MAX_TERMS as u64 + 1).passed());
        // The portable limit would let far more through: the AVX2 rows must not use it.
        assert!(site(AVX2_MAX_TERMS as u64 + 1, ptm, None).passed());
        let Some(avx2) = Avx2::detect() else {
            return;
        };
        let runs = accumulate::runs_for_rank::<Avx2, 3>(avx2);
        for run in &runs {
            assert!(run.problems.is_empty(), "{:?}", run.problems);
            assert_eq!(run.seen.even, 3 * PRODUCT_TERM_MAX);
            assert_eq!(run.seen.odd, 3 * PRODUCT_TERM_MAX);
            assert!(accumulate::site_row::<Avx2>("x", 3, run).passed());
        }
        let full = fill_accumulator(avx2, AVX2_MAX_TERMS).expect("capacity fits");
        assert!(full.correct);
        assert_eq!(u64::from(full.seen.max()), AVX2_MAX_TERMS as u64 * ptm);
    }
}
