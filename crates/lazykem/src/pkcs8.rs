//! PKCS#8 private keys and SPKI public keys in the IETF LAMPS ML-KEM format
//! (draft-ietf-lamps-kyber-certificates), DER with the `pkcs8` feature, PEM with `pem`.
//!
//! Algorithm identifiers: `id-alg-ml-kem-512` / `-768` / `-1024` = 2.16.840.1.101.3.4.4.1 /
//! .2 / .3, parameters absent. The public key (SPKI) is the raw encapsulation key in the
//! BIT STRING. The private key is a CHOICE, told apart by its tag:
//! - `seed [0] OCTET STRING (SIZE (64))` (the RECOMMENDED form, written by default);
//! - `expandedKey OCTET STRING`, the FIPS 203 `dk`, which must pass the hash check;
//! - `both SEQUENCE { seed, expandedKey }`, rejected when the two disagree.
//!
//! Through the RustCrypto traits ([`DecodePrivateKey`], [`EncodePrivateKey`],
//! [`DecodePublicKey`], [`EncodePublicKey`]; their errors are `pkcs8::Error` / `spki::Error`)
//! and through inherent functions with this crate's [`KeyFormatError`], which says what was
//! wrong:
//!
//! ```
//! use lazykem::ml_kem_768::{DecapsulationKey, EncapsulationKey};
//! use lazykem::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey};
//!
//! let dk = DecapsulationKey::from_seed(&[7; 64]);
//! let private = dk.to_pkcs8_der().expect("encodable"); // the seed form
//! let public = dk.encapsulation_key().to_public_key_der().expect("encodable");
//!
//! let dk2 = DecapsulationKey::from_pkcs8_der(private.as_bytes()).expect("our own key");
//! let ek2 = EncapsulationKey::from_public_key_der(public.as_bytes()).expect("our own key");
//! assert_eq!(dk2.encapsulation_key(), &ek2);
//! ```
//!
//! Every parser rejects malformed DER with an error (fuzzed by `fuzz/fuzz_targets/pkcs8.rs`);
//! none panics.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::{DecapsulationKey, EncapsulationKey, ParameterSet};
use ::pkcs8::der::asn1::{BitStringRef, ContextSpecific, OctetStringRef};
use ::pkcs8::der::{self, Decode, Encode, Reader, SliceReader, Tag, TagMode, TagNumber};
use ::pkcs8::spki::{self, AlgorithmIdentifierRef, SubjectPublicKeyInfoRef};
use ::pkcs8::{KeyError, ObjectIdentifier, PrivateKeyInfoRef, SecretDocument};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

pub use ::pkcs8::spki::{DecodePublicKey, EncodePublicKey};
pub use ::pkcs8::{DecodePrivateKey, EncodePrivateKey};

/// `id-alg-ml-kem-512` (2.16.840.1.101.3.4.4.1).
pub const ID_ALG_ML_KEM_512: ObjectIdentifier =
    ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.4.1");
/// `id-alg-ml-kem-768` (2.16.840.1.101.3.4.4.2).
pub const ID_ALG_ML_KEM_768: ObjectIdentifier =
    ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.4.2");
/// `id-alg-ml-kem-1024` (2.16.840.1.101.3.4.4.3).
pub const ID_ALG_ML_KEM_1024: ObjectIdentifier =
    ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.4.3");

/// The algorithm identifier of parameter set `P`.
#[must_use]
pub const fn oid<P: ParameterSet>() -> ObjectIdentifier {
    match P::K {
        2 => ID_ALG_ML_KEM_512,
        3 => ID_ALG_ML_KEM_768,
        _ => ID_ALG_ML_KEM_1024,
    }
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

/// Why a PKCS#8 or SPKI key was rejected or could not be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyFormatError {
    /// Malformed DER (or PEM) around or inside the key.
    Der(der::Error),
    /// The algorithm is not this parameter set's ML-KEM, or has parameters (they must be
    /// absent).
    WrongAlgorithm,
    /// The private key is none of the CHOICE's forms (its tag is not `[0]`, OCTET STRING
    /// or SEQUENCE).
    UnknownPrivateKeyForm,
    /// A `both` private key whose seed and expanded key are not the same key.
    SeedMismatch,
    /// The optional `publicKey` of a PKCS#8 key is not the key's encapsulation key.
    PublicKeyMismatch,
    /// Writing the `seed` or `both` form of a key imported from its expanded encoding,
    /// which has no seed.
    NoSeed,
    /// The key itself fails a check of FIPS 203 (length, modulus or hash check).
    Key(crate::Error),
    /// Encrypted PKCS#8 (feature `encryption`): decryption failed (a wrong password, an
    /// unsupported scheme, a damaged document) or encryption failed.
    Encryption,
}

impl core::fmt::Display for KeyFormatError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Der(e) => write!(f, "malformed key encoding: {e}"),
            Self::WrongAlgorithm => f.write_str(
                "the algorithm identifier is not this ML-KEM parameter set's (or has parameters)",
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
            Self::Key(e) => write!(f, "invalid ML-KEM key: {e}"),
            Self::Encryption => f.write_str(
                "encrypted PKCS#8: wrong password, unsupported scheme or damaged document",
            ),
        }
    }
}

impl core::error::Error for KeyFormatError {}

impl From<der::Error> for KeyFormatError {
    fn from(e: der::Error) -> Self {
        Self::Der(e)
    }
}

impl From<crate::Error> for KeyFormatError {
    fn from(e: crate::Error) -> Self {
        Self::Key(e)
    }
}

impl From<KeyFormatError> for ::pkcs8::Error {
    fn from(e: KeyFormatError) -> Self {
        match e {
            KeyFormatError::Der(e) => Self::Asn1(e),
            KeyFormatError::WrongAlgorithm => Self::ParametersMalformed,
            _ => Self::KeyMalformed(KeyError::Invalid),
        }
    }
}

impl From<KeyFormatError> for spki::Error {
    fn from(e: KeyFormatError) -> Self {
        match e {
            KeyFormatError::Der(e) => Self::Asn1(e),
            KeyFormatError::WrongAlgorithm => Self::AlgorithmParametersMissing,
            _ => Self::KeyMalformed,
        }
    }
}

/// Checks that `algorithm` is parameter set `P`'s, without parameters.
fn check_algorithm<P: ParameterSet>(
    algorithm: &AlgorithmIdentifierRef<'_>,
) -> Result<(), KeyFormatError> {
    if algorithm.oid == oid::<P>() && algorithm.parameters.is_none() {
        Ok(())
    } else {
        Err(KeyFormatError::WrongAlgorithm)
    }
}

/// `Err` unless a PEM document's label is `expected`.
#[cfg(feature = "pem")]
fn check_pem_label(label: &str, expected: &str) -> Result<(), KeyFormatError> {
    if label == expected {
        Ok(())
    } else {
        Err(KeyFormatError::Der(der::pem::Error::Label.into()))
    }
}

/// The DER of a PEM `PRIVATE KEY` (checked label), erased on drop.
#[cfg(feature = "pem")]
fn private_key_pem(pem: &str) -> Result<SecretDocument, KeyFormatError> {
    let (label, der) = SecretDocument::from_pem(pem)?;
    check_pem_label(label, "PRIVATE KEY")?;
    Ok(der)
}

/// The decrypted `PrivateKeyInfo` of a PBES2 `EncryptedPrivateKeyInfo`, erased on drop.
#[cfg(feature = "encryption")]
fn decrypt_pkcs8(der: &[u8], password: impl AsRef<[u8]>) -> Result<SecretDocument, KeyFormatError> {
    ::pkcs8::EncryptedPrivateKeyInfoRef::try_from(der)
        .map_err(|_| KeyFormatError::Encryption)?
        .decrypt(password)
        .map_err(|_| KeyFormatError::Encryption)
}

/// The algorithm identifier of `P`, parameters absent.
const fn algorithm<P: ParameterSet>() -> AlgorithmIdentifierRef<'static> {
    AlgorithmIdentifierRef {
        oid: oid::<P>(),
        parameters: None,
    }
}

impl<P: ParameterSet> EncapsulationKey<P> {
    /// Parses a DER `SubjectPublicKeyInfo` (the key's algorithm must be `P`'s), with the
    /// checks of [`Self::from_bytes`].
    ///
    /// # Errors
    /// [`KeyFormatError::Der`] for malformed DER, [`KeyFormatError::WrongAlgorithm`],
    /// [`KeyFormatError::Key`] for a key that fails FIPS 203's checks.
    pub fn from_spki_der(der: &[u8]) -> Result<Self, KeyFormatError> {
        Self::from_spki(&SubjectPublicKeyInfoRef::from_der(der)?)
    }

    /// [`Self::from_spki_der`] from PEM (label `PUBLIC KEY`), with this crate's error.
    ///
    /// ```
    /// use lazykem::ml_kem_768::{DecapsulationKey, EncapsulationKey};
    /// use lazykem::pkcs8::{EncodePublicKey, KeyFormatError};
    ///
    /// let dk = DecapsulationKey::from_seed(&[7; 64]);
    /// let pem = dk.encapsulation_key().to_public_key_pem(lazykem::LineEnding::LF).unwrap();
    /// assert_eq!(&EncapsulationKey::from_spki_pem(&pem)?, dk.encapsulation_key());
    /// let other = lazykem::ml_kem_512::DecapsulationKey::from_seed(&[7; 64]);
    /// let pem = other.encapsulation_key().to_public_key_pem(lazykem::LineEnding::LF).unwrap();
    /// assert_eq!(EncapsulationKey::from_spki_pem(&pem), Err(KeyFormatError::WrongAlgorithm));
    /// # Ok::<(), KeyFormatError>(())
    /// ```
    ///
    /// # Errors
    /// Those of [`Self::from_spki_der`]; [`KeyFormatError::Der`] for malformed PEM or another
    /// label.
    #[cfg(feature = "pem")]
    pub fn from_spki_pem(pem: &str) -> Result<Self, KeyFormatError> {
        let (label, der) = der::Document::from_pem(pem)?;
        check_pem_label(label, "PUBLIC KEY")?;
        Self::from_spki_der(der.as_bytes())
    }

    fn from_spki(spki: &SubjectPublicKeyInfoRef<'_>) -> Result<Self, KeyFormatError> {
        check_algorithm::<P>(&spki.algorithm)?;
        let bytes = spki
            .subject_public_key
            .as_bytes()
            .ok_or(KeyFormatError::Der(
                der::ErrorKind::Length {
                    tag: Tag::BitString,
                }
                .into(),
            ))?;
        Ok(Self::from_bytes(bytes)?)
    }
}

/// The `spki` error of a rejected algorithm identifier: `OidUnknown { oid }` for another
/// algorithm (another ML-KEM set or not ML-KEM at all), as RustCrypto `ml-kem` answers; the
/// tag of the parameters when the OID is right but parameters are present.
fn spki_algorithm_error<P: ParameterSet>(algorithm: &AlgorithmIdentifierRef<'_>) -> spki::Error {
    match algorithm.parameters {
        Some(parameters) if algorithm.oid == oid::<P>() => spki::Error::Asn1(
            der::ErrorKind::TagUnexpected {
                expected: None,
                actual: der::Tagged::tag(&parameters),
            }
            .into(),
        ),
        _ => spki::Error::OidUnknown { oid: algorithm.oid },
    }
}

impl<P: ParameterSet> TryFrom<SubjectPublicKeyInfoRef<'_>> for EncapsulationKey<P> {
    type Error = spki::Error;

    /// Errors: `OidUnknown { oid }` for a key of another algorithm or parameter set,
    /// `KeyMalformed` for a key that fails FIPS 203 §7.2 (the inherent
    /// [`EncapsulationKey::from_spki_der`] names the check), `Asn1` for malformed DER.
    fn try_from(spki: SubjectPublicKeyInfoRef<'_>) -> Result<Self, spki::Error> {
        match Self::from_spki(&spki) {
            Err(KeyFormatError::WrongAlgorithm) => Err(spki_algorithm_error::<P>(&spki.algorithm)),
            other => Ok(other?),
        }
    }
}

impl<P: ParameterSet> EncodePublicKey for EncapsulationKey<P> {
    fn to_public_key_der(&self) -> spki::Result<spki::Document> {
        let info = spki::SubjectPublicKeyInfo {
            algorithm: algorithm::<P>(),
            subject_public_key: BitStringRef::from_bytes(self.as_bytes().as_ref())?,
        };
        Ok(spki::Document::encode_msg(&info)?)
    }
}

impl<P: ParameterSet> DecapsulationKey<P> {
    /// Parses a DER PKCS#8 `PrivateKeyInfo` (the algorithm must be `P`'s) in any of the
    /// three forms; a `both` key is regenerated from its seed and must equal its expanded
    /// key, an `expandedKey` passes the hash check of [`Self::from_expanded_bytes`].
    ///
    /// ```
    /// use lazykem::ml_kem_512::DecapsulationKey;
    /// use lazykem::pkcs8::{KeyFormatError, PrivateKeyForm};
    ///
    /// let dk = DecapsulationKey::from_seed(&[3; 64]);
    /// let der = dk.to_pkcs8_der_as(PrivateKeyForm::Both)?;
    /// assert!(DecapsulationKey::from_pkcs8(der.as_bytes()).is_ok());
    /// assert!(matches!(
    ///     DecapsulationKey::from_pkcs8(&der.as_bytes()[1..]),
    ///     Err(KeyFormatError::Der(_))
    /// ));
    /// # Ok::<(), KeyFormatError>(())
    /// ```
    ///
    /// # Errors
    /// A [`KeyFormatError`] naming the failure.
    pub fn from_pkcs8(der: &[u8]) -> Result<Self, KeyFormatError> {
        let info = PrivateKeyInfoRef::from_der(der)?;
        Self::from_private_key_info(&info)
    }

    /// [`Self::from_pkcs8`] from PEM (label `PRIVATE KEY`), with this crate's error.
    ///
    /// ```
    /// use lazykem::ml_kem_768::DecapsulationKey;
    /// use lazykem::pkcs8::{EncodePrivateKey, KeyFormatError};
    ///
    /// let dk = DecapsulationKey::from_seed(&[7; 64]);
    /// let pem = dk.to_pkcs8_pem(lazykem::LineEnding::LF).unwrap();
    /// let again = DecapsulationKey::from_private_key_pem(&pem)?;
    /// assert_eq!(again.encapsulation_key(), dk.encapsulation_key());
    /// # Ok::<(), KeyFormatError>(())
    /// ```
    ///
    /// # Errors
    /// Those of [`Self::from_pkcs8`]; [`KeyFormatError::Der`] for malformed PEM or another
    /// label.
    #[cfg(feature = "pem")]
    pub fn from_private_key_pem(pem: &str) -> Result<Self, KeyFormatError> {
        Self::from_pkcs8(private_key_pem(pem)?.as_bytes())
    }

    /// Reads a password-encrypted PKCS#8 key (`EncryptedPrivateKeyInfo`, PBES2, as OpenSSL
    /// writes it), in any of the three private forms, with this crate's error. The trait
    /// method [`DecodePrivateKey::from_pkcs8_encrypted_der`] (and `_pem`) does the same with
    /// `pkcs8::Error`. Feature `encryption`.
    ///
    /// ```
    /// use lazykem::ml_kem_768::DecapsulationKey;
    /// use lazykem::pkcs8::{DecodePrivateKey, EncodePrivateKey, PrivateKeyForm};
    ///
    /// let dk = DecapsulationKey::from_seed(&[7; 64]);
    /// // The trait writes the seed form; `to_pkcs8_encrypted_der_as` picks the form.
    /// let file = dk.to_pkcs8_encrypted_pem("hunter2", lazykem::LineEnding::LF).unwrap();
    /// let again = DecapsulationKey::from_pkcs8_encrypted_pem(&file, "hunter2").unwrap();
    /// assert_eq!(again.encapsulation_key(), dk.encapsulation_key());
    ///
    /// let both = dk.to_pkcs8_encrypted_der_as(PrivateKeyForm::Both, &mut rand::rng(), "pw")?;
    /// let again = DecapsulationKey::from_pkcs8_encrypted(both.as_bytes(), "pw")?;
    /// assert_eq!(again.seed(), dk.seed());
    /// assert!(DecapsulationKey::from_pkcs8_encrypted(both.as_bytes(), "wrong").is_err());
    /// # Ok::<(), lazykem::pkcs8::KeyFormatError>(())
    /// ```
    ///
    /// # Errors
    /// [`KeyFormatError::Encryption`] if decryption fails (a wrong password among others);
    /// those of [`Self::from_pkcs8`] for the decrypted key.
    #[cfg(feature = "encryption")]
    pub fn from_pkcs8_encrypted(
        der: &[u8],
        password: impl AsRef<[u8]>,
    ) -> Result<Self, KeyFormatError> {
        let plain = decrypt_pkcs8(der, password)?;
        Self::from_pkcs8(plain.as_bytes())
    }

    /// [`Self::to_pkcs8_der_as`], encrypted with `password` (PBES2: scrypt and AES-256-CBC,
    /// `pkcs8`'s recommended parameters, salt and IV from `rng`). Feature `encryption`.
    ///
    /// # Errors
    /// Those of [`Self::to_pkcs8_der_as`]; [`KeyFormatError::Encryption`] if encryption
    /// fails (the RNG's failure among others).
    #[cfg(feature = "encryption")]
    pub fn to_pkcs8_encrypted_der_as<R: rand_core::TryCryptoRng>(
        &self,
        form: PrivateKeyForm,
        rng: &mut R,
        password: impl AsRef<[u8]>,
    ) -> Result<SecretDocument, KeyFormatError> {
        let plain = self.to_pkcs8_der_as(form)?;
        let info = PrivateKeyInfoRef::from_der(plain.as_bytes())?;
        info.encrypt_with_rng(rng, password)
            .map_err(|_| KeyFormatError::Encryption)
    }

    fn from_private_key_info(info: &PrivateKeyInfoRef<'_>) -> Result<Self, KeyFormatError> {
        check_algorithm::<P>(&info.algorithm)?;
        let mut reader = SliceReader::new(info.private_key.as_bytes())?;
        let key = match Tag::peek(&reader)? {
            Tag::ContextSpecific { number, .. } if number == SEED_TAG => {
                let seed =
                    ContextSpecific::<&OctetStringRef>::decode_implicit(&mut reader, SEED_TAG)?
                        .ok_or(KeyFormatError::UnknownPrivateKeyForm)?;
                Self::from_seed_bytes(seed.value.as_bytes())?
            }
            Tag::OctetString => {
                let expanded = <&OctetStringRef>::decode(&mut reader)?;
                Self::from_expanded_bytes(expanded.as_bytes())?
            }
            Tag::Sequence => {
                let both = Vec::<&OctetStringRef>::decode(&mut reader)?;
                let [seed, expanded] = both.as_slice() else {
                    return Err(KeyFormatError::UnknownPrivateKeyForm);
                };
                let key = Self::from_seed_bytes(seed.as_bytes())?;
                let regenerated = key.to_expanded_bytes();
                // Secret bytes: compared in constant time (lengths are public).
                let same = regenerated.as_ref().len() == expanded.as_bytes().len()
                    && bool::from(regenerated.as_ref().ct_eq(expanded.as_bytes()));
                if !same {
                    return Err(KeyFormatError::SeedMismatch);
                }
                key
            }
            _ => return Err(KeyFormatError::UnknownPrivateKeyForm),
        };
        reader.finish()?;
        if let Some(public) = &info.public_key
            && public.as_bytes() != Some(key.encapsulation_key().as_bytes().as_ref())
        {
            return Err(KeyFormatError::PublicKeyMismatch);
        }
        Ok(key)
    }

    /// The DER PKCS#8 `PrivateKeyInfo` of this key in the given form, in a buffer erased on
    /// drop. The [`EncodePrivateKey`] trait writes the seed form, or the expanded form for
    /// a key without a seed.
    ///
    /// # Errors
    /// [`KeyFormatError::NoSeed`] for the seed and `both` forms of a key imported from its
    /// expanded encoding.
    pub fn to_pkcs8_der_as(&self, form: PrivateKeyForm) -> Result<SecretDocument, KeyFormatError> {
        let expanded = || self.to_expanded_bytes();
        let seed = || {
            self.seed()
                .map(|s| *s.as_bytes())
                .ok_or(KeyFormatError::NoSeed)
        };
        let inner: Zeroizing<Vec<u8>> = Zeroizing::new(match form {
            PrivateKeyForm::Seed => {
                let seed = Zeroizing::new(seed()?);
                ContextSpecific {
                    tag_number: SEED_TAG,
                    tag_mode: TagMode::Implicit,
                    value: OctetStringRef::new(seed.as_ref())?,
                }
                .to_der()?
            }
            PrivateKeyForm::ExpandedKey => {
                let expanded = expanded();
                OctetStringRef::new(expanded.as_ref())?.to_der()?
            }
            PrivateKeyForm::Both => {
                let seed = Zeroizing::new(seed()?);
                let expanded = expanded();
                let both: [&OctetStringRef; 2] = [
                    OctetStringRef::new(seed.as_ref())?,
                    OctetStringRef::new(expanded.as_ref())?,
                ];
                both.as_slice().to_vec().to_der()?
            }
        });
        let info = PrivateKeyInfoRef::new(algorithm::<P>(), OctetStringRef::new(&inner)?);
        Ok(SecretDocument::encode_msg(&info)?)
    }
}

impl<P: ParameterSet> TryFrom<PrivateKeyInfoRef<'_>> for DecapsulationKey<P> {
    type Error = ::pkcs8::Error;

    /// Errors: `PublicKey(OidUnknown { oid })` for a key of another algorithm or parameter
    /// set, `ParametersMalformed` for parameters present, `KeyMalformed` for a key that fails
    /// a check (the inherent [`DecapsulationKey::from_pkcs8`] names it), `Asn1` for
    /// malformed DER.
    fn try_from(info: PrivateKeyInfoRef<'_>) -> Result<Self, ::pkcs8::Error> {
        match Self::from_private_key_info(&info) {
            Err(KeyFormatError::WrongAlgorithm) => {
                Err(match spki_algorithm_error::<P>(&info.algorithm) {
                    e @ spki::Error::OidUnknown { .. } => ::pkcs8::Error::PublicKey(e),
                    _ => ::pkcs8::Error::ParametersMalformed,
                })
            }
            other => Ok(other?),
        }
    }
}

impl<P: ParameterSet> EncodePrivateKey for DecapsulationKey<P> {
    /// The seed form, or the expanded form for a key without a seed.
    fn to_pkcs8_der(&self) -> ::pkcs8::Result<SecretDocument> {
        let form = if self.seed().is_some() {
            PrivateKeyForm::Seed
        } else {
            PrivateKeyForm::ExpandedKey
        };
        Ok(self.to_pkcs8_der_as(form)?)
    }
}

/// An encapsulation key of any parameter set, for key files whose set is known only once
/// read: the SPKI algorithm identifier picks it.
///
/// ```
/// use lazykem::pkcs8::{AnyEncapsulationKey, EncodePublicKey};
///
/// let dk = lazykem::ml_kem_1024::DecapsulationKey::from_seed(&[1; 64]);
/// let der = dk.encapsulation_key().to_public_key_der().unwrap();
/// let any = AnyEncapsulationKey::from_public_key_der(der.as_bytes())?;
/// assert_eq!(any.parameter_set(), "ML-KEM-1024");
/// let AnyEncapsulationKey::MlKem1024(ek) = any else { unreachable!() };
/// assert_eq!(&*ek, dk.encapsulation_key());
/// # Ok::<(), lazykem::pkcs8::KeyFormatError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AnyEncapsulationKey {
    /// An ML-KEM-512 key.
    MlKem512(Box<EncapsulationKey<crate::MlKem512>>),
    /// An ML-KEM-768 key.
    MlKem768(Box<EncapsulationKey<crate::MlKem768>>),
    /// An ML-KEM-1024 key.
    MlKem1024(Box<EncapsulationKey<crate::MlKem1024>>),
}

impl AnyEncapsulationKey {
    /// Parses a DER `SubjectPublicKeyInfo` of any ML-KEM parameter set.
    ///
    /// # Errors
    /// [`KeyFormatError::WrongAlgorithm`] for an algorithm that is not ML-KEM (or has
    /// parameters); the errors of [`EncapsulationKey::from_spki_der`] otherwise.
    pub fn from_public_key_der(der: &[u8]) -> Result<Self, KeyFormatError> {
        let spki = SubjectPublicKeyInfoRef::from_der(der)?;
        let oid = spki.algorithm.oid;
        Ok(if oid == self::oid::<crate::MlKem512>() {
            Self::MlKem512(Box::new(EncapsulationKey::from_spki(&spki)?))
        } else if oid == self::oid::<crate::MlKem768>() {
            Self::MlKem768(Box::new(EncapsulationKey::from_spki(&spki)?))
        } else if oid == self::oid::<crate::MlKem1024>() {
            Self::MlKem1024(Box::new(EncapsulationKey::from_spki(&spki)?))
        } else {
            return Err(KeyFormatError::WrongAlgorithm);
        })
    }

    /// [`Self::from_public_key_der`] from PEM (label `PUBLIC KEY`).
    ///
    /// # Errors
    /// Those of [`Self::from_public_key_der`]; [`KeyFormatError::Der`] for malformed PEM.
    #[cfg(feature = "pem")]
    pub fn from_public_key_pem(pem: &str) -> Result<Self, KeyFormatError> {
        let (label, der) = der::Document::from_pem(pem)?;
        check_pem_label(label, "PUBLIC KEY")?;
        Self::from_public_key_der(der.as_bytes())
    }

    /// The parameter set's name, "ML-KEM-768" and so on.
    #[must_use]
    pub const fn parameter_set(&self) -> &'static str {
        match self {
            Self::MlKem512(_) => crate::MlKem512::NAME,
            Self::MlKem768(_) => crate::MlKem768::NAME,
            Self::MlKem1024(_) => crate::MlKem1024::NAME,
        }
    }

    /// The encoded key.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Self::MlKem512(k) => k.as_bytes(),
            Self::MlKem768(k) => k.as_bytes(),
            Self::MlKem1024(k) => k.as_bytes(),
        }
    }
}

/// A decapsulation key of any parameter set, for key files whose set is known only once
/// read: the PKCS#8 algorithm identifier picks it. Any private form (seed, expandedKey,
/// both).
///
/// ```
/// use lazykem::pkcs8::{AnyDecapsulationKey, EncodePrivateKey};
///
/// let dk = lazykem::ml_kem_512::DecapsulationKey::from_seed(&[1; 64]);
/// let der = dk.to_pkcs8_der().unwrap();
/// match AnyDecapsulationKey::from_pkcs8_der(der.as_bytes())? {
///     AnyDecapsulationKey::MlKem512(key) => {
///         assert_eq!(key.encapsulation_key(), dk.encapsulation_key())
///     }
///     other => panic!("{}", other.parameter_set()),
/// }
/// # Ok::<(), lazykem::pkcs8::KeyFormatError>(())
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum AnyDecapsulationKey {
    /// An ML-KEM-512 key.
    MlKem512(Box<DecapsulationKey<crate::MlKem512>>),
    /// An ML-KEM-768 key.
    MlKem768(Box<DecapsulationKey<crate::MlKem768>>),
    /// An ML-KEM-1024 key.
    MlKem1024(Box<DecapsulationKey<crate::MlKem1024>>),
}

impl AnyDecapsulationKey {
    /// Parses a DER PKCS#8 `PrivateKeyInfo` of any ML-KEM parameter set.
    ///
    /// # Errors
    /// [`KeyFormatError::WrongAlgorithm`] for an algorithm that is not ML-KEM (or has
    /// parameters); the errors of [`DecapsulationKey::from_pkcs8`] otherwise.
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, KeyFormatError> {
        let info = PrivateKeyInfoRef::from_der(der)?;
        let oid = info.algorithm.oid;
        Ok(if oid == self::oid::<crate::MlKem512>() {
            Self::MlKem512(Box::new(DecapsulationKey::from_private_key_info(&info)?))
        } else if oid == self::oid::<crate::MlKem768>() {
            Self::MlKem768(Box::new(DecapsulationKey::from_private_key_info(&info)?))
        } else if oid == self::oid::<crate::MlKem1024>() {
            Self::MlKem1024(Box::new(DecapsulationKey::from_private_key_info(&info)?))
        } else {
            return Err(KeyFormatError::WrongAlgorithm);
        })
    }

    /// [`Self::from_pkcs8_der`] from PEM (label `PRIVATE KEY`).
    ///
    /// # Errors
    /// Those of [`Self::from_pkcs8_der`]; [`KeyFormatError::Der`] for malformed PEM.
    #[cfg(feature = "pem")]
    pub fn from_pkcs8_pem(pem: &str) -> Result<Self, KeyFormatError> {
        Self::from_pkcs8_der(private_key_pem(pem)?.as_bytes())
    }

    /// [`Self::from_pkcs8_der`] of a password-encrypted PKCS#8 key. Feature `encryption`.
    ///
    /// # Errors
    /// [`KeyFormatError::Encryption`] if decryption fails; those of [`Self::from_pkcs8_der`].
    #[cfg(feature = "encryption")]
    pub fn from_pkcs8_encrypted(
        der: &[u8],
        password: impl AsRef<[u8]>,
    ) -> Result<Self, KeyFormatError> {
        let plain = decrypt_pkcs8(der, password)?;
        Self::from_pkcs8_der(plain.as_bytes())
    }

    /// The parameter set's name, "ML-KEM-768" and so on.
    #[must_use]
    pub const fn parameter_set(&self) -> &'static str {
        match self {
            Self::MlKem512(_) => crate::MlKem512::NAME,
            Self::MlKem768(_) => crate::MlKem768::NAME,
            Self::MlKem1024(_) => crate::MlKem1024::NAME,
        }
    }
}
