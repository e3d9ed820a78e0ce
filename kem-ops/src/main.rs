//! `kem-ops SET OP N [BACKEND]`: builds a fixture, runs 16 warm-up operations, then `N`
//! operations `OP` of ML-KEM-`SET`, and exits. `cargo xtask icount` runs it under qemu with an
//! instruction-counting plugin for N = 1 and N = 21: the difference divided by 20 is the
//! count of one operation, everything else (process start, loader, fixture, warm-up)
//! cancels, as in a callgrind A/B.
//!
//! - `SET`: 512, 768 or 1024;
//! - `OP`: `keygen` (`DecapsulationKey::from_seed`, KeyGen_internal), `encaps`
//!   (`encapsulate_deterministic` on a parsed key), `decaps` (`decapsulate` on a parsed
//!   key), `encaps-bytes` (`EncapsulationKey::from_bytes` then `encapsulate_deterministic`),
//!   `decaps-bytes` (`Ciphertext::from_bytes` then `DecapsulationKey::decapsulate_expanded`);
//! - `N`: pass it zero-padded (`000021`) so that the initial stack does not move with it;
//! - `BACKEND`: a `BackendKind` name (`portable`, `neon`, ...); default `lazykem::backend()`.
//!
//! Prints the backend; a checksum of the outputs, passed to `black_box`, keeps the optimizer
//! from dropping an operation.

use lazykem::hazmat::{AnyBackend, OnBackend};
use lazykem::{BackendKind, Ciphertext, MlKem512, MlKem768, MlKem1024, ParameterSet};
use std::hint::black_box;
use std::process::ExitCode;

/// Warm-up operations before the counted ones (lazy binding, feature detection).
const WARM_UP: usize = 16;

const USAGE: &str =
    "usage: kem-ops 512|768|1024 keygen|encaps|decaps|encaps-bytes|decaps-bytes N [BACKEND]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("kem-ops: {message}\n{USAGE}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<String, String> {
    let [set, op, n, rest @ ..] = args else {
        return Err("missing arguments".into());
    };
    let count: usize = n.parse().map_err(|e| format!("bad N `{n}`: {e}"))?;
    let backend = match rest {
        [] => AnyBackend::best(),
        [name] => {
            let kind = BackendKind::ALL
                .into_iter()
                .find(|k| k.name() == name)
                .ok_or_else(|| format!("unknown backend `{name}`"))?;
            AnyBackend::of(kind).ok_or_else(|| format!("backend `{name}` not available"))?
        }
        _ => return Err("too many arguments".into()),
    };
    let sum = match set.as_str() {
        "512" => ops::<MlKem512>(backend, op, count)?,
        "768" => ops::<MlKem768>(backend, op, count)?,
        "1024" => ops::<MlKem1024>(backend, op, count)?,
        _ => return Err(format!("unknown set `{set}`")),
    };
    black_box(sum);
    // Only strings of one length for every N: formatting a number costs a count that
    // depends on its digits, which would not cancel between N = 1 and N = 21.
    Ok(format!(
        "kem-ops: ML-KEM-{set} {op} x{n} on {}",
        backend.kind()
    ))
}

/// Deterministic fixture bytes.
fn bytes<const LEN: usize>(label: u8) -> [u8; LEN] {
    let mut state = 0x9e37_79b9_u32 ^ u32::from(label);
    core::array::from_fn(|_| {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        (state >> 24) as u8
    })
}

/// Runs the warm-up and `n` operations; returns a checksum of their outputs.
fn ops<P: ParameterSet>(backend: AnyBackend, op: &str, n: usize) -> Result<u8, String> {
    let seed: [u8; 64] = bytes(1);
    let m: [u8; 32] = bytes(2);
    let on = OnBackend::new(backend);
    let dk = on.decapsulation_key_from_seed::<P>(&seed);
    let ek = dk.encapsulation_key().clone();
    let ek_bytes = ek.as_bytes().as_ref().to_vec();
    let dk_bytes = on.to_expanded_bytes(&dk).as_ref().to_vec();
    let (ct, _) = on.encapsulate_deterministic(&ek, &m);
    let ct_bytes = ct.as_bytes().as_ref().to_vec();
    let once: Box<dyn Fn() -> u8> = match op {
        "keygen" => Box::new(|| {
            let dk = on.decapsulation_key_from_seed::<P>(black_box(&seed));
            dk.encapsulation_key().as_bytes().as_ref()[0]
        }),
        "encaps" => Box::new(|| {
            let (ct, key) = on.encapsulate_deterministic(black_box(&ek), black_box(&m));
            ct.as_bytes().as_ref()[0] ^ key.as_bytes()[0]
        }),
        "decaps" => Box::new(|| on.decapsulate(black_box(&dk), black_box(&ct)).as_bytes()[0]),
        "encaps-bytes" => Box::new(|| {
            on.encapsulation_key_from_bytes::<P>(black_box(&ek_bytes))
                .map_or(0, |ek| {
                    let (ct, key) = on.encapsulate_deterministic(&ek, black_box(&m));
                    ct.as_bytes().as_ref()[0] ^ key.as_bytes()[0]
                })
        }),
        "decaps-bytes" => Box::new(|| {
            Ciphertext::<P>::from_bytes(black_box(&ct_bytes))
                .and_then(|ct| on.decapsulate_expanded(black_box(&dk_bytes), &ct))
                .map_or(0, |key| key.as_bytes()[0])
        }),
        _ => return Err(format!("unknown operation `{op}`")),
    };
    let mut sum = 0u8;
    for _ in 0..WARM_UP + n {
        sum = sum.wrapping_add(black_box(once()));
    }
    Ok(sum)
}
