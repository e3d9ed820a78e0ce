//! [`EncapsulationKey`]: `ek_PQ || ek_T`, parsed once, and `Encaps` (draft-irtf-cfrg-hybrid-kems
//! §5.1, `EncapsDerand` of its appendix A).

use core::fmt;

use rand_core::{CryptoRng, TryCryptoRng};
use zeroize::Zeroizing;

use crate::SharedSecret;
use crate::bytes::ByteArray;
use crate::ciphertext::Ciphertext;
use crate::combiner::combine;
use crate::error::{Error, Part};
use crate::group::NominalGroup;
use crate::params::{HybridKem, encapsulation_randomness_size};

/// The largest encapsulation randomness (P-256: 32 + 128).
pub(crate) const RANDOMNESS_MAX: usize = 160;

/// A hybrid encapsulation key (public key), parsed: ML-KEM's parsed key (t-hat, A-hat,
/// H(ek), checked by FIPS 203 §7.2) and the checked group element.
pub struct EncapsulationKey<H: HybridKem> {
    pub(crate) bytes: H::EncapsulationKeyBytes,
    pub(crate) pk_pq: lazykem::EncapsulationKey<H::Pq>,
    pub(crate) pk_t: <H::Group as NominalGroup>::Element,
}

impl<H: HybridKem> EncapsulationKey<H> {
    /// Parses an encoded key `ek_PQ || ek_T`. Parse once to encapsulate to the same key
    /// repeatedly: ML-KEM's A-hat and H(ek) and the group's point are computed here.
    ///
    /// ```
    /// use lazykem_hybrid::{Error, mlkem768_p256};
    ///
    /// # fn main() -> Result<(), Error> {
    /// let dk = mlkem768_p256::DecapsulationKey::from_seed(&[1; 32])?;
    /// let ek = mlkem768_p256::EncapsulationKey::from_bytes(dk.encapsulation_key().as_bytes())?;
    /// assert_eq!(&ek, dk.encapsulation_key());
    /// assert!(mlkem768_p256::EncapsulationKey::from_bytes(&[0; 10]).is_err());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`Error::Length`]; [`Error::MlKem`] if the ML-KEM part fails the modulus check;
    /// [`Error::InvalidElement`] if the group part is not an element (X25519 takes any 32
    /// bytes).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        if bytes.len() != H::ENCAPSULATION_KEY_SIZE {
            return Err(Error::Length {
                kem: H::NAME,
                part: Part::EncapsulationKey,
                expected: H::ENCAPSULATION_KEY_SIZE,
                actual: bytes.len(),
            });
        }
        let (pq, t) = bytes.split_at(<H::Pq as lazykem::ParameterSet>::ENCAPSULATION_KEY_SIZE);
        let pk_pq = lazykem::EncapsulationKey::from_bytes(pq).map_err(Error::MlKem)?;
        let pk_t = H::Group::element_from_bytes(t)?;
        let mut own = H::EncapsulationKeyBytes::zeroed();
        own.as_mut().copy_from_slice(bytes);
        Ok(Self {
            bytes: own,
            pk_pq,
            pk_t,
        })
    }

    /// The encoded key, `ek_PQ || ek_T`.
    #[must_use]
    pub const fn as_bytes(&self) -> &H::EncapsulationKeyBytes {
        &self.bytes
    }

    /// `Encaps(ek)`: a fresh shared secret and the ciphertext that carries it.
    ///
    /// On the NIST groups the ephemeral scalar is drawn by rejection: a draw is refused
    /// with probability below 2^-128 and then new bytes are drawn, so an RNG that always
    /// returns the same bytes might never finish.
    ///
    /// ```
    /// use lazykem_hybrid::mlkem1024_p384;
    ///
    /// let dk = mlkem1024_p384::DecapsulationKey::generate(&mut rand::rng());
    /// let (ct, secret) = dk.encapsulation_key().encapsulate(&mut rand::rng());
    /// assert_eq!(dk.decapsulate(&ct), secret);
    /// ```
    pub fn encapsulate<R: CryptoRng + ?Sized>(&self, rng: &mut R) -> (Ciphertext<H>, SharedSecret) {
        match self.try_encapsulate(rng) {
            Ok(out) => out,
            Err(never) => match never {},
        }
    }

    /// [`Self::encapsulate`] with a fallible RNG: the RNG's error if it fails.
    ///
    /// # Errors
    /// The RNG's error.
    pub fn try_encapsulate<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
    ) -> Result<(Ciphertext<H>, SharedSecret), R::Error> {
        let n = encapsulation_randomness_size::<H>();
        let mut randomness = Zeroizing::new([0u8; RANDOMNESS_MAX]);
        loop {
            rng.try_fill_bytes(&mut randomness[..n])?;
            if let Ok(out) = self.encapsulate_internal(&randomness[..n]) {
                return Ok(out);
            }
        }
    }

    /// [`Self::encapsulate`] with the operating system's RNG. Enabled by the `getrandom`
    /// feature.
    ///
    /// # Errors
    /// [`Error::Rng`] with the OS RNG's error, if it fails.
    #[cfg(feature = "getrandom")]
    pub fn encapsulate_with_os_rng(&self) -> Result<(Ciphertext<H>, SharedSecret), Error> {
        Ok(self.try_encapsulate(&mut getrandom::SysRng)?)
    }

    /// `EncapsDerand(ek, randomness)` (draft-irtf-cfrg-hybrid-kems appendix A): ML-KEM's
    /// 32-byte message, then `RandomScalar`'s seed for the ephemeral scalar. The seed is the
    /// group's `Nseed` bytes or, for P-256, any whole number of 32-byte chunks up to it (the
    /// drafts' vectors use 96 and 128).
    ///
    /// **Hazardous**: `randomness` must be fresh random bytes, never reused; this exists for
    /// known-answer tests. Enabled by the `hazmat` feature.
    ///
    /// # Errors
    /// [`Error::Length`]; [`Error::ScalarRejected`] if the seed holds no scalar.
    #[cfg(feature = "hazmat")]
    pub fn encapsulate_deterministic(
        &self,
        randomness: &[u8],
    ) -> Result<(Ciphertext<H>, SharedSecret), Error> {
        self.encapsulate_internal(randomness)
    }

    pub(crate) fn encapsulate_internal(
        &self,
        randomness: &[u8],
    ) -> Result<(Ciphertext<H>, SharedSecret), Error> {
        // ML-KEM's 32 bytes, then whole group scalars up to `Nseed` (X25519: exactly one).
        let n_scalar = <H::Group as NominalGroup>::SCALAR_SIZE;
        let seed_len = randomness.len().wrapping_sub(32);
        let valid = randomness.len() > 32
            && seed_len.is_multiple_of(n_scalar)
            && seed_len <= <H::Group as NominalGroup>::SEED_SIZE;
        let length_error = Error::Length {
            kem: H::NAME,
            part: Part::Randomness,
            expected: encapsulation_randomness_size::<H>(),
            actual: randomness.len(),
        };
        if !valid {
            return Err(length_error);
        }
        let (m, seed_t) = randomness.split_at(32);
        let m: &[u8; 32] = m.try_into().map_err(|_| length_error)?;
        let sk_e = H::Group::random_scalar(seed_t)?;
        let ct_t = H::Group::exp_base(&sk_e);
        let ss_t = Zeroizing::new(H::Group::exp(&self.pk_t, &sk_e));
        let (ct_pq, ss_pq) = lazykem::__hybrid_internal::encapsulate(&self.pk_pq, m);
        let ss = combine::<H>(
            ss_pq.as_bytes(),
            ss_t.as_ref(),
            ct_t.as_ref(),
            self.pk_t.as_ref(),
        );
        let mut bytes = H::CiphertextBytes::zeroed();
        let (pq, t) = bytes
            .as_mut()
            .split_at_mut(<H::Pq as lazykem::ParameterSet>::CIPHERTEXT_SIZE);
        pq.copy_from_slice(ct_pq.as_ref());
        t.copy_from_slice(ct_t.as_ref());
        Ok((Ciphertext { bytes, ct_t }, ss))
    }
}

impl<H: HybridKem> Clone for EncapsulationKey<H> {
    fn clone(&self) -> Self {
        Self {
            bytes: self.bytes,
            pk_pq: self.pk_pq.clone(),
            pk_t: self.pk_t.clone(),
        }
    }
}

impl<H: HybridKem> PartialEq for EncapsulationKey<H> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl<H: HybridKem> Eq for EncapsulationKey<H> {}

impl<H: HybridKem> core::hash::Hash for EncapsulationKey<H> {
    fn hash<S: core::hash::Hasher>(&self, state: &mut S) {
        self.bytes.hash(state);
    }
}

impl<H: HybridKem> AsRef<[u8]> for EncapsulationKey<H> {
    fn as_ref(&self) -> &[u8] {
        self.bytes.as_ref()
    }
}

impl<H: HybridKem> TryFrom<&[u8]> for EncapsulationKey<H> {
    type Error = Error;
    fn try_from(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes(bytes)
    }
}

impl<H: HybridKem> fmt::Debug for EncapsulationKey<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EncapsulationKey")
            .field("kem", &H::NAME)
            .finish_non_exhaustive()
    }
}
