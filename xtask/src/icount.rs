//! `cargo xtask icount`: instructions executed per ML-KEM operation on aarch64, counted
//! under `qemu-aarch64`, with a per-function profile.
//!
//! **A count is a proxy for speed, not a time.** It is exact and reproducible (same binary,
//! same count), which timing under emulation is not, but it has no pipeline, no latencies,
//! no caches and no branch prediction: a 128-bit NEON multiply, a load, an `eor3` and a `nop`
//! count one each. Use it to compare instruction work (an A/B of a change, the share of a
//! function) and to see which code runs; a speed claim needs hardware. QEMU's `cortex-a72`
//! is a feature set (Armv8.0 without SHA3), not a model of that core.
//!
//! Method (as a callgrind A/B): `kem-ops SET OP N` (the `kem-ops` package, a release build
//! for `aarch64-unknown-linux-gnu` with the default profile, `lazykem` with `hazmat` only)
//! builds a fixture, runs 16 warm-up operations, then N; it runs under
//! `qemu-aarch64 -cpu CPU` with the TCG plugin `xtask/plugins/icount.c` (an inline counter
//! per guest instruction; `syms=on` adds one per ELF symbol) for N = 1, 11 and 21, with an
//! empty environment and N zero-padded (the initial stack does not move). Instructions per
//! operation = (count(21) - count(1)) / 20: process start, loader, fixture and warm-up
//! cancel. The two halves, count(11) - count(1) and count(21) - count(11), must be equal, or
//! the cell is marked `~` (an operation whose count changes from call to call). The counts
//! include what the operations call in libc (`memcpy`, `memset`: the `?lib` line of the
//! profile). The profile does the same subtraction per symbol (QEMU's lookup in the
//! executable's ELF symbol table: inlined code counts in the function it is inlined into).
//!
//! Operations: `keygen` (`DecapsulationKey::from_seed`), `encaps` and `decaps` on parsed keys
//! (which keep t-hat and A-hat), `encaps-bytes` (`EncapsulationKey::from_bytes` then
//! `encapsulate_deterministic`) and `decaps-bytes` (`Ciphertext::from_bytes` then
//! `DecapsulationKey::decapsulate_expanded`), each on the backend `lazykem::backend()` picks
//! (or `--backend NAME`), as `../shared/tools/aarch64-icount` measures the project.
//!
//! Usage: `cargo xtask icount [--cpus max,cortex-a72] [--sets 512,768,1024] [--ops
//! keygen,...] [--backend NAME] [--profile SET|none] [--top K]` (profile: set 768, top 12).

// Instruction counts are far below 2^52: the conversions to f64 are exact.
#![allow(clippy::cast_precision_loss)]

use crate::qemu;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

const OPS: [&str; 5] = ["keygen", "encaps", "decaps", "encaps-bytes", "decaps-bytes"];
const SETS: [&str; 3] = ["512", "768", "1024"];

/// The options of one run of the command.
struct Options {
    cpus: Vec<String>,
    sets: Vec<String>,
    ops: Vec<String>,
    backend: Option<String>,
    profile: Option<String>,
    top: usize,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        cpus: Vec::new(),
        sets: Vec::new(),
        ops: Vec::new(),
        backend: None,
        profile: Some("768".into()),
        top: 12,
    };
    let list = |value: &String| -> Vec<String> {
        value
            .split(',')
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--cpu" | "--cpus" => qemu::parse_cpus(value()?, &mut options.cpus),
            "--set" | "--sets" => options.sets.extend(list(value()?)),
            "--op" | "--ops" => options.ops.extend(list(value()?)),
            "--backend" => options.backend = Some(value()?.clone()),
            "--profile" => {
                let set = value()?;
                options.profile = (set != "none").then(|| set.clone());
            }
            "--top" => {
                options.top = value()?.parse().map_err(|e| format!("--top: {e}"))?;
            }
            other => {
                return Err(format!(
                    "unknown argument `{other}`\nusage: cargo xtask icount [--cpus max,cortex-a72] \
                     [--sets 512,768,1024] [--ops keygen,...] [--backend NAME] [--profile SET|none] [--top K]"
                ));
            }
        }
    }
    if options.cpus.is_empty() {
        options.cpus = qemu::CPUS.iter().map(|&c| c.to_owned()).collect();
    }
    if options.sets.is_empty() {
        options.sets = SETS.iter().map(|&s| s.to_owned()).collect();
    }
    if options.ops.is_empty() {
        options.ops = OPS.iter().map(|&o| o.to_owned()).collect();
    }
    if let Some(op) = options.ops.iter().find(|o| !OPS.contains(&o.as_str())) {
        return Err(format!("unknown operation `{op}` ({})", OPS.join(", ")));
    }
    if let Some(set) = options.sets.iter().find(|s| !SETS.contains(&s.as_str())) {
        return Err(format!("unknown set `{set}` ({})", SETS.join(", ")));
    }
    Ok(options)
}

/// One plugin report: the total and, with `syms=on`, the count per (demangled) symbol.
struct Count {
    total: u64,
    symbols: HashMap<String, u64>,
}

/// One cell: instructions per operation, whether the two halves agreed, the profile.
struct Cell {
    per_op: f64,
    linear: bool,
    profile: Vec<(String, f64)>,
    backend: String,
}

/// Runs the command.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let options = parse(args)?;
    let root = qemu::workspace_root();
    let plugin = qemu::build_plugin(&root, "icount")?;
    let binary = qemu::build_aarch64(
        &root,
        "kem-ops",
        "kem-ops",
        &qemu::target_base(&root),
        &[
            ("CARGO_PROFILE_RELEASE_DEBUG", None),
            ("CARGO_PROFILE_RELEASE_OPT_LEVEL", None),
        ],
    )?;
    let dir = qemu::target_base(&root).join("icount/counts");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut cells: HashMap<(String, String, String), Cell> = HashMap::new();
    for cpu in &options.cpus {
        for set in &options.sets {
            for op in &options.ops {
                let profiled = options.profile.as_deref() == Some(set.as_str());
                let cell = measure(&plugin, &binary, &dir, cpu, set, op, &options, profiled)?;
                eprintln!(
                    "icount: -cpu {cpu} ML-KEM-{set} {op}: {:.0} instructions/op",
                    cell.per_op
                );
                cells.insert((cpu.clone(), set.clone(), op.clone()), cell);
            }
        }
    }
    print!("{}", table(&options, &cells));
    if let Some(set) = &options.profile {
        for cpu in &options.cpus {
            for op in &options.ops {
                if let Some(cell) = cells.get(&(cpu.clone(), set.clone(), op.clone())) {
                    print!("{}", profile(cpu, set, op, cell, options.top));
                }
            }
        }
    }
    Ok(())
}

/// Runs one cell for N = 1, 11, 21.
#[allow(clippy::too_many_arguments)]
fn measure(
    plugin: &Path,
    binary: &Path,
    dir: &Path,
    cpu: &str,
    set: &str,
    op: &str,
    options: &Options,
    profiled: bool,
) -> Result<Cell, String> {
    let mut counts = Vec::new();
    let mut backend = String::new();
    for n in [1u32, 11, 21] {
        let out = dir.join(format!("{cpu}-{set}-{op}-{n}.txt"));
        let plugin_options = format!(
            "out={}{}",
            out.display(),
            if profiled { ",syms=on" } else { ",mode=tb" }
        );
        let n_arg = format!("{n:06}");
        let mut args = vec![set, op, n_arg.as_str()];
        if let Some(b) = &options.backend {
            args.push(b);
        }
        let output = qemu::run(cpu, plugin, &plugin_options, binary, &args)?;
        String::from_utf8_lossy(&output.stdout)
            .split(" on ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or("?")
            .clone_into(&mut backend);
        let text = std::fs::read_to_string(&out)
            .map_err(|e| format!("cannot read {}: {e}", out.display()))?;
        counts.push(parse_count(&text)?);
    }
    let [one, eleven, twenty_one] = [&counts[0], &counts[1], &counts[2]];
    let linear = eleven.total - one.total == twenty_one.total - eleven.total;
    let per_op = (twenty_one.total - one.total) as f64 / 20.0;
    let mut profile: Vec<(String, f64)> = twenty_one
        .symbols
        .iter()
        .map(|(name, &count)| {
            let base = one.symbols.get(name).copied().unwrap_or(0);
            (name.clone(), (count as f64 - base as f64) / 20.0)
        })
        .filter(|(_, per_op)| *per_op >= 0.5)
        .collect();
    profile.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(Cell {
        per_op,
        linear,
        profile,
        backend,
    })
}

/// Parses the plugin's `insns N` and `COUNT<TAB>SYMBOL` lines.
fn parse_count(text: &str) -> Result<Count, String> {
    let mut total = None;
    let mut symbols = HashMap::new();
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("insns ") {
            total = n.trim().parse().ok();
        } else if let Some((count, name)) = line.split_once('\t') {
            let count: u64 = count
                .parse()
                .map_err(|e| format!("bad line `{line}`: {e}"))?;
            *symbols.entry(demangle(name)).or_insert(0) += count;
        }
    }
    Ok(Count {
        total: total.ok_or("no `insns` line in the plugin's report")?,
        symbols,
    })
}

/// Demangles a Rust legacy symbol (`_ZN7lazykem4kpke7encrypt17h0123456789abcdefE` ->
/// `lazykem::kpke::encrypt`); other names are returned unchanged.
pub(crate) fn demangle(name: &str) -> String {
    let Some(mut rest) = name.strip_prefix("_ZN") else {
        return name.to_owned();
    };
    let mut parts: Vec<&str> = Vec::new();
    while !rest.starts_with('E') {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let Ok(len) = rest[..digits].parse::<usize>() else {
            return name.to_owned();
        };
        let Some(part) = rest.get(digits..digits + len) else {
            return name.to_owned();
        };
        // A segment starting with `$` is written with a leading `_`.
        parts.push(
            part.strip_prefix('_')
                .filter(|p| p.starts_with('$'))
                .unwrap_or(part),
        );
        rest = &rest[digits + len..];
    }
    if parts
        .last()
        .is_some_and(|h| h.len() == 17 && h.starts_with('h'))
    {
        parts.pop();
    }
    let mut joined = parts.join("::");
    for (from, to) in [
        ("$LT$", "<"),
        ("$GT$", ">"),
        ("$RF$", "&"),
        ("$BP$", "*"),
        ("$C$", ","),
        ("$SP$", "@"),
        ("$u20$", " "),
        ("$u27$", "'"),
        ("$u5b$", "["),
        ("$u5d$", "]"),
        ("$u7b$", "{"),
        ("$u7d$", "}"),
        ("$u3b$", ";"),
        ("$u2b$", "+"),
        ("$u22$", "\""),
        ("..", "::"),
    ] {
        joined = joined.replace(from, to);
    }
    joined
}

/// The table: one row per set and operation, one column per CPU model.
fn table(options: &Options, cells: &HashMap<(String, String, String), Cell>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\ninstructions per operation under qemu-aarch64 (a proxy for speed, not a time; (N=21 - N=1) / 20)"
    );
    let mut header = "| set | operation |".to_owned();
    let mut rule = "|---|---|".to_owned();
    for cpu in &options.cpus {
        let backend = options
            .sets
            .iter()
            .flat_map(|s| options.ops.iter().map(move |o| (s, o)))
            .find_map(|(s, o)| cells.get(&(cpu.clone(), s.clone(), o.clone())))
            .map_or("?", |c| c.backend.as_str());
        let _ = write!(header, " -cpu {cpu} ({backend}) |");
        rule.push_str("---:|");
    }
    let _ = writeln!(out, "{header}\n{rule}");
    for set in &options.sets {
        for op in &options.ops {
            let _ = write!(out, "| {set} | {op} |");
            for cpu in &options.cpus {
                match cells.get(&(cpu.clone(), set.clone(), op.clone())) {
                    Some(c) => {
                        let mark = if c.linear { "" } else { " ~" };
                        let _ = write!(out, " {}{mark} |", thousands(c.per_op));
                    }
                    None => out.push_str(" - |"),
                }
            }
            out.push('\n');
        }
    }
    out
}

/// The top functions of one cell.
fn profile(cpu: &str, set: &str, op: &str, cell: &Cell, top: usize) -> String {
    let mut out = format!(
        "\nprofile -cpu {cpu} ML-KEM-{set} {op} ({} instructions/op, backend {}):\n",
        thousands(cell.per_op),
        cell.backend
    );
    for (name, count) in cell.profile.iter().take(top) {
        let _ = writeln!(
            out,
            "  {:>10} {:>5.1} %  {name}",
            thousands(*count),
            100.0 * count / cell.per_op
        );
    }
    out
}

/// `282123.5` -> `282,124`.
fn thousands(value: f64) -> String {
    let digits = format!("{:.0}", value.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demangles_legacy_rust_symbols() {
        assert_eq!(
            demangle("_ZN7lazykem4kpke7encrypt17h0123456789abcdefE"),
            "lazykem::kpke::encrypt"
        );
        assert_eq!(
            demangle(
                "_ZN16lattice_sampling37_$LT$impl$u20$lattice_sampling..X$GT$3f1617h0123456789abcdefE"
            ),
            "lattice_sampling::<impl lattice_sampling::X>::f16"
        );
        assert_eq!(demangle("memcpy"), "memcpy");
        assert_eq!(demangle("?lib"), "?lib");
    }

    #[test]
    fn counts_and_thousands() {
        let count = parse_count("insns 1234\n1000\tmemcpy\n200\t_ZN1a1b17h0123456789abcdefE\n")
            .expect("parsed");
        assert_eq!(count.total, 1234);
        assert_eq!(count.symbols["a::b"], 200);
        assert_eq!(thousands(282_123.5), "282,124");
        assert_eq!(thousands(999.0), "999");
    }
}
