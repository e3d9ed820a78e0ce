//! KEM operations of every parameter set: keygen, encaps and decaps, on parsed keys and from
//! bytes. With the `peers` feature, the same operations of libcrux-ml-kem, RustCrypto
//! `ml-kem`, aws-lc-rs and pqcrypto-mlkem (PQClean) run in the same criterion run, on the
//! same inputs, after a correctness check (`mlkem_benches::kem::check`).
//!
//! Benchmark IDs: `kem/<set>/<operation>/<library>`, e.g. `kem/ML-KEM-768/decaps/ours`.
//! Operations: `keygen`, `encaps`, `encaps_from_bytes`, `decaps`, `decaps_from_bytes`
//! (see `mlkem_benches::kem` for exactly what each one includes). `ours` runs with the
//! backend the crate selects (AVX2 when the CPU has it); on CPUs where that is not the
//! portable backend, `ours-portable` repeats it on the portable backend, chosen explicitly
//! (the `hazmat` entry points `*_on`, adapters `OursPortable512` etc.).
//!
//! aws-lc-rs and pqcrypto-mlkem only offer randomized APIs (no seeded key generation, no
//! caller-chosen encapsulation message): their keygen and encaps draw fresh randomness on
//! every call, which is part of their figures. Their decapsulations use the same key and
//! ciphertext as everybody else's.
#![allow(missing_docs)] // criterion_main! generates an undocumented `main`

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main};
use mlkem::BackendKind;
use mlkem_benches::kem::{
    Fixture, KemUnderTest, Ours512, Ours768, Ours1024, OursPortable512, OursPortable768,
    OursPortable1024,
};
use std::hint::black_box;

/// Benchmarks the five operations of library `L` on the fixture, labelled `library`.
fn operations<L: KemUnderTest>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    fx: &Fixture,
    library: &str,
) {
    group.bench_function(BenchmarkId::new("keygen", library), |b| {
        b.iter(|| L::keygen(black_box(&fx.seed)));
    });

    let ek = L::parse_ek(&fx.ek);
    group.bench_function(BenchmarkId::new("encaps", library), |b| {
        b.iter(|| L::encaps(black_box(&ek), black_box(&fx.m)));
    });
    group.bench_function(BenchmarkId::new("encaps_from_bytes", library), |b| {
        b.iter(|| L::encaps_from_bytes(black_box(&fx.ek), black_box(&fx.m)));
    });

    let dk = L::parse_dk(&fx.seed, &fx.dk);
    let ct = L::parse_ct(&fx.ct);
    group.bench_function(BenchmarkId::new("decaps", library), |b| {
        b.iter(|| L::decaps(black_box(&dk), black_box(&ct)));
    });
    group.bench_function(BenchmarkId::new("decaps_from_bytes", library), |b| {
        b.iter(|| L::decaps_from_bytes(black_box(&fx.dk), black_box(&fx.ct)));
    });
}

/// One parameter set: ours, then (feature `peers`) every peer, each checked first.
macro_rules! parameter_set {
    ($fn:ident, $set:literal, $ours:ty, $portable:ty, $peers:ident) => {
        fn $fn(c: &mut Criterion) {
            let fx = Fixture::new::<$ours>($set);
            mlkem_benches::kem::check::<$ours, $ours>(&fx).expect("ours agrees with itself");
            let mut group = c.benchmark_group(concat!("kem/", $set));
            operations::<$ours>(&mut group, &fx, <$ours>::NAME);
            // Ours again on the portable backend, on CPUs where the default is another one.
            if mlkem::backend() != BackendKind::Portable {
                mlkem_benches::kem::check::<$portable, $ours>(&fx).expect("portable ours agrees");
                operations::<$portable>(&mut group, &fx, <$portable>::NAME);
            }
            #[cfg(feature = "peers")]
            {
                use mlkem_benches::peers::$peers::{AwsLc, Libcrux, PqClean, RustCrypto};
                // Assert once per set, before measuring, that every peer agrees with ours.
                let check = |result: Result<(), String>| {
                    if let Err(message) = result {
                        panic!("{message}");
                    }
                };
                check(mlkem_benches::kem::check::<Libcrux, $ours>(&fx));
                check(mlkem_benches::kem::check::<RustCrypto, $ours>(&fx));
                check(mlkem_benches::kem::check::<AwsLc, $ours>(&fx));
                check(mlkem_benches::kem::check::<PqClean, $ours>(&fx));
                operations::<Libcrux>(&mut group, &fx, Libcrux::NAME);
                operations::<RustCrypto>(&mut group, &fx, RustCrypto::NAME);
                operations::<AwsLc>(&mut group, &fx, AwsLc::NAME);
                operations::<PqClean>(&mut group, &fx, PqClean::NAME);
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
