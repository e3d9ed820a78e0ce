//! The division scan: no integer division instruction in the code that handles secrets.
//!
//! Memcheck cannot see a variable-latency instruction: a division whose operands are
//! secret raises no error, yet its timing leaks them (KyberSlash). So the harness binary is
//! disassembled (`objdump -d -l --no-show-raw-insn -C`, with the debug info `cargo xtask ct`
//! builds with, which maps every instruction to its innermost inlined function and source
//! line) and scanned. The scan knows two instruction sets ([`Arch`]): x86_64 (`div`/`idiv`,
//! the host's `objdump`, for `cargo xtask ct`) and aarch64 (`udiv`/`sdiv`, Debian's
//! `aarch64-linux-gnu-objdump`, for `cargo xtask ct-aarch64`); the roots, the reachability
//! and the allow rule are the same for both:
//!
//! 1. the roots are every function of our crates (`lazykem`, `lazykem_hybrid` where the
//!    build holds it, `lattice_field`, `lattice_poly_ntt`, `lattice_sampling`, their closures, trait impls and monomorphized
//!    generics) and of the harness (its checks `ct_harness::check` and helpers, and its
//!    `#[inline(never)]` wrappers `ct_harness::ops::*`), into which the optimizer inlines
//!    library code (a symbol counts as ours when its path outside generic arguments names
//!    one of these crates); not the negative control's module nor the dudect statistics,
//!    which run natively only;
//! 2. from the roots, every `call`/`jmp`/`jcc` target is followed, transitively: direct
//!    targets by address, and calls through the GOT (`call *slot(%rip)`, which rustc emits
//!    for generics shared between crates at opt-levels `s` and `z`) through the
//!    `R_X86_64_RELATIVE` relocation of the slot (`objdump -R`). On aarch64 the same for
//!    `bl`/`b`/`b.cond`/`cbz`/`cbnz`/`tbz`/`tbnz`, and for `blr`/`br` through a register
//!    loaded from a GOT slot in the same function (`adrp xN, page` then `ldr xM, [xN, #off]`;
//!    the slot's `R_AARCH64_RELATIVE` relocation). This brings in what our code
//!    reaches in the dependencies (`sha3`, `keccak`, `subtle`, `zeroize`, the hybrids' curves
//!    in `graviola`, `p256`, `p384`, `x25519-dalek` and `crypto-bigint`, instances of `core`
//!    generics such as `<[T; N]>::map` with our closures, compiler builtins such as
//!    `__udivti3`). Not followed: the panic, formatting and unwinding machinery
//!    (`core::panicking`, `core::fmt`, `*_fail` functions, `_Unwind_*`), reached only on a
//!    failed public check, where nothing secret is left to time, and calls into shared
//!    libraries (libc's `memcpy`, `memset`);
//! 3. every instruction of every scanned function whose mnemonic is `div` or `idiv` (any
//!    operand size; on aarch64 `udiv` or `sdiv`, scalar or SVE) is reported with the
//!    function, the instruction and its innermost source function and line. Floating-point
//!    divisions (SSE/AVX `div*`, aarch64 `fdiv`) are not integer divisions and are not
//!    looked for.
//!
//! Limits: calls through registers (function pointers, `dyn`) are not followed (there are
//! none on the secret paths of this library); the scan is of one build of one target at
//! one opt-level.
//!
//! The negative control: `ct_harness::leaky::divide_by_secret` divides by a secret byte and
//! must be found, or the scan itself is broken.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;
use std::process::Command;

/// Crates whose functions are the roots of the scan (path prefixes, `::`-terminated). The
/// harness is one of them: its checks (`ct_harness::check` and the helpers it calls) and
/// its `#[inline(never)]` wrappers `ct_harness::ops::*` get library code inlined into them.
const OUR_PATHS: [&str; 6] = [
    "lazykem::",
    "lazykem_hybrid::",
    "lattice_field::",
    "lattice_poly_ntt::",
    "lattice_sampling::",
    "ct_harness::",
];

/// Harness modules that are not roots: the negative control (found separately, and must
/// contain a division), and the dudect statistics and the stack-residue report, which run
/// only natively, on timings and on copies of the dead stack.
const NOT_OURS: [&str; 3] = [
    "ct_harness::leaky::",
    "ct_harness::dudect::",
    "ct_harness::residue::",
];

/// Divisions in the dependencies that count loop iterations from public parameters, by
/// their function and innermost source function, each with its reason.
const PUBLIC_COUNTS: [(&str, &str); 1] = [
    // curve25519-dalek's radix-2^w recoding of a scalar runs `256.div_ceil(w)` digits: `w`
    // is the window width of the precomputed table (a constant of the table's type), not
    // the scalar. (The hybrids' X25519 fallback, x25519-dalek, reaches it.)
    (
        "curve25519_dalek::scalar::Scalar::as_radix_2w",
        "<usize>::div_ceil",
    ),
];

/// The negative control's function.
pub(crate) const CONTROL_FUNCTION: &str = "ct_harness::leaky::divide_by_secret";

/// The instruction set of the scanned binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arch {
    /// `div`/`idiv`, calls through `*slot(%rip)`.
    X86_64,
    /// `udiv`/`sdiv`, calls through registers loaded from GOT slots.
    Aarch64,
}

impl Arch {
    /// The objdump that reads this instruction set.
    pub(crate) const fn objdump(self) -> &'static str {
        match self {
            Self::X86_64 => "objdump",
            Self::Aarch64 => "aarch64-linux-gnu-objdump",
        }
    }

    /// The dynamic relocation that fills a GOT slot with an address of the binary.
    const fn relative_relocation(self) -> &'static str {
        match self {
            Self::X86_64 => "R_X86_64_RELATIVE",
            Self::Aarch64 => "R_AARCH64_RELATIVE",
        }
    }

    /// Whether `mnemonic` is an integer division.
    fn is_division(self, mnemonic: &str) -> bool {
        match self {
            Self::X86_64 => is_division(mnemonic),
            Self::Aarch64 => mnemonic == "udiv" || mnemonic == "sdiv",
        }
    }
}

/// Where a `call`/`jmp`/`jcc` goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// `call 1234 <name>`: an address.
    Direct(u64),
    /// `call *0x10(%rip)  # 5678 <...>`: the address held in a GOT slot.
    Slot(u64),
}

/// One instruction of the disassembly.
#[derive(Clone, Debug, Default)]
struct Instruction {
    /// The mnemonic, without `lock`/`rep`/`notrack`/`bnd` prefixes.
    mnemonic: String,
    /// The operands as objdump prints them.
    operands: String,
    /// The innermost (inlined) function this instruction belongs to, from `-l`.
    source_function: String,
    /// `file:line` of the instruction, from `-l`.
    location: String,
    /// For branches and calls: where to.
    target: Option<Target>,
}

/// One function (symbol) of the disassembly.
#[derive(Clone, Debug, Default)]
struct Function {
    start: u64,
    name: String,
    instructions: Vec<Instruction>,
}

/// Parsed functions, with the instruction set they are in.
struct Disassembly {
    arch: Arch,
    functions: Vec<Function>,
}

/// A division found by the scan.
#[derive(Clone, Debug)]
pub(crate) struct Division {
    /// The symbol it is in.
    pub(crate) function: String,
    /// Mnemonic and operands.
    pub(crate) instruction: String,
    /// The innermost inlined function the division comes from.
    pub(crate) source_function: String,
    /// Its source line.
    pub(crate) location: String,
}

impl Division {
    /// Whether the division is slice, range or iterator length arithmetic:
    /// - its innermost source is one of the chunking helpers of `core` or `hybrid-array`
    ///   (`chunks_exact(n)`, `as_chunks::<N>()`, `slice_as_chunks`) or `step_by`, which divide
    ///   a slice or range length by the chunk size or step; or
    /// - it is written in `core` (innermost source `core::*` or an integer method such as
    ///   `<usize>::div_ceil`) inside an out-of-line function of `core::iter` or
    ///   `core::slice` (e.g. `Zip`'s `size`, `Iterator::step_by`): those are generic over
    ///   the element type and divide only lengths and indices. A closure of ours inlined
    ///   into such a function keeps its own source (`lazykem::...`) and is not covered;
    /// - or it is one of [`PUBLIC_COUNTS`]: a loop count in a dependency, from public
    ///   parameters, named by its function and innermost source.
    ///
    /// Every length in ML-KEM is fixed by the parameter set, so these operands are public.
    /// (Divisions by a constant become `div` only at opt-level "z"; divisions by a chunk size
    /// held in an out-of-line iterator are `div`s at every level.)
    pub(crate) fn is_length_arithmetic(&self) -> bool {
        // `offset_from_unsigned` divides the distance of two pointers by the element size
        // (a `Vec` iterator's length): addresses are public, or memcheck reports them.
        const LENGTH_HELPERS: [&str; 6] = [
            "core::slice::iter::ChunksExact",
            "as_chunks",
            "slice_as_chunks",
            "step_by",
            "StepBy",
            "offset_from_unsigned",
        ];
        let helper = LENGTH_HELPERS
            .iter()
            .any(|h| self.source_function.contains(h));
        // `<core::iter::adapters::zip::Zip<A,B> as ...>::new` counts as `core::iter`.
        let function = self.function.trim_start_matches('<');
        let in_core_iteration =
            function.starts_with("core::iter::") || function.starts_with("core::slice::");
        // A trait method of a core type (`<core::iter::adapters::zip::Zip<A,B> as ...>::new`,
        // where debug info attributes an inlined `ChunksExact` size computation) is core too.
        let written_in_core = self
            .source_function
            .trim_start_matches('<')
            .starts_with("core::")
            || self.source_function.starts_with("<usize>::")
            || self.source_function.starts_with("<u64>::");
        let listed = PUBLIC_COUNTS
            .iter()
            .any(|&(function, source)| self.function == function && self.source_function == source);
        helper || (in_core_iteration && written_in_core) || listed
    }
}

/// The result of scanning one binary.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// Functions of our crates (the roots).
    pub(crate) roots: usize,
    /// Functions reached from the roots through direct calls and jumps (roots excluded).
    pub(crate) reached: usize,
    /// Call targets not followed (panic, formatting, unwinding, PLT stubs).
    pub(crate) not_followed: usize,
    /// Calls through GOT slots the dynamic linker fills (shared libraries).
    pub(crate) external_calls: usize,
    /// Divisions in the scanned functions.
    pub(crate) divisions: Vec<Division>,
    /// Divisions in the negative control (must not be empty).
    pub(crate) control: Vec<Division>,
}

/// Disassembles `binary` (of instruction set `arch`) and scans it.
pub(crate) fn scan_binary(binary: &Path, arch: Arch) -> Result<Scan, String> {
    let objdump = arch.objdump();
    let output = Command::new(objdump)
        .args(["-d", "-l", "--no-show-raw-insn", "-C"])
        .arg(binary)
        .output()
        .map_err(|e| format!("cannot run {objdump}: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "objdump failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let disassembly = parse(&String::from_utf8_lossy(&output.stdout), arch);
    if disassembly.functions.is_empty() {
        return Err(format!("{objdump} printed no function"));
    }
    let relocations = Command::new(objdump)
        .arg("-R")
        .arg(binary)
        .output()
        .map_err(|e| format!("cannot run {objdump} -R: {e}"))?;
    let slots = parse_relocations(&String::from_utf8_lossy(&relocations.stdout), arch);
    Ok(scan(&disassembly, &slots))
}

/// Parses `objdump -R`: the GOT slots filled with a fixed address of this binary
/// (`OFFSET R_X86_64_RELATIVE *ABS*+0xADDRESS`, or `R_AARCH64_RELATIVE`).
fn parse_relocations(text: &str, arch: Arch) -> HashMap<u64, u64> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let offset = u64::from_str_radix(fields.next()?, 16).ok()?;
            if fields.next()? != arch.relative_relocation() {
                return None;
            }
            let value = fields.next()?.strip_prefix("*ABS*+0x")?;
            Some((offset, u64::from_str_radix(value, 16).ok()?))
        })
        .collect()
}

/// Whether `name` is one of our functions: outside generic argument lists (`f<...>`), its
/// path names one of [`OUR_PATHS`]. `<lazykem::X as zeroize::Zeroize>::zeroize` is ours;
/// so is `ct_harness::check<ct_harness::ops::Y>`; `core::ptr::drop_in_place<lazykem::X>` is not
/// (it is reached through calls from ours), nor is anything in [`NOT_OURS`].
fn is_ours(name: &str) -> bool {
    let mut outside = String::with_capacity(name.len());
    let mut depth = 0usize;
    let mut previous = ' ';
    for c in name.chars() {
        match c {
            '<' if depth > 0 || previous.is_alphanumeric() || previous == '_' => depth += 1,
            '>' if depth > 0 => depth -= 1,
            _ if depth == 0 => outside.push(c),
            _ => {}
        }
        previous = c;
    }
    OUR_PATHS.iter().any(|p| outside.contains(p)) && !NOT_OURS.iter().any(|p| outside.contains(p))
}

/// Call targets that are not followed: reached only when a public check fails (panics and
/// their message formatting), not code of this binary (PLT stubs into libc), or harness
/// code that handles no secret under memcheck ([`NOT_OURS`], called from `main`).
fn is_not_followed(name: &str) -> bool {
    const PREFIXES: [&str; 8] = [
        "core::panicking::",
        "std::panicking::",
        "core::fmt::",
        "alloc::fmt::",
        "std::rt::",
        "_Unwind_",
        "alloc::alloc::handle_alloc_error",
        "alloc::raw_vec::handle_error",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
        || NOT_OURS.iter().any(|p| name.starts_with(p))
        || name.ends_with("@plt")
        || name.contains("_fail")
        || name.contains("panic")
}

/// The mnemonic of an objdump instruction text, skipping prefixes.
fn split_instruction(text: &str) -> (String, String) {
    const PREFIXES: [&str; 8] = [
        "lock", "rep", "repz", "repe", "repnz", "repne", "notrack", "bnd",
    ];
    let mut rest = text.trim();
    loop {
        let (first, tail) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        if PREFIXES.contains(&first) && !tail.trim().is_empty() {
            rest = tail.trim_start();
            continue;
        }
        return (first.to_string(), tail.trim().to_string());
    }
}

/// Whether `mnemonic` is an integer division (`div`, `idiv`, with any size suffix).
fn is_division(mnemonic: &str) -> bool {
    let base = mnemonic
        .strip_suffix(['b', 'w', 'l', 'q'])
        .filter(|b| b.ends_with("div"))
        .unwrap_or(mnemonic);
    base == "div" || base == "idiv"
}

/// Where a `call`/`jmp`/`jcc` goes: `1234 <name>` (direct), or
/// `*0x10(%rip)        # 5678 <name>` (through the GOT slot at 0x5678).
fn parse_target(mnemonic: &str, operands: &str) -> Option<Target> {
    if !(mnemonic.starts_with("call") || mnemonic.starts_with('j')) {
        return None;
    }
    if operands.starts_with('*') {
        if !operands.contains("(%rip)") {
            return None;
        }
        let slot = operands.split_once("# ")?.1.split_whitespace().next()?;
        return u64::from_str_radix(slot, 16).ok().map(Target::Slot);
    }
    let address = operands.split_whitespace().next()?;
    u64::from_str_radix(address, 16).ok().map(Target::Direct)
}

/// The number of an aarch64 general register operand (`x8`, `w8` -> 8), if it is one.
fn register(operand: &str) -> Option<u8> {
    let operand = operand.trim();
    operand
        .strip_prefix('x')
        .or_else(|| operand.strip_prefix('w'))?
        .parse()
        .ok()
}

/// The hexadecimal number `text` starts with (`13f000 <sym+0x10>` -> 0x13f000).
fn leading_hex(text: &str) -> Option<u64> {
    u64::from_str_radix(text.split_whitespace().next()?, 16).ok()
}

/// What the registers of an aarch64 function hold, as far as calls through the GOT need:
/// pages from `adrp`, and GOT slot addresses for registers loaded from `[page, #offset]`.
#[derive(Default)]
struct Aarch64Registers {
    pages: HashMap<u8, u64>,
    slots: HashMap<u8, u64>,
}

impl Aarch64Registers {
    /// Updates the registers for one instruction; returns where it branches, if it does.
    fn step(&mut self, mnemonic: &str, operands: &str) -> Option<Target> {
        let mut parts = operands.split(',');
        let first = parts.next().and_then(register);
        match mnemonic {
            "bl" | "b" | "cbz" | "cbnz" | "tbz" | "tbnz" => {
                // The target is the last operand: `1234 <name>` (a name may hold commas).
                let before_name = operands.split(" <").next()?;
                return leading_hex(before_name.rsplit(',').next()?.trim()).map(Target::Direct);
            }
            _ if mnemonic.starts_with("b.") => {
                return leading_hex(operands).map(Target::Direct);
            }
            "blr" | "br" => {
                return first.and_then(|r| self.slots.get(&r).copied().map(Target::Slot));
            }
            "adrp" => {
                let (register, page) = (first?, leading_hex(parts.next()?.trim())?);
                self.slots.remove(&register);
                self.pages.insert(register, page);
                return None;
            }
            "ldr" => {
                // `ldr x17, [x16, #3272]`: a GOT slot when x16 holds an adrp page.
                let rest = operands.split_once(", [")?.1;
                let slot = rest.strip_suffix(']').and_then(|inner| {
                    let (base, offset) = inner.split_once(", #")?;
                    let offset = offset.strip_prefix("0x").map_or_else(
                        || offset.parse().ok(),
                        |hex| u64::from_str_radix(hex, 16).ok(),
                    )?;
                    Some(self.pages.get(&register(base)?)? + offset)
                });
                if let Some(register) = first {
                    self.pages.remove(&register);
                    match slot {
                        Some(slot) => self.slots.insert(register, slot),
                        None => self.slots.remove(&register),
                    };
                }
                return None;
            }
            _ => {}
        }
        // Any other instruction writing its first operand forgets what that register held.
        if let Some(register) = first {
            self.pages.remove(&register);
            self.slots.remove(&register);
        }
        None
    }
}

/// Parses `objdump -d -l --no-show-raw-insn -C` output.
fn parse(text: &str, arch: Arch) -> Disassembly {
    let mut functions: Vec<Function> = Vec::new();
    let mut registers = Aarch64Registers::default();
    let mut source_function = String::new();
    let mut location = String::new();
    for line in text.lines() {
        if line.is_empty() {
            continue;
        }
        if line.starts_with(char::is_whitespace) {
            // "  1234:\tmnemonic operands"
            let Some((_, text)) = line.split_once(":\t") else {
                continue;
            };
            let Some(function) = functions.last_mut() else {
                continue;
            };
            let (mnemonic, operands) = split_instruction(text);
            let target = match arch {
                Arch::X86_64 => parse_target(&mnemonic, &operands),
                Arch::Aarch64 => registers.step(&mnemonic, &operands),
            };
            function.instructions.push(Instruction {
                mnemonic,
                operands,
                source_function: source_function.clone(),
                location: location.clone(),
                target,
            });
        } else if let Some((start, name)) = line.split_once(" <").and_then(|(address, rest)| {
            Some((
                u64::from_str_radix(address, 16).ok()?,
                rest.strip_suffix(">:")?,
            ))
        }) {
            // "0000000000012340 <symbol>:"
            functions.push(Function {
                start,
                name: name.to_string(),
                instructions: Vec::new(),
            });
            source_function = name.to_string();
            location.clear();
            registers = Aarch64Registers::default();
        } else if line.starts_with('/') || line.contains(".rs:") {
            // "/path/to/file.rs:123" or "... (discriminator 2)"
            location = line
                .split(" (discriminator")
                .next()
                .unwrap_or(line)
                .to_string();
        } else if let Some(name) = line.strip_suffix(':') {
            // "core::slice::iter::ChunksExact<T>::new:" (the inlined function), or a section header.
            source_function = name.strip_suffix("()").unwrap_or(name).to_string();
        }
    }
    Disassembly { arch, functions }
}

/// The divisions of one function.
fn divisions(function: &Function, arch: Arch) -> impl Iterator<Item = Division> + '_ {
    function
        .instructions
        .iter()
        .filter(move |i| arch.is_division(&i.mnemonic))
        .map(|i| Division {
            function: function.name.clone(),
            instruction: format!("{} {}", i.mnemonic, i.operands),
            source_function: i.source_function.clone(),
            location: i.location.clone(),
        })
}

/// Scans parsed functions: roots, reachability, divisions, negative control. `slots` maps
/// GOT slots to the addresses they hold.
fn scan(disassembly: &Disassembly, slots: &HashMap<u64, u64>) -> Scan {
    let (arch, functions) = (disassembly.arch, &disassembly.functions);
    // Functions by start address, to find the one containing a branch target.
    let mut by_start: Vec<(u64, usize)> = functions
        .iter()
        .enumerate()
        .map(|(i, f)| (f.start, i))
        .collect();
    by_start.sort_unstable();
    let containing = |address: u64| -> Option<usize> {
        let after = by_start.partition_point(|&(start, _)| start <= address);
        after.checked_sub(1).map(|i| by_start[i].1)
    };

    let mut result = Scan::default();
    let mut seen: HashSet<usize> = HashSet::new();
    let mut queue: VecDeque<usize> = VecDeque::new();
    for (i, function) in functions.iter().enumerate() {
        if is_ours(&function.name) {
            seen.insert(i);
            queue.push_back(i);
            result.roots += 1;
        }
    }
    let mut skipped: HashSet<usize> = HashSet::new();
    while let Some(index) = queue.pop_front() {
        let function = &functions[index];
        result.divisions.extend(divisions(function, arch));
        for target in function.instructions.iter().filter_map(|i| i.target) {
            let address = match target {
                Target::Direct(address) => Some(address),
                Target::Slot(slot) => slots.get(&slot).copied(),
            };
            let Some(callee) = address.and_then(containing) else {
                // A slot filled by the dynamic linker: a shared library (libc).
                result.external_calls += 1;
                continue;
            };
            if callee == index || seen.contains(&callee) {
                continue;
            }
            if is_not_followed(&functions[callee].name) {
                skipped.insert(callee);
                continue;
            }
            seen.insert(callee);
            result.reached += 1;
            queue.push_back(callee);
        }
    }
    result.not_followed = skipped.len();
    for function in functions.iter().filter(|f| f.name == CONTROL_FUNCTION) {
        result.control.extend(divisions(function, arch));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    const DISASSEMBLY: &str = "\
Disassembly of section .text:

0000000000001000 <ct_harness::leaky::divide_by_secret>:
ct_harness::leaky::divide_by_secret():
/w/ct-harness/src/leaky.rs:61
    1000:\tmov    %edi,%eax
    1002:\tdiv    %ecx
    1004:\tret

0000000000001010 <<ct_harness::ops::MlKem768 as ct_harness::ops::Kem>::encapsulate>:
    1010:\tjmp    1040 <lazykem::kpke::encrypt>

0000000000001020 <ct_harness::check<ct_harness::ops::MlKem768>>:
    1020:\tidivl  (%rax)
    1022:\tcall   1040 <lazykem::kpke::encrypt>

0000000000001040 <lazykem::kpke::encrypt>:
core::slice::iter::ChunksExactMut<T>::new:
/rustc/abc/library/core/src/slice/iter.rs:2029
    1040:\tdiv    %rdi
/w/crates/lazykem/src/kpke.rs:150
    1042:\tcall   1060 <keccak::p1600>
    1047:\tcall   1080 <core::panicking::panic_bounds_check>
    104c:\tjne    1042 <lazykem::kpke::encrypt+0x2>
    104e:\tret

0000000000001060 <keccak::p1600>:
    1060:\tnotrack jmp *%rax
    1062:\tcall   *0xf9a(%rip)        # 2000 <_DYNAMIC+0x10>
    1068:\tcall   *0xf9a(%rip)        # 2008 <_DYNAMIC+0x18>
    106e:\tjmp    1090 <__udivti3>

0000000000001080 <core::panicking::panic_bounds_check>:
    1080:\tdivq   %rcx

0000000000001090 <__udivti3>:
    1090:\tdivq   %rcx
    1092:\tret

00000000000010a0 <core::array::<impl [T; N]>::map>:
lazykem::compress::compress:
/w/crates/lazykem/src/compress.rs:46
    10a0:\tdiv    %edi
    10a2:\tret
";

    const RELOCATIONS: &str = "\
DYNAMIC RELOCATION RECORDS
OFFSET           TYPE              VALUE
0000000000002000 R_X86_64_RELATIVE  *ABS*+0x00000000000010a0
0000000000002008 R_X86_64_GLOB_DAT  memcpy@GLIBC_2.14
";

    #[test]
    fn recognizes_division_mnemonics() {
        for m in [
            "div", "divb", "divw", "divl", "divq", "idiv", "idivl", "idivq",
        ] {
            assert!(is_division(m), "{m}");
        }
        for m in ["divss", "divsd", "vdivps", "vpdivq", "mov", "dive"] {
            assert!(!is_division(m), "{m}");
        }
    }

    #[test]
    fn our_functions_are_recognized_outside_generic_arguments() {
        assert!(is_ours("lazykem::kpke::encrypt"));
        assert!(is_ours(
            "<lazykem::ml_kem_768::DecapsulationKey as zeroize::Zeroize>::zeroize"
        ));
        assert!(is_ours(
            "<ct_harness::ops::MlKem768 as ct_harness::ops::Kem>::encapsulate"
        ));
        assert!(is_ours("lattice_poly_ntt::vector::Matrix<_>::mul_vector"));
        assert!(!is_ours(
            "core::ptr::drop_in_place<lazykem::ml_kem_768::DecapsulationKey>"
        ));
        assert!(is_ours("ct_harness::check<ct_harness::ops::MlKem768>"));
        assert!(!is_ours("ct_harness::dudect::welch_t"));
        assert!(!is_ours("ct_harness::leaky::divide_by_secret"));
    }

    #[test]
    fn scans_roots_and_what_they_reach() {
        let disassembly = parse(DISASSEMBLY, Arch::X86_64);
        assert_eq!(disassembly.functions.len(), 8);
        let slots = parse_relocations(RELOCATIONS, Arch::X86_64);
        assert_eq!(slots.len(), 1);
        let scan = scan(&disassembly, &slots);
        // Roots: the ops wrapper, the harness's check (whose own division must be found:
        // library code may be inlined there) and lazykem::kpke::encrypt; reached: keccak::p1600,
        // __udivti3 and, through the GOT, the array map; not followed: the panic; external:
        // memcpy.
        assert_eq!(
            (
                scan.roots,
                scan.reached,
                scan.not_followed,
                scan.external_calls
            ),
            (3, 3, 1, 1)
        );
        let mut found: Vec<(&str, &str)> = scan
            .divisions
            .iter()
            .map(|d| (d.function.as_str(), d.instruction.as_str()))
            .collect();
        found.sort_unstable();
        assert_eq!(
            found,
            [
                ("__udivti3", "divq %rcx"),
                ("core::array::<impl [T; N]>::map", "div %edi"),
                (
                    "ct_harness::check<ct_harness::ops::MlKem768>",
                    "idivl (%rax)"
                ),
                ("lazykem::kpke::encrypt", "div %rdi"),
            ]
        );
        let division = |name: &str| {
            scan.divisions
                .iter()
                .find(|d| d.function == name)
                .expect("division found")
        };
        let chunks = division("lazykem::kpke::encrypt");
        assert_eq!(
            chunks.source_function,
            "core::slice::iter::ChunksExactMut<T>::new"
        );
        assert_eq!(
            chunks.location,
            "/rustc/abc/library/core/src/slice/iter.rs:2029"
        );
        assert!(chunks.is_length_arithmetic());
        assert!(!division("__udivti3").is_length_arithmetic());
        // A listed count of a dependency, and only with its own source.
        let count = |function: &str, source: &str| Division {
            function: function.into(),
            instruction: "div %r8d".into(),
            source_function: source.into(),
            location: String::new(),
        };
        let radix = "curve25519_dalek::scalar::Scalar::as_radix_2w";
        assert!(count(radix, "<usize>::div_ceil").is_length_arithmetic());
        assert!(
            !count(radix, "curve25519_dalek::scalar::Scalar::as_radix_2w").is_length_arithmetic()
        );
        let zip = Division {
            function: concat!(
                "<core::iter::adapters::zip::Zip<A,B> as ",
                "core::iter::adapters::zip::ZipImpl<A,B>>::new"
            )
            .into(),
            instruction: "div %rsi".into(),
            source_function: "<usize>::div_ceil".into(),
            location: String::new(),
        };
        assert!(zip.is_length_arithmetic());
        // Seen at opt-level "s": debug info names the trait method itself as the source of
        // an inlined `ChunksExact` length computation.
        let zip_new = Division {
            source_function: zip.function.clone(),
            location: "/rustc/abc/library/core/src/slice/iter.rs:1905".into(),
            ..zip
        };
        assert!(zip_new.is_length_arithmetic());
        let map = division("core::array::<impl [T; N]>::map");
        assert_eq!(map.source_function, "lazykem::compress::compress");
        assert!(!map.is_length_arithmetic());
        assert_eq!(scan.control.len(), 1);
        assert_eq!(scan.control[0].location, "/w/ct-harness/src/leaky.rs:61");
    }

    const AARCH64_DISASSEMBLY: &str = "\
0000000000001000 <ct_harness::leaky::divide_by_secret>:
ct_harness::leaky::divide_by_secret():
/w/ct-harness/src/leaky.rs:61
    1000:\torr\tw8, w8, #0x1
    1004:\tudiv\tw0, w9, w8
    1008:\tret

0000000000001010 <lazykem::kpke::encrypt>:
    1010:\tcbz\tx1, 1030 <keccak::p1600>
    1014:\ttbnz\tw2, #3, 1040 <__udivti3<A,B>>
    1018:\tadrp\tx8, 2000 <_DYNAMIC+0x10>
    101c:\tldr\tx8, [x8, #16]
    1020:\tblr\tx8
    1024:\tadrp\tx9, 2000 <_DYNAMIC+0x10>
    1028:\tldr\tx9, [x9, #8]
    102c:\tmov\tx9, x0
    1030:\tblr\tx9

0000000000001030 <keccak::p1600>:
    1030:\tb.ne\t1050 <core::panicking::panic>  // b.any
    1034:\tbl\t1060 <memcpy@plt>
    1038:\tret

0000000000001040 <__udivti3<A,B>>:
    1040:\tudiv\tx0, x0, x1
    1044:\tret

0000000000001050 <core::panicking::panic>:
    1050:\tsdiv\tx0, x0, x1

0000000000001060 <memcpy@plt>:
    1060:\tbr\tx17

0000000000001070 <core::array::<impl [T; N]>::map>:
lazykem::compress::compress:
/w/crates/lazykem/src/compress.rs:46
    1070:\tsdiv\tw0, w0, w1
    1074:\tfdiv\td0, d0, d1
    1078:\tret
";

    const AARCH64_RELOCATIONS: &str = "\
0000000000002010 R_AARCH64_RELATIVE  *ABS*+0x0000000000001070
0000000000002008 R_AARCH64_GLOB_DAT  memcpy@GLIBC_2.17
";

    #[test]
    fn scans_aarch64() {
        for m in ["udiv", "sdiv"] {
            assert!(Arch::Aarch64.is_division(m), "{m}");
        }
        for m in ["fdiv", "div", "idiv", "udot"] {
            assert!(!Arch::Aarch64.is_division(m), "{m}");
        }
        let disassembly = parse(AARCH64_DISASSEMBLY, Arch::Aarch64);
        assert_eq!(disassembly.functions.len(), 7);
        let slots = parse_relocations(AARCH64_RELOCATIONS, Arch::Aarch64);
        assert_eq!(slots, HashMap::from([(0x2010, 0x1070)]));
        let scan = scan(&disassembly, &slots);
        // Roots: lazykem::kpke::encrypt; reached: keccak::p1600 (cbz), __udivti3 (tbnz) and,
        // through the GOT slot 0x2010 (adrp + ldr + blr), the array map; the second blr's
        // register was overwritten (`mov`), so it is not followed; not followed: the panic
        // and the PLT stub.
        assert_eq!((scan.roots, scan.reached, scan.not_followed), (1, 3, 2));
        let mut found: Vec<(&str, &str)> = scan
            .divisions
            .iter()
            .map(|d| (d.function.as_str(), d.instruction.as_str()))
            .collect();
        found.sort_unstable();
        assert_eq!(
            found,
            [
                ("__udivti3<A,B>", "udiv x0, x0, x1"),
                ("core::array::<impl [T; N]>::map", "sdiv w0, w0, w1"),
            ]
        );
        assert_eq!(scan.control.len(), 1);
        assert_eq!(scan.control[0].instruction, "udiv w0, w9, w8");
    }
}
