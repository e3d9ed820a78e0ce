//! The RustCrypto [`kem`] 0.3 traits (feature `kem`). Each KEM marker ([`XWing`],
//! [`MlKem768P256`], [`MlKem1024P384`]) is a [`kem::Kem`]; encapsulation keys have
//! [`kem::Encapsulate`], [`kem::TryKeyInit`] and [`kem::KeyExport`]; decapsulation keys have
//! [`kem::Generate`], [`kem::KeyExport`] (the 32-byte seed) and, for X-Wing,
//! [`kem::Decapsulate`] and [`kem::KeyInit`] as RustCrypto `x-wing` 0.1 has them; the NIST
//! hybrids have [`kem::TryDecapsulate`] (a ciphertext whose point is not on the curve is an
//! [`Error`]) and [`kem::TryKeyInit`] (a seed with no scalar, below 2^-128).
//!
//! ```
//! use kem::{Encapsulate, Kem, TryDecapsulate};
//!
//! /// Written against the traits only.
//! fn round_trip<K: Kem>() -> bool {
//!     let (dk, ek) = K::generate_keypair_from_rng(&mut rand::rng());
//!     let (ct, sender) = ek.encapsulate_with_rng(&mut rand::rng());
//!     dk.try_decapsulate(&ct).ok() == Some(sender)
//! }
//! assert!(round_trip::<lazykem_hybrid::XWing>());
//! assert!(round_trip::<lazykem_hybrid::MlKem768P256>());
//! assert!(round_trip::<lazykem_hybrid::MlKem1024P384>());
//! ```

use hybrid_array::Array;
use hybrid_array::sizes::{U32, U1120, U1153, U1216, U1249, U1665};
use kem::{InvalidKey, Key, KeyExport, KeySizeUser, TryKeyInit};
use rand_core::{CryptoRng, TryCryptoRng};

use crate::{
    Ciphertext, DecapsulationKey, EncapsulationKey, Error, MlKem768P256, MlKem1024P384, XWing,
};

macro_rules! common {
    ($kem:ty, $ek:ty, $ct:ty) => {
        impl kem::Kem for $kem {
            type DecapsulationKey = DecapsulationKey<$kem>;
            type EncapsulationKey = EncapsulationKey<$kem>;
            type SharedKeySize = U32;
            type CiphertextSize = $ct;
        }

        impl KeySizeUser for EncapsulationKey<$kem> {
            type KeySize = $ek;
        }

        /// Parses the encoding, as `from_bytes` does.
        impl TryKeyInit for EncapsulationKey<$kem> {
            fn new(key: &Key<Self>) -> Result<Self, InvalidKey> {
                Self::from_bytes(key.as_slice()).map_err(|_| InvalidKey)
            }
        }

        impl KeyExport for EncapsulationKey<$kem> {
            fn to_bytes(&self) -> Key<Self> {
                Array::from(*self.as_bytes())
            }
        }

        impl kem::Encapsulate for EncapsulationKey<$kem> {
            type Kem = $kem;

            fn encapsulate_with_rng<R: CryptoRng + ?Sized>(
                &self,
                rng: &mut R,
            ) -> (kem::Ciphertext<$kem>, kem::SharedKey<$kem>) {
                let (ct, secret) = self.encapsulate(rng);
                (Array::from(*ct.as_bytes()), Array::from(*secret.as_bytes()))
            }
        }

        impl kem::Decapsulator for DecapsulationKey<$kem> {
            type Kem = $kem;

            fn encapsulation_key(&self) -> &EncapsulationKey<$kem> {
                DecapsulationKey::encapsulation_key(self)
            }
        }

        impl kem::Generate for DecapsulationKey<$kem> {
            fn try_generate_from_rng<R: TryCryptoRng + ?Sized>(
                rng: &mut R,
            ) -> Result<Self, R::Error> {
                Self::try_generate(rng)
            }
        }

        /// The key is its 32-byte seed.
        impl KeySizeUser for DecapsulationKey<$kem> {
            type KeySize = U32;
        }

        /// The 32-byte seed (a plain array: the caller owns and erases that copy).
        impl KeyExport for DecapsulationKey<$kem> {
            fn to_bytes(&self) -> Key<Self> {
                Array::from(*self.seed())
            }
        }
    };
}

common!(XWing, U1216, U1120);
common!(MlKem768P256, U1249, U1153);
common!(MlKem1024P384, U1665, U1665);

/// X-Wing's ciphertexts and seeds are all valid: decapsulation and key setup cannot fail.
impl kem::Decapsulate for DecapsulationKey<XWing> {
    fn decapsulate(&self, ct: &kem::Ciphertext<XWing>) -> kem::SharedKey<XWing> {
        let ct = Ciphertext::<XWing>::from_bytes(ct.as_slice())
            .expect("X25519 takes every 32-byte string and the length is the type's");
        Array::from(*DecapsulationKey::decapsulate(self, &ct).as_bytes())
    }
}

impl kem::KeyInit for DecapsulationKey<XWing> {
    fn new(seed: &Key<Self>) -> Self {
        Self::from_seed(&seed.0).expect("X25519's RandomScalar is the identity: it never fails")
    }
}

macro_rules! nist {
    ($kem:ty) => {
        /// A ciphertext whose point is not on the curve is [`Error::InvalidElement`].
        impl kem::TryDecapsulate for DecapsulationKey<$kem> {
            type Error = Error;

            fn try_decapsulate(
                &self,
                ct: &kem::Ciphertext<$kem>,
            ) -> Result<kem::SharedKey<$kem>, Error> {
                let ct = Ciphertext::<$kem>::from_bytes(ct.as_slice())?;
                Ok(Array::from(
                    *DecapsulationKey::decapsulate(self, &ct).as_bytes(),
                ))
            }
        }

        /// `from_seed`; a seed with no scalar (below 2^-128) is `InvalidKey`.
        impl TryKeyInit for DecapsulationKey<$kem> {
            fn new(seed: &Key<Self>) -> Result<Self, InvalidKey> {
                Self::from_seed(&seed.0).map_err(|_| InvalidKey)
            }
        }
    };
}

nist!(MlKem768P256);
nist!(MlKem1024P384);
