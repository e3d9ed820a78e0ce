//! Measures the peak stack of each operation: `cargo run --release -p lazykem --example
//! stack_usage`.
//!
//! Each operation runs on a fresh thread with a given stack size, in a child process (a
//! stack overflow aborts it); a binary search finds the smallest size, in pages, that
//! suffices. The figure is that size minus the same search for a thread that does nothing
//! but start, rounded to pages: the stack the operation itself needs, to within a page.
//! The default release profile; the AVX-512, AVX2 or portable backend, whichever the CPU
//! has.

use std::hint::black_box;
use std::process::Command;

const PAGE: usize = 4096;
const OPS: [&str; 6] = [
    "nothing",
    "keygen",
    "encaps",
    "encaps_from_bytes",
    "decaps",
    "decaps_from_bytes",
];

/// A counter standing in for an RNG, so the measurement is of the operation and not of an
/// RNG's set-up (not random: for this measurement only).
struct Counter(u8);

impl rand::TryRng for Counter {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        self.0 = self.0.wrapping_add(1);
        Ok(u32::from(self.0))
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.0 = self.0.wrapping_add(1);
        Ok(u64::from(self.0))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for b in dst {
            self.0 = self.0.wrapping_add(1);
            *b = self.0;
        }
        Ok(())
    }
}

impl rand::TryCryptoRng for Counter {}

macro_rules! run_op {
    ($set:ident, $op:expr) => {{
        use lazykem::$set::{DecapsulationKey, EncapsulationKey};
        // Inputs built on the main thread: only the operation runs on the small stack.
        let dk = Box::new(DecapsulationKey::from_seed(&[7u8; 64]));
        let (ct, _) = dk.encapsulation_key().encapsulate(&mut Counter(0));
        let ct = Box::new(ct);
        let ek_bytes = dk.encapsulation_key().as_bytes().to_vec();
        let dk_bytes = dk.to_expanded_bytes().to_vec();
        move || match $op.as_str() {
            "nothing" => {}
            "keygen" => drop(black_box(DecapsulationKey::generate(&mut Counter(0)))),
            "encaps" => drop(black_box(
                dk.encapsulation_key().encapsulate(&mut Counter(0)),
            )),
            "encaps_from_bytes" => drop(black_box(
                EncapsulationKey::from_bytes(&ek_bytes)
                    .expect("own key")
                    .encapsulate(&mut Counter(0)),
            )),
            "decaps" => drop(black_box(dk.decapsulate(&ct))),
            "decaps_from_bytes" => drop(black_box(
                DecapsulationKey::decapsulate_expanded(&dk_bytes, &ct).expect("own key"),
            )),
            other => panic!("unknown operation {other}"),
        }
    }};
}

/// Child mode: runs `op` of `set` on a thread with `size` bytes of stack.
fn probe(set: &str, op: &str, size: usize) {
    let op = op.to_owned();
    let run: Box<dyn FnOnce() + Send> = match set {
        "512" => Box::new(run_op!(ml_kem_512, op)),
        "768" => Box::new(run_op!(ml_kem_768, op)),
        _ => Box::new(run_op!(ml_kem_1024, op)),
    };
    std::thread::Builder::new()
        .stack_size(size)
        .spawn(run)
        .expect("spawn")
        .join()
        .expect("join");
}

/// Whether `op` of `set` completes with `size` bytes of stack (in a child process).
fn fits(exe: &std::path::Path, set: &str, op: &str, size: usize) -> bool {
    Command::new(exe)
        .args(["--probe", set, op, &size.to_string()])
        .stderr(std::process::Stdio::null())
        .status()
        .expect("run child")
        .success()
}

/// The smallest stack, in whole pages, on which `op` of `set` completes.
fn smallest(exe: &std::path::Path, set: &str, op: &str) -> usize {
    let (mut lo, mut hi) = (1, 1024); // pages: lo fails (or is the minimum), hi fits
    assert!(fits(exe, set, op, hi * PAGE), "{op} needs more than 4 MiB");
    while hi - lo > 1 {
        let mid = usize::midpoint(lo, hi);
        if fits(exe, set, op, mid * PAGE) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi * PAGE
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--probe") {
        probe(&args[2], &args[3], args[4].parse().expect("size"));
        return;
    }
    let exe = std::env::current_exe().expect("own path");
    println!(
        "peak stack per operation (KiB, to within a page; backend {})",
        lazykem::backend()
    );
    println!("| set | {} |", OPS[1..].join(" | "));
    println!("|---|{}", "---:|".repeat(OPS.len() - 1));
    for set in ["512", "768", "1024"] {
        let base = smallest(&exe, set, "nothing");
        let row: Vec<String> = OPS[1..]
            .iter()
            .map(|op| ((smallest(&exe, set, op) - base) / 1024).to_string())
            .collect();
        println!("| ML-KEM-{set} | {} |", row.join(" | "));
    }
}
