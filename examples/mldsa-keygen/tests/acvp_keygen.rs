//! ML-DSA keyGen against the NIST ACVP vectors (`ML-DSA-keyGen-FIPS204.internalProjection.json`,
//! 3 groups x 25 cases; see `vectors/mldsa-acvp/README.md`).
//!
//! * [`non_arithmetic_steps_match_acvp`] checks everything of FIPS 204 Alg. 6 that is not ring
//!   arithmetic, with SHAKE256 from the `sha3` crate: the seed expansion, ExpandS, both
//!   encodings byte-exact, and Power2Round on the t the vectors imply.
//! * [`key_gen_internal_matches_acvp`] checks the whole key generation.

mod common;

use common::{Case, load_keygen_groups, pk_decode, shake256, shake256_reader, signed, sk_decode};
use mldsa_keygen::{
    BoundedSampler, D, KeyGenSeeds, LengthError, MlDsa44, MlDsa65, MlDsa87, N, ParameterSet, Q,
    SHAKE256_RATE, bit_pack, expand_s_seed, key_gen_hash_input, key_gen_internal, pk_encode,
    power2round, power2round_poly, rej_bounded_poly, sk_encode,
};
use sha3::digest::XofReader;

/// Cases per parameter set in the file.
const CASES_PER_SET: usize = 25;

/// Runs `$check::<P>(args...)` with the parameter set P named `$name`.
macro_rules! with_parameter_set {
    ($name:expr, $check:ident $(, $arg:expr)*) => {
        match $name {
            n if n == MlDsa44::NAME => $check::<MlDsa44>($($arg),*),
            n if n == MlDsa65::NAME => $check::<MlDsa65>($($arg),*),
            n if n == MlDsa87::NAME => $check::<MlDsa87>($($arg),*),
            other => panic!("unexpected parameterSet {other:?}"),
        }
    };
}

/// Runs `check` on every case and asserts exactly 25 cases for each parameter set, 75 in all.
fn for_every_case(mut check: impl FnMut(&str, &Case)) {
    let mut counts = [0usize; 3];
    for group in load_keygen_groups() {
        let index = [MlDsa44::NAME, MlDsa65::NAME, MlDsa87::NAME]
            .iter()
            .position(|name| *name == group.parameter_set)
            .unwrap_or_else(|| panic!("unexpected parameterSet {:?}", group.parameter_set));
        for case in &group.cases {
            check(&group.parameter_set, case);
            counts[index] += 1;
        }
    }
    assert_eq!(
        counts, [CASES_PER_SET; 3],
        "cases per parameter set (44, 65, 87)"
    );
    assert_eq!(counts.iter().sum::<usize>(), 3 * CASES_PER_SET);
}

/// ExpandS (FIPS 204 Alg. 33) with `sha3`'s SHAKE256 feeding [`BoundedSampler`] in
/// 136-byte blocks: the L polynomials of s1 followed by the K of s2. Also checks that
/// [`rej_bounded_poly`] driven by the same stream agrees.
fn expand_s<P: ParameterSet>(rho_prime: &[u8; 64]) -> Vec<[u32; N]> {
    (0..P::L + P::K)
        .map(|r| {
            let seed = expand_s_seed(rho_prime, r as u16);
            let mut poly = [0u32; N];
            let mut reader = shake256_reader(&seed);
            let mut sampler = BoundedSampler::for_parameter_set::<P>(&mut poly);
            let mut block = [0u8; SHAKE256_RATE];
            let mut blocks = 0;
            loop {
                reader.read(&mut block);
                blocks += 1;
                if sampler.absorb_block(&block) {
                    break;
                }
                assert!(blocks < 100, "ExpandS r = {r}: sampler never filled");
            }

            let mut driven = [0u32; N];
            let mut reader = shake256_reader(&seed);
            rej_bounded_poly::<P>(|block| reader.read(block), &mut driven);
            assert_eq!(driven, poly, "rej_bounded_poly vs BoundedSampler, r = {r}");

            for &c in &poly {
                assert!(
                    signed(c).unsigned_abs() <= u64::from(P::ETA),
                    "coefficient {c} out of range"
                );
            }
            poly
        })
        .collect()
}

fn check_non_arithmetic<P: ParameterSet>(case: &Case) {
    let id = format!("{} tcId {}", P::NAME, case.tc_id);
    assert_eq!(case.pk.len(), P::PK_BYTES, "{id}: pk length");
    assert_eq!(case.sk.len(), P::SK_BYTES, "{id}: sk length");

    // FIPS 204 Alg. 6 l. 1: (rho, rho', K) = H(xi || k || l, 128).
    let input = key_gen_hash_input::<P>(&case.xi);
    assert_eq!(input[..32], case.xi, "{id}: hash input");
    let mut h = [0u8; 128];
    shake256(&[&case.xi, &[P::K as u8, P::L as u8]], &mut h);
    let mut h_from_helper = [0u8; 128];
    shake256(&[&input], &mut h_from_helper);
    assert_eq!(h, h_from_helper, "{id}: key_gen_hash_input");
    let seeds = KeyGenSeeds::from_h_output(&h);

    // The seeds as the encodings carry them.
    assert_eq!(case.pk[..32], seeds.rho, "{id}: rho is the pk prefix");
    assert_eq!(case.sk[..32], seeds.rho, "{id}: rho is the sk prefix");
    assert_eq!(case.sk[32..64], seeds.key, "{id}: K in sk");
    let mut tr = [0u8; 64];
    shake256(&[&case.pk], &mut tr);
    assert_eq!(case.sk[64..128], tr, "{id}: tr = H(pk, 64) in sk");

    // FIPS 204 Alg. 6 l. 3: ExpandS(rho'); BitPack(s, eta, eta) must match sk byte for byte.
    let s = expand_s::<P>(&seeds.rho_prime);
    let (s1, s2) = s.split_at(P::L);
    let mut packed = vec![0u8; P::ETA_POLY_BYTES];
    for (i, poly) in s.iter().enumerate() {
        bit_pack(poly, P::ETA, P::ETA, &mut packed).unwrap();
        let start = 128 + i * P::ETA_POLY_BYTES;
        assert_eq!(
            packed[..],
            case.sk[start..start + P::ETA_POLY_BYTES],
            "{id}: packed {} polynomial {}",
            if i < P::L { "s1" } else { "s2" },
            if i < P::L { i } else { i - P::L },
        );
    }
    let decoded = sk_decode::<P>(&case.sk);
    assert_eq!(
        (decoded.s1.as_slice(), decoded.s2.as_slice()),
        (s1, s2),
        "{id}: decoded s1, s2"
    );
    assert_eq!(
        (decoded.rho, decoded.key, decoded.tr),
        (seeds.rho, seeds.key, tr),
        "{id}"
    );

    // t1 from pk and t0 from sk; re-encoding reproduces both keys byte-exact.
    let (rho, t1) = pk_decode::<P>(&case.pk);
    assert_eq!(rho, seeds.rho, "{id}");
    let t0 = decoded.t0;
    let mut pk = vec![0u8; P::PK_BYTES];
    pk_encode::<P>(&seeds.rho, &t1, &mut pk).unwrap();
    assert!(pk == case.pk, "{id}: pk_encode(rho, t1) differs from pk");
    let mut sk = vec![0u8; P::SK_BYTES];
    sk_encode::<P>(&seeds.rho, &seeds.key, &tr, s1, s2, &t0, &mut sk).unwrap();
    assert!(
        sk == case.sk,
        "{id}: sk_encode(rho, K, tr, s1, s2, t0) differs from sk"
    );

    // Power2Round recovers (t1, t0) from t = t1 * 2^d + t0 mod q.
    for (i, (hi, lo)) in t1.iter().zip(&t0).enumerate() {
        let t: [u32; N] = std::array::from_fn(|j| {
            assert!(hi[j] < 1 << 10, "{id}: t1 coefficient");
            let r0 = signed(lo[j]);
            assert!(
                -(1 << (D - 1)) < r0 && r0 <= 1 << (D - 1),
                "{id}: t0 coefficient {r0}"
            );
            ((hi[j] << D) + lo[j]) % Q
        });
        for j in 0..N {
            assert_eq!(
                power2round(t[j]),
                (hi[j], lo[j]),
                "{id}: power2round t[{i}][{j}]"
            );
        }
        let (mut t1_again, mut t0_again) = ([0u32; N], [0u32; N]);
        power2round_poly(&t, &mut t1_again, &mut t0_again);
        assert_eq!(
            (&t1_again, &t0_again),
            (hi, lo),
            "{id}: power2round_poly t[{i}]"
        );
    }
}

#[test]
fn non_arithmetic_steps_match_acvp() {
    for_every_case(|name, case| with_parameter_set!(name, check_non_arithmetic, case));
}

fn check_key_gen<P: ParameterSet>(case: &Case) {
    let id = format!("{} tcId {}", P::NAME, case.tc_id);
    let mut pk = vec![0u8; P::PK_BYTES];
    let mut sk = vec![0u8; P::SK_BYTES];
    key_gen_internal::<P>(&case.xi, &mut pk, &mut sk).unwrap();
    assert!(pk == case.pk, "{id}: pk differs");
    assert!(sk == case.sk, "{id}: sk differs");
}

#[test]
fn key_gen_internal_matches_acvp() {
    for_every_case(|name, case| with_parameter_set!(name, check_key_gen, case));
}

fn check_length_errors<P: ParameterSet>() {
    let xi = [0u8; 32];
    let mut pk = vec![0u8; P::PK_BYTES];
    let mut sk = vec![0u8; P::SK_BYTES + 1];
    assert_eq!(
        key_gen_internal::<P>(&xi, &mut pk[1..], &mut sk[1..]),
        Err(LengthError {
            what: "pk",
            expected: P::PK_BYTES,
            actual: P::PK_BYTES - 1
        })
    );
    assert_eq!(
        key_gen_internal::<P>(&xi, &mut pk, &mut sk),
        Err(LengthError {
            what: "sk",
            expected: P::SK_BYTES,
            actual: P::SK_BYTES + 1
        })
    );
}

/// Wrong buffer lengths are reported before any work.
#[test]
fn key_gen_internal_rejects_wrong_lengths() {
    for name in [MlDsa44::NAME, MlDsa65::NAME, MlDsa87::NAME] {
        with_parameter_set!(name, check_length_errors);
    }
}
