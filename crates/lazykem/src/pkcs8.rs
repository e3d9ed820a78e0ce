//! Key files: PKCS#8 private keys and SPKI public keys in the IETF LAMPS ML-KEM format
//! (draft-ietf-lamps-kyber-certificates), DER with the `pkcs8` feature, PEM with `pem`,
//! password-encrypted PKCS#8 with `encryption`.
//!
//! Algorithm identifiers: `id-alg-ml-kem-512` / `-768` / `-1024` = 2.16.840.1.101.3.4.4.1 /
//! .2 / .3, parameters absent ([`AssociatedOid`] on [`crate::MlKem512`] and so on,
//! [`AssociatedAlgorithmIdentifier`] on the sets and the key types). The public key (SPKI)
//! is the raw encapsulation key in the BIT STRING. The private key is a CHOICE, told apart
//! by its tag:
//! - `seed [0] OCTET STRING (SIZE (64))` (the RECOMMENDED form, written by default);
//! - `expandedKey OCTET STRING`, the FIPS 203 `dk`, which must pass the hash check;
//! - `both SEQUENCE { seed, expandedKey }`, rejected when the two disagree.
//!
//! # Functions
//! Each inherent function has the name of the RustCrypto `pkcs8` / `spki` trait method it
//! stands for and returns [`crate::Error`], whose [`crate::Error::KeyFile`] says what was
//! wrong with the file ([`KeyFileError`]: the OID found and the one expected, the PEM label
//! found and the one expected, ...) and whose other variants name the FIPS 203 check a key
//! failed. The same functions exist on [`DecapsulationKey`] / [`EncapsulationKey`] (one
//! parameter set, checked) and on [`AnyDecapsulationKey`] / [`AnyEncapsulationKey`] (the
//! set read from the file).
//!
//! [The crate docs](crate#key-files) list every function with its format and feature.
//!
//! The RustCrypto traits are implemented too, for code generic over them: [`DecodePrivateKey`]
//! (through `TryFrom<PrivateKeyInfoRef>`), [`EncodePrivateKey`], [`DecodePublicKey`]
//! (through `TryFrom<SubjectPublicKeyInfoRef>`) and [`EncodePublicKey`], on the typed and the
//! `Any` keys; their errors are `pkcs8::Error` / `spki::Error` (a key of another algorithm is
//! `OidUnknown { oid }` with the OID found, as RustCrypto `ml-kem` answers). On a key type,
//! a method call picks the inherent function (inherent methods win method resolution); a
//! trait's own is reached by path (`<DecapsulationKey<P> as DecodePrivateKey>::from_pkcs8_der`).
//! The trait writers that use the OS RNG (`EncodePrivateKey::to_pkcs8_encrypted_der`) exist
//! when `pkcs8`'s own `getrandom` feature is on, which this crate's `getrandom` turns on.
//!
//! Encrypted keys: the inherent readers check the key derivation's cost before deriving
//! ([`KeyFileError::KdfCost`]: at most [`MAX_PBKDF2_ITERATIONS`] PBKDF2 iterations, scrypt
//! with at most [`MAX_SCRYPT_MEMORY`] and [`MAX_SCRYPT_PARALLELIZATION`]), so a hostile file
//! cannot make a read take hours or gigabytes. The trait's `from_pkcs8_encrypted_der` is
//! `pkcs8`'s own (a blanket implementation) and has no such limit (and `pkcs5` 0.8.1 panics
//! on a scrypt N of 0): read untrusted files with the inherent functions.
//!
//! ```
//! use lazykem::ml_kem_768::{DecapsulationKey, EncapsulationKey};
//!
//! let dk = DecapsulationKey::from_seed(&[7; 64]);
//! let private = dk.to_pkcs8_der()?; // the seed form
//! let public = dk.encapsulation_key().to_public_key_der()?;
//!
//! let dk2 = DecapsulationKey::from_pkcs8_der(private.as_bytes())?;
//! let ek2 = EncapsulationKey::from_public_key_der(public.as_bytes())?;
//! assert_eq!(dk2.encapsulation_key(), &ek2);
//!
//! // A key of another parameter set names both algorithms.
//! let err = lazykem::ml_kem_512::DecapsulationKey::from_pkcs8_der(private.as_bytes());
//! assert_eq!(
//!     err.unwrap_err().to_string(),
//!     "key is id-alg-ml-kem-768 (2.16.840.1.101.3.4.4.2), \
//!      expected id-alg-ml-kem-512 (2.16.840.1.101.3.4.4.1)"
//! );
//! # Ok::<(), lazykem::Error>(())
//! ```
//!
//! Reading needs no RNG and no `std`: `encryption` reads encrypted keys in `no_std` +
//! `alloc`. Every parser rejects malformed input with an error (fuzzed by
//! `fuzz/fuzz_targets/pkcs8.rs`); none panics.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;

use crate::{
    DecapsulationKey, EncapsulationKey, Error, MlKem512, MlKem768, MlKem1024, ParameterSet,
};
use ::pkcs8::der::asn1::{BitStringRef, ContextSpecific, OctetStringRef};
use ::pkcs8::der::{self, AnyRef, Decode, Encode, Reader, SliceReader, Tag, TagMode, TagNumber};
use ::pkcs8::spki::{self, AlgorithmIdentifierRef, SubjectPublicKeyInfoRef};
use ::pkcs8::{KeyError, PrivateKeyInfoRef};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

pub use ::pkcs8::spki::{AssociatedAlgorithmIdentifier, DecodePublicKey, EncodePublicKey};
pub use ::pkcs8::{
    AssociatedOid, DecodePrivateKey, Document, EncodePrivateKey, ObjectIdentifier, SecretDocument,
};

#[cfg(feature = "pem")]
use crate::LineEnding;
#[cfg(feature = "pem")]
use alloc::string::String;

/// `id-alg-ml-kem-512` (2.16.840.1.101.3.4.4.1).
pub const ID_ALG_ML_KEM_512: ObjectIdentifier =
    ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.4.1");
/// `id-alg-ml-kem-768` (2.16.840.1.101.3.4.4.2).
pub const ID_ALG_ML_KEM_768: ObjectIdentifier =
    ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.4.2");
/// `id-alg-ml-kem-1024` (2.16.840.1.101.3.4.4.3).
pub const ID_ALG_ML_KEM_1024: ObjectIdentifier =
    ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.4.3");

/// The PEM label of a PKCS#8 `PrivateKeyInfo` (RFC 7468).
#[cfg(feature = "pem")]
pub const PRIVATE_KEY_LABEL: &str = "PRIVATE KEY";
/// The PEM label of a PKCS#8 `EncryptedPrivateKeyInfo` (RFC 7468).
#[cfg(feature = "pem")]
pub const ENCRYPTED_PRIVATE_KEY_LABEL: &str = "ENCRYPTED PRIVATE KEY";
/// The PEM label of a `SubjectPublicKeyInfo` (RFC 7468).
#[cfg(feature = "pem")]
pub const PUBLIC_KEY_LABEL: &str = "PUBLIC KEY";

macro_rules! algorithm {
    ($set:ty, $oid:expr) => {
        impl AssociatedOid for $set {
            const OID: ObjectIdentifier = $oid;
        }

        /// The OID, parameters absent.
        impl AssociatedAlgorithmIdentifier for $set {
            type Params = AnyRef<'static>;

            const ALGORITHM_IDENTIFIER: AlgorithmIdentifierRef<'static> = AlgorithmIdentifierRef {
                oid: $oid,
                parameters: None,
            };
        }
    };
}

algorithm!(MlKem512, ID_ALG_ML_KEM_512);
algorithm!(MlKem768, ID_ALG_ML_KEM_768);
algorithm!(MlKem1024, ID_ALG_ML_KEM_1024);

/// The parameter set's algorithm identifier.
impl<P: ParameterSet> AssociatedAlgorithmIdentifier for EncapsulationKey<P> {
    type Params = AnyRef<'static>;

    const ALGORITHM_IDENTIFIER: AlgorithmIdentifierRef<'static> = P::ALGORITHM_IDENTIFIER;
}

/// The parameter set's algorithm identifier.
impl<P: ParameterSet> AssociatedAlgorithmIdentifier for DecapsulationKey<P> {
    type Params = AnyRef<'static>;

    const ALGORITHM_IDENTIFIER: AlgorithmIdentifierRef<'static> = P::ALGORITHM_IDENTIFIER;
}

/// The `[0]` tag of the seed form.
const SEED_TAG: TagNumber = TagNumber(0);

/// Which form of the private-key CHOICE to write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum PrivateKeyForm {
    /// `seed [0]`: the 64-byte seed `d || z` (the RECOMMENDED form; the default).
    #[default]
    Seed,
    /// `expandedKey`: the FIPS 203 expanded decapsulation key.
    ExpandedKey,
    /// `both`: the seed and the expanded key.
    Both,
}

/// What was wrong with a key file, in [`crate::Error::KeyFile`].
///
/// ```
/// # #[cfg(feature = "encryption")] {
/// use lazykem::pkcs8::{KeyFileError, PrivateKeyForm};
/// use lazykem::{Error, LineEnding, ml_kem_768::DecapsulationKey};
///
/// let dk = DecapsulationKey::from_seed(&[1; 64]);
/// let rng = &mut rand::rng();
/// let file = dk.to_pkcs8_encrypted_pem_as(PrivateKeyForm::Seed, rng, "pw", LineEnding::LF)?;
/// let err = DecapsulationKey::from_pkcs8_pem(&file).unwrap_err();
/// assert!(matches!(err, Error::KeyFile(KeyFileError::PemLabel { .. })));
/// assert_eq!(
///     err.to_string(),
///     "PEM label is `ENCRYPTED PRIVATE KEY`, expected `PRIVATE KEY`: \
///      use from_pkcs8_encrypted_pem"
/// );
/// # }
/// # Ok::<(), lazykem::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyFileError {
    /// Malformed DER or PEM around or inside the key (the `der` crate's error says what and
    /// where).
    Der(der::Error),
    /// A PEM document of another kind (feature `pem`): its label is not the one the
    /// function reads.
    #[cfg(feature = "pem")]
    PemLabel {
        /// The label of the document.
        found: PemLabel,
        /// The label the function reads ([`PRIVATE_KEY_LABEL`] and so on).
        expected: &'static str,
    },
    /// A key of another algorithm, or of another ML-KEM parameter set.
    Algorithm {
        /// The key's algorithm.
        found: ObjectIdentifier,
        /// The parameter set's algorithm; `None` where any ML-KEM set is read (the `Any`
        /// keys).
        expected: Option<ObjectIdentifier>,
    },
    /// The ML-KEM algorithm identifier has parameters; they must be absent.
    AlgorithmParameters {
        /// The key's algorithm.
        oid: ObjectIdentifier,
    },
    /// The private key is none of the CHOICE's forms (its tag is not `[0]`, OCTET STRING
    /// or SEQUENCE, or the SEQUENCE does not hold two OCTET STRINGs).
    UnknownPrivateKeyForm,
    /// A `both` private key whose seed and expanded key are not the same key.
    SeedMismatch,
    /// The optional `publicKey` of a PKCS#8 key is not the key's encapsulation key.
    PublicKeyMismatch,
    /// Writing the `seed` or `both` form of a key imported from its expanded encoding,
    /// which has no seed.
    NoSeed,
    /// Encrypted PKCS#8 (feature `encryption`): decryption failed, a wrong password or a
    /// damaged document (the two cannot be told apart).
    #[cfg(feature = "encryption")]
    Decryption,
    /// Encrypted PKCS#8 (feature `encryption`): the document's encryption scheme, key
    /// derivation or cipher is not supported, or its parameters are not acceptable (PBES2
    /// with PBKDF2-HMAC-SHA2 or scrypt and AES-CBC is read).
    #[cfg(feature = "encryption")]
    EncryptionScheme {
        /// The algorithm refused.
        oid: ObjectIdentifier,
    },
    /// Encrypted PKCS#8 (feature `encryption`): the key derivation would cost more than this
    /// library spends on reading a file (checked before deriving; see
    /// [`MAX_PBKDF2_ITERATIONS`], [`MAX_SCRYPT_MEMORY`], [`MAX_SCRYPT_PARALLELIZATION`]).
    #[cfg(feature = "encryption")]
    KdfCost {
        /// The parameter over its limit.
        parameter: KdfParameter,
        /// Its value in the document (the memory in bytes, saturated at `u64::MAX`).
        value: u64,
        /// The limit.
        limit: u64,
    },
    /// Encrypted PKCS#8 (feature `encryption`): the RNG given to a writer failed (the OS
    /// RNG's failure is [`crate::Error::Rng`]).
    #[cfg(feature = "encryption")]
    EncryptionRng,
    /// Encrypted PKCS#8 (feature `encryption`): encryption failed otherwise.
    #[cfg(feature = "encryption")]
    Encryption,
}

impl fmt::Display for KeyFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Der(e) => write!(f, "malformed key file: {e}"),
            #[cfg(feature = "pem")]
            Self::PemLabel { found, expected } => {
                write!(f, "PEM label is `{found}`, expected `{expected}`")?;
                match pem_hint(found.as_str(), expected) {
                    Some(hint) => write!(f, ": use {hint}"),
                    None => Ok(()),
                }
            }
            Self::Algorithm {
                found,
                expected: Some(expected),
            } => write!(f, "key is {}, expected {}", Named(found), Named(expected)),
            Self::Algorithm {
                found,
                expected: None,
            } => write!(
                f,
                "key is {}, expected an ML-KEM key (id-alg-ml-kem-512, -768 or -1024)",
                Named(found)
            ),
            Self::AlgorithmParameters { oid } => write!(
                f,
                "algorithm identifier {} has parameters (they must be absent)",
                Named(oid)
            ),
            Self::UnknownPrivateKeyForm => {
                f.write_str("the private key is neither a seed [0], an expandedKey nor both")
            }
            Self::SeedMismatch => {
                f.write_str("the private key's seed and expanded key are not the same key")
            }
            Self::PublicKeyMismatch => {
                f.write_str("the PKCS#8 publicKey is not the private key's encapsulation key")
            }
            Self::NoSeed => {
                f.write_str("the key was imported from its expanded form and has no seed to write")
            }
            #[cfg(feature = "encryption")]
            Self::Decryption => f.write_str(
                "cannot decrypt the encrypted PKCS#8 key: wrong password or damaged document",
            ),
            #[cfg(feature = "encryption")]
            Self::EncryptionScheme { oid } => write!(
                f,
                "encrypted PKCS#8 key: algorithm {oid} is not supported or its parameters are \
                 not acceptable"
            ),
            #[cfg(feature = "encryption")]
            Self::KdfCost {
                parameter,
                value,
                limit,
            } => write!(
                f,
                "encrypted PKCS#8 key: {parameter} is {value}, above the limit of {limit} \
                 this library reads"
            ),
            #[cfg(feature = "encryption")]
            Self::EncryptionRng => {
                f.write_str("cannot encrypt the PKCS#8 key: the random number generator failed")
            }
            #[cfg(feature = "encryption")]
            Self::Encryption => f.write_str("cannot encrypt the PKCS#8 key"),
        }
    }
}

impl core::error::Error for KeyFileError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Der(e) => Some(e),
            _ => None,
        }
    }
}

/// The function that reads a PEM document of label `found`, where one of label `expected`
/// was given to another.
#[cfg(feature = "pem")]
fn pem_hint(found: &str, expected: &str) -> Option<&'static str> {
    let public = expected == PUBLIC_KEY_LABEL;
    match found {
        PRIVATE_KEY_LABEL => Some("from_pkcs8_pem"),
        ENCRYPTED_PRIVATE_KEY_LABEL => Some("from_pkcs8_encrypted_pem"),
        PUBLIC_KEY_LABEL if !public => Some("from_public_key_pem"),
        _ => None,
    }
}

/// An OID with its name where it is an ML-KEM set's: `id-alg-ml-kem-768
/// (2.16.840.1.101.3.4.4.2)`; others in dotted form.
struct Named<'a>(&'a ObjectIdentifier);

impl fmt::Display for Named<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match *self.0 {
            ID_ALG_ML_KEM_512 => "id-alg-ml-kem-512",
            ID_ALG_ML_KEM_768 => "id-alg-ml-kem-768",
            ID_ALG_ML_KEM_1024 => "id-alg-ml-kem-1024",
            _ => return write!(f, "{}", self.0),
        };
        write!(f, "{name} ({})", self.0)
    }
}

/// The label of a PEM document as found (`CERTIFICATE`, `ENCRYPTED PRIVATE KEY`, ...), in
/// [`KeyFileError::PemLabel`]: its first 32 bytes, which hold every label of RFC 7468.
/// Feature `pem`.
#[cfg(feature = "pem")]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PemLabel {
    bytes: [u8; Self::CAPACITY],
    len: u8,
    truncated: bool,
}

#[cfg(feature = "pem")]
impl PemLabel {
    const CAPACITY: usize = 32;

    fn new(label: &str) -> Self {
        let mut len = label.len().min(Self::CAPACITY);
        while !label.is_char_boundary(len) {
            len -= 1;
        }
        let mut bytes = [0; Self::CAPACITY];
        bytes[..len].copy_from_slice(&label.as_bytes()[..len]);
        Self {
            bytes,
            len: len as u8,
            truncated: len < label.len(),
        }
    }

    /// The label (its first 32 bytes if it was longer).
    #[must_use]
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }

    /// Whether the label was longer than 32 bytes (and [`Self::as_str`] is its start).
    #[must_use]
    pub const fn is_truncated(&self) -> bool {
        self.truncated
    }
}

#[cfg(feature = "pem")]
impl fmt::Display for PemLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())?;
        if self.truncated {
            f.write_str("...")?;
        }
        Ok(())
    }
}

#[cfg(feature = "pem")]
impl fmt::Debug for PemLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PemLabel({:?})", self.as_str())
    }
}

#[cfg(feature = "pem")]
impl PartialEq<str> for PemLabel {
    fn eq(&self, other: &str) -> bool {
        !self.truncated && self.as_str() == other
    }
}

#[cfg(feature = "pem")]
impl PartialEq<&str> for PemLabel {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

/// [`KeyFileError::Der`] as the crate's error.
fn der_error(e: der::Error) -> Error {
    Error::KeyFile(KeyFileError::Der(e))
}

/// The DER of a PEM document whose label must be `expected`, in a buffer erased on drop.
#[cfg(feature = "pem")]
fn pem_document(pem: &str, expected: &'static str) -> Result<SecretDocument, Error> {
    let label = der::pem::decode_label(pem.as_bytes()).map_err(|e| der_error(e.into()))?;
    if label != expected {
        return Err(Error::KeyFile(KeyFileError::PemLabel {
            found: PemLabel::new(label),
            expected,
        }));
    }
    Ok(SecretDocument::from_pem(pem).map_err(der_error)?.1)
}

/// Checks that `algorithm` is parameter set `P`'s, without parameters.
fn check_algorithm<P: ParameterSet>(algorithm: &AlgorithmIdentifierRef<'_>) -> Result<(), Error> {
    if algorithm.oid != P::OID {
        return Err(Error::KeyFile(KeyFileError::Algorithm {
            found: algorithm.oid,
            expected: Some(P::OID),
        }));
    }
    if algorithm.parameters.is_some() {
        return Err(Error::KeyFile(KeyFileError::AlgorithmParameters {
            oid: algorithm.oid,
        }));
    }
    Ok(())
}

/// [`KeyFileError::Algorithm`] for a key that is no ML-KEM set's (the `Any` keys).
fn not_ml_kem(found: ObjectIdentifier) -> Error {
    Error::KeyFile(KeyFileError::Algorithm {
        found,
        expected: None,
    })
}

/// The `spki` error of a rejected SPKI or PKCS#8 key, for the trait impls: `OidUnknown {
/// oid }` (the OID found) for another algorithm, as RustCrypto `ml-kem` answers; the tag of
/// the parameters for parameters present; `KeyMalformed` for a key that fails a check.
fn spki_error(e: Error, algorithm: &AlgorithmIdentifierRef<'_>) -> spki::Error {
    match e {
        Error::KeyFile(KeyFileError::Der(e)) => spki::Error::Asn1(e),
        Error::KeyFile(KeyFileError::Algorithm { found, .. }) => {
            spki::Error::OidUnknown { oid: found }
        }
        Error::KeyFile(KeyFileError::AlgorithmParameters { .. }) => match algorithm.parameters {
            Some(parameters) => spki::Error::Asn1(
                der::ErrorKind::TagUnexpected {
                    expected: None,
                    actual: der::Tagged::tag(&parameters),
                }
                .into(),
            ),
            None => spki::Error::KeyMalformed,
        },
        _ => spki::Error::KeyMalformed,
    }
}

/// The `pkcs8` error of a rejected PKCS#8 key, for the trait impls: `PublicKey(OidUnknown {
/// oid })` for another algorithm, `ParametersMalformed` for parameters present,
/// `KeyMalformed` for a key that fails a check.
fn pkcs8_error(e: Error) -> ::pkcs8::Error {
    match e {
        Error::KeyFile(KeyFileError::Der(e)) => ::pkcs8::Error::Asn1(e),
        Error::KeyFile(KeyFileError::Algorithm { found, .. }) => {
            ::pkcs8::Error::PublicKey(spki::Error::OidUnknown { oid: found })
        }
        Error::KeyFile(KeyFileError::AlgorithmParameters { .. }) => {
            ::pkcs8::Error::ParametersMalformed
        }
        _ => ::pkcs8::Error::KeyMalformed(KeyError::Invalid),
    }
}

/// The largest PBKDF2 iteration count the encrypted-key readers accept (feature
/// `encryption`): 10,000,000, the count RFC 8018 section 4.2 gives "for especially critical
/// keys". Real files use far fewer: OpenSSL writes 2,048 by default, RustCrypto `pkcs5`'s
/// PBKDF2 default is 600,000 (OWASP's figure for HMAC-SHA-256). A hostile file can ask for
/// up to 2^32 - 1 iterations, hours of HMAC; at this limit a read costs seconds.
#[cfg(feature = "encryption")]
pub const MAX_PBKDF2_ITERATIONS: u32 = 10_000_000;

/// The most memory, `128 * r * N` bytes, that the encrypted-key readers let scrypt use
/// (feature `encryption`): 256 MiB. This crate's writer (RustCrypto `pkcs8`'s recommended
/// parameters, N = 2^14, r = 8) and OpenSSL's `-scrypt` default (the same) use 16 MiB; the
/// `scrypt` crate's recommended N = 2^17, r = 8 uses 128 MiB. A hostile file can ask for
/// N up to 2^63: an allocation that aborts the process, or runs for ever.
#[cfg(feature = "encryption")]
pub const MAX_SCRYPT_MEMORY: u64 = 256 << 20;

/// The largest scrypt parallelization parameter `p` the encrypted-key readers accept
/// (feature `encryption`): 16. Every tool above writes `p = 1`; the time of a derivation
/// grows with `p` times the memory, so with [`MAX_SCRYPT_MEMORY`] a read costs at most
/// 16 passes over 256 MiB (seconds), not the 65,535 a hostile file can ask for.
#[cfg(feature = "encryption")]
pub const MAX_SCRYPT_PARALLELIZATION: u16 = 16;

/// The key-derivation parameter in [`KeyFileError::KdfCost`]. Feature `encryption`.
#[cfg(feature = "encryption")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KdfParameter {
    /// PBKDF2 `iterationCount` (limit [`MAX_PBKDF2_ITERATIONS`]).
    Pbkdf2Iterations,
    /// scrypt memory, `128 * r * N` bytes (limit [`MAX_SCRYPT_MEMORY`]).
    ScryptMemory,
    /// scrypt `parallelizationParameter` p (limit [`MAX_SCRYPT_PARALLELIZATION`]).
    ScryptParallelization,
}

#[cfg(feature = "encryption")]
impl fmt::Display for KdfParameter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Pbkdf2Iterations => "the PBKDF2 iteration count",
            Self::ScryptMemory => "the scrypt memory 128 * r * N (bytes)",
            Self::ScryptParallelization => "the scrypt parallelization p",
        })
    }
}

/// Checks the key derivation of an encrypted key against the limits above, before any
/// work: [`KeyFileError::KdfCost`] over a limit, [`KeyFileError::EncryptionScheme`] for
/// parameters outside their range (a PBKDF2 count of 0, a scrypt N that is not a power of
/// two above 1, on which `pkcs5` 0.8 would panic for N = 0).
#[cfg(feature = "encryption")]
fn check_kdf_cost(scheme: &::pkcs8::pkcs5::EncryptionScheme) -> Result<(), Error> {
    use ::pkcs8::pkcs5::{EncryptionScheme, pbes2};
    let over = |parameter, value, limit| {
        Err(Error::KeyFile(KeyFileError::KdfCost {
            parameter,
            value,
            limit,
        }))
    };
    // PBES1 is refused later, without deriving.
    let EncryptionScheme::Pbes2(params) = scheme else {
        return Ok(());
    };
    match &params.kdf {
        pbes2::Kdf::Pbkdf2(pbkdf2) => {
            if pbkdf2.iteration_count == 0 {
                return Err(Error::KeyFile(KeyFileError::EncryptionScheme {
                    oid: pbes2::PBKDF2_OID,
                }));
            }
            if pbkdf2.iteration_count > MAX_PBKDF2_ITERATIONS {
                return over(
                    KdfParameter::Pbkdf2Iterations,
                    u64::from(pbkdf2.iteration_count),
                    u64::from(MAX_PBKDF2_ITERATIONS),
                );
            }
        }
        pbes2::Kdf::Scrypt(scrypt) => {
            let n = scrypt.cost_parameter;
            if n < 2 || !n.is_power_of_two() {
                return Err(Error::KeyFile(KeyFileError::EncryptionScheme {
                    oid: pbes2::SCRYPT_OID,
                }));
            }
            // At most 2^64 * 2^7 * 2^16: no overflow in u128.
            let memory = u128::from(n) * 128 * u128::from(scrypt.block_size);
            if memory > u128::from(MAX_SCRYPT_MEMORY) {
                return over(
                    KdfParameter::ScryptMemory,
                    u64::try_from(memory).unwrap_or(u64::MAX),
                    MAX_SCRYPT_MEMORY,
                );
            }
            if scrypt.parallelization > MAX_SCRYPT_PARALLELIZATION {
                return over(
                    KdfParameter::ScryptParallelization,
                    u64::from(scrypt.parallelization),
                    u64::from(MAX_SCRYPT_PARALLELIZATION),
                );
            }
        }
        // A derivation a later `pkcs5` adds: its cost is unknown here, so it is refused.
        kdf => {
            return Err(Error::KeyFile(KeyFileError::EncryptionScheme {
                oid: kdf.oid(),
            }));
        }
    }
    Ok(())
}

/// The decrypted `PrivateKeyInfo` of a PBES2 `EncryptedPrivateKeyInfo`, erased on drop. The
/// key derivation's cost is checked first ([`check_kdf_cost`]).
#[cfg(feature = "encryption")]
fn decrypt(der: &[u8], password: impl AsRef<[u8]>) -> Result<SecretDocument, Error> {
    use ::pkcs8::pkcs5;
    let info = ::pkcs8::EncryptedPrivateKeyInfoRef::from_der(der).map_err(der_error)?;
    check_kdf_cost(&info.encryption_algorithm)?;
    info.decrypt(password).map_err(|e| {
        Error::KeyFile(match e {
            ::pkcs8::Error::EncryptedPrivateKey(
                pkcs5::Error::UnsupportedAlgorithm { oid }
                | pkcs5::Error::AlgorithmParametersInvalid { oid },
            ) => KeyFileError::EncryptionScheme { oid },
            ::pkcs8::Error::EncryptedPrivateKey(pkcs5::Error::NoPbes1CryptSupport) => {
                KeyFileError::EncryptionScheme {
                    oid: info.encryption_algorithm.oid(),
                }
            }
            // A wrong password gives a padding error, or now and then a plaintext that
            // is not DER.
            _ => KeyFileError::Decryption,
        })
    })
}

/// An RNG that keeps the error of its inner RNG, so that a writer can tell an RNG failure
/// from another encryption failure (`pkcs8` reports both alike).
#[cfg(feature = "encryption")]
struct Recording<'a, R: rand_core::TryCryptoRng> {
    rng: &'a mut R,
    failure: Option<R::Error>,
}

/// The error [`Recording`] hands on; the real one is kept.
#[cfg(feature = "encryption")]
#[derive(Debug)]
struct RngFailed;

#[cfg(feature = "encryption")]
impl fmt::Display for RngFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the random number generator failed")
    }
}

#[cfg(feature = "encryption")]
impl core::error::Error for RngFailed {}

#[cfg(feature = "encryption")]
impl<R: rand_core::TryCryptoRng> rand_core::TryRng for Recording<'_, R> {
    type Error = RngFailed;

    fn try_next_u32(&mut self) -> Result<u32, RngFailed> {
        let mut bytes = [0; 4];
        self.try_fill_bytes(&mut bytes)?;
        Ok(u32::from_le_bytes(bytes))
    }

    fn try_next_u64(&mut self) -> Result<u64, RngFailed> {
        let mut bytes = [0; 8];
        self.try_fill_bytes(&mut bytes)?;
        Ok(u64::from_le_bytes(bytes))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), RngFailed> {
        self.rng.try_fill_bytes(dst).map_err(|e| {
            self.failure = Some(e);
            RngFailed
        })
    }
}

#[cfg(feature = "encryption")]
impl<R: rand_core::TryCryptoRng> rand_core::TryCryptoRng for Recording<'_, R> {}

/// `plain` (a DER `PrivateKeyInfo`) encrypted with `password` (PBES2: scrypt and
/// AES-256-CBC, `pkcs8`'s recommended parameters, salt and IV from `rng`); the RNG's own
/// error if it failed.
#[cfg(feature = "encryption")]
fn encrypt<R: rand_core::TryCryptoRng>(
    plain: &SecretDocument,
    rng: &mut R,
    password: impl AsRef<[u8]>,
) -> Result<SecretDocument, (Error, Option<R::Error>)> {
    let info = PrivateKeyInfoRef::from_der(plain.as_bytes()).map_err(|e| (der_error(e), None))?;
    let mut recording = Recording { rng, failure: None };
    info.encrypt_with_rng(&mut recording, password)
        .map_err(|_| match recording.failure.take() {
            Some(e) => (Error::KeyFile(KeyFileError::EncryptionRng), Some(e)),
            None => (Error::KeyFile(KeyFileError::Encryption), None),
        })
}

/// [`encrypt`] with the OS RNG: its failure is [`Error::Rng`].
#[cfg(all(feature = "encryption", feature = "getrandom"))]
fn encrypt_with_os_rng(
    plain: &SecretDocument,
    password: impl AsRef<[u8]>,
) -> Result<SecretDocument, Error> {
    encrypt(plain, &mut getrandom::SysRng, password).map_err(|(e, rng)| match rng {
        Some(rng) => Error::Rng(rng),
        None => e,
    })
}

impl<P: ParameterSet> EncapsulationKey<P> {
    /// Parses a DER `SubjectPublicKeyInfo` (the key's algorithm must be `P`'s), with the
    /// checks of [`Self::from_bytes`].
    ///
    /// # Errors
    /// [`Error::KeyFile`]: [`KeyFileError::Der`] for malformed DER,
    /// [`KeyFileError::Algorithm`] for a key of another algorithm or set (naming both),
    /// [`KeyFileError::AlgorithmParameters`]; the errors of [`Self::from_bytes`] for a key
    /// that fails FIPS 203's checks.
    pub fn from_public_key_der(der: &[u8]) -> Result<Self, Error> {
        Self::from_spki(&SubjectPublicKeyInfoRef::from_der(der).map_err(der_error)?)
    }

    /// [`Self::from_public_key_der`] from PEM (label `PUBLIC KEY`).
    ///
    /// ```
    /// use lazykem::ml_kem_768::{DecapsulationKey, EncapsulationKey};
    /// use lazykem::LineEnding;
    ///
    /// let dk = DecapsulationKey::from_seed(&[7; 64]);
    /// let pem = dk.encapsulation_key().to_public_key_pem(LineEnding::LF)?;
    /// assert_eq!(&EncapsulationKey::from_public_key_pem(&pem)?, dk.encapsulation_key());
    ///
    /// let other = lazykem::ml_kem_512::DecapsulationKey::from_seed(&[7; 64]);
    /// let pem = other.encapsulation_key().to_public_key_pem(LineEnding::LF)?;
    /// let err = EncapsulationKey::from_public_key_pem(&pem).unwrap_err();
    /// assert!(err.to_string().starts_with("key is id-alg-ml-kem-512"));
    /// # Ok::<(), lazykem::Error>(())
    /// ```
    ///
    /// # Errors
    /// Those of [`Self::from_public_key_der`]; [`KeyFileError::Der`] for malformed PEM,
    /// [`KeyFileError::PemLabel`] for another label.
    #[cfg(feature = "pem")]
    pub fn from_public_key_pem(pem: &str) -> Result<Self, Error> {
        Self::from_public_key_der(pem_document(pem, PUBLIC_KEY_LABEL)?.as_bytes())
    }

    /// The DER `SubjectPublicKeyInfo` of this key.
    ///
    /// # Errors
    /// [`KeyFileError::Der`] if the encoder fails (it does not for these sizes).
    pub fn to_public_key_der(&self) -> Result<Document, Error> {
        let info = spki::SubjectPublicKeyInfo {
            algorithm: P::ALGORITHM_IDENTIFIER,
            subject_public_key: BitStringRef::from_bytes(self.as_bytes().as_ref())
                .map_err(der_error)?,
        };
        Document::encode_msg(&info).map_err(der_error)
    }

    /// [`Self::to_public_key_der`] in PEM (label `PUBLIC KEY`).
    ///
    /// # Errors
    /// Those of [`Self::to_public_key_der`].
    #[cfg(feature = "pem")]
    pub fn to_public_key_pem(&self, line_ending: LineEnding) -> Result<String, Error> {
        self.to_public_key_der()?
            .to_pem(PUBLIC_KEY_LABEL, line_ending)
            .map_err(der_error)
    }

    fn from_spki(spki: &SubjectPublicKeyInfoRef<'_>) -> Result<Self, Error> {
        check_algorithm::<P>(&spki.algorithm)?;
        let bytes = spki.subject_public_key.as_bytes().ok_or_else(|| {
            der_error(
                der::ErrorKind::Length {
                    tag: Tag::BitString,
                }
                .into(),
            )
        })?;
        Self::from_bytes(bytes)
    }
}

impl<P: ParameterSet> TryFrom<SubjectPublicKeyInfoRef<'_>> for EncapsulationKey<P> {
    type Error = spki::Error;

    /// Errors: `OidUnknown { oid }` (the OID found) for a key of another algorithm or
    /// parameter set, `KeyMalformed` for a key that fails FIPS 203 §7.2 (the inherent
    /// [`EncapsulationKey::from_public_key_der`] names the check), `Asn1` for malformed DER.
    fn try_from(spki: SubjectPublicKeyInfoRef<'_>) -> Result<Self, spki::Error> {
        Self::from_spki(&spki).map_err(|e| spki_error(e, &spki.algorithm))
    }
}

impl<P: ParameterSet> EncodePublicKey for EncapsulationKey<P> {
    fn to_public_key_der(&self) -> spki::Result<Document> {
        EncapsulationKey::to_public_key_der(self).map_err(|e| match e {
            Error::KeyFile(KeyFileError::Der(e)) => spki::Error::Asn1(e),
            _ => spki::Error::KeyMalformed,
        })
    }
}

impl<P: ParameterSet> DecapsulationKey<P> {
    /// Parses a DER PKCS#8 `PrivateKeyInfo` (the algorithm must be `P`'s) in any of the
    /// three forms; a `both` key is regenerated from its seed and must equal its expanded
    /// key, an `expandedKey` passes the hash check of [`Self::from_expanded_bytes`].
    ///
    /// ```
    /// use lazykem::ml_kem_512::DecapsulationKey;
    /// use lazykem::pkcs8::{KeyFileError, PrivateKeyForm};
    ///
    /// let dk = DecapsulationKey::from_seed(&[3; 64]);
    /// let der = dk.to_pkcs8_der_as(PrivateKeyForm::Both)?;
    /// assert!(DecapsulationKey::from_pkcs8_der(der.as_bytes()).is_ok());
    /// assert!(matches!(
    ///     DecapsulationKey::from_pkcs8_der(&der.as_bytes()[1..]),
    ///     Err(lazykem::Error::KeyFile(KeyFileError::Der(_)))
    /// ));
    /// # Ok::<(), lazykem::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::KeyFile`] naming what was wrong with the file ([`KeyFileError`]); the
    /// errors of [`Self::from_seed_bytes`] / [`Self::from_expanded_bytes`] for a key that
    /// fails FIPS 203's checks.
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, Error> {
        Self::from_private_key_info(&PrivateKeyInfoRef::from_der(der).map_err(der_error)?)
    }

    /// [`Self::from_pkcs8_der`] from PEM (label `PRIVATE KEY`).
    ///
    /// ```
    /// use lazykem::ml_kem_768::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::from_seed(&[7; 64]);
    /// let pem = dk.to_pkcs8_pem(lazykem::LineEnding::LF)?;
    /// let again = DecapsulationKey::from_pkcs8_pem(&pem)?;
    /// assert_eq!(again.encapsulation_key(), dk.encapsulation_key());
    /// # Ok::<(), lazykem::Error>(())
    /// ```
    ///
    /// # Errors
    /// Those of [`Self::from_pkcs8_der`]; [`KeyFileError::Der`] for malformed PEM,
    /// [`KeyFileError::PemLabel`] for another label (an encrypted key's names
    /// [`Self::from_pkcs8_encrypted_pem`]).
    #[cfg(feature = "pem")]
    pub fn from_pkcs8_pem(pem: &str) -> Result<Self, Error> {
        Self::from_pkcs8_der(pem_document(pem, PRIVATE_KEY_LABEL)?.as_bytes())
    }

    /// Reads a password-encrypted PKCS#8 key (`EncryptedPrivateKeyInfo`, PBES2, as OpenSSL
    /// writes it), in any of the three private forms. Needs no RNG and no `std`. Feature
    /// `encryption`.
    ///
    /// ```
    /// use lazykem::ml_kem_768::DecapsulationKey;
    /// use lazykem::pkcs8::{KeyFileError, PrivateKeyForm};
    ///
    /// let dk = DecapsulationKey::from_seed(&[7; 64]);
    /// let both = dk.to_pkcs8_encrypted_der_as(PrivateKeyForm::Both, &mut rand::rng(), "pw")?;
    /// let again = DecapsulationKey::from_pkcs8_encrypted_der(both.as_bytes(), "pw")?;
    /// assert_eq!(again.seed(), dk.seed());
    /// assert_eq!(
    ///     DecapsulationKey::from_pkcs8_encrypted_der(both.as_bytes(), "wrong").err(),
    ///     Some(lazykem::Error::KeyFile(KeyFileError::Decryption))
    /// );
    /// # Ok::<(), lazykem::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`KeyFileError::Der`] for a malformed document, [`KeyFileError::Decryption`] if
    /// decryption fails (a wrong password among others), [`KeyFileError::EncryptionScheme`]
    /// for an unsupported scheme, [`KeyFileError::KdfCost`] for a key derivation over the
    /// limits ([`MAX_PBKDF2_ITERATIONS`], [`MAX_SCRYPT_MEMORY`],
    /// [`MAX_SCRYPT_PARALLELIZATION`], checked before deriving); those of
    /// [`Self::from_pkcs8_der`] for the decrypted key.
    #[cfg(feature = "encryption")]
    pub fn from_pkcs8_encrypted_der(der: &[u8], password: impl AsRef<[u8]>) -> Result<Self, Error> {
        Self::from_pkcs8_der(decrypt(der, password)?.as_bytes())
    }

    /// [`Self::from_pkcs8_encrypted_der`] from PEM (label `ENCRYPTED PRIVATE KEY`). Features
    /// `encryption` and `pem`.
    ///
    /// ```
    /// use lazykem::ml_kem_768::DecapsulationKey;
    /// use lazykem::{LineEnding, pkcs8::PrivateKeyForm};
    ///
    /// let dk = DecapsulationKey::from_seed(&[7; 64]);
    /// let rng = &mut rand::rng();
    /// let file = dk.to_pkcs8_encrypted_pem_as(PrivateKeyForm::Seed, rng, "pw", LineEnding::LF)?;
    /// let again = DecapsulationKey::from_pkcs8_encrypted_pem(&file, "pw")?;
    /// assert_eq!(again.encapsulation_key(), dk.encapsulation_key());
    /// # Ok::<(), lazykem::Error>(())
    /// ```
    ///
    /// # Errors
    /// Those of [`Self::from_pkcs8_encrypted_der`]; [`KeyFileError::Der`] for malformed PEM,
    /// [`KeyFileError::PemLabel`] for another label (a plain key's names
    /// [`Self::from_pkcs8_pem`]).
    #[cfg(all(feature = "encryption", feature = "pem"))]
    pub fn from_pkcs8_encrypted_pem(pem: &str, password: impl AsRef<[u8]>) -> Result<Self, Error> {
        Self::from_pkcs8_encrypted_der(
            pem_document(pem, ENCRYPTED_PRIVATE_KEY_LABEL)?.as_bytes(),
            password,
        )
    }

    /// The form the writers without a form argument use: the seed, or the expanded key for
    /// a key without a seed.
    fn default_form(&self) -> PrivateKeyForm {
        if self.seed().is_some() {
            PrivateKeyForm::Seed
        } else {
            PrivateKeyForm::ExpandedKey
        }
    }

    /// The DER PKCS#8 `PrivateKeyInfo` of this key in the seed form (the expanded form for
    /// a key imported without a seed), in a buffer erased on drop.
    ///
    /// # Errors
    /// [`KeyFileError::Der`] if the encoder fails (it does not for these sizes).
    pub fn to_pkcs8_der(&self) -> Result<SecretDocument, Error> {
        self.to_pkcs8_der_as(self.default_form())
    }

    /// The DER PKCS#8 `PrivateKeyInfo` of this key in the given form, in a buffer erased on
    /// drop.
    ///
    /// # Errors
    /// [`KeyFileError::NoSeed`] for the seed and `both` forms of a key imported from its
    /// expanded encoding.
    pub fn to_pkcs8_der_as(&self, form: PrivateKeyForm) -> Result<SecretDocument, Error> {
        let seed = || {
            self.seed()
                .map(|s| Zeroizing::new(*s.as_bytes()))
                .ok_or(Error::KeyFile(KeyFileError::NoSeed))
        };
        let inner: Zeroizing<Vec<u8>> = Zeroizing::new(match form {
            PrivateKeyForm::Seed => {
                let seed = seed()?;
                ContextSpecific {
                    tag_number: SEED_TAG,
                    tag_mode: TagMode::Implicit,
                    value: OctetStringRef::new(seed.as_ref()).map_err(der_error)?,
                }
                .to_der()
                .map_err(der_error)?
            }
            PrivateKeyForm::ExpandedKey => {
                let expanded = self.to_expanded_bytes();
                OctetStringRef::new(expanded.as_ref())
                    .and_then(|octets| octets.to_der())
                    .map_err(der_error)?
            }
            PrivateKeyForm::Both => {
                let seed = seed()?;
                let expanded = self.to_expanded_bytes();
                let both: [&OctetStringRef; 2] = [
                    OctetStringRef::new(seed.as_ref()).map_err(der_error)?,
                    OctetStringRef::new(expanded.as_ref()).map_err(der_error)?,
                ];
                both.as_slice().to_vec().to_der().map_err(der_error)?
            }
        });
        let private_key = OctetStringRef::new(&inner).map_err(der_error)?;
        let info = PrivateKeyInfoRef::new(P::ALGORITHM_IDENTIFIER, private_key);
        SecretDocument::encode_msg(&info).map_err(der_error)
    }

    /// [`Self::to_pkcs8_der`] in PEM (label `PRIVATE KEY`), erased on drop.
    ///
    /// # Errors
    /// Those of [`Self::to_pkcs8_der`].
    #[cfg(feature = "pem")]
    pub fn to_pkcs8_pem(&self, line_ending: LineEnding) -> Result<Zeroizing<String>, Error> {
        self.to_pkcs8_pem_as(self.default_form(), line_ending)
    }

    /// [`Self::to_pkcs8_der_as`] in PEM (label `PRIVATE KEY`), erased on drop.
    ///
    /// # Errors
    /// Those of [`Self::to_pkcs8_der_as`].
    #[cfg(feature = "pem")]
    pub fn to_pkcs8_pem_as(
        &self,
        form: PrivateKeyForm,
        line_ending: LineEnding,
    ) -> Result<Zeroizing<String>, Error> {
        self.to_pkcs8_der_as(form)?
            .to_pem(PRIVATE_KEY_LABEL, line_ending)
            .map_err(der_error)
    }

    /// [`Self::to_pkcs8_der_as`], encrypted with `password` (PBES2: scrypt and AES-256-CBC,
    /// `pkcs8`'s recommended parameters, salt and IV from `rng`). Feature `encryption`.
    ///
    /// # Errors
    /// Those of [`Self::to_pkcs8_der_as`]; [`KeyFileError::EncryptionRng`] if `rng` fails,
    /// [`KeyFileError::Encryption`] if encryption fails otherwise.
    #[cfg(feature = "encryption")]
    pub fn to_pkcs8_encrypted_der_as<R: rand_core::TryCryptoRng>(
        &self,
        form: PrivateKeyForm,
        rng: &mut R,
        password: impl AsRef<[u8]>,
    ) -> Result<SecretDocument, Error> {
        encrypt(&self.to_pkcs8_der_as(form)?, rng, password).map_err(|(e, _)| e)
    }

    /// [`Self::to_pkcs8_encrypted_der_as`] in PEM (label `ENCRYPTED PRIVATE KEY`). Features
    /// `encryption` and `pem`.
    ///
    /// # Errors
    /// Those of [`Self::to_pkcs8_encrypted_der_as`].
    #[cfg(all(feature = "encryption", feature = "pem"))]
    pub fn to_pkcs8_encrypted_pem_as<R: rand_core::TryCryptoRng>(
        &self,
        form: PrivateKeyForm,
        rng: &mut R,
        password: impl AsRef<[u8]>,
        line_ending: LineEnding,
    ) -> Result<Zeroizing<String>, Error> {
        self.to_pkcs8_encrypted_der_as(form, rng, password)?
            .to_pem(ENCRYPTED_PRIVATE_KEY_LABEL, line_ending)
            .map_err(der_error)
    }

    /// [`Self::to_pkcs8_der`] encrypted with `password`, salt and IV from the OS RNG.
    /// Features `encryption` and `getrandom`.
    ///
    /// ```
    /// use lazykem::ml_kem_768::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::from_seed(&[7; 64]);
    /// let file = dk.to_pkcs8_encrypted_der("hunter2")?;
    /// let again = DecapsulationKey::from_pkcs8_encrypted_der(file.as_bytes(), "hunter2")?;
    /// assert_eq!(again.encapsulation_key(), dk.encapsulation_key());
    /// # Ok::<(), lazykem::Error>(())
    /// ```
    ///
    /// # Errors
    /// Those of [`Self::to_pkcs8_encrypted_der_as`], with [`Error::Rng`] for the OS RNG's
    /// failure.
    #[cfg(all(feature = "encryption", feature = "getrandom"))]
    pub fn to_pkcs8_encrypted_der(
        &self,
        password: impl AsRef<[u8]>,
    ) -> Result<SecretDocument, Error> {
        encrypt_with_os_rng(&self.to_pkcs8_der()?, password)
    }

    /// [`Self::to_pkcs8_encrypted_der`] in PEM (label `ENCRYPTED PRIVATE KEY`). Features
    /// `encryption`, `getrandom` and `pem`.
    ///
    /// # Errors
    /// Those of [`Self::to_pkcs8_encrypted_der`].
    #[cfg(all(feature = "encryption", feature = "getrandom", feature = "pem"))]
    pub fn to_pkcs8_encrypted_pem(
        &self,
        password: impl AsRef<[u8]>,
        line_ending: LineEnding,
    ) -> Result<Zeroizing<String>, Error> {
        self.to_pkcs8_encrypted_der(password)?
            .to_pem(ENCRYPTED_PRIVATE_KEY_LABEL, line_ending)
            .map_err(der_error)
    }

    fn from_private_key_info(info: &PrivateKeyInfoRef<'_>) -> Result<Self, Error> {
        check_algorithm::<P>(&info.algorithm)?;
        let unknown_form = || Error::KeyFile(KeyFileError::UnknownPrivateKeyForm);
        let mut reader = SliceReader::new(info.private_key.as_bytes()).map_err(der_error)?;
        let key = match Tag::peek(&reader).map_err(der_error)? {
            Tag::ContextSpecific { number, .. } if number == SEED_TAG => {
                let seed =
                    ContextSpecific::<&OctetStringRef>::decode_implicit(&mut reader, SEED_TAG)
                        .map_err(der_error)?
                        .ok_or_else(unknown_form)?;
                Self::from_seed_bytes(seed.value.as_bytes())?
            }
            Tag::OctetString => {
                let expanded = <&OctetStringRef>::decode(&mut reader).map_err(der_error)?;
                Self::from_expanded_bytes(expanded.as_bytes())?
            }
            Tag::Sequence => {
                let both = Vec::<&OctetStringRef>::decode(&mut reader).map_err(der_error)?;
                let [seed, expanded] = both.as_slice() else {
                    return Err(unknown_form());
                };
                let key = Self::from_seed_bytes(seed.as_bytes())?;
                let regenerated = key.to_expanded_bytes();
                // Secret bytes: compared in constant time (lengths are public).
                let same = regenerated.as_ref().len() == expanded.as_bytes().len()
                    && bool::from(regenerated.as_ref().ct_eq(expanded.as_bytes()));
                if !same {
                    return Err(Error::KeyFile(KeyFileError::SeedMismatch));
                }
                key
            }
            _ => return Err(unknown_form()),
        };
        reader.finish().map_err(der_error)?;
        if let Some(public) = &info.public_key
            && public.as_bytes() != Some(key.encapsulation_key().as_bytes().as_ref())
        {
            return Err(Error::KeyFile(KeyFileError::PublicKeyMismatch));
        }
        Ok(key)
    }
}

impl<P: ParameterSet> TryFrom<PrivateKeyInfoRef<'_>> for DecapsulationKey<P> {
    type Error = ::pkcs8::Error;

    /// Errors: `PublicKey(OidUnknown { oid })` (the OID found) for a key of another
    /// algorithm or parameter set, `ParametersMalformed` for parameters present,
    /// `KeyMalformed` for a key that fails a check (the inherent
    /// [`DecapsulationKey::from_pkcs8_der`] names it), `Asn1` for malformed DER.
    fn try_from(info: PrivateKeyInfoRef<'_>) -> Result<Self, ::pkcs8::Error> {
        Self::from_private_key_info(&info).map_err(pkcs8_error)
    }
}

impl<P: ParameterSet> EncodePrivateKey for DecapsulationKey<P> {
    /// The seed form, or the expanded form for a key without a seed.
    fn to_pkcs8_der(&self) -> ::pkcs8::Result<SecretDocument> {
        DecapsulationKey::to_pkcs8_der(self).map_err(pkcs8_error)
    }
}

/// Runs `$body` with `$key` bound to the typed key inside an `Any` key.
macro_rules! each_set {
    ($any:expr, |$key:ident| $body:expr) => {
        match $any {
            Self::MlKem512($key) => $body,
            Self::MlKem768($key) => $body,
            Self::MlKem1024($key) => $body,
        }
    };
}

/// An encapsulation key of any parameter set, for key files whose set is known only once
/// read: the SPKI algorithm identifier picks it.
///
/// ```
/// use lazykem::pkcs8::AnyEncapsulationKey;
///
/// let dk = lazykem::ml_kem_1024::DecapsulationKey::from_seed(&[1; 64]);
/// let der = dk.encapsulation_key().to_public_key_der()?;
/// let any = AnyEncapsulationKey::from_public_key_der(der.as_bytes())?;
/// assert_eq!(any.parameter_set(), "ML-KEM-1024");
/// assert_eq!(any.to_public_key_der()?, der);
/// let AnyEncapsulationKey::MlKem1024(ek) = any else { unreachable!() };
/// assert_eq!(&*ek, dk.encapsulation_key());
/// # Ok::<(), lazykem::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AnyEncapsulationKey {
    /// An ML-KEM-512 key.
    MlKem512(Box<EncapsulationKey<MlKem512>>),
    /// An ML-KEM-768 key.
    MlKem768(Box<EncapsulationKey<MlKem768>>),
    /// An ML-KEM-1024 key.
    MlKem1024(Box<EncapsulationKey<MlKem1024>>),
}

impl AnyEncapsulationKey {
    /// Parses a DER `SubjectPublicKeyInfo` of any ML-KEM parameter set.
    ///
    /// # Errors
    /// [`KeyFileError::Algorithm`] (with `expected: None`) for a key that is not ML-KEM;
    /// the errors of [`EncapsulationKey::from_public_key_der`] otherwise.
    pub fn from_public_key_der(der: &[u8]) -> Result<Self, Error> {
        Self::from_spki(&SubjectPublicKeyInfoRef::from_der(der).map_err(der_error)?)
    }

    /// [`Self::from_public_key_der`] from PEM (label `PUBLIC KEY`).
    ///
    /// # Errors
    /// Those of [`Self::from_public_key_der`]; [`KeyFileError::Der`] for malformed PEM,
    /// [`KeyFileError::PemLabel`] for another label.
    #[cfg(feature = "pem")]
    pub fn from_public_key_pem(pem: &str) -> Result<Self, Error> {
        Self::from_public_key_der(pem_document(pem, PUBLIC_KEY_LABEL)?.as_bytes())
    }

    /// The DER `SubjectPublicKeyInfo` of this key.
    ///
    /// # Errors
    /// Those of [`EncapsulationKey::to_public_key_der`].
    pub fn to_public_key_der(&self) -> Result<Document, Error> {
        each_set!(self, |key| key.to_public_key_der())
    }

    /// [`Self::to_public_key_der`] in PEM (label `PUBLIC KEY`).
    ///
    /// # Errors
    /// Those of [`EncapsulationKey::to_public_key_der`].
    #[cfg(feature = "pem")]
    pub fn to_public_key_pem(&self, line_ending: LineEnding) -> Result<String, Error> {
        each_set!(self, |key| key.to_public_key_pem(line_ending))
    }

    /// The parameter set's name, "ML-KEM-768" and so on.
    #[must_use]
    pub const fn parameter_set(&self) -> &'static str {
        match self {
            Self::MlKem512(_) => MlKem512::NAME,
            Self::MlKem768(_) => MlKem768::NAME,
            Self::MlKem1024(_) => MlKem1024::NAME,
        }
    }

    /// The parameter set's algorithm identifier.
    #[must_use]
    pub const fn oid(&self) -> ObjectIdentifier {
        match self {
            Self::MlKem512(_) => MlKem512::OID,
            Self::MlKem768(_) => MlKem768::OID,
            Self::MlKem1024(_) => MlKem1024::OID,
        }
    }

    /// The encoded key.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        each_set!(self, |key| key.as_bytes().as_ref())
    }

    fn from_spki(spki: &SubjectPublicKeyInfoRef<'_>) -> Result<Self, Error> {
        Ok(match spki.algorithm.oid {
            MlKem512::OID => Self::MlKem512(Box::new(EncapsulationKey::from_spki(spki)?)),
            MlKem768::OID => Self::MlKem768(Box::new(EncapsulationKey::from_spki(spki)?)),
            MlKem1024::OID => Self::MlKem1024(Box::new(EncapsulationKey::from_spki(spki)?)),
            oid => return Err(not_ml_kem(oid)),
        })
    }
}

impl TryFrom<SubjectPublicKeyInfoRef<'_>> for AnyEncapsulationKey {
    type Error = spki::Error;

    /// The errors of the typed keys' impl; `OidUnknown { oid }` for a key that is not ML-KEM.
    fn try_from(spki: SubjectPublicKeyInfoRef<'_>) -> Result<Self, spki::Error> {
        Self::from_spki(&spki).map_err(|e| spki_error(e, &spki.algorithm))
    }
}

impl EncodePublicKey for AnyEncapsulationKey {
    fn to_public_key_der(&self) -> spki::Result<Document> {
        each_set!(self, |key| EncodePublicKey::to_public_key_der(&**key))
    }
}

/// A decapsulation key of any parameter set, for key files whose set is known only once
/// read: the PKCS#8 algorithm identifier picks it. Any private form (seed, expandedKey,
/// both).
///
/// ```
/// use lazykem::pkcs8::AnyDecapsulationKey;
///
/// let dk = lazykem::ml_kem_512::DecapsulationKey::from_seed(&[1; 64]);
/// let der = dk.to_pkcs8_der()?;
/// let any = AnyDecapsulationKey::from_pkcs8_der(der.as_bytes())?;
/// assert_eq!(any.to_pkcs8_der()?.as_bytes(), der.as_bytes());
/// match any {
///     AnyDecapsulationKey::MlKem512(key) => {
///         assert_eq!(key.encapsulation_key(), dk.encapsulation_key())
///     }
///     other => panic!("{}", other.parameter_set()),
/// }
/// # Ok::<(), lazykem::Error>(())
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum AnyDecapsulationKey {
    /// An ML-KEM-512 key.
    MlKem512(Box<DecapsulationKey<MlKem512>>),
    /// An ML-KEM-768 key.
    MlKem768(Box<DecapsulationKey<MlKem768>>),
    /// An ML-KEM-1024 key.
    MlKem1024(Box<DecapsulationKey<MlKem1024>>),
}

impl AnyDecapsulationKey {
    /// Parses a DER PKCS#8 `PrivateKeyInfo` of any ML-KEM parameter set.
    ///
    /// # Errors
    /// [`KeyFileError::Algorithm`] (with `expected: None`) for a key that is not ML-KEM;
    /// the errors of [`DecapsulationKey::from_pkcs8_der`] otherwise.
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, Error> {
        Self::from_private_key_info(&PrivateKeyInfoRef::from_der(der).map_err(der_error)?)
    }

    /// [`Self::from_pkcs8_der`] from PEM (label `PRIVATE KEY`).
    ///
    /// # Errors
    /// Those of [`Self::from_pkcs8_der`]; [`KeyFileError::Der`] for malformed PEM,
    /// [`KeyFileError::PemLabel`] for another label.
    #[cfg(feature = "pem")]
    pub fn from_pkcs8_pem(pem: &str) -> Result<Self, Error> {
        Self::from_pkcs8_der(pem_document(pem, PRIVATE_KEY_LABEL)?.as_bytes())
    }

    /// [`Self::from_pkcs8_der`] of a password-encrypted PKCS#8 key. Feature `encryption`.
    ///
    /// # Errors
    /// Those of [`DecapsulationKey::from_pkcs8_encrypted_der`] and
    /// [`Self::from_pkcs8_der`].
    #[cfg(feature = "encryption")]
    pub fn from_pkcs8_encrypted_der(der: &[u8], password: impl AsRef<[u8]>) -> Result<Self, Error> {
        Self::from_pkcs8_der(decrypt(der, password)?.as_bytes())
    }

    /// [`Self::from_pkcs8_encrypted_der`] from PEM (label `ENCRYPTED PRIVATE KEY`).
    /// Features `encryption` and `pem`.
    ///
    /// # Errors
    /// Those of [`Self::from_pkcs8_encrypted_der`]; [`KeyFileError::Der`] for malformed PEM,
    /// [`KeyFileError::PemLabel`] for another label.
    #[cfg(all(feature = "encryption", feature = "pem"))]
    pub fn from_pkcs8_encrypted_pem(pem: &str, password: impl AsRef<[u8]>) -> Result<Self, Error> {
        Self::from_pkcs8_encrypted_der(
            pem_document(pem, ENCRYPTED_PRIVATE_KEY_LABEL)?.as_bytes(),
            password,
        )
    }

    /// [`DecapsulationKey::to_pkcs8_der`].
    ///
    /// # Errors
    /// Those of [`DecapsulationKey::to_pkcs8_der`].
    pub fn to_pkcs8_der(&self) -> Result<SecretDocument, Error> {
        each_set!(self, |key| key.to_pkcs8_der())
    }

    /// [`DecapsulationKey::to_pkcs8_der_as`].
    ///
    /// # Errors
    /// Those of [`DecapsulationKey::to_pkcs8_der_as`].
    pub fn to_pkcs8_der_as(&self, form: PrivateKeyForm) -> Result<SecretDocument, Error> {
        each_set!(self, |key| key.to_pkcs8_der_as(form))
    }

    /// [`DecapsulationKey::to_pkcs8_pem`].
    ///
    /// # Errors
    /// Those of [`DecapsulationKey::to_pkcs8_pem`].
    #[cfg(feature = "pem")]
    pub fn to_pkcs8_pem(&self, line_ending: LineEnding) -> Result<Zeroizing<String>, Error> {
        each_set!(self, |key| key.to_pkcs8_pem(line_ending))
    }

    /// [`DecapsulationKey::to_pkcs8_pem_as`].
    ///
    /// # Errors
    /// Those of [`DecapsulationKey::to_pkcs8_pem_as`].
    #[cfg(feature = "pem")]
    pub fn to_pkcs8_pem_as(
        &self,
        form: PrivateKeyForm,
        line_ending: LineEnding,
    ) -> Result<Zeroizing<String>, Error> {
        each_set!(self, |key| key.to_pkcs8_pem_as(form, line_ending))
    }

    /// [`DecapsulationKey::to_pkcs8_encrypted_der_as`].
    ///
    /// # Errors
    /// Those of [`DecapsulationKey::to_pkcs8_encrypted_der_as`].
    #[cfg(feature = "encryption")]
    pub fn to_pkcs8_encrypted_der_as<R: rand_core::TryCryptoRng>(
        &self,
        form: PrivateKeyForm,
        rng: &mut R,
        password: impl AsRef<[u8]>,
    ) -> Result<SecretDocument, Error> {
        each_set!(self, |key| key
            .to_pkcs8_encrypted_der_as(form, rng, password))
    }

    /// [`DecapsulationKey::to_pkcs8_encrypted_pem_as`].
    ///
    /// # Errors
    /// Those of [`DecapsulationKey::to_pkcs8_encrypted_pem_as`].
    #[cfg(all(feature = "encryption", feature = "pem"))]
    pub fn to_pkcs8_encrypted_pem_as<R: rand_core::TryCryptoRng>(
        &self,
        form: PrivateKeyForm,
        rng: &mut R,
        password: impl AsRef<[u8]>,
        line_ending: LineEnding,
    ) -> Result<Zeroizing<String>, Error> {
        each_set!(self, |key| key.to_pkcs8_encrypted_pem_as(
            form,
            rng,
            password,
            line_ending
        ))
    }

    /// [`DecapsulationKey::to_pkcs8_encrypted_der`].
    ///
    /// # Errors
    /// Those of [`DecapsulationKey::to_pkcs8_encrypted_der`].
    #[cfg(all(feature = "encryption", feature = "getrandom"))]
    pub fn to_pkcs8_encrypted_der(
        &self,
        password: impl AsRef<[u8]>,
    ) -> Result<SecretDocument, Error> {
        each_set!(self, |key| key.to_pkcs8_encrypted_der(password))
    }

    /// [`DecapsulationKey::to_pkcs8_encrypted_pem`].
    ///
    /// # Errors
    /// Those of [`DecapsulationKey::to_pkcs8_encrypted_pem`].
    #[cfg(all(feature = "encryption", feature = "getrandom", feature = "pem"))]
    pub fn to_pkcs8_encrypted_pem(
        &self,
        password: impl AsRef<[u8]>,
        line_ending: LineEnding,
    ) -> Result<Zeroizing<String>, Error> {
        each_set!(self, |key| key
            .to_pkcs8_encrypted_pem(password, line_ending))
    }

    /// The key's encapsulation key, of the same set.
    #[must_use]
    pub fn encapsulation_key(&self) -> AnyEncapsulationKey {
        match self {
            Self::MlKem512(key) => {
                AnyEncapsulationKey::MlKem512(Box::new(key.encapsulation_key().clone()))
            }
            Self::MlKem768(key) => {
                AnyEncapsulationKey::MlKem768(Box::new(key.encapsulation_key().clone()))
            }
            Self::MlKem1024(key) => {
                AnyEncapsulationKey::MlKem1024(Box::new(key.encapsulation_key().clone()))
            }
        }
    }

    /// The parameter set's name, "ML-KEM-768" and so on.
    #[must_use]
    pub const fn parameter_set(&self) -> &'static str {
        match self {
            Self::MlKem512(_) => MlKem512::NAME,
            Self::MlKem768(_) => MlKem768::NAME,
            Self::MlKem1024(_) => MlKem1024::NAME,
        }
    }

    /// The parameter set's algorithm identifier.
    #[must_use]
    pub const fn oid(&self) -> ObjectIdentifier {
        match self {
            Self::MlKem512(_) => MlKem512::OID,
            Self::MlKem768(_) => MlKem768::OID,
            Self::MlKem1024(_) => MlKem1024::OID,
        }
    }

    fn from_private_key_info(info: &PrivateKeyInfoRef<'_>) -> Result<Self, Error> {
        Ok(match info.algorithm.oid {
            MlKem512::OID => {
                Self::MlKem512(Box::new(DecapsulationKey::from_private_key_info(info)?))
            }
            MlKem768::OID => {
                Self::MlKem768(Box::new(DecapsulationKey::from_private_key_info(info)?))
            }
            MlKem1024::OID => {
                Self::MlKem1024(Box::new(DecapsulationKey::from_private_key_info(info)?))
            }
            oid => return Err(not_ml_kem(oid)),
        })
    }
}

impl TryFrom<PrivateKeyInfoRef<'_>> for AnyDecapsulationKey {
    type Error = ::pkcs8::Error;

    /// The errors of the typed keys' impl; `PublicKey(OidUnknown { oid })` for a key that
    /// is not ML-KEM.
    fn try_from(info: PrivateKeyInfoRef<'_>) -> Result<Self, ::pkcs8::Error> {
        Self::from_private_key_info(&info).map_err(pkcs8_error)
    }
}

impl EncodePrivateKey for AnyDecapsulationKey {
    /// The seed form, or the expanded form for a key without a seed.
    fn to_pkcs8_der(&self) -> ::pkcs8::Result<SecretDocument> {
        each_set!(self, |key| EncodePrivateKey::to_pkcs8_der(&**key))
    }
}

#[cfg(all(test, feature = "encryption"))]
mod tests {
    use super::*;
    use ::pkcs8::pkcs5::{EncryptionScheme, pbes2};

    fn pbkdf2(iteration_count: u32) -> EncryptionScheme {
        pbes2::Parameters {
            kdf: pbes2::Kdf::Pbkdf2(pbes2::Pbkdf2Params {
                salt: pbes2::Salt::new([1; 16]).expect("salt"),
                iteration_count,
                key_length: None,
                prf: pbes2::Pbkdf2Prf::HmacWithSha256,
            }),
            encryption: pbes2::EncryptionScheme::Aes256Cbc { iv: [2; 16] },
        }
        .into()
    }

    fn scrypt(n: u64, r: u16, p: u16) -> EncryptionScheme {
        pbes2::Parameters {
            kdf: pbes2::Kdf::Scrypt(pbes2::ScryptParams {
                salt: pbes2::Salt::new([1; 16]).expect("salt"),
                cost_parameter: n,
                block_size: r,
                parallelization: p,
                key_length: None,
            }),
            encryption: pbes2::EncryptionScheme::Aes256Cbc { iv: [2; 16] },
        }
        .into()
    }

    fn cost(parameter: KdfParameter, value: u64, limit: u64) -> Result<(), Error> {
        Err(Error::KeyFile(KeyFileError::KdfCost {
            parameter,
            value,
            limit,
        }))
    }

    /// Each limit is inclusive: the value at the limit passes, the next one is refused
    /// naming the parameter, its value and the limit.
    #[test]
    fn kdf_limits_are_inclusive() {
        let max = MAX_PBKDF2_ITERATIONS;
        assert_eq!(check_kdf_cost(&pbkdf2(1)), Ok(()));
        assert_eq!(check_kdf_cost(&pbkdf2(max)), Ok(()));
        assert_eq!(
            check_kdf_cost(&pbkdf2(max + 1)),
            cost(
                KdfParameter::Pbkdf2Iterations,
                u64::from(max) + 1,
                u64::from(max)
            )
        );
        // 128 * r * N = MAX_SCRYPT_MEMORY, with r = 8 and with r = 1.
        assert_eq!(check_kdf_cost(&scrypt(1 << 18, 8, 1)), Ok(()));
        assert_eq!(check_kdf_cost(&scrypt(1 << 21, 1, 1)), Ok(()));
        assert_eq!(
            check_kdf_cost(&scrypt(1 << 18, 9, 1)),
            cost(
                KdfParameter::ScryptMemory,
                (128 * 9) << 18,
                MAX_SCRYPT_MEMORY
            )
        );
        assert_eq!(
            check_kdf_cost(&scrypt(1 << 22, 1, 1)),
            cost(KdfParameter::ScryptMemory, 128 << 22, MAX_SCRYPT_MEMORY)
        );
        // Beyond u64: the value saturates.
        assert_eq!(
            check_kdf_cost(&scrypt(1 << 63, u16::MAX, 1)),
            cost(KdfParameter::ScryptMemory, u64::MAX, MAX_SCRYPT_MEMORY)
        );
        let p = MAX_SCRYPT_PARALLELIZATION;
        assert_eq!(check_kdf_cost(&scrypt(1 << 14, 8, p)), Ok(()));
        assert_eq!(
            check_kdf_cost(&scrypt(1 << 14, 8, p + 1)),
            cost(
                KdfParameter::ScryptParallelization,
                u64::from(p) + 1,
                u64::from(p)
            )
        );
    }

    /// Parameters outside their range are refused as an unacceptable scheme, N = 0 among
    /// them (on which `pkcs5` would panic).
    #[test]
    fn kdf_parameters_out_of_range() {
        let scheme = |oid| Err(Error::KeyFile(KeyFileError::EncryptionScheme { oid }));
        assert_eq!(check_kdf_cost(&pbkdf2(0)), scheme(pbes2::PBKDF2_OID));
        for n in [0, 1, 3, (1 << 14) + 1, u64::MAX] {
            assert_eq!(
                check_kdf_cost(&scrypt(n, 8, 1)),
                scheme(pbes2::SCRYPT_OID),
                "N = {n}"
            );
        }
        assert_eq!(check_kdf_cost(&scrypt(2, 1, 1)), Ok(()));
    }
}
