//! `cargo xtask sct`: the misspeculation flag of the sampling kernels (issue 32,
//! `lattice_sampling::backend::speculation`), checked in the machine code, on x86-64 and
//! aarch64.
//!
//! The flag's updates are a compare and a conditional move (x86-64 `cmp` and `cmov`,
//! aarch64 `cmp` and `csel`) and its masking an `or` (`orr`), each in an `asm!` block the
//! compiler cannot rewrite; what it can do is drop them: inline a parser somewhere the
//! source forgot to pass the flag, build a configuration where the module falls back to
//! the portable identity, or fold an update whose operands it knows. For each instruction
//! set ([`Isa`]), this command builds `ct-harness` (which links every parser of that
//! instruction set and the lane scheduler) at every opt-level `cargo xtask ct` checks and
//! in the dev profile, sharing the target directories of `cargo xtask ct` (x86-64) and
//! `cargo xtask ct-aarch64` (aarch64, cross-compiled) so CI builds once, disassembles it
//! with source lines (`objdump -d -l`; `aarch64-linux-gnu-objdump` for aarch64), and
//! requires, for every function of the binary that contains code of a protected function
//! (even inlined; an out-of-line closure counts as part of its function):
//! - a conditional move from the flag's update blocks (`speculation::<arch>::set_if_*`)
//!   where the protected code updates the flag, an `or`/`orr` from the masking block
//!   (`speculation::<arch>::or`) where it masks, and the conditional move of the address
//!   selection (`speculation::<arch>::select`, `protect_ref`) where it selects what it
//!   reads (the ISA's `protected` list says which does what), each on a source line
//!   invoking `asm!` (the line the debug info gives an `asm!` block's instructions; the
//!   source is read to check it): the same block written in Rust compiles to the same
//!   instruction in the same inlined function, but one the compiler may fold or branch;
//! - no conditional branch inside those blocks (`j*` but `jmp`; `b.cond`, `cbz`, `cbnz`,
//!   `tbz`, `tbnz`);
//!
//! and, for the whole binary, the barrier of `init_msf` (`lfence`; `dsb nsh; isb; csdb`),
//! at least one function holding each production parser and the scheduler's round (the
//! ISA's `required` list, so that a renamed function cannot make the check pass vacuously).
//!
//! Usage: `cargo xtask sct [--levels release,1,s,z] [--isa x86_64|aarch64] [--verbose]`
//! (default: all levels plus dev, both instruction sets; `--verbose` lists the functions
//! holding protected code). The aarch64 part needs the cross linker and
//! `aarch64-linux-gnu-objdump` (installed with apt-get when missing) and the rustup target
//! (`cargo xtask cross` adds it).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::ct::{
    LEVELS, Level, build, build_aarch64, build_aarch64_dev, ensure_tool, parse_levels,
    workspace_root,
};

/// What the check knows of one instruction set: its build, its disassembler, the flag's
/// instructions, and the protected code.
struct Isa {
    /// Its name in `--isa` and in the reports.
    name: &'static str,
    /// The harness at one opt-level, and in the dev profile.
    build: fn(&Path, Level) -> Result<PathBuf, String>,
    build_dev: fn(&Path) -> Result<PathBuf, String>,
    /// Tools the check runs, each with the Debian package that installs it.
    tools: &'static [(&'static str, &'static str)],
    /// The disassembler, and its options besides `-d -l -C --no-show-raw-insn`.
    objdump: &'static str,
    objdump_options: &'static [&'static str],
    /// The flag's module (as the debug info names it), whose blocks are `set_if_*` (the
    /// updates), `or` (the masking), `select` (an address selected by the flag) and
    /// `barrier`.
    speculation: &'static str,
    /// The conditional move of the updates and of the selection (a mnemonic prefix:
    /// `cmova`, `cmovnz`, ..).
    update: &'static str,
    /// The masking instruction.
    mask: &'static str,
    /// The barrier's instructions (one barrier has each of them).
    barrier: &'static [&'static str],
    /// Whether a mnemonic is a conditional branch.
    is_conditional_branch: fn(&str) -> bool,
    /// Inlined-function names (as `objdump -l -C` prints them, generic arguments as `_`)
    /// of the protected code, and what each contains itself (flag updates, masking). A
    /// function holding any of them (inlined or not) must contain what they do.
    protected: &'static [(&'static str, Needs)],
    /// Protected code that must be found somewhere in the binary (the production parsers
    /// and the scheduler's round).
    required: &'static [&'static str],
}

const X86_64: Isa = Isa {
    name: "x86_64",
    build,
    build_dev: build_dev_x86_64,
    tools: &[("objdump", "binutils")],
    objdump: "objdump",
    objdump_options: &["-M", "intel"],
    speculation: "lattice_sampling::backend::speculation::x86_64::",
    update: "cmov",
    mask: "or",
    barrier: &["lfence"],
    is_conditional_branch: |m| m.starts_with('j') && m != "jmp",
    protected: &[
        (
            "lattice_sampling::backend::x86_64::rej::parse_block_avx2",
            BOTH,
        ),
        (
            "lattice_sampling::backend::x86_64::rej::parse_candidates_avx2",
            BOTH,
        ),
        // Its masking is in `accept`, its last updates in `store_accepted` (functions of
        // their own in the dev profile).
        (
            "lattice_sampling::backend::x86_64::rej::parse_candidates_vbmi2",
            UPDATES,
        ),
        ("lattice_sampling::backend::x86_64::rej::accept", MASKING),
        (
            "lattice_sampling::backend::x86_64::rej::store_accepted",
            UPDATES,
        ),
        // The last slots of both AVX2 parsers: the AVX2 step (masking) in the walk shared
        // with NEON (`backend/walk.rs`, generic over the step: updates).
        (
            "lattice_sampling::backend::x86_64::rej::last_slots_avx2",
            BOTH,
        ),
        (WALK_LAST_SLOTS, UPDATES),
        ("lattice_sampling::kernels::parse_candidates_sct", BOTH),
        (
            "lattice_sampling::kernels::parse_three_byte_candidates",
            BOTH,
        ),
        ("lattice_sampling::scheduler::Lanes<_, _>::round", UPDATES),
        ("lattice_sampling::scheduler::finish_alone", NONE),
    ],
    required: &[
        "lattice_sampling::backend::x86_64::rej::parse_block_avx2",
        "lattice_sampling::backend::x86_64::rej::parse_candidates_vbmi2",
        "lattice_sampling::scheduler::Lanes<_, _>::round",
    ],
};

/// The NEON parser's names (`backend/aarch64/rej.rs`): adjust here when they change.
const NEON_BLOCK: &str = "lattice_sampling::backend::aarch64::rej::parse_block_neon";
const NEON_LAST_SLOTS: &str = "lattice_sampling::backend::aarch64::rej::last_slots";
/// The last-slots walk both instruction sets' parsers share (`backend/walk.rs`).
const WALK_LAST_SLOTS: &str = "lattice_sampling::backend::walk::last_slots";

const AARCH64: Isa = Isa {
    name: "aarch64",
    build: build_aarch64,
    build_dev: build_aarch64_dev,
    tools: &[
        ("aarch64-linux-gnu-objdump", "binutils-aarch64-linux-gnu"),
        ("aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu"),
    ],
    objdump: "aarch64-linux-gnu-objdump",
    objdump_options: &[],
    speculation: "lattice_sampling::backend::speculation::aarch64::",
    update: "csel",
    mask: "orr",
    barrier: &["dsb", "isb", "csdb"],
    is_conditional_branch: |m| {
        m.starts_with("b.") || m.starts_with("bc.") || matches!(m, "cbz" | "cbnz" | "tbz" | "tbnz")
    },
    protected: &[
        // The block walk selects the block it reads with the flag and updates it at its
        // exits; the last slots (a function of their own) update and mask.
        (NEON_BLOCK, SELECTS_AND_UPDATES),
        (NEON_LAST_SLOTS, BOTH),
        // The walk of the last slots shared with the AVX2 parsers (generic over the step:
        // a function of its own in the dev profile).
        (WALK_LAST_SLOTS, UPDATES),
        ("lattice_sampling::kernels::parse_candidates_sct", BOTH),
        (
            "lattice_sampling::kernels::parse_three_byte_candidates",
            BOTH,
        ),
        ("lattice_sampling::scheduler::Lanes<_, _>::round", UPDATES),
        ("lattice_sampling::scheduler::finish_alone", NONE),
    ],
    required: &[
        NEON_BLOCK,
        NEON_LAST_SLOTS,
        "lattice_sampling::scheduler::Lanes<_, _>::round",
    ],
};

const ISAS: [&Isa; 2] = [&X86_64, &AARCH64];

/// What a protected function contains of the flag's code: updates, masking, selection.
#[derive(Clone, Copy, Debug)]
struct Needs {
    update: bool,
    mask: bool,
    select: bool,
}
const BOTH: Needs = Needs {
    update: true,
    mask: true,
    select: false,
};
const UPDATES: Needs = Needs {
    update: true,
    mask: false,
    select: false,
};
const MASKING: Needs = Needs {
    update: false,
    mask: true,
    select: false,
};
const SELECTS_AND_UPDATES: Needs = Needs {
    update: true,
    mask: false,
    select: true,
};
const NONE: Needs = Needs {
    update: false,
    mask: false,
    select: false,
};

/// Runs the command.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let mut isas: Vec<&Isa> = ISAS.to_vec();
    let mut verbose = false;
    let mut rest = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--verbose" {
            verbose = true;
        } else if arg == "--isa" {
            let name = args.next().ok_or("--isa needs x86_64 or aarch64")?;
            isas = vec![
                *ISAS
                    .iter()
                    .find(|isa| isa.name == name)
                    .ok_or_else(|| format!("unknown ISA `{name}` (x86_64, aarch64)"))?,
            ];
        } else {
            rest.push(arg.clone());
        }
    }
    let levels = parse_levels(&rest)?;
    let root = workspace_root();
    let mut rows = Vec::new();
    for isa in isas {
        rows.extend(check_isa(&root, isa, &levels, verbose)?);
    }
    let failures: Vec<String> = rows
        .iter()
        .flat_map(|(isa, name, report)| {
            report
                .failures
                .iter()
                .map(move |f| format!("[{isa} {name}] {f}"))
        })
        .collect();
    println!("\n== sct: summary ==");
    println!(
        "(x86_64 / aarch64: updates and selects cmov / csel, masks or / orr, barriers lfence / \
         dsb nsh; isb; csdb)"
    );
    println!(
        "{:<8} {:<8} {:>9} {:>8} {:>6} {:>8} {:>9}  result",
        "isa", "level", "functions", "updates", "masks", "selects", "barriers"
    );
    for (isa, name, report) in &rows {
        println!(
            "{:<8} {:<8} {:>9} {:>8} {:>6} {:>8} {:>9}  {}",
            isa,
            name,
            report.functions,
            report.updates,
            report.masks,
            report.selects,
            report.barriers,
            if report.failures.is_empty() {
                "ok"
            } else {
                "FAIL"
            }
        );
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

/// Builds and checks the harness of one instruction set at `levels` (and in the dev profile
/// when they are all of them): one row per build, its ISA, name and report.
fn check_isa(
    root: &Path,
    isa: &'static Isa,
    levels: &[Level],
    verbose: bool,
) -> Result<Vec<(&'static str, String, Report)>, String> {
    let start = Instant::now();
    if isa.name == "x86_64" && !cfg!(target_arch = "x86_64") {
        return Err("the x86_64 check builds natively: run it on x86_64 (or --isa aarch64)".into());
    }
    for (tool, package) in isa.tools {
        ensure_tool(tool, package)?;
    }
    let mut binaries: Vec<(String, PathBuf)> = Vec::new();
    for level in levels {
        binaries.push((level.name.into(), (isa.build)(root, *level)?));
    }
    if levels.len() == LEVELS.len() {
        binaries.push(("dev".into(), (isa.build_dev)(root)?));
    }
    let built = start.elapsed().as_secs_f64();
    let mut rows = Vec::new();
    for (name, binary) in binaries {
        let text = disassemble(isa, &binary)?;
        let sources = Sources::default();
        let mut report = check(&parse(&text), isa, &|source| sources.is_asm_line(source));
        report.failures.extend(
            sources
                .unreadable()
                .into_iter()
                .map(|path| format!("cannot read {path}, a source file of the flag's blocks")),
        );
        if verbose {
            println!("\n== sct: {} {name} ==", isa.name);
            for holder in &report.holders {
                println!("{holder}");
            }
        }
        rows.push((isa.name, name, report));
    }
    println!(
        "sct {}: built in {built:.1}s, checked in {:.1}s",
        isa.name,
        start.elapsed().as_secs_f64() - built
    );
    Ok(rows)
}

/// Builds the x86-64 harness in the dev profile (opt-level 0, the tests' code generation).
fn build_dev_x86_64(root: &Path) -> Result<PathBuf, String> {
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

fn disassemble(isa: &Isa, binary: &Path) -> Result<String, String> {
    let output = Command::new(isa.objdump)
        .args(["-d", "-l", "-C", "--no-show-raw-insn"])
        .args(isa.objdump_options)
        .arg(binary)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", isa.objdump))?;
    if !output.status.success() {
        return Err(format!("{} failed on {}", isa.objdump, binary.display()));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The source files of the flag's blocks, read once each, for [`check`]'s `is_asm_line`.
#[derive(Default)]
struct Sources {
    files: RefCell<HashMap<String, Option<Vec<String>>>>,
}

impl Sources {
    /// Whether `source` (`/path/file.rs:123`) is a line invoking `asm!` (the line the debug
    /// info gives the instructions of an `asm!` block); false if the file cannot be read
    /// (listed by [`Self::unreadable`]).
    fn is_asm_line(&self, source: &str) -> bool {
        let Some((path, line)) = source.rsplit_once(':') else {
            return false;
        };
        let Ok(line) = line.parse::<usize>() else {
            return false;
        };
        let mut files = self.files.borrow_mut();
        let lines = files.entry(path.to_owned()).or_insert_with(|| {
            std::fs::read_to_string(path)
                .ok()
                .map(|text| text.lines().map(str::to_owned).collect())
        });
        lines
            .as_ref()
            .and_then(|lines| lines.get(line.checked_sub(1)?))
            .is_some_and(|text| text.contains("asm!"))
    }

    /// The files that could not be read.
    fn unreadable(&self) -> Vec<String> {
        self.files
            .borrow()
            .iter()
            .filter(|(_, lines)| lines.is_none())
            .map(|(path, _)| path.clone())
            .collect()
    }
}

/// One instruction: the (innermost, inlined) function its source line belongs to, that
/// line (`/path/file.rs:123`) and its mnemonic.
#[derive(Debug)]
struct Instruction {
    inlined: String,
    source: String,
    mnemonic: String,
}

/// The binary's functions by symbol name, each with its instructions. A closure's symbol
/// (`f::{{closure}}`, out of line in the dev profile) counts as part of the function that
/// defines it, as when it is inlined: its code runs as part of that function's.
fn parse(text: &str) -> BTreeMap<String, Vec<Instruction>> {
    let mut functions: BTreeMap<String, Vec<Instruction>> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut inlined = String::new();
    let mut source = String::new();
    for line in text.lines() {
        // `0000000000401000 <name>:` starts a symbol.
        if let Some(rest) = line.strip_suffix(">:")
            && let Some((address, name)) = rest.split_once(" <")
            && address.chars().all(|c| c.is_ascii_hexdigit())
        {
            let mut owner = name;
            while let Some(outer) = owner.strip_suffix("::{{closure}}") {
                owner = outer;
            }
            current = Some(owner.to_string());
            inlined = name.to_string();
            source.clear();
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
                    source: source.clone(),
                    mnemonic,
                });
            continue;
        }
        // `/path/file.rs:123` (maybe followed by ` (discriminator 2)`) is the source line
        // of the next instructions.
        if line.starts_with('/') {
            line.split_whitespace()
                .next()
                .unwrap_or_default()
                .clone_into(&mut source);
            continue;
        }
        // `name():` or `name:` (objdump -l) names the function the next lines come from.
        if let Some(name) = line.strip_suffix(':')
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
    /// Functions holding protected code.
    functions: usize,
    /// Conditional moves of the update blocks and masking instructions, in those functions.
    updates: usize,
    masks: usize,
    selects: usize,
    /// Whole barriers in the binary.
    barriers: usize,
    /// Each function holding protected code: what it holds and contains (`--verbose`).
    holders: Vec<String>,
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

/// The flag's code in one function.
#[derive(Debug, Default)]
struct FlagCode {
    /// Conditional moves of the update blocks, masking instructions, conditional moves of
    /// the selection block, whole barriers, each from an `asm!` line.
    updates: usize,
    masks: usize,
    selects: usize,
    barriers: usize,
    /// Conditional moves and masking instructions of the blocks not from an `asm!` line:
    /// compiled from Rust (the module's portable fallback, or a block rewritten without
    /// `asm!`), so the compiler may fold or branch them.
    compiled: usize,
    /// Conditional branches inside the update, masking and selection blocks.
    branches: usize,
}

impl FlagCode {
    fn of(instructions: &[Instruction], isa: &Isa, is_asm_line: &dyn Fn(&str) -> bool) -> Self {
        let update_prefix = format!("{}set_if_", isa.speculation);
        let mask_name = format!("{}or", isa.speculation);
        let select_name = format!("{}select", isa.speculation);
        let barrier_name = format!("{}barrier", isa.speculation);
        let in_updates = |i: &Instruction| i.inlined.starts_with(&update_prefix);
        let in_mask = |i: &Instruction| i.inlined == mask_name;
        let in_select = |i: &Instruction| i.inlined == select_name;
        let in_blocks = |i: &Instruction| in_updates(i) || in_mask(i) || in_select(i);
        let is_update = |i: &Instruction| in_updates(i) && i.mnemonic.starts_with(isa.update);
        let is_mask = |i: &Instruction| in_mask(i) && i.mnemonic == isa.mask;
        let is_select = |i: &Instruction| in_select(i) && i.mnemonic.starts_with(isa.update);
        let count =
            |what: &dyn Fn(&Instruction) -> bool| instructions.iter().filter(|i| what(i)).count();
        let asm = |i: &Instruction| is_asm_line(&i.source);
        Self {
            updates: count(&|i| is_update(i) && asm(i)),
            masks: count(&|i| is_mask(i) && asm(i)),
            selects: count(&|i| is_select(i) && asm(i)),
            barriers: isa
                .barrier
                .iter()
                .map(|b| count(&|i| i.inlined == barrier_name && i.mnemonic == *b && asm(i)))
                .min()
                .unwrap_or(0),
            compiled: count(&|i| (is_update(i) || is_mask(i) || is_select(i)) && !asm(i)),
            branches: count(&|i| in_blocks(i) && (isa.is_conditional_branch)(&i.mnemonic)),
        }
    }

    /// What a function holding `protected` lacks of it, as failures.
    fn missing(&self, symbol: &str, protected: &[(&str, Needs)], isa: &Isa) -> Vec<String> {
        let names = protected
            .iter()
            .map(|(name, _)| *name)
            .collect::<Vec<_>>()
            .join(", ");
        let needs = |what: fn(&Needs) -> bool| protected.iter().any(|(_, needs)| what(needs));
        let mut missing = Vec::new();
        if needs(|n| n.update) && self.updates == 0 {
            missing.push(format!("no {} of the flag's updates", isa.update));
        }
        if needs(|n| n.mask) && self.masks == 0 {
            missing.push(format!("no `{}` masking with the flag", isa.mask));
        }
        if needs(|n| n.select) && self.selects == 0 {
            missing.push(format!("no {} selecting with the flag", isa.update));
        }
        missing
            .into_iter()
            .map(|m| format!("{symbol} (holding {names}): {m} (from its `asm!`)"))
            .collect()
    }
}

/// Checks the parsed binary; `is_asm_line(source)` says whether a source line
/// (`/path/file.rs:123`) is an `asm!` invocation.
fn check(
    functions: &BTreeMap<String, Vec<Instruction>>,
    isa: &Isa,
    is_asm_line: &dyn Fn(&str) -> bool,
) -> Report {
    let mut report = Report::default();
    let mut found: BTreeSet<&str> = BTreeSet::new();
    for (symbol, instructions) in functions {
        let names: BTreeSet<String> = instructions
            .iter()
            .map(|i| generic_erased(&i.inlined))
            .collect();
        let protected: Vec<(&str, Needs)> = isa
            .protected
            .iter()
            .copied()
            .filter(|(name, _)| names.contains(*name))
            .collect();
        let code = FlagCode::of(instructions, isa, is_asm_line);
        report.barriers += code.barriers;
        if code.compiled > 0 {
            report.failures.push(format!(
                "{symbol}: {} `{}*`/`{}` of the flag's blocks not on an `asm!` line \
                 (compiled from Rust)",
                code.compiled, isa.update, isa.mask
            ));
        }
        if code.branches > 0 {
            report.failures.push(format!(
                "{symbol}: a conditional branch inside the flag's blocks"
            ));
        }
        if protected.is_empty() {
            continue;
        }
        report.functions += 1;
        report.updates += code.updates;
        report.masks += code.masks;
        report.selects += code.selects;
        found.extend(protected.iter().map(|(name, _)| *name));
        report.holders.push(format!(
            "{symbol}: {} {}, {} {}, {} select; holding {}",
            code.updates,
            isa.update,
            code.masks,
            isa.mask,
            code.selects,
            protected
                .iter()
                .map(|(name, _)| *name)
                .collect::<Vec<_>>()
                .join(", ")
        ));
        report
            .failures
            .extend(code.missing(symbol, &protected, isa));
    }
    for name in isa.required {
        if !found.contains(name) {
            report.failures.push(format!(
                "no function holds {name}: renamed, or the check is broken"
            ));
        }
    }
    if report.barriers == 0 {
        report.failures.push(format!(
            "no barrier of init_msf ({}) in the binary",
            isa.barrier.join("; ")
        ));
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
0000000000001000 <lattice_sampling::backend::x86_64::run_avx2>:
lattice_sampling::backend::x86_64::run_avx2():
/w/crates/lattice-sampling/src/backend/x86_64/mod.rs:150
    1000:\tlfence
lattice_sampling::scheduler::Lanes<4, lattice_sampling::backend::x86_64::Avx2Kernels>::round():
/w/crates/lattice-sampling/src/scheduler.rs:200
    1004:\tmov    rax,rbx
lattice_sampling::backend::speculation::x86_64::set_if_above():
/w/crates/lattice-sampling/src/backend/speculation/x86_64.rs:80
    1008:\tcmp    rcx,0x0
    100c:\tcmova  rax,rdx

0000000000002000 <lattice_sampling::backend::x86_64::rej::parse_block_avx2>:
lattice_sampling::backend::x86_64::rej::parse_block_avx2():
/w/crates/lattice-sampling/src/backend/x86_64/rej.rs:170
    2000:\tvpmovmskb eax,ymm2
    2004:\tmov    rax,rbx
";

    #[test]
    fn finds_the_blocks_and_a_parser_without_them() {
        let functions = parse(SAMPLE);
        assert_eq!(functions.len(), 2);
        let report = check(&functions, &X86_64, &|_| true);
        assert_eq!((report.functions, report.updates, report.masks), (2, 1, 0));
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

    /// `aarch64-linux-gnu-objdump -d -l -C` prints inlined functions without `()`.
    const AARCH64_SAMPLE: &str = "\
00000000000a8000 <lattice_sampling::backend::aarch64::run_neon>:
lattice_sampling::backend::aarch64::run_neon:
/w/crates/lattice-sampling/src/backend/aarch64/mod.rs:130
   a8000:\tmov\tx8, xzr
lattice_sampling::backend::speculation::aarch64::barrier:
/w/crates/lattice-sampling/src/backend/speculation/aarch64.rs:13
   a8004:\tdsb\tnsh
   a8008:\tisb
   a800c:\tcsdb
lattice_sampling::scheduler::Lanes<_,K>::round:
/w/crates/lattice-sampling/src/scheduler.rs:200
   a8010:\tcmp\tx9, #0x3
lattice_sampling::backend::speculation::aarch64::set_if_b:
/w/crates/lattice-sampling/src/backend/speculation/aarch64.rs:44
   a8014:\tcmp\tx16, x13
   a8018:\tcsel\tx8, x14, x8, cc\t// cc = lo, ul, last
lattice_sampling::backend::aarch64::rej::parse_block_neon:
/w/crates/lattice-sampling/src/backend/aarch64/rej.rs:180
   a801c:\tadrp\tx10, 0
lattice_sampling::backend::speculation::aarch64::select:
/w/crates/lattice-sampling/src/backend/speculation/aarch64.rs:131
   a8020:\tcmp\tx8, #0x0
   a8024:\tcsel\tx0, x10, x0, ne
lattice_sampling::backend::aarch64::rej::parse_block_neon:
/w/crates/lattice-sampling/src/backend/aarch64/rej.rs:188
   a8028:\tcmp\tx2, #0xf0
   a802c:\tb.hi\ta8040 <lattice_sampling::backend::aarch64::run_neon+0x40>  // b.pmore

00000000000a9000 <lattice_sampling::backend::aarch64::rej::parse_block_neon>:
lattice_sampling::backend::aarch64::rej::parse_block_neon:
/w/crates/lattice-sampling/src/backend/aarch64/rej.rs:180
   a9000:\tcmp\tx2, #0xf0
   a9004:\tb.hi\ta9040 <lattice_sampling::backend::aarch64::rej::parse_block_neon+0x40>
core::cmp::Ord::min:
/rustc/0/library/core/src/cmp.rs:1076
   a9008:\tcsel\tx16, x16, x15, cc

00000000000a9800 <lattice_sampling::backend::aarch64::rej::last_slots>:
lattice_sampling::backend::aarch64::rej::last_slots:
/w/crates/lattice-sampling/src/backend/aarch64/rej.rs:240
   a9800:\tcmp\tx1, #0x6
lattice_sampling::backend::speculation::aarch64::set_if_ae:
/w/crates/lattice-sampling/src/backend/speculation/aarch64.rs:24
   a9804:\tcmp\tx1, x9
   a9808:\tcsel\tx10, x11, x10, hs
lattice_sampling::backend::aarch64::rej::last_slots:
/w/crates/lattice-sampling/src/backend/aarch64/rej.rs:251
   a980c:\torr\tx15, x15, x10
lattice_sampling::backend::speculation::aarch64::or:
/w/crates/lattice-sampling/src/backend/speculation/aarch64.rs:108
   a9810:\tmov\tx15, x15

00000000000aa000 <lattice_sampling::kernels::parse_candidates_sct>:
lattice_sampling::kernels::parse_candidates_sct:
/w/crates/lattice-sampling/src/kernels.rs:90
   aa000:\tldrb\tw8, [x0]
lattice_sampling::backend::speculation::aarch64::set_if_ae:
/w/crates/lattice-sampling/src/backend/speculation/aarch64.rs:24
   aa004:\tcmp\tx8, x9
   aa008:\tcbnz\tx8, aa010 <lattice_sampling::kernels::parse_candidates_sct+0x10>
   aa00c:\tcsel\tx10, x11, x10, hs
lattice_sampling::backend::speculation::aarch64::or:
/w/crates/lattice-sampling/src/backend/speculation/aarch64.rs:108
   aa010:\torr\tx8, x8, x10
";

    /// The `asm!` lines of the sample's flag blocks.
    fn aarch64_asm_lines(source: &str) -> bool {
        [
            "aarch64.rs:13",
            "aarch64.rs:24",
            "aarch64.rs:44",
            "aarch64.rs:108",
            "aarch64.rs:131",
        ]
        .iter()
        .any(|line| source.ends_with(line))
    }

    #[test]
    fn finds_the_aarch64_blocks_and_a_parser_without_them() {
        let functions = parse(AARCH64_SAMPLE);
        assert_eq!(functions.len(), 4);
        let report = check(&functions, &AARCH64, &aarch64_asm_lines);
        // run_neon: the round's csel, the block walk's selection, the barrier; the block
        // walk alone: neither its selection nor its update (a `csel` of `min` only);
        // last_slots: its update, but an `orr` outside the masking block (whose only
        // instruction is a `mov`); parse_candidates_sct: both, and a `cbnz` inside an update
        // block.
        assert_eq!(
            (
                report.functions,
                report.updates,
                report.masks,
                report.selects,
                report.barriers
            ),
            (4, 3, 1, 1, 1)
        );
        let failures = report.failures.join("\n");
        let block = format!("{NEON_BLOCK} (holding {NEON_BLOCK})");
        for expected in [
            format!("{block}: no csel of the flag's updates"),
            format!("{block}: no csel selecting with the flag"),
            format!("{NEON_LAST_SLOTS} (holding {NEON_LAST_SLOTS}): no `orr` masking"),
            "lattice_sampling::kernels::parse_candidates_sct: a conditional branch".into(),
        ] {
            assert!(failures.contains(&expected), "{expected}\n{failures}");
        }
        assert!(!failures.contains("run_neon"), "{failures}");
        assert!(!failures.contains("no function holds"), "{failures}");
        assert!(!failures.contains("barrier"), "{failures}");
        assert_eq!(report.failures.len(), 4, "{failures}");
    }

    /// In the dev profile a closure is a function of its own: its code counts for the
    /// function that defines it.
    #[test]
    fn an_outlined_closure_belongs_to_its_function() {
        let text = "\
00000000000da07c <lattice_sampling::backend::aarch64::rej::last_slots>:
lattice_sampling::backend::aarch64::rej::last_slots:
/w/crates/lattice-sampling/src/backend/aarch64/rej.rs:240
   da07c:\tbl\tdc2b4 <lattice_sampling::backend::aarch64::rej::last_slots::{{closure}}>
lattice_sampling::backend::speculation::aarch64::set_if_ae:
/w/crates/lattice-sampling/src/backend/speculation/aarch64.rs:24
   da080:\tcsel\tx10, x11, x10, hs

00000000000dc2b4 <lattice_sampling::backend::aarch64::rej::last_slots::{{closure}}>:
lattice_sampling::backend::aarch64::rej::last_slots::{{closure}}:
/w/crates/lattice-sampling/src/backend/aarch64/rej.rs:251
   dc2b4:\tsub\tsp, sp, #0x40
lattice_sampling::backend::speculation::aarch64::or:
/w/crates/lattice-sampling/src/backend/speculation/aarch64.rs:108
   dc2dc:\torr\tx8, x1, x8
";
        let functions = parse(text);
        assert_eq!(functions.keys().collect::<Vec<_>>(), [NEON_LAST_SLOTS]);
        let report = check(&functions, &AARCH64, &aarch64_asm_lines);
        assert_eq!((report.functions, report.updates, report.masks), (1, 1, 1));
        assert!(
            !report.failures.iter().any(|f| f.contains("(holding")),
            "{:?}",
            report.failures
        );
    }

    #[test]
    fn aarch64_conditional_branches() {
        for m in [
            "b.eq", "b.hs", "b.pl", "bc.ne", "cbz", "cbnz", "tbz", "tbnz",
        ] {
            assert!((AARCH64.is_conditional_branch)(m), "{m}");
        }
        for m in ["b", "bl", "br", "blr", "ret", "bic", "bsl", "bfi", "csel"] {
            assert!(!(AARCH64.is_conditional_branch)(m), "{m}");
        }
        for m in ["ja", "jne", "jae"] {
            assert!((X86_64.is_conditional_branch)(m), "{m}");
        }
        assert!(!(X86_64.is_conditional_branch)("jmp"));
    }

    /// Without the barrier's every instruction, no barrier.
    #[test]
    fn a_partial_aarch64_barrier_is_none() {
        let text = AARCH64_SAMPLE.replace("   a8008:\tisb\n", "");
        let report = check(&parse(&text), &AARCH64, &aarch64_asm_lines);
        assert_eq!(report.barriers, 0);
        assert!(
            report
                .failures
                .iter()
                .any(|f| f.contains("no barrier of init_msf")),
            "{:?}",
            report.failures
        );
    }

    /// An `orr` in the masking block but not from its `asm!` (the block written in Rust)
    /// does not count, and fails.
    #[test]
    fn a_compiled_orr_is_not_the_mask() {
        let text = AARCH64_SAMPLE.replace("aarch64.rs:108\n   aa010", "aarch64.rs:104\n   aa010");
        let report = check(&parse(&text), &AARCH64, &aarch64_asm_lines);
        assert_eq!(report.masks, 0);
        let failures = report.failures.join("\n");
        let symbol = "lattice_sampling::kernels::parse_candidates_sct";
        for expected in [
            format!("{symbol}: 1 `csel*`/`orr` of the flag's blocks not on an `asm!` line"),
            format!("{symbol} (holding {symbol}): no `orr` masking"),
        ] {
            assert!(failures.contains(&expected), "{expected}\n{failures}");
        }
    }

    #[test]
    fn asm_lines_are_read_from_the_source() {
        let sources = Sources::default();
        let file = concat!(env!("CARGO_MANIFEST_DIR"), "/src/sct.rs");
        let line = include_str!("sct.rs")
            .lines()
            .position(|l| l.contains("asm!") && l.contains("the line the debug"))
            .expect("the doc line above")
            + 1;
        assert!(sources.is_asm_line(&format!("{file}:{line}")));
        assert!(!sources.is_asm_line(&format!("{file}:1")));
        assert!(!sources.is_asm_line("/nonexistent/x.rs:1"));
        assert_eq!(sources.unreadable(), ["/nonexistent/x.rs"]);
    }

    #[test]
    fn generics_are_erased() {
        assert_eq!(
            generic_erased("lattice_sampling::scheduler::Lanes<4, lattice_sampling::K<u8>>::round"),
            "lattice_sampling::scheduler::Lanes<_, _>::round"
        );
    }
}
