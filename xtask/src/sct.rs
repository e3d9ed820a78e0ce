//! `cargo xtask sct`: the misspeculation flag of the sampling kernels (issue 32,
//! `lattice_sampling::speculation`), checked in the machine code, on x86-64 and aarch64.
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
//! with source lines (`objdump -d -l`; `aarch64-linux-gnu-objdump` for aarch64), and checks
//! it against the markers of the source ([`Marker`]).
//!
//! # Markers
//! The check names no module path: it reads, in every `.rs` file under `crates/`, the line
//! comments `// sct: ...` that stand just above a function (among its doc comments and
//! attributes), and knows a function in the disassembly by its name (the last segment of
//! the inlined-function name `objdump -l -C` prints, generic arguments erased) and its
//! file (the source line of its instructions), so a function moved to another module or
//! file keeps its check. A marker says what the function is:
//! - `// sct: update`, `// sct: mask`, `// sct: select`, `// sct: barrier`: one of the
//!   flag's `asm!` blocks (the speculation module's `set_if_*`, `or`, `select`, and the
//!   barrier's instructions), wherever that module lives;
//! - `// sct: protected(updates, masks, selects)` (any of the three, or none): code under
//!   the flag (a parser, the scheduler's round), and what it contains itself; with
//!   `, required` after it, code every build must hold (what the scheduler calls: the
//!   production parsers and the round), where the others may be inlined into their callers
//!   without a trace of their own at some opt-levels.
//!
//! A marker in a file under a directory named after an instruction set (`x86_64/`,
//! `aarch64/`), or in a file so named (`x86_64.rs`), applies to that instruction set only;
//! elsewhere to both.
//!
//! # What is required
//! For every function of the binary that contains code of a protected function (even
//! inlined; an out-of-line closure counts as part of its function):
//! - a conditional move from the flag's update blocks where the protected code updates the
//!   flag, an `or`/`orr` from the masking block where it masks, and the conditional move of
//!   the address selection (`protect_ref`) where it selects what it reads, each on a source
//!   line invoking `asm!` (the line the debug info gives an `asm!` block's instructions;
//!   the source is read to check it): the same block written in Rust compiles to the same
//!   instruction in the same inlined function, but one the compiler may fold or branch;
//! - no conditional branch inside those blocks (`j*` but `jmp`; `b.cond`, `cbz`, `cbnz`,
//!   `tbz`, `tbnz`);
//!
//! and, for the whole binary, the barrier of `init_msf` (x86-64 `lfence`; aarch64 `sb` or
//! `dsb nsh; isb`, then `csdb`), at least one function holding each `required` protected
//! function marked for the instruction set, and at least one marker of each kind; over all
//! the builds of a full run (every level and dev), at least one function holding each
//! marked protected function. So a protected function that is no longer linked, or no
//! longer compiled under its marked name and file, fails the check rather than emptying it.
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

/// What the check knows of one instruction set: its build, its disassembler and the
/// flag's instructions.
struct Isa {
    /// Its name in `--isa`, in the reports and in marker paths.
    name: &'static str,
    /// The harness at one opt-level, and in the dev profile.
    build: fn(&Path, Level) -> Result<PathBuf, String>,
    build_dev: fn(&Path) -> Result<PathBuf, String>,
    /// Tools the check runs, each with the Debian package that installs it.
    tools: &'static [(&'static str, &'static str)],
    /// The disassembler, and its options besides `-d -l -C --no-show-raw-insn`.
    objdump: &'static str,
    objdump_options: &'static [&'static str],
    /// The conditional move of the updates and of the selection (a mnemonic prefix:
    /// `cmova`, `cmovnz`, ..).
    update: &'static str,
    /// The masking instruction.
    mask: &'static str,
    /// Whole barriers among the instructions of the barrier blocks, from the count of each
    /// mnemonic there.
    barriers: fn(MnemonicCount<'_>) -> usize,
    /// The barrier, in words.
    barrier_text: &'static str,
    /// Whether a mnemonic is a conditional branch.
    is_conditional_branch: fn(&str) -> bool,
}

/// How many instructions of one mnemonic a set holds.
type MnemonicCount<'a> = &'a dyn Fn(&str) -> usize;

const X86_64: Isa = Isa {
    name: "x86_64",
    build,
    build_dev: build_dev_x86_64,
    tools: &[("objdump", "binutils")],
    objdump: "objdump",
    objdump_options: &["-M", "intel"],
    update: "cmov",
    mask: "or",
    barriers: |count| count("lfence"),
    barrier_text: "lfence",
    is_conditional_branch: |m| m.starts_with('j') && m != "jmp",
};

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
    update: "csel",
    mask: "orr",
    // `sb` where the CPU has FEAT_SB, else `dsb nsh; isb` (both paths are in the code),
    // then `csdb`: a `csdb` after either is one barrier of `init_msf` (the entry barrier of
    // the KEM's operations has no `csdb` and does not count).
    barriers: |count| count("csdb").min(count("sb") + count("dsb").min(count("isb"))),
    barrier_text: "sb or dsb nsh; isb, then csdb",
    is_conditional_branch: |m| {
        m.starts_with("b.") || m.starts_with("bc.") || matches!(m, "cbz" | "cbnz" | "tbz" | "tbnz")
    },
};

const ISAS: [&Isa; 2] = [&X86_64, &AARCH64];

/// What a protected function contains of the flag's code: updates, masking, selection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Needs {
    update: bool,
    mask: bool,
    select: bool,
}

/// The flag's `asm!` blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    Update,
    Mask,
    Select,
    Barrier,
}

/// What a marker says of the function below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Block(Block),
    Protected(Needs),
}

/// A `// sct: ...` marker: the function it stands above, where, and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Marker {
    /// The function's name (no path).
    name: String,
    /// Its file, relative to the workspace root (`crates/.../x.rs`), and the marker's line.
    file: String,
    line: usize,
    /// The instruction set it applies to, or `None` for both.
    isa: Option<&'static str>,
    role: Role,
    /// Whether every build must hold it (`, required`).
    required: bool,
}

impl Marker {
    /// Whether it applies to `isa`.
    fn applies_to(&self, isa: &Isa) -> bool {
        self.isa.is_none_or(|name| name == isa.name)
    }
}

/// The markers of `text`, the source of `file` (relative to the workspace root), or what is
/// wrong with one.
fn markers_of(file: &str, text: &str) -> Result<Vec<Marker>, String> {
    let isa = ISAS.iter().map(|isa| isa.name).find(|name| {
        file.split('/')
            .any(|part| part == *name || part.strip_suffix(".rs") == Some(*name))
    });
    let lines: Vec<&str> = text.lines().collect();
    let mut markers = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let Some(spec) = line.trim().strip_prefix("// sct:") else {
            continue;
        };
        let at = format!("{file}:{}", index + 1);
        let (spec, required) = match spec.trim().strip_suffix(", required") {
            Some(spec) => (spec, true),
            None => (spec.trim(), false),
        };
        let role = parse_role(spec).ok_or_else(|| {
            format!(
                "{at}: unknown marker `{spec}` (update, mask, select, barrier, \
                 protected(..)[, required])"
            )
        })?;
        if required && !matches!(role, Role::Protected(_)) {
            return Err(format!("{at}: only a protected function is `required`"));
        }
        let name = function_below(&lines[index + 1..])
            .ok_or_else(|| format!("{at}: the marker is not followed by a function"))?;
        markers.push(Marker {
            name,
            file: file.to_owned(),
            line: index + 1,
            isa,
            role,
            required,
        });
    }
    Ok(markers)
}

/// `update`, `mask`, `select`, `barrier`, or `protected(..)` with some of `updates`,
/// `masks`, `selects`.
fn parse_role(spec: &str) -> Option<Role> {
    Some(match spec {
        "update" => Role::Block(Block::Update),
        "mask" => Role::Block(Block::Mask),
        "select" => Role::Block(Block::Select),
        "barrier" => Role::Block(Block::Barrier),
        _ => {
            let list = spec.strip_prefix("protected(")?.strip_suffix(')')?;
            let mut needs = Needs::default();
            for item in list.split(',').map(str::trim).filter(|i| !i.is_empty()) {
                match item {
                    "updates" => needs.update = true,
                    "masks" => needs.mask = true,
                    "selects" => needs.select = true,
                    _ => return None,
                }
            }
            Role::Protected(needs)
        }
    })
}

/// The name of the function whose declaration follows `lines` (after doc comments,
/// comments and attributes, which may span lines).
fn function_below(lines: &[&str]) -> Option<String> {
    let mut depth = 0usize;
    for line in lines {
        let line = line.trim();
        if depth > 0 || line.starts_with("#[") {
            depth += line.matches('[').count();
            depth = depth.saturating_sub(line.matches(']').count());
            continue;
        }
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let (_, rest) = line.split_once("fn ")?;
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        return (!name.is_empty()).then_some(name);
    }
    None
}

/// The markers of every `.rs` file under `root/crates` (build output and hidden
/// directories left out).
fn find_markers(root: &Path) -> Result<Vec<Marker>, String> {
    fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
        let entries =
            std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| e.to_string())?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                if name != "target" && !name.starts_with('.') {
                    walk(&path, files)?;
                }
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    walk(&root.join("crates"), &mut files)?;
    files.sort();
    let mut markers = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if !text.contains("// sct:") {
            continue;
        }
        let relative = path.strip_prefix(root).unwrap_or(&path);
        markers.extend(markers_of(&relative.to_string_lossy(), &text)?);
    }
    Ok(markers)
}

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
    let markers = find_markers(&root)?;
    let mut rows = Vec::new();
    for isa in isas {
        rows.extend(check_isa(&root, isa, &markers, &levels, verbose)?);
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
        "(x86_64 / aarch64: updates and selects cmov / csel, masks or / orr, barriers {} / {})",
        X86_64.barrier_text, AARCH64.barrier_text
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
    markers: &[Marker],
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
        let mut report = check(&parse(&text), isa, markers, &|source| {
            sources.is_asm_line(source)
        });
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
    // A full run: every marked protected function is held in some build.
    if levels.len() == LEVELS.len() {
        let held: BTreeSet<(String, usize)> = rows
            .iter()
            .flat_map(|(_, _, report)| report.held.iter().cloned())
            .collect();
        let failures = unheld(markers, isa, &held, false);
        if let Some((_, _, last)) = rows.last_mut() {
            last.failures
                .extend(failures.into_iter().map(|f| format!("{f} (in any build)")));
        }
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
    /// The protected functions' markers held (file, line).
    held: BTreeSet<(String, usize)>,
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

/// The markers of one instruction set, by function name.
struct Marked<'m> {
    by_name: HashMap<&'m str, Vec<&'m Marker>>,
}

impl<'m> Marked<'m> {
    fn new(markers: &'m [Marker], isa: &Isa) -> Self {
        let mut by_name: HashMap<&str, Vec<&Marker>> = HashMap::new();
        for marker in markers.iter().filter(|m| m.applies_to(isa)) {
            by_name.entry(&marker.name).or_default().push(marker);
        }
        Self { by_name }
    }

    /// The marker of the function an instruction belongs to (its inlined-function name and
    /// its source file), if it has one.
    fn of(&self, inlined: &str, source: &str) -> Option<&'m Marker> {
        let name = generic_erased(inlined);
        let last = name.rsplit("::").next().unwrap_or(&name);
        let file = source.rsplit_once(':').map_or(source, |(file, _)| file);
        self.by_name
            .get(last)?
            .iter()
            .find(|marker| {
                file.strip_suffix(marker.file.as_str())
                    .is_some_and(|dir| dir.is_empty() || dir.ends_with('/'))
            })
            .copied()
    }
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
    /// The flag's code among `instructions`, each with the block it belongs to, if any.
    fn of(
        instructions: &[(&Instruction, Option<Block>)],
        isa: &Isa,
        is_asm_line: &dyn Fn(&str) -> bool,
    ) -> Self {
        let is = |i: &Instruction, block, mnemonic: &str| {
            if block == Block::Mask {
                i.mnemonic == mnemonic
            } else {
                i.mnemonic.starts_with(mnemonic)
            }
        };
        let of_block = |block: Block, asm: Option<bool>| {
            let mnemonic = if block == Block::Mask {
                isa.mask
            } else {
                isa.update
            };
            instructions
                .iter()
                .filter(|(i, b)| {
                    *b == Some(block)
                        && is(i, block, mnemonic)
                        && asm.is_none_or(|asm| is_asm_line(&i.source) == asm)
                })
                .count()
        };
        let barrier_count = |mnemonic: &str| {
            instructions
                .iter()
                .filter(|(i, b)| {
                    *b == Some(Block::Barrier) && i.mnemonic == mnemonic && is_asm_line(&i.source)
                })
                .count()
        };
        Self {
            updates: of_block(Block::Update, Some(true)),
            masks: of_block(Block::Mask, Some(true)),
            selects: of_block(Block::Select, Some(true)),
            barriers: (isa.barriers)(&barrier_count),
            compiled: [Block::Update, Block::Mask, Block::Select]
                .into_iter()
                .map(|block| of_block(block, Some(false)))
                .sum(),
            branches: instructions
                .iter()
                .filter(|(i, b)| {
                    matches!(b, Some(Block::Update | Block::Mask | Block::Select))
                        && (isa.is_conditional_branch)(&i.mnemonic)
                })
                .count(),
        }
    }

    /// What a function holding `protected` lacks of it, as failures.
    fn missing(&self, symbol: &str, protected: &[&Marker], isa: &Isa) -> Vec<String> {
        let names = protected
            .iter()
            .map(|m| m.name.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let needs = |what: fn(&Needs) -> bool| {
            protected
                .iter()
                .any(|m| matches!(m.role, Role::Protected(needs) if what(&needs)))
        };
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

/// Checks the parsed binary against the markers; `is_asm_line(source)` says whether a
/// source line (`/path/file.rs:123`) is an `asm!` invocation.
fn check(
    functions: &BTreeMap<String, Vec<Instruction>>,
    isa: &Isa,
    markers: &[Marker],
    is_asm_line: &dyn Fn(&str) -> bool,
) -> Report {
    let mut report = Report::default();
    let marked = Marked::new(markers, isa);
    let mut found: BTreeSet<(String, usize)> = BTreeSet::new();
    for (symbol, instructions) in functions {
        let roles: Vec<(&Instruction, Option<&Marker>)> = instructions
            .iter()
            .map(|i| (i, marked.of(&i.inlined, &i.source)))
            .collect();
        let blocks: Vec<(&Instruction, Option<Block>)> = roles
            .iter()
            .map(|(i, m)| {
                let block = m.and_then(|m| match m.role {
                    Role::Block(block) => Some(block),
                    Role::Protected(_) => None,
                });
                (*i, block)
            })
            .collect();
        let mut protected: Vec<&Marker> = roles
            .iter()
            .filter_map(|(_, m)| m.filter(|m| matches!(m.role, Role::Protected(_))))
            .collect();
        protected.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        protected.dedup();
        let code = FlagCode::of(&blocks, isa, is_asm_line);
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
        found.extend(protected.iter().map(|m| (m.file.clone(), m.line)));
        report.holders.push(format!(
            "{symbol}: {} {}, {} {}, {} select; holding {}",
            code.updates,
            isa.update,
            code.masks,
            isa.mask,
            code.selects,
            protected
                .iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        report
            .failures
            .extend(code.missing(symbol, &protected, isa));
    }
    report
        .failures
        .extend(unmatched_markers(markers, isa, &found));
    report.held = found;
    if report.barriers == 0 {
        report.failures.push(format!(
            "no barrier of init_msf ({}) in the binary",
            isa.barrier_text
        ));
    }
    report
}

/// The protected functions marked for `isa` (all of them, or the `required` ones) that no
/// function holds (`held`: file and line of the markers held), as failures.
fn unheld(
    markers: &[Marker],
    isa: &Isa,
    held: &BTreeSet<(String, usize)>,
    only_required: bool,
) -> Vec<String> {
    markers
        .iter()
        .filter(|m| m.applies_to(isa) && matches!(m.role, Role::Protected(_)))
        .filter(|m| m.required || !only_required)
        .filter(|m| !held.contains(&(m.file.clone(), m.line)))
        .map(|m| {
            format!(
                "no function holds {} (marked at {}:{}{}): not linked into the harness, or \
                 compiled under another name",
                m.name,
                m.file,
                m.line,
                if m.required { ", required" } else { "" }
            )
        })
        .collect()
}

/// Failures of the markers themselves: a `required` protected function marked for `isa`
/// that no function holds (`found`: file and line of the markers held), a kind of marker
/// missing.
fn unmatched_markers(
    markers: &[Marker],
    isa: &Isa,
    found: &BTreeSet<(String, usize)>,
) -> Vec<String> {
    let mut failures = unheld(markers, isa, found, true);
    let applying: Vec<&Marker> = markers.iter().filter(|m| m.applies_to(isa)).collect();
    let kinds = [
        (Role::Block(Block::Update), "update"),
        (Role::Block(Block::Mask), "mask"),
        (Role::Block(Block::Select), "select"),
        (Role::Block(Block::Barrier), "barrier"),
    ];
    for (role, name) in kinds {
        if !applying.iter().any(|m| m.role == role) {
            failures.push(format!("no `// sct: {name}` marker for {}", isa.name));
        }
    }
    if !applying
        .iter()
        .any(|m| matches!(m.role, Role::Protected(_)))
    {
        failures.push(format!(
            "no `// sct: protected(..)` marker for {}",
            isa.name
        ));
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The markers of a small tree: the flag's blocks of both instruction sets, some
    /// protected functions.
    fn fixture_markers() -> Vec<Marker> {
        let files = [
            (
                "crates/lattice-sampling/src/speculation/x86_64.rs",
                "// sct: update\nfn set_if_above() {}\n// sct: mask\nfn or() {}\n\
                 // sct: select\nfn select() {}\n// sct: barrier\nfn barrier() {}\n",
            ),
            (
                "crates/lattice-sampling/src/speculation/aarch64.rs",
                "// sct: update\nfn set_if_ae() {}\n// sct: update\nfn set_if_b() {}\n\
                 // sct: mask\nfn or() {}\n// sct: select\nfn select() {}\n\
                 // sct: barrier\nfn sb() {}\n// sct: barrier\nfn dsb_isb() {}\n\
                 // sct: barrier\nfn csdb() {}\n",
            ),
            (
                "crates/lattice-sampling/src/backend/x86_64/avx2/rej.rs",
                "// sct: protected(updates, masks), required\nfn parse_block_avx2() {}\n",
            ),
            (
                "crates/lattice-sampling/src/backend/x86_64/avx512/rej.rs",
                "// sct: protected(updates), required\nfn parse_candidates_vbmi2() {}\n",
            ),
            (
                "crates/lattice-sampling/src/backend/aarch64/neon/rej.rs",
                "// sct: protected(updates, selects), required\nfn parse_block_neon() {}\n\
                 // sct: protected(updates, masks)\nfn last_slots_neon() {}\n",
            ),
            (
                "crates/lattice-sampling/src/scheduler.rs",
                "// sct: protected(updates), required\nfn round() {}\n",
            ),
            (
                "crates/lattice-sampling/src/kernels.rs",
                "// sct: protected(updates, masks)\nfn parse_candidates_sct() {}\n",
            ),
        ];
        files
            .iter()
            .flat_map(|(file, text)| markers_of(file, text).expect("valid markers"))
            .collect()
    }

    const SAMPLE: &str = "\
0000000000001000 <lattice_sampling::backend::x86_64::avx2::run_avx2>:
lattice_sampling::backend::x86_64::avx2::run_avx2():
/w/crates/lattice-sampling/src/backend/x86_64/avx2/mod.rs:150
    1000:\tlfence
lattice_sampling::scheduler::Lanes<4, lattice_sampling::backend::x86_64::avx2::Avx2Kernels>::round():
/w/crates/lattice-sampling/src/scheduler.rs:200
    1004:\tmov    rax,rbx
lattice_sampling::speculation::x86_64::set_if_above():
/w/crates/lattice-sampling/src/speculation/x86_64.rs:80
    1008:\tcmp    rcx,0x0
    100c:\tcmova  rax,rdx

0000000000002000 <lattice_sampling::backend::x86_64::avx2::rej::parse_block_avx2>:
lattice_sampling::backend::x86_64::avx2::rej::parse_block_avx2():
/w/crates/lattice-sampling/src/backend/x86_64/avx2/rej.rs:170
    2000:\tvpmovmskb eax,ymm2
    2004:\tmov    rax,rbx
";

    #[test]
    fn finds_the_blocks_and_a_parser_without_them() {
        let functions = parse(SAMPLE);
        assert_eq!(functions.len(), 2);
        let report = check(&functions, &X86_64, &fixture_markers(), &|_| true);
        assert_eq!((report.functions, report.updates, report.masks), (2, 1, 0));
        // run_avx2 has its cmov (not a parser); parse_block_avx2 has neither its cmov
        // nor its `or`; no function holds the VBMI2 parser; the `lfence` is not in the
        // barrier's block here.
        let failures = report.failures.join("\n");
        assert!(failures.contains("parse_block_avx2 (holding"), "{failures}");
        assert!(failures.contains("no `or`"), "{failures}");
        assert!(
            failures.contains(
                "no function holds parse_candidates_vbmi2 (marked at \
                 crates/lattice-sampling/src/backend/x86_64/avx512/rej.rs:1, required)"
            ),
            "{failures}"
        );
        assert!(failures.contains("no barrier of init_msf"), "{failures}");
        assert!(!failures.contains("run_avx2 (holding"), "{failures}");
        // The aarch64 markers do not apply.
        assert!(!failures.contains("parse_block_neon"), "{failures}");
    }

    /// `aarch64-linux-gnu-objdump -d -l -C` prints inlined functions without `()`.
    const AARCH64_SAMPLE: &str = "\
00000000000a8000 <lattice_sampling::backend::aarch64::neon::run_neon>:
lattice_sampling::backend::aarch64::neon::run_neon:
/w/crates/lattice-sampling/src/backend/aarch64/neon/mod.rs:130
   a8000:\tmov\tx8, xzr
lattice_sampling::speculation::aarch64::dsb_isb:
/w/crates/lattice-sampling/src/speculation/aarch64.rs:13
   a8004:\tdsb\tnsh
   a8008:\tisb
lattice_sampling::speculation::aarch64::csdb:
/w/crates/lattice-sampling/src/speculation/aarch64.rs:14
   a800c:\tcsdb
lattice_sampling::scheduler::Lanes<_,K>::round:
/w/crates/lattice-sampling/src/scheduler.rs:200
   a8010:\tcmp\tx9, #0x3
lattice_sampling::speculation::aarch64::set_if_b:
/w/crates/lattice-sampling/src/speculation/aarch64.rs:44
   a8014:\tcmp\tx16, x13
   a8018:\tcsel\tx8, x14, x8, cc\t// cc = lo, ul, last
lattice_sampling::backend::aarch64::neon::rej::parse_block_neon:
/w/crates/lattice-sampling/src/backend/aarch64/neon/rej.rs:180
   a801c:\tadrp\tx10, 0
lattice_sampling::speculation::aarch64::select:
/w/crates/lattice-sampling/src/speculation/aarch64.rs:131
   a8020:\tcmp\tx8, #0x0
   a8024:\tcsel\tx0, x10, x0, ne
lattice_sampling::backend::aarch64::neon::rej::parse_block_neon:
/w/crates/lattice-sampling/src/backend/aarch64/neon/rej.rs:188
   a8028:\tcmp\tx2, #0xf0
   a802c:\tb.hi\ta8040 <lattice_sampling::backend::aarch64::neon::run_neon+0x40>  // b.pmore

00000000000a9000 <lattice_sampling::backend::aarch64::neon::rej::parse_block_neon>:
lattice_sampling::backend::aarch64::neon::rej::parse_block_neon:
/w/crates/lattice-sampling/src/backend/aarch64/neon/rej.rs:180
   a9000:\tcmp\tx2, #0xf0
   a9004:\tb.hi\ta9040 <lattice_sampling::backend::aarch64::neon::rej::parse_block_neon+0x40>
core::cmp::Ord::min:
/rustc/0/library/core/src/cmp.rs:1076
   a9008:\tcsel\tx16, x16, x15, cc

00000000000a9800 <lattice_sampling::backend::aarch64::neon::rej::last_slots_neon>:
lattice_sampling::backend::aarch64::neon::rej::last_slots_neon:
/w/crates/lattice-sampling/src/backend/aarch64/neon/rej.rs:240
   a9800:\tcmp\tx1, #0x6
lattice_sampling::speculation::aarch64::set_if_ae:
/w/crates/lattice-sampling/src/speculation/aarch64.rs:24
   a9804:\tcmp\tx1, x9
   a9808:\tcsel\tx10, x11, x10, hs
lattice_sampling::backend::aarch64::neon::rej::last_slots_neon:
/w/crates/lattice-sampling/src/backend/aarch64/neon/rej.rs:251
   a980c:\torr\tx15, x15, x10
lattice_sampling::speculation::aarch64::or:
/w/crates/lattice-sampling/src/speculation/aarch64.rs:108
   a9810:\tmov\tx15, x15

00000000000aa000 <lattice_sampling::kernels::parse_candidates_sct>:
lattice_sampling::kernels::parse_candidates_sct:
/w/crates/lattice-sampling/src/kernels.rs:90
   aa000:\tldrb\tw8, [x0]
lattice_sampling::speculation::aarch64::set_if_ae:
/w/crates/lattice-sampling/src/speculation/aarch64.rs:24
   aa004:\tcmp\tx8, x9
   aa008:\tcbnz\tx8, aa010 <lattice_sampling::kernels::parse_candidates_sct+0x10>
   aa00c:\tcsel\tx10, x11, x10, hs
lattice_sampling::speculation::aarch64::or:
/w/crates/lattice-sampling/src/speculation/aarch64.rs:108
   aa010:\torr\tx8, x8, x10
";

    const NEON_BLOCK: &str = "lattice_sampling::backend::aarch64::neon::rej::parse_block_neon";
    const NEON_LAST_SLOTS: &str = "lattice_sampling::backend::aarch64::neon::rej::last_slots_neon";

    /// The `asm!` lines of the sample's flag blocks.
    fn aarch64_asm_lines(source: &str) -> bool {
        [
            "aarch64.rs:13",
            "aarch64.rs:14",
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
        let report = check(&functions, &AARCH64, &fixture_markers(), &aarch64_asm_lines);
        // run_neon: the round's csel, the block walk's selection, the barrier; the block
        // walk alone: neither its selection nor its update (a `csel` of `min` only);
        // last_slots_neon: its update, but an `orr` outside the masking block (whose only
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
        let block = format!("{NEON_BLOCK} (holding parse_block_neon)");
        for expected in [
            format!("{block}: no csel of the flag's updates"),
            format!("{block}: no csel selecting with the flag"),
            format!("{NEON_LAST_SLOTS} (holding last_slots_neon): no `orr` masking"),
            "lattice_sampling::kernels::parse_candidates_sct: a conditional branch".into(),
        ] {
            assert!(failures.contains(&expected), "{expected}\n{failures}");
        }
        assert!(!failures.contains("run_neon"), "{failures}");
        assert!(!failures.contains("no function holds"), "{failures}");
        assert!(!failures.contains("barrier"), "{failures}");
        assert_eq!(report.failures.len(), 4, "{failures}");
    }

    /// The check follows a function to another module or file, as long as its marker goes
    /// with it; a marked function that no longer appears fails the check.
    #[test]
    fn a_moved_function_keeps_its_check_and_a_lost_one_fails() {
        let moved = AARCH64_SAMPLE
            .replace("neon::rej::parse_block_neon", "elsewhere::parse_block_neon")
            .replace("neon/rej.rs:180", "elsewhere.rs:180")
            .replace("neon/rej.rs:188", "elsewhere.rs:188");
        let mut markers = fixture_markers();
        for marker in &mut markers {
            if marker.name == "parse_block_neon" {
                marker.file = "crates/lattice-sampling/src/backend/aarch64/elsewhere.rs".into();
            }
        }
        let failures = |text: &str, markers: &[Marker]| {
            check(&parse(text), &AARCH64, markers, &aarch64_asm_lines).failures
        };
        let before = failures(AARCH64_SAMPLE, &fixture_markers());
        let after = failures(&moved, &markers);
        assert_eq!(after.len(), before.len(), "{after:?}");
        assert!(
            after
                .iter()
                .any(|f| f.contains("elsewhere::parse_block_neon (holding parse_block_neon)")),
            "{after:?}"
        );
        // Moved in the binary but not in the source (the marker still names the old file):
        // the function is no longer recognised, and its marker is held by nothing.
        let lost = failures(&moved, &fixture_markers());
        assert!(
            lost.iter()
                .any(|f| f.starts_with("no function holds parse_block_neon (marked at")),
            "{lost:?}"
        );
    }

    /// Within one build only the `required` markers must be held; over a full run, all.
    #[test]
    fn required_in_every_build_and_all_in_some() {
        let names = |only_required| {
            unheld(
                &fixture_markers(),
                &AARCH64,
                &BTreeSet::new(),
                only_required,
            )
            .iter()
            .map(|f| f.split_whitespace().nth(3).unwrap_or("").to_owned())
            .collect::<Vec<_>>()
        };
        assert_eq!(names(true), ["parse_block_neon", "round"]);
        assert_eq!(
            names(false),
            [
                "parse_block_neon",
                "last_slots_neon",
                "round",
                "parse_candidates_sct"
            ]
        );
    }

    /// In the dev profile a closure is a function of its own: its code counts for the
    /// function that defines it.
    #[test]
    fn an_outlined_closure_belongs_to_its_function() {
        let text = "\
00000000000da07c <lattice_sampling::backend::aarch64::neon::rej::last_slots_neon>:
lattice_sampling::backend::aarch64::neon::rej::last_slots_neon:
/w/crates/lattice-sampling/src/backend/aarch64/neon/rej.rs:240
   da07c:\tbl\tdc2b4 <lattice_sampling::backend::aarch64::neon::rej::last_slots_neon::{{closure}}>
lattice_sampling::speculation::aarch64::set_if_ae:
/w/crates/lattice-sampling/src/speculation/aarch64.rs:24
   da080:\tcsel\tx10, x11, x10, hs

00000000000dc2b4 <lattice_sampling::backend::aarch64::neon::rej::last_slots_neon::{{closure}}>:
lattice_sampling::backend::aarch64::neon::rej::last_slots_neon::{{closure}}:
/w/crates/lattice-sampling/src/backend/aarch64/neon/rej.rs:251
   dc2b4:\tsub\tsp, sp, #0x40
lattice_sampling::speculation::aarch64::or:
/w/crates/lattice-sampling/src/speculation/aarch64.rs:108
   dc2dc:\torr\tx8, x1, x8
";
        let functions = parse(text);
        assert_eq!(functions.keys().collect::<Vec<_>>(), [NEON_LAST_SLOTS]);
        let report = check(&functions, &AARCH64, &fixture_markers(), &aarch64_asm_lines);
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

    /// Without the barrier's every instruction, no barrier; `sb` stands for `dsb nsh; isb`,
    /// and without `csdb` (the KEM's entry barrier) it is not `init_msf`'s.
    #[test]
    fn a_partial_aarch64_barrier_is_none() {
        let barriers = |text: &str| {
            check(
                &parse(text),
                &AARCH64,
                &fixture_markers(),
                &aarch64_asm_lines,
            )
        };
        let report = barriers(&AARCH64_SAMPLE.replace("   a8008:\tisb\n", ""));
        assert_eq!(report.barriers, 0);
        assert!(
            report
                .failures
                .iter()
                .any(|f| f.contains("no barrier of init_msf")),
            "{:?}",
            report.failures
        );
        let sb = AARCH64_SAMPLE
            .replace("aarch64::dsb_isb:", "aarch64::sb:")
            .replace("   a8004:\tdsb\tnsh\n   a8008:\tisb\n", "   a8004:\tsb\n");
        assert_eq!(barriers(&sb).barriers, 1);
        assert_eq!(
            barriers(&AARCH64_SAMPLE.replace("   a800c:\tcsdb\n", "")).barriers,
            0
        );
    }

    /// An `orr` in the masking block but not from its `asm!` (the block written in Rust)
    /// does not count, and fails.
    #[test]
    fn a_compiled_orr_is_not_the_mask() {
        let text = AARCH64_SAMPLE.replace("aarch64.rs:108\n   aa010", "aarch64.rs:104\n   aa010");
        let report = check(
            &parse(&text),
            &AARCH64,
            &fixture_markers(),
            &aarch64_asm_lines,
        );
        assert_eq!(report.masks, 0);
        let failures = report.failures.join("\n");
        let symbol = "lattice_sampling::kernels::parse_candidates_sct";
        for expected in [
            format!("{symbol}: 1 `csel*`/`orr` of the flag's blocks not on an `asm!` line"),
            format!("{symbol} (holding parse_candidates_sct): no `orr` masking"),
        ] {
            assert!(failures.contains(&expected), "{expected}\n{failures}");
        }
    }

    #[test]
    fn markers_are_read() {
        let text = "\
/// The docs.
// sct: protected(updates, masks)
#[inline]
#[allow(
    clippy::something,
    reason = \"a reason\"
)]
#[target_feature(enable = \"avx2\")]
pub(crate) unsafe fn parse_it<const N: usize>(x: usize) -> usize {
    x
}

// sct: barrier
#[inline(always)]
fn barrier() {}

// sct: protected(), required
fn alone() {}
";
        let markers = markers_of("crates/c/src/backend/x86_64/avx2/rej.rs", text).expect("valid");
        let found: Vec<(&str, usize, Option<&str>, Role, bool)> = markers
            .iter()
            .map(|m| (m.name.as_str(), m.line, m.isa, m.role, m.required))
            .collect();
        let both = Needs {
            update: true,
            mask: true,
            select: false,
        };
        assert_eq!(
            found,
            [
                ("parse_it", 2, Some("x86_64"), Role::Protected(both), false),
                (
                    "barrier",
                    13,
                    Some("x86_64"),
                    Role::Block(Block::Barrier),
                    false
                ),
                (
                    "alone",
                    17,
                    Some("x86_64"),
                    Role::Protected(Needs::default()),
                    true
                ),
            ]
        );
        let isa = |file| markers_of(file, "// sct: mask\nfn or() {}\n").expect("valid")[0].isa;
        assert_eq!(isa("crates/c/src/speculation/aarch64.rs"), Some("aarch64"));
        assert_eq!(
            isa("crates/c/src/backend/aarch64/neon/rej.rs"),
            Some("aarch64")
        );
        assert_eq!(isa("crates/c/src/kernels.rs"), None);
        assert_eq!(isa("crates/c/src/x86_64_like.rs"), None);
        assert!(markers_of("a.rs", "// sct: masks\nfn or() {}\n").is_err());
        assert!(markers_of("a.rs", "// sct: protected(stores)\nfn f() {}\n").is_err());
        assert!(markers_of("a.rs", "// sct: mask\nstatic X: u8 = 0;\n").is_err());
        assert!(markers_of("a.rs", "// sct: mask, required\nfn or() {}\n").is_err());
    }

    /// The workspace's own markers: every kind for both instruction sets.
    #[test]
    fn the_workspace_is_marked() {
        let markers = find_markers(&workspace_root()).expect("readable markers");
        for isa in ISAS {
            let report = check(&BTreeMap::new(), isa, &markers, &|_| true);
            assert!(
                !report.failures.iter().any(|f| f.contains("marker for")),
                "{}: {:?}",
                isa.name,
                report.failures
            );
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
