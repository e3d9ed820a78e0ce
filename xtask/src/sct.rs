//! `cargo xtask sct`: the misspeculation flag of the sampling kernels (issue 32,
//! `lattice_sampling::backend::speculation`), checked in the machine code.
//!
//! The flag's updates are `cmp` + `cmov` and its masking an `or`, each in an `asm!` block
//! the compiler cannot rewrite; what it can do is drop them: inline a parser somewhere the
//! source forgot to pass the flag, build a configuration where the module falls back to
//! the portable identity, or fold an update whose operands it knows. This command builds
//! `ct-harness` (which links every x86 parser and the lane scheduler) at every opt-level
//! `cargo xtask ct` checks (sharing its target directories, so CI builds once) and in the
//! dev profile, disassembles it with source lines (`objdump -d -l`), and requires, for
//! every function of the binary that contains code of a protected function (even inlined):
//! - a `cmov` from the flag's update blocks (`speculation::x86_64::set_if_*`) where the
//!   protected code updates the flag, and an `or` from the masking block
//!   (`speculation::x86_64::or`) where it masks (`PROTECTED` says which does which);
//! - no conditional jump inside those blocks;
//!
//! and, for the whole binary, the `lfence` of `init_msf`, at least one function holding
//! each of the AVX2 parser, the VBMI2 parser and the scheduler's round (so that a renamed
//! function cannot make the check pass vacuously).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::ct::{LEVELS, build, ensure_tool, parse_levels, workspace_root};

/// Inlined-function names (as `objdump -l -C` prints them) of the protected code, and what
/// each contains itself: flag updates (a `cmov`) and masking (an `or`). A function holding
/// any of them (inlined or not) must contain what they do.
const PROTECTED: [(&str, Needs); 9] = [
    (
        "lattice_sampling::backend::x86_64::rej::parse_block_avx2",
        BOTH,
    ),
    (
        "lattice_sampling::backend::x86_64::rej::parse_candidates_avx2",
        BOTH,
    ),
    // Its masking is in `accept`, its last updates in `store_accepted` (functions of their
    // own in the dev profile).
    (
        "lattice_sampling::backend::x86_64::rej::parse_candidates_vbmi2",
        UPDATES,
    ),
    ("lattice_sampling::backend::x86_64::rej::accept", MASKING),
    (
        "lattice_sampling::backend::x86_64::rej::store_accepted",
        UPDATES,
    ),
    ("lattice_sampling::kernels::parse_candidates_sct", BOTH),
    (
        "lattice_sampling::kernels::parse_three_byte_candidates",
        BOTH,
    ),
    ("lattice_sampling::scheduler::Lanes<_, _>::round", UPDATES),
    ("lattice_sampling::scheduler::finish_alone", NONE),
];

/// What a protected function contains of the flag's code.
#[derive(Clone, Copy, Debug)]
struct Needs {
    cmov: bool,
    or: bool,
}
const BOTH: Needs = Needs {
    cmov: true,
    or: true,
};
const UPDATES: Needs = Needs {
    cmov: true,
    or: false,
};
const MASKING: Needs = Needs {
    cmov: false,
    or: true,
};
const NONE: Needs = Needs {
    cmov: false,
    or: false,
};

/// Protected code that must be found somewhere in the binary (the production parsers and
/// the scheduler's round).
const REQUIRED: [&str; 3] = [
    "lattice_sampling::backend::x86_64::rej::parse_block_avx2",
    "lattice_sampling::backend::x86_64::rej::parse_candidates_vbmi2",
    "lattice_sampling::scheduler::Lanes<_, _>::round",
];

/// The flag's blocks.
const UPDATE: &str = "lattice_sampling::backend::speculation::x86_64::set_if_";
const PROTECT: &str = "lattice_sampling::backend::speculation::x86_64::or";
const BARRIER: &str = "lattice_sampling::backend::speculation::x86_64::barrier";

/// Runs the command.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if !cfg!(target_arch = "x86_64") {
        return Err("checks the x86_64 machine code: run it on x86_64".into());
    }
    let levels = parse_levels(args)?;
    let root = workspace_root();
    ensure_tool("objdump", "binutils")?;
    let mut failures = Vec::new();
    let mut binaries: Vec<(String, PathBuf)> = Vec::new();
    for level in &levels {
        binaries.push((level.name.into(), build(&root, *level)?));
    }
    if levels.len() == LEVELS.len() {
        binaries.push(("dev".into(), build_dev(&root)?));
    }
    println!("\n== sct: summary ==");
    println!(
        "{:<8} {:>9} {:>6} {:>5} {:>7}  result",
        "level", "functions", "cmov", "or", "lfence"
    );
    for (name, binary) in &binaries {
        let text = disassemble(binary)?;
        let report = check(&parse(&text));
        println!(
            "{:<8} {:>9} {:>6} {:>5} {:>7}  {}",
            name,
            report.functions,
            report.cmovs,
            report.ors,
            report.lfences,
            if report.failures.is_empty() {
                "ok"
            } else {
                "FAIL"
            }
        );
        failures.extend(report.failures.iter().map(|f| format!("[{name}] {f}")));
    }
    for failure in &failures {
        println!("FAIL {failure}");
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("{} failure(s)", failures.len()))
    }
}

/// Builds the harness in the dev profile (opt-level 0, the tests' code generation).
fn build_dev(root: &Path) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let target_dir = root.join("target/ct/dev");
    let status = Command::new(cargo)
        .current_dir(root)
        .args(["build", "--quiet", "-p", "ct-harness", "--target-dir"])
        .arg(&target_dir)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("building ct-harness (dev) failed ({status})"));
    }
    Ok(target_dir.join("debug/ct-harness"))
}

fn disassemble(binary: &Path) -> Result<String, String> {
    let output = Command::new("objdump")
        .args(["-d", "-l", "-C", "--no-show-raw-insn", "-M", "intel"])
        .arg(binary)
        .output()
        .map_err(|e| format!("cannot run objdump: {e}"))?;
    if !output.status.success() {
        return Err(format!("objdump failed on {}", binary.display()));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// One instruction: the (innermost, inlined) function its source line belongs to and its
/// mnemonic.
#[derive(Debug)]
struct Instruction {
    inlined: String,
    mnemonic: String,
}

/// The binary's functions by symbol name, each with its instructions.
fn parse(text: &str) -> BTreeMap<String, Vec<Instruction>> {
    let mut functions: BTreeMap<String, Vec<Instruction>> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut inlined = String::new();
    for line in text.lines() {
        // `0000000000401000 <name>:` starts a symbol.
        if let Some(rest) = line.strip_suffix(">:")
            && let Some((address, name)) = rest.split_once(" <")
            && address.chars().all(|c| c.is_ascii_hexdigit())
        {
            current = Some(name.to_string());
            inlined = name.to_string();
            continue;
        }
        let Some(symbol) = &current else { continue };
        // `   401000:\tmnemonic operands` is an instruction.
        if let Some((address, insn)) = line.split_once(":\t")
            && address.trim().chars().all(|c| c.is_ascii_hexdigit())
            && !address.trim().is_empty()
        {
            let mnemonic = insn.split_whitespace().next().unwrap_or("").to_string();
            functions
                .entry(symbol.clone())
                .or_default()
                .push(Instruction {
                    inlined: inlined.clone(),
                    mnemonic,
                });
            continue;
        }
        // `name():` or `name:` (objdump -l) names the function the next lines come from;
        // `/path/file.rs:123` lines are skipped.
        if let Some(name) = line.strip_suffix(':')
            && !line.starts_with('/')
            && !line.starts_with(' ')
            && !name.is_empty()
        {
            inlined = name.strip_suffix("()").unwrap_or(name).to_string();
        }
    }
    functions
}

#[derive(Debug, Default)]
struct Report {
    functions: usize,
    cmovs: usize,
    ors: usize,
    lfences: usize,
    failures: Vec<String>,
}

/// Generic arguments printed by the demangler (`Lanes<4, Avx2Kernels>::round`) replaced by
/// `_`, so that one name matches every instantiation.
fn generic_erased(name: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut args = Vec::new();
    let mut arg = String::new();
    for c in name.chars() {
        match c {
            '<' => {
                if depth == 0 {
                    out.push('<');
                    args.clear();
                    arg.clear();
                } else {
                    arg.push(c);
                }
                depth += 1;
            }
            '>' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    args.push(std::mem::take(&mut arg));
                    out.push_str(&vec!["_"; args.len()].join(", "));
                    out.push('>');
                } else {
                    arg.push(c);
                }
            }
            ',' if depth == 1 => args.push(std::mem::take(&mut arg)),
            _ if depth > 0 => arg.push(c),
            _ => out.push(c),
        }
    }
    out
}

fn check(functions: &BTreeMap<String, Vec<Instruction>>) -> Report {
    let mut report = Report::default();
    let mut found: BTreeSet<&str> = BTreeSet::new();
    for (symbol, instructions) in functions {
        let names: BTreeSet<String> = instructions
            .iter()
            .map(|i| generic_erased(&i.inlined))
            .collect();
        let protected: Vec<(&str, Needs)> = PROTECTED
            .iter()
            .copied()
            .filter(|(name, _)| names.contains(*name))
            .collect();
        let in_block = |prefix: &str, mnemonic: &dyn Fn(&str) -> bool| {
            instructions
                .iter()
                .filter(|i| i.inlined.starts_with(prefix) && mnemonic(&i.mnemonic))
                .count()
        };
        let cmovs = in_block(UPDATE, &|m| m.starts_with("cmov"));
        let ors = in_block(PROTECT, &|m| m == "or");
        report.lfences += in_block(BARRIER, &|m| m == "lfence");
        let jumps = in_block(UPDATE, &|m| m.starts_with('j') && m != "jmp")
            + in_block(PROTECT, &|m| m.starts_with('j') && m != "jmp");
        if jumps > 0 {
            report.failures.push(format!(
                "{symbol}: a conditional jump inside the flag's blocks"
            ));
        }
        if protected.is_empty() {
            continue;
        }
        report.functions += 1;
        report.cmovs += cmovs;
        report.ors += ors;
        found.extend(protected.iter().map(|(name, _)| *name));
        let names = || {
            protected
                .iter()
                .map(|(name, _)| *name)
                .collect::<Vec<_>>()
                .join(", ")
        };
        if protected.iter().any(|(_, needs)| needs.cmov) && cmovs == 0 {
            report.failures.push(format!(
                "{symbol} (holding {}): no cmov of the flag's updates",
                names()
            ));
        }
        if protected.iter().any(|(_, needs)| needs.or) && ors == 0 {
            report.failures.push(format!(
                "{symbol} (holding {}): no `or` masking with the flag",
                names()
            ));
        }
    }
    for name in REQUIRED {
        if !found.contains(name) {
            report.failures.push(format!(
                "no function holds {name}: renamed, or the check is broken"
            ));
        }
    }
    if report.lfences == 0 {
        report
            .failures
            .push("no lfence of init_msf in the binary".into());
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
0000000000001000 <lattice_sampling::backend::x86_64::run_avx2>:
lattice_sampling::backend::x86_64::run_avx2():
/w/crates/sampling/src/backend/x86_64/mod.rs:150
    1000:\tlfence
lattice_sampling::scheduler::Lanes<4, lattice_sampling::backend::x86_64::Avx2Kernels>::round():
/w/crates/sampling/src/scheduler.rs:200
    1004:\tmov    rax,rbx
lattice_sampling::backend::speculation::x86_64::set_if_above():
/w/crates/sampling/src/backend/speculation/x86_64.rs:80
    1008:\tcmp    rcx,0x0
    100c:\tcmova  rax,rdx

0000000000002000 <lattice_sampling::backend::x86_64::rej::parse_block_avx2>:
lattice_sampling::backend::x86_64::rej::parse_block_avx2():
/w/crates/sampling/src/backend/x86_64/rej.rs:170
    2000:\tvpmovmskb eax,ymm2
    2004:\tmov    rax,rbx
";

    #[test]
    fn finds_the_blocks_and_a_parser_without_them() {
        let functions = parse(SAMPLE);
        assert_eq!(functions.len(), 2);
        let report = check(&functions);
        assert_eq!((report.functions, report.cmovs, report.ors), (2, 1, 0));
        // run_avx2 has its cmov (not a parser); parse_block_avx2 has neither its cmov
        // nor its `or`; no function holds the VBMI2 parser; the barrier is not in a block
        // named `barrier` here.
        let failures = report.failures.join("\n");
        assert!(failures.contains("parse_block_avx2 (holding"), "{failures}");
        assert!(failures.contains("no `or`"), "{failures}");
        assert!(
            failures.contains(
                "no function holds lattice_sampling::backend::x86_64::rej::parse_candidates_vbmi2"
            ),
            "{failures}"
        );
        assert!(!failures.contains("run_avx2 (holding"), "{failures}");
    }

    #[test]
    fn generics_are_erased() {
        assert_eq!(
            generic_erased("lattice_sampling::scheduler::Lanes<4, lattice_sampling::K<u8>>::round"),
            "lattice_sampling::scheduler::Lanes<_, _>::round"
        );
    }
}
