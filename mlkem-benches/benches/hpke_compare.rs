//! Interleaved timing of HPKE single-shot seal + open: `lazykem-hpke` against rust-hpke
//! (`hpke` 0.15, as the lock file resolves it), per suite of `draft-ietf-hpke-pq`'s test vectors, and the HPKE layer's
//! overhead over raw X-Wing plus the AEAD.
//!
//! `cargo bench -p mlkem-benches --bench hpke_compare [-- --rounds N]`
//!
//! One operation is `Seal<Base>` of a 1 KiB message (empty `aad`, the vectors' 40-byte
//! `info`) to the recipient key the vector derives from its `ikmR`, then `Open<Base>` of the
//! result: encapsulation, both key schedules, one AEAD seal and one open. Every cell is timed
//! in ~2 ms batches, the cells taking turns (`mlkem_benches::interleaved`), so the ratios
//! come from one run on a shared machine. `hpke` lacks ML-KEM-512 and DHKEM(X448): `-`.
//!
//! The overhead row: raw `lazykem_hybrid::x_wing` encapsulation to a parsed key and
//! decapsulation of the ciphertext it returned, plus a ChaCha20-Poly1305 seal and open of
//! the same 1 KiB under a fixed key and nonce (the `chacha20poly1305` crate, as
//! `lazykem-hpke` uses), against HPKE seal + open of suite (0x647a, 0x0001, 0x0003).
//!
//! Before timing, each library's seal is opened by the other (and by itself). Prints a
//! markdown table and writes it to `target/bench-report/hpke_compare.md`.
#![allow(missing_docs)] // a bench binary

use lazykem_hpke::{AeadId, KdfId, KemId, PrivateKey, PublicKey, Suite};
use mlkem_benches::interleaved::{BatchTimer, rounds_from_args};
use rand::SeedableRng;
use rand::rngs::StdRng;
use std::cell::RefCell;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Instant;

const MESSAGE_LEN: usize = 1024;

/// One suite of the vectors file: ids, `ikmR`, `info`.
struct Vector {
    ids: (u16, u16, u16),
    ikm_r: Vec<u8>,
    info: Vec<u8>,
}

fn vectors() -> Vec<Vector> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../vectors/hpke-pq/test-vectors.json"
    );
    let text = std::fs::read_to_string(path).expect("vectors/hpke-pq/test-vectors.json");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let field = |v: &serde_json::Value, name: &str| v[name].clone();
    let hex = |v: &serde_json::Value, name: &str| {
        hex::decode(field(v, name).as_str().expect("hex string")).expect("hex")
    };
    let id = |v: &serde_json::Value, name: &str| {
        u16::try_from(field(v, name).as_u64().expect("id")).expect("16-bit id")
    };
    json.as_array()
        .expect("an array of vectors")
        .iter()
        .filter(|v| v["mode"] == 0)
        .map(|v| Vector {
            ids: (id(v, "kem_id"), id(v, "kdf_id"), id(v, "aead_id")),
            ikm_r: hex(v, "ikmR"),
            info: hex(v, "info"),
        })
        .collect()
}

/// Our seal + open, after a check that they round-trip.
fn ours<'a>(
    suite: Suite,
    vector: &'a Vector,
    msg: &'a [u8],
) -> (PrivateKey, PublicKey, BatchTimer<'a>) {
    let (sk, pk) = suite.derive_key_pair(&vector.ikm_r).expect("derive");
    let rng = RefCell::new(StdRng::seed_from_u64(1));
    let (enc, ct) = suite
        .seal(&pk, &vector.info, b"", msg, &mut *rng.borrow_mut())
        .expect("seal");
    let pt = suite.open(&sk, &enc, &vector.info, b"", &ct).expect("open");
    assert_eq!(pt, msg, "{suite:?}");
    // The same pair again (no `Clone` on private keys), for the timed closure.
    let (sk2, pk2) = suite.derive_key_pair(&vector.ikm_r).expect("derive");
    let info = &vector.info;
    let timer = BatchTimer::new(move || {
        let (enc, ct) = suite
            .seal(&pk2, info, b"", msg, &mut *rng.borrow_mut())
            .expect("seal");
        let pt = suite.open(&sk2, &enc, info, b"", &ct).expect("open");
        black_box(pt);
    });
    (sk, pk, timer)
}

/// rust-hpke's seal + open for one suite, cross-checked with ours; `None` where `hpke`
/// lacks the KEM.
trait Theirs {
    fn cell<'a>(
        vector: &'a Vector,
        msg: &'a [u8],
        suite: Suite,
        ours: (&PrivateKey, &PublicKey),
    ) -> BatchTimer<'a>;
}

struct With<A, D, K>(core::marker::PhantomData<(A, D, K)>);

impl<A, D, K> Theirs for With<A, D, K>
where
    A: hpke::aead::Aead + 'static,
    D: hpke::kdf::Kdf + 'static,
    K: hpke::Kem + 'static,
{
    fn cell<'a>(
        vector: &'a Vector,
        msg: &'a [u8],
        suite: Suite,
        (our_sk, our_pk): (&PrivateKey, &PublicKey),
    ) -> BatchTimer<'a> {
        use hpke::{Deserializable, OpModeR, OpModeS, Serializable};
        assert_eq!((K::KEM_ID, D::KDF_ID, A::AEAD_ID), vector.ids);
        let (sk, pk) = K::derive_keypair(&vector.ikm_r);
        assert_eq!(
            pk.to_bytes().as_slice(),
            our_pk.as_bytes(),
            "{suite:?}: same pkR"
        );
        let info = &vector.info;
        let mut rng = StdRng::seed_from_u64(2);
        // Theirs to ours.
        let (enc, ct) = hpke::single_shot_seal_with_rng::<A, D, K>(
            &OpModeS::Base,
            &pk,
            info,
            msg,
            b"",
            &mut rng,
        )
        .expect("hpke seal");
        let pt = suite
            .open(our_sk, &enc.to_bytes(), info, b"", &ct)
            .expect("ours opens hpke's");
        assert_eq!(pt, msg);
        // Ours to theirs.
        let (enc, ct) = suite.seal(our_pk, info, b"", msg, &mut rng).expect("seal");
        let enc = K::EncappedKey::from_bytes(&enc).expect("hpke parses our enc");
        let pt = hpke::single_shot_open::<A, D, K>(&OpModeR::Base, &sk, &enc, info, &ct, b"")
            .expect("hpke opens ours");
        assert_eq!(pt, msg);
        BatchTimer::new(move || {
            let (enc, ct) = hpke::single_shot_seal_with_rng::<A, D, K>(
                &OpModeS::Base,
                &pk,
                info,
                msg,
                b"",
                &mut rng,
            )
            .expect("seal");
            let pt = hpke::single_shot_open::<A, D, K>(&OpModeR::Base, &sk, &enc, info, &ct, b"")
                .expect("open");
            black_box(pt);
        })
    }
}

/// rust-hpke's cell for the suite, if it has the KEM (it has every KDF and AEAD here).
fn theirs<'a>(
    vector: &'a Vector,
    msg: &'a [u8],
    suite: Suite,
    keys: (&PrivateKey, &PublicKey),
) -> Option<BatchTimer<'a>> {
    use hpke::aead::{AesGcm128, AesGcm256, ChaCha20Poly1305};
    use hpke::kdf::{
        HkdfSha256, HkdfSha384, HkdfSha512, KdfShake128, KdfShake256, KdfTurboShake128,
        KdfTurboShake256,
    };
    use hpke::kem::{
        DhP256HkdfSha256, DhP384HkdfSha384, MlKem768, MlKem768P256, MlKem1024, MlKem1024P384,
        X25519HkdfSha256, XWing,
    };
    macro_rules! by_aead {
        ($kdf:ty, $kem:ty) => {
            match suite.aead {
                AeadId::Aes128Gcm => With::<AesGcm128, $kdf, $kem>::cell(vector, msg, suite, keys),
                AeadId::Aes256Gcm => With::<AesGcm256, $kdf, $kem>::cell(vector, msg, suite, keys),
                AeadId::ChaCha20Poly1305 => {
                    With::<ChaCha20Poly1305, $kdf, $kem>::cell(vector, msg, suite, keys)
                }
                // Not in the vectors (and `hpke`'s export-only AEAD panics with a one-stage
                // KDF).
                _ => return None,
            }
        };
    }
    macro_rules! by_kdf {
        ($kem:ty) => {
            match suite.kdf {
                KdfId::HkdfSha256 => by_aead!(HkdfSha256, $kem),
                KdfId::HkdfSha384 => by_aead!(HkdfSha384, $kem),
                KdfId::HkdfSha512 => by_aead!(HkdfSha512, $kem),
                KdfId::Shake128 => by_aead!(KdfShake128, $kem),
                KdfId::Shake256 => by_aead!(KdfShake256, $kem),
                KdfId::TurboShake128 => by_aead!(KdfTurboShake128, $kem),
                KdfId::TurboShake256 => by_aead!(KdfTurboShake256, $kem),
                _ => return None,
            }
        };
    }
    Some(match suite.kem {
        KemId::DhkemP256HkdfSha256 => by_kdf!(DhP256HkdfSha256),
        KemId::DhkemP384HkdfSha384 => by_kdf!(DhP384HkdfSha384),
        KemId::DhkemX25519HkdfSha256 => by_kdf!(X25519HkdfSha256),
        KemId::MlKem768 => by_kdf!(MlKem768),
        KemId::MlKem1024 => by_kdf!(MlKem1024),
        KemId::MlKem768P256 => by_kdf!(MlKem768P256),
        KemId::MlKem1024P384 => by_kdf!(MlKem1024P384),
        KemId::MlKem768X25519 => by_kdf!(XWing),
        // ML-KEM-512, DHKEM(X448): not in `hpke` 0.15.
        _ => return None,
    })
}

/// Raw X-Wing encapsulation + decapsulation and a ChaCha20-Poly1305 seal + open of `msg`.
fn raw_xwing(msg: &[u8]) -> BatchTimer<'_> {
    use chacha20poly1305::aead::{AeadInOut, KeyInit};
    use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
    use lazykem_hybrid::x_wing::DecapsulationKey;
    let dk = DecapsulationKey::from_seed(&[7; 32]).expect("seed");
    let ek = dk.encapsulation_key().clone();
    let mut rng = StdRng::seed_from_u64(3);
    let key = Key::from([9u8; 32]);
    let nonce = Nonce::from([5u8; 12]);
    let mut buffer = Vec::with_capacity(MESSAGE_LEN + 16);
    BatchTimer::new(move || {
        let (ct, ss) = ek.encapsulate(&mut rng);
        let ss2 = dk.decapsulate(&ct);
        black_box((ss, ss2));
        let cipher = ChaCha20Poly1305::new(&key);
        buffer.clear();
        buffer.extend_from_slice(msg);
        let tag = cipher
            .encrypt_inout_detached(&nonce, b"", buffer.as_mut_slice().into())
            .expect("seal");
        let cipher = ChaCha20Poly1305::new(&key);
        cipher
            .decrypt_inout_detached(&nonce, b"", buffer.as_mut_slice().into(), &tag)
            .expect("open");
        black_box(&buffer);
    })
}

struct Row<'a> {
    label: String,
    ours: BatchTimer<'a>,
    theirs: Option<BatchTimer<'a>>,
}

fn main() {
    let rounds = rounds_from_args(41);
    let start = Instant::now();
    let vectors = vectors();
    assert_eq!(vectors.len(), 13, "the draft's 13 suites");
    let msg: Vec<u8> = (0..MESSAGE_LEN).map(|i| i as u8).collect();
    let mut rows: Vec<Row<'_>> = Vec::new();
    let mut xwing_hpke = None;
    for vector in &vectors {
        let (kem, kdf, aead) = vector.ids;
        let suite = Suite::from_ids(kem, kdf, aead).expect("a suite of the crate");
        let (sk, pk, timer) = ours(suite, vector, &msg);
        let theirs = theirs(vector, &msg, suite, (&sk, &pk));
        if vector.ids == (0x647a, 0x0001, 0x0003) {
            xwing_hpke = Some(rows.len());
        }
        rows.push(Row {
            label: format!(
                "{} / {} / {} (0x{kem:04x}, 0x{kdf:04x}, 0x{aead:04x})",
                suite.kem.name(),
                suite.kdf.name(),
                suite.aead.name()
            ),
            ours: timer,
            theirs,
        });
    }
    let xwing_hpke = xwing_hpke.expect("the vectors' X-Wing suite with HKDF-SHA256, ChaCha20");
    let mut raw = raw_xwing(&msg);

    let mut timers: Vec<&mut BatchTimer<'_>> = Vec::new();
    for row in &mut rows {
        timers.push(&mut row.ours);
        if let Some(t) = row.theirs.as_mut() {
            timers.push(t);
        }
    }
    timers.push(&mut raw);
    for t in &mut timers {
        t.calibrate();
    }
    let count = timers.len();
    for round in 0..rounds {
        for k in 0..count {
            timers[(k + round * 7) % count].sample();
        }
    }
    drop(timers);

    let mut table = format!(
        "HPKE single-shot Seal<Base> + Open<Base> of {MESSAGE_LEN} bytes (empty aad, 40-byte \
         info): median us over {rounds} interleaved rounds of ~2 ms batches. `-`: not in \
         `hpke` 0.15.\n\n\
         | suite (KEM / KDF / AEAD) | lazykem-hpke | hpke 0.15 | ours / hpke |\n\
         |---|---:|---:|---:|\n"
    );
    let mut figures = Vec::new();
    for row in &mut rows {
        let o = row.ours.median_us();
        let t = row.theirs.as_mut().map(BatchTimer::median_us);
        figures.push(o);
        let _ = match t {
            Some(t) => writeln!(table, "| {} | {o:.1} | {t:.1} | {:.2} |", row.label, o / t),
            None => writeln!(table, "| {} | {o:.1} | - | - |", row.label),
        };
    }
    let raw_us = raw.median_us();
    let _ = writeln!(
        table,
        "\nOverhead of the HPKE layer: HPKE seal + open, MLKEM768-X25519 / HKDF-SHA256 / \
         ChaCha20-Poly1305: {:.1} us; raw X-Wing encaps + decaps + ChaCha20-Poly1305 seal + \
         open of the same {MESSAGE_LEN} bytes: {raw_us:.1} us; ratio {:.3} (target <= 1.15).",
        figures[xwing_hpke],
        figures[xwing_hpke] / raw_us
    );
    println!("{table}");
    println!("(measured in {:.0} s)", start.elapsed().as_secs_f64());
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-report");
    if std::fs::create_dir_all(&dir).is_ok()
        && std::fs::write(dir.join("hpke_compare.md"), &table).is_ok()
    {
        println!("written to target/bench-report/hpke_compare.md");
    }
}
