//! `cargo xtask bench-report`: the KEM comparison table and charts.
//!
//! Runs `cargo bench -p mlkem-benches --features peers --bench kem -- <filter>` (ours and
//! every peer, in one criterion run, on the same inputs), then reads criterion's saved
//! estimates (`target/criterion/**/new/{benchmark,estimates}.json`) and writes
//! `target/bench-report/report.md` (also printed to stdout) with one table per parameter set
//! (rows: operations; columns: libraries; cells: median µs/op and the ratio to the fastest
//! library of the row), plus one hand-written SVG bar chart per parameter set.
//!
//! ```text
//! cargo xtask bench-report                      # run the benchmarks, then report
//! cargo xtask bench-report --from-saved         # only read the saved estimates
//! cargo xtask bench-report --filter 'ML-KEM-768' -- --measurement-time 2
//! ```
//!
//! After a run, only estimates written by that run are reported (stale results of earlier
//! runs, e.g. of a library since removed, cannot leak into the table); `--from-saved`
//! (alias `--no-run-bench`) reports every saved `kem/...` estimate.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

const USAGE: &str = "usage: cargo xtask bench-report [--from-saved | --no-run-bench] \
                     [--filter REGEX] [-- CRITERION_ARGS...]";

/// Criterion filter selecting the KEM benchmarks (IDs `kem/<set>/<operation>/<library>`).
const DEFAULT_FILTER: &str = "^kem/";

/// Group prefix of the KEM benchmarks.
const GROUP_PREFIX: &str = "kem/";

/// Row order of the tables; other operations found follow, alphabetically.
const OPERATIONS: [&str; 5] = [
    "keygen",
    "encaps",
    "encaps_from_bytes",
    "decaps",
    "decaps_from_bytes",
];

/// Column order of the tables; other libraries found follow, alphabetically.
const LIBRARIES: [&str; 6] = [
    "ours",
    "ours-portable",
    "libcrux",
    "rustcrypto",
    "aws-lc-rs",
    "pqcrypto",
];

/// Table order of the parameter sets; other sets found follow, alphabetically.
const SETS: [&str; 3] = ["ML-KEM-512", "ML-KEM-768", "ML-KEM-1024"];

/// Bar colours of the charts, by library position in [`LIBRARIES`] (then cycling).
const COLOURS: [&str; 8] = [
    "#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
];

#[derive(Debug)]
struct Options {
    run: bool,
    filter: String,
    criterion_args: Vec<String>,
}

/// Median and its 95% confidence interval, in nanoseconds per operation.
#[derive(Clone, Copy, Debug)]
struct Estimate {
    median: f64,
    low: f64,
    high: f64,
}

/// set -> operation -> library -> estimate.
type Results = BTreeMap<String, BTreeMap<String, BTreeMap<String, Estimate>>>;

/// Runs the command.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let Some(options) = parse_args(args)? else {
        println!("{USAGE}");
        return Ok(());
    };
    let root = workspace_root();
    let target = target_dir(&root);
    let load_before = load_average();
    let since = if options.run {
        let start = SystemTime::now();
        run_benchmarks(&root, &options)?;
        Some(start)
    } else {
        None
    };

    let criterion_dir = target.join("criterion");
    let results = collect(&criterion_dir, since)?;
    if results.is_empty() {
        return Err(format!(
            "no `{GROUP_PREFIX}...` estimates found under {}{}",
            criterion_dir.display(),
            if options.run {
                " written by this run (does the filter match any benchmark?)"
            } else {
                "; run without --from-saved first"
            }
        ));
    }

    let out_dir = target.join("bench-report");
    std::fs::create_dir_all(&out_dir)
        .map_err(|e| format!("creating {}: {e}", out_dir.display()))?;
    let mut markdown = header(options.run.then_some(load_before.as_str()));
    for set in ordered(results.keys(), &SETS) {
        let operations = &results[set];
        let file = format!("{}.svg", set.to_lowercase());
        markdown.push_str(&table(set, operations, &file));
        let svg_path = out_dir.join(&file);
        std::fs::write(&svg_path, chart(set, operations))
            .map_err(|e| format!("writing {}: {e}", svg_path.display()))?;
    }
    markdown.push_str(NOTES);
    let report = out_dir.join("report.md");
    std::fs::write(&report, &markdown).map_err(|e| format!("writing {}: {e}", report.display()))?;
    println!("{markdown}");
    eprintln!(
        "bench-report: wrote {} and one SVG chart per parameter set",
        report.display()
    );
    Ok(())
}

/// `None` for `--help`.
fn parse_args(args: &[String]) -> Result<Option<Options>, String> {
    let mut options = Options {
        run: true,
        filter: DEFAULT_FILTER.to_owned(),
        criterion_args: Vec::new(),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--from-saved" | "--no-run-bench" => options.run = false,
            "--filter" => {
                let filter = args
                    .next()
                    .ok_or_else(|| format!("--filter needs a value\n{USAGE}"))?;
                options.filter.clone_from(filter);
            }
            "--" => options.criterion_args.extend(args.by_ref().cloned()),
            "-h" | "--help" => return Ok(None),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    Ok(Some(options))
}

fn workspace_root() -> PathBuf {
    let xtask = Path::new(env!("CARGO_MANIFEST_DIR"));
    xtask.parent().unwrap_or(xtask).to_path_buf()
}

fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}

fn run_benchmarks(root: &Path, options: &Options) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(root)
        .args([
            "bench",
            "-p",
            "mlkem-benches",
            "--features",
            "peers",
            "--bench",
            "kem",
        ])
        .arg("--")
        .arg(&options.filter)
        .args(&options.criterion_args);
    eprintln!("bench-report: running {command:?}");
    crate::run_checked(&mut command)
}

/// Every `new/benchmark.json` under `dir` whose group starts with [`GROUP_PREFIX`], with its
/// median from the sibling `estimates.json`; only files modified since `since`, if given.
fn collect(dir: &Path, since: Option<SystemTime>) -> Result<Results, String> {
    let mut results = Results::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if !path.is_dir() {
                continue;
            }
            if path.file_name().is_some_and(|name| name == "new") {
                if let Some((set, operation, library, estimate)) = read_estimate(&path, since)? {
                    results
                        .entry(set)
                        .or_default()
                        .entry(operation)
                        .or_default()
                        .insert(library, estimate);
                }
            } else {
                pending.push(path);
            }
        }
    }
    Ok(results)
}

fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("parsing {}: {e}", path.display()))
}

fn read_estimate(
    new_dir: &Path,
    since: Option<SystemTime>,
) -> Result<Option<(String, String, String, Estimate)>, String> {
    let (benchmark, estimates) = (
        new_dir.join("benchmark.json"),
        new_dir.join("estimates.json"),
    );
    if !benchmark.is_file() || !estimates.is_file() {
        return Ok(None);
    }
    if let Some(since) = since {
        let modified = std::fs::metadata(&estimates)
            .and_then(|m| m.modified())
            .map_err(|e| format!("{}: {e}", estimates.display()))?;
        if modified < since {
            return Ok(None);
        }
    }
    let id = read_json(&benchmark)?;
    let Some(set) = id["group_id"]
        .as_str()
        .and_then(|group| group.strip_prefix(GROUP_PREFIX))
    else {
        return Ok(None);
    };
    let (Some(operation), Some(library)) = (id["function_id"].as_str(), id["value_str"].as_str())
    else {
        return Ok(None);
    };
    let median = &read_json(&estimates)?["median"];
    let number = |value: &serde_json::Value| {
        value
            .as_f64()
            .ok_or_else(|| format!("{}: no median estimate", estimates.display()))
    };
    let estimate = Estimate {
        median: number(&median["point_estimate"])?,
        low: number(&median["confidence_interval"]["lower_bound"])?,
        high: number(&median["confidence_interval"]["upper_bound"])?,
    };
    Ok(Some((
        set.to_owned(),
        operation.to_owned(),
        library.to_owned(),
        estimate,
    )))
}

/// `keys` in the order of `known`, then the others alphabetically.
fn ordered<'a>(keys: impl Iterator<Item = &'a String>, known: &[&str]) -> Vec<&'a String> {
    let mut keys: Vec<&String> = keys.collect();
    keys.sort_by_key(|key| {
        (
            known.iter().position(|k| k == key).unwrap_or(known.len()),
            (*key).clone(),
        )
    });
    keys
}

fn libraries(operations: &BTreeMap<String, BTreeMap<String, Estimate>>) -> Vec<&String> {
    let mut all: Vec<&String> = Vec::new();
    for library in operations.values().flat_map(BTreeMap::keys) {
        if !all.contains(&library) {
            all.push(library);
        }
    }
    ordered(all.into_iter(), &LIBRARIES)
}

fn micros(ns: f64) -> String {
    let us = ns / 1000.0;
    if us < 10.0 {
        format!("{us:.2}")
    } else if us < 1000.0 {
        format!("{us:.1}")
    } else {
        format!("{us:.0}")
    }
}

/// `/proc/loadavg`'s 1, 5 and 15 minute load averages.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "unknown".to_owned(),
        |text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        },
    )
}

/// The report's preamble; `load_before` is the load average before this run, if it ran.
fn header(load_before: Option<&str>) -> String {
    let fresh = load_before.is_some();
    let mut out = String::from("# ML-KEM benchmark report\n\n");
    let _ = writeln!(out, "- machine: {}", cpu_model());
    let _ = writeln!(
        out,
        "- load average (1/5/15 min): {}{} (other processes add noise to every figure)",
        load_before.map_or_else(String::new, |l| format!("{l} before the run, ")),
        load_average() + if fresh { " after" } else { " now" },
    );
    let _ = writeln!(out, "- compiler: {}", command_line("rustc", &["-V"]));
    let _ = writeln!(
        out,
        "- source: {}",
        if fresh {
            "this run of `cargo bench -p mlkem-benches --features peers --bench kem`"
        } else {
            "saved criterion estimates (`--from-saved`)"
        }
    );
    out.push_str(
        "- cells: median time per operation in µs (criterion), and in parentheses the ratio \
         to the fastest library of the row; the fastest is in bold.\n\n",
    );
    out
}

fn table(
    set: &str,
    operations: &BTreeMap<String, BTreeMap<String, Estimate>>,
    svg: &str,
) -> String {
    let libraries = libraries(operations);
    let mut out = format!("## {set}\n\n| operation |");
    for library in &libraries {
        let _ = write!(out, " {library} |");
    }
    out.push_str("\n|---|");
    out.push_str(&"---:|".repeat(libraries.len()));
    out.push('\n');
    for operation in ordered(operations.keys(), &OPERATIONS) {
        let row = &operations[operation];
        let fastest = row.values().map(|e| e.median).fold(f64::INFINITY, f64::min);
        let _ = write!(out, "| {operation} |");
        for library in &libraries {
            match row.get(*library) {
                Some(e) if e.median <= fastest => {
                    let _ = write!(out, " **{}** (1.00×) |", micros(e.median));
                }
                Some(e) => {
                    let _ = write!(out, " {} ({:.2}×) |", micros(e.median), e.median / fastest);
                }
                None => out.push_str(" — |"),
            }
        }
        out.push('\n');
    }
    let _ = writeln!(out, "\n![{set}: median µs per operation]({svg})\n");
    out
}

const NOTES: &str = "\
### Notes

- `ours` runs with the backend our crate selects (AVX2 when the CPU has it); \
`ours-portable` is the same code on the portable backend (measured only on AVX2 CPUs).
- `keygen`: key generation from a 64-byte seed into the library's key type. `encaps` / \
`decaps`: on parsed keys (what repeated operations with one key cost; parsed keys cache \
work such as the expanded matrix and H(ek)). `*_from_bytes`: parse and check the encoded \
key (FIPS 203 sections 7.2 / 7.3, where the library offers the check; for libcrux its \
`validate_public_key` / `validate_private_key` are called) and wrap the ciphertext, then \
operate: the cost for a key seen once.
- aws-lc-rs and pqcrypto-mlkem (PQClean) only offer randomized APIs: their `keygen` and \
`encaps` include drawing fresh randomness (AWS-LC's DRBG; PQClean's `randombytes`, a \
`getrandom` system call). Decapsulation is deterministic: every library decapsulates the \
same ciphertext with the same key.
- Every peer was checked against ours once per set before measuring (same ek/dk bytes from \
the same seed and same ciphertext and secret from the same message for the deterministic \
libraries; round trips through ours for the randomized ones; same implicit-rejection secret).
";

/// Upper end and step of a linear axis covering `[0, max]` in about five steps of 1, 2 or 5
/// times a power of ten.
fn axis(max: f64) -> (f64, f64) {
    let rough = (max / 5.0).max(f64::MIN_POSITIVE);
    let magnitude = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|&s| s >= rough)
        .unwrap_or(10.0 * magnitude);
    ((max / step).ceil() * step, step)
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn to_f64(n: usize) -> f64 {
    f64::from(u32::try_from(n).unwrap_or(u32::MAX))
}

/// One coloured square and name per library, in a row from `x`.
fn legend(svg: &mut String, libraries: &[&String], x: f64) {
    let mut legend_x = x;
    for (i, library) in libraries.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let _ = writeln!(
            svg,
            r#"<rect x="{legend_x}" y="36" width="12" height="12" fill="{colour}"/><text x="{}" y="46">{}</text>"#,
            legend_x + 16.0,
            xml_escape(library)
        );
        legend_x += 30.0 + 8.0 * to_f64(library.len());
    }
}

/// A horizontal grouped bar chart: one band per operation, one bar per library.
fn chart(set: &str, operations: &BTreeMap<String, BTreeMap<String, Estimate>>) -> String {
    const WIDTH: f64 = 960.0;
    const LEFT: f64 = 170.0;
    const RIGHT: f64 = 110.0;
    const TOP: f64 = 78.0;
    const BAR: f64 = 16.0;
    const BAND_GAP: f64 = 18.0;

    let libraries = libraries(operations);
    let rows = ordered(operations.keys(), &OPERATIONS);
    let max_us = operations
        .values()
        .flat_map(BTreeMap::values)
        .map(|e| e.median / 1000.0)
        .fold(0.0, f64::max);
    let (axis_max, step) = axis(max_us);
    let plot_width = WIDTH - LEFT - RIGHT;
    let band = BAR * to_f64(libraries.len()) + BAND_GAP;
    let plot_height = band * to_f64(rows.len());
    let height = TOP + plot_height + 40.0;
    let x = |us: f64| LEFT + plot_width * us / axis_max;

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="{LEFT}" y="22" font-size="16" font-weight="bold">{} — median µs per operation (lower is better)</text>"#,
        xml_escape(set)
    );
    legend(&mut svg, &libraries, LEFT);
    // Grid and axis labels.
    let ticks = (axis_max / step).round() as u32;
    for i in 0..=ticks {
        let tick = f64::from(i) * step;
        let tx = x(tick);
        let _ = writeln!(
            svg,
            r##"<line x1="{tx:.1}" y1="{TOP}" x2="{tx:.1}" y2="{:.1}" stroke="#ddd"/><text x="{tx:.1}" y="{:.1}" text-anchor="middle" fill="#555">{}</text>"##,
            TOP + plot_height,
            TOP + plot_height + 16.0,
            (tick * 1e6).round() / 1e6
        );
    }
    let _ = writeln!(
        svg,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#555">µs / op</text>"##,
        LEFT + plot_width / 2.0,
        TOP + plot_height + 34.0
    );
    // Bars.
    for (r, operation) in rows.iter().enumerate() {
        let band_top = TOP + band * to_f64(r) + BAND_GAP / 2.0;
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end" font-weight="bold">{}</text>"#,
            LEFT - 10.0,
            band_top + BAR * to_f64(libraries.len()) / 2.0 + 4.0,
            xml_escape(operation)
        );
        let row = &operations[*operation];
        let fastest = row.values().map(|e| e.median).fold(f64::INFINITY, f64::min);
        for (i, library) in libraries.iter().enumerate() {
            let Some(estimate) = row.get(*library) else {
                continue;
            };
            let y = band_top + BAR * to_f64(i);
            let us = estimate.median / 1000.0;
            let colour = COLOURS[i % COLOURS.len()];
            let _ = writeln!(
                svg,
                r#"<rect x="{LEFT}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}"><title>{} {}: median {} µs (95% CI {} – {}), {:.2}× the fastest</title></rect>"#,
                y + 1.0,
                (x(us) - LEFT).max(0.5),
                BAR - 2.0,
                xml_escape(library),
                xml_escape(operation),
                micros(estimate.median),
                micros(estimate.low),
                micros(estimate.high),
                estimate.median / fastest
            );
            let _ = writeln!(
                svg,
                r#"<text x="{:.1}" y="{:.1}">{} µs ({:.2}×)</text>"#,
                x(us) + 4.0,
                y + BAR - 4.0,
                micros(estimate.median),
                estimate.median / fastest
            );
        }
    }
    svg.push_str("</svg>\n");
    svg
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            let model = info
                .lines()
                .find(|line| line.starts_with("model name"))?
                .split_once(':')?
                .1
                .trim()
                .to_owned();
            let field = |name: &str| {
                info.lines()
                    .find(|line| line.split(':').next().is_some_and(|k| k.trim() == name))
                    .and_then(|line| line.split_once(':'))
                    .map_or("?", |(_, v)| v.trim())
            };
            let cores = info.lines().filter(|l| l.starts_with("processor")).count();
            Some(format!(
                "{model} (family {}, model {}; {cores} logical CPUs), {}",
                field("cpu family"),
                field("model"),
                std::env::consts::ARCH
            ))
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_owned())
}

fn command_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .map_or_else(|| "unknown".to_owned(), |s| s.trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimate(median: f64) -> Estimate {
        Estimate {
            median,
            low: median * 0.99,
            high: median * 1.01,
        }
    }

    fn sample() -> BTreeMap<String, BTreeMap<String, Estimate>> {
        let mut operations = BTreeMap::new();
        for (operation, ours, peer) in [
            ("encaps", 20_000.0, 10_000.0),
            ("keygen", 30_000.0, 45_000.0),
        ] {
            let row: &mut BTreeMap<String, Estimate> =
                operations.entry(operation.to_owned()).or_default();
            row.insert("ours".to_owned(), estimate(ours));
            row.insert("libcrux".to_owned(), estimate(peer));
        }
        operations
    }

    #[test]
    fn table_orders_rows_and_columns_and_marks_the_fastest() {
        let table = table("ML-KEM-768", &sample(), "ml-kem-768.svg");
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines[2], "| operation | ours | libcrux |");
        assert_eq!(lines[4], "| keygen | **30.0** (1.00×) | 45.0 (1.50×) |");
        assert_eq!(lines[5], "| encaps | 20.0 (2.00×) | **10.0** (1.00×) |");
    }

    #[test]
    fn chart_is_well_formed() {
        let svg = chart("ML-KEM-768", &sample());
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<rect").count(), 1 + 2 + 4);
    }

    #[test]
    fn axis_steps_are_round() {
        assert_eq!(axis(47.0), (50.0, 10.0));
        assert_eq!(axis(130.0), (150.0, 50.0));
        assert_eq!(axis(9.0), (10.0, 2.0));
    }

    #[test]
    fn arguments() {
        let args: Vec<String> = ["--from-saved", "--filter", "768", "--", "--noplot"]
            .map(String::from)
            .to_vec();
        let options = parse_args(&args).unwrap().unwrap();
        assert!(!options.run);
        assert_eq!(options.filter, "768");
        assert_eq!(options.criterion_args, ["--noplot"]);
        assert!(parse_args(&["--bogus".to_owned()]).is_err());
    }
}
