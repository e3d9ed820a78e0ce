//! `sampling` layer: SampleNTT (one polynomial), CBD for eta = 2 and 3 (from PRF bytes, and
//! with the PRF: `sample_noise_poly`), and whole-matrix generation for k = 2, 3, 4.
//!
//! IDs: `sampling/f1600/<mode>` (one Keccak-f\[1600\] on one state),
//! `sampling/sample_ntt/<mode>`, `sampling/cbd/<mode>/{2,3}`,
//! `sampling/noise_poly/<mode>/{2,3}`, `sampling/sample_matrix/<mode>/{2,3,4}`, where
//! `<mode>` is `portable` (the `Portable` token) and, on CPUs with AVX2, `avx2` (the `Avx2`
//! token, which the KEM uses there: multi-way Keccak where the crate has it) and, on CPUs
//! with AVX-512F/VL/BW, `avx512` (4- and 8-way AVX-512 Keccak, and VBMI2's compress-based
//! candidate parser where the CPU has VBMI2).
//! SampleNTT's cost depends on how many candidates its seed rejects, so `sample_ntt` cycles
//! through 64 seeds (matrix generation averages over its k^2 entries by itself).
#![allow(missing_docs)] // criterion_main! generates an undocumented `main`

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main};
use lattice_poly_ntt::backend::Portable;
use lattice_sampling::{
    CBD2_INPUT_BYTES, CBD3_INPUT_BYTES, Eta, SAMPLE_NTT_SEED_BYTES, SamplingBackend, sample_matrix,
    sample_noise_poly, sample_ntt, sample_poly_cbd2, sample_poly_cbd3,
};
use mlkem_benches::inputs;
use std::hint::black_box;

/// Every sampling function with the backend token `token` (`mode` labels it). The CBDs take
/// no token (they are scalar code); they are measured under both labels, as before.
fn functions<B: SamplingBackend>(group: &mut BenchmarkGroup<'_, WallTime>, token: B, mode: &str) {
    let seeds: Vec<[u8; SAMPLE_NTT_SEED_BYTES]> = (0..64).map(inputs::bytes).collect();
    let cbd2_bytes = inputs::bytes::<CBD2_INPUT_BYTES>(100);
    let cbd3_bytes = inputs::bytes::<CBD3_INPUT_BYTES>(101);
    let sigma = inputs::bytes::<32>(102);
    let rho = inputs::bytes::<32>(103);

    group.bench_function(format!("f1600/{mode}"), |b| {
        let mut state = [0u64; 25];
        b.iter(|| lattice_sampling::keccak::f1600(token, black_box(&mut state)));
    });
    group.bench_function(format!("sample_ntt/{mode}"), |b| {
        let mut next = 0usize;
        b.iter(|| {
            next = (next + 1) % seeds.len();
            sample_ntt(token, black_box(&seeds[next]))
        });
    });
    group.bench_function(BenchmarkId::new(format!("cbd/{mode}"), 2), |b| {
        b.iter(|| sample_poly_cbd2(black_box(&cbd2_bytes)));
    });
    group.bench_function(BenchmarkId::new(format!("cbd/{mode}"), 3), |b| {
        b.iter(|| sample_poly_cbd3(black_box(&cbd3_bytes)));
    });
    group.bench_function(BenchmarkId::new(format!("noise_poly/{mode}"), 2), |b| {
        b.iter(|| sample_noise_poly(token, black_box(&sigma), Eta::Two, black_box(7)));
    });
    group.bench_function(BenchmarkId::new(format!("noise_poly/{mode}"), 3), |b| {
        b.iter(|| sample_noise_poly(token, black_box(&sigma), Eta::Three, black_box(7)));
    });
    let matrix = format!("sample_matrix/{mode}");
    group.bench_function(BenchmarkId::new(&matrix, 2), |b| {
        b.iter(|| sample_matrix::<2>(token, black_box(&rho)));
    });
    group.bench_function(BenchmarkId::new(&matrix, 3), |b| {
        b.iter(|| sample_matrix::<3>(token, black_box(&rho)));
    });
    group.bench_function(BenchmarkId::new(&matrix, 4), |b| {
        b.iter(|| sample_matrix::<4>(token, black_box(&rho)));
    });
}

/// The functions on `token` after checking that its matrix is the portable one.
fn checked_functions<B: SamplingBackend>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    token: B,
    mode: &str,
) {
    let rho = inputs::bytes::<32>(103);
    assert_eq!(
        sample_matrix::<3>(token, &rho),
        sample_matrix::<3>(Portable, &rho),
        "{mode} and portable matrices differ"
    );
    functions(group, token, mode);
}

fn sampling(c: &mut Criterion) {
    let mut group = c.benchmark_group("sampling");
    functions(&mut group, Portable, "portable");
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = lattice_poly_ntt::backend::Avx2::detect() {
        checked_functions(&mut group, avx2, "avx2");
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(avx512) = lattice_poly_ntt::backend::Avx512::detect() {
        checked_functions(&mut group, avx512, "avx512");
    }
    group.finish();
}

criterion_group!(benches, sampling);
criterion_main!(benches);
