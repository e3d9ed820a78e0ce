//! NIST ACVP ML-KEM vectors (FIPS 203 "internalProjection" files): keyGen and encapDecap
//! (encapsulation, decapsulation incl. implicit rejection, decapsulation- and
//! encapsulation-key checks), on every backend this CPU has. See `vectors/acvp/README.md`.

use crate::common::{
    ParamSet, array, array_field, assert_rejects_any, dispatch, expected_dk_check,
    expected_ek_check, h, hex_field, load_json, on_every_backend, skip_without_vectors, ss,
    str_field, tc_id,
};
use serde_json::Value;

const KEYGEN_FILE: &str = "acvp/ML-KEM-keyGen-FIPS203.internalProjection.json";
const ENCAP_DECAP_FILE: &str = "acvp/ML-KEM-encapDecap-FIPS203.internalProjection.json";

/// Numbers of tests stated in the README (and present in the files).
const KEYGEN_TESTS: usize = 75;
const ENCAP_DECAP_TESTS: usize = 195;

/// Total number of `tests` entries over all groups of an ACVP file.
fn count_tests(file: &Value) -> usize {
    array_field(file, "testGroups")
        .iter()
        .map(|g| array_field(g, "tests").len())
        .sum()
}

fn keygen_case<P: ParamSet>(test: &Value) {
    let id = tc_id(test);
    let d = hex_field(test, "d");
    let z = hex_field(test, "z");
    let seed: [u8; 64] = array(&[d, z].concat(), "d || z");
    let want_ek = hex_field(test, "ek");
    let want_dk = hex_field(test, "dk");

    let dk = P::dk_from_seed(&seed);
    assert_eq!(
        h(&P::ek_bytes(P::dk_ek(&dk))),
        h(&want_ek),
        "{} keyGen tcId {id}: ek",
        P::NAME
    );
    assert_eq!(
        h(&P::dk_expanded(&dk)),
        h(&want_dk),
        "{} keyGen tcId {id}: dk",
        P::NAME
    );
    assert_eq!(
        P::dk_seed(&dk),
        Some(seed),
        "{} keyGen tcId {id}: seed()",
        P::NAME
    );

    // The expanded encoding parses back to the same key.
    let parsed = P::dk_from_expanded(&want_dk)
        .unwrap_or_else(|e| panic!("{} keyGen tcId {id}: expanded dk rejected: {e:?}", P::NAME));
    assert_eq!(
        h(&P::dk_expanded(&parsed)),
        h(&want_dk),
        "{} keyGen tcId {id}: dk re-encode",
        P::NAME
    );
    assert_eq!(
        h(&P::ek_bytes(P::dk_ek(&parsed))),
        h(&want_ek),
        "{} keyGen tcId {id}: ek of parsed dk",
        P::NAME
    );
}

/// Runs every keyGen case; returns the number run. `label` names the backend in the output.
fn keygen(label: &str) -> usize {
    let file = load_json(KEYGEN_FILE);
    let in_file = count_tests(&file);
    let mut ran = 0usize;
    for group in array_field(&file, "testGroups") {
        let set = str_field(group, "parameterSet");
        for test in array_field(group, "tests") {
            dispatch!(set, keygen_case(test));
            ran += 1;
        }
    }
    eprintln!("ACVP [{label}] keyGen: {ran} cases passed");
    assert!(ran > 0, "no keyGen cases ran");
    assert_eq!(
        ran, in_file,
        "keyGen: ran {ran} of {in_file} cases in the file"
    );
    assert_eq!(
        ran, KEYGEN_TESTS,
        "keyGen: README states {KEYGEN_TESTS} cases"
    );
    ran
}

fn encapsulation_case<P: ParamSet>(test: &Value) {
    let id = tc_id(test);
    let ek_bytes = hex_field(test, "ek");
    let m: [u8; 32] = array(&hex_field(test, "m"), "m");
    let want_c = hex_field(test, "c");
    let want_k = hex_field(test, "k");

    let ek = P::ek_from_bytes(&ek_bytes)
        .unwrap_or_else(|e| panic!("{} encapsulation tcId {id}: ek rejected: {e:?}", P::NAME));
    assert_eq!(
        h(&P::ek_bytes(&ek)),
        h(&ek_bytes),
        "{} encapsulation tcId {id}: ek bytes",
        P::NAME
    );
    let (c, k) = P::encapsulate_deterministic(&ek, &m);
    assert_eq!(
        h(&P::ct_bytes(&c)),
        h(&want_c),
        "{} encapsulation tcId {id}: c",
        P::NAME
    );
    let (c1, k1) = P::encapsulate_encoded(&ek_bytes, &m)
        .unwrap_or_else(|e| panic!("{} encapsulation tcId {id}: one-shot: {e:?}", P::NAME));
    assert_eq!(
        (h(&P::ct_bytes(&c1)), h(&ss(&k1))),
        (h(&want_c), h(&want_k)),
        "{} encapsulation tcId {id}: one-shot c, k",
        P::NAME
    );
    assert_eq!(
        h(&ss(&k)),
        h(&want_k),
        "{} encapsulation tcId {id}: k",
        P::NAME
    );

    // The accompanying dk decapsulates it back to the same secret.
    let dk = P::dk_from_expanded(&hex_field(test, "dk"))
        .unwrap_or_else(|e| panic!("{} encapsulation tcId {id}: dk rejected: {e:?}", P::NAME));
    assert_eq!(
        h(&ss(&P::decapsulate(&dk, &c))),
        h(&want_k),
        "{} encapsulation tcId {id}: decaps",
        P::NAME
    );
}

/// Returns whether the case was an implicit-rejection ("modified ciphertext") case.
fn decapsulation_case<P: ParamSet>(test: &Value, key_format: &str) -> bool {
    let id = tc_id(test);
    let reason = str_field(test, "reason");
    let dk_bytes = hex_field(test, "dk");
    let dk = match key_format {
        "seed" => {
            let seed: [u8; 64] = array(
                &[hex_field(test, "d"), hex_field(test, "z")].concat(),
                "d || z",
            );
            let dk = P::dk_from_seed(&seed);
            assert_eq!(
                h(&P::dk_expanded(&dk)),
                h(&dk_bytes),
                "{} decapsulation tcId {id}: dk from seed",
                P::NAME
            );
            dk
        }
        "expanded" => P::dk_from_expanded(&dk_bytes)
            .unwrap_or_else(|e| panic!("{} decapsulation tcId {id}: dk rejected: {e:?}", P::NAME)),
        other => panic!(
            "{} decapsulation tcId {id}: unknown keyFormat {other:?}",
            P::NAME
        ),
    };
    let c = P::ct_from_bytes(&hex_field(test, "c"))
        .unwrap_or_else(|e| panic!("{} decapsulation tcId {id}: c rejected: {e:?}", P::NAME));
    let k = P::decapsulate(&dk, &c);
    assert_eq!(
        h(&ss(&k)),
        h(&hex_field(test, "k")),
        "{} decapsulation tcId {id} ({reason}, keyFormat {key_format}): k",
        P::NAME
    );
    // The one-shot decapsulation from the expanded key gives the same K.
    let k = P::decapsulate_expanded(&dk_bytes, &c).unwrap_or_else(|e| {
        panic!(
            "{} decapsulation tcId {id}: one-shot rejected dk: {e:?}",
            P::NAME
        )
    });
    assert_eq!(
        h(&ss(&k)),
        h(&hex_field(test, "k")),
        "{} decapsulation tcId {id} ({reason}): one-shot k",
        P::NAME
    );
    match reason {
        "valid decapsulation" => false,
        "modified ciphertext" => true,
        other => panic!(
            "{} decapsulation tcId {id}: unknown reason {other:?}",
            P::NAME
        ),
    }
}

/// Returns whether the key was (correctly) accepted.
fn dk_check_case<P: ParamSet>(test: &Value) -> bool {
    let id = tc_id(test);
    let passed = test["testPassed"]
        .as_bool()
        .unwrap_or_else(|| panic!("tcId {id}: testPassed is not a bool"));
    let reason = str_field(test, "reason");
    let dk = hex_field(test, "dk");
    let expect = expected_dk_check::<P>(&dk);
    let what = format!("{} decapsulationKeyCheck tcId {id} ({reason})", P::NAME);
    // The vector's verdict and an independent recomputation of the checks must agree.
    assert_eq!(
        passed,
        expect.is_empty(),
        "{what}: vector verdict vs recomputed checks {expect:?}"
    );
    let result = P::dk_from_expanded(&dk);
    // Validation alone reaches the same verdict as the import.
    assert_eq!(
        P::dk_validate(&dk),
        result.as_ref().map(|_| ()).map_err(|e| *e),
        "{what}: validate_expanded vs from_expanded_bytes"
    );
    if passed {
        let key = result.unwrap_or_else(|e| panic!("{what}: valid dk rejected: {e:?}"));
        assert_eq!(h(&P::dk_expanded(&key)), h(&dk), "{what}: re-encode");
        assert_eq!(
            h(&P::ek_bytes(P::dk_ek(&key))),
            h(&hex_field(test, "ek")),
            "{what}: ek"
        );
    } else {
        assert_eq!(
            reason, "modified H",
            "{what}: unexpected reason for an invalid dk"
        );
        assert_rejects_any(result, &expect, &what);
    }
    passed
}

/// Returns whether the key was (correctly) accepted.
fn ek_check_case<P: ParamSet>(test: &Value) -> bool {
    let id = tc_id(test);
    let passed = test["testPassed"]
        .as_bool()
        .unwrap_or_else(|| panic!("tcId {id}: testPassed is not a bool"));
    let reason = str_field(test, "reason");
    let ek = hex_field(test, "ek");
    let what = format!(
        "{} encapsulationKeyCheck tcId {id} ({reason}, {} bytes)",
        P::NAME,
        ek.len()
    );
    let expect = expected_ek_check::<P>(&ek);
    assert_eq!(
        passed,
        expect.is_none(),
        "{what}: vector verdict vs recomputed checks {expect:?}"
    );
    let result = P::ek_from_bytes(&ek);
    // Validation alone reaches the same verdict as parsing.
    assert_eq!(
        P::ek_validate(&ek),
        result.as_ref().map(|_| ()).map_err(|e| *e),
        "{what}: validate vs from_bytes"
    );
    match expect {
        None => {
            let key = result.unwrap_or_else(|e| panic!("{what}: valid ek rejected: {e:?}"));
            assert_eq!(h(&P::ek_bytes(&key)), h(&ek), "{what}: re-encode");
        }
        Some(expect) => assert_rejects_any(result, &[expect], &what),
    }
    passed
}

/// Runs every encapDecap case; returns the number run. `label` names the backend in the output.
fn encap_decap(label: &str) -> usize {
    let file = load_json(ENCAP_DECAP_FILE);
    let in_file = count_tests(&file);
    let (mut encaps, mut decaps_valid, mut decaps_rejected) = (0usize, 0usize, 0usize);
    let (mut dk_ok, mut dk_bad, mut ek_ok, mut ek_bad) = (0usize, 0usize, 0usize, 0usize);
    for group in array_field(&file, "testGroups") {
        let set = str_field(group, "parameterSet");
        let function = str_field(group, "function");
        for test in array_field(group, "tests") {
            match function {
                "encapsulation" => {
                    dispatch!(set, encapsulation_case(test));
                    encaps += 1;
                }
                "decapsulation" => {
                    let key_format = str_field(group, "keyFormat");
                    if dispatch!(set, decapsulation_case(test, key_format)) {
                        decaps_rejected += 1;
                    } else {
                        decaps_valid += 1;
                    }
                }
                "decapsulationKeyCheck" => {
                    if dispatch!(set, dk_check_case(test)) {
                        dk_ok += 1;
                    } else {
                        dk_bad += 1;
                    }
                }
                "encapsulationKeyCheck" => {
                    if dispatch!(set, ek_check_case(test)) {
                        ek_ok += 1;
                    } else {
                        ek_bad += 1;
                    }
                }
                other => panic!("unknown encapDecap function {other:?}"),
            }
        }
    }
    eprintln!("ACVP [{label}] encapsulation: {encaps} cases passed");
    eprintln!(
        "ACVP [{label}] decapsulation: {} cases passed ({decaps_valid} valid, {decaps_rejected} implicit rejection)",
        decaps_valid + decaps_rejected
    );
    eprintln!(
        "ACVP [{label}] decapsulationKeyCheck: {} cases passed ({dk_ok} accepted, {dk_bad} rejected)",
        dk_ok + dk_bad
    );
    eprintln!(
        "ACVP [{label}] encapsulationKeyCheck: {} cases passed ({ek_ok} accepted, {ek_bad} rejected)",
        ek_ok + ek_bad
    );

    let ran = encaps + decaps_valid + decaps_rejected + dk_ok + dk_bad + ek_ok + ek_bad;
    assert_eq!(
        ran, in_file,
        "encapDecap: ran {ran} of {in_file} cases in the file"
    );
    assert_eq!(
        ran, ENCAP_DECAP_TESTS,
        "encapDecap: README states {ENCAP_DECAP_TESTS} cases"
    );
    // Per-function counts from the README: every kind of case must actually be exercised.
    assert_eq!(encaps, 75, "encapsulation cases");
    assert_eq!(decaps_valid + decaps_rejected, 60, "decapsulation cases");
    assert!(
        decaps_valid > 0 && decaps_rejected > 0,
        "both decapsulation outcomes must occur"
    );
    assert_eq!(dk_ok + dk_bad, 30, "decapsulationKeyCheck cases");
    assert!(dk_ok > 0 && dk_bad > 0, "both dk-check verdicts must occur");
    assert_eq!(ek_ok + ek_bad, 30, "encapsulationKeyCheck cases");
    assert!(ek_ok > 0 && ek_bad > 0, "both ek-check verdicts must occur");
    ran
}

#[test]
fn acvp_keygen() {
    if skip_without_vectors() {
        return;
    }
    on_every_backend(|backend| {
        assert_eq!(keygen(backend), KEYGEN_TESTS);
    });
}

#[test]
fn acvp_encap_decap() {
    if skip_without_vectors() {
        return;
    }
    on_every_backend(|backend| {
        assert_eq!(encap_decap(backend), ENCAP_DECAP_TESTS);
    });
}
