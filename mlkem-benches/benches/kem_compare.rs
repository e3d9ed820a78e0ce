//! Interleaved side-by-side timing of the KEM operations: ours and (feature `peers`) every
//! peer, for a noisy shared machine.
//!
//! `cargo bench -p mlkem-benches --features peers --bench kem_compare [-- --rounds N]
//! [--sets X-Wing,MLKEM768-P256,MLKEM1024-P384]`
//!
//! Criterion measures one benchmark after another, so a slow minute on a shared machine
//! lands on whichever library runs then, and the ratio between two libraries can move by
//! 1.3x between runs. Here every cell (parameter set, operation, library) is timed in short
//! batches of about 2 ms, and each round times every cell of a parameter set once, in an
//! order rotated from round to round: a slow period slows every library about equally. A
//! cell's figure is the median of its batch timings over all rounds (default 61).
//!
//! Operations and inputs are those of the criterion `kem` bench (`mlkem_benches::kem`), and
//! every library passes the same correctness check before it is timed. Prints a markdown
//! table with, per row, the ratio of ours to the fastest peer, and writes it to
//! `target/bench-report/compare.md`. A cell is `-` where the library does not offer the
//! parameter set or the operation (graviola: ML-KEM-768 only, no `decaps_from_bytes`); a
//! library that does not run on this CPU has no column.
//!
//! The hybrid KEMs of `lazykem-hybrid` follow: X-Wing (peers: RustCrypto `x-wing`, libcrux),
//! MLKEM768-P256 and MLKEM1024-P384 (peer: rust-hpke's KEMs, the only other implementation
//! on crates.io), with the same five operations: keygen from the 32-byte seed, encaps with
//! a parsed key and from its bytes, decaps with the parsed key and ciphertext and from the
//! seed and ciphertext bytes (the seed is these KEMs' encoded decapsulation key).
#![allow(missing_docs)] // a bench binary

use core::marker::PhantomData;
use lazykem::BackendKind;
use lazykem_hybrid::{
    Ciphertext, DecapsulationKey, EncapsulationKey, HybridKem, MlKem768P256, MlKem1024P384, XWing,
};
use mlkem_benches::interleaved::BatchTimer;
use mlkem_benches::kem::{
    Fixture, KemUnderTest, Operation, Ours512, Ours768, Ours1024, OursPortable512, OursPortable768,
    OursPortable1024,
};
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Instant;

/// One timed cell: an operation of a library.
struct Cell<'a> {
    operation: Operation,
    library: &'static str,
    timer: BatchTimer<'a>,
}

/// The cells of library `L` on the fixture, labelled `L::NAME`: one per operation it offers.
fn library_cells<'a, L: KemUnderTest>(fx: &'a Fixture) -> Vec<Cell<'a>> {
    let ek = L::parse_ek(&fx.ek);
    let dk = L::parse_dk(&fx.seed, &fx.dk);
    let ct = L::parse_ct(&fx.ct);
    let runs: [Box<dyn FnMut() + 'a>; 5] = [
        Box::new(move || drop(black_box(L::keygen(black_box(&fx.seed))))),
        Box::new(move || drop(black_box(L::encaps(black_box(&ek), black_box(&fx.m))))),
        Box::new(move || {
            drop(black_box(L::encaps_from_bytes(
                black_box(&fx.ek),
                black_box(&fx.m),
            )));
        }),
        Box::new(move || drop(black_box(L::decaps(black_box(&dk), black_box(&ct))))),
        Box::new(move || {
            drop(black_box(L::decaps_from_bytes(
                black_box(&fx.dk),
                black_box(&fx.ct),
            )));
        }),
    ];
    Operation::ALL
        .into_iter()
        .zip(runs)
        .filter(|&(operation, _)| L::supports(operation))
        .map(|(operation, run)| Cell {
            operation,
            library: L::NAME,
            timer: BatchTimer::new(run),
        })
        .collect()
}

/// Times every cell of one parameter set; returns the markdown rows.
fn parameter_set(set: &str, mut cells: Vec<Cell<'_>>, rounds: usize, libraries: &[&str]) -> String {
    for cell in &mut cells {
        cell.timer.calibrate();
    }
    for round in 0..rounds {
        let count = cells.len();
        for k in 0..count {
            cells[(k + round * 7) % count].timer.sample();
        }
    }
    let mut rows = String::new();
    for operation in Operation::ALL {
        let mut figure = |library: &str| {
            cells
                .iter_mut()
                .find(|c| c.operation == operation && c.library == library)
                .map(|c| c.timer.median_us())
        };
        let figures: Vec<Option<f64>> = libraries.iter().map(|l| figure(l)).collect();
        let best_peer = libraries
            .iter()
            .zip(&figures)
            .filter(|(l, _)| !l.starts_with("ours"))
            .filter_map(|(_, f)| *f)
            .fold(f64::INFINITY, f64::min);
        let ours = figures[0].unwrap_or(f64::NAN);
        let _ = write!(rows, "| {set} {} |", operation.name());
        for f in &figures {
            match f {
                Some(us) => {
                    let _ = write!(rows, " {us:.2} |");
                }
                None => rows.push_str(" - |"),
            }
        }
        if best_peer.is_finite() {
            let _ = writeln!(rows, " {:.2} |", ours / best_peer);
        } else {
            rows.push_str(" - |\n");
        }
    }
    rows
}

/// Collects each peer's cells.
#[cfg(feature = "peers")]
struct PeerCells<'a> {
    fx: &'a Fixture,
    cells: Vec<Cell<'a>>,
}

#[cfg(feature = "peers")]
impl mlkem_benches::peers::PeerVisitor for PeerCells<'_> {
    fn visit<L: KemUnderTest>(&mut self) {
        self.cells.extend(library_cells::<L>(self.fx));
    }
}

/// The cells of one parameter set: ours, ours on the portable backend (where the default
/// is another one), then (feature `peers`) every peer of `mlkem_benches::peers::$peers`
/// that runs here, each checked against ours first.
macro_rules! set_cells {
    ($fx:expr, $ours:ty, $portable:ty, $peers:ident $(,)?) => {{
        let fx: &Fixture = $fx;
        mlkem_benches::kem::check::<$ours, $ours>(fx).expect("ours agrees with itself");
        let mut cells = library_cells::<$ours>(fx);
        if lazykem::backend() != BackendKind::Portable {
            mlkem_benches::kem::check::<$portable, $ours>(fx).expect("portable ours agrees");
            cells.extend(library_cells::<$portable>(fx));
        }
        #[cfg(feature = "peers")]
        {
            let mut peers = PeerCells { fx, cells };
            mlkem_benches::peers::$peers::visit::<$ours>(fx, &mut peers);
            cells = peers.cells;
        }
        cells
    }};
}

/// The inputs of a hybrid KEM's rows: a seed, encapsulation randomness, and the key and
/// ciphertext ours derives from them.
struct HybridFixture<H> {
    seed: [u8; 32],
    eseed: Vec<u8>,
    ek: Vec<u8>,
    ct: Vec<u8>,
    kem: PhantomData<H>,
}

impl<H: HybridKem> HybridFixture<H> {
    fn new(tag: u64) -> Self {
        let seed = mlkem_benches::inputs::bytes::<32>(tag);
        let eseed = mlkem_benches::inputs::bytes::<160>(tag + 1)
            [..lazykem_hybrid::encapsulation_randomness_size::<H>()]
            .to_vec();
        let dk = DecapsulationKey::<H>::from_seed(&seed).expect("a key");
        let (ct, _) = dk
            .encapsulation_key()
            .encapsulate_deterministic(&eseed)
            .expect("randomness of the right size");
        Self {
            seed,
            eseed,
            ek: dk.encapsulation_key().as_ref().to_vec(),
            ct: ct.as_ref().to_vec(),
            kem: PhantomData,
        }
    }
}

/// One hybrid-KEM cell.
fn hybrid_cell<'a>(
    operation: Operation,
    library: &'static str,
    run: Box<dyn FnMut() + 'a>,
) -> Cell<'a> {
    Cell {
        operation,
        library,
        timer: BatchTimer::new(run),
    }
}

/// Ours, one cell per operation: keygen from the 32-byte seed, encapsulation (parsed key,
/// and from its bytes), decapsulation (parsed key and ciphertext, and from the seed and the
/// ciphertext bytes: the encoded decapsulation key of these KEMs is the seed).
fn our_hybrid_cells<H: HybridKem>(fx: &HybridFixture<H>) -> Vec<Cell<'_>> {
    let ek = EncapsulationKey::<H>::from_bytes(&fx.ek).expect("own key");
    let dk = DecapsulationKey::<H>::from_seed(&fx.seed).expect("own key");
    let ct = Ciphertext::<H>::from_bytes(&fx.ct).expect("own ciphertext");
    vec![
        hybrid_cell(
            Operation::Keygen,
            "ours",
            Box::new(move || {
                drop(black_box(DecapsulationKey::<H>::from_seed(black_box(
                    &fx.seed,
                ))));
            }),
        ),
        hybrid_cell(
            Operation::Encaps,
            "ours",
            Box::new(move || {
                drop(black_box(
                    ek.encapsulate_deterministic(black_box(&fx.eseed)),
                ));
            }),
        ),
        hybrid_cell(
            Operation::EncapsFromBytes,
            "ours",
            Box::new(move || {
                let ek = EncapsulationKey::<H>::from_bytes(black_box(&fx.ek)).expect("own key");
                drop(black_box(
                    ek.encapsulate_deterministic(black_box(&fx.eseed)),
                ));
            }),
        ),
        hybrid_cell(
            Operation::Decaps,
            "ours",
            Box::new(move || drop(black_box(dk.decapsulate(black_box(&ct))))),
        ),
        hybrid_cell(
            Operation::DecapsFromBytes,
            "ours",
            Box::new(move || {
                let dk = DecapsulationKey::<H>::from_seed(black_box(&fx.seed)).expect("own key");
                let ct = Ciphertext::<H>::from_bytes(black_box(&fx.ct)).expect("own ciphertext");
                drop(black_box(dk.decapsulate(&ct)));
            }),
        ),
    ]
}

/// The X-Wing rows: ours, RustCrypto `x-wing` and libcrux (feature `peers`).
fn xwing_cells(fx: &HybridFixture<XWing>) -> Vec<Cell<'_>> {
    #[allow(unused_mut)]
    let mut cells = our_hybrid_cells(fx);
    #[cfg(feature = "peers")]
    {
        let seed = &fx.seed;
        let eseed: &[u8; 64] = fx.eseed.as_slice().try_into().expect("64 bytes");
        cells.extend(
            mlkem_benches::peers::xwing_cells(seed, eseed, &fx.ek, &fx.ct)
                .into_iter()
                .map(|(operation, run)| hybrid_cell(operation, "rustcrypto", run)),
        );
        cells.extend(
            mlkem_benches::peers::libcrux_xwing_cells(seed, eseed, &fx.ek, &fx.ct)
                .into_iter()
                .map(|(operation, run)| hybrid_cell(operation, "libcrux", run)),
        );
    }
    cells
}

/// The rows of a NIST hybrid: ours and (feature `peers`) rust-hpke's KEM `$hpke`.
macro_rules! nist_hybrid_cells {
    ($fx:expr, $kem:ty, $hpke:ty) => {{
        let fx: &HybridFixture<$kem> = $fx;
        #[allow(unused_mut)]
        let mut cells = our_hybrid_cells(fx);
        #[cfg(feature = "peers")]
        cells.extend(
            mlkem_benches::peers::hpke_hybrid_cells::<$hpke, $kem>(
                &fx.seed, &fx.eseed, &fx.ek, &fx.ct,
            )
            .into_iter()
            .map(|(operation, run)| hybrid_cell(operation, "hpke", run)),
        );
        cells
    }};
}

/// `--sets A,B,...` from the command line: the sets to time (`512`, `768`, `1024`,
/// `X-Wing`, `MLKEM768-P256`, `MLKEM1024-P384`), else every one. Each set is timed on its
/// own, so leaving sets out changes no ratio.
fn sets_from_args() -> Option<Vec<String>> {
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--sets" {
            let list = args.next().expect("--sets needs a comma-separated list");
            return Some(list.split(',').map(str::to_owned).collect());
        }
    }
    None
}

fn main() {
    let rounds = mlkem_benches::interleaved::rounds_from_args(61);
    let start = Instant::now();
    let fx512 = Fixture::new::<Ours512>("ML-KEM-512");
    let fx768 = Fixture::new::<Ours768>("ML-KEM-768");
    let fx1024 = Fixture::new::<Ours1024>("ML-KEM-1024");
    let fx_xwing = HybridFixture::<XWing>::new(0x5857);
    let fx_p256 = HybridFixture::<MlKem768P256>::new(0x5032);
    let fx_p384 = HybridFixture::<MlKem1024P384>::new(0x5033);
    // Every library is checked (and its cells built) before anything is timed.
    let sets = [
        (
            "512",
            set_cells!(&fx512, Ours512, OursPortable512, ml_kem_512),
        ),
        (
            "768",
            set_cells!(&fx768, Ours768, OursPortable768, ml_kem_768),
        ),
        (
            "1024",
            set_cells!(&fx1024, Ours1024, OursPortable1024, ml_kem_1024),
        ),
        ("X-Wing", xwing_cells(&fx_xwing)),
        (
            "MLKEM768-P256",
            nist_hybrid_cells!(&fx_p256, MlKem768P256, hpke::kem::MlKem768P256),
        ),
        (
            "MLKEM1024-P384",
            nist_hybrid_cells!(&fx_p384, MlKem1024P384, hpke::kem::MlKem1024P384),
        ),
    ];
    let wanted = sets_from_args();
    let sets: Vec<_> = sets
        .into_iter()
        .filter(|(set, _)| wanted.as_ref().is_none_or(|w| w.iter().any(|w| w == set)))
        .collect();
    // Columns: every library measured in some set, in order of first appearance (ours
    // first).
    let mut libraries: Vec<&str> = Vec::new();
    for cell in sets.iter().flat_map(|(_, cells)| cells) {
        if !libraries.contains(&cell.library) {
            libraries.push(cell.library);
        }
    }
    let mut table = format!(
        "Median us per operation over {rounds} interleaved rounds of ~2 ms batches; last \
         column: ours / fastest peer; `-`: not offered by the library. `ours` runs on the \
         {} backend (the fastest this CPU has), `ours-portable` on the portable one.\n\n\
         | set / operation | {} | ours / best peer |\n|---|{}---:|\n",
        lazykem::backend(),
        libraries.join(" | "),
        "---:|".repeat(libraries.len())
    );
    for (set, cells) in sets {
        table += &parameter_set(set, cells, rounds, &libraries);
    }
    println!("{table}");
    println!("(measured in {:.0} s)", start.elapsed().as_secs_f64());
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-report");
    if std::fs::create_dir_all(&dir).is_ok()
        && std::fs::write(dir.join("compare.md"), &table).is_ok()
    {
        println!("written to target/bench-report/compare.md");
    }
}
