//! The PQ/T hybrid KEMs as HPKE KEMs (`draft-ietf-hpke-pq §4`): MLKEM768-P256 (0x0050),
//! MLKEM1024-P384 (0x0051) and MLKEM768-X25519 (0x647a), on `lazykem-hybrid`. Keys are the
//! 32-byte seed (`Nsk = 32`); `DeriveKeyPair(ikm)` derives the seed with SHAKE256's
//! `LabeledDerive`; `Encap`/`Decap` are the hybrid KEM's.

use super::{Kem, SharedSecret, check_len, enc_length, private_key_length, public_key_length};
use crate::kdf::{self, Secret};
use crate::{Error, KdfId, KemId};
use alloc::vec::Vec;
use core::marker::PhantomData;
use lazykem_hybrid::{
    Ciphertext, DecapsulationKey, EncapsulationKey, HybridKem, MlKem768P256, MlKem1024P384,
    SEED_SIZE, XWing,
};
use rand_core::CryptoRng;
use zeroize::Zeroizing;

/// The hybrid KEM `H`.
pub(crate) struct Hybrid<H>(PhantomData<H>);

/// The HPKE identifier of each hybrid KEM.
pub(crate) trait HybridId: HybridKem {
    const KEM: KemId;
}

impl HybridId for MlKem768P256 {
    const KEM: KemId = KemId::MlKem768P256;
}
impl HybridId for MlKem1024P384 {
    const KEM: KemId = KemId::MlKem1024P384;
}
impl HybridId for XWing {
    const KEM: KemId = KemId::MlKem768X25519;
}

fn shared(ss: &lazykem_hybrid::SharedSecret) -> SharedSecret {
    SharedSecret(Secret::from_slice(ss.as_bytes()))
}

impl<H: HybridId> Hybrid<H> {
    /// `DeriveKeyPair(ikm)` (`draft-ietf-hpke-pq §4`): `seed = SHAKE256.LabeledDerive(ikm,
    /// "DeriveKeyPair", "", 32)` with the KEM's suite_id, then the hybrid KEM's
    /// `DeriveKeyPair(seed)`.
    ///
    /// # Errors
    /// `lazykem-hybrid`'s [`lazykem_hybrid::Error::ScalarRejected`] if the seed's expansion
    /// holds no scalar of the NIST group (probability below 2^-128; X25519 never fails).
    pub(crate) fn derive(ikm: &[u8]) -> Result<DecapsulationKey<H>, lazykem_hybrid::Error> {
        let mut seed = Zeroizing::new([0u8; SEED_SIZE]);
        kdf::labeled_derive_short(
            KdfId::Shake256,
            &H::KEM.suite_id(),
            &[ikm],
            b"DeriveKeyPair",
            &[],
            seed.as_mut(),
        );
        DecapsulationKey::<H>::from_seed(&seed)
    }
}

impl<H: HybridId> Kem for Hybrid<H> {
    const ID: KemId = H::KEM;
    type PublicKey = EncapsulationKey<H>;
    type PrivateKey = DecapsulationKey<H>;

    fn derive_key_pair(ikm: &[u8]) -> Result<(Self::PrivateKey, Self::PublicKey), Error> {
        let dk = Self::derive(ikm).map_err(|_| Error::DeriveKeyPair)?;
        let ek = dk.encapsulation_key().clone();
        Ok((dk, ek))
    }

    fn generate_key_pair<R: CryptoRng + ?Sized>(
        rng: &mut R,
    ) -> Result<(Self::PrivateKey, Self::PublicKey), Error> {
        // A random 32-byte seed (drawn again in the < 2^-128 case that it holds no scalar).
        let dk = DecapsulationKey::<H>::generate(rng);
        let ek = dk.encapsulation_key().clone();
        Ok((dk, ek))
    }

    fn serialize_public_key(pk: &Self::PublicKey) -> &[u8] {
        pk.as_ref()
    }

    fn deserialize_public_key(bytes: &[u8]) -> Result<Self::PublicKey, Error> {
        check_len(bytes, Self::ID.n_pk(), public_key_length)?;
        // ML-KEM's modulus check (FIPS 203 §7.2) and, for a NIST group, the point check.
        EncapsulationKey::<H>::from_bytes(bytes).map_err(|_| Error::InvalidPublicKey)
    }

    fn serialize_private_key(sk: &Self::PrivateKey) -> Zeroizing<Vec<u8>> {
        Zeroizing::new(sk.seed().to_vec())
    }

    fn deserialize_private_key(bytes: &[u8]) -> Result<Self::PrivateKey, Error> {
        check_len(bytes, SEED_SIZE, private_key_length)?;
        // A seed of the right length fails only if it holds no NIST scalar.
        DecapsulationKey::<H>::from_seed_bytes(bytes).map_err(|_| Error::InvalidPrivateKey)
    }

    fn public_key(sk: &Self::PrivateKey) -> Self::PublicKey {
        sk.encapsulation_key().clone()
    }

    fn encap<R: CryptoRng + ?Sized>(
        pk: &Self::PublicKey,
        rng: &mut R,
    ) -> Result<(Vec<u8>, SharedSecret), Error> {
        let (ct, ss) = pk.encapsulate(rng);
        Ok((ct.as_ref().to_vec(), shared(&ss)))
    }

    #[cfg(feature = "hazmat")]
    fn encap_derand(
        pk: &Self::PublicKey,
        randomness: &[u8],
    ) -> Result<(Vec<u8>, SharedSecret), Error> {
        // The test vectors' ikmE: ML-KEM's m, then the group's RandomScalar seed.
        let (ct, ss) = pk
            .encapsulate_deterministic(randomness)
            .map_err(|e| match e {
                lazykem_hybrid::Error::Length {
                    expected, actual, ..
                } => Error::RandomnessLength { expected, actual },
                _ => Error::DeriveKeyPair,
            })?;
        Ok((ct.as_ref().to_vec(), shared(&ss)))
    }

    fn decap(enc: &[u8], sk: &Self::PrivateKey) -> Result<SharedSecret, Error> {
        check_len(enc, Self::ID.n_enc(), enc_length)?;
        // Parsing checks a NIST group's point; decapsulation cannot fail after it.
        let ct = Ciphertext::<H>::from_bytes(enc).map_err(|_| Error::InvalidEncapsulatedKey)?;
        Ok(shared(&sk.decapsulate(&ct)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_inputs_are_named_errors() {
        type K = Hybrid<MlKem768P256>;
        let (sk, pk) = K::derive_key_pair(&[5; 32]).unwrap();
        let mut bad_point = K::serialize_public_key(&pk).to_vec();
        *bad_point.last_mut().unwrap() ^= 1;
        assert_eq!(
            K::deserialize_public_key(&bad_point).err(),
            Some(Error::InvalidPublicKey)
        );
        let (enc, _) = K::encap(&pk, &mut rand::rng()).unwrap();
        let mut bad_enc = enc.clone();
        *bad_enc.last_mut().unwrap() ^= 1;
        assert_eq!(
            K::decap(&bad_enc, &sk).err(),
            Some(Error::InvalidEncapsulatedKey)
        );
        assert_eq!(
            K::decap(&enc[1..], &sk).err(),
            Some(Error::EncapsulatedKeyLength {
                expected: 1153,
                actual: 1152
            })
        );
        assert_eq!(
            K::deserialize_private_key(&[0; 64]).err(),
            Some(Error::PrivateKeyLength {
                expected: 32,
                actual: 64
            })
        );
    }
}
