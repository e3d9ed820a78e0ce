//! `cargo xtask ct-aarch64`: constant time on aarch64, where valgrind and dudect cannot help
//! (no aarch64 hardware here, and qemu's timing is not a CPU's).
//!
//! For every opt-level asked for (default `release` and `z`, the two extremes of the x86
//! check: `z` keeps a division instruction for every division by a constant), `ct-harness`
//! is built for `aarch64-unknown-linux-gnu` with debug info (`target/ct-aarch64/<level>/`,
//! under `CARGO_TARGET_DIR` when set; the plugin's reports land there too), then:
//!
//! 1. **the division scan** ([`super::divscan`], [`divscan::Arch::Aarch64`]): every `udiv`/`sdiv` in
//!    our crates' code and what it calls, with the allow rule of `cargo xtask ct` (length
//!    arithmetic in `core`) and its negative control (`ct_harness::leaky::divide_by_secret`
//!    must be found);
//! 2. **the trace-equivalence test**, under `qemu-aarch64 -cpu max` (FEAT_SHA3) and
//!    `-cpu cortex-a72` (no SHA3), so every aarch64 path runs: `ct-harness trace` runs pairs
//!    of one operation on two secrets (see `ct-harness/src/trace.rs`: decapsulation of a
//!    valid and of a rejected ciphertext, under two keys, parsed and from bytes, the key
//!    import, encapsulation of two messages, key generation), each as input A, B, then A
//!    again, between two marker functions. The QEMU plugin `xtask/plugins/cttrace.c` hashes,
//!    between the markers, the sequence of executed instruction addresses and the sequence
//!    of memory accesses (address, size, load or store). Every pair must give three
//!    identical segments: a secret-dependent branch changes the instruction addresses, a
//!    secret-dependent index the memory addresses. The negative controls of
//!    `ct_harness::leaky` must be seen: `branch_on_secret` (a branch on a secret bit) must
//!    change the instruction trace, `lookup_by_secret` (a load at a secret index) the
//!    memory trace alone; and A against A again must agree, or the method is not
//!    deterministic and proves nothing.
//!
//! # The machine outliner
//! At opt-level `z` LLVM's machine outliner (on by default for aarch64 code optimized for
//! size) moves instruction sequences repeated across functions into `OUTLINED_FUNCTION_N`
//! helpers, which have no debug info: a division moved there (measured: 17 at `z`, e.g.
//! `mov w8, #384; udiv x8, x20, x8`, a `chunks_exact(384)` length) can no longer be traced to
//! the source function the allow rule needs, and the call site's line does not name it
//! either. The harness is therefore built with the outliner off
//! (`-Cllvm-args=-enable-machine-outliner=never`, at every level): outlining moves
//! instructions between functions but creates or removes no division, so the scan sees the
//! divisions of the shipped code, each in the function it came from.
//!
//! # Opt-level z: lengths split without division
//! At `z` LLVM keeps a `udiv` for a division by a constant (it is shorter than the multiply
//! and shift), so a `chunks_exact(384)` over a slice whose length is only known at run time
//! becomes `mov w8, #384; udiv ..`, hoisted to the entry of the function it was inlined
//! into, where the debug info no longer names the iterator. The 12-bit vector encodings
//! therefore split their 384-byte slices off one by one (`kpke::poly_chunks`), and every
//! level, `z` included, scans clean.
//!
//! # Key generation and rho
//! Key generation's trace depends on rho by design: A-hat is rejection-sampled from it
//! (public, in the encapsulation key), and `rho = G(d || k)[..32]` comes from the same `d` as
//! the secret `sigma`, so no two seeds with different `d` share rho, and no public entry
//! point takes rho apart from `d`. The key generation pairs therefore use one `d` and two
//! `z` (the implicit-rejection secret); sigma's noise sampling, the NTTs, the products and
//! the encodings on secret data are covered by the other pairs, whose re-encryption and
//! decryption run the same kernels on secret inputs (and by the valgrind check on x86).
//!
//! # Addresses
//! Both traces of a pair come from one process: the same load address, the same stack
//! (the harness calls the operation from one out-of-line function, its input copied into
//! one slot), so addresses are compared as they are. (qemu-user also loads the harness at a
//! fixed address, 0x5500000000 with qemu 7.2: the plugin prints it.)
//!
//! # What it does not see
//! Timing that does not show in the instruction and address sequence: variable-latency
//! instructions (divisions: the scan; multiplications are constant-time on the cores we
//! know of), data-dependent latencies of the CPU; and inputs other than the pairs'. A trace
//! is of one build on QEMU's model of the CPU features.
//!
//! Usage: `cargo xtask ct-aarch64 [--levels release,1,s,z] [--cpus max,cortex-a72]
//! [--no-trace]`. `qemu-aarch64` (Debian `qemu-user`), `aarch64-linux-gnu-objdump` (Debian
//! `binutils-aarch64-linux-gnu`, with `gcc-aarch64-linux-gnu`) and a host `cc` are needed:
//! `cargo xtask cross` installs the first two.

use super::{LEVELS, Level, Outcome, check_divisions, divscan, parse_levels};
use crate::qemu;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// LLVM's machine outliner off (see the module documentation).
const NO_OUTLINER: &str = "-Cllvm-args=-enable-machine-outliner=never";

/// The marker functions of `ct-harness/src/trace.rs` (substrings of their symbols).
const BEGIN: &str = "trace_marker_begin";
const END: &str = "trace_marker_end";

/// One segment of the plugin's report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Segment {
    insns: u64,
    mems: u64,
    ihash: u64,
    mhash: u64,
}

/// What a pair must show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// Constant time: the three segments are identical.
    Same,
    /// The negative control with a secret branch: A and B differ in instruction addresses.
    InsnsDiffer,
    /// The negative control with a secret index: same instructions, different addresses.
    MemsDiffer,
}

/// One pair: its label, its expectation, and its segments A, B, A again.
#[derive(Debug)]
struct Pair {
    label: String,
    expect: Expect,
    segments: [Segment; 3],
}

/// The result of the trace test under one CPU model.
#[derive(Debug, Default)]
struct TraceResult {
    pairs: usize,
    controls_flagged: usize,
    controls: usize,
    failures: Vec<String>,
    base: String,
    seconds: f64,
}

/// Runs the command.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let mut levels: Vec<Level> = LEVELS
        .iter()
        .filter(|l| l.name == "release" || l.name == "opt-z")
        .copied()
        .collect();
    let mut cpus = Vec::new();
    let mut trace = true;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--levels" => {
                let list = args.next().ok_or("--levels needs a list, e.g. release,z")?;
                levels = parse_levels(&["--levels".to_owned(), list.clone()])?;
            }
            "--cpu" | "--cpus" => {
                qemu::parse_cpus(args.next().ok_or("--cpus needs a list")?, &mut cpus);
            }
            "--no-trace" => trace = false,
            other => {
                return Err(format!(
                    "unknown argument `{other}`\nusage: cargo xtask ct-aarch64 \
                     [--levels release,1,s,z] [--cpus max,cortex-a72] [--no-trace]"
                ));
            }
        }
    }
    if cpus.is_empty() {
        cpus = qemu::CPUS.iter().map(|&c| c.to_owned()).collect();
    }
    let start = Instant::now();
    let root = qemu::workspace_root();
    let plugin = if trace {
        Some(qemu::build_plugin(&root, "cttrace")?)
    } else {
        None
    };
    let mut rows: Vec<Row> = Vec::new();
    let mut failed = Vec::new();
    for level in &levels {
        println!("\n== ct-aarch64: {} ==", level.name);
        let (outcome, traces) = check_level(&root, *level, plugin.as_deref(), &cpus);
        for failure in outcome
            .failures
            .iter()
            .chain(traces.iter().flat_map(|t| &t.failures))
        {
            println!("FAIL [{}] {failure}", level.name);
        }
        if !outcome.failures.is_empty() || traces.iter().any(|t| !t.failures.is_empty()) {
            failed.push(level.name);
        }
        rows.push((level.name, outcome, traces));
    }

    summary(&rows, &cpus);
    println!("ct-aarch64: total {:.1}s", start.elapsed().as_secs_f64());
    if failed.is_empty() {
        println!("ct-aarch64: PASS");
        Ok(())
    } else {
        Err(format!("failed at {}", failed.join(", ")))
    }
}

/// One level's results: its name, build and scan, and one trace result per CPU model.
type Row = (&'static str, Outcome, Vec<TraceResult>);

/// Prints the summary table.
fn summary(rows: &[Row], cpus: &[String]) {
    println!("\n== ct-aarch64: summary ==");
    println!(
        "{:<8} {:>7} {:<40} {:<12} {:<58} {:>7}",
        "level",
        "build",
        "divisions (aarch64)",
        "cpu",
        "trace pairs (identical) / controls flagged",
        "total"
    );
    for (name, outcome, traces) in rows {
        let mut first = true;
        for (cpu, t) in cpus.iter().zip(traces) {
            let verdict = if t.failures.is_empty() {
                format!(
                    "pass: {} pairs identical; controls {}/{} flagged ({:.1}s)",
                    t.pairs, t.controls_flagged, t.controls, t.seconds
                )
            } else {
                format!("FAIL ({} failures)", t.failures.len())
            };
            if first {
                println!(
                    "{name:<8} {:>6.1}s {:<40} {cpu:<12} {verdict:<58} {:>6.1}s",
                    outcome.build_seconds, outcome.divisions, outcome.seconds
                );
            } else {
                println!("{:<8} {:>7} {:<40} {cpu:<12} {verdict:<58}", "", "", "");
            }
            first = false;
        }
        if traces.is_empty() {
            println!(
                "{name:<8} {:>6.1}s {:<40} {:<12} {:<58} {:>6.1}s",
                outcome.build_seconds, outcome.divisions, "-", "(not run)", outcome.seconds
            );
        }
    }
    if let Some(base) = rows.iter().flat_map(|r| &r.2).map(|t| &t.base).next() {
        println!("ct-aarch64: qemu-user loaded the harness at {base}");
    }
}

/// Builds the aarch64 harness for one level (`cargo xtask sct` checks the same builds).
pub(crate) fn build(root: &Path, level: Level) -> Result<PathBuf, String> {
    qemu::build_aarch64(
        root,
        "ct-harness",
        "ct-harness",
        &qemu::target_base(root).join("ct-aarch64").join(level.name),
        &[
            ("CARGO_PROFILE_RELEASE_DEBUG", Some("true")),
            ("CARGO_PROFILE_RELEASE_OPT_LEVEL", level.opt),
            // See "The machine outliner" in the module documentation.
            ("CARGO_ENCODED_RUSTFLAGS", Some(NO_OUTLINER)),
            ("RUSTFLAGS", None),
        ],
    )
}

/// Builds the aarch64 harness in the dev profile (`target/ct-aarch64/dev/`, for `cargo
/// xtask sct`), with the rust flags of [`build`].
pub(crate) fn build_dev(root: &Path) -> Result<PathBuf, String> {
    qemu::build_aarch64_profile(
        root,
        "ct-harness",
        "ct-harness",
        &qemu::target_base(root).join("ct-aarch64").join("dev"),
        qemu::Profile::Dev,
        &[
            ("CARGO_ENCODED_RUSTFLAGS", Some(NO_OUTLINER)),
            ("RUSTFLAGS", None),
        ],
    )
}

/// Builds, scans and traces one level.
fn check_level(
    root: &Path,
    level: Level,
    plugin: Option<&Path>,
    cpus: &[String],
) -> (Outcome, Vec<TraceResult>) {
    let start = Instant::now();
    let mut outcome = Outcome::default();
    let binary = match build(root, level) {
        Ok(binary) => binary,
        Err(e) => {
            outcome.failures.push(e);
            "build failed".clone_into(&mut outcome.divisions);
            return (outcome, Vec::new());
        }
    };
    outcome.build_seconds = start.elapsed().as_secs_f64();
    println!(
        "built {} in {:.1}s",
        binary.display(),
        outcome.build_seconds
    );
    match divscan::scan_binary(&binary, divscan::Arch::Aarch64) {
        Ok(scan) => check_divisions(root, &scan, &mut outcome),
        Err(e) => {
            outcome.failures.push(format!("division scan: {e}"));
            "did not run".clone_into(&mut outcome.divisions);
        }
    }
    let mut traces = Vec::new();
    if let Some(plugin) = plugin {
        let log_dir = qemu::target_base(root).join("ct-aarch64").join(level.name);
        for cpu in cpus {
            let result = trace(plugin, &binary, cpu, &log_dir);
            println!(
                "trace -cpu {cpu} ({:.1}s): {} pairs, {} failures, controls {}/{} flagged",
                result.seconds,
                result.pairs,
                result.failures.len(),
                result.controls_flagged,
                result.controls
            );
            traces.push(result);
        }
    }
    outcome.seconds = start.elapsed().as_secs_f64();
    (outcome, traces)
}

/// Runs `ct-harness trace` under one CPU model with the plugin and checks every pair.
fn trace(plugin: &Path, binary: &Path, cpu: &str, log_dir: &Path) -> TraceResult {
    let start = Instant::now();
    let mut result = TraceResult::default();
    let report = log_dir.join(format!("trace-{cpu}.txt"));
    let options = format!("out={},begin={BEGIN},end={END}", report.display());
    let output = match qemu::run(cpu, plugin, &options, binary, &["trace"]) {
        Ok(output) => output,
        Err(e) => {
            result.failures.push(e);
            return result;
        }
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let text = match std::fs::read_to_string(&report) {
        Ok(text) => text,
        Err(e) => {
            result
                .failures
                .push(format!("cannot read {}: {e}", report.display()));
            return result;
        }
    };
    let pairs = match pairs(&stdout, &text) {
        Ok(pairs) => pairs,
        Err(e) => {
            result.failures.push(e);
            return result;
        }
    };
    text.lines()
        .find_map(|l| l.strip_prefix("base "))
        .unwrap_or("?")
        .clone_into(&mut result.base);
    let mut diagnosed = 0;
    for (index, pair) in pairs.iter().enumerate() {
        match check_pair(pair) {
            Ok(()) if pair.expect != Expect::Same => result.controls_flagged += 1,
            Ok(()) => {}
            Err(e) => {
                let mut failure = format!("-cpu {cpu}: {}: {e}", pair.label);
                // Where A and B part, for the first few failures (a rerun with a dump).
                if pair.expect == Expect::Same && diagnosed < MAX_DIAGNOSED {
                    diagnosed += 1;
                    let found = divergence(plugin, binary, cpu, log_dir, 3 * index)
                        .unwrap_or_else(|e| format!("(no dump: {e})"));
                    failure.push_str("\n    ");
                    failure.push_str(&found);
                }
                result.failures.push(failure);
            }
        }
        if pair.expect == Expect::Same {
            result.pairs += 1;
        } else {
            result.controls += 1;
        }
    }
    if result.controls != 2 {
        result.failures.push(format!(
            "-cpu {cpu}: expected the 2 negative controls, found {}",
            result.controls
        ));
    }
    if let Some(backends) = stdout
        .lines()
        .find_map(|l| l.strip_prefix("trace: backends "))
    {
        println!("trace -cpu {cpu}: backends {backends}");
    }
    result.seconds = start.elapsed().as_secs_f64();
    result
}

/// Failing pairs whose first divergence is looked for.
const MAX_DIAGNOSED: usize = 3;

/// Reruns the harness with segments `first` (A) and `first + 1` (B) dumped and returns where
/// they part: the first differing event, with the last instruction before it.
fn divergence(
    plugin: &Path,
    binary: &Path,
    cpu: &str,
    log_dir: &Path,
    first: usize,
) -> Result<String, String> {
    let prefix = log_dir.join(format!("dump-{cpu}"));
    let options = format!(
        "out={},begin={BEGIN},end={END},dump={},seg={first},seg={}",
        log_dir.join(format!("trace-{cpu}-dump.txt")).display(),
        prefix.display(),
        first + 1
    );
    qemu::run(cpu, plugin, &options, binary, &["trace"])?;
    let read = |segment: usize| {
        let path = PathBuf::from(format!("{}.{segment}", prefix.display()));
        std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    };
    let (a, b) = (read(first)?, read(first + 1)?);
    let mut last_insn = "";
    for (n, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            let show = |event: &str| {
                // "I addr symbol": demangle the symbol.
                match event.splitn(3, ' ').collect::<Vec<_>>()[..] {
                    ["I", addr, symbol] => format!("I {addr} {}", crate::icount::demangle(symbol)),
                    _ => event.to_owned(),
                }
            };
            return Ok(format!(
                "first divergence at event {n}: A `{}`, B `{}` (after instruction `{}`; dumps {}.{first} and .{})",
                show(x),
                show(y),
                show(last_insn),
                prefix.display(),
                first + 1
            ));
        }
        if x.starts_with("I ") {
            last_insn = x;
        }
    }
    Ok(format!(
        "A and B agree for {} events, then one ends ({} and {} events)",
        a.lines().count().min(b.lines().count()),
        a.lines().count(),
        b.lines().count()
    ))
}

/// Zips the harness's pair lines with the plugin's segments (three per pair).
fn pairs(stdout: &str, report: &str) -> Result<Vec<Pair>, String> {
    let segments: Vec<Segment> = report
        .lines()
        .filter(|l| l.starts_with("segment "))
        .map(parse_segment)
        .collect::<Result<_, _>>()?;
    if let Some(line) = report.lines().find(|l| l.starts_with("unterminated")) {
        return Err(format!("plugin: {line}"));
    }
    let labels: Vec<(String, Expect)> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("trace: pair "))
        .map(|l| {
            let (label, expect) = l
                .rsplit_once(" expect=")
                .ok_or_else(|| format!("bad pair line `{l}`"))?;
            let expect = match expect {
                "same" => Expect::Same,
                "insns-differ" => Expect::InsnsDiffer,
                "mems-differ" => Expect::MemsDiffer,
                other => return Err(format!("unknown expectation `{other}`")),
            };
            Ok((label.to_owned(), expect))
        })
        .collect::<Result<_, String>>()?;
    if labels.is_empty() || segments.len() != 3 * labels.len() {
        return Err(format!(
            "the harness announced {} pairs but the plugin saw {} segments (3 per pair)",
            labels.len(),
            segments.len()
        ));
    }
    Ok(labels
        .into_iter()
        .zip(segments.chunks_exact(3))
        .map(|((label, expect), s)| Pair {
            label,
            expect,
            segments: [s[0], s[1], s[2]],
        })
        .collect())
}

/// `segment N insns I mems M ihash 0x.. mhash 0x..`.
fn parse_segment(line: &str) -> Result<Segment, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let number = |key: &str| -> Result<u64, String> {
        let at = fields
            .iter()
            .position(|f| *f == key)
            .ok_or_else(|| format!("no `{key}` in `{line}`"))?;
        let value = fields.get(at + 1).copied().unwrap_or_default();
        match value.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => value.parse(),
        }
        .map_err(|e| format!("bad `{key}` in `{line}`: {e}"))
    };
    Ok(Segment {
        insns: number("insns")?,
        mems: number("mems")?,
        ihash: number("ihash")?,
        mhash: number("mhash")?,
    })
}

/// Checks one pair against its expectation.
fn check_pair(pair: &Pair) -> Result<(), String> {
    let [a, b, again] = pair.segments;
    if a != again {
        return Err(format!(
            "input A traced twice gave different traces ({a:?} / {again:?}): the method is not deterministic here"
        ));
    }
    if a.insns == 0 {
        return Err("empty segment: the markers were not seen".into());
    }
    let insns_same = a.ihash == b.ihash && a.insns == b.insns;
    let mems_same = a.mhash == b.mhash && a.mems == b.mems;
    match pair.expect {
        Expect::Same if insns_same && mems_same => Ok(()),
        Expect::Same => Err(format!(
            "the traces of A and B differ: {} (A: {} instructions, {} accesses; B: {}, {})",
            match (insns_same, mems_same) {
                (false, _) => "instruction addresses (a secret-dependent branch)",
                _ => "memory addresses only (a secret-dependent index)",
            },
            a.insns,
            a.mems,
            b.insns,
            b.mems
        )),
        Expect::InsnsDiffer if !insns_same => Ok(()),
        Expect::MemsDiffer if insns_same && !mems_same => Ok(()),
        Expect::InsnsDiffer | Expect::MemsDiffer => Err(format!(
            "negative control NOT flagged (expected {:?}; instructions same: {insns_same}, memory same: {mems_same}): the check is broken",
            pair.expect
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_checked_against_their_expectation() {
        let stdout = "trace: pair leaky branch expect=insns-differ\n\
                      other output\n\
                      trace: pair ML-KEM-768 neon decaps valid/rejected expect=same\n";
        let report = "base 0x5500000000\n\
            segment 0 insns 40 mems 10 ihash 0x1 mhash 0x2\n\
            segment 1 insns 30 mems 10 ihash 0x3 mhash 0x2\n\
            segment 2 insns 40 mems 10 ihash 0x1 mhash 0x2\n\
            segment 3 insns 9 mems 4 ihash 0xa mhash 0xb\n\
            segment 4 insns 9 mems 4 ihash 0xa mhash 0xc\n\
            segment 5 insns 9 mems 4 ihash 0xa mhash 0xb\n";
        let parsed = pairs(stdout, report).expect("parsed");
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[1].label, "ML-KEM-768 neon decaps valid/rejected");
        assert!(check_pair(&parsed[0]).is_ok());
        let error = check_pair(&parsed[1]).expect_err("memory trace differs");
        assert!(error.contains("memory addresses only"), "{error}");
        // The control with a secret index must differ in memory only.
        let control = Pair {
            expect: Expect::MemsDiffer,
            ..parsed.into_iter().nth(1).expect("two")
        };
        assert!(check_pair(&control).is_ok());
        assert!(
            pairs(
                "trace: pair x expect=same\n",
                "segment 0 insns 1 mems 1 ihash 0x1 mhash 0x1\n"
            )
            .is_err()
        );
    }
}
