//! Constant-time harness for `cargo xtask ct`: runs ML-KEM with its secrets marked
//! undefined for valgrind's memcheck, the technique BoringSSL uses.
//!
//! Memcheck tracks, bit by bit, which values derive from undefined memory, and reports when
//! such a value decides a conditional branch ("Conditional jump or move depends on
//! uninitialised value(s)"), forms a memory address ("Use of uninitialised value of size
//! N") or reaches a system call. Marking the secrets undefined turns those reports into
//! exactly the constant-time violations of DESIGN.md: a branch, a loop bound or a memory
//! index that depends on a secret.
//!
//! # Modes
//! - `ct-harness [kem]`: for each backend that the CPU, as valgrind presents it, has
//!   (`AnyBackend::available()`, portable first), passed explicitly to the `hazmat` entry points
//!   `lazykem::hazmat::OnBackend` (a backend the CPU lacks is reported as skipped), and for
//!   ML-KEM-512, -768 and -1024, one of each operation:
//!   1. KeyGen from the seed `d || z`, marked secret before `OnBackend::decapsulation_key_from_seed`; the
//!      encapsulation key (`t-hat || rho`) is declassified when it is output;
//!   2. the expanded key export `OnBackend::to_expanded_bytes` of that key;
//!   3. encapsulation (`OnBackend::encapsulate_deterministic`) with `m` marked secret, to the
//!      parsed (public) encapsulation key, and the one-shot form from the encoded key
//!      (`OnBackend::encapsulate_encoded_deterministic`); the ciphertext is declassified when it
//!      is output;
//!   4. decapsulation with a key imported by `OnBackend::decapsulation_key_from_expanded_bytes`, whose `dk_pke` and `z`
//!      are marked secret and whose embedded `ek` and `H(ek)` are public (FIPS 203 makes them
//!      part of the public key), of (a) the valid ciphertext and (b) that ciphertext with one
//!      bit flipped, which fails re-encryption (implicit rejection); then both again in one
//!      call each from those bytes, `OnBackend::decapsulate_expanded` (whose `J(z || c)` shares the
//!      4-way Keccak with the public A-hat streams);
//!   5. the same two decapsulations with the key of step 1, every part of which derives
//!      from the secret seed (its A-hat, t-hat and H(ek) too: a stricter setting).
//!
//!   The shared secrets are declassified at the end, then compared: encapsulation and both
//!   valid decapsulations agree, both rejections give `J(z || c)`, computed here
//!   independently, and every backend gives the same keys. Under valgrind the harness also
//!   checks, with `VALGRIND_GET_VBITS`, that the marking took effect and that each output
//!   was secret-derived before it was declassified, so a run in which the secrets silently
//!   lost their marking fails.
//! - `ct-harness hybrid [--expect graviola|fallback]` (feature `hybrid`): the same for the
//!   hybrid KEMs of `lazykem-hybrid` (X-Wing, MLKEM768-P256, MLKEM1024-P384), see `hybrid`.
//! - `ct-harness leaky`: the negative control of [`leaky`].
//! - `ct-harness residue [--strict]`: the secrets each operation leaves on the dead stack
//!   ([`residue`]), natively, on every backend the CPU has.
//! - `ct-harness trace`: pairs of runs of each operation on two secrets between trace markers
//!   ([`trace`]), for the trace-equivalence test under qemu (`cargo xtask ct-aarch64`).
//! - `ct-harness dudect [--round N] [--only ID,ID]`: one measurement of the statistical
//!   timing test of [`dudect`], run natively (not under valgrind), which covers the AVX-512
//!   backend that valgrind cannot execute; `cargo xtask dudect` runs the rounds and decides.
//!
//! `--require-valgrind` makes either mode fail when `RUNNING_ON_VALGRIND` says it is not
//! under valgrind. Natively every client request is a no-op and the harness is a plain
//! functional test.
//!
//! # What is declassified, and why
//! Only values public by design, at the point they become public: the encapsulation key
//! output by KeyGen (`t-hat || rho`), the ciphertext output by Encaps, the public half of
//! the expanded decapsulation key (`ek || H(ek)`), and the shared secrets at the end, before
//! they are compared and printed. The harness works on copies; it never changes the shadow
//! state of memory the library owns.
//!
//! One value becomes public inside KeyGen, out of the harness's reach: `rho`, the first
//! half of `G(d || k)`, derives from the secret `d`, and `SampleNTT` rejection-samples
//! A-hat from it (branches on public data, allowed by DESIGN.md). The library declassifies
//! it itself, at that point, through its `ct-validation` feature
//! (`lattice_sampling::ct_validation::declassify`, called in `lazykem::kpke::key_gen`), which
//! this crate enables; `cargo xtask ct` accepts no report at all. Without the feature, or
//! if the call moved after the sampling, the run would fail with reports from the
//! `SampleNTT` parser.
//!
//! The `hybrid` mode declassifies the same kinds of values (the encapsulation key and the
//! ciphertext when output, the shared secrets at the end). The curves it runs branch on a
//! few secret-derived values that are public by design, inside graviola and RustCrypto, out
//! of the harness's reach: `cargo xtask ct` suppresses exactly those reports, by function
//! frame, with `ct-harness/hybrid.supp` (each with its reason), in that mode only.
#![forbid(clippy::undocumented_unsafe_blocks)]

mod dudect;
#[cfg(feature = "hybrid")]
mod hybrid;
mod leaky;
mod ops;
// Copies the dead stack with an x86_64 `rep movsb`.
#[cfg(target_arch = "x86_64")]
mod residue;
mod trace;
mod valgrind;

use lazykem::BackendKind;
use lazykem::hazmat::AnyBackend;
use ops::{Kem, MlKem512, MlKem768, MlKem1024};
use sha3::Shake256;
use sha3::digest::{ExtendableOutput, Update, XofReader};
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str =
    "usage: ct-harness [kem | leaky | residue | trace] [--require-valgrind] [--strict]
       ct-harness hybrid [--require-valgrind] [--expect graviola|fallback]
       ct-harness dudect [--round N] [--only ID,ID]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `dudect` takes its own arguments.
    if args.first().is_some_and(|a| a == "dudect") {
        let result = dudect::Options::parse(&args[1..]).and_then(|o| dudect::run(&o));
        return match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("ct-harness dudect: FAILED: {message}\n{USAGE}");
                ExitCode::FAILURE
            }
        };
    }
    let mut mode = "kem";
    let mut require_valgrind = false;
    let mut strict = false;
    let mut expect = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "kem" | "leaky" | "residue" | "trace" | "hybrid" => mode = arg,
            "--require-valgrind" => require_valgrind = true,
            "--strict" => strict = true,
            "--expect" => expect = args.next().map(String::as_str),
            _ => {
                eprintln!("ct-harness: unknown argument `{arg}`\n{USAGE}");
                return ExitCode::FAILURE;
            }
        }
    }
    let result = match mode {
        "leaky" => leaky::run(require_valgrind),
        "trace" => trace::run(),
        #[cfg(feature = "hybrid")]
        "hybrid" => hybrid::run(require_valgrind, expect),
        #[cfg(not(feature = "hybrid"))]
        "hybrid" => {
            let _ = expect;
            Err("built without the `hybrid` feature".into())
        }
        #[cfg(target_arch = "x86_64")]
        "residue" => residue::run(strict),
        #[cfg(not(target_arch = "x86_64"))]
        "residue" => {
            let _ = strict;
            Err("the residue report needs x86_64".into())
        }
        _ => run_kem(require_valgrind),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("ct-harness {mode}: FAILED: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Runs every parameter set.
fn run_kem(require_valgrind: bool) -> Result<(), String> {
    let on_valgrind = valgrind::running_on_valgrind();
    if require_valgrind && !on_valgrind {
        return Err("not running under valgrind (RUNNING_ON_VALGRIND returned 0)".into());
    }
    println!(
        "ct-harness: {}",
        if on_valgrind {
            "running under valgrind, secrets marked undefined"
        } else {
            "not under valgrind: client requests are no-ops, functional checks only"
        }
    );
    println!(
        "ct-harness: default backend (lazykem::backend()): {}",
        lazykem::backend()
    );
    // Every backend the CPU (as valgrind presents it) has, passed to each operation.
    let mut reference: Option<(BackendKind, [[u8; 32]; 3])> = None;
    let mut checked = Vec::new();
    let mut skipped = Vec::new();
    for kind in BackendKind::ALL.into_iter().filter(|k| !k.is_available()) {
        skipped.push(kind.name());
    }
    for backend in backends("ct-harness") {
        let kind = backend.kind();
        println!("ct-harness: backend {kind}");
        let pass = [
            check::<MlKem512>(backend, 1)?,
            check::<MlKem768>(backend, 2)?,
            check::<MlKem1024>(backend, 3)?,
        ];
        // Every backend computes identical results.
        match reference {
            Some((first, keys)) if keys != pass => {
                return Err(format!("backend {kind} disagrees with backend {first}"));
            }
            Some(_) => {}
            None => reference = Some((kind, pass)),
        }
        checked.push(kind.name());
    }
    if checked.is_empty() {
        return Err("no backend is available".into());
    }
    println!("ct-harness: backends checked: {}", checked.join(", "));
    if !skipped.is_empty() {
        println!(
            "ct-harness: backends skipped (not available on this CPU): {}",
            skipped.join(", ")
        );
    }
    if on_valgrind {
        println!(
            "ct-harness: memcheck errors reported: {}",
            valgrind::error_count()
        );
    }
    println!("ct-harness: all checks passed");
    Ok(())
}

/// Every backend the CPU (as valgrind presents it) has, portable first
/// (`AnyBackend::available()`), after saying on stdout, as `tool`, which kinds it lacks.
pub(crate) fn backends(tool: &str) -> impl Iterator<Item = AnyBackend> {
    for kind in BackendKind::ALL.into_iter().filter(|k| !k.is_available()) {
        println!("{tool}: backend {kind}: skipped (not available on this CPU)");
    }
    AnyBackend::available()
}

/// Deterministic test bytes (any value does; each parameter set gets its own).
fn test_bytes<const LEN: usize>(label: u8) -> [u8; LEN] {
    let mut state = 0x2545_f491_u32 ^ u32::from(label);
    core::array::from_fn(|_| {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        (state >> 24) as u8
    })
}

/// Under valgrind: fails unless every bit of `buf` is marked secret.
fn expect_all_secret(what: &str, buf: &[u8]) -> Result<(), String> {
    match valgrind::undefined_bits(buf) {
        Some(bits) if bits as usize != 8 * buf.len() => Err(format!(
            "{what}: only {bits} of {} bits are marked secret after MAKE_MEM_UNDEFINED",
            8 * buf.len()
        )),
        _ => Ok(()),
    }
}

/// Under valgrind: fails unless some bit of `buf` derives from a secret, i.e. the secret
/// marking reached this output. Returns "n/m" secret-derived bits for the log.
fn expect_secret_derived(what: &str, buf: &[u8]) -> Result<String, String> {
    match valgrind::undefined_bits(buf) {
        None => Ok("-".into()),
        Some(0) => Err(format!(
            "{what}: no bit derives from the secrets; the marking did not reach it"
        )),
        Some(bits) => Ok(format!("{bits}/{}", 8 * buf.len())),
    }
}

/// Checks that `buf`, an output public by design, derives from the secrets, then
/// declassifies it. Returns "n/m" secret-derived bits (before) for the log.
#[cfg_attr(
    not(feature = "hybrid"),
    allow(dead_code, reason = "used by the hybrid mode")
)]
fn declassify_bytes(what: &str, buf: &mut [u8]) -> Result<String, String> {
    let taint = expect_secret_derived(what, buf)?;
    valgrind::declassify(buf);
    Ok(taint)
}

/// Copies a shared secret out, checks it is secret-derived, and declassifies the copy:
/// the end of the protocol, where the harness compares results.
fn declassify_shared_secret(what: &str, key: &lazykem::SharedSecret) -> Result<[u8; 32], String> {
    let mut bytes = *key.as_bytes();
    expect_secret_derived(what, &bytes)?;
    valgrind::declassify(&mut bytes);
    Ok(bytes)
}

/// `J(z || c) = SHAKE256(z || c)[..32]`, the implicit-rejection key, computed by the
/// harness from unmarked copies (a test oracle; the library never sees these copies).
fn rejection_key(z: &[u8], ct: &[u8]) -> [u8; 32] {
    let mut xof = Shake256::default();
    xof.update(z);
    xof.update(ct);
    let mut out = [0u8; 32];
    xof.finalize_xof().read(&mut out);
    out
}

/// The one-shot encapsulation from the encoded key `ek`, with the same secret `m`: its
/// ciphertext must be `ct_bytes`. Returns its (declassified) shared secret.
fn check_one_shot_encapsulation<P: Kem>(
    backend: AnyBackend,
    ek: &[u8],
    m: &[u8; 32],
    ct_bytes: &[u8],
) -> Result<[u8; 32], String> {
    let name = P::NAME;
    let (ct, key) = P::encapsulate_encoded(backend, ek, m)
        .map_err(|e| format!("{name}: one-shot encapsulation: {e}"))?;
    let mut ct = P::ct_bytes(&ct);
    expect_secret_derived("one-shot ciphertext", &ct)?;
    valgrind::declassify(&mut ct);
    if ct != ct_bytes {
        return Err(format!(
            "{name}: the one-shot encapsulation's ciphertext differs"
        ));
    }
    println!("{name}: encapsulate   ok (one-shot from the encoded key too)");
    declassify_shared_secret("one-shot encapsulated key", &key)
}

/// One parameter set on `backend`: key generation, export, encapsulation, and four
/// decapsulations. Returns the (declassified) shared secret.
fn check<P: Kem>(backend: AnyBackend, label: u8) -> Result<[u8; 32], String> {
    let name = P::NAME;
    let start = Instant::now();

    // 1. KeyGen_internal(d, z), the whole seed secret.
    let seed_plain: [u8; 64] = test_bytes(0x10 + label);
    let mut seed = seed_plain;
    valgrind::mark_secret(&mut seed);
    expect_all_secret("seed d || z", &seed)?;
    let dk = P::key_gen(backend, &seed);
    // The encapsulation key t-hat || rho is public from here on: it is sent to peers.
    let mut ek = P::ek_bytes(&dk);
    let ek_taint = expect_secret_derived("encapsulation key", &ek)?;
    valgrind::declassify(&mut ek);
    println!("{name}: keygen        ok (ek secret-derived bits before declassify: {ek_taint})");

    // 2. The expanded export dk_pke || ek || H(ek) || z (stays secret).
    let mut dk_bytes = P::expanded_bytes(backend, &dk);
    let dk_taint = expect_secret_derived("expanded decapsulation key", &dk_bytes)?;
    println!("{name}: export dk     ok (secret-derived bits: {dk_taint})");

    // 3. Encaps_internal(ek, m), m secret, to the parsed public key.
    let ek_parsed = P::parse_ek(backend, &ek).map_err(|e| format!("{name}: parse ek: {e}"))?;
    let mut m: [u8; 32] = test_bytes(0x20 + label);
    valgrind::mark_secret(&mut m);
    expect_all_secret("message m", &m)?;
    let (ct, key_encaps) = P::encapsulate(backend, &ek_parsed, &m);
    // The ciphertext is public from here on: it is sent to the key holder.
    let mut ct_bytes = P::ct_bytes(&ct);
    let ct_taint = expect_secret_derived("ciphertext", &ct_bytes)?;
    valgrind::declassify(&mut ct_bytes);
    println!("{name}: encapsulate   ok (ct secret-derived bits before declassify: {ct_taint})");
    let k_one_shot = check_one_shot_encapsulation::<P>(backend, &ek, &m, &ct_bytes)?;

    // 4. Decaps with an imported expanded key: dk_pke and z secret, ek and H(ek) public.
    let dk_pke_len = P::DK_SIZE - P::EK_SIZE - 64;
    let (dk_pke, rest) = dk_bytes.split_at_mut(dk_pke_len);
    let (ek_part, rest) = rest.split_at_mut(P::EK_SIZE);
    let (h_part, z_part) = rest.split_at_mut(32);
    valgrind::mark_secret(dk_pke);
    valgrind::mark_secret(z_part);
    valgrind::declassify(ek_part);
    valgrind::declassify(h_part);
    expect_all_secret("dk_pke", dk_pke)?;
    expect_all_secret("z", z_part)?;
    if ek_part != ek.as_slice() {
        return Err(format!("{name}: the expanded key does not embed the ek"));
    }
    let dk_imported =
        P::import_dk(backend, &dk_bytes).map_err(|e| format!("{name}: import dk: {e}"))?;
    let ct_valid = P::parse_ct(&ct_bytes).map_err(|e| format!("{name}: parse ct: {e}"))?;
    let mut bad_bytes = ct_bytes.clone();
    bad_bytes[0] ^= 1;
    let ct_bad = P::parse_ct(&bad_bytes).map_err(|e| format!("{name}: parse ct: {e}"))?;
    let key_valid = P::decapsulate(backend, &dk_imported, &ct_valid);
    let key_rejected = P::decapsulate(backend, &dk_imported, &ct_bad);
    // 4, continued. The one-shot form of the same (J(z || c) hashed beside A-hat's public streams).
    let one_shot = |ct| {
        P::decapsulate_expanded(backend, &dk_bytes, ct)
            .map_err(|e| format!("{name}: one-shot: {e}"))
    };
    let key_valid_one_shot = one_shot(&ct_valid)?;
    let key_rejected_one_shot = one_shot(&ct_bad)?;

    // 5. The same with the key generated from the secret seed.
    let key_valid_seed = P::decapsulate(backend, &dk, &ct_valid);
    let key_rejected_seed = P::decapsulate(backend, &dk, &ct_bad);

    // End of the protocol: the shared secrets are declassified, then compared.
    let k_encaps = declassify_shared_secret("encapsulated key", &key_encaps)?;
    let k_valid = declassify_shared_secret("decapsulated key (imported dk)", &key_valid)?;
    let k_rejected = declassify_shared_secret("rejection key (imported dk)", &key_rejected)?;
    let k_valid_one_shot =
        declassify_shared_secret("decapsulated key (one-shot)", &key_valid_one_shot)?;
    let k_rejected_one_shot =
        declassify_shared_secret("rejection key (one-shot)", &key_rejected_one_shot)?;
    let k_valid_seed = declassify_shared_secret("decapsulated key (seed dk)", &key_valid_seed)?;
    let k_rejected_seed = declassify_shared_secret("rejection key (seed dk)", &key_rejected_seed)?;
    let expected_rejection = rejection_key(&seed_plain[32..], &bad_bytes);

    if k_valid != k_encaps
        || k_valid_seed != k_encaps
        || k_valid_one_shot != k_encaps
        || k_one_shot != k_encaps
    {
        return Err(format!(
            "{name}: decapsulation does not recover the encapsulated key"
        ));
    }
    if k_rejected != expected_rejection
        || k_rejected_seed != expected_rejection
        || k_rejected_one_shot != expected_rejection
    {
        return Err(format!(
            "{name}: a tampered ciphertext does not give J(z || c)"
        ));
    }
    println!(
        "{name}: decapsulate   ok (valid: K matches; tampered: K = J(z || c); imported, seed and one-shot)"
    );
    println!(
        "{name}: done in {:.1} ms (ek {} B, dk {} B, ct {} B; K = {})",
        start.elapsed().as_secs_f64() * 1e3,
        P::EK_SIZE,
        P::DK_SIZE,
        P::CT_SIZE,
        k_encaps
            .iter()
            .take(8)
            .fold(String::new(), |s, b| s + &format!("{b:02x}"))
    );
    Ok(k_encaps)
}
