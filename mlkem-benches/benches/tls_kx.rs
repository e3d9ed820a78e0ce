//! Interleaved timing of one TLS 1.3 key exchange as rustls runs it (client `start`, server
//! `start_and_complete`, client `complete`): `rustls-lazykem`'s groups against the same
//! groups of rustls's aws-lc-rs provider (AWS-LC), and the X25519 candidates on their own.
//!
//! `cargo bench -p mlkem-benches --features tls --bench tls_kx [-- --rounds N]`
//!
//! As in `kem_compare`: every cell is timed in batches of about 2 ms, each round times every
//! cell once in an order rotated from round to round (a slow stretch of a shared machine hits
//! every cell alike), and a cell's figure is the median of its batches (default 201 rounds).
//!
//! Rows: the whole X25519MLKEM768 exchange; its ML-KEM part alone (the pure MLKEM768 group:
//! keygen, encapsulation to the ek bytes with the section 7.2 check, decapsulation); its
//! X25519 part alone (the plain X25519 group: two key generations and two Diffie-Hellmans),
//! and the same four X25519 operations on the raw primitives of the candidates:
//! x25519-dalek 3 (the workspace's X25519), graviola 0.4.4 (formally verified assembly;
//! x86_64 with AVX2/BMI2/ADX, aarch64; what `rustls-lazykem` uses where it runs) and AWS-LC;
//! the other groups; and
//! the server's ML-KEM-768 step two ways (parse then `try_encapsulate`, which the crate uses
//! because it takes a fallible RNG, against the one-shot `encapsulate_encoded`).
#![allow(missing_docs)] // a bench binary

use mlkem_benches::interleaved::BatchTimer;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Instant;

use rustls::crypto::SupportedKxGroup;
use rustls::crypto::aws_lc_rs::kx_group as aws;

struct Cell {
    row: &'static str,
    library: &'static str,
    timer: BatchTimer<'static>,
}

impl Cell {
    fn new(row: &'static str, library: &'static str, run: impl FnMut() + 'static) -> Self {
        Self {
            row,
            library,
            timer: BatchTimer::new(run),
        }
    }
}

/// One whole exchange through a group, checked once before timing.
fn exchange(group: &'static dyn SupportedKxGroup) -> impl FnMut() + 'static {
    let run = move || {
        let client = group.start().expect("start");
        let server = group
            .start_and_complete(black_box(client.pub_key()))
            .expect("server");
        let secret = client.complete(black_box(&server.pub_key)).expect("client");
        (secret, server)
    };
    let (secret, server) = run();
    assert_eq!(secret.secret_bytes(), server.secret.secret_bytes());
    move || drop(black_box(run()))
}

/// Two X25519 key generations and two Diffie-Hellmans on x25519-dalek's primitives.
fn dalek_x25519() {
    use x25519_dalek::{PublicKey, StaticSecret};
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("rng");
    let a = StaticSecret::from(bytes);
    getrandom::fill(&mut bytes).expect("rng");
    let b = StaticSecret::from(bytes);
    let (pa, pb) = (PublicKey::from(&a), PublicKey::from(&b));
    let s1 = a.diffie_hellman(black_box(&pb));
    let s2 = b.diffie_hellman(black_box(&pa));
    assert!(s1.as_bytes() == s2.as_bytes());
}

/// The same on graviola's.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn graviola_x25519() {
    use graviola::key_agreement::x25519::PrivateKey;
    let a = PrivateKey::new_random().expect("rng");
    let b = PrivateKey::new_random().expect("rng");
    let (pa, pb) = (a.public_key(), b.public_key());
    let s1 = a.diffie_hellman(black_box(&pb)).expect("contributory");
    let s2 = b.diffie_hellman(black_box(&pa)).expect("contributory");
    assert!(s1.0 == s2.0);
}

/// The same on AWS-LC's (aws-lc-rs `agreement`).
fn aws_lc_x25519() {
    use aws_lc_rs::agreement::{EphemeralPrivateKey, UnparsedPublicKey, X25519, agree_ephemeral};
    let rng = aws_lc_rs::rand::SystemRandom::new();
    let a = EphemeralPrivateKey::generate(&X25519, &rng).expect("rng");
    let b = EphemeralPrivateKey::generate(&X25519, &rng).expect("rng");
    let pa = a.compute_public_key().expect("public");
    let pb = b.compute_public_key().expect("public");
    let s1 = agree_ephemeral(
        a,
        UnparsedPublicKey::new(&X25519, black_box(pb.as_ref())),
        (),
        |s| Ok(s.to_vec()),
    )
    .expect("agree");
    let s2 = agree_ephemeral(
        b,
        UnparsedPublicKey::new(&X25519, black_box(pa.as_ref())),
        (),
        |s| Ok(s.to_vec()),
    )
    .expect("agree");
    assert!(s1 == s2);
}

/// Every timed cell, each checked once (in `exchange`, or by its own assertions).
fn cells() -> Vec<Cell> {
    let ek768 = lazykem::ml_kem_768::DecapsulationKey::generate(&mut rand::rng())
        .encapsulation_key()
        .as_bytes()
        .to_vec();
    let ek768b = ek768.clone();

    let mut cells = vec![
        Cell::new(
            "X25519MLKEM768",
            "ours",
            exchange(rustls_lazykem::X25519MLKEM768),
        ),
        Cell::new("X25519MLKEM768", "aws-lc-rs", exchange(aws::X25519MLKEM768)),
        Cell::new(
            "ML-KEM part (MLKEM768)",
            "ours",
            exchange(rustls_lazykem::MLKEM768),
        ),
        Cell::new(
            "ML-KEM part (MLKEM768)",
            "aws-lc-rs",
            exchange(aws::MLKEM768),
        ),
        Cell::new(
            "X25519 part (X25519 group)",
            "ours",
            exchange(rustls_lazykem::X25519),
        ),
        Cell::new(
            "X25519 part (X25519 group)",
            "aws-lc-rs",
            exchange(aws::X25519),
        ),
        Cell::new("X25519 raw: 2 keygen + 2 DH", "x25519-dalek", dalek_x25519),
        Cell::new("X25519 raw: 2 keygen + 2 DH", "aws-lc-rs", aws_lc_x25519),
        Cell::new("MLKEM1024", "ours", exchange(rustls_lazykem::MLKEM1024)),
        Cell::new("MLKEM1024", "aws-lc-rs", exchange(aws::MLKEM1024)),
        Cell::new(
            "SecP256r1MLKEM768",
            "ours",
            exchange(rustls_lazykem::SECP256R1MLKEM768),
        ),
        Cell::new(
            "SecP256r1MLKEM768",
            "aws-lc-rs",
            exchange(aws::SECP256R1MLKEM768),
        ),
        Cell::new("server ML-KEM-768 step", "ours", move || {
            let ek =
                lazykem::ml_kem_768::EncapsulationKey::from_bytes(black_box(&ek768)).expect("ek");
            drop(black_box(
                ek.try_encapsulate(&mut getrandom::SysRng).expect("rng"),
            ));
        }),
        Cell::new("server ML-KEM-768 step", "ours one-shot", move || {
            drop(black_box(
                lazykem::ml_kem_768::EncapsulationKey::encapsulate_encoded(
                    black_box(&ek768b),
                    &mut rand::rng(),
                )
                .expect("ek"),
            ));
        }),
    ];
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    if graviola::util::is_cpu_supported() {
        graviola_x25519();
        cells.push(Cell::new(
            "X25519 raw: 2 keygen + 2 DH",
            "graviola",
            graviola_x25519,
        ));
    }
    cells
}

/// The markdown table of medians, one row per operation.
fn table(cells: &mut [Cell], rounds: usize) -> String {
    let libraries = [
        "ours",
        "aws-lc-rs",
        "graviola",
        "x25519-dalek",
        "ours one-shot",
    ];
    let mut rows: Vec<&str> = Vec::new();
    for cell in cells.iter() {
        if !rows.contains(&cell.row) {
            rows.push(cell.row);
        }
    }
    let mut table = String::new();
    let _ = writeln!(
        table,
        "| key exchange (µs, median of {rounds} interleaved rounds) | ours | aws-lc-rs | graviola | x25519-dalek | ours one-shot | ours / aws-lc-rs |"
    );
    table.push_str("|---|---:|---:|---:|---:|---:|---:|\n");
    for row in rows {
        let mut figures = [None; 5];
        for (slot, library) in figures.iter_mut().zip(libraries) {
            *slot = cells
                .iter_mut()
                .find(|c| c.row == row && c.library == library)
                .map(|cell| cell.timer.median_us());
        }
        let _ = write!(table, "| {row} |");
        for f in figures {
            match f {
                Some(us) => {
                    let _ = write!(table, " {us:.2} |");
                }
                None => table.push_str(" - |"),
            }
        }
        match (figures[0], figures[1]) {
            (Some(ours), Some(peer)) => {
                let _ = writeln!(table, " {:.2} |", ours / peer);
            }
            _ => table.push_str(" - |\n"),
        }
    }
    table
}

fn main() {
    let rounds = mlkem_benches::interleaved::rounds_from_args(201);
    let mut cells = cells();
    dalek_x25519();
    aws_lc_x25519();

    let start = Instant::now();
    for cell in &mut cells {
        cell.timer.calibrate();
    }
    for round in 0..rounds {
        let count = cells.len();
        for k in 0..count {
            let cell = &mut cells[(k + round * 5) % count];
            cell.timer.sample();
        }
    }

    let table = table(&mut cells, rounds);
    println!("{table}");
    println!(
        "backend: {:?}; {} rounds in {:.1} s",
        lazykem::backend(),
        rounds,
        start.elapsed().as_secs_f64()
    );
}
