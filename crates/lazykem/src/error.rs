//! The one error type of the crate.

use core::fmt;

/// Why an input was rejected. Every check of FIPS 203 §7.2 and FIPS 203 §7.3 has its own
/// variant; no function of this crate panics on malformed input.
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
        }
    }
}

impl core::error::Error for Error {}
