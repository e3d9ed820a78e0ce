//! The crate's one error type.

use crate::{AeadId, KemId};
use core::fmt;

/// Why an operation failed. Every fallible function of the crate returns it; the variants
/// name the check that failed, and none of them carries secret data.
///
/// The HPKE errors of `HPKE §8.2` map to: `DeserializeError` -> the `*Length` variants,
/// [`Error::InvalidPublicKey`], [`Error::InvalidPrivateKey`],
/// [`Error::InvalidEncapsulatedKey`]; `ValidationError` -> [`Error::Validation`];
/// `OpenError` -> [`Error::Open`]; `MessageLimitReachedError` ->
/// [`Error::MessageLimitReached`]; `DeriveKeyPairError` -> [`Error::DeriveKeyPair`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A KEM identifier that HPKE does not define (or this crate does not know).
    UnknownKem(u16),
    /// A KDF identifier that HPKE does not define (or this crate does not know).
    UnknownKdf(u16),
    /// An AEAD identifier that HPKE does not define (or this crate does not know).
    UnknownAead(u16),
    /// A KEM this build cannot run: DHKEM(X448) without the `x448` feature.
    UnsupportedKem(KemId),
    /// A key of one KEM given to a suite (or operation) of another.
    KemMismatch {
        /// The suite's KEM.
        expected: KemId,
        /// The key's KEM.
        actual: KemId,
    },
    /// An encoded public key of the wrong length (`Npk`).
    PublicKeyLength {
        /// The KEM's `Npk`.
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// A public key of the right length that the KEM rejects: a NIST curve point not in the
    /// uncompressed form, with a coordinate `>= p`, not on the curve or the identity
    /// (`HPKE §7.1.4`); an ML-KEM key (or a hybrid key's ML-KEM part) with a coefficient
    /// `>= q` (FIPS 203 §7.2); a hybrid key whose NIST point fails those checks.
    InvalidPublicKey,
    /// An encoded private key of the wrong length (`Nsk`).
    PrivateKeyLength {
        /// The KEM's `Nsk`.
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// A private key of the right length that the KEM rejects: a NIST curve scalar that is
    /// zero or not below the group order (`HPKE §7.1.2`); a hybrid KEM seed whose expansion
    /// holds no NIST scalar (probability below 2^-128).
    InvalidPrivateKey,
    /// An encapsulated key `enc` of the wrong length (`Nenc`).
    EncapsulatedKeyLength {
        /// The KEM's `Nenc`.
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// An encapsulated key of the right length that the KEM rejects: a DHKEM `enc`, or the
    /// NIST part of a hybrid `enc`, that is not a valid point (as for
    /// [`Error::InvalidPublicKey`]).
    InvalidEncapsulatedKey,
    /// `ValidationError` (`HPKE §7.1.4`): an X25519 or X448 Diffie-Hellman output of all
    /// zeros (a low-order public key or `enc`).
    Validation,
    /// `DeriveKeyPairError` (`HPKE §7.1.3`): 256 rejected candidates in a NIST-curve
    /// DHKEM `DeriveKeyPair` (probability about 2^-8192 for P-256), or a hybrid KEM seed (or
    /// deterministic encapsulation randomness) holding no NIST scalar (below 2^-128).
    DeriveKeyPair,
    /// Deterministic encapsulation (feature `hazmat`) given randomness of the wrong length.
    RandomnessLength {
        /// The length the KEM draws.
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// PSK mode with both `psk` and `psk_id` empty (`HPKE §5.1`, `VerifyPSKInputs`:
    /// "Missing required PSK input").
    MissingPsk,
    /// PSK mode with exactly one of `psk` and `psk_id` empty (`HPKE §5.1`,
    /// `VerifyPSKInputs`: "Inconsistent PSK inputs").
    InconsistentPsk,
    /// An input longer than a one-stage KDF can length-prefix (`HPKE §7.2.1`: `psk`,
    /// `psk_id` and `info` at most 65,535 bytes).
    InputTooLong {
        /// Which input: `"psk"`, `"psk_id"` or `"info"`.
        input: &'static str,
        /// The limit (65,535).
        max: usize,
        /// The length given.
        actual: usize,
    },
    /// An export length above the KDF's bound: `255 * Nh` for HKDF (`HPKE §5.3`), 65,535
    /// for a one-stage KDF (`I2OSP(L, 2)` in `LabeledDerive`, `HPKE §4.4`).
    ExportLength {
        /// The KDF's bound.
        max: usize,
        /// The length asked for.
        actual: usize,
    },
    /// `OpenError` (`HPKE §5.2`): the ciphertext or its associated data is not what was
    /// sealed (or is shorter than the 16-byte tag). The sequence number does not advance.
    Open,
    /// `MessageLimitReachedError` (`HPKE §5.2`): the context has used every sequence number
    /// (`2^96 - 1` messages). It never wraps.
    MessageLimitReached,
    /// A plaintext longer than the AEAD's `P_MAX` (`HPKE §5.2`: `2^36 - 31` bytes for
    /// AES-GCM, `2^38 - 64` for ChaCha20-Poly1305).
    MessageTooLong {
        /// The AEAD's `P_MAX`.
        max: u64,
        /// The length given.
        actual: u64,
    },
    /// `Seal` or `Open` on a context of the export-only AEAD (0xFFFF), which has no key.
    ExportOnly(AeadId),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownKem(id) => write!(f, "unknown HPKE KEM identifier {id:#06x}"),
            Self::UnknownKdf(id) => write!(f, "unknown HPKE KDF identifier {id:#06x}"),
            Self::UnknownAead(id) => write!(f, "unknown HPKE AEAD identifier {id:#06x}"),
            Self::UnsupportedKem(kem) => write!(f, "{kem} is not available in this build"),
            Self::KemMismatch { expected, actual } => {
                write!(f, "a {actual} key given to a {expected} suite")
            }
            Self::PublicKeyLength { expected, actual } => {
                write!(f, "public key is {actual} bytes, expected {expected}")
            }
            Self::InvalidPublicKey => f.write_str("public key rejected by the KEM's checks"),
            Self::PrivateKeyLength { expected, actual } => {
                write!(f, "private key is {actual} bytes, expected {expected}")
            }
            Self::InvalidPrivateKey => f.write_str("private key rejected by the KEM's checks"),
            Self::EncapsulatedKeyLength { expected, actual } => {
                write!(f, "encapsulated key is {actual} bytes, expected {expected}")
            }
            Self::InvalidEncapsulatedKey => {
                f.write_str("encapsulated key rejected by the KEM's checks")
            }
            Self::Validation => f.write_str("Diffie-Hellman output is all zeros"),
            Self::DeriveKeyPair => f.write_str("DeriveKeyPair rejected every candidate"),
            Self::RandomnessLength { expected, actual } => {
                write!(
                    f,
                    "encapsulation randomness is {actual} bytes, expected {expected}"
                )
            }
            Self::MissingPsk => f.write_str("PSK mode needs a non-empty psk and psk_id"),
            Self::InconsistentPsk => {
                f.write_str("psk and psk_id must be both empty or both non-empty")
            }
            Self::InputTooLong { input, max, actual } => {
                write!(f, "{input} is {actual} bytes, at most {max} allowed")
            }
            Self::ExportLength { max, actual } => {
                write!(f, "export of {actual} bytes asked, at most {max} allowed")
            }
            Self::Open => f.write_str("AEAD decryption failed"),
            Self::MessageLimitReached => f.write_str("the context's sequence numbers are used up"),
            Self::MessageTooLong { max, actual } => {
                write!(f, "plaintext is {actual} bytes, at most {max} allowed")
            }
            Self::ExportOnly(aead) => write!(f, "{aead} contexts can only export"),
        }
    }
}

impl core::error::Error for Error {}
