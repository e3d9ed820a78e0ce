//! [`EncapsulationKey`]: the parsed public key, generic over the parameter set.

use crate::Ciphertext;
use crate::Error;
use crate::backend::AnyBackend;
use crate::input::{check_ek_length, self_test_gate};
use crate::params::{ByteArray, ParameterSet};
use crate::secret::SharedSecret;
use rand_core::{CryptoRng, TryCryptoRng};
use zeroize::Zeroizing;

/// An encapsulation key (public key), parsed.
///
/// Parsing checks it (FIPS 203 §7.2) and computes, once, everything an encapsulation
/// would otherwise recompute: the decoded t-hat, the expanded matrix A-hat and H(ek). Keep
/// the parsed key to encapsulate to the same peer repeatedly.
///
/// ```
/// use lazykem::ml_kem_768::{DecapsulationKey, EncapsulationKey};
///
/// # fn main() -> Result<(), lazykem::Error> {
/// let dk = DecapsulationKey::generate(&mut rand::rng());
/// let bytes = dk.encapsulation_key().as_bytes(); // what the peer receives
/// let ek = EncapsulationKey::from_bytes(bytes)?;
/// let (ct, secret) = ek.encapsulate(&mut rand::rng());
/// assert_eq!(dk.decapsulate(&ct), secret);
/// # Ok(())
/// # }
/// ```
pub struct EncapsulationKey<P: ParameterSet> {
    pub(crate) bytes: P::EncapsulationKeyBytes,
    pub(crate) state: P::EkState,
}

impl<P: ParameterSet> Clone for EncapsulationKey<P> {
    fn clone(&self) -> Self {
        Self {
            bytes: self.bytes,
            state: self.state.clone(),
        }
    }
}

impl<P: ParameterSet> EncapsulationKey<P> {
    /// Parses and checks an encoded encapsulation key.
    ///
    /// ```
    /// use lazykem::ml_kem_512::{DecapsulationKey, EncapsulationKey};
    ///
    /// let dk = DecapsulationKey::from_seed(&[1; 64]);
    /// let ek = EncapsulationKey::from_bytes(dk.encapsulation_key().as_bytes());
    /// assert_eq!(ek.as_ref(), Ok(dk.encapsulation_key()));
    /// assert!(EncapsulationKey::from_bytes(&[0; 10]).is_err());
    /// ```
    ///
    /// # Errors
    /// [`Error::EncapsulationKeyLength`] if `bytes` is not
    /// [`ParameterSet::ENCAPSULATION_KEY_SIZE`] long; [`Error::EncapsulationKeyNotReduced`]
    /// if a coefficient is not below q.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        self_test_gate()?;
        Self::from_bytes_with(AnyBackend::best(), bytes)
    }

    pub(crate) fn from_bytes_with(backend: AnyBackend, bytes: &[u8]) -> Result<Self, Error> {
        crate::backend::speculation_barrier();
        check_ek_length::<P>(bytes)?;
        // Filled in place: no copy of A-hat through return values.
        let mut key = Self {
            bytes: P::EncapsulationKeyBytes::zeroed(),
            state: P::ek_state_zero(),
        };
        key.bytes.as_mut().copy_from_slice(bytes);
        if !P::parse_ek(backend, &mut key.state, bytes) {
            return Err(Error::EncapsulationKeyNotReduced);
        }
        Ok(key)
    }

    /// Checks an encoded encapsulation key as [`Self::from_bytes`] does (FIPS 203 section
    /// 7.2: length, then every coefficient below q) without building the parsed key (no
    /// A-hat, no hashing): for validating keys received and stored before they are used.
    ///
    /// ```
    /// use lazykem::ml_kem_768::{DecapsulationKey, EncapsulationKey};
    ///
    /// let dk = DecapsulationKey::from_seed(&[7; 64]);
    /// let mut ek = dk.encapsulation_key().as_bytes().to_vec();
    /// assert!(EncapsulationKey::validate(&ek).is_ok());
    /// ek[0] = 0xff;
    /// ek[1] |= 0x0f; // the first coefficient becomes 4095 >= q
    /// assert_eq!(
    ///     EncapsulationKey::validate(&ek),
    ///     Err(lazykem::Error::EncapsulationKeyNotReduced)
    /// );
    /// ```
    ///
    /// # Errors
    /// Those of [`Self::from_bytes`].
    pub fn validate(bytes: &[u8]) -> Result<(), Error> {
        check_ek_length::<P>(bytes)?;
        if P::t_hat_reduced(AnyBackend::best(), &bytes[..bytes.len() - 32]) {
            Ok(())
        } else {
            Err(Error::EncapsulationKeyNotReduced)
        }
    }

    /// The encoded key, `ByteEncode_12(t-hat) || rho`.
    ///
    /// ```
    /// use lazykem::ml_kem_1024::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::from_seed(&[2; 64]);
    /// let bytes: &[u8; 1568] = dk.encapsulation_key().as_bytes();
    /// assert_eq!(bytes.len(), lazykem::ml_kem_1024::ENCAPSULATION_KEY_SIZE);
    /// ```
    #[must_use]
    pub const fn as_bytes(&self) -> &P::EncapsulationKeyBytes {
        &self.bytes
    }

    /// `ML-KEM.Encaps` (FIPS 203 Alg. 20): a fresh shared secret and the ciphertext
    /// that carries it to the holder of the decapsulation key.
    ///
    /// ```
    /// use lazykem::ml_kem_768::DecapsulationKey;
    ///
    /// let mut rng = rand::rng();
    /// let dk = DecapsulationKey::generate(&mut rng);
    /// let (ct, secret) = dk.encapsulation_key().encapsulate(&mut rng);
    /// assert_eq!(dk.decapsulate(&ct), secret);
    /// ```
    pub fn encapsulate<R: CryptoRng + ?Sized>(&self, rng: &mut R) -> (Ciphertext<P>, SharedSecret) {
        match self.try_encapsulate(rng) {
            Ok(out) => out,
            Err(never) => match never {},
        }
    }

    /// [`Self::encapsulate`] with a fallible RNG (an OS RNG, a hardware one): the RNG's
    /// error if it fails, and nothing is computed.
    ///
    /// ```
    /// use lazykem::ml_kem_768::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::from_seed(&[3; 64]);
    /// let (ct, secret) = dk.encapsulation_key().try_encapsulate(&mut rand::rng())?;
    /// assert_eq!(dk.decapsulate(&ct), secret);
    /// # Ok::<(), core::convert::Infallible>(())
    /// ```
    ///
    /// # Errors
    /// The RNG's error.
    pub fn try_encapsulate<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
    ) -> Result<(Ciphertext<P>, SharedSecret), R::Error> {
        let mut m = Zeroizing::new([0u8; 32]);
        rng.try_fill_bytes(m.as_mut())?;
        Ok(self.encapsulate_internal(AnyBackend::best(), &m))
    }

    /// [`Self::encapsulate`] with the operating system's RNG (`getrandom`). Enabled by the
    /// `getrandom` feature.
    ///
    /// ```
    /// let dk = lazykem::ml_kem_768::DecapsulationKey::from_seed(&[5; 64]);
    /// let (ct, secret) = dk.encapsulation_key().encapsulate_with_os_rng()?;
    /// assert_eq!(dk.decapsulate(&ct), secret);
    /// # Ok::<(), lazykem::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Rng`] with the OS RNG's error, if it fails.
    #[cfg(feature = "getrandom")]
    pub fn encapsulate_with_os_rng(&self) -> Result<(Ciphertext<P>, SharedSecret), Error> {
        Ok(self.try_encapsulate(&mut getrandom::SysRng)?)
    }

    /// `ML-KEM.Encaps_internal` (FIPS 203 Alg. 17) with a caller-chosen message.
    ///
    /// **Hazardous**: `m` must be 32 fresh random bytes, never reused; this exists for
    /// known-answer tests. Enabled by the `hazmat` feature.
    ///
    /// ```
    /// use lazykem::ml_kem_768::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::from_seed(&[4; 64]);
    /// let (a, _) = dk.encapsulation_key().encapsulate_deterministic(&[5; 32]);
    /// let (b, _) = dk.encapsulation_key().encapsulate_deterministic(&[5; 32]);
    /// assert_eq!(a, b);
    /// ```
    #[cfg(feature = "hazmat")]
    #[must_use]
    pub fn encapsulate_deterministic(&self, m: &[u8; 32]) -> (Ciphertext<P>, SharedSecret) {
        self.encapsulate_internal(AnyBackend::best(), m)
    }

    pub(crate) fn encapsulate_internal(
        &self,
        backend: AnyBackend,
        m: &[u8; 32],
    ) -> (Ciphertext<P>, SharedSecret) {
        crate::backend::speculation_barrier();
        let mut ct = P::CiphertextBytes::zeroed();
        let key = P::encaps(backend, &self.state, m, ct.as_mut());
        (Ciphertext { bytes: ct }, key)
    }
}

impl<P: ParameterSet> EncapsulationKey<P> {
    /// Parses and checks an encoded encapsulation key and encapsulates to it, in one call:
    /// the same checks and results as [`Self::from_bytes`] followed by
    /// [`Self::encapsulate`], for a key used once (a TLS client's key share). Nothing is
    /// kept: the parsed key lives on the stack for the call.
    ///
    /// ```
    /// use lazykem::ml_kem_768::{DecapsulationKey, EncapsulationKey};
    ///
    /// let dk = DecapsulationKey::generate(&mut rand::rng());
    /// let ek_bytes = dk.encapsulation_key().as_bytes();
    /// let (ct, secret) = EncapsulationKey::encapsulate_encoded(ek_bytes, &mut rand::rng())?;
    /// assert_eq!(dk.decapsulate(&ct), secret);
    /// assert!(EncapsulationKey::encapsulate_encoded(&[0; 10], &mut rand::rng()).is_err());
    /// # Ok::<(), lazykem::Error>(())
    /// ```
    ///
    /// # Errors
    /// Those of [`Self::from_bytes`].
    pub fn encapsulate_encoded<R: CryptoRng + ?Sized>(
        bytes: &[u8],
        rng: &mut R,
    ) -> Result<(Ciphertext<P>, SharedSecret), Error> {
        self_test_gate()?;
        let mut m = Zeroizing::new([0u8; 32]);
        rng.fill_bytes(m.as_mut());
        Self::encapsulate_encoded_with(AnyBackend::best(), bytes, &m)
    }

    /// [`Self::encapsulate_encoded`] with a caller-chosen message (`Encaps_internal`).
    /// **Hazardous**, as [`Self::encapsulate_deterministic`] is; `hazmat` feature.
    ///
    /// ```
    /// use lazykem::ml_kem_512::{DecapsulationKey, EncapsulationKey};
    ///
    /// let dk = DecapsulationKey::from_seed(&[4; 64]);
    /// let ek = dk.encapsulation_key();
    /// let one_shot = EncapsulationKey::encapsulate_encoded_deterministic(ek.as_bytes(), &[5; 32])?;
    /// assert!(one_shot == ek.encapsulate_deterministic(&[5; 32]));
    /// # Ok::<(), lazykem::Error>(())
    /// ```
    ///
    /// # Errors
    /// Those of [`Self::from_bytes`].
    #[cfg(feature = "hazmat")]
    pub fn encapsulate_encoded_deterministic(
        bytes: &[u8],
        m: &[u8; 32],
    ) -> Result<(Ciphertext<P>, SharedSecret), Error> {
        self_test_gate()?;
        Self::encapsulate_encoded_with(AnyBackend::best(), bytes, m)
    }

    pub(crate) fn encapsulate_encoded_with(
        backend: AnyBackend,
        bytes: &[u8],
        m: &[u8; 32],
    ) -> Result<(Ciphertext<P>, SharedSecret), Error> {
        crate::backend::speculation_barrier();
        check_ek_length::<P>(bytes)?;
        let mut ct = P::CiphertextBytes::zeroed();
        let key = P::encaps_encoded(backend, bytes, m, ct.as_mut())?;
        Ok((Ciphertext { bytes: ct }, key))
    }
}

impl<P: ParameterSet> PartialEq for EncapsulationKey<P> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl<P: ParameterSet> Eq for EncapsulationKey<P> {}

/// Hashes the encoded key (equal keys have equal encodings).
impl<P: ParameterSet> core::hash::Hash for EncapsulationKey<P> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.bytes.hash(state);
    }
}

impl<P: ParameterSet> AsRef<[u8]> for EncapsulationKey<P> {
    fn as_ref(&self) -> &[u8] {
        self.bytes.as_ref()
    }
}

impl<P: ParameterSet> core::fmt::Debug for EncapsulationKey<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EncapsulationKey")
            .field("parameter_set", &P::NAME)
            .finish_non_exhaustive()
    }
}

impl<P: ParameterSet> TryFrom<&[u8]> for EncapsulationKey<P> {
    type Error = Error;
    fn try_from(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes(bytes)
    }
}
