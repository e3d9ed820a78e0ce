//! Self-tests (feature `self-test`, off by default): known-answer tests of KeyGen, Encaps
//! and Decaps on first use, and a pairwise-consistency test after every key generation,
//! in the style of FIPS 140-3 (IG 10.3.A). They catch a miscompiled or broken backend in
//! the field, where the test suite does not run.
//!
//! - [`run`] runs the known-answer tests once per process, for ML-KEM-512, -768 and -1024
//!   on the backend the operations use ([`crate::backend`]), and remembers the outcome:
//!   after a failure every later call fails too (the library stays in its error state).
//!   The known answers are NIST ACVP test cases (see `self_test/kats.rs`): per parameter
//!   set, KeyGen from `d || z` compared with the expected encapsulation and decapsulation
//!   keys, decapsulation of a valid ciphertext and of a modified one (implicit rejection),
//!   both with the parsed key and in one call from the expanded key, and encapsulation of a
//!   given message to a given key.
//! - With the feature on, every fallible constructor of this crate
//!   ([`EncapsulationKey::from_bytes`], [`DecapsulationKey::from_seed_bytes`],
//!   [`DecapsulationKey::from_expanded_bytes`], [`DecapsulationKey::decapsulate_expanded`]
//!   and what is built on them: PKCS#8, the `kem` traits' `TryKeyInit`) runs [`run`] first
//!   and fails with [`Error::SelfTestFailed`], and three fallible operations are added:
//!   [`DecapsulationKey::generate_checked`] (self-tests, key generation, then the
//!   pairwise-consistency test: encapsulate to the new key and decapsulate),
//!   [`EncapsulationKey::encapsulate_checked`] and [`DecapsulationKey::decapsulate_checked`].
//! - The infallible operations (`generate`, `from_seed`, `encapsulate`, `decapsulate`) do
//!   not run self-tests: they cannot fail closed without a panic. Use the checked ones.
//!
//! ```
//! use lazykem::ml_kem_768::DecapsulationKey;
//!
//! lazykem::self_test::run()?; // optional: the checked operations run it on first use
//! let mut rng = rand::rng();
//! let dk = DecapsulationKey::generate_checked(&mut rng)?;
//! let (ct, secret) = dk.encapsulation_key().encapsulate_checked(&mut rng)?;
//! assert_eq!(dk.decapsulate_checked(&ct)?, secret);
//! # Ok::<(), lazykem::Error>(())
//! ```
//!
//! The known-answer tests do, per parameter set, two key generations and expanded-key
//! exports, two decapsulations with the parsed key and two from the expanded key, and one
//! encapsulation from key bytes, plus SHA3-256 of the outputs: once per process (about
//! 0.3-0.7 ms for all three sets on an AVX-512 machine, measured by the `self_test` bench
//! of `mlkem-benches/`); afterwards the check is one atomic load. `generate_checked` costs about
//! 2.3 times `generate` (the pairwise test).

mod kats;

use core::sync::atomic::{AtomicU8, Ordering};

use lattice_poly_ntt::Portable;
use lattice_sampling::keccak::sha3_256;
use rand_core::CryptoRng;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::backend::AnyBackend;
use crate::params::{MlKem512, MlKem768, MlKem1024, ParameterSet};
use crate::{Ciphertext, DecapsulationKey, EncapsulationKey};
use crate::{Error, Seed, SharedSecret};

/// One decapsulation case of ACVP: the key's seed, digests of the key ACVP expects, a
/// ciphertext and the shared secret ACVP expects.
#[derive(Clone, Copy)]
pub(crate) struct DecapsCase {
    pub(crate) d: [u8; 32],
    pub(crate) z: [u8; 32],
    /// SHA3-256 of the expected encapsulation key.
    pub(crate) ek_sha3: [u8; 32],
    /// SHA3-256 of the expected expanded decapsulation key.
    pub(crate) dk_sha3: [u8; 32],
    pub(crate) c: &'static [u8],
    pub(crate) k: [u8; 32],
}

/// One encapsulation case of ACVP.
#[derive(Clone, Copy)]
pub(crate) struct EncapsCase {
    pub(crate) ek: &'static [u8],
    pub(crate) m: [u8; 32],
    /// SHA3-256 of the expected ciphertext.
    pub(crate) c_sha3: [u8; 32],
    pub(crate) k: [u8; 32],
}

/// The known answers of one parameter set.
#[derive(Clone, Copy)]
pub(crate) struct Kat {
    pub(crate) valid: DecapsCase,
    pub(crate) rejected: DecapsCase,
    pub(crate) encaps: EncapsCase,
}

/// Decodes a hexadecimal string at compile time (the tables in `kats.rs`).
const fn hex<const N: usize>(text: &str) -> [u8; N] {
    const fn nibble(c: u8) -> u8 {
        match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => panic!("not a hex digit"),
        }
    }
    let bytes = text.as_bytes();
    assert!(bytes.len() == 2 * N, "wrong hex length");
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        out[i] = (nibble(bytes[2 * i]) << 4) | nibble(bytes[2 * i + 1]);
        i += 1;
    }
    out
}

const UNTESTED: u8 = 0;
const PASSED: u8 = 1;
const FAILED: u8 = 2;

/// The outcome of the self-tests in this process.
static STATE: AtomicU8 = AtomicU8::new(UNTESTED);

/// Runs the known-answer tests of all three parameter sets on first use, on the backend
/// the operations use, and returns their outcome; later calls return the remembered
/// outcome (one atomic load). A failure is permanent for the process, and so is a failed
/// pairwise-consistency test.
///
/// ```
/// assert_eq!(lazykem::self_test::run(), Ok(()));
/// ```
///
/// # Errors
/// [`Error::SelfTestFailed`] if a known answer did not match, now or earlier.
pub fn run() -> Result<(), Error> {
    gate(&STATE, || known_answers(AnyBackend::best()))
}

/// Runs the known-answer tests again, now (an on-demand self-test, as FIPS 140-3 allows),
/// and returns their outcome. A failure puts the library into its error state; a pass
/// does not undo an earlier failure.
///
/// ```
/// assert_eq!(lazykem::self_test::rerun(), Ok(()));
/// ```
///
/// # Errors
/// [`Error::SelfTestFailed`] if a known answer did not match, now or earlier.
pub fn rerun() -> Result<(), Error> {
    record(&STATE, known_answers(AnyBackend::best()))
}

/// The once-only logic of [`run`] over a given state and test (separate for the tests).
fn gate(state: &AtomicU8, test: impl FnOnce() -> Result<(), Error>) -> Result<(), Error> {
    match state.load(Ordering::Acquire) {
        PASSED => Ok(()),
        UNTESTED => record(state, test()),
        _ => Err(Error::SelfTestFailed),
    }
}

/// Records the outcome of a run of the tests in `state` and returns the state's verdict: a
/// pass moves an untested state to passed, a failure is permanent, and a failure recorded
/// meanwhile by another thread (of a pairwise test, say) is not overwritten.
fn record(state: &AtomicU8, outcome: Result<(), Error>) -> Result<(), Error> {
    match outcome {
        Ok(()) => {
            let _ = state.compare_exchange(UNTESTED, PASSED, Ordering::AcqRel, Ordering::Acquire);
        }
        Err(_) => state.store(FAILED, Ordering::Release),
    }
    if state.load(Ordering::Acquire) == PASSED {
        Ok(())
    } else {
        Err(Error::SelfTestFailed)
    }
}

/// Puts the library into its error state (a failed pairwise-consistency test).
fn fail(state: &AtomicU8) -> Error {
    state.store(FAILED, Ordering::Release);
    Error::SelfTestFailed
}

/// The known-answer tests of all three parameter sets on `backend`.
fn known_answers(backend: AnyBackend) -> Result<(), Error> {
    check_set::<MlKem512>(backend, &kats::ML_KEM_512)?;
    check_set::<MlKem768>(backend, &kats::ML_KEM_768)?;
    check_set::<MlKem1024>(backend, &kats::ML_KEM_1024)
}

/// `Ok` when `ok`, else the self-test error.
fn expect(ok: bool) -> Result<(), Error> {
    if ok {
        Ok(())
    } else {
        Err(Error::SelfTestFailed)
    }
}

/// The known-answer tests of one parameter set (module docs).
fn check_set<P: ParameterSet>(backend: AnyBackend, kat: &Kat) -> Result<(), Error> {
    for case in [&kat.valid, &kat.rejected] {
        check_decaps::<P>(backend, case)?;
    }
    let case = &kat.encaps;
    let ek = EncapsulationKey::<P>::from_bytes_with(backend, case.ek)
        .map_err(|_| Error::SelfTestFailed)?;
    let (ct, k) = ek.encapsulate_internal(backend, &case.m);
    expect(sha3_256(Portable, &[ct.as_bytes().as_ref()]) == case.c_sha3)?;
    expect(k.as_bytes() == &case.k)
}

/// KeyGen from the case's seed, then decapsulation of its ciphertext with the parsed key
/// and in one call from the expanded key.
fn check_decaps<P: ParameterSet>(backend: AnyBackend, case: &DecapsCase) -> Result<(), Error> {
    let mut seed = Zeroizing::new([0u8; crate::SEED_SIZE]);
    seed[..32].copy_from_slice(&case.d);
    seed[32..].copy_from_slice(&case.z);
    let dk = DecapsulationKey::<P>::from_seed_value(backend, Seed::new(*seed));
    let ek_bytes: &[u8] = dk.encapsulation_key().as_bytes().as_ref();
    expect(sha3_256(Portable, &[ek_bytes]) == case.ek_sha3)?;
    let expanded = dk.to_expanded_bytes_with(backend);
    let expanded: &[u8] = expanded.as_ref();
    expect(sha3_256(Portable, &[expanded]) == case.dk_sha3)?;
    let ct = Ciphertext::<P>::from_bytes(case.c).map_err(|_| Error::SelfTestFailed)?;
    expect(dk.decapsulate_with(backend, &ct).as_bytes() == &case.k)?;
    let one_shot = DecapsulationKey::<P>::decapsulate_expanded_with(backend, expanded, &ct)
        .map_err(|_| Error::SelfTestFailed)?;
    expect(one_shot.as_bytes() == &case.k)
}

impl<P: ParameterSet> DecapsulationKey<P> {
    /// [`Self::generate`] with the self-tests (feature `self-test`): [`run`] first (once per
    /// process), then key generation, then a pairwise-consistency test (FIPS 140-3 IG
    /// 10.3.A): a fresh encapsulation to the new key must decapsulate to the same shared
    /// secret. The test's shared secret is erased; a failure puts the library into its
    /// error state.
    ///
    /// ```
    /// let dk = lazykem::ml_kem_512::DecapsulationKey::generate_checked(&mut rand::rng())?;
    /// # let _ = dk;
    /// # Ok::<(), lazykem::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::SelfTestFailed`] if a known-answer test or the pairwise test failed.
    pub fn generate_checked<R: CryptoRng + ?Sized>(rng: &mut R) -> Result<Self, Error> {
        run()?;
        let key = Self::generate(rng);
        let (ct, secret) = key.encapsulation_key().encapsulate(rng);
        if bool::from(key.decapsulate(&ct).ct_eq(&secret)) {
            Ok(key)
        } else {
            Err(fail(&STATE))
        }
    }

    /// [`Self::decapsulate`] after [`run`] (feature `self-test`).
    ///
    /// # Errors
    /// [`Error::SelfTestFailed`] if the self-tests failed.
    pub fn decapsulate_checked(&self, ct: &Ciphertext<P>) -> Result<SharedSecret, Error> {
        run()?;
        Ok(self.decapsulate(ct))
    }
}

impl<P: ParameterSet> EncapsulationKey<P> {
    /// [`Self::encapsulate`] after [`run`] (feature `self-test`).
    ///
    /// # Errors
    /// [`Error::SelfTestFailed`] if the self-tests failed.
    pub fn encapsulate_checked<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
    ) -> Result<(Ciphertext<P>, SharedSecret), Error> {
        run()?;
        Ok(self.encapsulate(rng))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn the_known_answers_hold_on_every_backend() {
        for backend in AnyBackend::available() {
            assert_eq!(known_answers(backend), Ok(()), "{:?}", backend.kind());
        }
        assert_eq!(run(), Ok(()));
    }

    /// Each corruption of a known answer (or of an input) must make the test fail.
    #[test]
    fn a_corrupted_known_answer_fails() {
        type Corrupt = fn(&mut Kat);
        let corruptions: [(&str, Corrupt); 12] = [
            ("d", |k| k.valid.d[0] ^= 1),
            ("z of the rejection case", |k| k.rejected.z[31] ^= 0x80),
            ("ek digest", |k| k.valid.ek_sha3[5] ^= 1),
            ("dk digest", |k| k.valid.dk_sha3[31] ^= 1),
            ("valid k", |k| k.valid.k[0] ^= 1),
            ("rejection k", |k| k.rejected.k[17] ^= 4),
            ("valid c", |k| k.valid.c = flipped(k.valid.c, 100)),
            ("c length", |k| k.valid.c = &k.valid.c[1..]),
            ("encaps m", |k| k.encaps.m[3] ^= 1),
            ("encaps c digest", |k| k.encaps.c_sha3[0] ^= 1),
            ("encaps k", |k| k.encaps.k[9] ^= 1),
            ("encaps ek (rho)", |k| {
                k.encaps.ek = flipped(k.encaps.ek, 1183);
            }),
        ];
        let backend = AnyBackend::best();
        for (what, corrupt) in corruptions {
            let mut kat = kats::ML_KEM_768;
            assert_eq!(check_set::<MlKem768>(backend, &kat), Ok(()));
            corrupt(&mut kat);
            assert_eq!(
                check_set::<MlKem768>(backend, &kat),
                Err(Error::SelfTestFailed),
                "{what}"
            );
        }
    }

    /// A copy of `bytes` with one bit flipped, for as long as the test process lives.
    fn flipped(bytes: &[u8], index: usize) -> &'static [u8] {
        let mut copy = std::vec::Vec::from(bytes);
        copy[index] ^= 1;
        std::boxed::Box::leak(copy.into_boxed_slice())
    }

    #[test]
    fn a_failure_is_permanent() {
        let state = AtomicU8::new(UNTESTED);
        assert_eq!(
            gate(&state, || Err(Error::SelfTestFailed)),
            Err(Error::SelfTestFailed)
        );
        // The test is not run again, and passing it would not matter.
        assert_eq!(gate(&state, || Ok(())), Err(Error::SelfTestFailed));

        let state = AtomicU8::new(UNTESTED);
        assert_eq!(gate(&state, || Ok(())), Ok(()));
        let mut ran = false;
        assert_eq!(
            gate(&state, || {
                ran = true;
                Err(Error::SelfTestFailed)
            }),
            Ok(())
        );
        assert!(!ran, "the tests run once");
        // An on-demand rerun records its own outcome: a pass changes nothing, a failure
        // is permanent.
        let rerun = AtomicU8::new(PASSED);
        assert_eq!(record(&rerun, Ok(())), Ok(()));
        assert_eq!(
            record(&rerun, Err(Error::SelfTestFailed)),
            Err(Error::SelfTestFailed)
        );
        assert_eq!(record(&rerun, Ok(())), Err(Error::SelfTestFailed));
        // A failed pairwise test after the known answers passed.
        assert_eq!(fail(&state), Error::SelfTestFailed);
        assert_eq!(gate(&state, || Ok(())), Err(Error::SelfTestFailed));
    }
}
