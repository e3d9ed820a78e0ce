//! [`DecapsulationKey`]: the 32-byte seed and what it expands to; `DeriveKeyPair` and
//! `Decaps` (draft-irtf-cfrg-hybrid-kems §5.1).

use core::fmt;

use rand_core::{CryptoRng, TryCryptoRng};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::SharedSecret;
use crate::bytes::ByteArray;
use crate::ciphertext::Ciphertext;
use crate::combiner::{combine, expand};
use crate::encapsulation_key::EncapsulationKey;
use crate::error::{Error, Part, array};
use crate::group::NominalGroup;
use crate::params::{HybridKem, SEED_SIZE};

/// A hybrid decapsulation key: the 32-byte seed and, cached, what it expands to (ML-KEM's
/// key with A-hat, the group scalar and the encapsulation key). Erased on drop; `Debug`
/// shows none of it.
pub struct DecapsulationKey<H: HybridKem> {
    seed: [u8; SEED_SIZE],
    sk_pq: lazykem::DecapsulationKey<H::Pq>,
    sk_t: <H::Group as NominalGroup>::Scalar,
    ek: EncapsulationKey<H>,
}

impl<H: HybridKem> DecapsulationKey<H> {
    /// `GenerateKeyPair()`: a new key from 32 random bytes (drawn again in the rare case,
    /// below 2^-128, that the seed holds no scalar of a NIST group).
    ///
    /// ```
    /// use lazykem_hybrid::x_wing;
    ///
    /// let dk = x_wing::DecapsulationKey::generate(&mut rand::rng());
    /// assert_eq!(dk.encapsulation_key().as_bytes().len(), x_wing::ENCAPSULATION_KEY_SIZE);
    /// ```
    pub fn generate<R: CryptoRng + ?Sized>(rng: &mut R) -> Self {
        match Self::try_generate(rng) {
            Ok(key) => key,
            Err(never) => match never {},
        }
    }

    /// [`Self::generate`] with a fallible RNG: the RNG's error if it fails.
    ///
    /// # Errors
    /// The RNG's error.
    pub fn try_generate<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<Self, R::Error> {
        let mut seed = Zeroizing::new([0u8; SEED_SIZE]);
        loop {
            rng.try_fill_bytes(seed.as_mut())?;
            if let Ok(key) = Self::from_seed(&seed) {
                return Ok(key);
            }
        }
    }

    /// [`Self::generate`] with the operating system's RNG. Enabled by the `getrandom`
    /// feature.
    ///
    /// # Errors
    /// [`Error::Rng`] with the OS RNG's error, if it fails.
    #[cfg(feature = "getrandom")]
    pub fn generate_with_os_rng() -> Result<Self, Error> {
        Ok(Self::try_generate(&mut getrandom::SysRng)?)
    }

    /// `DeriveKeyPair(seed)` (`expandDecapsulationKey`): the key of a 32-byte seed, which is
    /// all there is to store. `SHAKE256(seed, 64 + Nseed_T)` gives ML-KEM's `d || z` and the
    /// group's `RandomScalar` seed.
    ///
    /// ```
    /// use lazykem_hybrid::mlkem768_p256::DecapsulationKey;
    ///
    /// # fn main() -> Result<(), lazykem_hybrid::Error> {
    /// let a = DecapsulationKey::from_seed(&[7; 32])?;
    /// let b = DecapsulationKey::from_seed(a.seed())?;
    /// assert_eq!(a.encapsulation_key(), b.encapsulation_key());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`Error::ScalarRejected`] if the expanded seed holds no scalar of a NIST group
    /// (probability below 2^-128; X25519 never fails).
    pub fn from_seed(seed: &[u8; SEED_SIZE]) -> Result<Self, Error> {
        let (pq_seed, t_seed, n_t) = expand::<H>(seed);
        let sk_t = H::Group::random_scalar(&t_seed[..n_t])?;
        let pk_t = H::Group::exp_base(&sk_t);
        let sk_pq = lazykem::DecapsulationKey::<H::Pq>::from_seed(&pq_seed);
        let mut bytes = H::EncapsulationKeyBytes::zeroed();
        let (pq, t) = bytes
            .as_mut()
            .split_at_mut(<H::Pq as lazykem::ParameterSet>::ENCAPSULATION_KEY_SIZE);
        pq.copy_from_slice(sk_pq.encapsulation_key().as_ref());
        t.copy_from_slice(pk_t.as_ref());
        let ek = EncapsulationKey {
            bytes,
            pk_pq: sk_pq.encapsulation_key().clone(),
            pk_t,
        };
        Ok(Self {
            seed: *seed,
            sk_pq,
            sk_t,
            ek,
        })
    }

    /// [`Self::from_seed`] for a seed of unchecked length.
    ///
    /// # Errors
    /// [`Error::Length`] if `bytes` is not 32 bytes long; as [`Self::from_seed`].
    pub fn from_seed_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_seed(array::<SEED_SIZE>(H::NAME, Part::DecapsulationKey, bytes)?)
    }

    /// The 32-byte seed: the encoded decapsulation key.
    #[must_use]
    pub const fn seed(&self) -> &[u8; SEED_SIZE] {
        &self.seed
    }

    /// The matching encapsulation key, to publish.
    #[must_use]
    pub const fn encapsulation_key(&self) -> &EncapsulationKey<H> {
        &self.ek
    }

    /// `Decaps(dk, ct)`. Never fails: the ciphertext's group element was checked when it was
    /// parsed, and a ciphertext not made for this key gives an unrelated secret (ML-KEM's
    /// implicit rejection).
    ///
    /// ```
    /// use lazykem_hybrid::mlkem768_p256::DecapsulationKey;
    ///
    /// # fn main() -> Result<(), lazykem_hybrid::Error> {
    /// let dk = DecapsulationKey::from_seed(&[4; 32])?;
    /// let (ct, secret) = dk.encapsulation_key().encapsulate(&mut rand::rng());
    /// assert_eq!(dk.decapsulate(&ct), secret);
    /// # Ok(())
    /// # }
    /// ```
    #[must_use]
    pub fn decapsulate(&self, ct: &Ciphertext<H>) -> SharedSecret {
        let ss_pq = match lazykem::Ciphertext::<H::Pq>::from_bytes(ct.pq_bytes()) {
            Ok(ct_pq) => self.sk_pq.decapsulate(&ct_pq),
            // The length is the type's; this arm is never taken.
            Err(_) => return lazykem::__hybrid_internal::shared_secret([0; 32]),
        };
        let ss_t = Zeroizing::new(H::Group::exp(&ct.ct_t, &self.sk_t));
        combine::<H>(
            ss_pq.as_bytes(),
            ss_t.as_ref(),
            ct.t_bytes(),
            self.ek.pk_t.as_ref(),
        )
    }
}

impl<H: HybridKem> Clone for DecapsulationKey<H> {
    fn clone(&self) -> Self {
        Self {
            seed: self.seed,
            sk_pq: self.sk_pq.clone(),
            sk_t: self.sk_t.clone(),
            ek: self.ek.clone(),
        }
    }
}

impl<H: HybridKem> Drop for DecapsulationKey<H> {
    fn drop(&mut self) {
        self.seed.zeroize();
        // `sk_pq` and `sk_t` erase themselves on drop.
    }
}

impl<H: HybridKem> ZeroizeOnDrop for DecapsulationKey<H> {}

impl<H: HybridKem> fmt::Debug for DecapsulationKey<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecapsulationKey")
            .field("kem", &H::NAME)
            .finish_non_exhaustive()
    }
}
