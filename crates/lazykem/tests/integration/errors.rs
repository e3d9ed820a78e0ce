//! Malformed inputs are rejected with the right `lazykem::Error` (never a panic), the error type
//! is a proper `core::error::Error`, and the encodings round-trip.

use crate::common;

use crate::common::{
    Expect, MlKem512, MlKem768, MlKem1024, ParamSet, Q, assert_rejects, decode12, h, set_coeff12,
    sha3_256, ss,
};
use lazykem::Error;
use rand::SeedableRng as _;
use rand::rngs::StdRng;
use subtle::ConstantTimeEq as _;

/// Deterministic but arbitrary seed for parameter set `P`, varied by `tag`.
fn seed(tag: u8) -> [u8; 64] {
    core::array::from_fn(|i| (i as u8).wrapping_mul(31).wrapping_add(tag))
}

/// Lengths around `size` that must all be rejected, plus the sizes of the other parameter sets.
fn bad_lengths(size: usize, others: [usize; 3]) -> Vec<usize> {
    let mut v = vec![0, 1, size - 1, size + 1, 2 * size];
    v.extend(others.into_iter().filter(|&o| o != size));
    v
}

const EK_SIZES: [usize; 3] = [MlKem512::EK_SIZE, MlKem768::EK_SIZE, MlKem1024::EK_SIZE];
const DK_SIZES: [usize; 3] = [MlKem512::DK_SIZE, MlKem768::DK_SIZE, MlKem1024::DK_SIZE];
const CT_SIZES: [usize; 3] = [MlKem512::CT_SIZE, MlKem768::CT_SIZE, MlKem1024::CT_SIZE];

fn sizes_match_fips203<P: ParamSet>() -> usize {
    let (ek, dk, ct) = match P::K {
        2 => (800, 1632, 768),
        3 => (1184, 2400, 1088),
        4 => (1568, 3168, 1568),
        k => panic!("unexpected k = {k}"),
    };
    assert_eq!(
        (P::EK_SIZE, P::DK_SIZE, P::CT_SIZE),
        (ek, dk, ct),
        "{} sizes",
        P::NAME
    );
    assert_eq!(P::EK_SIZE, 384 * P::K + 32);
    assert_eq!(P::DK_SIZE, 768 * P::K + 96);
    1
}

/// `EncapsulationKey::from_bytes`, checked against `validate`: both must reject the same
/// keys with the same error.
fn ek_from_bytes_both<P: ParamSet>(bytes: &[u8]) -> Result<P::Ek, Error> {
    let parsed = P::ek_from_bytes(bytes);
    assert_eq!(
        P::ek_validate(bytes),
        parsed.as_ref().map(|_| ()).map_err(|e| *e),
        "{}: validate vs from_bytes",
        P::NAME
    );
    parsed
}

fn ek_lengths<P: ParamSet>() -> usize {
    let valid = P::ek_bytes(P::dk_ek(&P::dk_from_seed(&seed(1))));
    let mut cases = 0;
    for len in bad_lengths(P::EK_SIZE, EK_SIZES) {
        // Truncations/extensions of a valid key, so only the length is wrong.
        let mut bytes = valid.clone();
        bytes.resize(len, 0);
        assert_rejects(
            ek_from_bytes_both::<P>(&bytes),
            Expect::EkLength {
                expected: P::EK_SIZE,
                actual: len,
            },
            &format!("{} ek of {len} bytes", P::NAME),
        );
        cases += 1;
    }
    cases
}

fn ek_not_reduced<P: ParamSet>() -> usize {
    let valid = P::ek_bytes(P::dk_ek(&P::dk_from_seed(&seed(2))));
    let n = 256 * P::K;
    let mut cases = 0;
    for index in [0, 1, n / 2 - 1, n / 2, n - 2, n - 1] {
        for value in [Q, Q + 1, 4095] {
            let mut bytes = valid.clone();
            set_coeff12(&mut bytes, index, value);
            assert_eq!(
                decode12(&bytes[..bytes.len() - 32])[index],
                value,
                "crafting helper"
            );
            assert_rejects(
                ek_from_bytes_both::<P>(&bytes),
                Expect::EkNotReduced,
                &format!("{} ek with coefficient {index} = {value}", P::NAME),
            );
            cases += 1;
        }
        // The boundary value q - 1 is fine.
        let mut bytes = valid.clone();
        set_coeff12(&mut bytes, index, Q - 1);
        let key = ek_from_bytes_both::<P>(&bytes).unwrap_or_else(|e| {
            panic!(
                "{} ek with coefficient {index} = q - 1 rejected: {e:?}",
                P::NAME
            )
        });
        assert_eq!(h(&P::ek_bytes(&key)), h(&bytes));
        cases += 1;
    }
    cases
}

/// `from_expanded_bytes`, checked against the one-shot `decapsulate_expanded` (with any
/// ciphertext): both must reject the same keys with the same error.
fn dk_from_expanded_both<P: ParamSet>(bytes: &[u8]) -> Result<P::Dk, Error> {
    let ct = P::ct_from_bytes(&vec![0x3c; P::CT_SIZE]).expect("ciphertext length");
    let imported = P::dk_from_expanded(bytes);
    let one_shot = P::decapsulate_expanded(bytes, &ct);
    assert_eq!(
        P::dk_validate(bytes),
        imported.as_ref().map(|_| ()).map_err(|e| *e),
        "{}: validate_expanded vs from_expanded_bytes",
        P::NAME
    );
    match (&imported, &one_shot) {
        (Ok(dk), Ok(k)) => assert_eq!(
            ss(k),
            ss(&P::decapsulate(dk, &ct)),
            "{}: one-shot vs import + decapsulate",
            P::NAME
        ),
        (Err(a), Err(b)) => assert_eq!(a, b, "{}: one-shot error", P::NAME),
        _ => panic!(
            "{}: import gave {:?}, one-shot {:?}",
            P::NAME,
            imported.as_ref().err(),
            one_shot.as_ref().err()
        ),
    }
    imported
}

fn dk_malformed<P: ParamSet>() -> usize {
    let dk = P::dk_from_seed(&seed(3));
    let valid = P::dk_expanded(&dk);
    let k = P::K;
    let mut cases = 0;
    for len in bad_lengths(P::DK_SIZE, DK_SIZES) {
        let mut bytes = valid.clone();
        bytes.resize(len, 0);
        assert_rejects(
            dk_from_expanded_both::<P>(&bytes),
            Expect::DkLength {
                expected: P::DK_SIZE,
                actual: len,
            },
            &format!("{} dk of {len} bytes", P::NAME),
        );
        cases += 1;
    }
    // Corrupted H(ek): first, middle and last byte of the hash.
    let hash_at = 768 * k + 32;
    for offset in [hash_at, hash_at + 16, hash_at + 31] {
        let mut bytes = valid.clone();
        bytes[offset] ^= 0x01;
        assert_rejects(
            dk_from_expanded_both::<P>(&bytes),
            Expect::DkHashMismatch,
            &format!("{} dk with H(ek) byte {offset} flipped", P::NAME),
        );
        cases += 1;
    }
    // Corrupted embedded ek (t-hat and rho), hash left alone.
    for offset in [384 * k, 384 * k + 100, 768 * k + 31] {
        let mut bytes = valid.clone();
        bytes[offset] ^= 0x80;
        assert_rejects(
            dk_from_expanded_both::<P>(&bytes),
            Expect::DkHashMismatch,
            &format!("{} dk with embedded ek byte {offset} flipped", P::NAME),
        );
        cases += 1;
    }
    // Embedded ek with a coefficient >= q whose hash is recomputed to match: only the modulus
    // check of the embedded ek can catch it.
    let mut bytes = valid.clone();
    set_coeff12(&mut bytes[384 * k..768 * k + 32], 5, Q);
    let hash = sha3_256(&bytes[384 * k..768 * k + 32]);
    bytes[hash_at..hash_at + 32].copy_from_slice(&hash);
    assert_rejects(
        dk_from_expanded_both::<P>(&bytes),
        Expect::EkNotReduced,
        &format!(
            "{} dk with unreduced embedded ek and consistent hash",
            P::NAME
        ),
    );
    cases += 1;
    // z and dk_pke are not covered by any check: changing them gives a different, valid key.
    let mut bytes = valid.clone();
    bytes[P::DK_SIZE - 1] ^= 0x01;
    let other = dk_from_expanded_both::<P>(&bytes)
        .unwrap_or_else(|e| panic!("{} dk with altered z: {e:?}", P::NAME));
    assert_eq!(h(&P::dk_expanded(&other)), h(&bytes));
    cases += 1;
    cases
}

fn ct_lengths<P: ParamSet>() -> usize {
    let mut cases = 0;
    for len in bad_lengths(P::CT_SIZE, CT_SIZES) {
        assert_rejects(
            P::ct_from_bytes(&vec![0x5a; len]),
            Expect::CtLength {
                expected: P::CT_SIZE,
                actual: len,
            },
            &format!("{} ciphertext of {len} bytes", P::NAME),
        );
        cases += 1;
    }
    let ct = P::ct_from_bytes(&vec![0x5a; P::CT_SIZE])
        .expect("any ciphertext of the right length parses");
    assert_eq!(P::ct_bytes(&ct), vec![0x5a; P::CT_SIZE]);
    cases + 1
}

fn seed_lengths<P: ParamSet>() -> usize {
    let mut cases = 0;
    for len in [0, 1, 32, 63, 65, 96, 128] {
        assert_rejects(
            P::dk_from_seed_bytes(&vec![7; len]),
            Expect::SeedLength {
                expected: 64,
                actual: len,
            },
            &format!("{} seed of {len} bytes", P::NAME),
        );
        cases += 1;
    }
    let s = seed(4);
    let dk = P::dk_from_seed_bytes(&s).expect("64-byte seed");
    assert_eq!(
        h(&P::dk_expanded(&dk)),
        h(&P::dk_expanded(&P::dk_from_seed(&s)))
    );
    cases + 1
}

fn round_trips<P: ParamSet>() -> usize {
    let s = seed(5);
    let dk = P::dk_from_seed(&s);
    assert_eq!(
        P::dk_seed(&dk),
        Some(s),
        "{}: seed() gives back the seed",
        P::NAME
    );

    // ek to/from bytes.
    let ek_bytes = P::ek_bytes(P::dk_ek(&dk));
    let ek = P::ek_from_bytes(&ek_bytes).expect("own ek parses");
    assert_eq!(h(&P::ek_bytes(&ek)), h(&ek_bytes));

    // dk expanded to/from bytes; an expanded key has no seed.
    let dk_bytes = P::dk_expanded(&dk);
    assert_eq!(dk_bytes.len(), P::DK_SIZE);
    let dk2 = P::dk_from_expanded(&dk_bytes).expect("own expanded dk parses");
    assert_eq!(h(&P::dk_expanded(&dk2)), h(&dk_bytes));
    assert_eq!(
        P::dk_seed(&dk2),
        None,
        "{}: a key parsed from the expanded form has no seed",
        P::NAME
    );
    assert_eq!(h(&P::ek_bytes(P::dk_ek(&dk2))), h(&ek_bytes));

    // Ciphertext to/from bytes, and both keys agree.
    let m = [0xa5; 32];
    let (c, k) = P::encapsulate_deterministic(&ek, &m);
    let c2 = P::ct_from_bytes(&P::ct_bytes(&c)).expect("own ciphertext parses");
    assert_eq!(P::ct_bytes(&c2), P::ct_bytes(&c));
    assert_eq!(ss(&P::decapsulate(&dk, &c2)), ss(&k));
    assert_eq!(ss(&P::decapsulate(&dk2, &c2)), ss(&k));
    let one_shot = P::decapsulate_expanded(&dk_bytes, &c2).expect("own expanded dk");
    assert_eq!(ss(&one_shot), ss(&k), "{}: one-shot decapsulation", P::NAME);
    // Deterministic: same inputs, same outputs.
    let (c3, k3) = P::encapsulate_deterministic(P::dk_ek(&dk), &m);
    assert_eq!(P::ct_bytes(&c3), P::ct_bytes(&c));
    assert_eq!(ss(&k3), ss(&k));
    3
}

fn rng_round_trips<P: ParamSet>() -> usize {
    let mut rng = StdRng::seed_from_u64(0x6d6c_6b65_6d00 + P::K as u64);
    let mut cases = 0;
    for _ in 0..4 {
        let dk = P::dk_generate(&mut rng);
        let s = P::dk_seed(&dk).expect("a generated key keeps its seed");
        assert_eq!(
            h(&P::dk_expanded(&P::dk_from_seed(&s))),
            h(&P::dk_expanded(&dk))
        );
        let (c, k) = P::encapsulate(P::dk_ek(&dk), &mut rng);
        let k2 = P::decapsulate(&dk, &c);
        assert!(k == k2, "{}: PartialEq on SharedSecret", P::NAME);
        assert!(
            bool::from(k.ct_eq(&k2)),
            "{}: ConstantTimeEq on SharedSecret",
            P::NAME
        );
        // A second encapsulation uses fresh randomness.
        let (c3, k3) = P::encapsulate(P::dk_ek(&dk), &mut rng);
        assert_ne!(P::ct_bytes(&c3), P::ct_bytes(&c));
        assert!(k3 != k && !bool::from(k3.ct_eq(&k)));
        assert_eq!(ss(&P::decapsulate(&dk, &c3)), ss(&k3));
        cases += 1;
    }
    // The thread-local system RNG works too.
    let mut rng = rand::rng();
    let dk = P::dk_generate(&mut rng);
    let (c, k) = P::encapsulate(P::dk_ek(&dk), &mut rng);
    assert_eq!(ss(&P::decapsulate(&dk, &c)), ss(&k));
    // Two generated keys differ.
    let other = P::dk_generate(&mut rng);
    assert_ne!(P::ek_bytes(P::dk_ek(&dk)), P::ek_bytes(P::dk_ek(&other)));
    cases + 1
}

/// Run `f` for all three parameter sets and return the total number of cases.
macro_rules! all_sets {
    ($f:ident) => {
        $f::<MlKem512>() + $f::<MlKem768>() + $f::<MlKem1024>()
    };
}

fn run(name: &str, cases: usize, expected: usize) {
    eprintln!("errors::{name}: {cases} cases passed");
    assert!(cases > 0);
    assert_eq!(cases, expected, "{name}: case count");
}

#[test]
fn sizes() {
    common::on_every_backend(|_| {
        run("sizes", all_sets!(sizes_match_fips203), 3);
    });
}

#[test]
fn encapsulation_key_wrong_length() {
    common::on_every_backend(|_| {
        run(
            "encapsulation_key_wrong_length",
            all_sets!(ek_lengths),
            3 * 7,
        );
    });
}

#[test]
fn encapsulation_key_not_reduced() {
    common::on_every_backend(|_| {
        run(
            "encapsulation_key_not_reduced",
            all_sets!(ek_not_reduced),
            3 * 6 * 4,
        );
    });
}

#[test]
fn decapsulation_key_malformed() {
    common::on_every_backend(|_| {
        run(
            "decapsulation_key_malformed",
            all_sets!(dk_malformed),
            3 * (7 + 3 + 3 + 1 + 1),
        );
    });
}

#[test]
fn ciphertext_wrong_length() {
    common::on_every_backend(|_| {
        run(
            "ciphertext_wrong_length",
            all_sets!(ct_lengths),
            3 * (7 + 1),
        );
    });
}

#[test]
fn seed_wrong_length() {
    common::on_every_backend(|_| {
        run("seed_wrong_length", all_sets!(seed_lengths), 3 * 8);
    });
}

#[test]
fn encodings_round_trip() {
    common::on_every_backend(|_| {
        run("encodings_round_trip", all_sets!(round_trips), 3 * 3);
    });
}

#[test]
fn random_keys_round_trip() {
    common::on_every_backend(|_| {
        run("random_keys_round_trip", all_sets!(rng_round_trips), 3 * 5);
    });
}

/// Compile-time check that `Error` is a standard error type usable across threads.
fn assert_error_traits<E: core::error::Error + Send + Sync + 'static>() {}

#[test]
fn error_trait_and_display() {
    common::on_every_backend(|_| {
        assert_error_traits::<Error>();
        let errors = [
            Error::EncapsulationKeyLength {
                expected: 1184,
                actual: 1183,
            },
            Error::EncapsulationKeyNotReduced,
            Error::DecapsulationKeyLength {
                expected: 2400,
                actual: 2401,
            },
            Error::DecapsulationKeyHashMismatch,
            Error::CiphertextLength {
                expected: 1088,
                actual: 17,
            },
            Error::SeedLength {
                expected: 64,
                actual: 65,
            },
        ];
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        for (err, msg) in errors.iter().zip(&messages) {
            eprintln!("{err:?} => {msg}");
            assert!(msg.len() > 10, "{err:?}: message too short: {msg:?}");
            assert!(
                !msg.contains('{') && !msg.contains("Error::"),
                "{err:?}: unformatted message {msg:?}"
            );
            let as_dyn: &dyn core::error::Error = err;
            assert_eq!(as_dyn.to_string(), *msg);
            assert!(as_dyn.source().is_none());
        }
        // Length errors name both numbers.
        for (msg, nums) in messages.iter().zip([
            Some((1184, 1183)),
            None,
            Some((2400, 2401)),
            None,
            Some((1088, 17)),
            Some((64, 65)),
        ]) {
            if let Some((expected, actual)) = nums {
                assert!(
                    msg.contains(&expected.to_string()) && msg.contains(&actual.to_string()),
                    "length error message {msg:?} must mention {expected} and {actual}"
                );
            }
        }
        // Every variant has its own message.
        for i in 0..messages.len() {
            for j in i + 1..messages.len() {
                assert_ne!(messages[i], messages[j]);
            }
        }
        run("error_trait_and_display", errors.len(), 6);
    });
}
