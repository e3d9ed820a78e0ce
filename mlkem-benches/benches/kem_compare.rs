//! Interleaved side-by-side timing of the KEM operations: ours and (feature `peers`) every
//! peer, for a noisy shared machine.
//!
//! `cargo bench -p mlkem-benches --features peers --bench kem_compare [-- --rounds N]`
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
#![allow(missing_docs)] // a bench binary

use lazykem::BackendKind;
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

/// The inputs of the X-Wing rows: a seed, an encapsulation seed, and the key and ciphertext
/// ours derives from them.
struct XWingFixture {
    seed: [u8; 32],
    eseed: [u8; 64],
    ek: Vec<u8>,
    ct: Vec<u8>,
}

impl XWingFixture {
    fn new() -> Self {
        let seed = mlkem_benches::inputs::bytes::<32>(0x5857);
        let eseed = mlkem_benches::inputs::bytes::<64>(0x5858);
        let dk = lazykem_xwing::DecapsulationKey::from_seed(&seed);
        let (ct, _) = dk.encapsulation_key().encapsulate_deterministic(&eseed);
        Self {
            seed,
            eseed,
            ek: dk.encapsulation_key().as_bytes().to_vec(),
            ct: ct.as_bytes().to_vec(),
        }
    }
}

/// One X-Wing cell per operation: keygen from the 32-byte seed, encapsulation (parsed key,
/// and from its bytes), decapsulation (parsed key, and from the seed: the encoded
/// decapsulation key of X-Wing).
fn xwing_cell<'a>(
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

fn xwing_cells(fx: &XWingFixture) -> Vec<Cell<'_>> {
    use lazykem_xwing::{Ciphertext, DecapsulationKey, EncapsulationKey};
    let ek = EncapsulationKey::from_bytes(&fx.ek).expect("own key");
    let dk = DecapsulationKey::from_seed(&fx.seed);
    let ct = Ciphertext::from_bytes(&fx.ct).expect("own ciphertext");
    let ct2 = ct.clone();
    #[allow(unused_mut)]
    let mut cells = vec![
        xwing_cell(
            Operation::Keygen,
            "ours",
            Box::new(move || drop(black_box(DecapsulationKey::from_seed(black_box(&fx.seed))))),
        ),
        xwing_cell(
            Operation::Encaps,
            "ours",
            Box::new(move || {
                drop(black_box(
                    ek.encapsulate_deterministic(black_box(&fx.eseed)),
                ));
            }),
        ),
        xwing_cell(
            Operation::EncapsFromBytes,
            "ours",
            Box::new(move || {
                let ek = EncapsulationKey::from_bytes(black_box(&fx.ek)).expect("own key");
                drop(black_box(
                    ek.encapsulate_deterministic(black_box(&fx.eseed)),
                ));
            }),
        ),
        xwing_cell(
            Operation::Decaps,
            "ours",
            Box::new(move || drop(black_box(dk.decapsulate(black_box(&ct))))),
        ),
        xwing_cell(
            Operation::DecapsFromBytes,
            "ours",
            Box::new(move || {
                let dk = DecapsulationKey::from_seed(black_box(&fx.seed));
                drop(black_box(dk.decapsulate(black_box(&ct2))));
            }),
        ),
    ];
    #[cfg(feature = "peers")]
    cells.extend(
        mlkem_benches::peers::xwing_cells(&fx.seed, &fx.eseed, &fx.ek, &fx.ct)
            .into_iter()
            .map(|(operation, run)| xwing_cell(operation, "rustcrypto", run)),
    );
    #[cfg(feature = "peers")]
    cells.extend(
        mlkem_benches::peers::libcrux_xwing_cells(&fx.seed, &fx.eseed, &fx.ek, &fx.ct)
            .into_iter()
            .map(|(operation, run)| xwing_cell(operation, "libcrux", run)),
    );
    cells
}

fn main() {
    let rounds = mlkem_benches::interleaved::rounds_from_args(61);
    let start = Instant::now();
    let fx512 = Fixture::new::<Ours512>("ML-KEM-512");
    let fx768 = Fixture::new::<Ours768>("ML-KEM-768");
    let fx1024 = Fixture::new::<Ours1024>("ML-KEM-1024");
    let fx_xwing = XWingFixture::new();
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
    ];
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
