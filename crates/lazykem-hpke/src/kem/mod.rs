//! The KEMs: one private trait ([`Kem`], the interface of `HPKE §4.1`), one implementation
//! per family (ML-KEM in [`mlkem`], DHKEM in [`dhkem`]), and the key types of the API,
//! which hold any KEM's keys behind that trait.

pub(crate) mod dhkem;
pub(crate) mod hybrid;
pub(crate) mod mlkem;

use crate::kdf::Secret;
use crate::{Error, KemId};
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use rand_core::{CryptoRng, TryCryptoRng, TryRng};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

/// A KEM shared secret (`Nsecret` bytes): erased on drop, compared in constant time, not
/// shown by `Debug`. The API hands one out only with the `hazmat` feature
/// ([`PublicKey::encapsulate_deterministic`], [`PrivateKey::decapsulate`]).
#[derive(Clone)]
pub struct SharedSecret(pub(crate) Secret);

impl SharedSecret {
    /// The secret's bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_slice()
    }
}

impl ConstantTimeEq for SharedSecret {
    fn ct_eq(&self, other: &Self) -> subtle::Choice {
        // Lengths are public (they follow from the KEM).
        self.as_bytes().ct_eq(other.as_bytes())
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

/// The KEM interface of `HPKE §4.1`, one implementation per KEM. Private (so sealed);
/// `Nsecret`, `Nenc`, `Npk` and `Nsk` are [`KemId`]'s, which the tests check every
/// implementation against.
pub(crate) trait Kem: 'static {
    /// The KEM's identifier.
    const ID: KemId;
    /// A parsed (validated) public key.
    type PublicKey: Clone + Send + Sync + 'static;
    /// A private key, erased on drop.
    type PrivateKey: Clone + Send + Sync + 'static;

    /// `DeriveKeyPair(ikm)`.
    fn derive_key_pair(ikm: &[u8]) -> Result<(Self::PrivateKey, Self::PublicKey), Error>;
    /// `GenerateKeyPair()`.
    fn generate_key_pair<R: CryptoRng + ?Sized>(
        rng: &mut R,
    ) -> Result<(Self::PrivateKey, Self::PublicKey), Error>;
    /// `SerializePublicKey(pk)`.
    fn serialize_public_key(pk: &Self::PublicKey) -> &[u8];
    /// `DeserializePublicKey(pkm)`, with the KEM's validation.
    fn deserialize_public_key(bytes: &[u8]) -> Result<Self::PublicKey, Error>;
    /// `SerializePrivateKey(sk)`.
    fn serialize_private_key(sk: &Self::PrivateKey) -> Zeroizing<Vec<u8>>;
    /// `DeserializePrivateKey(skm)`.
    fn deserialize_private_key(bytes: &[u8]) -> Result<Self::PrivateKey, Error>;
    /// `pk(sk)`.
    fn public_key(sk: &Self::PrivateKey) -> Self::PublicKey;
    /// `Encap(pkR)`: `(enc, shared_secret)`.
    fn encap<R: CryptoRng + ?Sized>(
        pk: &Self::PublicKey,
        rng: &mut R,
    ) -> Result<(Vec<u8>, SharedSecret), Error>;
    /// `Encap(pkR)` with the randomness given: what the test vectors' `ikmE` feeds.
    #[cfg(feature = "hazmat")]
    fn encap_derand(
        pk: &Self::PublicKey,
        randomness: &[u8],
    ) -> Result<(Vec<u8>, SharedSecret), Error>;
    /// `Decap(enc, skR)`.
    fn decap(enc: &[u8], sk: &Self::PrivateKey) -> Result<SharedSecret, Error>;
}

/// `&mut R` for a possibly unsized RNG as a `&mut dyn CryptoRng`.
struct RngRef<'a, R: ?Sized>(&'a mut R);

impl<R: CryptoRng + ?Sized> TryRng for RngRef<'_, R> {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.0.next_u32())
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.0.next_u64())
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        self.0.fill_bytes(dst);
        Ok(())
    }
}

impl<R: CryptoRng + ?Sized> TryCryptoRng for RngRef<'_, R> {}

/// A public key of some KEM, behind the object-safe face of [`Kem`].
trait DynPublic: Send + Sync {
    fn kem(&self) -> KemId;
    fn bytes(&self) -> &[u8];
    fn encap(&self, rng: &mut dyn CryptoRng) -> Result<(Vec<u8>, SharedSecret), Error>;
    #[cfg(feature = "hazmat")]
    fn encap_derand(&self, randomness: &[u8]) -> Result<(Vec<u8>, SharedSecret), Error>;
    fn boxed_clone(&self) -> Box<dyn DynPublic>;
}

struct PublicOf<K: Kem>(K::PublicKey);

impl<K: Kem> DynPublic for PublicOf<K> {
    fn kem(&self) -> KemId {
        K::ID
    }
    fn bytes(&self) -> &[u8] {
        K::serialize_public_key(&self.0)
    }
    fn encap(&self, rng: &mut dyn CryptoRng) -> Result<(Vec<u8>, SharedSecret), Error> {
        K::encap(&self.0, rng)
    }
    #[cfg(feature = "hazmat")]
    fn encap_derand(&self, randomness: &[u8]) -> Result<(Vec<u8>, SharedSecret), Error> {
        K::encap_derand(&self.0, randomness)
    }
    fn boxed_clone(&self) -> Box<dyn DynPublic> {
        Box::new(Self(self.0.clone()))
    }
}

/// A private key of some KEM.
trait DynPrivate: Send + Sync {
    fn kem(&self) -> KemId;
    fn to_bytes(&self) -> Zeroizing<Vec<u8>>;
    fn public_key(&self) -> PublicKey;
    fn decap(&self, enc: &[u8]) -> Result<SharedSecret, Error>;
}

struct PrivateOf<K: Kem>(K::PrivateKey);

impl<K: Kem> DynPrivate for PrivateOf<K> {
    fn kem(&self) -> KemId {
        K::ID
    }
    fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        K::serialize_private_key(&self.0)
    }
    fn public_key(&self) -> PublicKey {
        PublicKey(Box::new(PublicOf::<K>(K::public_key(&self.0))))
    }
    fn decap(&self, enc: &[u8]) -> Result<SharedSecret, Error> {
        K::decap(enc, &self.0)
    }
}

/// The keyless operations of some KEM.
trait DynKem: Sync {
    fn generate(&self, rng: &mut dyn CryptoRng) -> Result<(PrivateKey, PublicKey), Error>;
    fn derive(&self, ikm: &[u8]) -> Result<(PrivateKey, PublicKey), Error>;
    fn public_from_bytes(&self, bytes: &[u8]) -> Result<PublicKey, Error>;
    fn private_from_bytes(&self, bytes: &[u8]) -> Result<PrivateKey, Error>;
}

struct KemOf<K>(PhantomData<fn() -> K>);

fn wrap<K: Kem>((sk, pk): (K::PrivateKey, K::PublicKey)) -> (PrivateKey, PublicKey) {
    (
        PrivateKey(Box::new(PrivateOf::<K>(sk))),
        PublicKey(Box::new(PublicOf::<K>(pk))),
    )
}

impl<K: Kem> DynKem for KemOf<K> {
    fn generate(&self, rng: &mut dyn CryptoRng) -> Result<(PrivateKey, PublicKey), Error> {
        K::generate_key_pair(rng).map(wrap::<K>)
    }
    fn derive(&self, ikm: &[u8]) -> Result<(PrivateKey, PublicKey), Error> {
        K::derive_key_pair(ikm).map(wrap::<K>)
    }
    fn public_from_bytes(&self, bytes: &[u8]) -> Result<PublicKey, Error> {
        let pk = K::deserialize_public_key(bytes)?;
        Ok(PublicKey(Box::new(PublicOf::<K>(pk))))
    }
    fn private_from_bytes(&self, bytes: &[u8]) -> Result<PrivateKey, Error> {
        let sk = K::deserialize_private_key(bytes)?;
        Ok(PrivateKey(Box::new(PrivateOf::<K>(sk))))
    }
}

/// The implementation of a KEM identifier, or why this build has none (X448 without the
/// `x448` feature; with it every identifier has one).
#[cfg_attr(feature = "x448", allow(clippy::unnecessary_wraps))]
fn kem_of(kem: KemId) -> Result<&'static dyn DynKem, Error> {
    use hybrid::Hybrid;
    use lazykem::{MlKem512, MlKem768, MlKem1024};
    use lazykem_hybrid::{MlKem768P256, MlKem1024P384, XWing};
    Ok(match kem {
        KemId::MlKem512 => &KemOf::<mlkem::MlKem<MlKem512>>(PhantomData),
        KemId::MlKem768 => &KemOf::<mlkem::MlKem<MlKem768>>(PhantomData),
        KemId::MlKem1024 => &KemOf::<mlkem::MlKem<MlKem1024>>(PhantomData),
        KemId::DhkemP256HkdfSha256 => &KemOf::<dhkem::DhkemP256>(PhantomData),
        KemId::DhkemP384HkdfSha384 => &KemOf::<dhkem::DhkemP384>(PhantomData),
        KemId::DhkemX25519HkdfSha256 => &KemOf::<dhkem::DhkemX25519>(PhantomData),
        #[cfg(feature = "x448")]
        KemId::DhkemX448HkdfSha512 => &KemOf::<dhkem::DhkemX448>(PhantomData),
        #[cfg(not(feature = "x448"))]
        KemId::DhkemX448HkdfSha512 => return Err(Error::UnsupportedKem(kem)),
        KemId::MlKem768P256 => &KemOf::<Hybrid<MlKem768P256>>(PhantomData),
        KemId::MlKem1024P384 => &KemOf::<Hybrid<MlKem1024P384>>(PhantomData),
        KemId::MlKem768X25519 => &KemOf::<Hybrid<XWing>>(PhantomData),
    })
}

impl KemId {
    /// Whether this build implements the KEM (`false` only for DHKEM(X448) without the
    /// `x448` feature).
    #[must_use]
    pub fn is_supported(self) -> bool {
        kem_of(self).is_ok()
    }

    /// `GenerateKeyPair()`: a fresh key pair.
    ///
    /// # Errors
    /// [`Error::UnsupportedKem`] if this build lacks the KEM.
    pub fn generate_key_pair<R: CryptoRng + ?Sized>(
        self,
        rng: &mut R,
    ) -> Result<(PrivateKey, PublicKey), Error> {
        kem_of(self)?.generate(&mut RngRef(rng))
    }

    /// `DeriveKeyPair(ikm)`: the key pair `ikm` determines. `ikm` should hold at least `Nsk`
    /// bytes of entropy (`HPKE §4.1`).
    ///
    /// # Errors
    /// [`Error::UnsupportedKem`]; [`Error::DeriveKeyPair`] if a NIST-curve derivation
    /// rejects every candidate (negligible).
    pub fn derive_key_pair(self, ikm: &[u8]) -> Result<(PrivateKey, PublicKey), Error> {
        kem_of(self)?.derive(ikm)
    }
}

/// A recipient's public key for one KEM, parsed and validated once
/// (`DeserializePublicKey`, `HPKE §7.1.1` and `HPKE §7.1.4`; for ML-KEM the modulus check of
/// FIPS 203 §7.2 and the expanded matrix, kept for every encapsulation).
pub struct PublicKey(Box<dyn DynPublic>);

impl PublicKey {
    /// Parses an encoded public key (`Npk` bytes) of `kem`.
    ///
    /// # Errors
    /// [`Error::UnsupportedKem`]; [`Error::PublicKeyLength`]; [`Error::InvalidPublicKey`] if
    /// the KEM rejects the key.
    pub fn from_bytes(kem: KemId, bytes: &[u8]) -> Result<Self, Error> {
        kem_of(kem)?.public_from_bytes(bytes)
    }

    /// The key's KEM.
    #[must_use]
    pub fn kem(&self) -> KemId {
        self.0.kem()
    }

    /// `SerializePublicKey(pk)`: the `Npk` encoded bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        self.0.bytes()
    }

    pub(crate) fn encap<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
    ) -> Result<(Vec<u8>, SharedSecret), Error> {
        self.0.encap(&mut RngRef(rng))
    }

    /// `Encap(pkR)` with the randomness given: `(enc, shared_secret)`. **Hazardous**: for
    /// known-answer tests only; the randomness must never repeat. Enabled by the `hazmat`
    /// feature.
    ///
    /// The randomness is the test vectors' `ikmE`: ML-KEM's 32-byte message `m`; for a
    /// DHKEM, the `ikm` of the ephemeral `DeriveKeyPair` (any length, at least `Nsk`
    /// bytes of entropy); for a hybrid KEM, ML-KEM's `m` then the group's `RandomScalar`
    /// seed (64 bytes in all for MLKEM768-X25519, 80 for MLKEM1024-P384, 32 + 96 or 32 +
    /// 128 for MLKEM768-P256).
    ///
    /// # Errors
    /// [`Error::RandomnessLength`] (ML-KEM: not 32 bytes; a hybrid: not one of its lengths);
    /// [`Error::Validation`] (a DHKEM's
    /// all-zero DH output); [`Error::DeriveKeyPair`].
    #[cfg(feature = "hazmat")]
    pub fn encapsulate_deterministic(
        &self,
        randomness: &[u8],
    ) -> Result<(Vec<u8>, SharedSecret), Error> {
        self.0.encap_derand(randomness)
    }
}

impl Clone for PublicKey {
    fn clone(&self) -> Self {
        Self(self.0.boxed_clone())
    }
}

/// Same KEM and same encoding.
impl PartialEq for PublicKey {
    fn eq(&self, other: &Self) -> bool {
        self.kem() == other.kem() && self.as_bytes() == other.as_bytes()
    }
}

impl Eq for PublicKey {}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PublicKey")
            .field("kem", &self.kem())
            .finish_non_exhaustive()
    }
}

/// A recipient's private key for one KEM, erased on drop; `Debug` prints only the KEM.
///
/// ML-KEM keys are the 64-byte seed `d || z` (`draft-ietf-hpke-pq §3`), expanded once here
/// and kept expanded; DHKEM keys are the group's scalar and the cached public key.
pub struct PrivateKey(Box<dyn DynPrivate>);

impl PrivateKey {
    /// Parses an encoded private key (`Nsk` bytes) of `kem` (`DeserializePrivateKey`,
    /// `HPKE §7.1.2`).
    ///
    /// # Errors
    /// [`Error::UnsupportedKem`]; [`Error::PrivateKeyLength`]; [`Error::InvalidPrivateKey`]
    /// (a NIST-curve scalar that is zero or not below the group order).
    pub fn from_bytes(kem: KemId, bytes: &[u8]) -> Result<Self, Error> {
        kem_of(kem)?.private_from_bytes(bytes)
    }

    /// The key's KEM.
    #[must_use]
    pub fn kem(&self) -> KemId {
        self.0.kem()
    }

    /// `SerializePrivateKey(sk)`: the `Nsk` encoded bytes, erased when dropped. X25519 and
    /// X448 keys come out as stored, not clamped (they are clamped in each use), as
    /// `draft-ietf-hpke-hpke` and the test vectors have them.
    #[must_use]
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        self.0.to_bytes()
    }

    /// The matching public key, to publish.
    #[must_use]
    pub fn public_key(&self) -> PublicKey {
        self.0.public_key()
    }

    pub(crate) fn decap(&self, enc: &[u8]) -> Result<SharedSecret, Error> {
        self.0.decap(enc)
    }

    /// `Decap(enc, skR)`: the KEM shared secret. **Hazardous**: HPKE's key schedule is the
    /// way to use it; exposed for known-answer tests. Enabled by the `hazmat` feature.
    ///
    /// # Errors
    /// [`Error::EncapsulatedKeyLength`]; [`Error::InvalidEncapsulatedKey`];
    /// [`Error::Validation`].
    #[cfg(feature = "hazmat")]
    pub fn decapsulate(&self, enc: &[u8]) -> Result<SharedSecret, Error> {
        self.0.decap(enc)
    }
}

impl fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PrivateKey")
            .field("kem", &self.kem())
            .finish_non_exhaustive()
    }
}

/// A length error of `expected` bytes.
pub(crate) fn check_len(
    bytes: &[u8],
    expected: usize,
    err: fn(usize, usize) -> Error,
) -> Result<(), Error> {
    if bytes.len() == expected {
        Ok(())
    } else {
        Err(err(expected, bytes.len()))
    }
}

pub(crate) fn public_key_length(expected: usize, actual: usize) -> Error {
    Error::PublicKeyLength { expected, actual }
}

pub(crate) fn private_key_length(expected: usize, actual: usize) -> Error {
    Error::PrivateKeyLength { expected, actual }
}

pub(crate) fn enc_length(expected: usize, actual: usize) -> Error {
    Error::EncapsulatedKeyLength { expected, actual }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;

    /// Every implemented KEM's encodings have the registry's sizes, and its keys and
    /// secrets round-trip.
    #[test]
    fn sizes_match_the_registry() {
        let mut rng = rand::rng();
        for kem in KemId::ALL {
            if !kem.is_supported() {
                continue;
            }
            let (sk, pk) = kem.generate_key_pair(&mut rng).unwrap();
            assert_eq!(sk.kem(), kem);
            assert_eq!(pk.as_bytes().len(), kem.n_pk(), "{kem}");
            assert_eq!(sk.to_bytes().len(), kem.n_sk(), "{kem}");
            assert_eq!(sk.public_key(), pk, "{kem}");
            let (enc, ss) = pk.encap(&mut rng).unwrap();
            assert_eq!(enc.len(), kem.n_enc(), "{kem}");
            assert_eq!(ss.as_bytes().len(), kem.n_secret(), "{kem}");
            assert_eq!(sk.decap(&enc).unwrap(), ss, "{kem}");
            let again = PrivateKey::from_bytes(kem, &sk.to_bytes()).unwrap();
            assert_eq!(again.decap(&enc).unwrap(), ss, "{kem}");
            assert_eq!(PublicKey::from_bytes(kem, pk.as_bytes()).unwrap(), pk);
        }
    }

    #[test]
    fn debug_shows_no_secret() {
        let (sk, _) = KemId::DhkemX25519HkdfSha256
            .derive_key_pair(&[7; 32])
            .unwrap();
        assert_eq!(
            std::format!("{sk:?}"),
            "PrivateKey { kem: DhkemX25519HkdfSha256, .. }"
        );
        let ss = SharedSecret(Secret::from_slice(&[0xab; 32]));
        assert_eq!(std::format!("{ss:?}"), "SharedSecret(..)");
    }
}
