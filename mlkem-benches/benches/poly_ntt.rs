//! `poly-ntt` layer: NTT and inverse NTT, the base-case product (lazy with the `b*zeta` cache
//! vs eager, reducing every product), the rank-K matrix-vector product for K = 2, 3, 4 (ours,
//! lazy: `Matrix::mul_vector` with a `CachedNttVector`; eager: `multiply_ntts_eager` and a
//! modular addition per term, as before the lazy-accumulation technique), and building the
//! `b*zeta` cache (`NttVector::cached`).
//!
//! Every backend-generic operation is measured with the portable backend and, on CPUs with
//! AVX2, with the AVX2 backend (`avx2`) and, on CPUs with AVX-512F/VL/BW, with the AVX-512
//! one (`avx512`). IDs:
//!
//! | ID | what |
//! |---|---|
//! | `poly-ntt/ntt/<backend>`, `poly-ntt/inverse_ntt/<backend>` | one polynomial |
//! | `poly-ntt/basemul/lazy/<backend>` | `multiply_ntts` (one accumulator, cached `b*zeta`) |
//! | `poly-ntt/basemul/eager` | `multiply_ntts_eager` (scalar, every product reduced) |
//! | `poly-ntt/matvec/lazy/<backend>/K` | `Matrix::mul_vector` with a prebuilt `CachedNttVector` |
//! | `poly-ntt/matvec/lazy_with_cache/<backend>/K` | the same, building the cache first |
//! | `poly-ntt/matvec/eager/K` | `multiply_ntts_eager` + `add_assign` per term |
//! | `poly-ntt/cache/<backend>/K` | `NttVector::cached` (the `b*zeta` cache of K polynomials) |
//!
//! `lazy_with_cache` charges the whole cache to one product; real callers build it once and
//! reuse it (in encryption `A^T r` and `t^T r` share it).
#![allow(missing_docs)] // criterion_main! generates an undocumented `main`

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main};
use lattice_poly_ntt::mlkem::MlKem;
use lattice_poly_ntt::mlkem::{CachedNttPoly, multiply_ntts_eager};
use lattice_poly_ntt::mlkem::{Matrix, NttVector, multiply_ntts};
use lattice_poly_ntt::{Backend, Portable};
use mlkem_benches::inputs;
use std::hint::black_box;

/// The matrix-vector product without lazy reduction or cache: every base-case product is
/// reduced (`multiply_ntts_eager`) and every sum is a modular addition.
fn mul_vector_eager<const K: usize>(matrix: &Matrix<K>, v: &NttVector<K>) -> NttVector<K> {
    NttVector::new(core::array::from_fn(|i| {
        let mut sum = multiply_ntts_eager(&matrix.rows[i][0], &v.0[0]);
        for j in 1..K {
            sum.add_assign(Portable, &multiply_ntts_eager(&matrix.rows[i][j], &v.0[j]));
        }
        sum
    }))
}

/// Matrix-vector products and cache construction of rank `K` with the backend token `token`.
fn rank<B: Backend<MlKem>, const K: usize>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    token: B,
    backend: &str,
) {
    let matrix = inputs::matrix::<K>(10 + K as u64);
    let vector = inputs::ntt_vector::<K>(20 + K as u64);
    let cached = vector.cached(token);
    // Sanity: the lazy product agrees with the eager one before either is measured.
    assert_eq!(
        matrix.mul_vector(token, &cached),
        mul_vector_eager(&matrix, &vector)
    );

    group.bench_function(BenchmarkId::new(format!("matvec/lazy/{backend}"), K), |b| {
        b.iter(|| black_box(&matrix).mul_vector(token, black_box(&cached)));
    });
    group.bench_function(
        BenchmarkId::new(format!("matvec/lazy_with_cache/{backend}"), K),
        |b| {
            b.iter(|| {
                let cached = black_box(&vector).cached(token);
                black_box(&matrix).mul_vector(token, &cached)
            });
        },
    );
    group.bench_function(BenchmarkId::new(format!("cache/{backend}"), K), |b| {
        b.iter(|| black_box(&vector).cached(token));
    });
}

/// Every backend-generic operation with the backend token `token`, labelled `name`.
fn backend<B: Backend<MlKem>>(group: &mut BenchmarkGroup<'_, WallTime>, token: B, name: &str) {
    let poly = inputs::poly(1);
    let ntt_poly = inputs::ntt_poly(2);
    let a = inputs::ntt_poly(3);
    let b = inputs::ntt_poly(4);
    let b_cached = CachedNttPoly::new(token, &b);
    assert_eq!(
        multiply_ntts(token, &a, &b_cached),
        multiply_ntts_eager(&a, &b)
    );
    assert_eq!(poly.ntt(token), poly.ntt(Portable));
    assert_eq!(ntt_poly.inverse_ntt(token), ntt_poly.inverse_ntt(Portable));

    group.bench_function(format!("ntt/{name}"), |bench| {
        bench.iter(|| black_box(&poly).ntt(token));
    });
    group.bench_function(format!("inverse_ntt/{name}"), |bench| {
        bench.iter(|| black_box(&ntt_poly).inverse_ntt(token));
    });
    group.bench_function(format!("basemul/lazy/{name}"), |bench| {
        bench.iter(|| multiply_ntts(token, black_box(&a), black_box(&b_cached)));
    });
    rank::<B, 2>(group, token, name);
    rank::<B, 3>(group, token, name);
    rank::<B, 4>(group, token, name);
}

/// The eager (pre-technique) products: scalar, backend-independent.
fn eager<const K: usize>(group: &mut BenchmarkGroup<'_, WallTime>) {
    let matrix = inputs::matrix::<K>(10 + K as u64);
    let vector = inputs::ntt_vector::<K>(20 + K as u64);
    group.bench_function(BenchmarkId::new("matvec/eager", K), |b| {
        b.iter(|| mul_vector_eager(black_box(&matrix), black_box(&vector)));
    });
}

fn poly_ntt(c: &mut Criterion) {
    let mut group = c.benchmark_group("poly-ntt");
    backend(&mut group, Portable, "portable");
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = lattice_poly_ntt::backend::Avx2::detect() {
        backend(&mut group, avx2, "avx2");
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(avx512) = lattice_poly_ntt::backend::Avx512::detect() {
        backend(&mut group, avx512, "avx512");
    }

    let a = inputs::ntt_poly(3);
    let b = inputs::ntt_poly(4);
    group.bench_function("basemul/eager", |bench| {
        bench.iter(|| multiply_ntts_eager(black_box(&a), black_box(&b)));
    });
    eager::<2>(&mut group);
    eager::<3>(&mut group);
    eager::<4>(&mut group);
    group.finish();
}

criterion_group!(benches, poly_ntt);
criterion_main!(benches);
