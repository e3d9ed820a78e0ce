//! `field` layer: each GF(3329) reduction, over 256-element arrays (one polynomial's worth)
//! of realistic inputs, per iteration. Throughput is reported per element.
//!
//! | function | input domain |
//! |---|---|
//! | `barrett_reduce` | lazy accumulator sums of a rank-4 product, `[0, 4 * PRODUCT_TERM_MAX]` |
//! | `reduce_once` | `[0, 2q)`, as left by an unreduced addition |
//! | `mul`, `add`, `sub` | canonical pairs |
//! | `from_signed` | CBD noise, `[-3, 3]` |
#![allow(missing_docs)] // criterion_main! generates an undocumented `main`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use lattice_field::gf3329::{add, barrett_reduce, from_signed, mul, reduce_once, sub};
use lattice_poly_ntt::mlkem::N;
use mlkem_benches::inputs;
use std::hint::black_box;

/// Applies `f` to every element of `input` (read through `black_box`).
#[inline(always)]
fn map<T: Copy, const LEN: usize>(input: &[T; LEN], f: impl Fn(T) -> u16) -> [u16; LEN] {
    let input = black_box(input);
    core::array::from_fn(|i| f(input[i]))
}

/// Applies `f` to every pair of elements of `a` and `b` (read through `black_box`).
#[inline(always)]
fn zip<const LEN: usize>(
    a: &[u16; LEN],
    b: &[u16; LEN],
    f: impl Fn(u16, u16) -> u16,
) -> [u16; LEN] {
    let (a, b) = (black_box(a), black_box(b));
    core::array::from_fn(|i| f(a[i], b[i]))
}

fn field(c: &mut Criterion) {
    let accumulators = inputs::accumulator_values(1);
    let unreduced = inputs::below_two_q(2);
    let a = inputs::canonical(3);
    let b = inputs::canonical(4);
    let noise = inputs::small_signed(5);

    let mut group = c.benchmark_group("field");
    group.throughput(Throughput::Elements(N as u64));
    group.bench_function("barrett_reduce", |bench| {
        bench.iter(|| map(&accumulators, barrett_reduce));
    });
    group.bench_function("reduce_once", |bench| {
        bench.iter(|| map(&unreduced, reduce_once));
    });
    group.bench_function("mul", |bench| bench.iter(|| zip(&a, &b, mul)));
    group.bench_function("add", |bench| bench.iter(|| zip(&a, &b, add)));
    group.bench_function("sub", |bench| bench.iter(|| zip(&a, &b, sub)));
    group.bench_function("from_signed", |bench| {
        bench.iter(|| map(&noise, from_signed));
    });
    group.finish();
}

criterion_group!(benches, field);
criterion_main!(benches);
