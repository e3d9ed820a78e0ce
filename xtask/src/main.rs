//! Project automation: `cargo xtask <command>` (the alias lives in `.cargo/config.toml`).
//!
//! | command | what it does |
//! |---|---|
//! | `bounds` | machine-checked bounds of every lazy reduction (exhaustive / worst-case) |
//! | `fuzz [TARGET] [--seconds N] [--jobs J]` | cargo-fuzz campaigns with a summary per target |
//! | `ct` | constant-time check under valgrind memcheck with secrets marked undefined |
//! | `dudect` | the statistical timing test alone (the last step of `ct`), each target decided two of three measurements |
//! | `ct-aarch64 [--levels L] [--cpus C]` | aarch64 constant time: division scan and trace equivalence under qemu |
//! | `icount [--cpus C] [--sets S]` | instructions per KEM operation and per function under qemu-aarch64 (a proxy, not time) |
//! | `sct [--levels ...] [--isa ISA]` | the speculative constant-time flag in the machine code of every protected function, x86-64 and aarch64 |
//! | `layering [CRATE ...] [--graph]` | the module dependency graph of a crate (default: `lattice-poly-ntt`); fails on an import circle |
//! | `features [--list]` | clippy of `lazykem`, `lazykem-hybrid`, `lazykem-hpke`, `rustls-lazykem` with every feature set from `cargo metadata` (none, each alone, default, all, the documented combinations), on the host and, for the `no_std` crates, `thumbv7em-none-eabihf` |
//! | `cross [--no-install]` | the library crates on aarch64 (clippy, tests under qemu `max` and `cortex-a72`) and wasm32 (clippy) |
//! | `bench-report` | KEM benchmark table and SVG charts in `target/bench-report/` |

use std::process::{Command, ExitCode};

mod bench_report;
mod bounds;
mod cross;
mod ct;
mod features;
mod fuzz;
mod icount;
mod layering;
mod qemu;
mod sct;

const USAGE: &str = "usage: cargo xtask <bounds | fuzz [TARGET] [--seconds N] [--jobs J] | ct | sct | ct-aarch64 | dudect | icount | layering [CRATE ...] [--graph] | features [--list] | cross | bench-report>";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        return ExitCode::FAILURE;
    };
    let result = match command.as_str() {
        "bounds" => bounds::run(rest),
        "fuzz" => fuzz::run(rest),
        "ct" => ct::run(rest),
        "sct" => sct::run(rest),
        "dudect" => ct::run_dudect(rest),
        "ct-aarch64" => ct::run_aarch64(rest),
        "icount" => icount::run(rest),
        "layering" => layering::run(rest),
        "features" => features::run(rest),
        "cross" => cross::run(rest),
        "bench-report" => bench_report::run(rest),
        _ => Err(format!("unknown command `{command}`\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask {command}: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `command` with inherited output; `Err` names the command line if it cannot start
/// or exits unsuccessfully.
pub(crate) fn run_checked(command: &mut Command) -> Result<(), String> {
    let shown = format!("{command:?}");
    let status = command
        .status()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}
