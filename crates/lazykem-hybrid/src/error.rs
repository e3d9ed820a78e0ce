//! [`Error`]: why an operation of this crate failed.

use core::fmt;

/// What a length error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Part {
    /// An encapsulation key (public key).
    EncapsulationKey,
    /// A decapsulation key (the 32-byte seed).
    DecapsulationKey,
    /// A ciphertext.
    Ciphertext,
    /// The randomness of a deterministic encapsulation.
    Randomness,
    /// A group element (an encoded point).
    Element,
    /// A group scalar (a private key of the group alone).
    Scalar,
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::EncapsulationKey => "encapsulation key",
            Self::DecapsulationKey => "decapsulation key",
            Self::Ciphertext => "ciphertext",
            Self::Randomness => "encapsulation randomness",
            Self::Element => "group element",
            Self::Scalar => "group scalar",
        })
    }
}

/// Why an operation failed: every fallible function of this crate returns it, except the
/// `try_*` functions that take the caller's fallible RNG and return that RNG's error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// An input of the wrong length.
    Length {
        /// The hybrid KEM or group ("MLKEM768-P256", "P-256", ...).
        kem: &'static str,
        /// What the input is.
        part: Part,
        /// The length required (for randomness: the largest accepted).
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// The ML-KEM part of an encapsulation key fails the check of FIPS 203 §7.2.
    MlKem(lazykem::Error),
    /// An encoded point that is not a point of the group: not the uncompressed SEC1 form
    /// (`0x04 || X || Y`), a coordinate not below the field prime, or not on the curve. The
    /// point at infinity has no uncompressed encoding, so it is refused here too.
    InvalidElement {
        /// The group ("P-256", "P-384").
        group: &'static str,
    },
    /// A scalar encoding that is zero or not below the group order.
    InvalidScalar {
        /// The group ("P-256", "P-384").
        group: &'static str,
    },
    /// `RandomScalar` found no scalar in its seed: every chunk was zero or not below the group
    /// order (draft-irtf-cfrg-concrete-hybrid-kems §3.1.1; probability below 2^-128 for a
    /// uniform seed).
    ScalarRejected {
        /// The group ("P-256", "P-384").
        group: &'static str,
    },
    /// The operating system's random number generator failed (feature `getrandom`).
    #[cfg(feature = "getrandom")]
    Rng(getrandom::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Length {
                kem,
                part,
                expected,
                actual,
            } => write!(f, "{kem} {part} is {actual} bytes, expected {expected}"),
            Self::MlKem(e) => write!(f, "hybrid encapsulation key: {e}"),
            Self::InvalidElement { group } => {
                write!(f, "not an uncompressed {group} point on the curve")
            }
            Self::InvalidScalar { group } => {
                write!(f, "{group} scalar is zero or not below the group order")
            }
            Self::ScalarRejected { group } => {
                write!(f, "the seed holds no valid {group} scalar")
            }
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

/// A length check: `bytes` as an array of `N`, or [`Error::Length`].
pub(crate) fn array<'a, const N: usize>(
    kem: &'static str,
    part: Part,
    bytes: &'a [u8],
) -> Result<&'a [u8; N], Error> {
    bytes.try_into().map_err(|_| Error::Length {
        kem,
        part,
        expected: N,
        actual: bytes.len(),
    })
}
