//! Runs one kernel N times on the best backend, for instruction counting under qemu with
//! the icount plugin (per op = (count(N = 21) - count(N = 1)) / 20, or the kernel's own
//! symbol with `syms=on`):
//!
//! ```text
//! cargo build --release --target aarch64-unknown-linux-gnu -p lattice-poly-ntt --example kernel_icount
//! qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu max -plugin icount.so,out=c.txt,syms=on \
//!     target/aarch64-unknown-linux-gnu/release/examples/kernel_icount ntt 21
//! ```
//! Kernels: `ntt`, `intt`, `cache`, `dot2`, `dot3`, `dot4`, `add`.

use lattice_poly_ntt::backend::AnyBackend;
use lattice_poly_ntt::dispatch;
use lattice_poly_ntt::mlkem::{CachedNttPoly, Poly, PolyVector};
use std::hint::black_box;

fn poly(seed: u32) -> Poly {
    Poly::from_fn(|i| ((i as u32).wrapping_mul(2_654_435_761) ^ seed) % 3329)
}

fn dot<const K: usize>(backend: AnyBackend, n: usize) -> u16 {
    let a = PolyVector::<K>::new(core::array::from_fn(|j| poly(j as u32)));
    let b = PolyVector::<K>::new(core::array::from_fn(|j| poly(7 + j as u32)));
    dispatch!(backend, |b_| {
        let (a, b) = (a.ntt(b_), b.ntt_cached(b_));
        let mut acc = 0;
        for _ in 0..n {
            acc ^= black_box(&a).dot(b_, black_box(&b)).coeffs()[0];
        }
        acc
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (kernel, n) = (args[1].as_str(), args[2].parse::<usize>().expect("N"));
    let backend = AnyBackend::best();
    let p = poly(1);
    let out = match kernel {
        "ntt" => dispatch!(backend, |b| {
            let mut acc = 0;
            for _ in 0..n {
                acc ^= black_box(&p).ntt(b).coeffs()[0];
            }
            acc
        }),
        "intt" => dispatch!(backend, |b| {
            let f = p.ntt(b);
            let mut acc = 0;
            for _ in 0..n {
                acc ^= black_box(&f).inverse_ntt(b).coeffs()[0];
            }
            acc
        }),
        "cache" => dispatch!(backend, |b| {
            let f = p.ntt(b);
            let mut acc = 0;
            for _ in 0..n {
                acc ^= CachedNttPoly::new(b, black_box(&f)).cache()[0];
            }
            acc
        }),
        "dot2" => dot::<2>(backend, n),
        "dot3" => dot::<3>(backend, n),
        "dot4" => dot::<4>(backend, n),
        "add" => dispatch!(backend, |b| {
            let (mut x, y) = (p.ntt(b), poly(5).ntt(b));
            for _ in 0..n {
                black_box(&mut x).add_assign(b, black_box(&y));
            }
            x.coeffs()[0]
        }),
        _ => panic!("unknown kernel {kernel}"),
    };
    println!("{kernel} x{n} on {}: {out}", backend.kind());
}
