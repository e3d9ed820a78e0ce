//! The draft's test vectors (`vectors/xwing/test-vectors.json`, draft -05 to -10: 3 vectors;
//! a missing file fails, except in a packaged copy of the crate, which has no `vectors/`):
//! key generation from the seed, derandomized encapsulation with `eseed`, decapsulation,
//! each byte for byte. `XWING_VECTORS` names another file.

use lazykem_hybrid::x_wing::{Ciphertext, DecapsulationKey, EncapsulationKey};

fn field(v: &serde_json::Value, key: &str) -> Vec<u8> {
    let s = v[key]
        .as_str()
        .unwrap_or_else(|| panic!("field {key} missing or not a string"));
    hex::decode(s).unwrap_or_else(|e| panic!("field {key}: {e}"))
}

#[test]
fn draft_test_vectors() {
    let manifest_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = std::env::var_os("XWING_VECTORS").map_or_else(
        || manifest_dir.join("../../vectors/xwing/test-vectors.json"),
        std::path::PathBuf::from,
    );
    // Skipped only in a packaged copy of the crate (`cargo package` writes
    // `Cargo.toml.orig`), which does not carry the workspace's `vectors/`; in the workspace a
    // missing file fails.
    if manifest_dir.join("Cargo.toml.orig").is_file()
        && std::env::var_os("XWING_VECTORS").is_none()
        && !path.is_file()
    {
        eprintln!("skipped: a packaged build without the workspace's vectors/");
        return;
    }
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let vectors: Vec<serde_json::Value> = serde_json::from_str(&text).expect("JSON array");
    assert_eq!(vectors.len(), 3, "the draft has three vectors");
    for (i, v) in vectors.iter().enumerate() {
        let seed: [u8; 32] = field(v, "seed").try_into().expect("32-byte seed");
        assert_eq!(field(v, "sk"), seed, "vector {i}: sk is the seed");
        let eseed: [u8; 64] = field(v, "eseed").try_into().expect("64-byte eseed");
        let dk = DecapsulationKey::from_seed(&seed).expect("X-Wing seeds never fail");
        assert_eq!(dk.seed(), &seed);
        assert_eq!(
            dk.encapsulation_key().as_bytes().as_slice(),
            field(v, "pk"),
            "vector {i}: pk"
        );
        let ek = EncapsulationKey::from_bytes(&field(v, "pk")).expect("the vector's pk");
        let (ct, ss) = ek.encapsulate_deterministic(&eseed).expect("64 bytes");
        assert_eq!(ct.as_bytes().as_slice(), field(v, "ct"), "vector {i}: ct");
        assert_eq!(ss.as_bytes().as_slice(), field(v, "ss"), "vector {i}: ss");
        let ct = Ciphertext::from_bytes(&field(v, "ct")).expect("the vector's ct");
        assert_eq!(
            dk.decapsulate(&ct).as_bytes().as_slice(),
            field(v, "ss"),
            "vector {i}: decapsulation"
        );
    }
}
