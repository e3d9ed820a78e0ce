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
//! the other groups: MLKEM1024, SecP256r1MLKEM768 and SecP384r1MLKEM1024 (rustls's provider
//! lacks it: AWS-LC's P-384 and ML-KEM-1024 composed here, checked against ours) and their
//! curve halves (the plain secp256r1 / secp384r1 groups); and
//! the server's ML-KEM-768 step two ways (parse then `try_encapsulate`, which the crate uses
//! because it takes a fallible RNG, against the one-shot `encapsulate_encoded`).
#![allow(missing_docs)] // a bench binary

use mlkem_benches::interleaved::BatchTimer;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Instant;

use rustls::crypto::SupportedKxGroup;
use rustls::crypto::aws_lc_rs::kx_group as aws;

type Group = &'static dyn SupportedKxGroup;

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
fn exchange(group: Group) -> impl FnMut() + 'static {
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

/// One exchange each way between two implementations of a group (client of one, server of
/// the other): both ends agree.
fn interoperate(a: Group, b: Group) {
    for (client, server) in [(a, b), (b, a)] {
        let active = client.start().expect("start");
        let done = server.start_and_complete(active.pub_key()).expect("server");
        let secret = active.complete(&done.pub_key).expect("client");
        assert_eq!(secret.secret_bytes(), done.secret.secret_bytes());
    }
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

/// SecP384r1MLKEM1024 on AWS-LC's primitives (aws-lc-rs `agreement` P-384 and `kem`
/// ML-KEM-1024), which rustls 0.23's aws-lc-rs provider does not offer: composed here by
/// the draft's layout (P-384 first in shares and secret), as rustls composes
/// SecP256r1MLKEM768, with the same allocations.
static AWS_SECP384R1MLKEM1024: Group = &AwsP384MlKem1024;

#[derive(Debug)]
struct AwsP384MlKem1024;

/// Its client side between `start` and `complete`.
struct AwsP384MlKem1024Active {
    ecdh: aws_lc_rs::agreement::EphemeralPrivateKey,
    dk: aws_lc_rs::kem::DecapsulationKey<aws_lc_rs::kem::AlgorithmId>,
    share: Vec<u8>,
}

const P384_SHARE: usize = 97;
const BAD_SHARE: rustls::Error =
    rustls::Error::PeerMisbehaved(rustls::PeerMisbehaved::InvalidKeyShare);

fn aws_p384() -> aws_lc_rs::agreement::EphemeralPrivateKey {
    aws_lc_rs::agreement::EphemeralPrivateKey::generate(
        &aws_lc_rs::agreement::ECDH_P384,
        &aws_lc_rs::rand::SystemRandom::new(),
    )
    .expect("AWS-LC P-384 keygen")
}

fn aws_p384_agree(
    own: aws_lc_rs::agreement::EphemeralPrivateKey,
    peer: &[u8],
    secret: &mut Vec<u8>,
) -> Result<(), rustls::Error> {
    use aws_lc_rs::agreement::{ECDH_P384, UnparsedPublicKey, agree_ephemeral};
    agree_ephemeral(
        own,
        UnparsedPublicKey::new(&ECDH_P384, peer),
        BAD_SHARE,
        |s| {
            secret.extend_from_slice(s);
            Ok(())
        },
    )
}

impl SupportedKxGroup for AwsP384MlKem1024 {
    fn start(&self) -> Result<Box<dyn rustls::crypto::ActiveKeyExchange>, rustls::Error> {
        use aws_lc_rs::kem::{DecapsulationKey, ML_KEM_1024};
        let dk = DecapsulationKey::generate(&ML_KEM_1024).expect("AWS-LC keygen");
        let ek = dk.encapsulation_key().expect("ek");
        let ek = ek.key_bytes().expect("ek bytes");
        let ecdh = aws_p384();
        let mut share = Vec::with_capacity(P384_SHARE + 1568);
        share.extend_from_slice(ecdh.compute_public_key().expect("public").as_ref());
        share.extend_from_slice(ek.as_ref());
        Ok(Box::new(AwsP384MlKem1024Active { ecdh, dk, share }))
    }

    fn start_and_complete(
        &self,
        client_share: &[u8],
    ) -> Result<rustls::crypto::CompletedKeyExchange, rustls::Error> {
        use aws_lc_rs::kem::{EncapsulationKey, ML_KEM_1024};
        if client_share.len() != P384_SHARE + 1568 {
            return Err(BAD_SHARE);
        }
        let (peer, ek) = client_share.split_at(P384_SHARE);
        let ek = EncapsulationKey::new(&ML_KEM_1024, ek).map_err(|_| BAD_SHARE)?;
        let (ct, kem_secret) = ek.encapsulate().map_err(|_| BAD_SHARE)?;
        let ecdh = aws_p384();
        let mut pub_key = Vec::with_capacity(P384_SHARE + 1568);
        pub_key.extend_from_slice(ecdh.compute_public_key().expect("public").as_ref());
        pub_key.extend_from_slice(ct.as_ref());
        let mut secret = Vec::with_capacity(48 + 32);
        aws_p384_agree(ecdh, peer, &mut secret)?;
        secret.extend_from_slice(kem_secret.as_ref());
        Ok(rustls::crypto::CompletedKeyExchange {
            group: self.name(),
            pub_key,
            secret: rustls::crypto::SharedSecret::from(secret),
        })
    }

    fn name(&self) -> rustls::NamedGroup {
        rustls::NamedGroup::Unknown(rustls_lazykem::SECP384R1MLKEM1024_CODE_POINT)
    }
}

impl rustls::crypto::ActiveKeyExchange for AwsP384MlKem1024Active {
    fn complete(
        self: Box<Self>,
        peer: &[u8],
    ) -> Result<rustls::crypto::SharedSecret, rustls::Error> {
        if peer.len() != P384_SHARE + 1568 {
            return Err(BAD_SHARE);
        }
        let (peer_ecdh, ct) = peer.split_at(P384_SHARE);
        let mut secret = Vec::with_capacity(48 + 32);
        aws_p384_agree(self.ecdh, peer_ecdh, &mut secret)?;
        let kem_secret = self.dk.decapsulate(ct.into()).map_err(|_| BAD_SHARE)?;
        secret.extend_from_slice(kem_secret.as_ref());
        Ok(rustls::crypto::SharedSecret::from(secret))
    }

    fn pub_key(&self) -> &[u8] {
        &self.share
    }

    fn group(&self) -> rustls::NamedGroup {
        rustls::NamedGroup::Unknown(rustls_lazykem::SECP384R1MLKEM1024_CODE_POINT)
    }
}

/// The raw NIST-curve cells of one curve: key generation (a scalar from fresh random bytes
/// and its uncompressed public point) and Diffie-Hellman (parse and check the peer's point,
/// multiply), for ours (`lazykem_hybrid::group`, what `rustls-lazykem` runs), graviola
/// (where it runs), RustCrypto and AWS-LC (`agreement`, static keys), each checked once
/// against ours.
macro_rules! nist_raw_cells {
    ($cells:ident, $name:literal, $group:ty, $grav:ident, $rc:ident, $aws:ident) => {{
        use lazykem_hybrid::group::NominalGroup;
        type G = $group;
        const KEYGEN: &str = concat!($name, " raw: keygen");
        const DH: &str = concat!($name, " raw: parse peer + DH");
        let seed_len = G::SEED_SIZE;
        let keygen_ours = move || {
            let mut seed = [0u8; 128];
            getrandom::fill(&mut seed[..seed_len]).expect("rng");
            let x = G::random_scalar(&seed[..seed_len]).expect("a scalar");
            let public = G::exp_base_bytes(&x);
            (x, public)
        };
        let (a, a_pub) = keygen_ours();
        let (_, b_pub) = keygen_ours();
        let a_bytes = G::scalar_to_bytes(&a);
        let b_bytes: Vec<u8> = b_pub.as_ref().to_vec();
        let ours = G::exp(&G::element_from_bytes(&b_bytes).expect("a point"), &a);
        // RustCrypto.
        let rc_a = $rc::NonZeroScalar::try_from(&a_bytes[..]).expect("a scalar");
        let rc_b = $rc::PublicKey::from_sec1_bytes(&b_bytes).expect("a point");
        let rc = $rc::ecdh::diffie_hellman(rc_a, rc_b.as_affine());
        assert_eq!(
            rc.raw_secret_bytes().as_slice(),
            ours.as_slice(),
            "RustCrypto"
        );
        {
            use $rc::elliptic_curve::sec1::ToSec1Point;
            let public = $rc::PublicKey::from_secret_scalar(&rc_a);
            assert_eq!(public.to_sec1_point(false).as_bytes(), a_pub.as_ref());
        }
        // AWS-LC.
        let aws_a = aws_lc_rs::agreement::PrivateKey::from_private_key(
            &aws_lc_rs::agreement::$aws,
            &a_bytes,
        )
        .expect("a scalar");
        let aws = aws_lc_rs::agreement::agree(
            &aws_a,
            aws_lc_rs::agreement::UnparsedPublicKey::new(&aws_lc_rs::agreement::$aws, &b_bytes),
            (),
            |s| Ok(s.to_vec()),
        )
        .expect("agree");
        assert_eq!(aws.as_slice(), ours.as_slice(), "AWS-LC");
        let b2 = b_bytes.clone();
        let b3 = b_bytes.clone();
        let b4 = b_bytes.clone();
        $cells.extend([
            Cell::new(KEYGEN, "ours", move || {
                black_box(keygen_ours());
            }),
            Cell::new(DH, "ours", move || {
                let peer = G::element_from_bytes(black_box(&b_bytes)).expect("a point");
                black_box(G::exp(&peer, &a));
            }),
            Cell::new(KEYGEN, "rustcrypto", || {
                use $rc::elliptic_curve::Generate;
                use $rc::elliptic_curve::sec1::ToSec1Point;
                let x =
                    $rc::NonZeroScalar::try_generate_from_rng(&mut getrandom::SysRng).expect("rng");
                let public = $rc::PublicKey::from_secret_scalar(&x);
                black_box(public.to_sec1_point(false));
            }),
            Cell::new(DH, "rustcrypto", move || {
                let peer = $rc::PublicKey::from_sec1_bytes(black_box(&b2)).expect("a point");
                black_box($rc::ecdh::diffie_hellman(rc_a, peer.as_affine()));
            }),
            Cell::new(KEYGEN, "aws-lc-rs", || {
                let x = aws_lc_rs::agreement::PrivateKey::generate(&aws_lc_rs::agreement::$aws)
                    .expect("rng");
                black_box(x.compute_public_key().expect("public"));
            }),
            Cell::new(DH, "aws-lc-rs", move || {
                black_box(
                    aws_lc_rs::agreement::agree(
                        &aws_a,
                        aws_lc_rs::agreement::UnparsedPublicKey::new(
                            &aws_lc_rs::agreement::$aws,
                            black_box(&b3),
                        ),
                        (),
                        |s| Ok(s.to_vec()),
                    )
                    .expect("agree"),
                );
            }),
        ]);
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        if graviola::util::is_cpu_supported() {
            use graviola::key_agreement::$grav::{PublicKey, StaticPrivateKey};
            let grav_a = StaticPrivateKey::from_bytes(&a_bytes).expect("a scalar");
            let peer = PublicKey::from_x962_uncompressed(&b4).expect("a point");
            let grav = grav_a.diffie_hellman(&peer).expect("agree");
            assert_eq!(&grav.0[..], ours.as_slice(), "graviola");
            $cells.extend([
                Cell::new(KEYGEN, "graviola", || {
                    let x = StaticPrivateKey::new_random().expect("rng");
                    black_box(x.public_key_uncompressed());
                }),
                Cell::new(DH, "graviola", move || {
                    let peer = PublicKey::from_x962_uncompressed(black_box(&b4)).expect("a point");
                    black_box(grav_a.diffie_hellman(&peer).expect("agree"));
                }),
            ]);
        }
    }};
}

/// Every timed cell, each checked once (in `exchange`, or by its own assertions).
fn cells() -> Vec<Cell> {
    interoperate(rustls_lazykem::SECP384R1MLKEM1024, AWS_SECP384R1MLKEM1024);
    let ek768 = lazykem::ml_kem_768::DecapsulationKey::generate(&mut rand::rng())
        .encapsulation_key()
        .as_bytes()
        .to_vec();
    let ek768b = ek768.clone();

    // (row, ours, AWS-LC's): whole exchanges through each.
    let groups: [(&'static str, Group, Group); 8] = [
        (
            "X25519MLKEM768",
            rustls_lazykem::X25519MLKEM768,
            aws::X25519MLKEM768,
        ),
        (
            "ML-KEM part (MLKEM768)",
            rustls_lazykem::MLKEM768,
            aws::MLKEM768,
        ),
        (
            "X25519 part (X25519 group)",
            rustls_lazykem::X25519,
            aws::X25519,
        ),
        ("MLKEM1024", rustls_lazykem::MLKEM1024, aws::MLKEM1024),
        (
            "SecP256r1MLKEM768",
            rustls_lazykem::SECP256R1MLKEM768,
            aws::SECP256R1MLKEM768,
        ),
        (
            "P-256 part (secp256r1 group)",
            rustls_lazykem::SECP256R1,
            aws::SECP256R1,
        ),
        (
            "SecP384r1MLKEM1024",
            rustls_lazykem::SECP384R1MLKEM1024,
            AWS_SECP384R1MLKEM1024,
        ),
        (
            "P-384 part (secp384r1 group)",
            rustls_lazykem::SECP384R1,
            aws::SECP384R1,
        ),
    ];
    let mut cells = Vec::new();
    for (row, ours, theirs) in groups {
        cells.push(Cell::new(row, "ours", exchange(ours)));
        cells.push(Cell::new(row, "aws-lc-rs", exchange(theirs)));
    }
    cells.extend([
        Cell::new("X25519 raw: 2 keygen + 2 DH", "x25519-dalek", dalek_x25519),
        Cell::new("X25519 raw: 2 keygen + 2 DH", "aws-lc-rs", aws_lc_x25519),
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
    ]);
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    if graviola::util::is_cpu_supported() {
        graviola_x25519();
        cells.push(Cell::new(
            "X25519 raw: 2 keygen + 2 DH",
            "graviola",
            graviola_x25519,
        ));
    }
    nist_raw_cells!(
        cells,
        "P-256",
        lazykem_hybrid::group::P256,
        p256,
        p256,
        ECDH_P256
    );
    nist_raw_cells!(
        cells,
        "P-384",
        lazykem_hybrid::group::P384,
        p384,
        p384,
        ECDH_P384
    );
    cells
}

/// The markdown table of medians, one row per operation.
fn table(cells: &mut [Cell], rounds: usize) -> String {
    let libraries = [
        "ours",
        "aws-lc-rs",
        "graviola",
        "x25519-dalek",
        "rustcrypto",
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
        "| key exchange (µs, median of {rounds} interleaved rounds) | ours | aws-lc-rs | graviola | x25519-dalek | rustcrypto | ours one-shot | ours / aws-lc-rs |"
    );
    table.push_str("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for row in rows {
        let mut figures = [None; 6];
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
