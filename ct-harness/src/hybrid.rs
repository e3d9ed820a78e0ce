//! `ct-harness hybrid` (feature `hybrid`): the hybrid KEMs of `lazykem-hybrid` under
//! memcheck, as `kem` runs ML-KEM: MLKEM768-X25519 (X-Wing), MLKEM768-P256 and
//! MLKEM1024-P384, one of each operation:
//! 1. `DecapsulationKey::from_seed` with the 32-byte seed marked secret (it derives
//!    everything: ML-KEM's `d || z`, the group scalar, the cached keys); the encapsulation
//!    key `ek_PQ || ek_T` is declassified when it is output;
//! 2. `EncapsulationKey::encapsulate_deterministic` to the key parsed from those (public)
//!    bytes, with the randomness (ML-KEM's `m`, then `RandomScalar`'s seed of the ephemeral
//!    scalar) marked secret; the ciphertext is declassified when it is output;
//! 3. `DecapsulationKey::decapsulate` with the key of step 1 of (a) that ciphertext and (b)
//!    that ciphertext with one bit of its ML-KEM part flipped (implicit rejection).
//!
//! The shared secrets are declassified at the end and compared: the valid decapsulation
//! gives the encapsulated key, the tampered one `SHA3-256(J(z || c) || ss_T || ct_T || ek_T
//! || label)`, computed here from unmarked copies (SHAKE256 of the seed by the `sha3` crate,
//! `ss_T` by the crate's public group API).
//!
//! Which curves run is lazykem-hybrid's choice: graviola's where the crate has its feature
//! `graviola` and graviola's CPU check passes, RustCrypto's `p256` / `p384` and
//! `x25519-dalek` otherwise. `cargo xtask ct` runs this mode on two builds of the harness,
//! one of each, and says which it expects (`--expect graviola|fallback`): the run fails if
//! the other one ran. Valgrind 3.19 does not report ADX in CPUID (valgrind bug 494162), so
//! the build with graviola is compiled with `VALGRIND_BUG_494162` set, graviola's own switch
//! for running under valgrind (its check then skips ADX).
//!
//! Graviola and RustCrypto branch on a few values that are public by design; those reports
//! are suppressed by function frame in `ct-harness/hybrid.supp`, each with its reason, and
//! `cargo xtask ct` prints which suppressions were used.

use crate::valgrind;
use crate::{declassify_bytes, expect_all_secret, expect_secret_derived, rejection_key};
use lazykem_hybrid::group::NominalGroup;
use lazykem_hybrid::{
    Ciphertext, DecapsulationKey, EncapsulationKey, Error, HybridKem, MlKem768P256, MlKem1024P384,
    SEED_SIZE, SharedSecret, XWing, encapsulation_randomness_size,
};
use sha3::digest::{ExtendableOutput, Update, XofReader};
use sha3::{Digest, Sha3_256, Shake256};
use std::time::Instant;

/// The line printed when every functional and marking check passed.
const PASSED: &str = "ct-harness hybrid: all checks passed";

/// The curve implementation lazykem-hybrid runs in this process: `graviola` when the crate
/// has graviola and graviola's CPU check (the one the crate makes) passes, else `fallback`.
pub(crate) fn curves() -> &'static str {
    #[cfg(all(
        feature = "graviola",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    if graviola::util::is_cpu_supported() {
        return "graviola";
    }
    "fallback"
}

/// Whether the curves this process would run can run here: a build made with
/// `VALGRIND_BUG_494162` passes graviola's check without ADX, which only valgrind excuses.
pub(crate) fn curves_runnable() -> bool {
    #[cfg(all(feature = "graviola", target_arch = "x86_64"))]
    if curves() == "graviola"
        && !valgrind::running_on_valgrind()
        && !std::arch::is_x86_feature_detected!("adx")
    {
        return false;
    }
    true
}

/// Runs the three hybrids; `expect` is the curve implementation that must run.
pub(crate) fn run(require_valgrind: bool, expect: Option<&str>) -> Result<(), String> {
    let on_valgrind = valgrind::running_on_valgrind();
    if require_valgrind && !on_valgrind {
        return Err("not running under valgrind (RUNNING_ON_VALGRIND returned 0)".into());
    }
    let curves = curves();
    println!("ct-harness hybrid: curves: {curves}");
    if let Some(expect) = expect
        && expect != curves
    {
        return Err(format!(
            "expected the {expect} curves, but lazykem-hybrid runs the {curves} ones"
        ));
    }
    if !curves_runnable() {
        return Err("this build forces graviola's CPU check (VALGRIND_BUG_494162) and the CPU lacks ADX: run it under valgrind".into());
    }
    check::<XWing>(1)?;
    check::<MlKem768P256>(2)?;
    check::<MlKem1024P384>(3)?;
    if on_valgrind {
        println!(
            "ct-harness hybrid: memcheck errors reported: {}",
            valgrind::error_count()
        );
    }
    println!("{PASSED}");
    Ok(())
}

/// `DecapsulationKey::from_seed`.
#[inline(never)]
pub(crate) fn key_from_seed<H: HybridKem>(
    seed: &[u8; SEED_SIZE],
) -> Result<DecapsulationKey<H>, Error> {
    DecapsulationKey::from_seed(seed)
}

/// A copy of the encoded encapsulation key of `dk`.
#[inline(never)]
pub(crate) fn ek_bytes<H: HybridKem>(dk: &DecapsulationKey<H>) -> Vec<u8> {
    dk.encapsulation_key().as_bytes().as_ref().to_vec()
}

/// `EncapsulationKey::from_bytes`.
#[inline(never)]
pub(crate) fn parse_ek<H: HybridKem>(bytes: &[u8]) -> Result<EncapsulationKey<H>, Error> {
    EncapsulationKey::from_bytes(bytes)
}

/// `EncapsulationKey::encapsulate_deterministic` (`EncapsDerand`).
#[inline(never)]
pub(crate) fn encapsulate<H: HybridKem>(
    ek: &EncapsulationKey<H>,
    randomness: &[u8],
) -> Result<(Ciphertext<H>, SharedSecret), Error> {
    ek.encapsulate_deterministic(randomness)
}

/// A copy of the ciphertext bytes.
#[inline(never)]
pub(crate) fn ct_bytes<H: HybridKem>(ct: &Ciphertext<H>) -> Vec<u8> {
    ct.as_bytes().as_ref().to_vec()
}

/// `Ciphertext::from_bytes`.
#[inline(never)]
pub(crate) fn parse_ct<H: HybridKem>(bytes: &[u8]) -> Result<Ciphertext<H>, Error> {
    Ciphertext::from_bytes(bytes)
}

/// `DecapsulationKey::decapsulate`.
#[inline(never)]
pub(crate) fn decapsulate<H: HybridKem>(
    dk: &DecapsulationKey<H>,
    ct: &Ciphertext<H>,
) -> SharedSecret {
    dk.decapsulate(ct)
}

/// Copies a shared secret out, checks it is secret-derived, and declassifies the copy.
fn declassify_shared_secret(what: &str, key: &SharedSecret) -> Result<[u8; 32], String> {
    let mut bytes = *key.as_bytes();
    expect_secret_derived(what, &bytes)?;
    valgrind::declassify(&mut bytes);
    Ok(bytes)
}

/// The rejection key of a tampered ciphertext, from unmarked copies: `SHA3-256(J(z || c_PQ)
/// || ss_T || ct_T || ek_T || label)` with `z` and the group's scalar seed from
/// `SHAKE256(seed)` (the key expansion of draft-irtf-cfrg-hybrid-kems §5.1) and `ss_T` from
/// the crate's group API.
fn expected_rejection<H: HybridKem>(seed: &[u8], ek: &[u8], ct: &[u8]) -> Result<[u8; 32], String> {
    let name = H::NAME;
    let n_seed = <H::Group as NominalGroup>::SEED_SIZE;
    let mut expanded = vec![0u8; 64 + n_seed];
    let mut xof = Shake256::default();
    xof.update(seed);
    xof.finalize_xof().read(&mut expanded);
    let ct_pq_len = <H::Pq as lazykem::ParameterSet>::CIPHERTEXT_SIZE;
    let ek_pq_len = <H::Pq as lazykem::ParameterSet>::ENCAPSULATION_KEY_SIZE;
    let (ct_pq, ct_t) = ct.split_at(ct_pq_len);
    let j = rejection_key(&expanded[32..64], ct_pq);
    let sk_t = H::Group::random_scalar(&expanded[64..])
        .map_err(|e| format!("{name}: oracle scalar: {e}"))?;
    let element =
        H::Group::element_from_bytes(ct_t).map_err(|e| format!("{name}: oracle ct_T: {e}"))?;
    let ss_t = H::Group::exp(&element, &sk_t);
    Ok(Sha3_256::new()
        .chain_update(j)
        .chain_update(ss_t.as_ref())
        .chain_update(ct_t)
        .chain_update(&ek[ek_pq_len..])
        .chain_update(H::LABEL)
        .finalize()
        .into())
}

/// One hybrid KEM: key derivation, encapsulation, two decapsulations.
fn check<H: HybridKem>(label: u8) -> Result<(), String> {
    let name = H::NAME;
    let start = Instant::now();

    // 1. DeriveKeyPair(seed), the seed secret.
    let seed_plain: [u8; SEED_SIZE] = crate::test_bytes(0x80 + label);
    let mut seed = seed_plain;
    valgrind::mark_secret(&mut seed);
    expect_all_secret("seed", &seed)?;
    let dk = key_from_seed::<H>(&seed).map_err(|e| format!("{name}: from_seed: {e}"))?;
    // ek_PQ || ek_T is public from here on: it is sent to peers.
    let mut ek = ek_bytes(&dk);
    let ek_taint = declassify_bytes("encapsulation key", &mut ek)?;
    println!("{name}: from_seed     ok (ek secret-derived bits before declassify: {ek_taint})");

    // 2. EncapsDerand(ek, randomness), the randomness secret, to the parsed public key.
    let ek_parsed = parse_ek::<H>(&ek).map_err(|e| format!("{name}: parse ek: {e}"))?;
    let mut randomness: Vec<u8> =
        crate::test_bytes::<160>(0x90 + label)[..encapsulation_randomness_size::<H>()].to_vec();
    valgrind::mark_secret(&mut randomness);
    expect_all_secret("randomness", &randomness)?;
    let (ct, key_encaps) =
        encapsulate(&ek_parsed, &randomness).map_err(|e| format!("{name}: encapsulate: {e}"))?;
    // The ciphertext is public from here on: it is sent to the key holder.
    let mut ct = ct_bytes(&ct);
    let ct_taint = declassify_bytes("ciphertext", &mut ct)?;
    println!("{name}: encapsulate   ok (ct secret-derived bits before declassify: {ct_taint})");

    // 3. Decaps of the valid and of a tampered ciphertext (one bit of ct_PQ flipped).
    let ct_valid = parse_ct::<H>(&ct).map_err(|e| format!("{name}: parse ct: {e}"))?;
    let mut bad = ct.clone();
    bad[0] ^= 1;
    let ct_bad = parse_ct::<H>(&bad).map_err(|e| format!("{name}: parse ct: {e}"))?;
    let key_valid = decapsulate(&dk, &ct_valid);
    let key_rejected = decapsulate(&dk, &ct_bad);

    // End of the protocol: the shared secrets are declassified, then compared.
    let k_encaps = declassify_shared_secret("encapsulated key", &key_encaps)?;
    let k_valid = declassify_shared_secret("decapsulated key", &key_valid)?;
    let k_rejected = declassify_shared_secret("rejection key", &key_rejected)?;
    if k_valid != k_encaps {
        return Err(format!(
            "{name}: decapsulation does not recover the encapsulated key"
        ));
    }
    if k_rejected != expected_rejection::<H>(&seed_plain, &ek, &bad)? {
        return Err(format!(
            "{name}: a tampered ciphertext does not give SHA3-256(J(z || c) || ss_T || ct_T || ek_T || label)"
        ));
    }
    println!("{name}: decapsulate   ok (valid: K matches; tampered: ML-KEM's J(z || c) combined)");
    println!(
        "{name}: done in {:.1} ms (ek {} B, ct {} B; K = {})",
        start.elapsed().as_secs_f64() * 1e3,
        ek.len(),
        ct.len(),
        k_encaps
            .iter()
            .take(8)
            .fold(String::new(), |s, b| s + &format!("{b:02x}"))
    );
    Ok(())
}
