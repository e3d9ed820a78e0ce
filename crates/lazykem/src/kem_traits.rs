//! The RustCrypto [`kem`] 0.3 traits (feature `kem`), the version RustCrypto `ml-kem` 0.3
//! implements, so code written against them can take this crate in its place.
//!
//! Per parameter set: [`kem::Kem`] on the marker type ([`crate::MlKem768`] and so on);
//! [`kem::Encapsulate`], [`kem::KeyExport`] and [`kem::TryKeyInit`] on the encapsulation key
//! (its encoding); [`kem::Decapsulate`], [`kem::Decapsulator`], [`kem::Generate`] and
//! [`kem::KeyInit`] (from the 64-byte seed `d || z`, which gives [`kem::FromSeed`]) on the
//! decapsulation key.
//!
//! Not implemented: [`kem::KeyExport`] on the decapsulation key, whose `to_bytes` cannot
//! fail, while a key imported from its expanded encoding has no seed to export (RustCrypto
//! `ml-kem` panics there; this crate's functions do not panic). Use
//! [`crate::DecapsulationKey::seed`] or `to_expanded_bytes`.
//!
//! The traits return shared keys as plain `hybrid_array::Array`s, which are not erased on
//! drop: the caller owns that copy. [`crate::SharedSecret`] (from the inherent methods) is.
//!
//! ```
//! use kem::{Decapsulate, Encapsulate, FromSeed, Kem};
//!
//! /// Written against the traits only: works with any `kem` 0.3 KEM.
//! fn agree<K: Kem + FromSeed>(seed: &kem::Seed<K>) -> bool
//! where
//!     K::DecapsulationKey: Decapsulate,
//! {
//!     let (dk, ek) = K::from_seed(seed);
//!     let (ct, sender) = ek.encapsulate_with_rng(&mut rand::rng());
//!     dk.decapsulate(&ct) == sender
//! }
//! assert!(agree::<lazykem::MlKem768>(&[7; 64].into()));
//! ```

use crate::{Ciphertext, DecapsulationKey, EncapsulationKey, MlKem512, MlKem768, MlKem1024};
use hybrid_array::Array;
use hybrid_array::sizes::{U32, U64, U768, U800, U1088, U1184, U1568};
use kem::{InvalidKey, Key, KeyExport, KeyInit, KeySizeUser, TryKeyInit};
use rand_core::{CryptoRng, TryCryptoRng};

macro_rules! kem_traits {
    ($set:ty, ek: $ek_size:ty, ct: $ct_size:ty) => {
        impl kem::Kem for $set {
            type DecapsulationKey = DecapsulationKey<$set>;
            type EncapsulationKey = EncapsulationKey<$set>;
            type SharedKeySize = U32;
            type CiphertextSize = $ct_size;
        }

        impl KeySizeUser for EncapsulationKey<$set> {
            type KeySize = $ek_size;
        }

        /// Parses and checks the encoding (FIPS 203 §7.2), as `from_bytes` does.
        impl TryKeyInit for EncapsulationKey<$set> {
            fn new(key: &Key<Self>) -> Result<Self, InvalidKey> {
                Self::from_bytes(key.as_slice()).map_err(|_| InvalidKey)
            }
        }

        /// The encoding, `ByteEncode_12(t-hat) || rho`.
        impl KeyExport for EncapsulationKey<$set> {
            fn to_bytes(&self) -> Key<Self> {
                Array::from(*self.as_bytes())
            }
        }

        impl kem::Encapsulate for EncapsulationKey<$set> {
            type Kem = $set;

            fn encapsulate_with_rng<R: CryptoRng + ?Sized>(
                &self,
                rng: &mut R,
            ) -> (kem::Ciphertext<$set>, kem::SharedKey<$set>) {
                let (ct, secret) = self.encapsulate(rng);
                (Array::from(*ct.as_bytes()), Array::from(*secret.as_bytes()))
            }
        }

        impl kem::Decapsulator for DecapsulationKey<$set> {
            type Kem = $set;

            fn encapsulation_key(&self) -> &EncapsulationKey<$set> {
                DecapsulationKey::encapsulation_key(self)
            }
        }

        /// `ML-KEM.Decaps`, with implicit rejection: never fails.
        impl kem::Decapsulate for DecapsulationKey<$set> {
            fn decapsulate(&self, ct: &kem::Ciphertext<$set>) -> kem::SharedKey<$set> {
                let ct = Ciphertext::<$set>::from(ct.0);
                Array::from(*DecapsulationKey::decapsulate(self, &ct).as_bytes())
            }
        }

        impl kem::Generate for DecapsulationKey<$set> {
            fn try_generate_from_rng<R: TryCryptoRng + ?Sized>(
                rng: &mut R,
            ) -> Result<Self, R::Error> {
                Self::try_generate(rng)
            }
        }

        /// The key is its 64-byte seed `d || z`.
        impl KeySizeUser for DecapsulationKey<$set> {
            type KeySize = U64;
        }

        /// `ML-KEM.KeyGen_internal` from the seed `d || z`, as `from_seed` does.
        impl KeyInit for DecapsulationKey<$set> {
            fn new(seed: &Key<Self>) -> Self {
                Self::from_seed(&seed.0)
            }
        }
    };
}

kem_traits!(MlKem512, ek: U800, ct: U768);
kem_traits!(MlKem768, ek: U1184, ct: U1088);
kem_traits!(MlKem1024, ek: U1568, ct: U1568);
