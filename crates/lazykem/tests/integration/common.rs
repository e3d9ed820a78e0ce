//! Shared helpers for the integration tests: locating and parsing the test vectors, and a
//! small trait that gives the three parameter-set modules one generic face so every suite can
//! be written once and dispatched on the vector's `parameterSet` string.
//!
//! Every loader panics with the offending path when a file is missing or malformed: a vector
//! suite that silently runs zero cases is worse than no suite.

use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use std::cell::Cell;

use lazykem::hazmat::AnyBackend;
use lazykem::{BackendKind, Error, SharedSecret};
use serde_json::Value;

thread_local! {
    /// The backend the `ParamSet` wrappers run on, set by [`on_every_backend`] for the
    /// duration of one suite run (test-side state; the library has none).
    static BACKEND: Cell<Option<AnyBackend>> = const { Cell::new(None) };
}

/// The backend of the suite running on this thread.
pub(crate) fn current_backend() -> AnyBackend {
    BACKEND
        .with(Cell::get)
        .expect("a suite ran outside `on_every_backend`")
}

/// Runs `suite` once per backend this CPU has ([`AnyBackend::available`], portable first; its
/// label, e.g. "avx2", as argument), with every `ParamSet` operation on that backend through
/// the library's `hazmat::OnBackend`. A backend the CPU lacks is reported as skipped on
/// stderr.
pub(crate) fn on_every_backend(mut suite: impl FnMut(&'static str)) {
    let mut ran = Vec::new();
    for any in AnyBackend::available() {
        let kind = any.kind();
        eprintln!("backend {kind}: running");
        BACKEND.with(|b| b.set(Some(any)));
        suite(kind.name());
        BACKEND.with(|b| b.set(None));
        ran.push(kind);
    }
    for kind in BackendKind::ALL.into_iter().filter(|k| !ran.contains(k)) {
        eprintln!("backend {kind}: skipped (not available on this CPU)");
    }
    assert_eq!(
        ran.first(),
        Some(&BackendKind::Portable),
        "the portable backend always runs, first"
    );
}

/// The parameter sets as numbered in vector file names ("768" for ML-KEM-768).
pub(crate) const SETS: [&str; 3] = ["512", "768", "1024"];

/// The parameter-set name for a file-name number: "ML-KEM-768" for "768".
pub(crate) fn set_name(n: &str) -> String {
    format!("ML-KEM-{n}")
}

/// q, the ML-KEM modulus.
pub(crate) const Q: u16 = 3329;

/// Directory holding the `acvp/`, `wycheproof/` and `cctv/` vector folders.
///
/// Defaults to `<workspace root>/vectors` (vendored; this crate is `<root>/crates/lazykem`), and
/// can be overridden with the `MLKEM_VECTORS_DIR` environment variable.
pub(crate) fn vectors_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("MLKEM_VECTORS_DIR") {
        return PathBuf::from(dir);
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors");
    // Tidy the `..` components for messages when the directory exists.
    dir.canonicalize().unwrap_or(dir)
}

/// Whether a test that reads vectors is skipped: only in a packaged copy of this crate
/// (`cargo package` writes `Cargo.toml.orig` beside the manifest it normalizes; a package does
/// not carry the workspace's `vectors/`) whose vector directory is missing and not named by
/// `MLKEM_VECTORS_DIR`. In the workspace nothing is skipped: a missing directory or file
/// fails the test that reads it.
pub(crate) fn skip_without_vectors() -> bool {
    let packaged = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("Cargo.toml.orig")
        .is_file();
    let skip =
        packaged && std::env::var_os("MLKEM_VECTORS_DIR").is_none() && !vectors_dir().is_dir();
    if skip {
        eprintln!(
            "skipped: a packaged build without the workspace's vectors/ (set MLKEM_VECTORS_DIR \
             to run it)"
        );
    }
    skip
}

/// Path of a vector file relative to [`vectors_dir`]; panics if it does not exist.
pub(crate) fn vector_path(relative: &str) -> PathBuf {
    let path = vectors_dir().join(relative);
    assert!(
        path.is_file(),
        "test vector file missing: {} (set MLKEM_VECTORS_DIR to the directory holding acvp/, \
         wycheproof/ and cctv/)",
        path.display()
    );
    path
}

/// Raw bytes of a vector file; panics with the path on any error.
pub(crate) fn read_bytes(relative: &str) -> Vec<u8> {
    let path = vector_path(relative);
    fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// UTF-8 text of a vector file; panics with the path on any error.
pub(crate) fn read_text(relative: &str) -> String {
    let path = vector_path(relative);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Text of a gzip-compressed vector file; panics with the path on any error.
pub(crate) fn read_gzip_text(relative: &str) -> String {
    let path = vector_path(relative);
    let compressed = read_bytes(relative);
    let mut text = String::new();
    flate2::read::GzDecoder::new(compressed.as_slice())
        .read_to_string(&mut text)
        .unwrap_or_else(|e| panic!("cannot gunzip {}: {e}", path.display()));
    text
}

/// A parsed JSON vector file; panics with the path on any error.
pub(crate) fn load_json(relative: &str) -> Value {
    let path = vector_path(relative);
    serde_json::from_str(&read_text(relative))
        .unwrap_or_else(|e| panic!("invalid JSON in {}: {e}", path.display()))
}

/// Decode a hex string (either case); panics with `what` on malformed input.
pub(crate) fn unhex(s: &str, what: &str) -> Vec<u8> {
    hex::decode(s).unwrap_or_else(|e| panic!("bad hex in {what}: {e}"))
}

/// The string field `key` of a JSON object; panics if absent or not a string.
pub(crate) fn str_field<'a>(obj: &'a Value, key: &str) -> &'a str {
    obj.get(key)
        .unwrap_or_else(|| panic!("missing field {key:?} in {obj:.200}"))
        .as_str()
        .unwrap_or_else(|| panic!("field {key:?} is not a string"))
}

/// The hex field `key` of a JSON object, decoded.
pub(crate) fn hex_field(obj: &Value, key: &str) -> Vec<u8> {
    unhex(str_field(obj, key), key)
}

/// The hex field `key` of a JSON object if present.
pub(crate) fn opt_hex_field(obj: &Value, key: &str) -> Option<Vec<u8>> {
    obj.get(key).map(|_| hex_field(obj, key))
}

/// The array field `key` of a JSON object; panics if absent or not an array.
pub(crate) fn array_field<'a>(obj: &'a Value, key: &str) -> &'a [Value] {
    obj.get(key)
        .unwrap_or_else(|| panic!("missing field {key:?}"))
        .as_array()
        .unwrap_or_else(|| panic!("field {key:?} is not an array"))
}

/// The `tcId` of a test case (0 if absent), for messages.
pub(crate) fn tc_id(test: &Value) -> u64 {
    test.get("tcId").and_then(Value::as_u64).unwrap_or(0)
}

/// Fixed-size copy of a slice; panics with `what` if the length is wrong.
pub(crate) fn array<const N: usize>(bytes: &[u8], what: &str) -> [u8; N] {
    bytes
        .try_into()
        .unwrap_or_else(|_| panic!("{what}: expected {N} bytes, got {}", bytes.len()))
}

/// Parse CCTV-style text: `key = hexvalue` lines, records separated by blank lines (a repeated
/// key also starts a new record). Returns the records in order, each as (key, bytes) pairs.
pub(crate) fn parse_kv_records(text: &str, what: &str) -> Vec<Vec<(String, Vec<u8>)>> {
    let mut records: Vec<Vec<(String, Vec<u8>)>> = Vec::new();
    let mut current: Vec<(String, Vec<u8>)> = Vec::new();
    for (lineno, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            if !current.is_empty() {
                records.push(std::mem::take(&mut current));
            }
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("{what}:{}: expected `key = hex`", lineno + 1));
        let key = key.trim().to_owned();
        if current.iter().any(|(k, _)| *k == key) {
            records.push(std::mem::take(&mut current));
        }
        let value = unhex(value.trim(), &format!("{what}:{}", lineno + 1));
        current.push((key, value));
    }
    if !current.is_empty() {
        records.push(current);
    }
    records
}

/// Look up `key` in a record parsed by [`parse_kv_records`]; panics if absent.
pub(crate) fn record_field<'a>(record: &'a [(String, Vec<u8>)], key: &str, what: &str) -> &'a [u8] {
    record.iter().find(|(k, _)| k == key).map_or_else(
        || panic!("{what}: record has no field {key:?}"),
        |(_, v)| v.as_slice(),
    )
}

/// Decode the 12-bit packed coefficients of a ByteEncode_12 string (length a multiple of 3).
/// Independent of the implementation under test; used to sanity-check vectors.
pub(crate) fn decode12(bytes: &[u8]) -> Vec<u16> {
    assert_eq!(
        bytes.len() % 3,
        0,
        "ByteEncode12 output length must be a multiple of 3"
    );
    let mut out = Vec::with_capacity(bytes.len() / 3 * 2);
    for chunk in bytes.chunks_exact(3) {
        let (b0, b1, b2) = (
            u16::from(chunk[0]),
            u16::from(chunk[1]),
            u16::from(chunk[2]),
        );
        out.push(b0 | ((b1 & 0x0f) << 8));
        out.push((b1 >> 4) | (b2 << 4));
    }
    out
}

/// Overwrite coefficient `index` of a ByteEncode_12 string with the 12-bit value `value`.
pub(crate) fn set_coeff12(bytes: &mut [u8], index: usize, value: u16) {
    assert!(value < 4096, "value must fit in 12 bits");
    let base = 3 * (index / 2);
    if index.is_multiple_of(2) {
        bytes[base] = (value & 0xff) as u8;
        bytes[base + 1] = (bytes[base + 1] & 0xf0) | (value >> 8) as u8;
    } else {
        bytes[base + 1] = (bytes[base + 1] & 0x0f) | ((value & 0x0f) << 4) as u8;
        bytes[base + 2] = (value >> 4) as u8;
    }
}

/// Indices of coefficients >= q in the t-hat part (all but the trailing 32-byte rho) of an
/// encapsulation key.
pub(crate) fn unreduced_ek_coeffs(ek: &[u8]) -> Vec<usize> {
    assert!(
        ek.len() > 32 && (ek.len() - 32).is_multiple_of(384),
        "not an ek-shaped string"
    );
    decode12(&ek[..ek.len() - 32])
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c >= Q)
        .map(|(i, _)| i)
        .collect()
}

/// One generic face over `lazykem::ml_kem_512`, `ml_kem_768` and `ml_kem_1024`.
///
/// Every method delegates to exactly one public API item of the module, so the suites test
/// that API; this is the one place to adapt if a signature changes.
pub(crate) trait ParamSet {
    /// The ACVP / Wycheproof `parameterSet` name, e.g. "ML-KEM-768".
    const NAME: &'static str;
    /// Module rank k.
    const K: usize;
    /// Encapsulation key bytes (384k + 32).
    const EK_SIZE: usize;
    /// Expanded decapsulation key bytes (768k + 96).
    const DK_SIZE: usize;
    /// Ciphertext bytes.
    const CT_SIZE: usize;

    /// `EncapsulationKey`.
    type Ek;
    /// `DecapsulationKey`.
    type Dk;
    /// `Ciphertext`.
    type Ct;

    /// `EncapsulationKey::from_bytes`.
    fn ek_from_bytes(bytes: &[u8]) -> Result<Self::Ek, Error>;
    /// `EncapsulationKey::as_bytes`.
    fn ek_bytes(ek: &Self::Ek) -> Vec<u8>;
    /// `EncapsulationKey::encapsulate_deterministic` (hazmat).
    fn encapsulate_deterministic(ek: &Self::Ek, m: &[u8; 32]) -> (Self::Ct, SharedSecret);
    /// `EncapsulationKey::encapsulate_encoded_deterministic` (hazmat; one-shot parse and
    /// encapsulation).
    fn encapsulate_encoded(ek: &[u8], m: &[u8; 32]) -> Result<(Self::Ct, SharedSecret), Error>;
    /// `EncapsulationKey::encapsulate`.
    fn encapsulate<R: rand::CryptoRng + ?Sized>(
        ek: &Self::Ek,
        rng: &mut R,
    ) -> (Self::Ct, SharedSecret);

    /// `DecapsulationKey::generate`.
    fn dk_generate<R: rand::CryptoRng + ?Sized>(rng: &mut R) -> Self::Dk;
    /// `DecapsulationKey::from_seed`.
    fn dk_from_seed(seed: &[u8; 64]) -> Self::Dk;
    /// `DecapsulationKey::from_seed_bytes`.
    fn dk_from_seed_bytes(bytes: &[u8]) -> Result<Self::Dk, Error>;
    /// `DecapsulationKey::seed`.
    fn dk_seed(dk: &Self::Dk) -> Option<[u8; 64]>;
    /// `DecapsulationKey::from_expanded_bytes`.
    fn dk_from_expanded(bytes: &[u8]) -> Result<Self::Dk, Error>;
    /// `DecapsulationKey::to_expanded_bytes`.
    fn dk_expanded(dk: &Self::Dk) -> Vec<u8>;
    /// `DecapsulationKey::encapsulation_key`.
    fn dk_ek(dk: &Self::Dk) -> &Self::Ek;
    /// `DecapsulationKey::decapsulate`.
    fn decapsulate(dk: &Self::Dk, ct: &Self::Ct) -> SharedSecret;
    /// `DecapsulationKey::decapsulate_expanded` (one-shot import and decapsulation).
    fn decapsulate_expanded(dk: &[u8], ct: &Self::Ct) -> Result<SharedSecret, Error>;

    /// `EncapsulationKey::validate` (checks only, nothing built).
    fn ek_validate(bytes: &[u8]) -> Result<(), Error>;
    /// `DecapsulationKey::validate_expanded` (checks only, nothing built).
    fn dk_validate(bytes: &[u8]) -> Result<(), Error>;

    /// `Ciphertext::from_bytes`.
    fn ct_from_bytes(bytes: &[u8]) -> Result<Self::Ct, Error>;
    /// `Ciphertext::as_bytes`.
    fn ct_bytes(ct: &Self::Ct) -> Vec<u8>;
}

pub(crate) use lazykem::{MlKem512, MlKem768, MlKem1024};

/// Every parameter set of the library, through its generic types: the operations that
/// compute run on the backend of [`on_every_backend`].
impl<P: lazykem::ParameterSet> ParamSet for P {
    const NAME: &'static str = P::NAME;
    const K: usize = P::K;
    const EK_SIZE: usize = P::ENCAPSULATION_KEY_SIZE;
    const DK_SIZE: usize = P::DECAPSULATION_KEY_SIZE;
    const CT_SIZE: usize = P::CIPHERTEXT_SIZE;

    type Ek = lazykem::EncapsulationKey<P>;
    type Dk = lazykem::DecapsulationKey<P>;
    type Ct = lazykem::Ciphertext<P>;

    fn ek_from_bytes(bytes: &[u8]) -> Result<Self::Ek, Error> {
        lazykem::hazmat::OnBackend::new(current_backend()).encapsulation_key_from_bytes(bytes)
    }
    fn ek_bytes(ek: &Self::Ek) -> Vec<u8> {
        ek.as_bytes().as_ref().to_vec()
    }
    fn encapsulate_deterministic(ek: &Self::Ek, m: &[u8; 32]) -> (Self::Ct, SharedSecret) {
        lazykem::hazmat::OnBackend::new(current_backend()).encapsulate_deterministic(ek, m)
    }
    fn encapsulate_encoded(ek: &[u8], m: &[u8; 32]) -> Result<(Self::Ct, SharedSecret), Error> {
        lazykem::hazmat::OnBackend::new(current_backend()).encapsulate_encoded_deterministic(ek, m)
    }
    fn encapsulate<R: rand::CryptoRng + ?Sized>(
        ek: &Self::Ek,
        rng: &mut R,
    ) -> (Self::Ct, SharedSecret) {
        // What `encapsulate` does, on the chosen backend.
        let mut m = [0u8; 32];
        rng.fill_bytes(&mut m);
        lazykem::hazmat::OnBackend::new(current_backend()).encapsulate_deterministic(ek, &m)
    }
    fn dk_generate<R: rand::CryptoRng + ?Sized>(rng: &mut R) -> Self::Dk {
        // What `generate` does, on the chosen backend.
        let mut seed = [0u8; 64];
        rng.fill_bytes(&mut seed);
        lazykem::hazmat::OnBackend::new(current_backend()).decapsulation_key_from_seed(&seed)
    }
    fn dk_from_seed(seed: &[u8; 64]) -> Self::Dk {
        lazykem::hazmat::OnBackend::new(current_backend()).decapsulation_key_from_seed(seed)
    }
    fn dk_from_seed_bytes(bytes: &[u8]) -> Result<Self::Dk, Error> {
        match <&[u8; 64]>::try_from(bytes) {
            Ok(seed) => Ok(Self::dk_from_seed(seed)),
            // The length error comes from the library itself.
            Err(_) => Self::Dk::from_seed_bytes(bytes),
        }
    }
    fn dk_seed(dk: &Self::Dk) -> Option<[u8; 64]> {
        // `seed()` lends the zeroize-on-drop `lazykem::Seed`; copy its bytes out.
        dk.seed().map(|seed: &lazykem::Seed| *seed.as_bytes())
    }
    fn dk_from_expanded(bytes: &[u8]) -> Result<Self::Dk, Error> {
        lazykem::hazmat::OnBackend::new(current_backend())
            .decapsulation_key_from_expanded_bytes(bytes)
    }
    fn dk_expanded(dk: &Self::Dk) -> Vec<u8> {
        lazykem::hazmat::OnBackend::new(current_backend())
            .to_expanded_bytes(dk)
            .as_ref()
            .to_vec()
    }
    fn dk_ek(dk: &Self::Dk) -> &Self::Ek {
        dk.encapsulation_key()
    }
    fn decapsulate(dk: &Self::Dk, ct: &Self::Ct) -> SharedSecret {
        lazykem::hazmat::OnBackend::new(current_backend()).decapsulate(dk, ct)
    }
    fn decapsulate_expanded(dk: &[u8], ct: &Self::Ct) -> Result<SharedSecret, Error> {
        lazykem::hazmat::OnBackend::new(current_backend()).decapsulate_expanded(dk, ct)
    }
    fn ek_validate(bytes: &[u8]) -> Result<(), Error> {
        Self::Ek::validate(bytes)
    }
    fn dk_validate(bytes: &[u8]) -> Result<(), Error> {
        Self::Dk::validate_expanded(bytes)
    }
    fn ct_from_bytes(bytes: &[u8]) -> Result<Self::Ct, Error> {
        Self::Ct::from_bytes(bytes)
    }
    fn ct_bytes(ct: &Self::Ct) -> Vec<u8> {
        ct.as_bytes().as_ref().to_vec()
    }
}

/// The 32 shared-secret bytes.
pub(crate) fn ss(k: &SharedSecret) -> [u8; 32] {
    *k.as_bytes()
}

/// Call a generic function `$f::<P>($args...)` with `P` chosen by a parameter-set name
/// ("ML-KEM-512", "ML-KEM-768", "ML-KEM-1024"); panics on any other name.
macro_rules! dispatch {
    ($name:expr, $f:ident ( $($arg:expr),* $(,)? )) => {
        match $name {
            "ML-KEM-512" => $f::<crate::common::MlKem512>($($arg),*),
            "ML-KEM-768" => $f::<crate::common::MlKem768>($($arg),*),
            "ML-KEM-1024" => $f::<crate::common::MlKem1024>($($arg),*),
            other => panic!("unknown parameter set {other:?}"),
        }
    };
}
pub(crate) use dispatch;

/// What kind of rejection a malformed input must produce, computed from the input itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expect {
    /// `Error::EncapsulationKeyLength { expected, actual }`.
    EkLength { expected: usize, actual: usize },
    /// `Error::EncapsulationKeyNotReduced`.
    EkNotReduced,
    /// `Error::DecapsulationKeyLength { expected, actual }`.
    DkLength { expected: usize, actual: usize },
    /// `Error::DecapsulationKeyHashMismatch`.
    DkHashMismatch,
    /// `Error::CiphertextLength { expected, actual }`.
    CtLength { expected: usize, actual: usize },
    /// `Error::SeedLength { expected, actual }`.
    SeedLength { expected: usize, actual: usize },
}

impl Expect {
    /// Whether `err` is exactly this rejection (including the reported lengths).
    pub(crate) fn matches(self, err: &Error) -> bool {
        match self {
            Expect::EkLength { expected, actual } => matches!(
                err,
                Error::EncapsulationKeyLength { expected: e, actual: a } if *e == expected && *a == actual
            ),
            Expect::EkNotReduced => matches!(err, Error::EncapsulationKeyNotReduced),
            Expect::DkLength { expected, actual } => matches!(
                err,
                Error::DecapsulationKeyLength { expected: e, actual: a } if *e == expected && *a == actual
            ),
            Expect::DkHashMismatch => matches!(err, Error::DecapsulationKeyHashMismatch),
            Expect::CtLength { expected, actual } => matches!(
                err,
                Error::CiphertextLength { expected: e, actual: a } if *e == expected && *a == actual
            ),
            Expect::SeedLength { expected, actual } => matches!(
                err,
                Error::SeedLength { expected: e, actual: a } if *e == expected && *a == actual
            ),
        }
    }
}

/// Assert that `result` is an error matching `expect`, with `what` identifying the case.
#[allow(clippy::needless_pass_by_value)] // takes the API's return value as is
pub(crate) fn assert_rejects<T>(result: Result<T, Error>, expect: Expect, what: &str) {
    assert_rejects_any(result, &[expect], what);
}

/// Assert that `result` is an error matching one of `expect` (used where FIPS 203 leaves the
/// order of two failing checks open).
#[allow(clippy::needless_pass_by_value)] // takes the API's return value as is
pub(crate) fn assert_rejects_any<T>(result: Result<T, Error>, expect: &[Expect], what: &str) {
    assert!(!expect.is_empty(), "{what}: no expected rejection given");
    match result {
        Ok(_) => panic!("{what}: accepted, expected rejection {expect:?}"),
        Err(err) => assert!(
            expect.iter().any(|e| e.matches(&err)),
            "{what}: wrong error: got {err:?}, expected one of {expect:?}"
        ),
    }
}

/// Expected outcome of parsing an encapsulation key of `P`, from its length and coefficients.
pub(crate) fn expected_ek_check<P: ParamSet>(ek: &[u8]) -> Option<Expect> {
    if ek.len() != P::EK_SIZE {
        return Some(Expect::EkLength {
            expected: P::EK_SIZE,
            actual: ek.len(),
        });
    }
    if unreduced_ek_coeffs(ek).is_empty() {
        None
    } else {
        Some(Expect::EkNotReduced)
    }
}

/// H = SHA3-256, computed with the `sha3` crate (independent of the implementation under test).
pub(crate) fn sha3_256(data: &[u8]) -> [u8; 32] {
    use sha3::Digest as _;
    sha3::Sha3_256::digest(data).into()
}

/// Expected rejections of an expanded decapsulation key of `P`, computed from its bytes: the
/// length check, the FIPS 203 §7.3 hash check, and the modulus check of the embedded ek. Empty if
/// the key is well formed. When both the hash and the embedded ek are bad, either error is fine.
pub(crate) fn expected_dk_check<P: ParamSet>(dk: &[u8]) -> Vec<Expect> {
    if dk.len() != P::DK_SIZE {
        return vec![Expect::DkLength {
            expected: P::DK_SIZE,
            actual: dk.len(),
        }];
    }
    let k = P::K;
    let ek = &dk[384 * k..768 * k + 32];
    let hash = &dk[768 * k + 32..768 * k + 64];
    let mut expect = Vec::new();
    if sha3_256(ek) != hash {
        expect.push(Expect::DkHashMismatch);
    }
    if !unreduced_ek_coeffs(ek).is_empty() {
        expect.push(Expect::EkNotReduced);
    }
    expect
}

/// Hex for messages.
pub(crate) fn h(bytes: &[u8]) -> String {
    hex::encode(bytes)
}
