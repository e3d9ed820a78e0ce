//! What the aarch64 commands share: release builds for `aarch64-unknown-linux-gnu`, the
//! QEMU TCG plugins of `xtask/plugins/` (compiled with the host `cc` into
//! `target/qemu-plugins/`; `target` is `CARGO_TARGET_DIR` when set), and runs under `qemu-aarch64` (user mode) with one of them.
//!
//! The plugins declare the few calls of QEMU's plugin API (version 1, QEMU 7.2) they use
//! themselves: Debian installs no `qemu-plugin.h`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The Rust target.
pub(crate) const AARCH64: &str = "aarch64-unknown-linux-gnu";

/// The CPU models the checks run on: `max` (FEAT_SHA3, SVE) and `cortex-a72` (Armv8.0, no
/// SHA3), so both Keccak paths of the aarch64 backend run.
pub(crate) const CPUS: [&str; 2] = ["max", "cortex-a72"];

/// Parses `--cpu a,b` / `--cpus a,b` values (repeatable) into CPU models.
pub(crate) fn parse_cpus(list: &str, cpus: &mut Vec<String>) {
    cpus.extend(list.split(',').filter(|c| !c.is_empty()).map(str::to_owned));
}

/// The workspace root (xtask lives in `<root>/xtask`).
pub(crate) fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}

/// Where the aarch64 commands build: `CARGO_TARGET_DIR` when set, else `<root>/target`.
pub(crate) fn target_base(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

/// Compiles `xtask/plugins/<name>.c` into `<target>/qemu-plugins/<name>.so` (every time: a
/// second or less) and returns the shared object.
pub(crate) fn build_plugin(root: &Path, name: &str) -> Result<PathBuf, String> {
    let source = root.join("xtask/plugins").join(format!("{name}.c"));
    let dir = target_base(root).join("qemu-plugins");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let object = dir.join(format!("{name}.so"));
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let output = Command::new(&cc)
        .args(["-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-o"])
        .arg(&object)
        .arg(&source)
        .output()
        .map_err(|e| format!("cannot run {cc}: {e}"))?;
    if output.status.success() {
        Ok(object)
    } else {
        Err(format!(
            "building the QEMU plugin {} failed: {}",
            source.display(),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// The Cargo profile of a build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Profile {
    /// `--release`, into `release/`.
    Release,
    /// The dev profile (opt-level 0, the tests' code generation), into `debug/`.
    Dev,
}

/// `cargo build --release --target aarch64-unknown-linux-gnu -p <package>` into
/// `target_dir`, with `env` set; returns `target_dir/aarch64-unknown-linux-gnu/release/<bin>`.
pub(crate) fn build_aarch64(
    root: &Path,
    package: &str,
    bin: &str,
    target_dir: &Path,
    env: &[(&str, Option<&str>)],
) -> Result<PathBuf, String> {
    build_aarch64_profile(root, package, bin, target_dir, Profile::Release, env)
}

/// [`build_aarch64`] in `profile`; returns `target_dir/aarch64-unknown-linux-gnu/<release or
/// debug>/<bin>`.
pub(crate) fn build_aarch64_profile(
    root: &Path,
    package: &str,
    bin: &str,
    target_dir: &Path,
    profile: Profile,
    env: &[(&str, Option<&str>)],
) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command.current_dir(root).arg("build");
    if profile == Profile::Release {
        command.arg("--release");
    }
    command
        .args(["--quiet", "--target", AARCH64, "-p"])
        .arg(package)
        .arg("--target-dir")
        .arg(target_dir);
    for (key, value) in env {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    let status = command
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!(
            "building {package} for {AARCH64} failed ({status})"
        ));
    }
    let dir = match profile {
        Profile::Release => "release",
        Profile::Dev => "debug",
    };
    Ok(target_dir.join(AARCH64).join(dir).join(bin))
}

/// Runs `binary args` under `qemu-aarch64 -cpu <cpu>` with `plugin` (its options appended
/// after a comma), with an empty environment (the initial stack does not depend on the
/// caller's), and returns its output; fails if it fails.
pub(crate) fn run(
    cpu: &str,
    plugin: &Path,
    options: &str,
    binary: &Path,
    args: &[&str],
) -> Result<Output, String> {
    let output = Command::new("qemu-aarch64")
        .env_clear()
        .args(["-L", "/usr/aarch64-linux-gnu", "-cpu", cpu, "-plugin"])
        .arg(format!("{},{options}", plugin.display()))
        .arg(binary)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run qemu-aarch64: {e}"))?;
    if output.status.success() {
        Ok(output)
    } else {
        Err(format!(
            "qemu-aarch64 -cpu {cpu} {} {} failed ({}): {}",
            binary.display(),
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}
