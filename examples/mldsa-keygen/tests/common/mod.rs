//! Helpers shared by the integration tests: the ACVP vector file, SHAKE256 from the `sha3`
//! crate, and decoders written literally from FIPS 204 (bit by bit, BytesToBits and
//! BitsToInteger) so that they are an independent check of the shift-based encoders.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use std::path::PathBuf;

use mldsa_keygen::{D, N, ParameterSet, Q, params::bitlen};
use sha3::digest::{ExtendableOutput, Update, XofReader};

/// File name of the ACVP ML-DSA keyGen vectors (prompt and expected results merged).
pub(crate) const KEYGEN_FILE: &str = "ML-DSA-keyGen-FIPS204.internalProjection.json";

/// Directory holding [`KEYGEN_FILE`]: `$MLDSA_VECTORS_DIR` if set, else
/// `<workspace root>/vectors/mldsa-acvp` (vendored; this crate is `<root>/examples/mldsa-keygen`).
pub(crate) fn vectors_dir() -> PathBuf {
    match std::env::var_os("MLDSA_VECTORS_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors/mldsa-acvp"),
    }
}

/// One ACVP keyGen test case.
pub(crate) struct Case {
    pub(crate) tc_id: u64,
    pub(crate) xi: [u8; 32],
    pub(crate) pk: Vec<u8>,
    pub(crate) sk: Vec<u8>,
}

/// One ACVP test group: a parameter-set name (`"ML-DSA-44"`, ...) and its cases.
pub(crate) struct Group {
    pub(crate) parameter_set: String,
    pub(crate) cases: Vec<Case>,
}

fn field<'a>(value: &'a serde_json::Value, key: &str, context: &str) -> &'a serde_json::Value {
    value
        .get(key)
        .unwrap_or_else(|| panic!("{KEYGEN_FILE}: {context} has no field `{key}`"))
}

fn hex_field(value: &serde_json::Value, key: &str, context: &str) -> Vec<u8> {
    let text = field(value, key, context)
        .as_str()
        .unwrap_or_else(|| panic!("{KEYGEN_FILE}: {context}: `{key}` is not a string"));
    hex::decode(text).unwrap_or_else(|e| panic!("{KEYGEN_FILE}: {context}: `{key}`: {e}"))
}

/// Loads every group of the keyGen file. A missing or unreadable file fails the test (it is
/// never skipped).
pub(crate) fn load_keygen_groups() -> Vec<Group> {
    let path = vectors_dir().join(KEYGEN_FILE);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "ML-DSA ACVP keyGen vectors not found at {}: {e}. Set MLDSA_VECTORS_DIR to the \
             directory holding {KEYGEN_FILE} (by default <workspace root>/vectors/mldsa-acvp).",
            path.display()
        )
    });
    let json: serde_json::Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{}: invalid JSON: {e}", path.display()));
    let groups = field(&json, "testGroups", "file")
        .as_array()
        .expect("testGroups is an array");
    groups
        .iter()
        .map(|group| {
            let parameter_set = field(group, "parameterSet", "group")
                .as_str()
                .expect("parameterSet is a string")
                .to_owned();
            let cases = field(group, "tests", &parameter_set)
                .as_array()
                .expect("tests is an array")
                .iter()
                .map(|test| {
                    let tc_id = field(test, "tcId", &parameter_set)
                        .as_u64()
                        .expect("tcId is an integer");
                    let context = format!("{parameter_set} tcId {tc_id}");
                    let xi = hex_field(test, "seed", &context)
                        .try_into()
                        .unwrap_or_else(|_| panic!("{context}: seed is not 32 bytes"));
                    Case {
                        tc_id,
                        xi,
                        pk: hex_field(test, "pk", &context),
                        sk: hex_field(test, "sk", &context),
                    }
                })
                .collect();
            Group {
                parameter_set,
                cases,
            }
        })
        .collect()
}

/// SHAKE256 of the concatenation of `parts`, `out.len()` bytes, from the `sha3` crate.
pub(crate) fn shake256(parts: &[&[u8]], out: &mut [u8]) {
    let mut xof = sha3::Shake256::default();
    for part in parts {
        xof.update(part);
    }
    xof.finalize_xof().read(out);
}

/// A SHAKE256 reader over `input`, for block-by-block squeezing.
pub(crate) fn shake256_reader(input: &[u8]) -> impl XofReader {
    let mut xof = sha3::Shake256::default();
    xof.update(input);
    xof.finalize_xof()
}

/// BytesToBits (FIPS 204 Alg. 13): bit 8i + j is bit j of byte i.
pub(crate) fn bytes_to_bits(bytes: &[u8]) -> Vec<u8> {
    bytes
        .iter()
        .flat_map(|&byte| (0..8).map(move |j| (byte >> j) & 1))
        .collect()
}

/// BitsToBytes (FIPS 204 Alg. 12).
pub(crate) fn bits_to_bytes(bits: &[u8]) -> Vec<u8> {
    assert_eq!(bits.len() % 8, 0);
    let mut bytes = vec![0u8; bits.len() / 8];
    for (i, &bit) in bits.iter().enumerate() {
        bytes[i / 8] += bit << (i % 8);
    }
    bytes
}

/// IntegerToBits (FIPS 204 Alg. 9): the low `alpha` bits of x, least significant first.
pub(crate) fn integer_to_bits(x: u32, alpha: usize) -> Vec<u8> {
    let mut x = x;
    let mut bits = Vec::with_capacity(alpha);
    for _ in 0..alpha {
        bits.push((x % 2) as u8);
        x /= 2;
    }
    bits
}

/// BitsToInteger (FIPS 204 Alg. 10).
pub(crate) fn bits_to_integer(bits: &[u8]) -> u32 {
    bits.iter().rev().fold(0, |x, &bit| 2 * x + u32::from(bit))
}

/// SimpleBitPack (FIPS 204 Alg. 16), literally: the reference the fast encoder is
/// compared with.
pub(crate) fn simple_bit_pack_spec(w: &[u32; N], b: u32) -> Vec<u8> {
    let c = bitlen(b);
    let bits: Vec<u8> = w.iter().flat_map(|&wi| integer_to_bits(wi, c)).collect();
    bits_to_bytes(&bits)
}

/// BitPack (FIPS 204 Alg. 17), literally, for canonical coefficients in [-a, b].
pub(crate) fn bit_pack_spec(w: &[u32; N], a: u32, b: u32) -> Vec<u8> {
    let c = bitlen(a + b);
    let bits: Vec<u8> = w
        .iter()
        .flat_map(|&wi| {
            integer_to_bits(
                ((i64::from(b) - i64::from(wi)).rem_euclid(i64::from(Q))) as u32,
                c,
            )
        })
        .collect();
    bits_to_bytes(&bits)
}

/// SimpleBitUnpack (FIPS 204 Alg. 18).
pub(crate) fn simple_bit_unpack(bytes: &[u8], b: u32) -> [u32; N] {
    let c = bitlen(b);
    assert_eq!(bytes.len(), 32 * c, "SimpleBitUnpack input length");
    let z = bytes_to_bits(bytes);
    std::array::from_fn(|i| bits_to_integer(&z[i * c..(i + 1) * c]))
}

/// BitUnpack (FIPS 204 Alg. 19), returning canonical coefficients (b - z mod q).
pub(crate) fn bit_unpack(bytes: &[u8], a: u32, b: u32) -> [u32; N] {
    let c = bitlen(a + b);
    assert_eq!(bytes.len(), 32 * c, "BitUnpack input length");
    let z = bytes_to_bits(bytes);
    std::array::from_fn(|i| {
        let value = i64::from(b) - i64::from(bits_to_integer(&z[i * c..(i + 1) * c]));
        value.rem_euclid(i64::from(Q)) as u32
    })
}

/// Signed value of a canonical coefficient: x for x <= q/2, x - q above.
pub(crate) fn signed(x: u32) -> i64 {
    let x = i64::from(x);
    if x > i64::from(Q) / 2 {
        x - i64::from(Q)
    } else {
        x
    }
}

/// pkDecode (FIPS 204 Alg. 23): (rho, t1).
pub(crate) fn pk_decode<P: ParameterSet>(pk: &[u8]) -> ([u8; 32], Vec<[u32; N]>) {
    assert_eq!(pk.len(), P::PK_BYTES);
    let rho = pk[..32].try_into().unwrap();
    let t1 = pk[32..]
        .chunks_exact(320)
        .map(|chunk| simple_bit_unpack(chunk, (1 << 10) - 1))
        .collect();
    (rho, t1)
}

/// The components of an ML-DSA private key (FIPS 204 Alg. 25).
pub(crate) struct DecodedSk {
    pub(crate) rho: [u8; 32],
    pub(crate) key: [u8; 32],
    pub(crate) tr: [u8; 64],
    pub(crate) s1: Vec<[u32; N]>,
    pub(crate) s2: Vec<[u32; N]>,
    pub(crate) t0: Vec<[u32; N]>,
}

/// skDecode (FIPS 204 Alg. 25).
pub(crate) fn sk_decode<P: ParameterSet>(sk: &[u8]) -> DecodedSk {
    assert_eq!(sk.len(), P::SK_BYTES);
    let eta = P::ETA;
    let eta_bytes = 32 * bitlen(2 * eta);
    let (seeds, rest) = sk.split_at(128);
    let (s1_bytes, rest) = rest.split_at(P::L * eta_bytes);
    let (s2_bytes, t0_bytes) = rest.split_at(P::K * eta_bytes);
    assert_eq!(t0_bytes.len(), P::K * 32 * D as usize);
    let half = 1 << (D - 1);
    DecodedSk {
        rho: seeds[..32].try_into().unwrap(),
        key: seeds[32..64].try_into().unwrap(),
        tr: seeds[64..].try_into().unwrap(),
        s1: s1_bytes
            .chunks_exact(eta_bytes)
            .map(|c| bit_unpack(c, eta, eta))
            .collect(),
        s2: s2_bytes
            .chunks_exact(eta_bytes)
            .map(|c| bit_unpack(c, eta, eta))
            .collect(),
        t0: t0_bytes
            .chunks_exact(32 * D as usize)
            .map(|c| bit_unpack(c, half - 1, half))
            .collect(),
    }
}
