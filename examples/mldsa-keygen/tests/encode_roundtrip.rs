//! Property tests of the encoders against FIPS 204 written literally (IntegerToBits /
//! BitsToBytes), and encode/decode round trips with the spec-literal decoders of `common`.

mod common;

use common::{
    bit_pack_spec, bit_unpack, pk_decode, simple_bit_pack_spec, simple_bit_unpack, sk_decode,
};
use mldsa_keygen::{
    MlDsa44, MlDsa65, MlDsa87, N, ParameterSet, Q, bit_pack, params::bitlen, pk_encode,
    simple_bit_pack, sk_encode,
};
use proptest::prelude::*;

/// 256 coefficients in [-a, b], stored canonical mod q.
fn signed_poly(a: u32, b: u32) -> impl Strategy<Value = [u32; N]> {
    proptest::collection::vec(-i64::from(a)..=i64::from(b), N)
        .prop_map(|v| std::array::from_fn(|i| v[i].rem_euclid(i64::from(Q)) as u32))
}

/// 256 coefficients in [0, b].
fn unsigned_poly(b: u32) -> impl Strategy<Value = [u32; N]> {
    proptest::collection::vec(0..=b, N).prop_map(|v| std::array::from_fn(|i| v[i]))
}

/// A deterministic polynomial with coefficients in [-a, b] (canonical), from a seed.
fn poly_from_seed(seed: u64, a: u32, b: u32) -> [u32; N] {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let width = u64::from(a) + u64::from(b) + 1;
    std::array::from_fn(|_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let v = (x % width) as i64 - i64::from(a);
        v.rem_euclid(i64::from(Q)) as u32
    })
}

proptest! {
    #[test]
    fn simple_bit_pack_matches_spec(
        (b, w) in prop::sample::select(vec![1u32, 3, 7, 15, 1023, (1 << 13) - 1, Q - 1])
            .prop_flat_map(|b| (Just(b), unsigned_poly(b))),
    ) {
        let mut out = vec![0u8; 32 * bitlen(b)];
        simple_bit_pack(&w, b, &mut out).unwrap();
        prop_assert_eq!(&out, &simple_bit_pack_spec(&w, b));
        prop_assert_eq!(simple_bit_unpack(&out, b), w);
    }

    #[test]
    fn bit_pack_matches_spec(
        ((a, b), w) in prop::sample::select(vec![(2u32, 2u32), (4, 4), (4095, 4096), (0, 1), (5, 0)])
            .prop_flat_map(|(a, b)| (Just((a, b)), signed_poly(a, b))),
    ) {
        let mut out = vec![0u8; 32 * bitlen(a + b)];
        bit_pack(&w, a, b, &mut out).unwrap();
        prop_assert_eq!(&out, &bit_pack_spec(&w, a, b));
        prop_assert_eq!(bit_unpack(&out, a, b), w);
    }
}

/// pkEncode / skEncode followed by the spec-literal pkDecode / skDecode is the identity.
fn key_round_trip<P: ParameterSet>(seed: u64) {
    let poly = |i: u64, a, b| poly_from_seed(seed.wrapping_add(i.wrapping_mul(1_000_003)), a, b);
    let rho: [u8; 32] = std::array::from_fn(|i| (seed as u8).wrapping_add(i as u8));
    let key: [u8; 32] = std::array::from_fn(|i| (seed >> 8) as u8 ^ i as u8);
    let tr: [u8; 64] = std::array::from_fn(|i| (seed >> 16) as u8 ^ (3 * i) as u8);
    let k = P::K as u64;
    let l = P::L as u64;
    let t1: Vec<_> = (0..k).map(|i| poly(i, 0, 1023)).collect();
    let s1: Vec<_> = (0..l).map(|i| poly(100 + i, P::ETA, P::ETA)).collect();
    let s2: Vec<_> = (0..k).map(|i| poly(200 + i, P::ETA, P::ETA)).collect();
    let t0: Vec<_> = (0..k).map(|i| poly(300 + i, 4095, 4096)).collect();

    let mut pk = vec![0u8; P::PK_BYTES];
    pk_encode::<P>(&rho, &t1, &mut pk).unwrap();
    assert_eq!(pk_decode::<P>(&pk), (rho, t1));

    let mut sk = vec![0u8; P::SK_BYTES];
    sk_encode::<P>(&rho, &key, &tr, &s1, &s2, &t0, &mut sk).unwrap();
    let d = sk_decode::<P>(&sk);
    assert_eq!((d.rho, d.key, d.tr), (rho, key, tr));
    assert_eq!((d.s1, d.s2, d.t0), (s1, s2, t0));
}

proptest! {
    #[test]
    fn keys_round_trip(seed in any::<u64>()) {
        key_round_trip::<MlDsa44>(seed);
        key_round_trip::<MlDsa65>(seed);
        key_round_trip::<MlDsa87>(seed);
    }
}

#[test]
fn extreme_coefficients_round_trip() {
    // All coefficients at b (field value 0), then all at -a (field value a + b).
    for (a, b) in [(2u32, 2u32), (4, 4), (4095, 4096)] {
        for x in [b, Q - a] {
            let w = [x; N];
            let mut out = vec![0u8; 32 * bitlen(a + b)];
            bit_pack(&w, a, b, &mut out).unwrap();
            assert_eq!(out, bit_pack_spec(&w, a, b), "a {a}, b {b}, x {x}");
            assert_eq!(bit_unpack(&out, a, b), w);
            if x == b {
                assert!(out.iter().all(|&byte| byte == 0), "a {a}, b {b}");
            }
        }
    }
    // t0 at -(2^12 - 1): every 13-bit field is 2^13 - 1, so every byte is 0xFF.
    let mut out = [0u8; 416];
    bit_pack(&[Q - 4095; N], 4095, 4096, &mut out).unwrap();
    assert!(out.iter().all(|&byte| byte == 0xFF));
    let mut out = [0u8; 320];
    simple_bit_pack(&[1023u32; N], 1023, &mut out).unwrap();
    assert!(out.iter().all(|&byte| byte == 0xFF));
}
