//! The `self-test` feature: its known answers come from the ACVP file (every value of
//! `src/self_test/kats.rs` is checked against `vectors/acvp`), and the checked operations
//! work. The breakage test (a corrupted known answer must fail) is a unit test of
//! `src/self_test.rs`, where the tables are reachable.

use crate::common;

use serde_json::Value;
use sha3::{Digest, Sha3_256};

/// The fields of one case in `kats.rs`, in order: (name, hex value); the ACVP tcId.
struct Case {
    tc_id: u64,
    fields: Vec<(String, String)>,
}

/// Parses `kats.rs`: per parameter-set constant, its three cases (valid, rejected, encaps).
fn parse_kats(source: &str) -> Vec<(String, Vec<Case>)> {
    let mut sets = Vec::new();
    for block in source.split("pub(super) const ").skip(1) {
        let name = block.split(':').next().unwrap_or_default().to_owned();
        let mut cases = Vec::new();
        for case in block.split("// ACVP tcId ").skip(1) {
            let tc_id = case
                .split_whitespace()
                .next()
                .and_then(|t| t.parse().ok())
                .expect("a tcId after the marker");
            let mut fields = Vec::new();
            let mut rest = case;
            // Each field is `name: hex("..")` or `name: &hex::<N>("..")`.
            while let Some(colon) = rest.find(": ") {
                let name = rest[..colon].rsplit([' ', '\n']).next().unwrap_or_default();
                let after = &rest[colon + 2..];
                let Some(open) = after.find('"') else { break };
                if !after[..open].contains("hex") {
                    // `valid: DecapsCase {` and the like: not a field with a value.
                    rest = &after[open..];
                    continue;
                }
                let close = after[open + 1..].find('"').expect("closing quote") + open + 1;
                let value: String = after[open + 1..close]
                    .chars()
                    .filter(char::is_ascii_hexdigit)
                    .collect();
                fields.push((name.to_owned(), value));
                rest = &after[close + 1..];
                if rest.trim_start().starts_with("},") && fields.len() >= 4 {
                    break;
                }
            }
            cases.push(Case { tc_id, fields });
        }
        sets.push((name, cases));
    }
    sets
}

fn sha3_hex(hex_text: &str) -> String {
    hex::encode_upper(Sha3_256::digest(common::unhex(hex_text, "acvp value")))
}

fn find_case<'a>(doc: &'a Value, set: &str, function: &str, tc_id: u64) -> &'a Value {
    common::array_field(doc, "testGroups")
        .iter()
        .filter(|g| {
            common::str_field(g, "parameterSet") == set
                && common::str_field(g, "function") == function
        })
        .flat_map(|g| common::array_field(g, "tests"))
        .find(|t| common::tc_id(t) == tc_id)
        .unwrap_or_else(|| panic!("{set} {function} tcId {tc_id} not in the ACVP file"))
}

#[test]
fn every_known_answer_is_the_acvp_value() {
    if common::skip_without_vectors() {
        return;
    }
    let source = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/self_test/kats.rs"),
    )
    .expect("kats.rs");
    let doc = common::load_json("acvp/ML-KEM-encapDecap-FIPS203.internalProjection.json");
    let sets = parse_kats(&source);
    let names: Vec<&str> = sets.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["ML_KEM_512", "ML_KEM_768", "ML_KEM_1024"]);
    let mut checked = 0;
    for (name, cases) in &sets {
        let set = name.replace('_', "-");
        assert_eq!(cases.len(), 3, "{set}: valid, rejected, encaps");
        for (i, case) in cases.iter().enumerate() {
            let function = if i < 2 {
                "decapsulation"
            } else {
                "encapsulation"
            };
            let acvp = find_case(&doc, &set, function, case.tc_id);
            let reason = acvp.get("reason").and_then(Value::as_str);
            match i {
                0 => assert_eq!(reason, Some("valid decapsulation"), "{set}"),
                1 => assert_eq!(reason, Some("modified ciphertext"), "{set}"),
                _ => {}
            }
            let expected: Vec<(&str, String)> = if i < 2 {
                vec![
                    ("d", common::str_field(acvp, "d").to_uppercase()),
                    ("z", common::str_field(acvp, "z").to_uppercase()),
                    ("ek_sha3", sha3_hex(common::str_field(acvp, "ek"))),
                    ("dk_sha3", sha3_hex(common::str_field(acvp, "dk"))),
                    ("c", common::str_field(acvp, "c").to_uppercase()),
                    ("k", common::str_field(acvp, "k").to_uppercase()),
                ]
            } else {
                vec![
                    ("ek", common::str_field(acvp, "ek").to_uppercase()),
                    ("m", common::str_field(acvp, "m").to_uppercase()),
                    ("c_sha3", sha3_hex(common::str_field(acvp, "c"))),
                    ("k", common::str_field(acvp, "k").to_uppercase()),
                ]
            };
            let ours: Vec<(&str, String)> = case
                .fields
                .iter()
                .map(|(n, v)| (n.as_str(), v.to_uppercase()))
                .collect();
            assert_eq!(ours, expected, "{set} tcId {}", case.tc_id);
            checked += ours.len();
        }
    }
    assert_eq!(checked, 3 * (6 + 6 + 4));
}

#[test]
fn the_checked_operations_work() {
    use lazykem::ml_kem_1024::{DecapsulationKey, EncapsulationKey};
    assert_eq!(lazykem::self_test::run(), Ok(()));
    assert_eq!(lazykem::self_test::rerun(), Ok(()));
    let mut rng = rand::rng();
    let dk = DecapsulationKey::generate_checked(&mut rng).expect("self-tests pass");
    let ek = EncapsulationKey::from_bytes(dk.encapsulation_key().as_bytes()).expect("valid");
    let (ct, secret) = ek.encapsulate_checked(&mut rng).expect("self-tests pass");
    assert_eq!(dk.decapsulate_checked(&ct), Ok(secret.clone()));
    let expanded = dk.to_expanded_bytes();
    assert_eq!(
        DecapsulationKey::decapsulate_expanded(expanded.as_ref(), &ct),
        Ok(secret)
    );
}
