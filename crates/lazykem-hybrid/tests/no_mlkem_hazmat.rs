//! Depending on `lazykem-hybrid` does not give a program `lazykem`'s `hazmat` functions.
//!
//! A compile-fail check without trybuild: a probe crate outside this workspace (so that no
//! other workspace member's features unify into its build) depends on `lazykem-hybrid` with every
//! feature and on `lazykem` with its defaults, and `cargo check` must reject a call of
//! `encapsulate_deterministic` on an ML-KEM key with "no method named" (E0599), while the
//! same program calling `encapsulate` compiles.

use std::path::{Path, PathBuf};
use std::process::Command;

const MAIN_DETERMINISTIC: &str = r"
fn main() {
    let dk = lazykem::ml_kem_768::DecapsulationKey::from_seed(&[1; 64]);
    let _ = dk.encapsulation_key().encapsulate_deterministic(&[2; 32]);
    let _ = lazykem_hybrid::x_wing::DecapsulationKey::from_seed(&[3; 32]).unwrap();
}
";

const MAIN_RANDOM: &str = r"
fn main() {
    let dk = lazykem::ml_kem_768::DecapsulationKey::from_seed(&[1; 64]);
    let mut rng = rand::rng();
    let _ = dk.encapsulation_key().encapsulate(&mut rng);
    let _ = lazykem_hybrid::x_wing::DecapsulationKey::from_seed(&[3; 32]).unwrap().encapsulation_key().encapsulate_deterministic(&[4; 64]).unwrap();
}
";

/// Writes the probe crate with `main_rs` and runs `cargo check` on it: (success, stderr).
fn check_probe(dir: &Path, main_rs: &str) -> (bool, String) {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mlkem = crates.join("lazykem");
    let hybrid = crates.join("lazykem-hybrid");
    let workspace_lock = crates.join("../Cargo.lock");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"hybrid-hazmat-probe\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
         publish = false\n\n[workspace]\n\n[dependencies]\n\
         lazykem-hybrid = {{ path = '{}', features = [\"hazmat\", \"getrandom\", \"kem\"] }}\n\
         lazykem = {{ path = '{}' }}\nrand = \"0.10\"\n",
        hybrid.display(),
        mlkem.display()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join("src/main.rs"), main_rs).unwrap();
    // The workspace's lock file pins the same versions (and lets `--offline` resolve).
    if workspace_lock.exists() {
        std::fs::copy(&workspace_lock, dir.join("Cargo.lock")).unwrap();
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["check", "--quiet", "--offline", "--message-format=short"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET")
        .output()
        .expect("cargo runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_program_depending_on_lazykem_hybrid_cannot_call_mlkem_encapsulate_deterministic() {
    // The probe depends on `lazykem` by its workspace path: skipped only in a packaged copy
    // of this crate (`cargo package` writes `Cargo.toml.orig`), which has no such sibling.
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    if manifest_dir.join("Cargo.toml.orig").is_file()
        && !manifest_dir.join("../lazykem/Cargo.toml").is_file()
    {
        eprintln!("skipped: a packaged build outside the workspace");
        return;
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hybrid-hazmat-probe");
    let (ok, stderr) = check_probe(&dir, MAIN_RANDOM);
    assert!(ok, "the control program must compile:\n{stderr}");
    let (ok, stderr) = check_probe(&dir, MAIN_DETERMINISTIC);
    assert!(
        !ok,
        "encapsulate_deterministic must not be reachable through lazykem-hybrid"
    );
    assert!(
        stderr.contains("E0599") && stderr.contains("encapsulate_deterministic"),
        "fails for the expected reason:\n{stderr}"
    );
    assert_eq!(
        stderr.matches("error[").count(),
        1,
        "only that error:\n{stderr}"
    );
}
