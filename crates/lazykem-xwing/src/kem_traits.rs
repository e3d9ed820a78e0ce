//! The RustCrypto [`kem`] 0.3 traits (feature `kem`), as RustCrypto `x-wing` 0.1 implements
//! them: [`XWing`] is the [`kem::Kem`]; the encapsulation key has [`kem::Encapsulate`],
//! [`kem::TryKeyInit`] and [`kem::KeyExport`]; the decapsulation key has
//! [`kem::Decapsulate`], [`kem::Generate`], [`kem::KeyInit`] and [`kem::KeyExport`] (its
//! 32-byte seed, which it always has).
//!
//! ```
//! use kem::{Decapsulate, Encapsulate, Kem};
//!
//! /// Written against the traits only.
//! fn round_trip<K: Kem>() -> bool
//! where
//!     K::DecapsulationKey: Decapsulate,
//! {
//!     let (dk, ek) = K::generate_keypair_from_rng(&mut rand::rng());
//!     let (ct, sender) = ek.encapsulate_with_rng(&mut rand::rng());
//!     dk.decapsulate(&ct) == sender
//! }
//! assert!(round_trip::<lazykem_xwing::kem_traits::XWing>());
//! ```

use crate::{Ciphertext, DecapsulationKey, EncapsulationKey};
use hybrid_array::Array;
use hybrid_array::sizes::{U32, U1120, U1216};
use kem::{InvalidKey, Key, KeyExport, KeyInit, KeySizeUser, TryKeyInit};
use rand_core::{CryptoRng, TryCryptoRng};

/// X-Wing as a [`kem::Kem`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct XWing;

impl kem::Kem for XWing {
    type DecapsulationKey = DecapsulationKey;
    type EncapsulationKey = EncapsulationKey;
    type SharedKeySize = U32;
    type CiphertextSize = U1120;
}

impl KeySizeUser for EncapsulationKey {
    type KeySize = U1216;
}

/// Parses the encoding, as `from_bytes` does.
impl TryKeyInit for EncapsulationKey {
    fn new(key: &Key<Self>) -> Result<Self, InvalidKey> {
        Self::from_bytes(key.as_slice()).map_err(|_| InvalidKey)
    }
}

impl KeyExport for EncapsulationKey {
    fn to_bytes(&self) -> Key<Self> {
        Array::from(*self.as_bytes())
    }
}

impl kem::Encapsulate for EncapsulationKey {
    type Kem = XWing;

    fn encapsulate_with_rng<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
    ) -> (kem::Ciphertext<XWing>, kem::SharedKey<XWing>) {
        let (ct, secret) = self.encapsulate(rng);
        (Array::from(*ct.as_bytes()), Array::from(*secret.as_bytes()))
    }
}

impl kem::Decapsulator for DecapsulationKey {
    type Kem = XWing;

    fn encapsulation_key(&self) -> &EncapsulationKey {
        DecapsulationKey::encapsulation_key(self)
    }
}

impl kem::Decapsulate for DecapsulationKey {
    fn decapsulate(&self, ct: &kem::Ciphertext<XWing>) -> kem::SharedKey<XWing> {
        let ct = Ciphertext::from(ct.0);
        Array::from(*DecapsulationKey::decapsulate(self, &ct).as_bytes())
    }
}

impl kem::Generate for DecapsulationKey {
    fn try_generate_from_rng<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<Self, R::Error> {
        Self::try_generate(rng)
    }
}

/// The key is its 32-byte seed.
impl KeySizeUser for DecapsulationKey {
    type KeySize = U32;
}

impl KeyInit for DecapsulationKey {
    fn new(seed: &Key<Self>) -> Self {
        Self::from_seed(&seed.0)
    }
}

/// The 32-byte seed (a plain array: the caller owns and erases that copy).
impl KeyExport for DecapsulationKey {
    fn to_bytes(&self) -> Key<Self> {
        Array::from(*self.seed())
    }
}
