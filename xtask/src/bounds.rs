//! `cargo xtask bounds`: machine-checked bounds of every reduction and lazy (unreduced) site.
//!
//! DESIGN.md, "Bounds discipline": every place that skips a reduction states its bound in an
//! exported constant next to the code, and this command proves what can be proved by
//! machine. Every number comes from the crates' own constants (`mlkem_field::*_INPUT_MAX`,
//! `BARRETT_*`, `mlkem_poly_ntt::{PRODUCT_TERM_MAX, ACCUMULATOR_MAX_TERMS, MAX_RANK,
//! NTT_OUTPUT_MAX}`, `mlkem::compress::COMPRESS_*`), so the table cannot drift from the code.
//!
//! | part | module | how |
//! |---|---|---|
//! | field reductions, `add`/`sub`/`mul` | [`reductions`] | exhaustive over the declared domain, against `x mod q` (Barrett: all 2^32 inputs, on every core) |
//! | Compress_d / Decompress_d, d in {1, 4, 5, 10, 11}, and the reciprocal | [`reductions`] | exhaustive, against the exact rational formula (round half up) |
//! | Barrett / compress constants, call-site domains | [`reductions`] | the inequalities of the library's `const` assertions, re-evaluated |
//! | lazy accumulation for K = 1..4 | [`accumulate`] | the real `Accumulator` / `Matrix` / `NttVector::dot` code on extreme operands |
//! | NTT output ranges, twiddle tables | [`ntt`] | extreme and random inputs |
//!
//! The checks themselves are plain functions returning a verdict
//! ([`exhaustive::check_exhaustive`], [`reductions::check_reduction`],
//! [`report::LazySite::check`]), and the sabotage tests in [`tests`] show that they fail on
//! a broken bound.
//!
//! # Speed and overflow checks
//! The exhaustive Barrett proof runs 2^32 reductions. The checked library functions are
//! `#[inline(always)] const fn`s, so they are compiled into this crate's code and get
//! xtask's optimization level. The root `Cargo.toml` therefore sets
//! `[profile.dev.package.xtask] opt-level = 3` with `overflow-checks` and
//! `debug-assertions` explicitly on: `cargo xtask bounds` (a dev build) runs the proof at
//! full speed, in seconds, while an overflow or a library `debug_assert!` still panics, and
//! the checker reports a panic as a failure. This was preferred over a child
//! `cargo run --release`, which would need a second full build of the workspace (in CI
//! too) and would turn the overflow checks off. `mlkem-field` itself needs no override:
//! nothing of it runs out of line in the hot loop.
//!
//! Usage: `cargo xtask bounds [--threads N]` (default: every available core).

mod accumulate;
mod exhaustive;
mod ntt;
mod reductions;
mod report;
#[cfg(test)]
mod tests;

use mlkem_poly_ntt::{ACCUMULATOR_MAX_TERMS, MAX_RANK, PRODUCT_TERM_MAX};
use report::{Method, Row, group, headroom};
use std::time::Instant;

/// Parses `--threads N`.
fn parse_threads(args: &[String]) -> Result<usize, String> {
    let default = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
    match args {
        [] => Ok(default),
        [flag, n] if flag == "--threads" => n
            .parse::<usize>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("--threads expects a positive integer, got `{n}`")),
        _ => Err("usage: cargo xtask bounds [--threads N]".into()),
    }
}

/// Runs `f` with the panic message printer silenced (for panics that are expected and
/// caught, such as the accumulator guard refusing a product).
fn quietly<T>(f: impl FnOnce() -> T) -> T {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let out = f();
    std::panic::set_hook(hook);
    out
}

/// The lazy accumulation rows for every rank, and the per-lane details printed below the
/// table.
fn accumulation_rows() -> (Vec<Row>, String, u32) {
    let single = accumulate::runs_single_product();
    let ranks = [
        (2, accumulate::runs_for_rank::<2>()),
        (3, accumulate::runs_for_rank::<3>()),
        (4, accumulate::runs_for_rank::<4>()),
    ];
    let mut rows = accumulate::term_rows(&single);
    rows.push(accumulate::site_row("multiply_ntts (K = 1)", 1, &single));
    let names = [
        "Matrix::mul_vector",
        "Matrix::transpose_mul_vector",
        "NttVector::dot",
    ];
    let mut lanes = String::from(
        "per lane (largest raw accumulator value seen / analytic, headroom to u32::MAX):\n",
    );
    let mut worst = single.seen.max();
    lanes.push_str(&lane_line(1, &[&single]));
    for (k, runs) in &ranks {
        for (name, run) in names.iter().zip(runs) {
            rows.push(accumulate::site_row(&format!("{name} (K = {k})"), *k, run));
            worst = worst.max(run.seen.max());
        }
        lanes.push_str(&lane_line(*k, &runs.iter().collect::<Vec<_>>()));
    }
    let mut rank = Row::new("MAX_RANK <= ACCUMULATOR_MAX_TERMS", Method::ConstAssert);
    rank.terms = MAX_RANK.to_string();
    rank.limit = ACCUMULATOR_MAX_TERMS.to_string();
    rank.headroom = headroom(ACCUMULATOR_MAX_TERMS as u128, MAX_RANK as u128);
    rank.require(MAX_RANK <= ACCUMULATOR_MAX_TERMS, || {
        "the largest rank does not fit the accumulator".into()
    });
    rank.require(ranks.iter().all(|(k, _)| *k <= MAX_RANK), || {
        "a checked rank exceeds MAX_RANK".into()
    });
    rank.require(ranks.iter().any(|(k, _)| *k == MAX_RANK), || {
        format!("MAX_RANK = {MAX_RANK} is not among the ranks run by the worst-case check")
    });
    rows.push(rank);
    (rows, lanes, worst)
}

fn lane_line(k: usize, runs: &[&accumulate::SiteRun]) -> String {
    let even = runs.iter().map(|r| r.seen.even).max().unwrap_or(0);
    let odd = runs.iter().map(|r| r.seen.odd).max().unwrap_or(0);
    let analytic = k as u128 * u128::from(PRODUCT_TERM_MAX);
    format!(
        "  K = {k}: c0 (even) {} / {}, c1 (odd) {} / {}, headroom {}\n",
        group(even.into()),
        group(analytic),
        group(odd.into()),
        group(analytic),
        headroom(u32::MAX.into(), analytic)
    )
}

/// Runs the command.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let threads = parse_threads(args)?;
    let start = Instant::now();
    let mut timings = Vec::new();
    let mut phase = |name: &str, since: Instant| {
        timings.push(format!("{name} {:.2} s", since.elapsed().as_secs_f64()));
    };

    let t = Instant::now();
    let mut rows = reductions::field_rows(threads);
    phase("field", t);
    let t = Instant::now();
    rows.extend(reductions::compress_rows(threads));
    phase("compress", t);
    let t = Instant::now();
    rows.push(ntt::table_row());
    rows.extend(ntt::ntt_rows());
    let (acc_rows, lanes, worst_raw) = accumulation_rows();
    rows.extend(acc_rows);
    rows.push(quietly(accumulate::capacity_row));
    // Every sum of at most MAX_RANK products goes to barrett_reduce (proved exhaustively above).
    let mut reduce = report::LazySite {
        site: "reduce_accumulator -> barrett_reduce".into(),
        term_bound: PRODUCT_TERM_MAX.into(),
        terms: MAX_RANK as u64,
        limit: mlkem_field::BARRETT_INPUT_MAX.into(),
        seen: Some(worst_raw.into()),
        method: Method::WorstCase,
    }
    .check();
    reduce.limit = format!("{} (BARRETT_INPUT_MAX)", reduce.limit);
    rows.push(reduce);
    phase("poly-ntt", t);

    println!(
        "bounds of every reduction and lazy site (q = {}, {threads} threads)\n",
        mlkem_field::Q
    );
    print!("{}", report::render(&rows));
    println!("\n{lanes}");
    let failed = rows.iter().filter(|r| !r.passed()).count();
    println!(
        "{} rows, {failed} failed; time: {}, total {:.2} s",
        rows.len(),
        timings.join(", "),
        start.elapsed().as_secs_f64()
    );
    if failed == 0 {
        Ok(())
    } else {
        Err(format!("{failed} bound(s) failed"))
    }
}
