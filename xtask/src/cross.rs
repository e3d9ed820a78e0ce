//! `cargo xtask cross`: the library crates on the other targets CI checks, from a fresh
//! machine.
//!
//! 1. installs what is missing: the rustup targets `aarch64-unknown-linux-gnu` and
//!    `wasm32-unknown-unknown`, and Debian's `gcc-aarch64-linux-gnu` (the linker),
//!    `libc6-dev-arm64-cross` and `qemu-user` (`apt-get`, as root);
//! 2. `cargo clippy -D warnings` of the library crates for aarch64 (every target: library,
//!    tests, examples) and wasm32 (the libraries; those of [`WASM32_WITHOUT_DEFAULTS`] without
//!    their default features);
//! 3. the library crates' tests for aarch64 (unit, integration with the ACVP, Wycheproof and
//!    CCTV vectors, and doc tests) under `qemu-aarch64 -cpu max`, the runner
//!    `.cargo/config.toml` sets (FEAT_SHA3), then again under `-cpu cortex-a72` (Armv8.0, no
//!    SHA3), through `CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER`: the generic tests run
//!    every backend the guest CPU has (portable and `Neon`), so between the two models every
//!    aarch64 path runs, the SHA3-extension Keccak and the plain-NEON one. The second run
//!    reuses the first one's build: it costs only the tests' time under qemu.
//!
//! `--no-install` skips step 1 (for a machine set up by hand).

use crate::run_checked;
use std::process::Command;

/// The library crates (the workspace's published layers).
const LIBRARIES: [&str; 5] = [
    "lattice-field",
    "lattice-poly-ntt",
    "lattice-sampling",
    "lazykem",
    "lazykem-hybrid",
];

const AARCH64: &str = "aarch64-unknown-linux-gnu";

/// Libraries built for wasm32 without their default features, with the features given: the
/// defaults need what `wasm32-unknown-unknown` lacks. `lazykem-hybrid`'s `graviola` turns on
/// `std`, which turns on `p256/std`, which turns on `getrandom`, which has no wasm32 backend
/// unless the final binary picks one.
const WASM32_WITHOUT_DEFAULTS: [(&str, &str); 1] = [("lazykem-hybrid", "hazmat,kem")];

/// The aarch64 test runner for a CPU model (the one `.cargo/config.toml` sets is `max`).
const RUNNER_CORTEX_A72: &str = "qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu cortex-a72";
const WASM32: &str = "wasm32-unknown-unknown";

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let install = match args {
        [] => true,
        [flag] if flag == "--no-install" => false,
        _ => return Err("usage: cargo xtask cross [--no-install]".into()),
    };
    if install {
        install_tools()?;
    }
    let packages: Vec<String> = LIBRARIES.iter().map(|p| format!("-p{p}")).collect();
    step(&format!("clippy, {AARCH64}, all targets"));
    cargo(
        &["clippy", "--all-targets", "--target", AARCH64],
        &packages,
        true,
    )?;
    step(&format!("clippy, {WASM32}, libraries"));
    let with_defaults: Vec<String> = LIBRARIES
        .iter()
        .filter(|p| !WASM32_WITHOUT_DEFAULTS.iter().any(|(q, _)| q == *p))
        .map(|p| format!("-p{p}"))
        .collect();
    cargo(&["clippy", "--target", WASM32], &with_defaults, true)?;
    for (package, features) in WASM32_WITHOUT_DEFAULTS {
        step(&format!(
            "clippy, {WASM32}, {package} --no-default-features --features {features}"
        ));
        cargo(
            &["clippy", "--target", WASM32, "--no-default-features"],
            &[format!("-p{package}"), format!("--features={features}")],
            true,
        )?;
    }
    step(&format!("tests, {AARCH64}, under qemu-aarch64 -cpu max"));
    cargo(&["test", "--target", AARCH64], &packages, false)?;
    step(&format!(
        "tests, {AARCH64}, under qemu-aarch64 -cpu cortex-a72 (no SHA3)"
    ));
    let mut command = cargo_command(&["test", "--target", AARCH64], &packages, false);
    command.env(
        "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER",
        RUNNER_CORTEX_A72,
    );
    run_checked(&mut command)?;
    Ok(())
}

fn step(what: &str) {
    println!("\n--> cross: {what}");
}

/// Runs `cargo <args> <packages>`, with `-- -D warnings` for clippy.
fn cargo(args: &[&str], packages: &[String], deny_warnings: bool) -> Result<(), String> {
    run_checked(&mut cargo_command(args, packages, deny_warnings))
}

/// `cargo <args> <packages>`, with `-- -D warnings` for clippy.
fn cargo_command(args: &[&str], packages: &[String], deny_warnings: bool) -> Command {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.args(args).args(packages);
    if deny_warnings {
        command.args(["--", "-D", "warnings"]);
    }
    command
}

/// Whether `program` is on the PATH.
fn found(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program} >/dev/null")])
        .status()
        .is_ok_and(|s| s.success())
}

fn install_tools() -> Result<(), String> {
    step("rustup targets");
    run_checked(Command::new("rustup").args(["target", "add", AARCH64, WASM32]))?;
    if found("qemu-aarch64") && found("aarch64-linux-gnu-gcc") {
        return Ok(());
    }
    step("Debian packages: gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user");
    run_checked(Command::new("apt-get").args(["update", "-qq"]))?;
    run_checked(
        Command::new("apt-get")
            .env("DEBIAN_FRONTEND", "noninteractive")
            .args([
                "install",
                "-y",
                "-qq",
                "gcc-aarch64-linux-gnu",
                "libc6-dev-arm64-cross",
                "qemu-user",
            ]),
    )
}
