//! X-Wing (draft-connolly-cfrg-xwing-kem, versions -05 to -10): the general-purpose hybrid
//! KEM of ML-KEM-768 and X25519, on the `lazykem` crate's parsed keys.
//!
//! ```
//! use lazykem_xwing::{Ciphertext, DecapsulationKey, EncapsulationKey};
//!
//! # fn main() -> Result<(), lazykem_xwing::Error> {
//! let mut rng = rand::rng();
//! // Receiver: a key pair; publish the 1216-byte encapsulation key.
//! let dk = DecapsulationKey::generate(&mut rng);
//! let ek_bytes = dk.encapsulation_key().as_bytes();
//!
//! // Sender: parse the key once (ML-KEM's checks, A-hat expanded), encapsulate.
//! let ek = EncapsulationKey::from_bytes(ek_bytes)?;
//! let (ct, sender) = ek.encapsulate(&mut rng);
//!
//! // Receiver: decapsulate the 1120-byte ciphertext.
//! let ct = Ciphertext::from_bytes(ct.as_bytes())?;
//! assert_eq!(dk.decapsulate(&ct), sender);
//!
//! // The 32-byte seed is the whole private key.
//! let again = DecapsulationKey::from_seed(dk.seed());
//! assert_eq!(again.encapsulation_key(), dk.encapsulation_key());
//! # Ok(())
//! # }
//! ```
//!
//! # The construction (draft section 5)
//! - The decapsulation key is a 32-byte seed `sk`. `SHAKE256(sk, 96)` expands to the
//!   ML-KEM-768 seed `d || z` (bytes 0..64) and the X25519 secret `sk_X` (64..96);
//!   `pk = pk_M || pk_X` (1184 + 32 bytes), `pk_X = X25519(sk_X, 9)`.
//! - Encapsulation draws 64 bytes: the ML-KEM message `m` (0..32) and the ephemeral X25519
//!   secret `ek_X` (32..64); `ct = ct_M || ct_X` (1088 + 32 bytes), `ct_X = X25519(ek_X, 9)`.
//! - The combiner: `ss = SHA3-256(ss_M || ss_X || ct_X || pk_X || "\.//^\")`.
//!
//! # What this crate owns
//! The key expansion, the combiner, the encodings and the API. ML-KEM-768 is the `lazykem`
//! crate's (its parsed encapsulation key keeps A-hat and H(ek), so a client encapsulating to
//! one server key many times parses it once); X25519 is `x25519-dalek`'s; SHAKE256 and
//! SHA3-256 are `lattice-sampling`'s Keccak. No curve arithmetic is written here.
//!
//! # Low-order X25519 points
//! The draft does not check the X25519 shared secret: an `X25519` output of all zeros (a
//! low-order `pk_X` or `ct_X`) goes into the combiner like any other value, and
//! decapsulation never fails. The shared secret then rests on ML-KEM-768 alone, which the
//! combiner still binds. (RFC 7748 allows an implementation to abort on an all-zero
//! output; X-Wing as drafted does not, and this crate follows the draft.)
//!
//! # Secrets
//! The seed, the expanded ML-KEM key, the X25519 secrets and the shared secret are erased on
//! drop or after use; `Debug` prints none of them.
//!
//! # Errors
//! One error type, [`Error`], for every fallible function of the crate: a length
//! (`expected`, `actual`), the ML-KEM part of a key failing FIPS 203 §7.2 ([`Error::MlKem`],
//! carrying `lazykem`'s error), or the OS RNG ([`Error::Rng`], feature `getrandom`). The one
//! rule beside it: `try_generate` and `try_encapsulate` take the caller's fallible RNG and
//! return that RNG's own error type (`From<getrandom::Error>` lets `?` convert it when that
//! RNG is `getrandom::SysRng`). The `kem` trait impls return what their traits declare.
//!
//! # Features
//! Every feature is off by default; the crate is `#![no_std]` and does not allocate.
//!
//! | feature | what it adds |
//! |---|---|
//! | `getrandom` | `generate_with_os_rng`, `encapsulate_with_os_rng` (`getrandom` 0.4), [`Error::Rng`] |
//! | `kem` | the RustCrypto `kem` 0.3 traits, as RustCrypto `x-wing` 0.1 implements them (module [`kem_traits`], [`kem_traits::XWing`]), and the re-export [`kem`] |
//! | `hazmat` | `EncapsulationKey::encapsulate_deterministic` (`EncapsulateDerand`), for known-answer tests only; it does not turn on `lazykem`'s `hazmat` |
//!
//! | features | what they give together |
//! |---|---|
//! | `getrandom` + `kem` | the `kem` traits' OS-RNG methods, `Kem::generate_keypair()`, `Encapsulate::encapsulate()`, `Generate::generate()` (this turns on `kem`'s own `getrandom` feature) |
//! | no feature | X-Wing with the caller's RNG, for any `no_std` target |
//!
//! ```
//! # #[cfg(all(feature = "getrandom", feature = "kem"))] {
//! use lazykem_xwing::kem::{Decapsulate, Encapsulate, Kem};
//! use lazykem_xwing::kem_traits::XWing;
//!
//! let (dk, ek) = XWing::generate_keypair();
//! let (ct, sender) = Encapsulate::encapsulate(&ek);
//! assert_eq!(Decapsulate::decapsulate(&dk, &ct), sender);
//! # }
//! ```
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

#[cfg(test)]
extern crate std;

#[cfg(feature = "kem")]
pub mod kem_traits;

/// The RustCrypto `kem` crate (feature `kem`), whose traits [`kem_traits`] implements: code
/// written for RustCrypto `x-wing` names `lazykem_xwing::kem::Encapsulate` without a
/// dependency of its own.
#[cfg(feature = "kem")]
pub use ::kem;

use core::fmt;
use lattice_poly_ntt::backend::AnyBackend;
use lazykem::ml_kem_768;
use rand_core::{CryptoRng, TryCryptoRng};
use subtle::ConstantTimeEq;
use x25519_dalek::{PublicKey, StaticSecret};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// Size in bytes of an encapsulation key: ML-KEM-768's 1184 and X25519's 32.
pub const ENCAPSULATION_KEY_SIZE: usize = 1216;
/// Size in bytes of a decapsulation key: the seed.
pub const DECAPSULATION_KEY_SIZE: usize = 32;
/// Size in bytes of a ciphertext: ML-KEM-768's 1088 and X25519's 32.
pub const CIPHERTEXT_SIZE: usize = 1120;
/// Size in bytes of a shared secret.
pub const SHARED_SECRET_SIZE: usize = 32;
/// Bytes of randomness one encapsulation draws.
pub const ENCAPSULATION_RANDOMNESS_SIZE: usize = 64;

const PK_M: usize = ml_kem_768::ENCAPSULATION_KEY_SIZE;
const CT_M: usize = ml_kem_768::CIPHERTEXT_SIZE;
const _: () = assert!(PK_M + 32 == ENCAPSULATION_KEY_SIZE && CT_M + 32 == CIPHERTEXT_SIZE);

/// `XWingLabel`: the ASCII bytes `\./` `/^\` (draft section 5.3).
const LABEL: [u8; 6] = *b"\\.//^\\";

/// Why an operation failed: every fallible function of this crate returns it, except the
/// `try_*` functions that take the caller's fallible RNG and return that RNG's error. The
/// length errors have the shape of `lazykem::Error`'s (`expected`, `actual`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// An encapsulation key that is not 1216 bytes long.
    EncapsulationKeyLength {
        /// The length X-Wing requires (1216).
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// A ciphertext that is not 1120 bytes long.
    CiphertextLength {
        /// The length X-Wing requires (1120).
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// A decapsulation key (seed) that is not 32 bytes long.
    DecapsulationKeyLength {
        /// The length X-Wing requires (32).
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// The ML-KEM-768 part of an encapsulation key fails the check of FIPS 203 §7.2.
    MlKem(lazykem::Error),
    /// The operating system's random number generator failed (feature `getrandom`:
    /// `generate_with_os_rng`, `encapsulate_with_os_rng`). Carries `getrandom`'s error.
    #[cfg(feature = "getrandom")]
    Rng(getrandom::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EncapsulationKeyLength { expected, actual } => write!(
                f,
                "X-Wing encapsulation key is {actual} bytes, expected {expected}"
            ),
            Self::CiphertextLength { expected, actual } => {
                write!(
                    f,
                    "X-Wing ciphertext is {actual} bytes, expected {expected}"
                )
            }
            Self::DecapsulationKeyLength { expected, actual } => write!(
                f,
                "X-Wing decapsulation key is {actual} bytes, expected {expected}"
            ),
            Self::MlKem(e) => write!(f, "X-Wing encapsulation key: {e}"),
            #[cfg(feature = "getrandom")]
            Self::Rng(e) => write!(
                f,
                "the operating system's random number generator failed: {e}"
            ),
        }
    }
}

impl core::error::Error for Error {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::MlKem(e) => Some(e),
            #[cfg(feature = "getrandom")]
            Self::Rng(e) => Some(e),
            _ => None,
        }
    }
}

/// The OS RNG's failure, so that `?` takes it into this crate's error.
#[cfg(feature = "getrandom")]
impl From<getrandom::Error> for Error {
    fn from(e: getrandom::Error) -> Self {
        Self::Rng(e)
    }
}

/// SHA3-256 on the best backend.
fn sha3_256(parts: &[&[u8]]) -> [u8; 32] {
    lattice_poly_ntt::dispatch!(AnyBackend::best(), |b| {
        lattice_sampling::keccak::sha3_256(b, parts)
    })
}

/// SHAKE256 on the best backend.
fn shake256(parts: &[&[u8]], out: &mut [u8]) {
    lattice_poly_ntt::dispatch!(AnyBackend::best(), |b| {
        lattice_sampling::keccak::shake256(b, parts, out);
    });
}

/// `Combiner(ss_M, ss_X, ct_X, pk_X)` (draft section 5.3).
fn combiner(ss_m: &[u8; 32], ss_x: &[u8; 32], ct_x: &[u8; 32], pk_x: &[u8; 32]) -> SharedSecret {
    SharedSecret(sha3_256(&[ss_m, ss_x, ct_x, pk_x, &LABEL]))
}

/// An X-Wing shared secret: 32 bytes, erased on drop, compared in constant time, not shown
/// by `Debug`.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SharedSecret([u8; SHARED_SECRET_SIZE]);

impl SharedSecret {
    /// The secret's bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; SHARED_SECRET_SIZE] {
        &self.0
    }
}

impl AsRef<[u8]> for SharedSecret {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl ConstantTimeEq for SharedSecret {
    fn ct_eq(&self, other: &Self) -> subtle::Choice {
        self.0.ct_eq(&other.0)
    }
}

/// Constant time.
impl PartialEq for SharedSecret {
    fn eq(&self, other: &Self) -> bool {
        self.ct_eq(other).into()
    }
}

impl Eq for SharedSecret {}

impl fmt::Debug for SharedSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SharedSecret(..)")
    }
}

/// An X-Wing encapsulation key (public key), parsed: ML-KEM-768's parsed key (t-hat, A-hat,
/// H(ek), checked by FIPS 203 §7.2) and the X25519 point.
#[derive(Clone)]
pub struct EncapsulationKey {
    bytes: [u8; ENCAPSULATION_KEY_SIZE],
    pk_m: ml_kem_768::EncapsulationKey,
    pk_x: PublicKey,
}

impl EncapsulationKey {
    /// Parses an encoded key `pk_M || pk_X`. Parse once to encapsulate to the same key
    /// repeatedly: ML-KEM's A-hat and H(ek) are computed here, not per encapsulation.
    ///
    /// ```
    /// use lazykem_xwing::{DecapsulationKey, EncapsulationKey, Error};
    ///
    /// let dk = DecapsulationKey::from_seed(&[1; 32]);
    /// let ek = EncapsulationKey::from_bytes(dk.encapsulation_key().as_bytes());
    /// assert_eq!(ek.as_ref(), Ok(dk.encapsulation_key()));
    /// assert_eq!(
    ///     EncapsulationKey::from_bytes(&[0; 10]).err(),
    ///     Some(Error::EncapsulationKeyLength {
    ///         expected: 1216,
    ///         actual: 10
    ///     })
    /// );
    /// ```
    ///
    /// # Errors
    /// [`Error::EncapsulationKeyLength`]; [`Error::MlKem`] if the ML-KEM part fails the
    /// modulus check. Every 32-byte `pk_X` is accepted (see the crate docs on low-order
    /// points).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let bytes: &[u8; ENCAPSULATION_KEY_SIZE] =
            bytes
                .try_into()
                .map_err(|_| Error::EncapsulationKeyLength {
                    expected: ENCAPSULATION_KEY_SIZE,
                    actual: bytes.len(),
                })?;
        let (pk_m, pk_x) = bytes.split_at(PK_M);
        let pk_m = ml_kem_768::EncapsulationKey::from_bytes(pk_m).map_err(Error::MlKem)?;
        let pk_x: [u8; 32] = pk_x.try_into().expect("32 bytes by the length check");
        Ok(Self {
            bytes: *bytes,
            pk_m,
            pk_x: PublicKey::from(pk_x),
        })
    }

    /// The encoded key, `pk_M || pk_X`.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; ENCAPSULATION_KEY_SIZE] {
        &self.bytes
    }

    /// `Encapsulate(pk)` (draft section 5.4): a fresh shared secret and the ciphertext that
    /// carries it.
    ///
    /// ```
    /// use lazykem_xwing::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::generate(&mut rand::rng());
    /// let (ct, secret) = dk.encapsulation_key().encapsulate(&mut rand::rng());
    /// assert_eq!(dk.decapsulate(&ct), secret);
    /// ```
    pub fn encapsulate<R: CryptoRng + ?Sized>(&self, rng: &mut R) -> (Ciphertext, SharedSecret) {
        match self.try_encapsulate(rng) {
            Ok(out) => out,
            Err(never) => match never {},
        }
    }

    /// [`Self::encapsulate`] with a fallible RNG: the RNG's error if it fails.
    ///
    /// # Errors
    /// The RNG's error.
    pub fn try_encapsulate<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
    ) -> Result<(Ciphertext, SharedSecret), R::Error> {
        let mut eseed = Zeroizing::new([0u8; ENCAPSULATION_RANDOMNESS_SIZE]);
        rng.try_fill_bytes(eseed.as_mut())?;
        Ok(self.encapsulate_internal(&eseed))
    }

    /// [`Self::encapsulate`] with the operating system's RNG. Enabled by the `getrandom`
    /// feature.
    ///
    /// ```
    /// let dk = lazykem_xwing::DecapsulationKey::generate_with_os_rng()?;
    /// let (ct, secret) = dk.encapsulation_key().encapsulate_with_os_rng()?;
    /// assert_eq!(dk.decapsulate(&ct), secret);
    /// # Ok::<(), lazykem_xwing::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Rng`] with the OS RNG's error, if it fails.
    #[cfg(feature = "getrandom")]
    pub fn encapsulate_with_os_rng(&self) -> Result<(Ciphertext, SharedSecret), Error> {
        Ok(self.try_encapsulate(&mut getrandom::SysRng)?)
    }

    /// `EncapsulateDerand(pk, eseed)` (draft section 5.4.1).
    ///
    /// **Hazardous**: `eseed` must be 64 fresh random bytes, never reused; this exists for
    /// known-answer tests. Enabled by the `hazmat` feature.
    ///
    /// ```
    /// use lazykem_xwing::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::from_seed(&[2; 32]);
    /// let (a, _) = dk.encapsulation_key().encapsulate_deterministic(&[3; 64]);
    /// let (b, _) = dk.encapsulation_key().encapsulate_deterministic(&[3; 64]);
    /// assert_eq!(a, b);
    /// ```
    #[cfg(feature = "hazmat")]
    #[must_use]
    pub fn encapsulate_deterministic(
        &self,
        eseed: &[u8; ENCAPSULATION_RANDOMNESS_SIZE],
    ) -> (Ciphertext, SharedSecret) {
        self.encapsulate_internal(eseed)
    }

    fn encapsulate_internal(
        &self,
        eseed: &[u8; ENCAPSULATION_RANDOMNESS_SIZE],
    ) -> (Ciphertext, SharedSecret) {
        let (m, ek_x) = eseed.split_at(32);
        let m: &[u8; 32] = m.try_into().expect("32 bytes");
        // The ephemeral secret's copy is erased (`StaticSecret` erases its own).
        let ek_x: Zeroizing<[u8; 32]> = Zeroizing::new(ek_x.try_into().expect("32 bytes"));
        let ek_x = StaticSecret::from(*ek_x);
        let ct_x = PublicKey::from(&ek_x);
        let ss_x = ek_x.diffie_hellman(&self.pk_x);
        let (ct_m, ss_m) = lazykem::__hybrid_internal::encapsulate(&self.pk_m, m);
        let ss = combiner(
            ss_m.as_bytes(),
            ss_x.as_bytes(),
            ct_x.as_bytes(),
            self.pk_x.as_bytes(),
        );
        let mut ct = [0u8; CIPHERTEXT_SIZE];
        ct[..CT_M].copy_from_slice(ct_m.as_bytes());
        ct[CT_M..].copy_from_slice(ct_x.as_bytes());
        (Ciphertext { bytes: ct }, ss)
    }
}

impl PartialEq for EncapsulationKey {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl Eq for EncapsulationKey {}

impl core::hash::Hash for EncapsulationKey {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.bytes.hash(state);
    }
}

impl AsRef<[u8]> for EncapsulationKey {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl TryFrom<&[u8]> for EncapsulationKey {
    type Error = Error;
    fn try_from(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes(bytes)
    }
}

impl fmt::Debug for EncapsulationKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EncapsulationKey").finish_non_exhaustive()
    }
}

/// An X-Wing decapsulation key: the 32-byte seed and, cached, what it expands to (ML-KEM's
/// parsed key with A-hat, the X25519 secret and the encapsulation key). Erased on drop.
#[derive(Clone)]
pub struct DecapsulationKey {
    seed: [u8; DECAPSULATION_KEY_SIZE],
    sk_m: ml_kem_768::DecapsulationKey,
    sk_x: StaticSecret,
    ek: EncapsulationKey,
}

impl Drop for DecapsulationKey {
    fn drop(&mut self) {
        self.seed.zeroize();
        // `sk_m` and `sk_x` erase themselves on drop.
    }
}

impl ZeroizeOnDrop for DecapsulationKey {}

impl DecapsulationKey {
    /// `GenerateKeyPair()` (draft section 5.2): a new key from 32 random bytes.
    ///
    /// ```
    /// let dk = lazykem_xwing::DecapsulationKey::generate(&mut rand::rng());
    /// assert_eq!(dk.encapsulation_key().as_bytes().len(), lazykem_xwing::ENCAPSULATION_KEY_SIZE);
    /// ```
    pub fn generate<R: CryptoRng + ?Sized>(rng: &mut R) -> Self {
        match Self::try_generate(rng) {
            Ok(key) => key,
            Err(never) => match never {},
        }
    }

    /// [`Self::generate`] with a fallible RNG: the RNG's error if it fails.
    ///
    /// # Errors
    /// The RNG's error.
    pub fn try_generate<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<Self, R::Error> {
        let mut seed = Zeroizing::new([0u8; DECAPSULATION_KEY_SIZE]);
        rng.try_fill_bytes(seed.as_mut())?;
        Ok(Self::from_seed(&seed))
    }

    /// [`Self::generate`] with the operating system's RNG. Enabled by the `getrandom`
    /// feature.
    ///
    /// # Errors
    /// [`Error::Rng`] with the OS RNG's error, if it fails.
    #[cfg(feature = "getrandom")]
    pub fn generate_with_os_rng() -> Result<Self, Error> {
        Ok(Self::try_generate(&mut getrandom::SysRng)?)
    }

    /// `GenerateKeyPairDerand(sk)` (draft section 5.2.1): the key of a 32-byte seed, which
    /// is all there is to store.
    ///
    /// ```
    /// use lazykem_xwing::DecapsulationKey;
    ///
    /// let a = DecapsulationKey::from_seed(&[7; 32]);
    /// let b = DecapsulationKey::from_seed(a.seed());
    /// assert_eq!(a.encapsulation_key(), b.encapsulation_key());
    /// ```
    #[must_use]
    pub fn from_seed(seed: &[u8; DECAPSULATION_KEY_SIZE]) -> Self {
        // expandDecapsulationKey: SHAKE256(sk, 96) = d || z || sk_X.
        let mut expanded = Zeroizing::new([0u8; 96]);
        shake256(&[seed], expanded.as_mut());
        let mut ml_seed = Zeroizing::new([0u8; 64]);
        ml_seed.copy_from_slice(&expanded[..64]);
        let mut x_secret = Zeroizing::new([0u8; 32]);
        x_secret.copy_from_slice(&expanded[64..]);
        let sk_m = ml_kem_768::DecapsulationKey::from_seed(&ml_seed);
        let sk_x = StaticSecret::from(*x_secret);
        let pk_x = PublicKey::from(&sk_x);
        let mut bytes = [0u8; ENCAPSULATION_KEY_SIZE];
        bytes[..PK_M].copy_from_slice(sk_m.encapsulation_key().as_bytes());
        bytes[PK_M..].copy_from_slice(pk_x.as_bytes());
        let ek = EncapsulationKey {
            bytes,
            pk_m: sk_m.encapsulation_key().clone(),
            pk_x,
        };
        Self {
            seed: *seed,
            sk_m,
            sk_x,
            ek,
        }
    }

    /// [`Self::from_seed`] for a seed of unchecked length.
    ///
    /// # Errors
    /// [`Error::DecapsulationKeyLength`] if `bytes` is not 32 bytes long.
    pub fn from_seed_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let seed: &[u8; DECAPSULATION_KEY_SIZE] =
            bytes
                .try_into()
                .map_err(|_| Error::DecapsulationKeyLength {
                    expected: DECAPSULATION_KEY_SIZE,
                    actual: bytes.len(),
                })?;
        Ok(Self::from_seed(seed))
    }

    /// The 32-byte seed: the encoded decapsulation key.
    #[must_use]
    pub const fn seed(&self) -> &[u8; DECAPSULATION_KEY_SIZE] {
        &self.seed
    }

    /// The matching encapsulation key, to publish.
    #[must_use]
    pub const fn encapsulation_key(&self) -> &EncapsulationKey {
        &self.ek
    }

    /// `Decapsulate(ct, sk)` (draft section 5.5). Never fails: a ciphertext not made for
    /// this key gives an unrelated secret (ML-KEM's implicit rejection).
    ///
    /// ```
    /// use lazykem_xwing::{Ciphertext, DecapsulationKey};
    ///
    /// let dk = DecapsulationKey::from_seed(&[4; 32]);
    /// let (ct, secret) = dk.encapsulation_key().encapsulate(&mut rand::rng());
    /// assert_eq!(dk.decapsulate(&ct), secret);
    /// assert_ne!(dk.decapsulate(&Ciphertext::from([0; 1120])), secret);
    /// ```
    #[must_use]
    pub fn decapsulate(&self, ct: &Ciphertext) -> SharedSecret {
        let (ct_m, ct_x) = ct.bytes.split_at(CT_M);
        let ct_m = ml_kem_768::Ciphertext::from_bytes(ct_m).expect("1088 bytes by the type");
        let ct_x: [u8; 32] = ct_x.try_into().expect("32 bytes by the type");
        let ss_m = self.sk_m.decapsulate(&ct_m);
        let ss_x = self.sk_x.diffie_hellman(&PublicKey::from(ct_x));
        combiner(
            ss_m.as_bytes(),
            ss_x.as_bytes(),
            &ct_x,
            self.ek.pk_x.as_bytes(),
        )
    }
}

impl fmt::Debug for DecapsulationKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecapsulationKey").finish_non_exhaustive()
    }
}

/// An X-Wing ciphertext `ct_M || ct_X` (1120 bytes; any content of that length is valid).
#[derive(Clone, PartialEq, Eq)]
pub struct Ciphertext {
    bytes: [u8; CIPHERTEXT_SIZE],
}

impl Ciphertext {
    /// Wraps ciphertext bytes.
    ///
    /// # Errors
    /// [`Error::CiphertextLength`] if `bytes` is not 1120 bytes long.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let bytes = bytes.try_into().map_err(|_| Error::CiphertextLength {
            expected: CIPHERTEXT_SIZE,
            actual: bytes.len(),
        })?;
        Ok(Self { bytes })
    }

    /// The ciphertext bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; CIPHERTEXT_SIZE] {
        &self.bytes
    }
}

impl From<[u8; CIPHERTEXT_SIZE]> for Ciphertext {
    fn from(bytes: [u8; CIPHERTEXT_SIZE]) -> Self {
        Self { bytes }
    }
}

impl AsRef<[u8]> for Ciphertext {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl TryFrom<&[u8]> for Ciphertext {
    type Error = Error;
    fn try_from(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes(bytes)
    }
}

impl fmt::Debug for Ciphertext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ciphertext").finish_non_exhaustive()
    }
}

/// The crate README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_no_secret() {
        let dk = DecapsulationKey::from_seed(&[0xab; 32]);
        let (ct, ss) = dk.encapsulation_key().encapsulate_internal(&[0xcd; 64]);
        for text in [
            std::format!("{dk:?}"),
            std::format!("{ss:?}"),
            std::format!("{ct:?}"),
            std::format!("{:?}", dk.encapsulation_key()),
        ] {
            assert!(!text.contains("171"), "{text}"); // 0xab
            assert!(text.len() < 40, "{text}");
        }
    }

    #[test]
    fn label_is_the_drafts() {
        assert_eq!(LABEL, [0x5c, 0x2e, 0x2f, 0x2f, 0x5e, 0x5c]);
    }
}
