//! The one error type of the crate.

use core::fmt;

/// Why an operation failed: every fallible function of this crate returns it (the `try_*`
/// functions that take the caller's fallible RNG return that RNG's error instead; see the
/// crate docs, section "Errors"). Every check of FIPS 203 §7.2 and FIPS 203 §7.3 has its
/// own variant; with the `getrandom` feature [`Error::Rng`] names a failed OS RNG, with
/// `pkcs8` [`Error::KeyFile`] what was wrong with a key file. No function of this crate
/// panics on malformed input.
///
/// ```
/// # #[cfg(feature = "getrandom")] {
/// use lazykem::ml_kem_768::{Ciphertext, DecapsulationKey, EncapsulationKey};
///
/// // `?` takes every error of the crate into `lazykem::Error`, the OS RNG's included.
/// fn round_trip(peer_key: &[u8]) -> Result<Ciphertext, lazykem::Error> {
///     let ek = EncapsulationKey::from_bytes(peer_key)?;
///     let (ct, _secret) = ek.encapsulate_with_os_rng()?;
///     Ok(ct)
/// }
/// let dk = DecapsulationKey::generate_with_os_rng().unwrap();
/// assert!(round_trip(dk.encapsulation_key().as_bytes()).is_ok());
/// let err = round_trip(&[0; 5]).unwrap_err();
/// assert_eq!(err.to_string(), "encapsulation key is 5 bytes, expected 1184");
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// An encapsulation key of the wrong length (FIPS 203 §7.2, type check).
    EncapsulationKeyLength {
        /// The length the parameter set requires.
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// An encapsulation key with a coefficient `>= q` (FIPS 203 §7.2, modulus check).
    EncapsulationKeyNotReduced,
    /// A decapsulation key of the wrong length (FIPS 203 §7.3, type check).
    DecapsulationKeyLength {
        /// The length the parameter set requires.
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// A decapsulation key whose embedded `H(ek)` does not match its embedded encapsulation
    /// key (FIPS 203 §7.3, hash check).
    DecapsulationKeyHashMismatch,
    /// A decapsulation key whose private part does not belong to its public key: the
    /// opt-in pairwise-consistency check of
    /// [`crate::DecapsulationKey::from_expanded_bytes_checked`] failed (an altered s-hat whose
    /// H(ek) is intact passes FIPS 203 §7.3 and fails here).
    DecapsulationKeyInconsistent,
    /// A ciphertext of the wrong length (FIPS 203 §7.3, ciphertext type check).
    CiphertextLength {
        /// The length the parameter set requires.
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// A self-test failed (feature `self-test`, [`crate::self_test`]): a known answer did
    /// not match, now or earlier in this process, or a new key failed its
    /// pairwise-consistency test. The library refuses to work from then on.
    SelfTestFailed,
    /// A private-key seed `d || z` that is not 64 bytes long.
    SeedLength {
        /// Always 64.
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// The operating system's random number generator failed (feature `getrandom`:
    /// `generate_with_os_rng`, `encapsulate_with_os_rng`, the encrypted key-file writers
    /// without an RNG argument). Carries `getrandom`'s error (its OS error code, if any).
    #[cfg(feature = "getrandom")]
    Rng(getrandom::Error),
    /// A key file (PKCS#8, SPKI, PEM; feature `pkcs8`) is malformed, of another algorithm or
    /// kind, or cannot be decrypted or written: [`crate::pkcs8::KeyFileError`] says which.
    /// A key that a file carries well but that fails a check of FIPS 203 is reported by
    /// that check's own variant (for instance [`Error::EncapsulationKeyNotReduced`]).
    #[cfg(feature = "pkcs8")]
    KeyFile(crate::pkcs8::KeyFileError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EncapsulationKeyLength { expected, actual } => {
                write!(
                    f,
                    "encapsulation key is {actual} bytes, expected {expected}"
                )
            }
            Self::EncapsulationKeyNotReduced => f.write_str(
                "encapsulation key has a coefficient not reduced modulo q (FIPS 203 section 7.2)",
            ),
            Self::DecapsulationKeyLength { expected, actual } => {
                write!(
                    f,
                    "decapsulation key is {actual} bytes, expected {expected}"
                )
            }
            Self::DecapsulationKeyHashMismatch => f.write_str(
                "decapsulation key's embedded H(ek) does not match its encapsulation key \
                 (FIPS 203 section 7.3)",
            ),
            Self::DecapsulationKeyInconsistent => f.write_str(
                "decapsulation key's private part does not match its encapsulation key \
                 (pairwise-consistency check)",
            ),
            Self::CiphertextLength { expected, actual } => {
                write!(f, "ciphertext is {actual} bytes, expected {expected}")
            }
            Self::SelfTestFailed => f.write_str(
                "a self-test failed (known answer or pairwise consistency): the library is in \
                 its error state",
            ),
            Self::SeedLength { expected, actual } => {
                write!(f, "private key seed is {actual} bytes, expected {expected}")
            }
            #[cfg(feature = "getrandom")]
            Self::Rng(e) => write!(
                f,
                "the operating system's random number generator failed: {e}"
            ),
            #[cfg(feature = "pkcs8")]
            Self::KeyFile(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl core::error::Error for Error {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        #[cfg(feature = "getrandom")]
        if let Self::Rng(e) = self {
            return Some(e);
        }
        #[cfg(feature = "pkcs8")]
        if let Self::KeyFile(e) = self {
            return e.source();
        }
        None
    }
}

/// The OS RNG's failure, so that `?` takes it into this crate's error (for instance from
/// `try_generate(&mut getrandom::SysRng)`).
#[cfg(feature = "getrandom")]
impl From<getrandom::Error> for Error {
    fn from(e: getrandom::Error) -> Self {
        Self::Rng(e)
    }
}

#[cfg(feature = "pkcs8")]
impl From<crate::pkcs8::KeyFileError> for Error {
    fn from(e: crate::pkcs8::KeyFileError) -> Self {
        Self::KeyFile(e)
    }
}
