//! The `hpke` crate's (rust-hpke 0.15) [`hpke::Kem`] trait for this crate's six
//! post-quantum KEMs (feature `rust-hpke`): ML-KEM-512/768/1024 on `lazykem`, MLKEM768-P256,
//! MLKEM1024-P384 and MLKEM768-X25519 on `lazykem-hybrid`. Code written against `hpke` gets
//! its key schedule, AEADs and contexts with this crate's KEMs.
//!
//! ```
//! use hpke::{Deserializable, Kem as _, OpModeR, OpModeS, Serializable};
//! use lazykem_hpke::rust_hpke::MlKem768;
//!
//! let mut rng = rand::rng();
//! let (sk, pk) = MlKem768::gen_keypair_with_rng(&mut rng);
//! let (enc, mut sender) = hpke::setup_sender_with_rng::<
//!     hpke::aead::AesGcm128,
//!     hpke::kdf::HkdfSha256,
//!     MlKem768,
//! >(&OpModeS::Base, &pk, b"info", &mut rng)
//! .unwrap();
//! let ct = sender.seal(b"message", b"aad").unwrap();
//!
//! let enc = <MlKem768 as hpke::Kem>::EncappedKey::from_bytes(&enc.to_bytes()).unwrap();
//! let mut receiver = hpke::setup_receiver::<
//!     hpke::aead::AesGcm128,
//!     hpke::kdf::HkdfSha256,
//!     MlKem768,
//! >(&OpModeR::Base, &sk, &enc, b"info")
//! .unwrap();
//! assert_eq!(receiver.open(&ct, b"aad").unwrap(), b"message");
//! ```
//!
//! The trait can be implemented outside `hpke`: it is not sealed, its associated types need
//! only `hpke`'s public `Serializable` / `Deserializable`, and `hpke::kem::SharedSecret`
//! (hidden from the docs, a public tuple struct) can be built. The Auth modes are refused:
//! an `encap_with_rng` given a sender key pair returns `HpkeError::EncapError`, a `decap`
//! given a sender public key `HpkeError::DecapError` (these KEMs have no `AuthEncap`,
//! `draft-ietf-hpke-pq §7.2`).
//!
//! `Serializable::write_exact` is total here: a buffer of the wrong length (a breach of the
//! trait's contract, which allows a panic) gets the common prefix and zeros after it.
//!
//! # Panics
//! `derive_keypair` of MLKEM768-P256 and MLKEM1024-P384 (and `gen_keypair*`, which calls
//! it) panics if the derived seed holds no scalar of the NIST group, with probability below
//! 2^-128 per `ikm` (never for X-Wing or ML-KEM): `hpke::Kem::derive_keypair` cannot return
//! an error, and `HPKE §8.2` lets an implementation abort on `DeriveKeyPairError`. This
//! crate's own [`crate::KemId::derive_key_pair`] returns [`crate::Error::DeriveKeyPair`].

use crate::kem::Kem;
use crate::kem::hybrid::{Hybrid, HybridId};
use crate::kem::mlkem::{MlKem, MlKemId};
use hpke::{Deserializable, HpkeError, Serializable};
// The same `hybrid-array` 0.4 as `hpke`'s, with the sizes above 1024 (`extra-sizes`).
use hybrid_array::Array;
use hybrid_array::sizes::{
    U32, U64, U768, U800, U1088, U1120, U1153, U1184, U1216, U1249, U1568, U1665,
};

/// `DeriveKeyPair` of ML-KEM, infallible.
fn derive_mlkem<P: MlKemId>(
    ikm: &[u8],
) -> (lazykem::DecapsulationKey<P>, lazykem::EncapsulationKey<P>) {
    MlKem::<P>::derive(ikm)
}

/// `DeriveKeyPair` of a hybrid KEM for `hpke`'s infallible `derive_keypair`.
///
/// # Panics
/// If the derived seed holds no scalar of the NIST group (MLKEM768-P256, MLKEM1024-P384:
/// probability below 2^-128 per `ikm`; X-Wing never): the trait has no way to report
/// `DeriveKeyPairError`, and `HPKE §8.2` lets an implementation abort on it. This crate's
/// own API returns [`crate::Error::DeriveKeyPair`] instead.
fn derive_hybrid<H: HybridId>(
    ikm: &[u8],
) -> (
    lazykem_hybrid::DecapsulationKey<H>,
    lazykem_hybrid::EncapsulationKey<H>,
) {
    match Hybrid::<H>::derive(ikm) {
        Ok(dk) => {
            let ek = dk.encapsulation_key().clone();
            (dk, ek)
        }
        Err(e) => panic!("DeriveKeyPairError (HPKE §8.2): {e}"),
    }
}

/// Copies `src` into `buf`, zeros where `src` is shorter, never panics.
fn write_total(src: &[u8], buf: &mut [u8]) {
    buf.fill(0);
    for (b, s) in buf.iter_mut().zip(src) {
        *b = *s;
    }
}

/// This crate's errors as `hpke`'s.
fn to_hpke(e: crate::Error) -> HpkeError {
    use crate::Error as E;
    match e {
        E::PublicKeyLength { expected, actual }
        | E::PrivateKeyLength { expected, actual }
        | E::EncapsulatedKeyLength { expected, actual } => {
            HpkeError::IncorrectInputLength(expected, actual)
        }
        _ => HpkeError::ValidationError,
    }
}

macro_rules! hpke_kem {
    (
        $(#[$doc:meta])*
        $kem:ident, $module:ident, $inner:ty, $derive:expr, $npk:ty, $nsk:ty, $nenc:ty
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $kem;

        #[doc = concat!("The key and ciphertext types of [`", stringify!($kem), "`].")]
        pub mod $module {
            use super::*;
            type K = $inner;

            /// A public (encapsulation) key, parsed and checked once.
            #[derive(Clone)]
            pub struct PublicKey(pub(super) <K as Kem>::PublicKey);

            impl core::fmt::Debug for PublicKey {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    f.debug_struct("PublicKey").finish_non_exhaustive()
                }
            }

            impl PartialEq for PublicKey {
                fn eq(&self, other: &Self) -> bool {
                    K::serialize_public_key(&self.0) == K::serialize_public_key(&other.0)
                }
            }

            impl Eq for PublicKey {}

            impl Serializable for PublicKey {
                type OutputSize = $npk;
                fn write_exact(&self, buf: &mut [u8]) {
                    write_total(K::serialize_public_key(&self.0), buf);
                }
            }

            impl Deserializable for PublicKey {
                fn from_bytes(encoded: &[u8]) -> Result<Self, HpkeError> {
                    K::deserialize_public_key(encoded).map(Self).map_err(to_hpke)
                }
            }

            /// A private key (its seed), erased on drop; `Debug` shows nothing.
            #[derive(Clone)]
            pub struct PrivateKey(pub(super) <K as Kem>::PrivateKey);

            impl core::fmt::Debug for PrivateKey {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    f.debug_struct("PrivateKey").finish_non_exhaustive()
                }
            }

            /// Compares the seeds in constant time.
            impl subtle::ConstantTimeEq for PrivateKey {
                fn ct_eq(&self, other: &Self) -> subtle::Choice {
                    K::serialize_private_key(&self.0).ct_eq(&K::serialize_private_key(&other.0))
                }
            }

            impl Serializable for PrivateKey {
                type OutputSize = $nsk;
                fn write_exact(&self, buf: &mut [u8]) {
                    write_total(&K::serialize_private_key(&self.0), buf);
                }
            }

            impl Deserializable for PrivateKey {
                fn from_bytes(encoded: &[u8]) -> Result<Self, HpkeError> {
                    K::deserialize_private_key(encoded).map(Self).map_err(to_hpke)
                }
            }

            /// An encapsulated key (the KEM's ciphertext).
            #[derive(Clone)]
            pub struct EncappedKey(pub(super) Array<u8, $nenc>);

            impl Serializable for EncappedKey {
                type OutputSize = $nenc;
                fn write_exact(&self, buf: &mut [u8]) {
                    write_total(&self.0, buf);
                }
            }

            impl Deserializable for EncappedKey {
                fn from_bytes(encoded: &[u8]) -> Result<Self, HpkeError> {
                    Array::try_from(encoded).map(Self).map_err(|_| {
                        HpkeError::IncorrectInputLength(
                            <$nenc as hybrid_array::typenum::Unsigned>::USIZE,
                            encoded.len(),
                        )
                    })
                }
            }
        }

        impl hpke::Kem for $kem {
            type PublicKey = $module::PublicKey;
            type PrivateKey = $module::PrivateKey;
            type EncappedKey = $module::EncappedKey;
            type NSecret = U32;
            const KEM_ID: u16 = <$inner as Kem>::ID.to_u16();

            fn sk_to_pk(sk: &Self::PrivateKey) -> Self::PublicKey {
                $module::PublicKey(<$inner as Kem>::public_key(&sk.0))
            }

            fn derive_keypair(ikm: &[u8]) -> (Self::PrivateKey, Self::PublicKey) {
                let (sk, pk) = $derive(ikm);
                ($module::PrivateKey(sk), $module::PublicKey(pk))
            }

            fn decap(
                sk_recip: &Self::PrivateKey,
                pk_sender_id: Option<&Self::PublicKey>,
                encapped_key: &Self::EncappedKey,
            ) -> Result<hpke::kem::SharedSecret<Self>, HpkeError> {
                if pk_sender_id.is_some() {
                    return Err(HpkeError::DecapError);
                }
                let ss = <$inner as Kem>::decap(&encapped_key.0, &sk_recip.0)
                    .map_err(|_| HpkeError::DecapError)?;
                Array::try_from(ss.as_bytes())
                    .map(hpke::kem::SharedSecret)
                    .map_err(|_| HpkeError::DecapError)
            }

            fn encap_with_rng(
                pk_recip: &Self::PublicKey,
                sender_id_keypair: Option<(&Self::PrivateKey, &Self::PublicKey)>,
                csprng: &mut impl rand_core::CryptoRng,
            ) -> Result<(hpke::kem::SharedSecret<Self>, Self::EncappedKey), HpkeError> {
                if sender_id_keypair.is_some() {
                    return Err(HpkeError::EncapError);
                }
                let (enc, ss) = <$inner as Kem>::encap(&pk_recip.0, csprng)
                    .map_err(|_| HpkeError::EncapError)?;
                let enc = Array::try_from(enc.as_slice()).map_err(|_| HpkeError::EncapError)?;
                let ss = Array::try_from(ss.as_bytes()).map_err(|_| HpkeError::EncapError)?;
                Ok((hpke::kem::SharedSecret(ss), $module::EncappedKey(enc)))
            }
        }
    };
}

hpke_kem!(
    /// ML-KEM-512 (KEM 0x0040, `draft-ietf-hpke-pq §3`) on `lazykem`, as an `hpke::Kem`.
    MlKem512, ml_kem_512, MlKem<lazykem::MlKem512>, derive_mlkem, U800, U64, U768
);
hpke_kem!(
    /// ML-KEM-768 (KEM 0x0041, `draft-ietf-hpke-pq §3`) on `lazykem`, as an `hpke::Kem`.
    MlKem768, ml_kem_768, MlKem<lazykem::MlKem768>, derive_mlkem, U1184, U64, U1088
);
hpke_kem!(
    /// ML-KEM-1024 (KEM 0x0042, `draft-ietf-hpke-pq §3`) on `lazykem`, as an `hpke::Kem`.
    MlKem1024, ml_kem_1024, MlKem<lazykem::MlKem1024>, derive_mlkem, U1568, U64, U1568
);
hpke_kem!(
    /// MLKEM768-P256 (KEM 0x0050, `draft-ietf-hpke-pq §4`) on `lazykem-hybrid`, as an
    /// `hpke::Kem`. `derive_keypair` panics with probability below 2^-128 (see the module
    /// docs).
    MlKem768P256,
    mlkem768_p256,
    Hybrid<lazykem_hybrid::MlKem768P256>,
    derive_hybrid,
    U1249,
    U32,
    U1153
);
hpke_kem!(
    /// MLKEM1024-P384 (KEM 0x0051, `draft-ietf-hpke-pq §4`) on `lazykem-hybrid`, as an
    /// `hpke::Kem`. `derive_keypair` panics with probability below 2^-128 (see the module
    /// docs).
    MlKem1024P384,
    mlkem1024_p384,
    Hybrid<lazykem_hybrid::MlKem1024P384>,
    derive_hybrid,
    U1665,
    U32,
    U1665
);
hpke_kem!(
    /// MLKEM768-X25519, X-Wing (KEM 0x647a, `draft-ietf-hpke-pq §4`) on `lazykem-hybrid`, as
    /// an `hpke::Kem`.
    MlKem768X25519,
    mlkem768_x25519,
    Hybrid<lazykem_hybrid::XWing>,
    derive_hybrid,
    U1216,
    U32,
    U1120
);

#[cfg(test)]
mod tests {
    use super::*;
    use hpke::Kem as _;

    #[test]
    fn auth_modes_are_refused_and_write_exact_is_total() {
        let mut rng = rand::rng();
        let (sk, pk) = MlKem768::derive_keypair(b"ikm");
        assert_eq!(
            MlKem768::encap_with_rng(&pk, Some((&sk, &pk)), &mut rng).err(),
            Some(HpkeError::EncapError)
        );
        let (_, enc) = MlKem768::encap_with_rng(&pk, None, &mut rng).unwrap();
        assert_eq!(
            MlKem768::decap(&sk, Some(&pk), &enc).err(),
            Some(HpkeError::DecapError)
        );
        let mut short = [1u8; 10];
        pk.write_exact(&mut short);
        assert_eq!(short, pk.to_bytes()[..10]);
        let mut long = [1u8; 1200];
        pk.write_exact(&mut long);
        assert_eq!(long[..1184], pk.to_bytes()[..]);
        assert_eq!(long[1184..], [0; 16]);
        assert_eq!(
            ml_kem_768::PublicKey::from_bytes(&[0; 10]).err(),
            Some(HpkeError::IncorrectInputLength(1184, 10))
        );
        assert_eq!(
            ml_kem_768::PublicKey::from_bytes(&[0xff; 1184]).err(),
            Some(HpkeError::ValidationError)
        );
    }
}
