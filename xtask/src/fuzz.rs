//! `cargo xtask fuzz [TARGET] [--seconds N] [--jobs J] [--build-only]`: cargo-fuzz
//! campaigns over the targets in `fuzz/fuzz_targets/`, with one summary line per target.
//!
//! - Installs `cargo-fuzz` (`cargo install cargo-fuzz --locked`) if `cargo fuzz --version`
//!   fails, and runs everything with the nightly toolchain (`cargo +nightly fuzz ...`), which
//!   libFuzzer's sanitizer coverage needs.
//! - Builds the targets once (release, with debug assertions and overflow checks: the
//!   cargo-fuzz default), then runs each target, or only the named one, for N seconds
//!   (`-max_total_time=N`, default [`DEFAULT_SECONDS`]), `J` targets at a time (default 1;
//!   CI's smoke run uses one per core, so each target still has a core for its N seconds).
//! - Corpora live in `fuzz/corpus/<target>/` and grow from run to run (not committed); the
//!   committed `fuzz/seeds/<target>/` (the minimized corpus of a long run, `cargo fuzz
//!   cmin`) is read as a second corpus, so a fresh clone starts from it; a crash, timeout or
//!   out-of-memory input is written to `fuzz/artifacts/<target>/` (`-artifact_prefix`), and
//!   libFuzzer's full output to `fuzz/logs/<target>.log`.
//! - Ends with a line per target: executions, executions per second, coverage (`cov` and
//!   `ft` from libFuzzer's last status line), corpus size and crashes. Any crash or failure
//!   makes the command fail, after the remaining targets have run.
//! - `--build-only` builds every target and runs none (for CI).

use crate::run_checked;
use std::fmt;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::thread;
use std::time::Instant;

/// Seconds per target when `--seconds` is not given: a smoke run.
const DEFAULT_SECONDS: u64 = 15;

/// The toolchain cargo-fuzz needs (`-Zsanitizer` and friends are nightly-only).
const TOOLCHAIN: &str = "+nightly";

const USAGE: &str = "usage: cargo xtask fuzz [TARGET] [--seconds N] [--jobs J] [--build-only]";

/// Targets whose interesting inputs are longer than libFuzzer's default `-max_len` (4096
/// when the corpus is empty): `decaps` reads a whole ML-KEM-1024 expanded dk and ciphertext
/// (3168 + 1568 bytes) from a raw input.
const MAX_LEN: &[(&str, usize)] = &[("decaps", 4800)];

/// Runs the command.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let options = Options::parse(args)?;
    let root = workspace_root();
    let fuzz_dir = root.join("fuzz");
    let available = list_targets(&fuzz_dir)?;
    let targets = match &options.target {
        Some(name) if available.contains(name) => vec![name.clone()],
        Some(name) => {
            return Err(format!(
                "no fuzz target `{name}`; available: {}",
                available.join(", ")
            ));
        }
        None => available,
    };

    ensure_cargo_fuzz()?;
    // One build up front, so that each run's time budget is spent fuzzing.
    let mut build = cargo_fuzz(&root, &fuzz_dir, "build");
    if let [only] = targets.as_slice() {
        build.arg(only);
    }
    run_checked(&mut build)?;
    if options.build_only {
        println!(
            "fuzz: built {} target(s): {}",
            targets.len(),
            targets.join(", ")
        );
        return Ok(());
    }

    let outcomes = run_targets(&root, &fuzz_dir, &targets, &options)?;

    println!();
    println!("fuzz summary ({} s per target):", options.seconds);
    for outcome in &outcomes {
        println!("{outcome}");
    }
    let failed: Vec<&str> = outcomes
        .iter()
        .filter(|o| !o.passed())
        .map(|o| o.target.as_str())
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        for outcome in outcomes.iter().filter(|o| !o.passed()) {
            outcome.explain();
        }
        Err(format!("fuzzing failed for: {}", failed.join(", ")))
    }
}

/// Runs `targets` on `options.jobs` threads (each running one target at a time), in the
/// order given; the outcomes come back in that order. With more than one job, libFuzzer's
/// lines on the terminal carry their target's name.
fn run_targets(
    root: &Path,
    fuzz_dir: &Path,
    targets: &[String],
    options: &Options,
) -> Result<Vec<Outcome>, String> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Outcome, String>>>> =
        Mutex::new(targets.iter().map(|_| None).collect());
    let tagged = options.jobs > 1;
    thread::scope(|scope| {
        for _ in 0..options.jobs.min(targets.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(target) = targets.get(i) else { break };
                    let outcome = run_target(root, fuzz_dir, target, options.seconds, tagged);
                    let failed = outcome.is_err();
                    results.lock().unwrap_or_else(PoisonError::into_inner)[i] = Some(outcome);
                    if failed {
                        break;
                    }
                }
            });
        }
    });
    let results = results.into_inner().unwrap_or_else(PoisonError::into_inner);
    // A target that could not run stops its thread; the first such error is the answer.
    results.into_iter().flatten().collect::<Result<Vec<_>, _>>()
}

/// The parsed command line.
struct Options {
    target: Option<String>,
    seconds: u64,
    jobs: usize,
    build_only: bool,
}

impl Options {
    fn parse(args: &[String]) -> Result<Self, String> {
        let mut options = Self {
            target: None,
            seconds: DEFAULT_SECONDS,
            jobs: 1,
            build_only: false,
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--seconds" => {
                    let value = args
                        .next()
                        .ok_or_else(|| format!("--seconds needs a value\n{USAGE}"))?;
                    options.seconds = parse_seconds(value)?;
                }
                "--jobs" => {
                    let value = args
                        .next()
                        .ok_or_else(|| format!("--jobs needs a value\n{USAGE}"))?;
                    options.jobs = parse_jobs(value)?;
                }
                "--build-only" => options.build_only = true,
                "-h" | "--help" => return Err(USAGE.into()),
                other => {
                    if let Some(value) = other.strip_prefix("--seconds=") {
                        options.seconds = parse_seconds(value)?;
                    } else if let Some(value) = other.strip_prefix("--jobs=") {
                        options.jobs = parse_jobs(value)?;
                    } else if other.starts_with('-') {
                        return Err(format!("unknown option `{other}`\n{USAGE}"));
                    } else if options.target.is_some() {
                        return Err(format!("more than one target given\n{USAGE}"));
                    } else {
                        options.target = Some(other.to_owned());
                    }
                }
            }
        }
        Ok(options)
    }
}

fn parse_jobs(value: &str) -> Result<usize, String> {
    match value.parse::<usize>() {
        Ok(jobs) if jobs > 0 => Ok(jobs),
        _ => Err(format!(
            "--jobs takes a positive whole number, not `{value}`\n{USAGE}"
        )),
    }
}

fn parse_seconds(value: &str) -> Result<u64, String> {
    match value.parse::<u64>() {
        Ok(seconds) if seconds > 0 => Ok(seconds),
        _ => Err(format!(
            "--seconds takes a positive whole number, not `{value}`"
        )),
    }
}

/// The workspace root: the parent of this crate's directory.
fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}

/// The target names: the `.rs` files of `fuzz/fuzz_targets/`, sorted.
fn list_targets(fuzz_dir: &Path) -> Result<Vec<String>, String> {
    let dir = fuzz_dir.join("fuzz_targets");
    let entries = fs::read_dir(&dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut targets = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
            .path();
        if path.extension().is_some_and(|ext| ext == "rs")
            && let Some(stem) = path.file_stem().and_then(|s| s.to_str())
        {
            targets.push(stem.to_owned());
        }
    }
    targets.sort();
    if targets.is_empty() {
        return Err(format!("no fuzz targets in {}", dir.display()));
    }
    Ok(targets)
}

/// Installs cargo-fuzz if `cargo fuzz --version` fails.
fn ensure_cargo_fuzz() -> Result<(), String> {
    let works = |toolchain: Option<&str>| {
        let mut command = Command::new("cargo");
        command.args(toolchain).args(["fuzz", "--version"]);
        command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    };
    if !works(None) {
        eprintln!("fuzz: cargo-fuzz not found, installing it (cargo install cargo-fuzz --locked)");
        run_checked(Command::new("cargo").args(["install", "cargo-fuzz", "--locked"]))?;
    }
    if !works(Some(TOOLCHAIN)) {
        return Err(format!(
            "`cargo {TOOLCHAIN} fuzz --version` fails: is the nightly toolchain installed \
             (`rustup toolchain install nightly`)?"
        ));
    }
    Ok(())
}

/// `cargo +nightly fuzz <subcommand> --fuzz-dir <fuzz_dir>`, run from the workspace root.
fn cargo_fuzz(root: &Path, fuzz_dir: &Path, subcommand: &str) -> Command {
    let mut command = Command::new("cargo");
    command
        .current_dir(root)
        // `cargo xtask` runs under the stable toolchain; let `+nightly` decide alone.
        .env_remove("RUSTUP_TOOLCHAIN")
        .args([TOOLCHAIN, "fuzz", subcommand, "--fuzz-dir"])
        .arg(fuzz_dir);
    command
}

/// Runs one target for `seconds` seconds and collects its statistics; with `tagged`, the
/// lines it shows on the terminal start with `[target]`.
fn run_target(
    root: &Path,
    fuzz_dir: &Path,
    target: &str,
    seconds: u64,
    tagged: bool,
) -> Result<Outcome, String> {
    let corpus = fuzz_dir.join("corpus").join(target);
    let artifacts = fuzz_dir.join("artifacts").join(target);
    let logs = fuzz_dir.join("logs");
    for dir in [&corpus, &artifacts, &logs] {
        fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let log_path = logs.join(format!("{target}.log"));
    let mut log = fs::File::create(&log_path)
        .map_err(|e| format!("cannot create {}: {e}", log_path.display()))?;

    let mut command = cargo_fuzz(root, fuzz_dir, "run");
    command.arg(target).arg(&corpus);
    // The committed seeds (minimized corpora of the long runs), read but never written:
    // libFuzzer adds new inputs to the first directory only.
    let seeds = fuzz_dir.join("seeds").join(target);
    if seeds.is_dir() {
        command.arg(&seeds);
    }
    command
        .arg("--")
        .arg(format!("-max_total_time={seconds}"))
        .arg("-print_final_stats=1")
        // The trailing separator makes libFuzzer write `<dir>/crash-<sha1>`.
        .arg(format!("-artifact_prefix={}/", artifacts.display()));
    if let Some((_, max_len)) = MAX_LEN.iter().find(|(name, _)| *name == target) {
        command.arg(format!("-max_len={max_len}"));
    }
    // libFuzzer reports on stderr; cargo-fuzz's own messages go to stdout and pass through.
    command.stderr(Stdio::piped());

    eprintln!(
        "fuzz: running `{target}` for {seconds} s (corpus {}, log {})",
        corpus.display(),
        log_path.display()
    );
    let started = Instant::now();
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot run cargo fuzz run {target}: {e}"))?;
    let mut stats = Stats::default();
    if let Some(stderr) = child.stderr.take() {
        for line in BufReader::new(stderr).lines() {
            let line = line.map_err(|e| format!("reading libFuzzer output: {e}"))?;
            writeln!(log, "{line}").map_err(|e| format!("writing {}: {e}", log_path.display()))?;
            // Every new coverage point gets a NEW / REDUCE line: keep those in the log only.
            if !is_progress_noise(&line) {
                if tagged {
                    eprintln!("[{target}] {line}");
                } else {
                    eprintln!("{line}");
                }
            }
            stats.observe(&line);
        }
    }
    let status = child
        .wait()
        .map_err(|e| format!("waiting for cargo fuzz run {target}: {e}"))?;
    Ok(Outcome {
        target: target.to_owned(),
        seconds: started.elapsed().as_secs(),
        exit_ok: status.success(),
        log: log_path,
        stats,
    })
}

fn is_progress_noise(line: &str) -> bool {
    line.starts_with('#') && (line.contains("\tNEW ") || line.contains("\tREDUCE "))
}

/// What libFuzzer reported about one run.
#[derive(Default)]
struct Stats {
    /// Executions: `stat::number_of_executed_units`, else the last `#N` status line.
    runs: Option<u64>,
    /// `stat::average_exec_per_sec`, else the last status line's `exec/s`.
    exec_per_sec: Option<u64>,
    /// Coverage counters (`cov`, edges) and features (`ft`) of the last status line.
    cov: Option<u64>,
    ft: Option<u64>,
    /// Corpus entries in the last status line (`corp: N/size`).
    corpus: Option<u64>,
    /// Inputs libFuzzer wrote as crash / timeout / oom / leak reproducers.
    artifacts: Vec<String>,
    /// The first reproducer's bytes as libFuzzer prints them (`Base64: ...`).
    base64: Option<String>,
    /// The first panic message (the `panicked at` line and the message line after it).
    panic: Option<String>,
    /// Whether the previous line was a `panicked at` line (the message follows it).
    in_panic: bool,
}

impl Stats {
    fn observe(&mut self, line: &str) {
        if self.in_panic {
            self.in_panic = false;
            if let Some(panic) = &mut self.panic {
                panic.push_str(" | ");
                panic.push_str(line.trim());
            }
        }
        if let Some(rest) = line.strip_prefix('#') {
            let words: Vec<&str> = rest.split_whitespace().collect();
            if let Some(n) = words.first().and_then(|n| n.parse().ok()) {
                self.runs = self.runs.max(Some(n));
            }
            for pair in words.windows(2) {
                let number = |s: &str| s.split('/').next().and_then(|n| n.parse().ok());
                match pair[0] {
                    "cov:" => self.cov = number(pair[1]).or(self.cov),
                    "ft:" => self.ft = number(pair[1]).or(self.ft),
                    "corp:" => self.corpus = number(pair[1]).or(self.corpus),
                    "exec/s:" => self.exec_per_sec = number(pair[1]).or(self.exec_per_sec),
                    _ => {}
                }
            }
        } else if let Some(n) = stat(line, "stat::number_of_executed_units:") {
            self.runs = Some(n);
        } else if let Some(n) = stat(line, "stat::average_exec_per_sec:") {
            self.exec_per_sec = Some(n);
        } else if let Some((_, path)) = line.split_once("Test unit written to ") {
            self.artifacts.push(path.trim().to_owned());
        } else if let Some(encoded) = line.strip_prefix("Base64: ") {
            self.base64.get_or_insert_with(|| encoded.trim().to_owned());
        } else if line.contains("panicked at") && self.panic.is_none() {
            self.panic = Some(line.trim().to_owned());
            self.in_panic = true;
        }
    }
}

fn stat(line: &str, key: &str) -> Option<u64> {
    line.trim().strip_prefix(key)?.trim().parse().ok()
}

/// One target's run.
struct Outcome {
    target: String,
    seconds: u64,
    exit_ok: bool,
    log: PathBuf,
    stats: Stats,
}

impl Outcome {
    fn passed(&self) -> bool {
        self.exit_ok && self.stats.artifacts.is_empty() && self.stats.runs.is_some()
    }

    fn explain(&self) {
        eprintln!(
            "fuzz: `{}` failed; full output in {}",
            self.target,
            self.log.display()
        );
        if let Some(panic) = &self.stats.panic {
            eprintln!("  panic: {panic}");
        }
        if let Some(encoded) = &self.stats.base64 {
            eprintln!("  input (base64): {encoded}");
        }
        for artifact in &self.stats.artifacts {
            eprintln!("  reproducer: {artifact}");
            eprintln!(
                "  replay with: cargo {TOOLCHAIN} fuzz run --fuzz-dir fuzz {} {artifact}",
                self.target
            );
        }
        if !self.exit_ok && self.stats.artifacts.is_empty() {
            eprintln!("  cargo fuzz run exited with an error and wrote no reproducer");
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |value: Option<u64>| value.map_or_else(|| "?".to_owned(), |v| v.to_string());
        let s = &self.stats;
        write!(
            f,
            "  {:<15} runs {:>10}  exec/s {:>6}  cov {:>5}  ft {:>6}  corpus {:>5}  crashes {}  (wall {} s){}",
            self.target,
            show(s.runs),
            show(s.exec_per_sec),
            show(s.cov),
            show(s.ft),
            show(s.corpus),
            s.artifacts.len(),
            self.seconds,
            if self.passed() { "" } else { "  FAILED" },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(args: &[&str]) -> Result<Options, String> {
        Options::parse(&args.iter().map(|&a| a.to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn parses_arguments() {
        let o = options(&[]).unwrap();
        assert_eq!(
            (o.target, o.seconds, o.build_only),
            (None, DEFAULT_SECONDS, false)
        );
        let o = options(&["decaps", "--seconds", "600"]).unwrap();
        assert_eq!((o.target.as_deref(), o.seconds), (Some("decaps"), 600));
        let o = options(&["--seconds=5", "--build-only"]).unwrap();
        assert_eq!((o.seconds, o.build_only, o.jobs), (5, true, 1));
        assert_eq!(options(&["--jobs", "2"]).unwrap().jobs, 2);
        assert_eq!(options(&["--jobs=3"]).unwrap().jobs, 3);
        assert!(options(&["--jobs", "0"]).is_err());
        assert!(options(&["--jobs"]).is_err());
        assert!(options(&["--seconds", "0"]).is_err());
        assert!(options(&["--seconds"]).is_err());
        assert!(options(&["a", "b"]).is_err());
        assert!(options(&["--bogus"]).is_err());
    }

    #[test]
    fn reads_libfuzzer_output() {
        let mut stats = Stats::default();
        for line in [
            "#2\tINITED cov: 100 ft: 120 corp: 1/1b exec/s: 0 rss: 40Mb",
            "#1024\tpulse  cov: 410 ft: 900 corp: 30/2Kb lim: 4 exec/s: 512 rss: 60Mb",
            "#5000\tDONE   cov: 431 ft: 1189 corp: 61/11Kb lim: 4096 exec/s: 333 rss: 62Mb",
            "Done 5000 runs in 15 second(s)",
            "stat::number_of_executed_units: 5001",
            "stat::average_exec_per_sec:     333",
        ] {
            stats.observe(line);
        }
        assert_eq!(stats.runs, Some(5001));
        assert_eq!(stats.exec_per_sec, Some(333));
        assert_eq!(
            (stats.cov, stats.ft, stats.corpus),
            (Some(431), Some(1189), Some(61))
        );
        assert!(stats.artifacts.is_empty());

        for line in [
            "thread '<unnamed>' panicked at fuzz_targets/decaps.rs:10:5:",
            "decapsulation is not deterministic",
            "==1== ERROR: libFuzzer: deadly signal",
            "artifact_prefix='fuzz/artifacts/decaps/'; Test unit written to fuzz/artifacts/decaps/crash-ab12",
            "Base64: RlVa",
        ] {
            stats.observe(line);
        }
        assert_eq!(stats.artifacts, ["fuzz/artifacts/decaps/crash-ab12"]);
        assert_eq!(stats.base64.as_deref(), Some("RlVa"));
        assert_eq!(
            stats.panic.as_deref(),
            Some(
                "thread '<unnamed>' panicked at fuzz_targets/decaps.rs:10:5: | \
                 decapsulation is not deterministic"
            )
        );
    }
}
