//! KEM operations of every parameter set: keygen, encaps and decaps, on parsed keys and from
//! bytes. With the `peers` feature, the same operations of libcrux-ml-kem, RustCrypto
//! `ml-kem`, aws-lc-rs, pqcrypto-mlkem (PQClean) and, for ML-KEM-768, graviola run in the
//! same criterion run, on the same inputs, after a correctness check
//! (`mlkem_benches::kem::check`). Operations a library does not offer (graviola's
//! `decaps_from_bytes`) and libraries that do not run on the CPU have no benchmark.
//!
//! Benchmark IDs: `kem/<set>/<operation>/<library>`, e.g. `kem/ML-KEM-768/decaps/ours`.
//! Operations: `keygen`, `encaps`, `encaps_from_bytes`, `decaps`, `decaps_from_bytes`
//! (see `mlkem_benches::kem` for exactly what each one includes). `ours` runs with the
//! backend the crate selects (AVX2 when the CPU has it); on CPUs where that is not the
//! portable backend, `ours-portable` repeats it on the portable backend, chosen explicitly
//! (the `hazmat` type `lazykem::hazmat::OnBackend`, adapters `OursPortable512` etc.).
//!
//! aws-lc-rs and pqcrypto-mlkem only offer randomized APIs (no seeded key generation, no
//! caller-chosen encapsulation message): their keygen and encaps draw fresh randomness on
//! every call, which is part of their figures. Their decapsulations use the same key and
//! ciphertext as everybody else's.
#![allow(missing_docs)] // criterion_main! generates an undocumented `main`

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main};
use lazykem::BackendKind;
use mlkem_benches::kem::{
    Fixture, KemUnderTest, Operation, Ours512, Ours768, Ours1024, OursPortable512, OursPortable768,
    OursPortable1024,
};
use std::hint::black_box;

/// Benchmarks the operations library `L` offers (of the five) on the fixture, labelled
/// `library`.
fn operations<L: KemUnderTest>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    fx: &Fixture,
    library: &str,
) {
    let id = |operation: Operation| BenchmarkId::new(operation.name(), library);
    if L::supports(Operation::Keygen) {
        group.bench_function(id(Operation::Keygen), |b| {
            b.iter(|| L::keygen(black_box(&fx.seed)));
        });
    }

    if L::supports(Operation::Encaps) {
        let ek = L::parse_ek(&fx.ek);
        group.bench_function(id(Operation::Encaps), |b| {
            b.iter(|| L::encaps(black_box(&ek), black_box(&fx.m)));
        });
    }
    if L::supports(Operation::EncapsFromBytes) {
        group.bench_function(id(Operation::EncapsFromBytes), |b| {
            b.iter(|| L::encaps_from_bytes(black_box(&fx.ek), black_box(&fx.m)));
        });
    }

    if L::supports(Operation::Decaps) {
        let dk = L::parse_dk(&fx.seed, &fx.dk);
        let ct = L::parse_ct(&fx.ct);
        group.bench_function(id(Operation::Decaps), |b| {
            b.iter(|| L::decaps(black_box(&dk), black_box(&ct)));
        });
    }
    if L::supports(Operation::DecapsFromBytes) {
        group.bench_function(id(Operation::DecapsFromBytes), |b| {
            b.iter(|| L::decaps_from_bytes(black_box(&fx.dk), black_box(&fx.ct)));
        });
    }
}

/// Collects each peer's benchmarks, to run once every peer has been checked.
#[cfg(feature = "peers")]
#[derive(Default)]
struct Peers(Vec<fn(&mut BenchmarkGroup<'_, WallTime>, &Fixture)>);

#[cfg(feature = "peers")]
impl mlkem_benches::peers::PeerVisitor for Peers {
    fn visit<L: KemUnderTest>(&mut self) {
        self.0.push(|group, fx| operations::<L>(group, fx, L::NAME));
    }
}

/// One parameter set: ours, then (feature `peers`) the peers offering it, from module
/// `mlkem_benches::peers::$peers`, each checked first; a peer that does not run on this CPU
/// is left out.
macro_rules! parameter_set {
    ($fn:ident, $set:literal, $ours:ty, $portable:ty, $peers:ident $(,)?) => {
        fn $fn(c: &mut Criterion) {
            let fx = Fixture::new::<$ours>($set);
            mlkem_benches::kem::check::<$ours, $ours>(&fx).expect("ours agrees with itself");
            let mut group = c.benchmark_group(concat!("kem/", $set));
            operations::<$ours>(&mut group, &fx, <$ours>::NAME);
            // Ours again on the portable backend, on CPUs where the default is another one.
            if lazykem::backend() != BackendKind::Portable {
                mlkem_benches::kem::check::<$portable, $ours>(&fx).expect("portable ours agrees");
                operations::<$portable>(&mut group, &fx, <$portable>::NAME);
            }
            // Every peer is checked against ours once per set, before any is measured.
            #[cfg(feature = "peers")]
            {
                let mut peers = Peers::default();
                mlkem_benches::peers::$peers::visit::<$ours>(&fx, &mut peers);
                for peer in peers.0 {
                    peer(&mut group, &fx);
                }
            }
            group.finish();
        }
    };
}

parameter_set!(
    ml_kem_512,
    "ML-KEM-512",
    Ours512,
    OursPortable512,
    ml_kem_512
);
parameter_set!(
    ml_kem_768,
    "ML-KEM-768",
    Ours768,
    OursPortable768,
    ml_kem_768
);
parameter_set!(
    ml_kem_1024,
    "ML-KEM-1024",
    Ours1024,
    OursPortable1024,
    ml_kem_1024
);

criterion_group!(kem, ml_kem_512, ml_kem_768, ml_kem_1024);
criterion_main!(kem);
