//! `cargo xtask bounds`: machine-checked bounds of every reduction and lazy (unreduced) site.
//!
//! DESIGN.md, "Bounds discipline": every place that skips a reduction states its bound in an
//! exported constant next to the code, and this command proves what can be proved by
//! machine. Every number comes from the crates' own constants
//! (`lattice_field::{gf3329, gf8380417}::{*_INPUT_MAX, BARRETT_*}`,
//! `lattice_poly_ntt::mlkem::{PRODUCT_TERM_MAX, ACCUMULATOR_MAX_TERMS, MAX_RANK,
//! NTT_OUTPUT_MAX}`, `lattice_poly_ntt::mldsa::{PRODUCT_TERM_MAX, ACCUMULATOR_MAX_TERMS,
//! MAX_COLUMNS}`, `lazykem::__bounds::COMPRESS_*`), so the table cannot drift from the code.
//!
//! | part | module | how |
//! |---|---|---|
//! | GF(3329) field reductions, `add`/`sub`/`mul` | [`reductions`] | exhaustive over the declared domain, against `x mod q` (Barrett: all 2^32 inputs, on every core) |
//! | GF(8380417) `reduce_once`, `from_signed`, `not_canonical` | [`gf8380417`] | exhaustive over the declared domain (2q, 2q - 1 and 2^32 inputs) |
//! | GF(8380417) `barrett_reduce` (all of `u64`), `add`/`sub`/`mul` (~2^46 pairs) | [`gf8380417`], [`sampled`] | NOT exhaustive (method `boundaries + random`): every boundary input (multiples of q and powers of two +- 2 across the range, accumulator sums, ...) and 2^28 random inputs (2^26 random pairs per operation), on every core |
//! | GF(8380417) Barrett constants, inner reductions | [`gf8380417`] | the inequalities of the library's `const` assertions, re-evaluated |
//! | Compress_d / Decompress_d, d in {1, 4, 5, 10, 11}, and the reciprocal | [`reductions`] | exhaustive, against the exact rational formula (round half up) |
//! | GF(3329) Barrett / compress constants, call-site domains | [`reductions`] | the inequalities of the library's `const` assertions, re-evaluated |
//! | ML-KEM lazy accumulation for K = 1..4 | [`accumulate`] | the real `Accumulator` / `Matrix` / `NttVector::dot` code on extreme operands |
//! | NTT output ranges, twiddle tables | [`ntt`] | extreme and random inputs |
//! | AVX2 backend: `barrett_reduce_i16`, `montgomery_mul`, `montgomery_reduce_i32`, NTT lanes per layer | [`avx2`] | exhaustive over each declared domain / the probe of `lattice_poly_ntt::__bounds::avx2` on extreme, random and hill-climbed inputs |
//! | AVX2 accumulation for K = 1..4, capacity | [`accumulate`] | the real `Accumulator` with `Avx2`, raw signed 32-bit lanes against `AVX2_ACCUMULATOR_LIMIT` |
//! | ML-DSA lazy accumulation, k x l = 4 x 4, 6 x 5, 8 x 7, capacity | [`mldsa_accumulate`] | the real `mldsa::Matrix::mul_vector` / `Accumulator` (`Portable`) on all-maximal and random operands, raw `u64` sums against exact `u128` sums |
//!
//! | NEON backend: `bmul`, `reduce_centered`, `reduce_canonical`, `add_q_if_negative`, `add_mod`/`sub_mod`, `reduce_wide`, accumulator capacity, NTT lanes per stage | [`neon`] | exhaustive over each declared domain on the scalar models (bit for bit the NEON instructions, compared with them under qemu) / the kernels' own schedules run in an interval domain and on the scalar model; on every host |
//!
//! The AVX-512 token runs the AVX2 kernels with its own declared layout: its accumulation
//! rows are checked the same way, when the CPU has AVX-512.
//!
//! The AVX2 rows run when the CPU has AVX2 (`lattice_poly_ntt::Avx2::detect`), and
//! are one SKIP row otherwise.
//!
//! The checks themselves are plain functions returning a verdict
//! ([`exhaustive::check_exhaustive`], [`sampled::check_sampled`],
//! [`reductions::check_reduction`], [`report::LazySite::check`]), and the sabotage tests in
//! `tests` show that they fail on a broken bound.
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
//! too) and would turn the overflow checks off. `lattice-field` itself needs no override:
//! nothing of it runs out of line in the hot loop.
//!
//! Usage: `cargo xtask bounds [--threads N]` (default: every available core).

mod accumulate;
#[cfg(target_arch = "x86_64")]
mod avx2;
mod exhaustive;
mod gf8380417;
mod mldsa_accumulate;
mod neon;
mod ntt;
mod reductions;
mod report;
mod sampled;
#[cfg(test)]
mod tests;

use accumulate::Checked;
use lattice_poly_ntt::Portable;
use lattice_poly_ntt::mlkem::{MAX_RANK, PRODUCT_TERM_MAX};
use report::{Method, Row, group, headroom};
use std::fmt::Write as _;
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
/// caught, such as a sabotaged reduction overflowing).
fn quietly<T>(f: impl FnOnce() -> T) -> T {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let out = f();
    std::panic::set_hook(hook);
    out
}

/// The lazy accumulation rows of backend `B` for every rank, the per-lane details printed
/// below the table, and the largest raw entry seen.
fn accumulation_rows<B: Checked>(backend: B) -> (Vec<Row>, String, u32) {
    let single = accumulate::runs_single_product(backend);
    let ranks = [
        (2, accumulate::runs_for_rank::<B, 2>(backend)),
        (3, accumulate::runs_for_rank::<B, 3>(backend)),
        (4, accumulate::runs_for_rank::<B, 4>(backend)),
    ];
    let mut rows = if B::layout().is_interleaved() {
        accumulate::term_rows(&single)
    } else {
        // The terms are the same formulas; only the cache (an AVX2 kernel) is new.
        let mut cache = accumulate::term_rows(&single).pop().expect("cache row");
        cache.site = format!("{}{}", cache.site, B::TAG);
        vec![cache]
    };
    rows.push(accumulate::site_row::<B>(
        "multiply_ntts (K = 1)",
        1,
        &single,
    ));
    let names = [
        "Matrix::mul_vector",
        "Matrix::transpose_mul_vector",
        "NttVector::dot",
    ];
    let mut lanes = if B::LANE_MAX == B::LIMIT {
        format!(
            "per lane{} (largest raw accumulator value seen / analytic, headroom to {}):\n",
            B::TAG,
            B::LIMIT_NAME
        )
    } else {
        format!(
            "per lane{} (largest raw accumulator value seen / analytic, headroom to {} = {} and to the lane maximum {}):\n",
            B::TAG,
            B::LIMIT_NAME,
            group(B::LIMIT.into()),
            group(B::LANE_MAX.into())
        )
    };
    let mut worst = single.seen.max();
    lanes.push_str(&lane_line::<B>(1, &[&single]));
    for (k, runs) in &ranks {
        for (name, run) in names.iter().zip(runs) {
            rows.push(accumulate::site_row::<B>(
                &format!("{name} (K = {k})"),
                *k,
                run,
            ));
            worst = worst.max(run.seen.max());
        }
        lanes.push_str(&lane_line::<B>(*k, &runs.iter().collect::<Vec<_>>()));
    }
    let mut rank = accumulate::rank_row::<B>();
    rank.require(ranks.iter().all(|(k, _)| *k <= MAX_RANK), || {
        "a checked rank exceeds MAX_RANK".into()
    });
    rank.require(ranks.iter().any(|(k, _)| *k == MAX_RANK), || {
        format!("MAX_RANK = {MAX_RANK} is not among the ranks run by the worst-case check")
    });
    rows.push(rank);
    (rows, lanes, worst)
}

fn lane_line<B: Checked>(k: usize, runs: &[&accumulate::SiteRun]) -> String {
    let even = runs.iter().map(|r| r.seen.even).max().unwrap_or(0);
    let odd = runs.iter().map(|r| r.seen.odd).max().unwrap_or(0);
    let analytic = k as u128 * u128::from(PRODUCT_TERM_MAX);
    let (c0, c1) = if B::layout().is_interleaved() {
        ("c0 (even)", "c1 (odd)")
    } else {
        ("c0", "c1")
    };
    let mut line = format!(
        "  K = {k}: {c0} {} / {}, {c1} {} / {}, headroom {}",
        group(even.into()),
        group(analytic),
        group(odd.into()),
        group(analytic),
        headroom(B::LIMIT.into(), analytic)
    );
    if B::LANE_MAX != B::LIMIT {
        let _ = write!(
            line,
            " (to the lane maximum {})",
            headroom(B::LANE_MAX.into(), analytic)
        );
    }
    line.push('\n');
    line
}

/// `reduce_accumulator`: every sum of at most `MAX_RANK` products is in the domain of the
/// backend's final reduction.
fn reduce_row<B: Checked>(site: &str, limit_label: &str, worst_raw: u32) -> Row {
    let mut reduce = report::LazySite {
        site: format!("{site}{}", B::TAG),
        term_bound: PRODUCT_TERM_MAX.into(),
        terms: MAX_RANK as u64,
        limit: B::LIMIT,
        seen: Some(worst_raw.into()),
        method: Method::WorstCase,
    }
    .check();
    reduce.limit = format!("{} ({limit_label})", reduce.limit);
    reduce
}

/// The AVX2 rows and their details, or one SKIP row on a CPU (or target) without AVX2.
#[cfg(target_arch = "x86_64")]
fn avx2_rows(threads: usize) -> (Vec<Row>, String) {
    use lattice_poly_ntt::Avx2;
    let Some(token) = Avx2::detect() else {
        return (vec![avx2_skip_row()], String::new());
    };
    let (mut rows, mut details) = avx2::rows(token, threads);
    let (acc_rows, lanes, worst_raw) = accumulation_rows(token);
    rows.extend(acc_rows);
    rows.push(quietly(|| accumulate::capacity_row(token)));
    rows.push(reduce_row::<Avx2>(
        "reduce_accumulator -> montgomery_reduce_i32",
        "AVX2_ACCUMULATOR_LIMIT",
        worst_raw,
    ));
    details.push('\n');
    details.push_str(&lanes);
    (rows, details)
}

/// The AVX-512 token's accumulation rows (it runs the AVX2 kernels, with its own declared
/// layout), or one SKIP row on a CPU without AVX-512.
#[cfg(target_arch = "x86_64")]
fn avx512_rows() -> Vec<Row> {
    let Some(token) = lattice_poly_ntt::Avx512::detect() else {
        return vec![avx512_skip_row()];
    };
    let (mut rows, _, _) = accumulation_rows(token);
    rows.push(quietly(|| accumulate::capacity_row(token)));
    rows
}

#[cfg(not(target_arch = "x86_64"))]
fn avx512_rows() -> Vec<Row> {
    vec![avx512_skip_row()]
}

fn avx512_skip_row() -> Row {
    Row::skip(
        "AVX-512 backend (accumulator)",
        Method::WorstCase,
        "CPU without AVX-512: not run",
    )
}

#[cfg(not(target_arch = "x86_64"))]
fn avx2_rows(_threads: usize) -> (Vec<Row>, String) {
    (vec![avx2_skip_row()], String::new())
}

fn avx2_skip_row() -> Row {
    Row::skip(
        "AVX2 backend (lane reductions, NTT lanes, accumulator)",
        Method::WorstCase,
        "CPU without AVX2: not run",
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
    rows.extend(gf8380417::field_rows(threads));
    phase("gf8380417", t);
    let t = Instant::now();
    rows.extend(reductions::compress_rows(threads));
    phase("compress", t);
    let t = Instant::now();
    rows.push(ntt::table_row());
    rows.extend(ntt::ntt_rows());
    let (acc_rows, lanes, worst_raw) = accumulation_rows(Portable);
    rows.extend(acc_rows);
    rows.push(quietly(|| accumulate::capacity_row(Portable)));
    // Every sum of at most MAX_RANK products goes to barrett_reduce (proved exhaustively above).
    rows.push(reduce_row::<Portable>(
        "reduce_accumulator -> barrett_reduce",
        "BARRETT_INPUT_MAX",
        worst_raw,
    ));
    phase("poly-ntt", t);
    let t = Instant::now();
    let (mldsa_rows, mldsa_lines) = mldsa_accumulate::rows();
    rows.extend(mldsa_rows);
    phase("mldsa", t);
    let t = Instant::now();
    let (simd_rows, simd_details) = avx2_rows(threads);
    rows.extend(simd_rows);
    rows.extend(avx512_rows());
    phase("avx2+avx512", t);
    let t = Instant::now();
    let (neon_rows, neon_details) = neon::rows(threads);
    rows.extend(neon_rows);
    phase("neon (models)", t);

    println!(
        "bounds of every reduction and lazy site (q = {} and q = {}, {threads} threads)\n",
        lattice_field::gf3329::Q,
        lattice_field::gf8380417::Q
    );
    print!("{}", report::render(&rows));
    println!("\n{lanes}");
    println!("{mldsa_lines}");
    println!("{}", gf8380417::details());
    if !simd_details.is_empty() {
        println!("{simd_details}");
    }
    println!("{neon_details}");
    let failed = rows.iter().filter(|r| !r.passed()).count();
    let skipped = rows.iter().filter(|r| r.skipped).count();
    println!(
        "{} rows, {failed} failed, {skipped} skipped; time: {}, total {:.2} s",
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
