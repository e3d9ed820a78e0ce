//! `ct-harness residue`: which secrets an operation leaves behind on the stack.
//!
//! `zeroize` erases what the code names; copies the compiler makes (a value moved into a
//! callee's frame, a returned struct copied once more, a spilled register) stay in the
//! dead stack below the caller once the operation returns. This mode finds them, natively,
//! on every backend the CPU has (AVX-512 included):
//!
//! 1. the stack below the probe's frame is zeroed ([`stack::clear_below`], a large local
//!    array, which also makes sure those pages are mapped);
//! 2. one operation runs, its result kept above the probe's frame;
//! 3. the dead stack it used is copied out ([`stack::dump_below`]) before anything else runs;
//! 4. the harness computes, independently (SHA3 from the `sha3` crate, CBD written here),
//!    the secrets of that operation: seeds, `sigma`, `m`, `r`, `K`, the PRF outputs, the
//!    noise polynomials in coefficient form, `ByteEncode_12(s-hat)`, and looks for every
//!    16-byte window of each of them (windows of fewer than four distinct byte values
//!    are skipped as uninformative) in the dump.
//!
//! Every match is a copy of a secret that outlived the operation. The report lists, per
//! operation and secret, how many bytes of the secret were found; `--strict` makes any
//! finding a failure. What this cannot see: secrets in a form the harness does not
//! compute (NTT-domain intermediates in lazy representations, Keccak states mid-permutation,
//! vector registers), and copies on the heap (the library allocates nothing).

use crate::ops::Kem;
use lazykem::SharedSecret;
use lazykem::hazmat::AnyBackend;
use sha3::digest::{Digest, ExtendableOutput, Update, XofReader};
use sha3::{Sha3_256, Sha3_512, Shake256};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Bytes of stack cleared and inspected below the probe (the largest operation, a one-shot
/// ML-KEM-1024 decapsulation, needs about 90 KiB).
const REGION: usize = 192 * 1024;

/// Window length of the search.
const WINDOW: usize = 16;

#[allow(unsafe_code)]
mod stack {
    use super::REGION;

    /// Zeroes the `REGION` bytes of stack below the caller's frame (and maps those pages).
    #[inline(never)]
    #[allow(
        clippy::large_stack_arrays,
        reason = "the point: a stack frame as deep as any operation's"
    )]
    pub(super) fn clear_below() {
        let mut area = [0u8; REGION];
        std::hint::black_box(&mut area);
    }

    /// Copies the `REGION` bytes below this function's stack pointer (the dead frames of
    /// what the caller ran before) into `out`.
    #[inline(never)]
    pub(super) fn dump_below(out: &mut [u8; REGION]) {
        // SAFETY: the source is the `REGION` bytes below the stack pointer, which
        // `clear_below`, called from the same frame before, wrote (so they are mapped and
        // belong to this thread's stack); the destination is `out`, exclusively borrowed and
        // `REGION` bytes long. `rep movsb` clobbers rcx, rsi, rdi (declared) and reads
        // memory Rust has no live object in, which only the asm block touches.
        unsafe {
            core::arch::asm!(
                "mov rsi, rsp",
                "sub rsi, {region}",
                "rep movsb",
                region = const REGION,
                inout("rdi") out.as_mut_ptr() => _,
                inout("rcx") REGION => _,
                out("rsi") _,
                options(nostack, preserves_flags),
            );
        }
    }
}

/// The secrets of one operation: (name, bytes).
type Secrets = Vec<(String, Vec<u8>)>;

fn g(parts: &[&[u8]]) -> [u8; 64] {
    let mut h = Sha3_512::new();
    for p in parts {
        Digest::update(&mut h, p);
    }
    h.finalize().into()
}

fn h(bytes: &[u8]) -> [u8; 32] {
    Sha3_256::digest(bytes).into()
}

fn prf(seed: &[u8], n: u8, len: usize) -> Vec<u8> {
    let mut xof = Shake256::default();
    xof.update(seed);
    xof.update(&[n]);
    let mut out = vec![0u8; len];
    xof.finalize_xof().read(&mut out);
    out
}

/// SamplePolyCBD_eta (FIPS 203 Algorithm 8), coefficients in `[0, q)` as little-endian u16.
fn cbd(bytes: &[u8], eta: usize) -> Vec<u8> {
    let bit = |i: usize| u16::from((bytes[i / 8] >> (i % 8)) & 1);
    (0..256)
        .flat_map(|i| {
            let x: u16 = (0..eta).map(|j| bit(2 * i * eta + j)).sum();
            let y: u16 = (0..eta).map(|j| bit(2 * i * eta + eta + j)).sum();
            ((x + 3329 - y) % 3329).to_le_bytes()
        })
        .collect()
}

/// `ByteDecode_12` of each 384-byte chunk, as little-endian u16 (s-hat in canonical form).
fn decode12(bytes: &[u8]) -> Vec<u8> {
    bytes
        .chunks_exact(3)
        .flat_map(|t| {
            let a = u16::from(t[0]) | (u16::from(t[1] & 0x0f) << 8);
            let b = u16::from(t[1] >> 4) | (u16::from(t[2]) << 4);
            [a.to_le_bytes(), b.to_le_bytes()].concat()
        })
        .collect()
}

/// The noise of K-PKE from `seed` (`sigma` or `r`): PRF outputs and polynomials for
/// `count` polynomials of `eta` from nonce `first`.
fn noise(secrets: &mut Secrets, label: &str, seed: &[u8], eta: usize, first: u8, count: u8) {
    for n in first..first + count {
        let bytes = prf(seed, n, 64 * eta);
        secrets.push((format!("{label} noise poly (N={n})"), cbd(&bytes, eta)));
        secrets.push((format!("{label} PRF output (N={n})"), bytes));
    }
}

/// Runs `op`, then dumps the dead stack it left. The result goes straight into this
/// function's frame, above the inspected region, so moving it out adds no copy there: what
/// the dump holds was left by the operation (and the `#[inline(never)]` wrapper of
/// `ops`, a direct call that passes the result slot through).
#[inline(never)]
fn probe<T>(op: impl FnOnce() -> T, out: &mut [u8; REGION]) -> T {
    stack::clear_below();
    let result = op();
    stack::dump_below(out);
    result
}

/// The findings of one dump: (secret, bytes of it found).
fn search(dump: &[u8], secrets: &Secrets) -> Vec<(String, usize)> {
    let mut index: HashMap<&[u8], Vec<(usize, usize)>> = HashMap::new();
    for (id, (_, bytes)) in secrets.iter().enumerate() {
        for (offset, window) in bytes.windows(WINDOW).enumerate() {
            let mut distinct = window.to_vec();
            distinct.sort_unstable();
            distinct.dedup();
            if distinct.len() >= 4 {
                index.entry(window).or_default().push((id, offset));
            }
        }
    }
    // Per secret, which of its bytes appear in the dump.
    let mut covered: Vec<Vec<bool>> = secrets.iter().map(|(_, b)| vec![false; b.len()]).collect();
    for window in dump.windows(WINDOW) {
        if let Some(hits) = index.get(window) {
            for &(id, offset) in hits {
                covered[id][offset..offset + WINDOW].fill(true);
            }
        }
    }
    secrets
        .iter()
        .zip(&covered)
        .filter_map(|((name, _), c)| {
            let n = c.iter().filter(|&&b| b).count();
            (n > 0).then(|| (name.clone(), n))
        })
        .collect()
}

/// One parameter set on one backend: every operation probed. Returns report lines and the
/// number of findings.
fn check_set<P: Kem>(backend: AnyBackend, label: u8, report: &mut String) -> usize {
    let (k, eta1, eta2) = (P::K, P::ETA1, P::ETA2);
    let seed: [u8; 64] = crate::test_bytes(label);
    let m: [u8; 32] = crate::test_bytes(label.wrapping_add(100));
    let (d, z) = seed.split_at(32);
    let mut dump: Box<[u8; REGION]> = vec![0u8; REGION]
        .into_boxed_slice()
        .try_into()
        .expect("REGION bytes");
    let mut findings = 0;
    let mut record = |op: &str, dump: &[u8], secrets: &Secrets, report: &mut String| {
        let found = search(dump, secrets);
        let line = if found.is_empty() {
            "clean".to_owned()
        } else {
            found
                .iter()
                .map(|(name, n)| format!("{name}: {n} B"))
                .collect::<Vec<_>>()
                .join("; ")
        };
        findings += found.len();
        let _ = writeln!(
            report,
            "  {} {:<8} {op:<22} {line}",
            P::NAME,
            backend.kind()
        );
    };

    // Key generation.
    let dk = probe(|| P::key_gen(backend, &seed), &mut dump);
    let expanded = P::expanded_bytes(backend, &dk);
    let dk_pke = &expanded[..384 * k];
    let sigma = g(&[d, &[k as u8]])[32..].to_vec();
    let mut key_secrets: Secrets = vec![
        ("seed d || z".into(), seed.to_vec()),
        ("sigma".into(), sigma.clone()),
        ("ByteEncode_12(s-hat)".into(), dk_pke.to_vec()),
        ("s-hat coefficients".into(), decode12(dk_pke)),
    ];
    noise(&mut key_secrets, "keygen", &sigma, eta1, 0, 2 * k as u8);
    record("keygen (from_seed)", &dump[..], &key_secrets, report);
    // The same key computed into a key kept above the probe (no return value).
    let mut slot = Box::new(P::key_gen(backend, &[0u8; 64]));
    probe(|| P::set_from_seed(&mut slot, &seed), &mut dump);
    record("keygen (set_from_seed)", &dump[..], &key_secrets, report);
    assert_eq!(P::ek_bytes(&slot), P::ek_bytes(&dk), "set_from_seed agrees");

    // Encapsulation to the parsed key.
    let ek_bytes = P::ek_bytes(&dk);
    let ek = P::parse_ek(backend, &ek_bytes).expect("own key");
    let mut out = None;
    probe(
        &mut || out = Some(P::encapsulate(backend, &ek, &m)),
        &mut dump,
    );
    let (ct, key) = out.expect("ran");
    let kr = g(&[&m, &h(&ek_bytes)]);
    let r = kr[32..].to_vec();
    let mut enc_secrets: Secrets = vec![
        ("m".into(), m.to_vec()),
        ("K".into(), kr[..32].to_vec()),
        ("r".into(), r.clone()),
    ];
    noise(&mut enc_secrets, "encaps y", &r, eta1, 0, k as u8);
    noise(
        &mut enc_secrets,
        "encaps e1/e2",
        &r,
        eta2,
        k as u8,
        k as u8 + 1,
    );
    record("encaps", &dump[..], &enc_secrets, report);
    assert_eq!(
        key.as_bytes()[..],
        kr[..32],
        "encapsulation agrees with the oracle"
    );

    // Decapsulation (parsed key, one-shot from bytes, and the key import).
    let mut dec_secrets = enc_secrets.clone();
    dec_secrets.extend(key_secrets.iter().skip(2).cloned());
    dec_secrets.push(("z".into(), z.to_vec()));
    let mut shared: Option<SharedSecret> = None;
    probe(
        &mut || shared = Some(P::decapsulate(backend, &dk, &ct)),
        &mut dump,
    );
    record("decaps", &dump[..], &dec_secrets, report);
    probe(
        &mut || shared = P::decapsulate_expanded(backend, &expanded, &ct).ok(),
        &mut dump,
    );
    record("decaps (one-shot)", &dump[..], &dec_secrets, report);
    let mut imported = None;
    probe(
        &mut || imported = P::import_dk(backend, &expanded).ok(),
        &mut dump,
    );
    record("dk import", &dump[..], &dec_secrets, report);
    assert!(imported.is_some() && shared.is_some());
    findings
}

/// Runs every set on every backend the CPU has.
pub(crate) fn run(strict: bool) -> Result<(), String> {
    let mut report = String::new();
    let mut findings = 0;
    for backend in crate::backends("residue") {
        findings += check_set::<crate::MlKem512>(backend, 1, &mut report);
        findings += check_set::<crate::MlKem768>(backend, 2, &mut report);
        findings += check_set::<crate::MlKem1024>(backend, 3, &mut report);
    }
    println!(
        "residue: secrets found in the dead stack after each operation ({REGION} B inspected, {WINDOW}-byte windows)"
    );
    print!("{report}");
    println!("residue: {findings} finding(s)");
    if strict && findings > 0 {
        Err(format!("{findings} secret residue(s) on the stack"))
    } else {
        Ok(())
    }
}
