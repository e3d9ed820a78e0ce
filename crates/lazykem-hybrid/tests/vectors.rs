//! Vectors nobody here wrote, each a missing-file failure in the workspace (skipped only in a
//! packaged copy of the crate, which has no `vectors/`):
//! - draft-irtf-cfrg-concrete-hybrid-kems -04 (`vectors/hybrid-kems/test-vectors.json`, 10
//!   per KEM): key generation from the seed, `EncapsDerand`, decapsulation, byte for byte;
//!   the group secret `decapsulation_key_t` gives the key's group part;
//! - the LAMPS composite ML-KEM vectors (`vectors/lamps-composite-kem/testvectors-subset.json`,
//!   one per combination): the same encodings and combiner, with the private key as ML-KEM's
//!   64-byte seed and the group's own key (no 32-byte seed); checked on the parts this crate
//!   exposes: `lazykem`'s ML-KEM, [`lazykem_hybrid::group`] and [`Ciphertext::from_bytes`],
//!   the combiner recomputed here with RustCrypto `sha3`.

use std::path::{Path, PathBuf};

use lazykem_hybrid::group::NominalGroup;
use lazykem_hybrid::{
    Ciphertext, DecapsulationKey, EncapsulationKey, HybridKem, MlKem768P256, MlKem1024P384, XWing,
};
use sha3::Digest;

/// The file under the workspace's `vectors/`, or `None` in a packaged copy of the crate.
fn vector_file(relative: &str) -> Option<PathBuf> {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = manifest_dir.join("../../vectors").join(relative);
    if manifest_dir.join("Cargo.toml.orig").is_file() && !path.is_file() {
        eprintln!("skipped: a packaged build without the workspace's vectors/");
        return None;
    }
    Some(path)
}

fn read_json(relative: &str) -> Option<serde_json::Value> {
    let path = vector_file(relative)?;
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    Some(serde_json::from_str(&text).expect("JSON"))
}

fn hex_field(v: &serde_json::Value, key: &str) -> Vec<u8> {
    let s = v[key]
        .as_str()
        .unwrap_or_else(|| panic!("field {key} missing or not a string"));
    hex::decode(s).unwrap_or_else(|e| panic!("field {key}: {e}"))
}

fn cfrg<H: HybridKem>(all: &serde_json::Value, name: &str) {
    let vectors = all[name].as_array().expect("an array per KEM");
    assert_eq!(vectors.len(), 10, "{name}: the draft has ten vectors");
    for (i, v) in vectors.iter().enumerate() {
        let seed: [u8; 32] = hex_field(v, "seed").try_into().expect("32-byte seed");
        assert_eq!(
            hex_field(v, "decapsulation_key"),
            seed,
            "{name} {i}: dk is the seed"
        );
        let ek_bytes = hex_field(v, "encapsulation_key");
        let ct_bytes = hex_field(v, "ciphertext");
        let ss = hex_field(v, "shared_secret");

        let dk = DecapsulationKey::<H>::from_seed(&seed).expect("the vector's seed");
        assert_eq!(
            dk.encapsulation_key().as_ref(),
            ek_bytes.as_slice(),
            "{name} {i}: ek"
        );
        // The group secret gives the key's group part.
        let sk_t = H::Group::scalar_from_bytes(&hex_field(v, "decapsulation_key_t"))
            .expect("the vector's scalar");
        let ek_t = &ek_bytes[ek_bytes.len() - <H::Group as NominalGroup>::ELEMENT_SIZE..];
        assert_eq!(H::Group::exp_base(&sk_t).as_ref(), ek_t, "{name} {i}: ek_T");

        let ek = EncapsulationKey::<H>::from_bytes(&ek_bytes).expect("the vector's ek");
        let (ct, sender) = ek
            .encapsulate_deterministic(&hex_field(v, "randomness"))
            .expect("the vector's randomness");
        assert_eq!(ct.as_ref(), ct_bytes.as_slice(), "{name} {i}: ct");
        assert_eq!(sender.as_bytes().as_slice(), ss, "{name} {i}: ss");
        let ct = Ciphertext::<H>::from_bytes(&ct_bytes).expect("the vector's ct");
        assert_eq!(
            dk.decapsulate(&ct).as_bytes().as_slice(),
            ss,
            "{name} {i}: decaps"
        );
    }
}

#[test]
fn concrete_hybrid_kems_draft_vectors() {
    let Some(all) = read_json("hybrid-kems/test-vectors.json") else {
        return;
    };
    cfrg::<MlKem768P256>(&all, "mlkem768_p256");
    cfrg::<XWing>(&all, "mlkem768_x25519");
    cfrg::<MlKem1024P384>(&all, "mlkem1024_p384");
}

fn b64(v: &serde_json::Value, key: &str) -> Vec<u8> {
    let s = v[key].as_str().unwrap_or_else(|| panic!("field {key}"));
    base64_decode(s)
}

/// Standard padded base64 (RFC 4648 §4).
fn base64_decode(s: &str) -> Vec<u8> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b'=') {
        let v = ALPHABET.iter().position(|&a| a == c).expect("base64") as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// The group scalar inside the LAMPS private key: X25519's raw 32 bytes, or the privateKey
/// OCTET STRING of a DER `ECPrivateKey` (RFC 5915), at a fixed offset for this fixed form.
fn lamps_scalar<G: NominalGroup>(trad_sk: &[u8]) -> &[u8] {
    if G::NAME == "X25519" {
        return trad_sk;
    }
    // 30 len 02 01 01 04 <n> <scalar> a0 ...
    assert_eq!(
        &trad_sk[2..5],
        &[0x02, 0x01, 0x01],
        "ECPrivateKey version 1"
    );
    assert_eq!(trad_sk[5], 0x04);
    assert_eq!(usize::from(trad_sk[6]), G::SCALAR_SIZE);
    &trad_sk[7..7 + G::SCALAR_SIZE]
}

fn lamps<H: HybridKem>(v: &serde_json::Value) {
    let name = v["tcId"].as_str().expect("tcId");
    let (ek_bytes, dk, c, k) = (b64(v, "ek"), b64(v, "dk"), b64(v, "c"), b64(v, "k"));
    let ml_seed: [u8; 64] = dk[..64].try_into().expect("64-byte ML-KEM seed");
    let sk_t = H::Group::scalar_from_bytes(lamps_scalar::<H::Group>(&dk[64..])).expect("scalar");

    // The public key: ML-KEM's from its seed, then Exp(g, sk_T).
    let ml_dk = lazykem::DecapsulationKey::<H::Pq>::from_seed(&ml_seed);
    let ek_t = H::Group::exp_base(&sk_t);
    let mut ek_ours = ml_dk.encapsulation_key().as_ref().to_vec();
    ek_ours.extend_from_slice(ek_t.as_ref());
    assert_eq!(ek_ours, ek_bytes, "{name}: ek");
    EncapsulationKey::<H>::from_bytes(&ek_bytes).expect("the vector's ek parses");

    // Decapsulation on the parts, the combiner as both drafts write it.
    let ct = Ciphertext::<H>::from_bytes(&c).expect("the vector's ciphertext parses");
    let pq_len = c.len() - <H::Group as NominalGroup>::ELEMENT_SIZE;
    let ct_pq = lazykem::Ciphertext::<H::Pq>::from_bytes(&c[..pq_len]).expect("ML-KEM ct");
    let ss_pq = ml_dk.decapsulate(&ct_pq);
    let ct_t = H::Group::element_from_bytes(&c[pq_len..]).expect("ct_T");
    let ss_t = H::Group::exp(&ct_t, &sk_t);
    let mut h = sha3::Sha3_256::new();
    for part in [
        ss_pq.as_bytes().as_slice(),
        ss_t.as_ref(),
        &c[pq_len..],
        ek_t.as_ref(),
        H::LABEL,
    ] {
        h.update(part);
    }
    assert_eq!(h.finalize().as_slice(), k.as_slice(), "{name}: k");
    assert_eq!(ct.as_ref(), c.as_slice());
}

#[test]
fn lamps_composite_kem_vectors() {
    let Some(all) = read_json("lamps-composite-kem/testvectors-subset.json") else {
        return;
    };
    let tests = all["tests"].as_array().expect("tests");
    let mut seen = 0;
    for v in tests {
        match v["tcId"].as_str() {
            Some("id-MLKEM768-X25519-SHA3-256") => lamps::<XWing>(v),
            Some("id-MLKEM768-ECDH-P256-SHA3-256") => lamps::<MlKem768P256>(v),
            Some("id-MLKEM1024-ECDH-P384-SHA3-256") => lamps::<MlKem1024P384>(v),
            other => panic!("unexpected entry {other:?}"),
        }
        seen += 1;
    }
    assert_eq!(seen, 3);
}
