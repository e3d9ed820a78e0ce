//! The cost of the `self-test` feature of `lazykem` (`cargo bench -p mlkem-benches --features
//! self-test --bench self_test`; ML-KEM-768, the backend the crate
//! selects): the known-answer tests of all three parameter sets (`self_test::rerun`, what
//! the first checked operation of a process pays once), and each checked operation beside
//! the unchecked one. `generate_checked` includes the pairwise-consistency test (one
//! encapsulation and one decapsulation); the other checked operations add one atomic load.
//!
//! Benchmark IDs: `self_test/known_answers`, `self_test/ML-KEM-768/<operation>/<variant>`
//! with variants `plain` and `checked`.
#![allow(missing_docs)] // criterion_main! generates an undocumented `main`

use criterion::{Criterion, criterion_group, criterion_main};
use lazykem::ml_kem_768::DecapsulationKey;
use rand::SeedableRng;
use std::hint::black_box;

fn self_test(c: &mut Criterion) {
    println!("self_test: backend {:?}", lazykem::backend());
    let mut group = c.benchmark_group("self_test");
    group.bench_function("known_answers", |b| {
        b.iter(|| lazykem::self_test::rerun().expect("self-tests pass"));
    });
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    group.bench_function("ML-KEM-768/keygen/plain", |b| {
        b.iter(|| DecapsulationKey::generate(black_box(&mut rng)));
    });
    group.bench_function("ML-KEM-768/keygen/checked", |b| {
        b.iter(|| DecapsulationKey::generate_checked(black_box(&mut rng)).expect("pass"));
    });
    let dk = DecapsulationKey::generate(&mut rng);
    let ek = dk.encapsulation_key();
    group.bench_function("ML-KEM-768/encaps/plain", |b| {
        b.iter(|| ek.encapsulate(black_box(&mut rng)));
    });
    group.bench_function("ML-KEM-768/encaps/checked", |b| {
        b.iter(|| ek.encapsulate_checked(black_box(&mut rng)).expect("pass"));
    });
    let (ct, _) = ek.encapsulate(&mut rng);
    group.bench_function("ML-KEM-768/decaps/plain", |b| {
        b.iter(|| dk.decapsulate(black_box(&ct)));
    });
    group.bench_function("ML-KEM-768/decaps/checked", |b| {
        b.iter(|| dk.decapsulate_checked(black_box(&ct)).expect("pass"));
    });
    group.finish();
}

criterion_group!(benches, self_test);
criterion_main!(benches);
