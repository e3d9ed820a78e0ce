//! Runs one sampling operation `N` times on one backend, for instruction counts under qemu
//! (`qemu-aarch64 -plugin icount.so`): the operation's count is `(count(N = 21) - count(N =
//! 1)) / 20`, everything else cancelling.
//!
//! `cargo run --release --example icount -- BACKEND OP N` with `BACKEND` one of `portable`,
//! `avx2`, `avx512`, `neon` and `OP` one of `matrix2`, `matrix3`, `matrix4` (A-hat),
//! `noise3-eta2` (three CBD_2 polynomials, ML-KEM-768's s or e), `noise2-eta3` (ML-KEM-512's
//! s), `h1184` (SHA3-256 of an ML-KEM-768 encapsulation key), `f1600` (one permutation).

use std::hint::black_box;

use lattice_poly_ntt::backend::{AnyBackend, BackendKind};
use lattice_poly_ntt::dispatch;
use lattice_sampling::keccak::{f1600, sha3_256};
use lattice_sampling::{Eta, sample_matrix, sample_noise_vector};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, backend, op, n] = &args[..] else {
        eprintln!("usage: icount BACKEND OP N");
        std::process::exit(2);
    };
    let kind = BackendKind::ALL
        .into_iter()
        .find(|k| k.name() == backend)
        .expect("a backend name");
    let any = AnyBackend::of(kind).expect("a backend this CPU has");
    let n: usize = n.parse().expect("a count");
    let rho = [0x42u8; 32];
    let ek = [0x17u8; 1184];
    let mut state = [7u64; 25];
    dispatch!(any, |b| {
        for i in 0..n {
            let mut seed = rho;
            seed[0] = i as u8;
            match op.as_str() {
                "matrix2" => {
                    black_box(sample_matrix::<2>(b, &seed));
                }
                "matrix3" => {
                    black_box(sample_matrix::<3>(b, &seed));
                }
                "matrix4" => {
                    black_box(sample_matrix::<4>(b, &seed));
                }
                "noise3-eta2" => {
                    black_box(sample_noise_vector::<3>(b, &seed, Eta::Two, 0));
                }
                "noise2-eta3" => {
                    black_box(sample_noise_vector::<2>(b, &seed, Eta::Three, 0));
                }
                "h1184" => {
                    black_box(sha3_256(b, &[black_box(&ek[..])]));
                }
                "f1600" => f1600(b, black_box(&mut state)),
                _ => panic!("unknown operation {op}"),
            }
        }
    });
    black_box(state);
}
