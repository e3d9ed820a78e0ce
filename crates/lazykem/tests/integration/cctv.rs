//! C2SP/CCTV ML-KEM vectors on every backend this CPU has: `strcmp` (decapsulation whose
//! re-encryption differs from c only after a zero byte), `modulus` (encapsulation keys with one
//! coefficient in [q, 4095]) and `unluckysample` (seeds whose matrix expansion needs more than
//! 575 SHAKE-128 bytes; final FIPS 203 values from CCTV PR #13). See
//! `vectors/cctv/README.md`.

use crate::common::{
    Expect, ParamSet, Q, SETS, array, assert_rejects, decode12, dispatch, h, on_every_backend,
    parse_kv_records, read_gzip_text, read_text, record_field, set_coeff12, set_name,
    skip_without_vectors, ss, unhex, unreduced_ek_coeffs,
};

/// Number of `key = value` lines in a record file.
fn field_lines(text: &str) -> usize {
    text.lines().filter(|l| l.contains('=')).count()
}

// ---------------------------------------------------------------------------------------------
// strcmp: dk, c, K

fn strcmp_file<P: ParamSet>(n: &str, backend: &str) -> usize {
    let file = format!("cctv/strcmp/ML-KEM-{n}.txt");
    let text = read_text(&file);
    let records = parse_kv_records(&text, &file);
    assert_eq!(
        field_lines(&text),
        3 * records.len(),
        "{file}: every record has dk, c, K"
    );
    for (i, rec) in records.iter().enumerate() {
        let what = format!("{file} record {i}");
        let dk_bytes = record_field(rec, "dk", &what);
        let c = record_field(rec, "c", &what);
        let want_k = record_field(rec, "K", &what);
        let dk =
            P::dk_from_expanded(dk_bytes).unwrap_or_else(|e| panic!("{what}: dk rejected: {e:?}"));
        let ct = P::ct_from_bytes(c).unwrap_or_else(|e| panic!("{what}: c rejected: {e:?}"));
        assert_eq!(h(&ss(&P::decapsulate(&dk, &ct))), h(want_k), "{what}: K");
    }
    eprintln!("CCTV [{backend}] {file}: {} cases passed", records.len());
    records.len()
}

/// Records per strcmp file (ML-KEM-512, -768, -1024): the README states one per file.
const STRCMP_CASES: [usize; 3] = [1, 1, 1];

/// Runs the three strcmp files on the current backend (`backend` labels the output); returns
/// each file's case count, to be compared with [`STRCMP_CASES`].
fn strcmp(backend: &str) -> [usize; 3] {
    SETS.map(|n| dispatch!(set_name(n).as_str(), strcmp_file(n, backend)))
}

// ---------------------------------------------------------------------------------------------
// modulus: one hex ek per line, each with exactly one coefficient >= q

fn modulus_file<P: ParamSet>(n: &str, backend: &str) -> usize {
    let file = format!("cctv/modulus/ML-KEM-{n}.txt.gz");
    let text = read_gzip_text(&file);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let mut fixed_accepted = 0usize;
    for (i, line) in lines.iter().enumerate() {
        let what = format!("{file} line {}", i + 1);
        let ek = unhex(line, &what);
        assert_eq!(ek.len(), P::EK_SIZE, "{what}: length");
        // The vector's promise, checked independently: exactly one coefficient in [q, 4095].
        let bad = unreduced_ek_coeffs(&ek);
        assert_eq!(
            bad.len(),
            1,
            "{what}: expected exactly one unreduced coefficient"
        );
        assert_rejects(P::ek_from_bytes(&ek), Expect::EkNotReduced, &what);

        // Specificity: the same key with that coefficient reduced mod q must be accepted, so the
        // rejection above is due to the modulus check and nothing else. (Only a sample, since
        // parsing a valid key expands the matrix.)
        if i % 16 == 0 {
            let mut fixed = ek.clone();
            let idx = bad[0];
            let value = decode12(&ek[..ek.len() - 32])[idx];
            set_coeff12(&mut fixed, idx, value - Q);
            let key = P::ek_from_bytes(&fixed)
                .unwrap_or_else(|e| panic!("{what}: reduced key rejected: {e:?}"));
            assert_eq!(
                h(&P::ek_bytes(&key)),
                h(&fixed),
                "{what}: reduced key bytes"
            );
            fixed_accepted += 1;
        }
    }
    assert!(fixed_accepted > 0);
    eprintln!(
        "CCTV [{backend}] {file}: {} keys rejected as not reduced ({fixed_accepted} reduced counterparts accepted)",
        lines.len()
    );
    lines.len()
}

/// Keys per modulus file, as stated in the README.
const MODULUS_CASES: [usize; 3] = [775, 780, 1040];

/// Runs the three modulus files; returns each file's key count, to be compared with
/// [`MODULUS_CASES`].
fn modulus(backend: &str) -> [usize; 3] {
    SETS.map(|n| dispatch!(set_name(n).as_str(), modulus_file(n, backend)))
}

// ---------------------------------------------------------------------------------------------
// unluckysample: d, z, ek, dk, m, K, c

fn unlucky_file<P: ParamSet>(n: &str, backend: &str) -> usize {
    let file = format!("cctv/unluckysample/ML-KEM-{n}.txt");
    let text = read_text(&file);
    let records = parse_kv_records(&text, &file);
    assert_eq!(
        field_lines(&text),
        7 * records.len(),
        "{file}: every record has d, z, ek, dk, m, K, c"
    );
    for (i, rec) in records.iter().enumerate() {
        let what = format!("{file} record {i}");
        let field = |key: &str| record_field(rec, key, &what);
        let seed: [u8; 64] = array(&[field("d"), field("z")].concat(), "d || z");
        let m: [u8; 32] = array(field("m"), "m");

        let dk = P::dk_from_seed(&seed);
        let ek = P::dk_ek(&dk);
        assert_eq!(h(&P::ek_bytes(ek)), h(field("ek")), "{what}: ek");
        assert_eq!(h(&P::dk_expanded(&dk)), h(field("dk")), "{what}: dk");

        let (c, k) = P::encapsulate_deterministic(ek, &m);
        assert_eq!(h(&P::ct_bytes(&c)), h(field("c")), "{what}: c");
        assert_eq!(h(&ss(&k)), h(field("K")), "{what}: K");
        assert_eq!(
            h(&ss(&P::decapsulate(&dk, &c))),
            h(field("K")),
            "{what}: decapsulated K"
        );

        // The same through the byte-level entry points.
        let parsed_ek =
            P::ek_from_bytes(field("ek")).unwrap_or_else(|e| panic!("{what}: ek rejected: {e:?}"));
        let (c2, k2) = P::encapsulate_deterministic(&parsed_ek, &m);
        assert_eq!(
            h(&P::ct_bytes(&c2)),
            h(field("c")),
            "{what}: c via parsed ek"
        );
        assert_eq!(h(&ss(&k2)), h(field("K")), "{what}: K via parsed ek");
        let parsed_dk = P::dk_from_expanded(field("dk"))
            .unwrap_or_else(|e| panic!("{what}: dk rejected: {e:?}"));
        let ct =
            P::ct_from_bytes(field("c")).unwrap_or_else(|e| panic!("{what}: c rejected: {e:?}"));
        assert_eq!(
            h(&ss(&P::decapsulate(&parsed_dk, &ct))),
            h(field("K")),
            "{what}: K via parsed dk"
        );
    }
    eprintln!("CCTV [{backend}] {file}: {} cases passed", records.len());
    records.len()
}

/// Records per unluckysample file: the README states one per file.
const UNLUCKY_SAMPLE_CASES: [usize; 3] = [1, 1, 1];

/// Runs the three unluckysample files; returns each file's case count, to be compared with
/// [`UNLUCKY_SAMPLE_CASES`].
fn unlucky_sample(backend: &str) -> [usize; 3] {
    SETS.map(|n| dispatch!(set_name(n).as_str(), unlucky_file(n, backend)))
}

#[test]
fn cctv_strcmp() {
    if skip_without_vectors() {
        return;
    }
    on_every_backend(|backend| {
        assert_eq!(strcmp(backend), STRCMP_CASES);
    });
}

#[test]
fn cctv_modulus() {
    if skip_without_vectors() {
        return;
    }
    on_every_backend(|backend| {
        assert_eq!(modulus(backend), MODULUS_CASES);
    });
}

#[test]
fn cctv_unlucky_sample() {
    if skip_without_vectors() {
        return;
    }
    on_every_backend(|backend| {
        assert_eq!(unlucky_sample(backend), UNLUCKY_SAMPLE_CASES);
    });
}
