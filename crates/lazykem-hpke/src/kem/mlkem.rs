//! ML-KEM-512, -768 and -1024 as HPKE KEMs (`draft-ietf-hpke-pq §3`), on the `lazykem`
//! crate: seed-form private keys (`Nsk = 64`), `DeriveKeyPair` through SHAKE256's
//! `LabeledDerive`, `Encap`/`Decap` as `ML-KEM.Encaps`/`ML-KEM.Decaps`.

use super::{Kem, SharedSecret, check_len, enc_length, private_key_length, public_key_length};
use crate::kdf::{self, Secret};
use crate::{Error, KdfId, KemId};
use alloc::vec::Vec;
use core::marker::PhantomData;
use lazykem::{Ciphertext, DecapsulationKey, EncapsulationKey, MlKem512, MlKem768, MlKem1024};
use lazykem::{ParameterSet, SEED_SIZE};
use rand_core::CryptoRng;
use zeroize::Zeroizing;

/// ML-KEM with parameter set `P`.
pub(crate) struct MlKem<P>(PhantomData<P>);

/// The HPKE identifier of each parameter set.
pub(crate) trait MlKemId: ParameterSet {
    const KEM: KemId;
}

impl MlKemId for MlKem512 {
    const KEM: KemId = KemId::MlKem512;
}
impl MlKemId for MlKem768 {
    const KEM: KemId = KemId::MlKem768;
}
impl MlKemId for MlKem1024 {
    const KEM: KemId = KemId::MlKem1024;
}

fn shared(ss: &lazykem::SharedSecret) -> SharedSecret {
    SharedSecret(Secret::from_slice(ss.as_bytes()))
}

impl<P: MlKemId> MlKem<P> {
    /// `DeriveKeyPair(ikm)` (`draft-ietf-hpke-pq §3`): `dk = SHAKE256.LabeledDerive(ikm,
    /// "DeriveKeyPair", "", 64)` with the KEM's suite_id, then `ML-KEM.KeyGen_internal(d,
    /// z)`. Infallible.
    pub(crate) fn derive(ikm: &[u8]) -> (DecapsulationKey<P>, EncapsulationKey<P>) {
        let mut seed = Zeroizing::new([0u8; SEED_SIZE]);
        kdf::labeled_derive_short(
            KdfId::Shake256,
            &P::KEM.suite_id(),
            &[ikm],
            b"DeriveKeyPair",
            &[],
            seed.as_mut(),
        );
        let dk = DecapsulationKey::<P>::from_seed(&seed);
        let ek = dk.encapsulation_key().clone();
        (dk, ek)
    }
}

impl<P: MlKemId> Kem for MlKem<P> {
    const ID: KemId = P::KEM;
    type PublicKey = EncapsulationKey<P>;
    type PrivateKey = DecapsulationKey<P>;

    fn derive_key_pair(ikm: &[u8]) -> Result<(Self::PrivateKey, Self::PublicKey), Error> {
        Ok(Self::derive(ikm))
    }

    fn generate_key_pair<R: CryptoRng + ?Sized>(
        rng: &mut R,
    ) -> Result<(Self::PrivateKey, Self::PublicKey), Error> {
        // draft-ietf-hpke-pq §3 GenerateKeyPair: a random 64-byte seed.
        let mut seed = Zeroizing::new([0u8; SEED_SIZE]);
        rng.fill_bytes(seed.as_mut());
        let dk = DecapsulationKey::<P>::from_seed(&seed);
        let ek = dk.encapsulation_key().clone();
        Ok((dk, ek))
    }

    fn serialize_public_key(pk: &Self::PublicKey) -> &[u8] {
        pk.as_bytes().as_ref()
    }

    fn deserialize_public_key(bytes: &[u8]) -> Result<Self::PublicKey, Error> {
        check_len(bytes, Self::ID.n_pk(), public_key_length)?;
        // The modulus check of FIPS 203 §7.2 (`Encap`'s "encapsulation key check").
        EncapsulationKey::<P>::from_bytes(bytes).map_err(|_| Error::InvalidPublicKey)
    }

    fn serialize_private_key(sk: &Self::PrivateKey) -> Zeroizing<Vec<u8>> {
        // Every key of this module is built from its seed, which lazykem keeps.
        Zeroizing::new(sk.seed().map(|s| s.as_bytes().to_vec()).unwrap_or_default())
    }

    fn deserialize_private_key(bytes: &[u8]) -> Result<Self::PrivateKey, Error> {
        check_len(bytes, SEED_SIZE, private_key_length)?;
        let mut seed = Zeroizing::new([0u8; SEED_SIZE]);
        seed.copy_from_slice(bytes);
        Ok(DecapsulationKey::<P>::from_seed(&seed))
    }

    fn public_key(sk: &Self::PrivateKey) -> Self::PublicKey {
        sk.encapsulation_key().clone()
    }

    fn encap<R: CryptoRng + ?Sized>(
        pk: &Self::PublicKey,
        rng: &mut R,
    ) -> Result<(Vec<u8>, SharedSecret), Error> {
        let (ct, ss) = pk.encapsulate(rng);
        Ok((ct.as_bytes().as_ref().to_vec(), shared(&ss)))
    }

    #[cfg(feature = "hazmat")]
    fn encap_derand(
        pk: &Self::PublicKey,
        randomness: &[u8],
    ) -> Result<(Vec<u8>, SharedSecret), Error> {
        let m: &[u8; 32] = randomness.try_into().map_err(|_| Error::RandomnessLength {
            expected: 32,
            actual: randomness.len(),
        })?;
        let (ct, ss) = pk.encapsulate_deterministic(m);
        Ok((ct.as_bytes().as_ref().to_vec(), shared(&ss)))
    }

    fn decap(enc: &[u8], sk: &Self::PrivateKey) -> Result<SharedSecret, Error> {
        // The ciphertext type check (FIPS 203 §7.3) is the length; implicit rejection does
        // the rest, so a wrong ciphertext gives an unrelated secret and a failed `Open`.
        check_len(enc, Self::ID.n_enc(), enc_length)?;
        let ct = Ciphertext::<P>::from_bytes(enc)
            .map_err(|_| enc_length(Self::ID.n_enc(), enc.len()))?;
        Ok(shared(&sk.decapsulate(&ct)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_inputs_are_named_errors() {
        type K = MlKem<MlKem768>;
        assert_eq!(
            K::deserialize_public_key(&[0; 1183]).err(),
            Some(Error::PublicKeyLength {
                expected: 1184,
                actual: 1183
            })
        );
        // Coefficients of 0xfff (> q) fail the modulus check.
        assert_eq!(
            K::deserialize_public_key(&[0xff; 1184]).err(),
            Some(Error::InvalidPublicKey)
        );
        assert_eq!(
            K::deserialize_private_key(&[0; 32]).err(),
            Some(Error::PrivateKeyLength {
                expected: 64,
                actual: 32
            })
        );
        let (sk, _) = K::derive_key_pair(b"ikm").unwrap();
        assert_eq!(
            K::decap(&[0; 1087], &sk).err(),
            Some(Error::EncapsulatedKeyLength {
                expected: 1088,
                actual: 1087
            })
        );
    }
}
