//! `cargo xtask ct`: constant time, verified by machine.
//!
//! DESIGN.md ("Constant time and secrets") forbids any branch, loop bound, memory index or
//! division that depends on a secret. This command checks it on the code users ship, with
//! two independent methods, for every opt-level it is asked for:
//!
//! | check | tool | sees | module |
//! |---|---|---|---|
//! | secret-dependent branches, addresses, syscall arguments | valgrind memcheck on `ct-harness`, secrets marked undefined | every instruction executed for one run of each operation | [`memcheck`] |
//! | division instructions | `objdump` of the same binary | every instruction of our code and of what it calls, executed or not | [`divscan`] |
//!
//! # Per opt-level
//! `ct-harness` is built with `cargo build --release` in its own target directory
//! (`target/ct/<level>/`), with `CARGO_PROFILE_RELEASE_DEBUG=true` (symbol names and source
//! lines for the reports; debug info does not change code generation) and, except for
//! `release` itself, `CARGO_PROFILE_RELEASE_OPT_LEVEL` set to 1, `s` or `z`. Then:
//!
//! 1. **negative control**: `valgrind ... ct-harness leaky`. It must report a "Conditional
//!    jump or move depends on uninitialised value(s)" in `ct_harness::leaky::branch_on_secret`
//!    and a "Use of uninitialised value of size 8" in `lookup_by_secret`, and the harness
//!    itself must see both through `VALGRIND_COUNT_ERRORS`. Otherwise the harness, valgrind or
//!    this parser is broken and the level fails, whatever the real run says.
//! 2. **the real run**: `valgrind --tool=memcheck --error-exitcode=99 --track-origins=yes
//!    --fullpath-after= ... ct-harness kem --require-valgrind` (see `ct-harness/src/main.rs`
//!    for what it runs, marks and declassifies). The log is parsed into error contexts,
//!    cross-checked against valgrind's `ERROR SUMMARY`; every context is a failure,
//!    printed with the first frame in our code, the top of its stack and its origin. The
//!    harness must also report success (results correct, the marking effective).
//! 3. **the division scan** of the same binary ([`divscan`]), including its own negative
//!    control (`ct_harness::leaky::divide_by_secret` must be found).
//! 4. at `release` only, **the hybrid KEMs** (below).
//!
//! # The hybrid KEMs
//! The `release` build also holds `lazykem-hybrid` (ct-harness features `hybrid` and
//! `graviola`): `ct-harness hybrid` runs X-Wing, MLKEM768-P256 and MLKEM1024-P384 under
//! memcheck (key from the secret seed, encapsulation with secret randomness, decapsulation
//! of a valid and of a tampered ciphertext; see `ct-harness/src/hybrid.rs`), twice:
//! - on graviola's curves, with this build. Valgrind 3.19 does not report ADX in CPUID
//!   (valgrind bug 494162), so graviola's CPU check would fail under valgrind and the
//!   crate would take its fallback: every build sets `VALGRIND_BUG_494162`, graviola's own
//!   compile-time switch for valgrind, under which the check skips ADX (natively the CPU
//!   must then have ADX, which the harness checks before running graviola);
//! - on the RustCrypto / dalek curves the crate uses where graviola's check fails, with
//!   the same build without the `graviola` feature (only lazykem-hybrid and the harness
//!   are compiled again), copied to `target/ct/release/ct-harness-fallback`.
//!
//! The harness says which curves ran and fails if they are not the expected ones. Graviola
//! and RustCrypto branch on a few values that derive from secrets but are public by design
//! (graviola's X25519 all-zero output check, its scalar range and on-curve fault checks,
//! the RandomScalar rejection verdict, sec1's encoding tag of a public key); those reports
//! are suppressed by function frame in `ct-harness/hybrid.supp`, each with its reason. Every
//! other report fails; each suppression must match in the run it is meant for (a stale one
//! fails), and none may match in the negative control, which runs with the file loaded.
//! The ML-KEM run loads no suppressions. Only `release`: the curves' dependencies
//! (graviola, p256, p384, crypto-bigint, curve25519-dalek) more than double a level's build,
//! which CI pays once, in the build the dudect and residue steps use too.
//!
//! # Public values derived from secrets: declassified by the library
//! K-PKE.KeyGen derives `rho` from the secret seed (`(rho, sigma) = G(d || k)`), and then
//! rejection-samples A-hat from it, branching on SHAKE128 output: public by design (rho is
//! part of the encapsulation key, and DESIGN.md allows rejection sampling on rho), but
//! derived from undefined data, and it never leaves `kpke::key_gen` before it is used.
//! The harness builds `lazykem` with its `ct-validation` feature, under which `key_gen` marks
//! rho defined (`lattice_sampling::ct_validation::declassify`, a valgrind client request)
//! right after computing it, the way BoringSSL's `CONSTTIME_DECLASSIFY` works. So no report
//! is accepted here: no rule matching source lines or frames that a refactoring could
//! break or widen. If the hook were lost, the `SampleNTT` parser's branches on rho would be
//! reported and the run would fail; `sigma` and everything derived from it stay marked.

//! # Divisions and opt-levels
//! A division is accepted only when it is slice, range or iterator length arithmetic in
//! `core` or `hybrid-array` (`chunks_exact(n)` and `as_chunks::<N>()` divide a slice length
//! by the chunk size, `step_by` a range length by the step, `Zip` the length of its inputs,
//! `offset_from_unsigned` a distance between two addresses by the element size),
//! identified by the innermost inlined function of the instruction in the debug info (see
//! `divscan::Division::is_length_arithmetic`): every length in ML-KEM is fixed by the
//! parameter set, so these operands are public. Every other `div`/`idiv` fails, listed with
//! its function, instruction and source line, so an explicit `/` or `%` in our code is
//! caught even when its operands are public (rewrite it without division, e.g. with a
//! constant table, or as a multiply and shift).
//!
//! The opt-level matters: at `release`, `1` and `s` LLVM turns every division by a constant
//! into a multiply and shift, so a `div` there divides by a run-time value (e.g. a chunk size
//! held in an iterator that was not inlined). At `z` it deliberately keeps a `div` for every
//! division by a constant, because it is shorter: that is how a secret `x / q` becomes the
//! KyberSlash leak, which only the `z` build shows. So all four levels are scanned.
//!
//! # What is not checked
//! Memcheck sees control flow and addresses, not timing: variable-latency instructions
//! other than integer division (none used here) and microarchitectural effects are out of
//! its reach, and `cmov`/`setcc` on a secret are (correctly) not reported. It checks the
//! paths one run executes (one key, one message, one valid and one tampered ciphertext per
//! parameter set), on this machine's x86_64 code, with the backends the harness reports
//! (each backend of `BackendKind::ALL` the CPU, as valgrind presents it, has, passed to the
//! `hazmat::OnBackend`; one it lacks is listed as skipped in the summary; valgrind
//! 3.x does not emulate AVX-512). Paths taken only by other
//! inputs are covered by the branch-freedom of the code that runs here, not by the run
//! itself. The division scan, being static, covers all code of both backends.
//!
//! aarch64 has its own command, `cargo xtask ct-aarch64` ([`aarch64`]): the same division
//! scan on the aarch64 build, and a trace-equivalence test under qemu in place of memcheck.
//!
//! After the levels, natively: the dudect timing test (must pass; each target decided two
//! of three measurements, each in its own process, see [`dudect`]), then `ct-harness
//! residue`, a report of the secrets each operation leaves on the dead stack (copies made
//! by moves, which `zeroize` cannot reach); informational, it does not fail the command.
//!
//! Usage: `cargo xtask ct [--levels release,1,s,z]` (default: all four). Valgrind is
//! installed with apt-get when missing. Logs stay in `target/ct/<level>/`.

mod aarch64;
mod divscan;
mod dudect;
mod memcheck;

pub(crate) use aarch64::run as run_aarch64;
pub(crate) use aarch64::{build as build_aarch64, build_dev as build_aarch64_dev};

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Valgrind's exit code when it reported errors (`--error-exitcode`).
const ERROR_EXIT_CODE: i32 = 99;

/// The line the harness prints when every functional and marking check passed.
const KEM_PASSED: &str = "ct-harness: all checks passed";

/// The line the harness prints when it saw both deliberate leaks reported.
const LEAKY_FLAGGED: &str = "leaky: both leaks flagged";

/// The line `ct-harness hybrid` prints when every functional and marking check passed.
const HYBRID_PASSED: &str = "ct-harness hybrid: all checks passed";

/// The level whose build also holds the hybrid KEMs (see "The hybrid KEMs" above): the one
/// the dudect and residue steps run natively, so the hybrids cost one build.
const HYBRID_LEVEL: &str = "release";

/// The hybrid runs' suppressions (relative to the workspace root): branches of graviola, the
/// RustCrypto curves and lazykem-hybrid on values public by design, each with its reason.
const SUPPRESSIONS: &str = "ct-harness/hybrid.supp";

/// One build configuration.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Level {
    /// Name in reports and target directory.
    pub(crate) name: &'static str,
    /// `CARGO_PROFILE_RELEASE_OPT_LEVEL`, or `None` for the release profile as configured.
    pub(crate) opt: Option<&'static str>,
}

pub(crate) const LEVELS: [Level; 4] = [
    Level {
        name: "release",
        opt: None,
    },
    Level {
        name: "opt-1",
        opt: Some("1"),
    },
    Level {
        name: "opt-s",
        opt: Some("s"),
    },
    Level {
        name: "opt-z",
        opt: Some("z"),
    },
];

/// The outcome of one level, for the summary table.
#[derive(Debug, Default)]
struct Outcome {
    build_seconds: f64,
    control: String,
    kem: String,
    hybrid: String,
    divisions: String,
    seconds: f64,
    failures: Vec<String>,
}

/// Runs the command.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let levels = parse_levels(args)?;
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        return Err(
            "needs x86_64 Linux: the harness issues valgrind client requests \
                    with the x86_64 instruction sequence"
                .into(),
        );
    }
    let start = Instant::now();
    let root = workspace_root();
    ensure_tool("valgrind", "valgrind")?;
    ensure_tool("objdump", "binutils")?;
    let mut outcomes = Vec::new();
    for level in &levels {
        println!("\n== ct: {} ==", level.name);
        let outcome = check_level(&root, *level);
        for failure in &outcome.failures {
            println!("FAIL [{}] {failure}", level.name);
        }
        outcomes.push(outcome);
    }

    println!("\n== ct: summary ==");
    println!(
        "{:<8} {:>7} {:<28} {:<44} {:<44} {:<40} {:>7}",
        "level",
        "build",
        "negative control",
        "ML-KEM-512/768/1024 under memcheck",
        "hybrid KEMs under memcheck",
        "divisions",
        "total"
    );
    for (level, o) in levels.iter().zip(&outcomes) {
        let hybrid = if o.hybrid.is_empty() { "-" } else { &o.hybrid };
        println!(
            "{:<8} {:>6.1}s {:<28} {:<44} {:<44} {:<40} {:>6.1}s",
            level.name, o.build_seconds, o.control, o.kem, hybrid, o.divisions, o.seconds
        );
    }
    let failed: Vec<&str> = levels
        .iter()
        .zip(&outcomes)
        .filter(|(_, o)| !o.failures.is_empty())
        .map(|(l, _)| l.name)
        .collect();

    // Valgrind cannot execute AVX-512: the release harness also runs natively, as a
    // statistical timing test of every backend the CPU has (AVX-512 included).
    println!("\n== ct: statistical timing (dudect, natively, release build) ==");
    let timing = dudect(&root);
    if let Err(e) = &timing {
        println!("FAIL [dudect] {e}");
    }
    // Informational: which secrets each operation leaves on the dead stack (moved-from
    // copies zeroize cannot reach); reported, not enforced (see ct-harness/src/residue.rs).
    println!("\n== ct: secrets left on the stack (informational, natively) ==");
    if let Err(e) = residue(&root) {
        println!("ct: residue report unavailable: {e}");
    }
    println!("ct: total {:.1}s", start.elapsed().as_secs_f64());
    let mut failed: Vec<String> = failed.into_iter().map(String::from).collect();
    if timing.is_err() {
        failed.push("dudect".into());
    }
    if failed.is_empty() {
        println!("ct: PASS");
        Ok(())
    } else {
        Err(format!("failed at {}", failed.join(", ")))
    }
}

/// `cargo xtask dudect`: the statistical timing test alone (the last step of `cargo xtask
/// ct`), for every backend the CPU has, AVX-512 included.
pub(crate) fn run_dudect(args: &[String]) -> Result<(), String> {
    if let Some(arg) = args.first() {
        return Err(format!("usage: cargo xtask dudect (unexpected `{arg}`)"));
    }
    dudect(&workspace_root())
}

/// Builds the release harness (already built for memcheck) and runs the rounds of
/// `ct-harness dudect`, decided two of three ([`dudect`]).
fn dudect(root: &Path) -> Result<(), String> {
    dudect::run(&build(root, LEVELS[0])?)
}

/// Runs `ct-harness residue` on the release build and prints its report.
fn residue(root: &Path) -> Result<(), String> {
    run_native(root, "residue")
}

/// Runs one mode of the release harness natively, printing its output.
fn run_native(root: &Path, mode: &str) -> Result<(), String> {
    let binary = build(root, LEVELS[0])?;
    let output = Command::new(&binary)
        .arg(mode)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    print!("{}", String::from_utf8_lossy(&output.stdout));
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ct-harness {mode} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// Parses `--levels release,1,s,z`.
pub(crate) fn parse_levels(args: &[String]) -> Result<Vec<Level>, String> {
    let mut levels = LEVELS.to_vec();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--levels" => {
                let list = args.next().ok_or("--levels needs a list, e.g. release,z")?;
                levels = list
                    .split(',')
                    .map(|name| {
                        LEVELS
                            .iter()
                            .find(|l| {
                                l.name == name
                                    || l.opt == Some(name)
                                    || l.name == format!("opt-{name}")
                            })
                            .copied()
                            .ok_or_else(|| format!("unknown level `{name}` (release, 1, s, z)"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            other => {
                return Err(format!(
                    "unknown argument `{other}`\nusage: cargo xtask ct [--levels release,1,s,z]"
                ));
            }
        }
    }
    Ok(levels)
}

/// The workspace root (xtask lives in `<root>/xtask`).
pub(crate) fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}

/// Makes sure `tool --version` runs, installing `package` with apt-get otherwise.
pub(crate) fn ensure_tool(tool: &str, package: &str) -> Result<(), String> {
    let works = || {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if works() {
        return Ok(());
    }
    println!("ct: `{tool}` not found, installing `{package}` with apt-get");
    for args in [&["update"][..], &["install", "-y", package][..]] {
        let status = Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .map_err(|e| format!("cannot run apt-get: {e}"))?;
        if !status.success() {
            return Err(format!(
                "`apt-get {}` failed ({status}); install {package} by hand",
                args.join(" ")
            ));
        }
    }
    if works() {
        Ok(())
    } else {
        Err(format!(
            "`{tool} --version` still fails after installing {package}"
        ))
    }
}

/// Builds the harness for one level; returns the binary. The [`HYBRID_LEVEL`] build has the
/// hybrid KEMs on graviola's curves (features `graviola`).
pub(crate) fn build(root: &Path, level: Level) -> Result<PathBuf, String> {
    let features = (level.name == HYBRID_LEVEL).then_some("graviola");
    build_with(root, level, features)
}

/// Builds the harness for one level with `features`; returns the binary.
fn build_with(root: &Path, level: Level, features: Option<&str>) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let target_dir = root.join("target/ct").join(level.name);
    let mut command = Command::new(cargo);
    command
        .current_dir(root)
        .args([
            "build",
            "--release",
            "--quiet",
            "-p",
            "ct-harness",
            "--target-dir",
        ])
        .arg(&target_dir)
        .env("CARGO_PROFILE_RELEASE_DEBUG", "true")
        // graviola's own switch for valgrind, which does not report ADX (valgrind bug
        // 494162): its CPU check then skips ADX, so its curves run under memcheck. Read at
        // compile time by graviola alone; set for every build, so the builds agree.
        .env("VALGRIND_BUG_494162", "1");
    if let Some(features) = features {
        command.args(["--features", features]);
    }
    match level.opt {
        Some(opt) => command.env("CARGO_PROFILE_RELEASE_OPT_LEVEL", opt),
        None => command.env_remove("CARGO_PROFILE_RELEASE_OPT_LEVEL"),
    };
    let status = command
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("building ct-harness failed ({status})"));
    }
    Ok(target_dir.join("release/ct-harness"))
}

/// Builds the [`HYBRID_LEVEL`] harness with the hybrids on the RustCrypto / dalek curves
/// (feature `hybrid` without `graviola`: only lazykem-hybrid and the harness are compiled
/// again), copies it to `ct-harness-fallback` and puts the main build back (cargo copies the
/// up-to-date binary). Returns the copy.
fn build_fallback(root: &Path, level: Level) -> Result<PathBuf, String> {
    let built = build_with(root, level, Some("hybrid"))?;
    let copy = root
        .join("target/ct")
        .join(level.name)
        .join("ct-harness-fallback");
    std::fs::copy(&built, &copy)
        .map_err(|e| format!("cannot copy {} to {}: {e}", built.display(), copy.display()))?;
    build(root, level)?;
    Ok(copy)
}

/// What one valgrind run produced.
struct Run {
    exit_code: Option<i32>,
    stdout: String,
    stderr: String,
    log: memcheck::Log,
    log_path: PathBuf,
    seconds: f64,
}

/// Runs `binary ARGS --require-valgrind` under memcheck, the log in `log_path`; with
/// `suppressions`, with that file loaded and `-v` (the log then lists the suppressions used).
fn valgrind(
    binary: &Path,
    args: &[&str],
    log_path: &Path,
    suppressions: Option<&Path>,
) -> Result<Run, String> {
    let start = Instant::now();
    let mut command = Command::new("valgrind");
    if let Some(file) = suppressions {
        command
            .arg("-v")
            .arg(format!("--suppressions={}", file.display()));
    }
    let output = command
        .args([
            "--tool=memcheck",
            &format!("--error-exitcode={ERROR_EXIT_CODE}"),
            "--track-origins=yes",
            "--leak-check=no",
            "--num-callers=50",
            // Every context in full: past 1000 contexts memcheck stops printing them, and
            // each must be parsed and judged.
            "--error-limit=no",
            "--fullpath-after=",
        ])
        .arg(format!("--log-file={}", log_path.display()))
        .arg(binary)
        .args(args)
        .arg("--require-valgrind")
        .output()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    let text = std::fs::read_to_string(log_path)
        .map_err(|e| format!("cannot read {}: {e}", log_path.display()))?;
    Ok(Run {
        exit_code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        log: memcheck::parse(&text),
        log_path: log_path.to_path_buf(),
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Builds, runs and scans one level.
fn check_level(root: &Path, level: Level) -> Outcome {
    let start = Instant::now();
    let mut outcome = Outcome::default();
    let binary = match build(root, level) {
        Ok(binary) => binary,
        Err(e) => {
            outcome.failures.push(e);
            "build failed".clone_into(&mut outcome.control);
            return outcome;
        }
    };
    outcome.build_seconds = start.elapsed().as_secs_f64();
    println!(
        "built {} in {:.1}s",
        binary.display(),
        outcome.build_seconds
    );
    let log_dir = root.join("target/ct").join(level.name);
    let suppressions = root.join(SUPPRESSIONS);

    // With the hybrid runs' suppressions loaded: they must not hide the control.
    let leaky_log = log_dir.join("memcheck-leaky.log");
    let leaky = suppression_names(&suppressions).and_then(|names| {
        valgrind(&binary, &["leaky"], &leaky_log, Some(&suppressions)).map(|run| (run, names))
    });
    match leaky {
        Ok((run, names)) => check_control(&run, &names, &mut outcome),
        Err(e) => {
            outcome.failures.push(format!("negative control: {e}"));
            "did not run".clone_into(&mut outcome.control);
        }
    }
    // At the hybrid level, the hybrids on graviola's curves run beside the ML-KEM run: one
    // valgrind process per core.
    let kem_log = log_dir.join("memcheck-kem.log");
    let graviola_log = log_dir.join("memcheck-hybrid-graviola.log");
    let (kem, graviola) = std::thread::scope(|scope| {
        let graviola = (level.name == HYBRID_LEVEL).then(|| {
            scope.spawn(|| {
                let args = ["hybrid", "--expect", "graviola"];
                valgrind(&binary, &args, &graviola_log, Some(&suppressions))
            })
        });
        let kem = valgrind(&binary, &["kem"], &kem_log, None);
        let graviola = graviola.map(|thread| {
            thread
                .join()
                .unwrap_or_else(|_| Err("the thread running valgrind panicked".into()))
        });
        (kem, graviola)
    });
    match kem {
        Ok(run) => check_kem(root, &run, &mut outcome),
        Err(e) => {
            outcome.failures.push(format!("memcheck run: {e}"));
            "did not run".clone_into(&mut outcome.kem);
        }
    }
    let scan_start = Instant::now();
    match divscan::scan_binary(&binary, divscan::Arch::X86_64) {
        Ok(scan) => check_divisions(root, &scan, &mut outcome),
        Err(e) => {
            outcome.failures.push(format!("division scan: {e}"));
            "did not run".clone_into(&mut outcome.divisions);
        }
    }
    println!(
        "division scan in {:.1}s",
        scan_start.elapsed().as_secs_f64()
    );
    if let Some(graviola) = graviola {
        check_hybrids(root, level, graviola, &log_dir, &mut outcome);
    }
    outcome.seconds = start.elapsed().as_secs_f64();
    outcome
}

/// Step 1: the deliberately leaky code must be reported, and none of `ours` (the names of
/// the hybrid suppressions, loaded in the run) may match in it.
fn check_control(run: &Run, ours: &[String], outcome: &mut Outcome) {
    let branch = run
        .log
        .errors
        .iter()
        .any(|e| e.is_branch() && e.in_function("ct_harness::leaky::branch_on_secret"));
    let lookup = run
        .log
        .errors
        .iter()
        .any(|e| e.is_value_use() && e.in_function("ct_harness::leaky::lookup_by_secret"));
    let self_check = run.stdout.contains(LEAKY_FLAGGED);
    let exit_ok = run.exit_code == Some(ERROR_EXIT_CODE);
    // The run has the hybrid suppressions loaded: none of them may match here.
    let hidden: Vec<&str> = run
        .log
        .used_suppressions
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| ours.iter().any(|n| n == name))
        .collect();
    if !hidden.is_empty() {
        outcome.failures.push(format!(
            "negative control: the hybrid suppressions matched in it ({}): they are too broad",
            hidden.join("; ")
        ));
    }
    println!(
        "negative control ({:.1}s): secret branch {}, secret-indexed load {}, harness self-check {}, valgrind exit code {:?} ({})",
        run.seconds,
        if branch { "REPORTED" } else { "not reported" },
        if lookup { "REPORTED" } else { "not reported" },
        if self_check { "ok" } else { "failed" },
        run.exit_code,
        run.log_path.display()
    );
    if branch && lookup && self_check && exit_ok {
        "flagged (2/2, as required)".clone_into(&mut outcome.control);
    } else {
        outcome.control = format!("BROKEN ({}/2 flagged)", u8::from(branch) + u8::from(lookup));
        outcome.failures.push(format!(
            "negative control: the deliberate leaks were not all reported, so a clean run \
             would prove nothing (branch: {branch}, lookup: {lookup}, harness self-check: \
             {self_check}, exit code {:?}); harness output:\n{}{}",
            run.exit_code, run.stdout, run.stderr
        ));
    }
}

/// Whether a frame is in our code (library crates or harness).
fn is_our_frame(frame: &memcheck::Frame) -> bool {
    frame.location.contains("/crates/")
        || frame.location.contains("/ct-harness/")
        || frame.function.contains("lazykem")
}

/// A frame for printing, with the workspace root stripped from its path.
fn show_frame(root: &Path, frame: &memcheck::Frame) -> String {
    let prefix = format!("{}/", root.display());
    format!(
        "{} ({})",
        frame.function,
        frame.location.replace(&prefix, "")
    )
}

/// Step 2: the real run must be clean: every error context is a violation.
fn check_kem(root: &Path, run: &Run, outcome: &mut Outcome) {
    let violations = &run.log.errors;
    let harness_ok = run.stdout.contains(KEM_PASSED);
    let backends = harness_backends(&run.stdout);
    print!("{}", run.stdout);
    println!(
        "memcheck run ({:.1}s): {} error contexts (all violations); {:?}; valgrind exit code {:?} ({})",
        run.seconds,
        run.log.errors.len(),
        run.log.summary,
        run.exit_code,
        run.log_path.display()
    );
    let log_ok = check_run(root, run, harness_ok, outcome);
    outcome.kem = if violations.is_empty() && log_ok {
        format!("pass [{backends}] (0 reports)")
    } else if violations.is_empty() {
        "FAIL (harness/log)".into()
    } else {
        format!("FAIL ({} violations)", violations.len())
    };
}

/// What every memcheck run of the harness must show: each error context is a failure,
/// listed with the first frame in our code, the top of its stack and its origin; the
/// harness passed its own checks (`harness_ok`); the log parsed in full (as many contexts
/// as valgrind's `ERROR SUMMARY` counts) and valgrind's exit code agrees. Returns whether
/// all but the violations are in order.
fn check_run(root: &Path, run: &Run, harness_ok: bool, outcome: &mut Outcome) -> bool {
    let summary = run.log.summary;
    let parsed_all = summary.is_some_and(|s| s.contexts == run.log.errors.len() as u64);
    let exit_ok = match run.exit_code {
        Some(0) => run.log.errors.is_empty(),
        Some(ERROR_EXIT_CODE) => !run.log.errors.is_empty(),
        _ => false,
    };
    for error in &run.log.errors {
        let ours = error.stack.iter().find(|f| is_our_frame(f)).map_or_else(
            || "(no frame in our code)".to_string(),
            |f| show_frame(root, f),
        );
        let mut text = format!("{}\n    in {ours}\n    stack:", error.kind);
        for frame in error.stack.iter().take(10) {
            let _ = write!(text, "\n      {}", show_frame(root, frame));
        }
        if let Some(origin) = &error.origin {
            let _ = write!(text, "\n    {origin}");
            if let Some(frame) = error.origin_stack.first() {
                let _ = write!(text, " at {}", show_frame(root, frame));
            }
        }
        outcome.failures.push(format!("memcheck: {text}"));
    }
    if !harness_ok {
        outcome.failures.push(format!(
            "the harness did not pass its own checks (exit code {:?}):\n{}{}",
            run.exit_code, run.stdout, run.stderr
        ));
    }
    if !parsed_all {
        outcome.failures.push(format!(
            "the log has {} error contexts by valgrind's ERROR SUMMARY ({summary:?}) but {} were parsed",
            summary.map_or(0, |s| s.contexts),
            run.log.errors.len()
        ));
    }
    if !exit_ok {
        outcome.failures.push(format!(
            "unexpected valgrind exit code {:?} for {} error contexts",
            run.exit_code,
            run.log.errors.len()
        ));
    }
    harness_ok && parsed_all && exit_ok
}

/// The names of the suppressions in `file` (the line after each `{`).
fn suppression_names(file: &Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let mut lines = text.lines().map(str::trim);
    let mut names = Vec::new();
    while let Some(line) = lines.next() {
        if line == "{" {
            names.push(lines.next().unwrap_or_default().to_owned());
        }
    }
    Ok(names)
}

/// Step 2b, at [`HYBRID_LEVEL`]: `ct-harness hybrid` under memcheck on graviola's curves
/// (`graviola`, the run of this build) and on the RustCrypto / dalek ones
/// ([`build_fallback`]), with [`SUPPRESSIONS`] loaded. Each run must be clean but for the
/// suppressed reports, and the suppressions meant for it (named `graviola:` or `fallback:`,
/// or `both:`) must each match in it, and no other: a suppression whose report is gone is
/// stale and fails.
fn check_hybrids(
    root: &Path,
    level: Level,
    graviola: Result<Run, String>,
    log_dir: &Path,
    outcome: &mut Outcome,
) {
    let file = root.join(SUPPRESSIONS);
    let names = match suppression_names(&file) {
        Ok(names) => names,
        Err(e) => {
            outcome.failures.push(format!("hybrid KEMs: {e}"));
            "did not run".clone_into(&mut outcome.hybrid);
            return;
        }
    };
    let mut passed = Vec::new();
    let mut by_design = 0;
    let fallback = {
        let start = Instant::now();
        let built = build_fallback(root, level);
        println!(
            "built the fallback harness (no graviola) in {:.1}s",
            start.elapsed().as_secs_f64()
        );
        let log = log_dir.join("memcheck-hybrid-fallback.log");
        built.and_then(|binary| {
            valgrind(
                &binary,
                &["hybrid", "--expect", "fallback"],
                &log,
                Some(&file),
            )
        })
    };
    for (curves, run) in [("graviola", graviola), ("fallback", fallback)] {
        let run = match run {
            Ok(run) => run,
            Err(e) => {
                outcome
                    .failures
                    .push(format!("hybrid KEMs ({curves}): {e}"));
                continue;
            }
        };
        print!("{}", run.stdout);
        println!(
            "memcheck run, hybrids on the {curves} curves ({:.1}s): {} error contexts (all violations); {:?}; valgrind exit code {:?} ({})",
            run.seconds,
            run.log.errors.len(),
            run.log.summary,
            run.exit_code,
            run.log_path.display()
        );
        let log_ok = check_run(root, &run, run.stdout.contains(HYBRID_PASSED), outcome);
        let meant =
            |name: &str| name.starts_with(&format!("{curves}:")) || name.starts_with("both:");
        let used = |name: &str| run.log.used_suppressions.iter().any(|(n, _)| n == name);
        let mut suppressions_ok = true;
        for (name, count) in &run.log.used_suppressions {
            if !names.contains(name) {
                println!("  suppressed by valgrind's default suppressions: {count} x {name}");
                continue;
            }
            println!("  suppressed (public by design): {count:>3} x {name}");
            if !meant(name) {
                suppressions_ok = false;
                outcome.failures.push(format!(
                    "hybrid KEMs ({curves}): the suppression `{name}` is not meant for this run but matched in it"
                ));
            }
        }
        for name in names.iter().filter(|n| meant(n) && !used(n)) {
            suppressions_ok = false;
            outcome.failures.push(format!(
                "hybrid KEMs ({curves}): the suppression `{name}` matched nothing: its report is gone (remove it) or moved (fix its frames)"
            ));
        }
        if run.log.errors.is_empty() && log_ok && suppressions_ok {
            passed.push(curves);
            by_design += run.log.summary.map_or(0, |s| s.suppressed);
        }
    }
    outcome.hybrid = if passed.len() == 2 {
        format!(
            "pass [{}] (0 reports; {by_design} by design)",
            passed.join(", ")
        )
    } else {
        format!("FAIL (passed: [{}])", passed.join(", "))
    };
}

/// The backends the harness reports it ran, and those it skipped (not on this CPU), for
/// the summary: `portable, avx2` or `portable; skipped: avx2`.
fn harness_backends(stdout: &str) -> String {
    let line = |prefix: &str| stdout.lines().find_map(|l| l.strip_prefix(prefix));
    let checked = line("ct-harness: backends checked: ").unwrap_or("?");
    match line("ct-harness: backends skipped (not available on this CPU): ") {
        Some(skipped) => format!("{checked}; skipped: {skipped}"),
        None => checked.to_owned(),
    }
}

/// Step 3: no division in the code that handles secrets.
fn check_divisions(root: &Path, scan: &divscan::Scan, outcome: &mut Outcome) {
    let prefix = format!("{}/", root.display());
    let show = |d: &divscan::Division| {
        format!(
            "{}: `{}` from {} ({})",
            d.function,
            d.instruction,
            d.source_function,
            d.location.replace(&prefix, "")
        )
    };
    println!(
        "division scan: {} functions of our crates, {} more reached through calls, {} call targets not followed (panics, formatting), {} calls into shared libraries; {} divisions; negative control: {} found in {}",
        scan.roots,
        scan.reached,
        scan.not_followed,
        scan.external_calls,
        scan.divisions.len(),
        scan.control.len(),
        divscan::CONTROL_FUNCTION
    );
    let control_ok = !scan.control.is_empty();
    if !control_ok {
        outcome.failures.push(format!(
            "division scan: the negative control {} has no div instruction: the scan is broken",
            divscan::CONTROL_FUNCTION
        ));
    }
    let (accepted, rejected): (Vec<_>, Vec<_>) = scan
        .divisions
        .iter()
        .partition(|d| d.is_length_arithmetic());
    for d in &accepted {
        println!("  accepted: division in length arithmetic: {}", show(d));
    }
    for d in &rejected {
        outcome
            .failures
            .push(format!("division in secret-handling code: {}", show(d)));
    }
    let scanned = scan.roots + scan.reached;
    outcome.divisions = match (rejected.is_empty(), control_ok) {
        (true, true) if accepted.is_empty() => format!("none ({scanned} fns scanned)"),
        (true, true) => format!("{} length arithmetic only", accepted.len()),
        (true, false) => "control NOT found".into(),
        (false, _) => format!(
            "FAIL ({} found, {} length arith.)",
            rejected.len(),
            accepted.len()
        ),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harness_backends_lists_the_skipped_ones() {
        let both = concat!(
            "ct-harness: backend portable\n",
            "ct-harness: backends checked: portable, avx2\n",
        );
        assert_eq!(harness_backends(both), "portable, avx2");
        let one = concat!(
            "ct-harness: backends checked: portable\n",
            "ct-harness: backends skipped (not available on this CPU): avx2\n",
        );
        assert_eq!(harness_backends(one), "portable; skipped: avx2");
        assert_eq!(harness_backends(""), "?");
    }
}
