//! A uniform interface over ML-KEM implementations, the shared KEM inputs, and the
//! correctness check every implementation passes before it is measured.
//!
//! # What each operation measures
//! | operation | input | measured |
//! |---|---|---|
//! | `keygen` | 64-byte seed `d || z` | key generation into the library's key type (randomized libraries ignore the seed and draw their own randomness) |
//! | `encaps` | a parsed encapsulation key, 32-byte message | encapsulation only |
//! | `encaps_from_bytes` | encoded ek, message | parse and check the ek (FIPS 203 section 7.2), then encapsulate |
//! | `decaps` | a parsed decapsulation key, a parsed ciphertext | decapsulation only |
//! | `decaps_from_bytes` | expanded dk (FIPS 203 format), ciphertext bytes | parse and check the dk (section 7.3), wrap the ciphertext, decapsulate |
//!
//! Parsed keys cache work (ours keeps t-hat, A-hat, H(ek) and the `b*zeta` cache of s-hat),
//! so both figures matter: `encaps` is the cost of repeated operations on one key,
//! `encaps_from_bytes` the cost for a key seen once (a TLS handshake). For a key used once,
//! each library is driven through its API for that case: ours through the one-shot
//! `DecapsulationKey::decapsulate_expanded` (same checks as `from_expanded_bytes`, nothing
//! kept), libcrux through its byte-key `decapsulate`.
//!
//! A library may lack an operation (graviola cannot import an expanded decapsulation key) or
//! a CPU feature it needs: [`KemUnderTest::supports`] and [`KemUnderTest::available`] say
//! so, and the benchmarks leave those cells out (`-` in the `kem_compare` table).
//!
//! Ours runs on an explicitly chosen backend (the `hazmat` type `lazykem::hazmat::OnBackend`), a type
//! parameter of its adapters ([`OursBackend`]): [`Best`] (label `ours`, the backend the
//! crate's plain API selects) or [`PortableOnly`] (label `ours-portable`).

use core::marker::PhantomData;
use lazykem::BackendKind;
use lazykem::hazmat::AnyBackend;
use std::fmt::Write as _;

/// The measured KEM operations (see the module documentation), in table order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    /// [`KemUnderTest::keygen`].
    Keygen,
    /// [`KemUnderTest::encaps`].
    Encaps,
    /// [`KemUnderTest::encaps_from_bytes`].
    EncapsFromBytes,
    /// [`KemUnderTest::decaps`].
    Decaps,
    /// [`KemUnderTest::decaps_from_bytes`].
    DecapsFromBytes,
}

impl Operation {
    /// Every operation, in table order.
    pub const ALL: [Self; 5] = [
        Self::Keygen,
        Self::Encaps,
        Self::EncapsFromBytes,
        Self::Decaps,
        Self::DecapsFromBytes,
    ];

    /// The operation's label in benchmark IDs (`kem/<set>/<operation>/<library>`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Keygen => "keygen",
            Self::Encaps => "encaps",
            Self::EncapsFromBytes => "encaps_from_bytes",
            Self::Decaps => "decaps",
            Self::DecapsFromBytes => "decaps_from_bytes",
        }
    }
}

/// One ML-KEM implementation for one parameter set, seen through a common interface.
///
/// Every method panics on input it cannot handle: the benchmarks only feed valid inputs,
/// and [`check`] runs every supported method once before anything is measured. The method
/// of an operation the library does not offer ([`supports`](Self::supports)) panics too,
/// and is never called.
pub trait KemUnderTest {
    /// The library's label in benchmark IDs (`kem/<set>/<operation>/<NAME>`).
    const NAME: &'static str;
    /// Whether `keygen` and the encapsulations are deterministic functions of the seed and
    /// message (FIPS 203 `KeyGen_internal` / `Encaps_internal`). Randomized libraries ignore
    /// them.
    const DETERMINISTIC: bool;
    /// What key generation returns.
    type KeyPair;
    /// A parsed encapsulation key.
    type Ek: 'static;
    /// A parsed decapsulation key.
    type Dk: 'static;
    /// A ciphertext in the library's type.
    type Ct: 'static;
    /// A shared secret in the library's type.
    type Ss;

    /// Key generation from the 64-byte seed `d || z`.
    fn keygen(seed: &[u8; 64]) -> Self::KeyPair;
    /// The encoded encapsulation key and expanded decapsulation key of a key pair.
    fn key_pair_bytes(key_pair: &Self::KeyPair) -> (Vec<u8>, Vec<u8>);
    /// Parses (and checks) an encoded encapsulation key.
    fn parse_ek(ek: &[u8]) -> Self::Ek;
    /// Encapsulation to a parsed key.
    fn encaps(ek: &Self::Ek, m: &[u8; 32]) -> (Self::Ct, Self::Ss);
    /// Parse and check the encoded key, then encapsulate.
    fn encaps_from_bytes(ek: &[u8], m: &[u8; 32]) -> (Self::Ct, Self::Ss);
    /// The parsed decapsulation key of the fixture, from its seed or its expanded encoding
    /// (whichever the library keeps as its long-lived form).
    fn parse_dk(seed: &[u8; 64], dk: &[u8]) -> Self::Dk;
    /// Wraps ciphertext bytes in the library's type.
    fn parse_ct(ct: &[u8]) -> Self::Ct;
    /// Decapsulation with a parsed key.
    fn decaps(dk: &Self::Dk, ct: &Self::Ct) -> Self::Ss;
    /// Parse and check the expanded decapsulation key, wrap the ciphertext, decapsulate.
    fn decaps_from_bytes(dk: &[u8], ct: &[u8]) -> Self::Ss;
    /// The bytes of a ciphertext.
    fn ct_bytes(ct: &Self::Ct) -> &[u8];
    /// The bytes of a shared secret.
    fn ss_bytes(ss: &Self::Ss) -> &[u8];

    /// Whether the library offers `operation` (all by default). [`check`] needs `keygen`,
    /// `encaps` and `decaps`, and, from a randomized library, `decaps_from_bytes`; the
    /// benchmarks leave out the others when they are missing.
    #[must_use]
    fn supports(operation: Operation) -> bool {
        let _ = operation;
        true
    }

    /// Whether the library runs on this CPU (always, by default). The benchmarks leave out
    /// a library that does not; [`check`] reports it.
    #[must_use]
    fn available() -> bool {
        true
    }
}

/// The inputs of one parameter set, shared by every library: a key made by ours from a fixed
/// seed, a fixed message, and the ciphertext and shared secret ours derives from them.
#[derive(Clone, Debug)]
pub struct Fixture {
    /// The parameter set, `ML-KEM-768` style.
    pub set: &'static str,
    /// The key-generation seed `d || z`.
    pub seed: [u8; 64],
    /// The encapsulation message `m`.
    pub m: [u8; 32],
    /// The encoded encapsulation key.
    pub ek: Vec<u8>,
    /// The expanded decapsulation key `dk_pke || ek || H(ek) || z`.
    pub dk: Vec<u8>,
    /// The ciphertext of `Encaps_internal(ek, m)`.
    pub ct: Vec<u8>,
    /// The shared secret of `Encaps_internal(ek, m)`.
    pub ss: Vec<u8>,
}

impl Fixture {
    /// Builds the fixture of parameter set `set` with the reference implementation `R`.
    #[must_use]
    pub fn new<R: KemUnderTest>(set: &'static str) -> Self {
        let tag = set
            .bytes()
            .fold(0u64, |h, b| h.wrapping_mul(131) + u64::from(b));
        let seed = crate::inputs::bytes::<64>(tag);
        let m = crate::inputs::bytes::<32>(tag + 1);
        let (ek, dk) = R::key_pair_bytes(&R::keygen(&seed));
        let (ct, ss) = R::encaps(&R::parse_ek(&ek), &m);
        Self {
            set,
            seed,
            m,
            ek,
            dk,
            ct: R::ct_bytes(&ct).to_vec(),
            ss: R::ss_bytes(&ss).to_vec(),
        }
    }
}

fn ensure(ok: bool, what: impl FnOnce() -> String, errors: &mut String) {
    if !ok {
        let _ = writeln!(errors, "  {}", what());
    }
}

/// Whether [`check`] can check library `L`: available on this CPU, offering the operations
/// the check needs.
fn checkable<L: KemUnderTest>(set: &str) -> Result<(), String> {
    if !L::available() {
        return Err(format!("{} does not run on this CPU", L::NAME));
    }
    let mut needed = vec![Operation::Keygen, Operation::Encaps, Operation::Decaps];
    if !L::DETERMINISTIC {
        // The round trips of a randomized library's own keys and ciphertexts.
        needed.push(Operation::DecapsFromBytes);
    }
    match needed.into_iter().find(|&op| !L::supports(op)) {
        Some(missing) => Err(format!(
            "{} on {set}: cannot be checked without {}",
            L::NAME,
            missing.name()
        )),
        None => Ok(()),
    }
}

/// Checks library `L` against the fixture (made by the reference `R`) before it is measured.
///
/// - keygen: deterministic libraries must reproduce the fixture's ek and dk bytes from its
///   seed; randomized ones must produce a key pair whose ek `R` encapsulates to and whose dk
///   `L` decapsulates back to the same secret;
/// - both encapsulations: deterministic libraries must reproduce the fixture's ciphertext
///   and secret; randomized ones must produce a ciphertext that both `L` and `R` decapsulate
///   (with the fixture's dk) to the secret `L` returned;
/// - both decapsulations must recover the fixture's secret from its ciphertext;
/// - implicit rejection: a tampered ciphertext must give `R`'s rejection secret, not the
///   fixture's.
///
/// Operations `L` does not [support](KemUnderTest::supports) are skipped; `R` must support
/// every operation.
///
/// # Errors
/// A description of every disagreement; also when `L` is not
/// [available](KemUnderTest::available) on this CPU, or lacks an operation the check needs.
pub fn check<L: KemUnderTest, R: KemUnderTest>(fx: &Fixture) -> Result<(), String> {
    checkable::<L>(fx.set)?;
    let mut errors = String::new();
    let e = &mut errors;

    let (ek, dk) = L::key_pair_bytes(&L::keygen(&fx.seed));
    ensure(
        ek.len() == fx.ek.len(),
        || format!("keygen: ek length {}", ek.len()),
        e,
    );
    ensure(
        dk.len() == fx.dk.len(),
        || format!("keygen: dk length {}", dk.len()),
        e,
    );
    if L::DETERMINISTIC {
        ensure(
            ek == fx.ek,
            || "keygen: ek differs from the reference".into(),
            e,
        );
        ensure(
            dk == fx.dk,
            || "keygen: dk differs from the reference".into(),
            e,
        );
    } else if ek.len() == fx.ek.len() && dk.len() == fx.dk.len() {
        let (ct, ss) = R::encaps(&R::parse_ek(&ek), &fx.m);
        let back = L::decaps_from_bytes(&dk, R::ct_bytes(&ct));
        ensure(
            L::ss_bytes(&back) == R::ss_bytes(&ss),
            || "keygen: round trip (reference encaps, own decaps) disagrees".into(),
            e,
        );
    }

    let mut encapsulations = vec![(Operation::Encaps, L::encaps(&L::parse_ek(&fx.ek), &fx.m))];
    if L::supports(Operation::EncapsFromBytes) {
        encapsulations.push((
            Operation::EncapsFromBytes,
            L::encaps_from_bytes(&fx.ek, &fx.m),
        ));
    }
    for (operation, (ct, ss)) in encapsulations {
        let label = operation.name();
        let (ct, ss) = (L::ct_bytes(&ct), L::ss_bytes(&ss));
        if L::DETERMINISTIC {
            ensure(ct == fx.ct, || format!("{label}: ciphertext differs"), e);
            ensure(ss == fx.ss, || format!("{label}: shared secret differs"), e);
        } else if ct.len() == fx.ct.len() {
            let own = L::decaps_from_bytes(&fx.dk, ct);
            let reference = R::decaps_from_bytes(&fx.dk, ct);
            ensure(
                L::ss_bytes(&own) == ss,
                || format!("{label}: own round trip fails"),
                e,
            );
            ensure(
                R::ss_bytes(&reference) == ss,
                || format!("{label}: reference decapsulation disagrees"),
                e,
            );
        } else {
            ensure(
                false,
                || format!("{label}: ciphertext length {}", ct.len()),
                e,
            );
        }
    }

    let dk = L::parse_dk(&fx.seed, &fx.dk);
    let ss = L::decaps(&dk, &L::parse_ct(&fx.ct));
    ensure(
        L::ss_bytes(&ss) == fx.ss,
        || "decaps: shared secret differs".into(),
        e,
    );
    if L::supports(Operation::DecapsFromBytes) {
        let ss = L::decaps_from_bytes(&fx.dk, &fx.ct);
        ensure(
            L::ss_bytes(&ss) == fx.ss,
            || "decaps_from_bytes: shared secret differs".into(),
            e,
        );
    }

    let mut tampered = fx.ct.clone();
    tampered[0] ^= 1;
    let rejected = L::decaps(&dk, &L::parse_ct(&tampered));
    let expected = R::decaps_from_bytes(&fx.dk, &tampered);
    ensure(
        L::ss_bytes(&rejected) == R::ss_bytes(&expected) && L::ss_bytes(&rejected) != fx.ss,
        || "decaps: implicit rejection differs from the reference".into(),
        e,
    );

    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("{} on {} disagrees:\n{errors}", L::NAME, fx.set))
    }
}

/// The backend an adapter of ours runs every operation on, and its label.
pub trait OursBackend: Copy + core::fmt::Debug {
    /// The library's label in benchmark IDs.
    const NAME: &'static str;
    /// The backend of one operation, chosen at its start (as the plain API does).
    fn backend() -> AnyBackend;
}

/// The backend the crate's plain API runs on ([`AnyBackend::best`]: AVX2 where the CPU has
/// it); label `ours`.
#[derive(Clone, Copy, Debug)]
pub struct Best;

impl OursBackend for Best {
    const NAME: &'static str = "ours";

    #[inline]
    fn backend() -> AnyBackend {
        AnyBackend::best()
    }
}

/// The portable backend, whatever the CPU has; label `ours-portable`.
#[derive(Clone, Copy, Debug)]
pub struct PortableOnly;

impl OursBackend for PortableOnly {
    const NAME: &'static str = "ours-portable";

    #[inline]
    fn backend() -> AnyBackend {
        AnyBackend::of(BackendKind::Portable).expect("the portable backend is always available")
    }
}

/// Implements [`KemUnderTest`] for our `lazykem` crate, one parameter set, on the backend
/// chosen by `B`.
macro_rules! ours {
    ($(#[$doc:meta])* $name:ident, $portable:ident, $set:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name<B: OursBackend = Best>(PhantomData<B>);

        #[doc = concat!("[`", stringify!($name), "`] on the portable backend (`ours-portable`).")]
        pub type $portable = $name<PortableOnly>;

        impl<B: OursBackend> KemUnderTest for $name<B> {
            const NAME: &'static str = B::NAME;
            const DETERMINISTIC: bool = true;
            type KeyPair = lazykem::$set::DecapsulationKey;
            type Ek = lazykem::$set::EncapsulationKey;
            type Dk = lazykem::$set::DecapsulationKey;
            type Ct = lazykem::$set::Ciphertext;
            type Ss = lazykem::SharedSecret;

            #[inline]
            fn keygen(seed: &[u8; 64]) -> Self::KeyPair {
                lazykem::hazmat::OnBackend::new(B::backend()).decapsulation_key_from_seed(seed)
            }

            fn key_pair_bytes(key_pair: &Self::KeyPair) -> (Vec<u8>, Vec<u8>) {
                (
                    key_pair.encapsulation_key().as_bytes().to_vec(),
                    key_pair.to_expanded_bytes().to_vec(),
                )
            }

            #[inline]
            fn parse_ek(ek: &[u8]) -> Self::Ek {
                lazykem::hazmat::OnBackend::new(B::backend()).encapsulation_key_from_bytes(ek).expect("valid encapsulation key")
            }

            #[inline]
            fn encaps(ek: &Self::Ek, m: &[u8; 32]) -> (Self::Ct, Self::Ss) {
                lazykem::hazmat::OnBackend::new(B::backend()).encapsulate_deterministic(ek, m)
            }

            #[inline]
            fn encaps_from_bytes(ek: &[u8], m: &[u8; 32]) -> (Self::Ct, Self::Ss) {
                // The one-shot form: parse, check and encapsulate, nothing kept.
                lazykem::hazmat::OnBackend::new(B::backend()).encapsulate_encoded_deterministic(ek, m)
                    .expect("valid key")
            }

            #[inline]
            fn parse_dk(seed: &[u8; 64], _dk: &[u8]) -> Self::Dk {
                lazykem::hazmat::OnBackend::new(B::backend()).decapsulation_key_from_seed(seed)
            }

            #[inline]
            fn parse_ct(ct: &[u8]) -> Self::Ct {
                Self::Ct::from_bytes(ct).expect("valid ciphertext length")
            }

            #[inline]
            fn decaps(dk: &Self::Dk, ct: &Self::Ct) -> Self::Ss {
                lazykem::hazmat::OnBackend::new(B::backend()).decapsulate(dk, ct)
            }

            #[inline]
            fn decaps_from_bytes(dk: &[u8], ct: &[u8]) -> Self::Ss {
                // The one-shot API, with the checks of `from_expanded_bytes`.
                lazykem::hazmat::OnBackend::new(B::backend()).decapsulate_expanded(dk, &Self::parse_ct(ct))
                    .expect("valid decapsulation key")
            }

            fn ct_bytes(ct: &Self::Ct) -> &[u8] {
                ct.as_bytes()
            }

            fn ss_bytes(ss: &Self::Ss) -> &[u8] {
                ss.as_bytes()
            }
        }
    };
}

ours!(
    /// Our ML-KEM-512 (`lazykem::ml_kem_512`).
    Ours512,
    OursPortable512,
    ml_kem_512
);
ours!(
    /// Our ML-KEM-768 (`lazykem::ml_kem_768`).
    Ours768,
    OursPortable768,
    ml_kem_768
);
ours!(
    /// Our ML-KEM-1024 (`lazykem::ml_kem_1024`).
    Ours1024,
    OursPortable1024,
    ml_kem_1024
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ours_passes_its_own_check() {
        check::<Ours512, Ours512>(&Fixture::new::<Ours512>("ML-KEM-512")).unwrap();
        check::<Ours768, Ours768>(&Fixture::new::<Ours768>("ML-KEM-768")).unwrap();
        check::<Ours1024, Ours1024>(&Fixture::new::<Ours1024>("ML-KEM-1024")).unwrap();
    }

    #[test]
    fn portable_ours_agrees_with_ours() {
        check::<OursPortable512, Ours512>(&Fixture::new::<Ours512>("ML-KEM-512")).unwrap();
        check::<OursPortable768, Ours768>(&Fixture::new::<Ours768>("ML-KEM-768")).unwrap();
        check::<OursPortable1024, Ours1024>(&Fixture::new::<Ours1024>("ML-KEM-1024")).unwrap();
    }
}
