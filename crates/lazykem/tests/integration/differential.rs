//! Differential tests against an independent implementation, RustCrypto `ml-kem` 0.3.4, on
//! every backend this CPU has: random seeds and messages must give byte-identical encapsulation
//! keys, expanded decapsulation keys, ciphertexts and shared secrets for all three parameter
//! sets; tampered and random ciphertexts must give the same implicit-rejection secret in both;
//! and both must agree on which encapsulation keys with an edited coefficient pass the modulus
//! check.
//!
//! The properties are run with an explicit proptest [`TestRunner`] rather than the `proptest!`
//! macro so that they are plain functions that report how many cases they ran.

use std::cell::Cell;

use crate::common::{
    Expect, MlKem512, MlKem768, MlKem1024, ParamSet, Q, h, on_every_backend, set_coeff12, ss,
};
use proptest::array::uniform;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{TestCaseResult, TestRunner};

/// Random cases per property and parameter set.
const CASES_PER_SET: usize = 32;

/// Byte-level face of the reference implementation for one parameter set.
trait Reference {
    /// The same parameter set in the implementation under test.
    type Ours: ParamSet;

    /// (ek, expanded dk) from the seed d || z.
    fn keygen(seed: &[u8; 64]) -> (Vec<u8>, Vec<u8>);
    /// `None` if the reference rejects the key, else (c, K) from Encaps_internal(ek, m).
    fn encapsulate(ek: &[u8], m: &[u8; 32]) -> Option<(Vec<u8>, [u8; 32])>;
    /// Decaps with the key derived from `seed`.
    fn decapsulate_seed(seed: &[u8; 64], ct: &[u8]) -> [u8; 32];
    /// Decaps with an expanded key (which must parse).
    fn decapsulate_expanded(dk: &[u8], ct: &[u8]) -> [u8; 32];
}

macro_rules! reference {
    ($marker:ident, $module:ident, $ours:ty) => {
        struct $marker;

        #[allow(deprecated)] // the expanded key encoding is deprecated in ml-kem 0.3
        impl Reference for $marker {
            type Ours = $ours;

            fn keygen(seed: &[u8; 64]) -> (Vec<u8>, Vec<u8>) {
                use ml_kem::{ExpandedKeyEncoding as _, KeyExport as _};
                let dk = ml_kem::$module::DecapsulationKey::from_seed(ml_kem::Seed::from(*seed));
                let ek = dk.encapsulation_key().to_bytes();
                (
                    ek.as_slice().to_vec(),
                    dk.to_expanded_bytes().as_slice().to_vec(),
                )
            }

            fn encapsulate(ek: &[u8], m: &[u8; 32]) -> Option<(Vec<u8>, [u8; 32])> {
                let ek = ml_kem::array::Array::try_from(ek).expect("reference ek length");
                let ek = ml_kem::$module::EncapsulationKey::new(&ek).ok()?;
                let (c, k) = ek.encapsulate_deterministic(&ml_kem::B32::from(*m));
                Some((c.as_slice().to_vec(), k.into()))
            }

            fn decapsulate_seed(seed: &[u8; 64], ct: &[u8]) -> [u8; 32] {
                use ml_kem::Decapsulate as _;
                let dk = ml_kem::$module::DecapsulationKey::from_seed(ml_kem::Seed::from(*seed));
                let ct = ml_kem::$module::Ciphertext::try_from(ct).expect("reference ct length");
                dk.decapsulate(&ct).into()
            }

            fn decapsulate_expanded(dk: &[u8], ct: &[u8]) -> [u8; 32] {
                use ml_kem::{Decapsulate as _, ExpandedKeyEncoding as _};
                let dk = ml_kem::array::Array::try_from(dk).expect("reference dk length");
                let dk = ml_kem::$module::DecapsulationKey::from_expanded_bytes(&dk)
                    .expect("reference rejected an expanded dk");
                let ct = ml_kem::$module::Ciphertext::try_from(ct).expect("reference ct length");
                dk.decapsulate(&ct).into()
            }
        }
    };
}

reference!(Ref512, ml_kem_512, MlKem512);
reference!(Ref768, ml_kem_768, MlKem768);
reference!(Ref1024, ml_kem_1024, MlKem1024);

/// Honest round trip plus a one-bit tamper and a fully random ciphertext.
fn check_kem<P: ParamSet, R: Reference>(
    seed: &[u8; 64],
    m: &[u8; 32],
    flip: Index,
    random_ct: &[u8],
) -> Result<(), TestCaseError> {
    let name = P::NAME;
    // Key generation.
    let (ref_ek, ref_dk) = R::keygen(seed);
    let dk = P::dk_from_seed(seed);
    prop_assert_eq!(h(&P::ek_bytes(P::dk_ek(&dk))), h(&ref_ek), "{}: ek", name);
    let dk_bytes = P::dk_expanded(&dk);
    prop_assert_eq!(h(&dk_bytes), h(&ref_dk), "{}: expanded dk", name);
    prop_assert_eq!(P::dk_seed(&dk), Some(*seed), "{}: seed()", name);

    // Encapsulation, through the dk's own ek and through a parsed one.
    let (ref_c, ref_k) = R::encapsulate(&ref_ek, m).expect("reference rejected its own ek");
    let (c, k) = P::encapsulate_deterministic(P::dk_ek(&dk), m);
    prop_assert_eq!(h(&P::ct_bytes(&c)), h(&ref_c), "{}: c", name);
    prop_assert_eq!(h(&ss(&k)), h(&ref_k), "{}: K", name);
    let ek = P::ek_from_bytes(&ref_ek)
        .map_err(|e| TestCaseError::fail(format!("{name}: ek rejected: {e:?}")))?;
    let (c2, k2) = P::encapsulate_deterministic(&ek, m);
    prop_assert_eq!(h(&P::ct_bytes(&c2)), h(&ref_c), "{}: c via parsed ek", name);
    prop_assert_eq!(h(&ss(&k2)), h(&ref_k), "{}: K via parsed ek", name);

    // Decapsulation with the seed-derived key and with the expanded key.
    let dk_expanded = P::dk_from_expanded(&ref_dk)
        .map_err(|e| TestCaseError::fail(format!("{name}: expanded dk rejected: {e:?}")))?;
    prop_assert_eq!(
        h(&ss(&P::decapsulate(&dk, &c))),
        h(&ref_k),
        "{}: decaps (seed key)",
        name
    );
    prop_assert_eq!(
        h(&ss(&P::decapsulate(&dk_expanded, &c))),
        h(&ref_k),
        "{}: decaps (expanded key)",
        name
    );

    // One flipped bit: implicit rejection, identical in both implementations, and different
    // from the honest secret.
    let mut tampered = ref_c.clone();
    let bit = flip.index(tampered.len() * 8);
    tampered[bit / 8] ^= 1 << (bit % 8);
    let ref_rejected = R::decapsulate_seed(seed, &tampered);
    prop_assert_eq!(R::decapsulate_expanded(&ref_dk, &tampered), ref_rejected);
    let ct = P::ct_from_bytes(&tampered)
        .map_err(|e| TestCaseError::fail(format!("{name}: ct rejected: {e:?}")))?;
    prop_assert_eq!(
        h(&ss(&P::decapsulate(&dk, &ct))),
        h(&ref_rejected),
        "{}: tampered (seed key), bit {}",
        name,
        bit
    );
    prop_assert_eq!(
        h(&ss(&P::decapsulate(&dk_expanded, &ct))),
        h(&ref_rejected),
        "{}: tampered (expanded key), bit {}",
        name,
        bit
    );
    prop_assert_ne!(
        h(&ref_rejected),
        h(&ref_k),
        "{}: tampered ciphertext gave the honest secret",
        name
    );

    // A uniformly random ciphertext.
    let ct = P::ct_from_bytes(random_ct)
        .map_err(|e| TestCaseError::fail(format!("{name}: ct rejected: {e:?}")))?;
    prop_assert_eq!(
        h(&ss(&P::decapsulate(&dk, &ct))),
        h(&R::decapsulate_seed(seed, random_ct)),
        "{}: random ciphertext",
        name
    );
    Ok(())
}

/// Overwrite one coefficient of a valid ek with an arbitrary 12-bit value: both implementations
/// must agree on acceptance (iff value < q), and encapsulate identically when they accept.
fn check_ek_modulus<P: ParamSet, R: Reference>(
    seed: &[u8; 64],
    m: &[u8; 32],
    position: Index,
    value: u16,
) -> Result<(), TestCaseError> {
    let name = P::NAME;
    let (mut ek, _) = R::keygen(seed);
    let index = position.index(256 * P::K);
    set_coeff12(&mut ek, index, value);
    let ours = P::ek_from_bytes(&ek);
    let reference = R::encapsulate(&ek, m);
    prop_assert_eq!(
        ours.is_ok(),
        reference.is_some(),
        "{}: coefficient {} = {}",
        name,
        index,
        value
    );
    prop_assert_eq!(
        ours.is_ok(),
        value < Q,
        "{}: coefficient {} = {}",
        name,
        index,
        value
    );
    match ours {
        Ok(key) => {
            let (ref_c, ref_k) = reference.expect("checked above");
            let (c, k) = P::encapsulate_deterministic(&key, m);
            prop_assert_eq!(h(&P::ct_bytes(&c)), h(&ref_c), "{}: c", name);
            prop_assert_eq!(h(&ss(&k)), h(&ref_k), "{}: K", name);
        }
        Err(e) => prop_assert!(
            Expect::EkNotReduced.matches(&e),
            "{}: wrong error {:?}",
            name,
            e
        ),
    }
    Ok(())
}

/// Runs `test` on `CASES_PER_SET` values of `strategy`; panics with the minimal failing input
/// if a case fails, else returns the number of cases run.
fn run_property<S: Strategy>(
    what: &str,
    backend: &str,
    strategy: &S,
    test: impl Fn(S::Value) -> TestCaseResult,
) -> usize {
    let config = ProptestConfig {
        cases: CASES_PER_SET as u32,
        // Nothing to persist to: tests/ has no lib.rs or main.rs for proptest to anchor a
        // regressions directory on. A failure prints its minimal input instead.
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let ran = Cell::new(0usize);
    let result = TestRunner::new(config).run(strategy, |value| {
        ran.set(ran.get() + 1);
        test(value)
    });
    if let Err(err) = result {
        panic!("differential [{backend}] {what}: {err}");
    }
    eprintln!(
        "differential [{backend}] {what}: {} cases passed",
        ran.get()
    );
    ran.get()
}

fn kem_set<R: Reference>(backend: &str) -> usize {
    let strategy = (
        uniform::<_, 64>(any::<u8>()),
        uniform::<_, 32>(any::<u8>()),
        any::<Index>(),
        proptest::collection::vec(any::<u8>(), R::Ours::CT_SIZE),
    );
    run_property(
        &format!("{} KEM vs ml-kem", R::Ours::NAME),
        backend,
        &strategy,
        |(seed, m, flip, random_ct)| check_kem::<R::Ours, R>(&seed, &m, flip, &random_ct),
    )
}

fn ek_check_set<R: Reference>(backend: &str) -> usize {
    let strategy = (
        uniform::<_, 64>(any::<u8>()),
        uniform::<_, 32>(any::<u8>()),
        any::<Index>(),
        // Bias towards the boundary around q; the rest of [0, 4096) also occurs.
        prop_oneof![Q - 2..Q + 2, 0u16..4096],
    );
    run_property(
        &format!("{} ek modulus check vs ml-kem", R::Ours::NAME),
        backend,
        &strategy,
        |(seed, m, position, value)| check_ek_modulus::<R::Ours, R>(&seed, &m, position, value),
    )
}

/// Key generation, encapsulation and decapsulation (honest, tampered and random ciphertexts)
/// against the reference, for ML-KEM-512, -768 and -1024 on the current backend (`backend`
/// labels the output); returns the cases run per parameter set, each [`CASES_PER_SET`].
fn kem(backend: &str) -> [usize; 3] {
    [
        kem_set::<Ref512>(backend),
        kem_set::<Ref768>(backend),
        kem_set::<Ref1024>(backend),
    ]
}

/// The encapsulation-key modulus check against the reference, for ML-KEM-512, -768 and -1024;
/// returns the cases run per parameter set, each [`CASES_PER_SET`].
fn ek_check(backend: &str) -> [usize; 3] {
    [
        ek_check_set::<Ref512>(backend),
        ek_check_set::<Ref768>(backend),
        ek_check_set::<Ref1024>(backend),
    ]
}

#[test]
fn kem_matches_reference() {
    on_every_backend(|backend| {
        assert_eq!(kem(backend), [CASES_PER_SET; 3]);
    });
}

#[test]
fn ek_check_matches_reference() {
    on_every_backend(|backend| {
        assert_eq!(ek_check(backend), [CASES_PER_SET; 3]);
    });
}
