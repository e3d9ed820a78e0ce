//! DHKEM(Group, KDF) (`HPKE §4.5`): DHKEM(P-256, HKDF-SHA256), DHKEM(P-384,
//! HKDF-SHA384), DHKEM(X25519, HKDF-SHA256) and DHKEM(X448, HKDF-SHA512), over the groups
//! of [`crate::group`]. Only the Base/PSK interface (`Encap`, `Decap`): this crate has no
//! Auth modes.

use super::{Kem, SharedSecret, check_len, enc_length, private_key_length, public_key_length};
use crate::group::{DhGroup, GroupError};
use crate::kdf::{self, Secret};
use crate::{Error, KdfId, KemId};
use alloc::vec::Vec;
use core::marker::PhantomData;
use rand_core::CryptoRng;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

/// A DHKEM: the group and the KEM's own KDF (always two-stage HKDF here; `HPKE §7.1.3`:
/// the DHKEM's functions use the KEM's KDF, not the suite's).
pub(crate) trait DhkemParams: 'static {
    type Group: DhGroup;
    const ID: KemId;
    const KDF: KdfId;
}

/// The DHKEM of `D`.
pub(crate) struct Dhkem<D>(PhantomData<D>);

macro_rules! dhkem {
    ($name:ident, $params:ident, $group:ty, $id:ident, $kdf:ident) => {
        pub(crate) struct $params;
        impl DhkemParams for $params {
            type Group = $group;
            const ID: KemId = KemId::$id;
            const KDF: KdfId = KdfId::$kdf;
        }
        pub(crate) type $name = Dhkem<$params>;
    };
}

dhkem!(
    DhkemP256,
    P256Params,
    crate::group::P256,
    DhkemP256HkdfSha256,
    HkdfSha256
);
dhkem!(
    DhkemP384,
    P384Params,
    crate::group::P384,
    DhkemP384HkdfSha384,
    HkdfSha384
);
dhkem!(
    DhkemX25519,
    X25519Params,
    crate::group::X25519,
    DhkemX25519HkdfSha256,
    HkdfSha256
);
#[cfg(feature = "x448")]
dhkem!(
    DhkemX448,
    X448Params,
    crate::group::X448,
    DhkemX448HkdfSha512,
    HkdfSha512
);

/// A DHKEM private key: the scalar and `pk(sk)`, which `Decap` needs for `kem_context`.
pub(crate) struct DhPrivate<G: DhGroup> {
    scalar: G::Scalar,
    public: G::Element,
}

impl<G: DhGroup> Clone for DhPrivate<G> {
    fn clone(&self) -> Self {
        Self {
            scalar: self.scalar.clone(),
            public: self.public.clone(),
        }
    }
}

impl<D: DhkemParams> Dhkem<D> {
    /// `DeriveKeyPair(ikm)` (`HPKE §7.1.3`): rejection sampling on the NIST curves (bitmask
    /// 0xFF for P-256 and P-384, a no-op), one `sk` for X25519/X448.
    fn derive(ikm: &[u8]) -> Result<DhPrivate<D::Group>, Error> {
        let suite_id = D::ID.suite_id();
        let mut bytes = Zeroizing::new([0u8; 64]);
        let candidate = &mut bytes[..D::Group::SCALAR_SIZE];
        let scalar = if D::Group::NIST {
            let mut found = None;
            for counter in 0..=255u8 {
                kdf::derive_candidate(D::KDF, &suite_id, ikm, counter, candidate)?;
                // scalar_from_bytes is OS2IP with the check 0 < sk < order.
                if let Ok(scalar) = D::Group::scalar_from_bytes(candidate) {
                    found = Some(scalar);
                    break;
                }
            }
            found.ok_or(Error::DeriveKeyPair)?
        } else {
            kdf::derive_sk(D::KDF, &suite_id, ikm, candidate)?;
            D::Group::scalar_from_bytes(candidate).map_err(|_| Error::DeriveKeyPair)?
        };
        let public = D::Group::exp_base(&scalar);
        Ok(DhPrivate { scalar, public })
    }

    /// `Encap` given the ephemeral key pair: `(enc, shared_secret)`.
    fn encap_with(
        pk_r: &<D::Group as DhGroup>::Element,
        ephemeral: &DhPrivate<D::Group>,
    ) -> Result<(Vec<u8>, SharedSecret), Error> {
        let dh = Self::dh(pk_r, &ephemeral.scalar)?;
        let enc = ephemeral.public.as_ref().to_vec();
        let ss = Self::extract_and_expand(&dh, &enc, pk_r.as_ref())?;
        Ok((enc, ss))
    }

    /// `DH(sk, pk)` with the zero check of X25519/X448 (`HPKE §7.1.4`), in constant time.
    fn dh(
        pk: &<D::Group as DhGroup>::Element,
        sk: &<D::Group as DhGroup>::Scalar,
    ) -> Result<Secret, Error> {
        let dh = D::Group::exp(pk, sk);
        if !D::Group::NIST {
            let zero = [0u8; 64];
            let zero = &zero[..D::Group::SHARED_SECRET_SIZE];
            if bool::from(dh.as_slice().ct_eq(zero)) {
                return Err(Error::Validation);
            }
        }
        Ok(dh)
    }

    /// `ExtractAndExpand(dh, enc || pkRm)` with the KEM's KDF, `Nsecret` bytes.
    fn extract_and_expand(dh: &Secret, enc: &[u8], pk_rm: &[u8]) -> Result<SharedSecret, Error> {
        let mut ss = Secret::zeroed(D::ID.n_secret());
        kdf::extract_and_expand(
            D::KDF,
            &D::ID.suite_id(),
            dh.as_slice(),
            &[enc, pk_rm],
            ss.as_mut(),
        )?;
        Ok(SharedSecret(ss))
    }
}

impl<D: DhkemParams> Kem for Dhkem<D> {
    const ID: KemId = D::ID;
    type PublicKey = <D::Group as DhGroup>::Element;
    type PrivateKey = DhPrivate<D::Group>;

    fn derive_key_pair(ikm: &[u8]) -> Result<(Self::PrivateKey, Self::PublicKey), Error> {
        let sk = Self::derive(ikm)?;
        let pk = sk.public.clone();
        Ok((sk, pk))
    }

    fn generate_key_pair<R: CryptoRng + ?Sized>(
        rng: &mut R,
    ) -> Result<(Self::PrivateKey, Self::PublicKey), Error> {
        // HPKE §7.1.3: GenerateKeyPair = DeriveKeyPair(random(Nsk)).
        let mut ikm = Zeroizing::new([0u8; 64]);
        let ikm = &mut ikm[..D::Group::SCALAR_SIZE];
        rng.fill_bytes(ikm);
        Self::derive_key_pair(ikm)
    }

    fn serialize_public_key(pk: &Self::PublicKey) -> &[u8] {
        pk.as_ref()
    }

    fn deserialize_public_key(bytes: &[u8]) -> Result<Self::PublicKey, Error> {
        check_len(bytes, D::Group::ELEMENT_SIZE, public_key_length)?;
        D::Group::element_from_bytes(bytes).map_err(|_| Error::InvalidPublicKey)
    }

    fn serialize_private_key(sk: &Self::PrivateKey) -> Zeroizing<Vec<u8>> {
        D::Group::scalar_to_bytes(&sk.scalar)
    }

    fn deserialize_private_key(bytes: &[u8]) -> Result<Self::PrivateKey, Error> {
        let scalar = D::Group::scalar_from_bytes(bytes).map_err(|e| match e {
            GroupError::Length => private_key_length(D::Group::SCALAR_SIZE, bytes.len()),
            GroupError::Invalid => Error::InvalidPrivateKey,
        })?;
        let public = D::Group::exp_base(&scalar);
        Ok(DhPrivate { scalar, public })
    }

    fn public_key(sk: &Self::PrivateKey) -> Self::PublicKey {
        sk.public.clone()
    }

    fn encap<R: CryptoRng + ?Sized>(
        pk: &Self::PublicKey,
        rng: &mut R,
    ) -> Result<(Vec<u8>, SharedSecret), Error> {
        let (ephemeral, _) = Self::generate_key_pair(rng)?;
        Self::encap_with(pk, &ephemeral)
    }

    #[cfg(feature = "hazmat")]
    fn encap_derand(
        pk: &Self::PublicKey,
        randomness: &[u8],
    ) -> Result<(Vec<u8>, SharedSecret), Error> {
        // The test vectors' ikmE: (skE, pkE) = DeriveKeyPair(ikmE).
        let ephemeral = Self::derive(randomness)?;
        Self::encap_with(pk, &ephemeral)
    }

    fn decap(enc: &[u8], sk: &Self::PrivateKey) -> Result<SharedSecret, Error> {
        check_len(enc, D::Group::ELEMENT_SIZE, enc_length)?;
        let pk_e = D::Group::element_from_bytes(enc).map_err(|_| Error::InvalidEncapsulatedKey)?;
        let dh = Self::dh(&pk_e, &sk.scalar)?;
        Self::extract_and_expand(&dh, enc, sk.public.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_inputs_are_named_errors() {
        // P-256: compressed form, off-curve point, scalar zero and >= n.
        let (sk, pk) = DhkemP256::derive_key_pair(b"ikm ikm ikm").unwrap();
        let mut compressed = pk.as_ref().to_vec();
        compressed[0] = 0x02;
        assert_eq!(
            DhkemP256::deserialize_public_key(&compressed).err(),
            Some(Error::InvalidPublicKey)
        );
        let mut off_curve = pk.as_ref().to_vec();
        off_curve[64] ^= 1;
        assert_eq!(
            DhkemP256::deserialize_public_key(&off_curve).err(),
            Some(Error::InvalidPublicKey)
        );
        assert_eq!(
            DhkemP256::decap(&off_curve, &sk).err(),
            Some(Error::InvalidEncapsulatedKey)
        );
        assert_eq!(
            DhkemP256::decap(&off_curve[..64], &sk).err(),
            Some(Error::EncapsulatedKeyLength {
                expected: 65,
                actual: 64
            })
        );
        assert_eq!(
            DhkemP256::deserialize_private_key(&[0; 32]).err(),
            Some(Error::InvalidPrivateKey)
        );
        assert_eq!(
            DhkemP256::deserialize_private_key(&[0xff; 32]).err(),
            Some(Error::InvalidPrivateKey)
        );
        assert_eq!(
            DhkemP384::deserialize_private_key(&[1; 32]).err(),
            Some(Error::PrivateKeyLength {
                expected: 48,
                actual: 32
            })
        );
        // X25519: a low-order point (here 0) as enc makes the DH output zero.
        let (sk, _) = DhkemX25519::derive_key_pair(b"ikm ikm ikm").unwrap();
        assert_eq!(
            DhkemX25519::decap(&[0; 32], &sk).err(),
            Some(Error::Validation)
        );
        let mut one = [0u8; 32];
        one[0] = 1;
        assert_eq!(DhkemX25519::decap(&one, &sk).err(), Some(Error::Validation));
        #[cfg(feature = "x448")]
        {
            let (sk, _) = DhkemX448::derive_key_pair(b"ikm ikm ikm").unwrap();
            assert_eq!(
                DhkemX448::decap(&[0; 56], &sk).err(),
                Some(Error::Validation)
            );
        }
    }
}
