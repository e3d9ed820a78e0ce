//! C2SP Wycheproof ML-KEM vectors on every backend this CPU has: all 12 files (keygen from
//! seed, seed-format decapsulation, encapsulation with key checks, semi-expanded
//! decapsulation). See `vectors/wycheproof/README.md`.
//!
//! Handling of `result`:
//! * `valid`: the operation must succeed and reproduce every expected output.
//! * `invalid`: the operation must fail, with the error variant that the input's defect calls
//!   for (recomputed from the input itself, and cross-checked against the vector's comment and
//!   flags so a mislabelled vector cannot make a wrong error pass).
//! * `acceptable`: Wycheproof's "either outcome is allowed" verdict (e.g. inputs a strict
//!   implementation may reject but a lenient one may process). We accept both outcomes, but if
//!   the operation succeeds its outputs must equal the expected ones, and a rejection must still
//!   be one of the errors the input's defect explains. The current files contain no
//!   `acceptable` case; the count is reported so a future update that adds some is visible.

use crate::common::{
    Expect, ParamSet, SETS, array, array_field, dispatch, expected_dk_check, expected_ek_check, h,
    hex_field, load_json, on_every_backend, opt_hex_field, set_name, skip_without_vectors, ss,
    str_field, tc_id, unreduced_ek_coeffs,
};
use lazykem::Error;
use serde_json::Value;

/// Outcome tallies of one file.
#[derive(Default, Debug)]
struct Tally {
    valid: usize,
    invalid: usize,
    acceptable_accepted: usize,
    acceptable_rejected: usize,
}

impl Tally {
    fn total(&self) -> usize {
        self.valid + self.invalid + self.acceptable_accepted + self.acceptable_rejected
    }
}

/// A file's tests with their `result`, after checking `numberOfTests` and the parameter set.
fn load_tests<P: ParamSet>(file: &str) -> (Value, usize) {
    let json = load_json(file);
    let declared = json["numberOfTests"]
        .as_u64()
        .unwrap_or_else(|| panic!("{file}: numberOfTests missing")) as usize;
    for group in array_field(&json, "testGroups") {
        assert_eq!(
            str_field(group, "parameterSet"),
            P::NAME,
            "{file}: group parameter set"
        );
    }
    (json, declared)
}

/// Judge one test: `outcome` is what the implementation did (Ok with a closure that checks the
/// outputs, or the error), `expect` the rejections the input's defects call for.
fn judge(
    tally: &mut Tally,
    what: &str,
    result: &str,
    outcome: Result<(), Error>,
    expect: &[Expect],
) {
    match result {
        "valid" => {
            assert!(
                expect.is_empty(),
                "{what}: valid vector but the input is defective: {expect:?}"
            );
            if let Err(e) = outcome {
                panic!("{what}: valid case rejected with {e:?}");
            }
            tally.valid += 1;
        }
        "invalid" => {
            assert!(
                !expect.is_empty(),
                "{what}: invalid vector with no defect this test can name"
            );
            match outcome {
                Ok(()) => panic!("{what}: invalid case accepted, expected {expect:?}"),
                Err(e) => assert!(
                    expect.iter().any(|x| x.matches(&e)),
                    "{what}: wrong error {e:?}, expected one of {expect:?}"
                ),
            }
            tally.invalid += 1;
        }
        "acceptable" => match outcome {
            Ok(()) => tally.acceptable_accepted += 1,
            Err(e) => {
                assert!(
                    expect.iter().any(|x| x.matches(&e)),
                    "{what}: acceptable case rejected with an unexplained error {e:?} (defects: {expect:?})"
                );
                tally.acceptable_rejected += 1;
            }
        },
        other => panic!("{what}: unknown result {other:?}"),
    }
}

fn report(file: &str, backend: &str, tally: &Tally, declared: usize) {
    eprintln!(
        "Wycheproof [{backend}] {file}: {} cases passed ({} valid, {} invalid, {} acceptable accepted, {} acceptable rejected)",
        tally.total(),
        tally.valid,
        tally.invalid,
        tally.acceptable_accepted,
        tally.acceptable_rejected
    );
    assert!(tally.total() > 0, "{file}: no cases ran");
    assert_eq!(
        tally.total(),
        declared,
        "{file}: ran {} of numberOfTests = {declared}",
        tally.total()
    );
}

fn comment(test: &Value) -> &str {
    test.get("comment").and_then(Value::as_str).unwrap_or("")
}

fn flags(test: &Value) -> Vec<&str> {
    test.get("flags")
        .and_then(Value::as_array)
        .map(|f| f.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// mlkem_N_keygen_seed_test.json: seed -> ek, expanded dk

fn keygen_seed_file<P: ParamSet>(n: &str, backend: &str) -> usize {
    let file = format!("wycheproof/mlkem_{n}_keygen_seed_test.json");
    let (json, declared) = load_tests::<P>(&file);
    let mut tally = Tally::default();
    for group in array_field(&json, "testGroups") {
        for test in array_field(group, "tests") {
            let what = format!("{file} tcId {}", tc_id(test));
            let seed_bytes = hex_field(test, "seed");
            let want_ek = hex_field(test, "ek");
            let want_dk = hex_field(test, "dk");
            let mut expect = Vec::new();
            if seed_bytes.len() != 64 {
                expect.push(Expect::SeedLength {
                    expected: 64,
                    actual: seed_bytes.len(),
                });
            }
            let outcome = P::dk_from_seed_bytes(&seed_bytes).map(|dk| {
                assert_eq!(h(&P::ek_bytes(P::dk_ek(&dk))), h(&want_ek), "{what}: ek");
                assert_eq!(h(&P::dk_expanded(&dk)), h(&want_dk), "{what}: dk");
                let seed: [u8; 64] = array(&seed_bytes, "seed");
                assert_eq!(P::dk_seed(&dk), Some(seed), "{what}: seed()");
                // The infallible constructor agrees with the length-checked one.
                let dk2 = P::dk_from_seed(&seed);
                assert_eq!(
                    h(&P::dk_expanded(&dk2)),
                    h(&want_dk),
                    "{what}: from_seed dk"
                );
            });
            judge(
                &mut tally,
                &what,
                str_field(test, "result"),
                outcome,
                &expect,
            );
        }
    }
    report(&file, backend, &tally, declared);
    tally.total()
}

/// Case counts of the keygen files (ML-KEM-512, -768, -1024) stated in the README.
const KEYGEN_SEED_CASES: [usize; 3] = [100, 100, 100];

/// Runs the three keygen files on the current backend (`backend` labels the output); returns
/// each file's case count, to be compared with [`KEYGEN_SEED_CASES`].
fn keygen_seed(backend: &str) -> [usize; 3] {
    SETS.map(|n| dispatch!(set_name(n).as_str(), keygen_seed_file(n, backend)))
}

// ---------------------------------------------------------------------------------------------
// mlkem_N_test.json: 64-byte seed (private key) + c -> K

fn decaps_seed_file<P: ParamSet>(n: &str, backend: &str) -> usize {
    let file = format!("wycheproof/mlkem_{n}_test.json");
    let (json, declared) = load_tests::<P>(&file);
    let mut tally = Tally::default();
    let mut strcmp = 0usize;
    for group in array_field(&json, "testGroups") {
        for test in array_field(group, "tests") {
            let what = format!("{file} tcId {} ({})", tc_id(test), comment(test));
            let seed = hex_field(test, "seed");
            let c = hex_field(test, "c");
            let want_k = hex_field(test, "K");
            let want_ek = opt_hex_field(test, "ek");
            if flags(test).contains(&"Strcmp") {
                strcmp += 1;
            }

            // Defects, recomputed from the input; the seed is parsed first, so a bad seed
            // is the only error that can be reported for it.
            let mut expect = Vec::new();
            if seed.len() != 64 {
                expect.push(Expect::SeedLength {
                    expected: 64,
                    actual: seed.len(),
                });
            } else if c.len() != P::CT_SIZE {
                expect.push(Expect::CtLength {
                    expected: P::CT_SIZE,
                    actual: c.len(),
                });
            }
            let cm = comment(test);
            if cm.starts_with("Private key too") {
                assert!(
                    matches!(expect.as_slice(), [Expect::SeedLength { .. }]),
                    "{what}: comment vs input"
                );
            }
            if cm.starts_with("Ciphertext too") {
                assert!(
                    matches!(expect.as_slice(), [Expect::CtLength { .. }]),
                    "{what}: comment vs input"
                );
            }

            let outcome = P::dk_from_seed_bytes(&seed).and_then(|dk| {
                if let Some(ek) = &want_ek {
                    assert_eq!(h(&P::ek_bytes(P::dk_ek(&dk))), h(ek), "{what}: ek");
                }
                let ct = P::ct_from_bytes(&c)?;
                assert_eq!(h(&P::ct_bytes(&ct)), h(&c), "{what}: ciphertext bytes");
                let k = P::decapsulate(&dk, &ct);
                assert_eq!(h(&ss(&k)), h(&want_k), "{what}: K");
                Ok(())
            });
            judge(
                &mut tally,
                &what,
                str_field(test, "result"),
                outcome,
                &expect,
            );
        }
    }
    assert_eq!(strcmp, 1, "{file}: the CCTV strcmp case must be present");
    report(&file, backend, &tally, declared);
    tally.total()
}

/// Case counts of the seed-format decapsulation files stated in the README.
const DECAPS_SEED_CASES: [usize; 3] = [193, 193, 193];

/// Runs the three seed-format decapsulation files; returns each file's case count, to be
/// compared with [`DECAPS_SEED_CASES`].
fn decaps_seed(backend: &str) -> [usize; 3] {
    SETS.map(|n| dispatch!(set_name(n).as_str(), decaps_seed_file(n, backend)))
}

// ---------------------------------------------------------------------------------------------
// mlkem_N_encaps_test.json: ek + m -> c, K; key checks

fn encaps_file<P: ParamSet>(n: &str, backend: &str) -> (usize, usize) {
    let file = format!("wycheproof/mlkem_{n}_encaps_test.json");
    let (json, declared) = load_tests::<P>(&file);
    let mut tally = Tally::default();
    let mut not_reduced = 0usize;
    for group in array_field(&json, "testGroups") {
        for test in array_field(group, "tests") {
            let what = format!("{file} tcId {} ({})", tc_id(test), comment(test));
            let ek = hex_field(test, "ek");
            let m: [u8; 32] = array(&hex_field(test, "m"), "m");
            let want_c = hex_field(test, "c");
            let want_k = hex_field(test, "K");

            let expect: Vec<Expect> = expected_ek_check::<P>(&ek).into_iter().collect();
            // Cross-check the recomputed defect against the vector's own labels.
            let overflow = flags(test).contains(&"ModulusOverflow")
                || comment(test) == "Public key not reduced";
            let bad_length = comment(test).starts_with("Public key is too");
            assert_eq!(
                overflow,
                expect == [Expect::EkNotReduced],
                "{what}: labels vs input"
            );
            assert_eq!(
                bad_length,
                matches!(expect.as_slice(), [Expect::EkLength { .. }]),
                "{what}: labels vs input"
            );
            if overflow {
                not_reduced += 1;
                assert!(!unreduced_ek_coeffs(&ek).is_empty());
            }

            let outcome = P::ek_from_bytes(&ek).map(|key| {
                assert_eq!(h(&P::ek_bytes(&key)), h(&ek), "{what}: ek bytes");
                let (c, k) = P::encapsulate_deterministic(&key, &m);
                assert_eq!(h(&P::ct_bytes(&c)), h(&want_c), "{what}: c");
                assert_eq!(h(&ss(&k)), h(&want_k), "{what}: K");
            });
            // The one-shot form: the same verdict, and the same c and K when it accepts.
            let one_shot = P::encapsulate_encoded(&ek, &m).map(|(c, k)| {
                assert_eq!(h(&P::ct_bytes(&c)), h(&want_c), "{what}: one-shot c");
                assert_eq!(h(&ss(&k)), h(&want_k), "{what}: one-shot K");
            });
            assert_eq!(one_shot, outcome, "{what}: one-shot verdict");
            judge(
                &mut tally,
                &what,
                str_field(test, "result"),
                outcome,
                &expect,
            );
        }
    }
    report(&file, backend, &tally, declared);
    (tally.total(), not_reduced)
}

/// (cases, of which keys not reduced) of the encapsulation files stated in the README: 100
/// "Public key not reduced" plus the CCTV modulus subset (8 / 12 / 16).
const ENCAPS_CASES: [(usize, usize); 3] = [(261, 108), (265, 112), (269, 116)];

/// Runs the three encapsulation files; returns each file's (cases, of which keys not reduced),
/// to be compared with [`ENCAPS_CASES`].
fn encaps(backend: &str) -> [(usize, usize); 3] {
    SETS.map(|n| dispatch!(set_name(n).as_str(), encaps_file(n, backend)))
}

// ---------------------------------------------------------------------------------------------
// mlkem_N_semi_expanded_decaps_test.json: expanded dk + c -> K

fn semi_expanded_file<P: ParamSet>(n: &str, backend: &str) -> usize {
    let file = format!("wycheproof/mlkem_{n}_semi_expanded_decaps_test.json");
    let (json, declared) = load_tests::<P>(&file);
    let mut tally = Tally::default();
    for group in array_field(&json, "testGroups") {
        for test in array_field(group, "tests") {
            let what = format!("{file} tcId {} ({})", tc_id(test), comment(test));
            let dk = hex_field(test, "dk");
            let c = hex_field(test, "c");
            let ek = hex_field(test, "ek");
            let want_k = opt_hex_field(test, "K");

            // The dk is parsed before the ciphertext, so its defects are what gets reported.
            let mut expect = expected_dk_check::<P>(&dk);
            if expect.is_empty() && c.len() != P::CT_SIZE {
                expect.push(Expect::CtLength {
                    expected: P::CT_SIZE,
                    actual: c.len(),
                });
            }
            let fl = flags(test);
            let labelled = |flag: &str| fl.contains(&flag);
            assert_eq!(
                labelled("IncorrectDecapsulationKeyLength"),
                matches!(expect.as_slice(), [Expect::DkLength { .. }]),
                "{what}: labels vs input"
            );
            assert_eq!(
                labelled("InvalidDecapsulationKey"),
                expect
                    .iter()
                    .any(|e| matches!(e, Expect::DkHashMismatch | Expect::EkNotReduced)),
                "{what}: labels vs input"
            );
            assert_eq!(
                labelled("IncorrectCiphertextLength"),
                matches!(expect.as_slice(), [Expect::CtLength { .. }]),
                "{what}: labels vs input"
            );

            // The one-shot decapsulation must agree with import + decapsulate: same K, or
            // the same error.
            let one_shot = P::ct_from_bytes(&c).and_then(|ct| P::decapsulate_expanded(&dk, &ct));
            match (&one_shot, &want_k) {
                (Ok(k), Some(want_k)) => {
                    assert_eq!(h(&ss(k)), h(want_k), "{what}: one-shot K");
                }
                (Ok(_), None) => panic!("{what}: one-shot accepted, but the vector has no K"),
                (Err(_), _) => {}
            }
            let outcome = P::dk_from_expanded(&dk).and_then(|key| {
                assert_eq!(
                    h(&P::ek_bytes(P::dk_ek(&key))),
                    h(&ek),
                    "{what}: embedded ek"
                );
                assert_eq!(h(&P::dk_expanded(&key)), h(&dk), "{what}: dk re-encode");
                let ct = P::ct_from_bytes(&c)?;
                let k = P::decapsulate(&key, &ct);
                let want_k = want_k
                    .as_ref()
                    .unwrap_or_else(|| panic!("{what}: accepted, but the vector has no K"));
                assert_eq!(h(&ss(&k)), h(want_k), "{what}: K");
                Ok(())
            });
            assert_eq!(
                outcome.as_ref().err(),
                one_shot.as_ref().err(),
                "{what}: one-shot vs import error"
            );
            judge(
                &mut tally,
                &what,
                str_field(test, "result"),
                outcome,
                &expect,
            );
        }
    }
    report(&file, backend, &tally, declared);
    tally.total()
}

/// Case counts of the semi-expanded decapsulation files stated in the README.
const SEMI_EXPANDED_DECAPS_CASES: [usize; 3] = [9, 9, 9];

/// Runs the three semi-expanded decapsulation files; returns each file's case count, to be
/// compared with [`SEMI_EXPANDED_DECAPS_CASES`].
fn semi_expanded_decaps(backend: &str) -> [usize; 3] {
    SETS.map(|n| dispatch!(set_name(n).as_str(), semi_expanded_file(n, backend)))
}

#[test]
fn wycheproof_keygen_seed() {
    if skip_without_vectors() {
        return;
    }
    on_every_backend(|backend| {
        assert_eq!(keygen_seed(backend), KEYGEN_SEED_CASES);
    });
}

#[test]
fn wycheproof_decaps_seed() {
    if skip_without_vectors() {
        return;
    }
    on_every_backend(|backend| {
        assert_eq!(decaps_seed(backend), DECAPS_SEED_CASES);
    });
}

#[test]
fn wycheproof_encaps() {
    if skip_without_vectors() {
        return;
    }
    on_every_backend(|backend| {
        assert_eq!(encaps(backend), ENCAPS_CASES);
    });
}

#[test]
fn wycheproof_semi_expanded_decaps() {
    if skip_without_vectors() {
        return;
    }
    on_every_backend(|backend| {
        assert_eq!(semi_expanded_decaps(backend), SEMI_EXPANDED_DECAPS_CASES);
    });
}
