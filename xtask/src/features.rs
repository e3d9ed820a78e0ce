//! `cargo xtask features [--list]`: the user crates built with every feature set that
//! matters, so a feature that only compiles beside another one fails here.
//!
//! The matrix is computed from `cargo metadata`, so a feature added to a crate is covered
//! without touching this file. For each crate of [`CRATES`]:
//!
//! - no features (`--no-default-features`), each feature alone, the default features, and
//!   `--all-features`;
//! - every combination the crate's `lib.rs` documents: a row of a doc table whose first
//!   cell is only backticked names joined by ` + ` (``| `pem` + `encryption` | ...``). A
//!   name there that is not a feature of the crate fails the command (the docs drifted);
//! - sets that enable the same features (after following feature-to-feature implications,
//!   e.g. `pem` turns on `pkcs8`) are built once.
//!
//! Each set is linted with `cargo clippy -p CRATE --lib ... -- -D warnings` for the host
//! (the library target only: the tests and examples build in the other steps), and for the
//! `no_std` crates ([`NO_STD`]) also for [`EMBEDDED`], a target without an operating
//! system, with every set that turns on no feature of [`NEEDS_OS`] (directly or through
//! another feature, as `lazykem-hybrid`'s default `graviola` turns on `std`), plus all the
//! features that turn on none of them. Every build shares the workspace's target directory. The embedded target is
//! installed with rustup when missing.
//!
//! `--list` prints the matrix without building it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The crates users depend on.
const CRATES: [&str; 4] = [
    "lazykem",
    "lazykem-hybrid",
    "lazykem-hpke",
    "rustls-lazykem",
];

/// The crates that are `#![no_std]`, built for [`EMBEDDED`] too (`rustls-lazykem` needs
/// `std`; `lazykem-hybrid` is `no_std` without its default features).
const NO_STD: [&str; 3] = ["lazykem", "lazykem-hybrid", "lazykem-hpke"];

/// A target without an operating system (Cortex-M4F), with atomics.
const EMBEDDED: &str = "thumbv7em-none-eabihf";

/// Features that need an operating system, never built for [`EMBEDDED`], with the reason
/// (each was tried: the build fails there).
const NEEDS_OS: [(&str, &str); 3] = [
    (
        "getrandom",
        "getrandom 0.4 has no entropy source for a target without an OS unless the final \
         binary selects a custom backend",
    ),
    (
        "graviola",
        "lazykem-hybrid's graviola feature links std (and graviola is an x86_64 / aarch64 \
         dependency)",
    ),
    (
        "std",
        "the standard library, which a target without an OS does not have",
    ),
];

/// One crate's features, from `cargo metadata`.
struct Package {
    name: String,
    /// Feature name to what it enables (`dep:x`, `x/y`, `x?/y` or another feature).
    features: BTreeMap<String, Vec<String>>,
    /// The library's root source file.
    lib_path: String,
}

/// How a build selects its features.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Selection {
    /// `--no-default-features`.
    NoDefault,
    /// `--no-default-features --features ...`.
    Only(Vec<String>),
    /// No feature flag.
    Default,
    /// `--all-features`.
    All,
}

impl Selection {
    fn cargo_args(&self) -> Vec<String> {
        match self {
            Self::NoDefault => vec!["--no-default-features".into()],
            Self::Only(features) => vec![
                "--no-default-features".into(),
                "--features".into(),
                features.join(","),
            ],
            Self::Default => Vec::new(),
            Self::All => vec!["--all-features".into()],
        }
    }

    fn describe(&self) -> String {
        match self {
            Self::NoDefault => "--no-default-features".into(),
            Self::Only(features) => {
                format!("--no-default-features --features {}", features.join(","))
            }
            Self::Default => "(default features)".into(),
            Self::All => "--all-features".into(),
        }
    }
}

/// One build of the matrix.
struct Build {
    package: String,
    /// `None`: the host.
    target: Option<&'static str>,
    selection: Selection,
    /// Why it is in the matrix (every reason, when several sets enable the same features).
    why: String,
}

impl Build {
    fn target_name(&self) -> String {
        self.target
            .map_or_else(|| format!("{} (host)", host_triple()), str::to_owned)
    }
}

/// `cargo xtask features [--list]`.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let list_only = match args {
        [] => false,
        [flag] if flag == "--list" => true,
        _ => return Err("usage: cargo xtask features [--list]".into()),
    };
    let start = Instant::now();
    let packages = metadata()?;
    let mut builds = Vec::new();
    for name in CRATES {
        let package = packages
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| format!("`cargo metadata` lists no package `{name}`"))?;
        builds.extend(matrix(package)?);
    }
    let host_count = builds.iter().filter(|b| b.target.is_none()).count();
    println!(
        "features: {} builds ({host_count} for the host, {} for {EMBEDDED}); not on {EMBEDDED}: {}",
        builds.len(),
        builds.len() - host_count,
        NEEDS_OS
            .iter()
            .map(|(f, why)| format!("`{f}` ({why})"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if list_only {
        for build in &builds {
            println!(
                "  {:<15} {:<38} {:<55} {}",
                build.package,
                build.target_name(),
                build.selection.describe(),
                build.why
            );
        }
        return Ok(());
    }
    if builds.iter().any(|b| b.target == Some(EMBEDDED)) {
        ensure_target(EMBEDDED)?;
    }
    let mut failures = Vec::new();
    for (i, build) in builds.iter().enumerate() {
        let started = Instant::now();
        let result = clippy(build);
        let seconds = started.elapsed().as_secs_f64();
        let status = if result.is_ok() { "ok  " } else { "FAIL" };
        println!(
            "[{:>2}/{}] {status} {:>5.1}s  {:<15} {:<38} {}  ({})",
            i + 1,
            builds.len(),
            seconds,
            build.package,
            build.target_name(),
            build.selection.describe(),
            build.why
        );
        if let Err(output) = result {
            println!("{output}");
            failures.push(format!(
                "{} on {} with {}",
                build.package,
                build.target_name(),
                build.selection.describe()
            ));
        }
    }
    println!(
        "\nfeatures: {} builds, {} failed, {:.1}s",
        builds.len(),
        failures.len(),
        start.elapsed().as_secs_f64()
    );
    if failures.is_empty() {
        println!("features: PASS");
        Ok(())
    } else {
        Err(format!("failed builds:\n  {}", failures.join("\n  ")))
    }
}

/// The builds of one crate, without duplicates.
fn matrix(package: &Package) -> Result<Vec<Build>, String> {
    let features: Vec<String> = package
        .features
        .keys()
        .filter(|f| *f != "default")
        .cloned()
        .collect();
    let mut sets: Vec<(Selection, &'static str)> = vec![(Selection::NoDefault, "no features")];
    for feature in &features {
        sets.push((Selection::Only(vec![feature.clone()]), "one feature"));
    }
    sets.push((Selection::Default, "the defaults"));
    sets.push((Selection::All, "every feature"));
    for combination in documented_combinations(package)? {
        sets.push((Selection::Only(combination), "documented combination"));
    }

    let mut builds = Vec::new();
    let mut seen = BTreeMap::new();
    let no_std = NO_STD.contains(&package.name.as_str());
    for target in [None, Some(EMBEDDED)] {
        if target.is_some() && !no_std {
            continue;
        }
        let mut target_sets = sets.clone();
        if target.is_some() {
            let without_os = features_without_os(package, &features);
            target_sets.push((Selection::Only(without_os), "every feature without an OS"));
        }
        for (selection, why) in target_sets {
            let enabled = enabled(package, &selection);
            if target.is_some() && enabled.iter().any(|f| needs_os(f)) {
                continue;
            }
            if let Some(&index) = seen.get(&(target, enabled.clone())) {
                let build: &mut Build = &mut builds[index];
                build.why = format!("{}, {why}", build.why);
            } else {
                seen.insert((target, enabled), builds.len());
                builds.push(Build {
                    package: package.name.clone(),
                    target,
                    selection,
                    why: why.to_owned(),
                });
            }
        }
    }
    Ok(builds)
}

fn needs_os(feature: &str) -> bool {
    NEEDS_OS.iter().any(|(f, _)| *f == feature)
}

/// The features that turn on no feature of [`NEEDS_OS`], directly or through others.
fn features_without_os(package: &Package, features: &[String]) -> Vec<String> {
    features
        .iter()
        .filter(|f| {
            !enabled(package, &Selection::Only(vec![(*f).clone()]))
                .iter()
                .any(|g| needs_os(g))
        })
        .cloned()
        .collect()
}

/// The features a selection turns on, following feature-to-feature implications (entries
/// without `:` or `/`); `default` itself is not counted.
fn enabled(package: &Package, selection: &Selection) -> BTreeSet<String> {
    let mut pending: Vec<String> = match selection {
        Selection::NoDefault => Vec::new(),
        Selection::Only(features) => features.clone(),
        Selection::Default => package.features.get("default").cloned().unwrap_or_default(),
        Selection::All => package.features.keys().cloned().collect(),
    };
    let mut on = BTreeSet::new();
    while let Some(feature) = pending.pop() {
        if feature.contains(':') || feature.contains('/') || !on.insert(feature.clone()) {
            continue;
        }
        pending.extend(package.features.get(&feature).cloned().unwrap_or_default());
    }
    on.remove("default");
    on
}

/// The combinations a crate's `lib.rs` documents: doc-table rows whose first cell is
/// backticked names joined by ` + `.
fn documented_combinations(package: &Package) -> Result<Vec<Vec<String>>, String> {
    let source = std::fs::read_to_string(&package.lib_path)
        .map_err(|e| format!("cannot read {}: {e}", package.lib_path))?;
    let mut combinations = Vec::new();
    for line in source.lines() {
        let Some(cell) = line
            .trim_start()
            .strip_prefix("//! |")
            .and_then(|rest| rest.split('|').next())
        else {
            continue;
        };
        let Some(names) = combination_cell(cell.trim()) else {
            continue;
        };
        if let Some(unknown) = names.iter().find(|n| !package.features.contains_key(*n)) {
            return Err(format!(
                "{}: the documented combination `{}` names `{unknown}`, which is not a feature of {}",
                package.lib_path,
                cell.trim(),
                package.name
            ));
        }
        combinations.push(names);
    }
    Ok(combinations)
}

/// ``"`a` + `b`"`` as `["a", "b"]`; `None` for any other cell (a single name, prose).
fn combination_cell(cell: &str) -> Option<Vec<String>> {
    let parts: Vec<&str> = cell.split(" + ").collect();
    if parts.len() < 2 {
        return None;
    }
    parts
        .iter()
        .map(|part| {
            let name = part.strip_prefix('`')?.strip_suffix('`')?;
            let valid = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            valid.then(|| name.to_owned())
        })
        .collect()
}

/// The workspace's packages, from `cargo metadata --no-deps`.
fn metadata() -> Result<Vec<Package>, String> {
    let output = cargo()
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let json: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("cannot parse cargo metadata: {e}"))?;
    let packages = json["packages"]
        .as_array()
        .ok_or("cargo metadata: no `packages`")?;
    Ok(packages
        .iter()
        .filter_map(|p| {
            let name = p["name"].as_str()?.to_owned();
            let features = p["features"]
                .as_object()?
                .iter()
                .map(|(k, v)| {
                    let enables = v
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|s| s.as_str().map(str::to_owned))
                                .collect()
                        })
                        .unwrap_or_default();
                    (k.clone(), enables)
                })
                .collect();
            let lib_path = p["targets"].as_array()?.iter().find(|t| {
                t["kind"]
                    .as_array()
                    .is_some_and(|k| k.iter().any(|k| k == "lib"))
            })?["src_path"]
                .as_str()?
                .to_owned();
            Some(Package {
                name,
                features,
                lib_path,
            })
        })
        .collect())
}

/// Lints one build; `Err` holds cargo's output.
fn clippy(build: &Build) -> Result<(), String> {
    let mut command = cargo();
    command.args(["clippy", "--quiet", "-p", &build.package, "--lib"]);
    if let Some(target) = build.target {
        command.args(["--target", target]);
    }
    command
        .args(build.selection.cargo_args())
        .args(["--", "-D", "warnings"]);
    let output = command
        .output()
        .map_err(|e| format!("cannot run cargo clippy: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Installs a rustup target when it is missing.
fn ensure_target(target: &str) -> Result<(), String> {
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map_err(|e| format!("cannot run rustup: {e}"))?;
    if String::from_utf8_lossy(&installed.stdout)
        .lines()
        .any(|l| l.trim() == target)
    {
        return Ok(());
    }
    println!("features: installing the rustup target {target}");
    crate::run_checked(Command::new("rustup").args(["target", "add", target]))
}

fn cargo() -> Command {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.current_dir(workspace_root());
    command
}

fn host_triple() -> &'static str {
    if cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        "x86_64-unknown-linux-gnu"
    } else {
        std::env::consts::ARCH
    }
}

fn workspace_root() -> &'static Path {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package() -> Package {
        let features = [
            ("default", vec!["a"]),
            ("a", vec!["dep:x"]),
            ("b", vec!["a", "x?/y"]),
            ("c", vec![]),
            ("std", vec![]),
            ("d", vec!["std", "dep:z"]),
            ("e", vec!["d"]),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.into_iter().map(str::to_owned).collect()))
        .collect();
        Package {
            name: "p".into(),
            features,
            lib_path: String::new(),
        }
    }

    #[test]
    fn a_documented_combination_is_backticked_names_joined_by_plus() {
        assert_eq!(
            combination_cell("`pem` + `encryption`"),
            Some(vec!["pem".to_owned(), "encryption".to_owned()])
        );
        assert_eq!(combination_cell("`getrandom`"), None);
        assert_eq!(
            combination_cell("`no_std` + `alloc` (any of `pkcs8`)"),
            None
        );
        assert_eq!(combination_cell("no feature"), None);
    }

    #[test]
    fn implied_features_are_followed() {
        let p = package();
        let names = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>();
        assert_eq!(names(&enabled(&p, &Selection::Default)), ["a"]);
        assert_eq!(
            names(&enabled(&p, &Selection::Only(vec!["b".into()]))),
            ["a", "b"]
        );
        assert_eq!(
            names(&enabled(&p, &Selection::All)),
            ["a", "b", "c", "d", "e", "std"]
        );
        assert!(enabled(&p, &Selection::NoDefault).is_empty());
    }

    #[test]
    fn a_feature_that_turns_on_std_is_not_built_without_an_os() {
        let p = package();
        let features: Vec<String> = ["a", "b", "c", "d", "e", "std"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        assert_eq!(features_without_os(&p, &features), ["a", "b", "c"]);
    }
}
