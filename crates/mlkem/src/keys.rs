//! The key and ciphertext types, generic over the parameter set ([`ParameterSet`]).
//!
//! `ml_kem_768::EncapsulationKey` and the other per-set names are aliases of these.

use crate::Error;
use crate::backend::AnyBackend;
use crate::params::{ByteArray, ParameterSet};
use crate::secret::{Seed, SharedSecret};
use rand_core::{CryptoRng, TryCryptoRng};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// An encapsulation key (public key), parsed.
///
/// Parsing checks it (FIPS 203 §7.2) and computes, once, everything an encapsulation
/// would otherwise recompute: the decoded t-hat, the expanded matrix A-hat and H(ek). Keep
/// the parsed key to encapsulate to the same peer repeatedly.
///
/// ```
/// use mlkem::ml_kem_768::{DecapsulationKey, EncapsulationKey};
///
/// # fn main() -> Result<(), mlkem::Error> {
/// let dk = DecapsulationKey::generate(&mut rand::rng());
/// let bytes = dk.encapsulation_key().as_bytes(); // what the peer receives
/// let ek = EncapsulationKey::from_bytes(bytes)?;
/// let (ct, secret) = ek.encapsulate(&mut rand::rng());
/// assert_eq!(dk.decapsulate(&ct), secret);
/// # Ok(())
/// # }
/// ```
pub struct EncapsulationKey<P: ParameterSet> {
    bytes: P::EncapsulationKeyBytes,
    state: P::EkState,
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
    /// use mlkem::ml_kem_512::{DecapsulationKey, EncapsulationKey};
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

    /// [`Self::from_bytes`] on a chosen backend (results are the same on every backend; for
    /// tests and benchmarks). Enabled by the `hazmat` feature.
    ///
    /// ```
    /// use mlkem::{AnyBackend, BackendKind, ml_kem_768::DecapsulationKey};
    ///
    /// let portable = AnyBackend::of(BackendKind::Portable).expect("always available");
    /// let dk = DecapsulationKey::from_seed(&[1; 64]);
    /// let ek = dk.encapsulation_key();
    /// let a = mlkem::ml_kem_768::EncapsulationKey::from_bytes_on(portable, ek.as_bytes());
    /// let b = mlkem::ml_kem_768::EncapsulationKey::from_bytes(ek.as_bytes());
    /// assert!(a == b, "the same on every backend");
    /// ```
    ///
    /// # Errors
    /// Those of [`Self::from_bytes`].
    #[cfg(feature = "hazmat")]
    pub fn from_bytes_on(backend: AnyBackend, bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with(backend, bytes)
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
    /// use mlkem::ml_kem_768::{DecapsulationKey, EncapsulationKey};
    ///
    /// let dk = DecapsulationKey::from_seed(&[7; 64]);
    /// let mut ek = dk.encapsulation_key().as_bytes().to_vec();
    /// assert!(EncapsulationKey::validate(&ek).is_ok());
    /// ek[0] = 0xff;
    /// ek[1] |= 0x0f; // the first coefficient becomes 4095 >= q
    /// assert_eq!(
    ///     EncapsulationKey::validate(&ek),
    ///     Err(mlkem::Error::EncapsulationKeyNotReduced)
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
    /// use mlkem::ml_kem_1024::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::from_seed(&[2; 64]);
    /// let bytes: &[u8; 1568] = dk.encapsulation_key().as_bytes();
    /// assert_eq!(bytes.len(), mlkem::ml_kem_1024::ENCAPSULATION_KEY_SIZE);
    /// ```
    #[must_use]
    pub const fn as_bytes(&self) -> &P::EncapsulationKeyBytes {
        &self.bytes
    }

    /// `ML-KEM.Encaps` (FIPS 203 Alg. 20): a fresh shared secret and the ciphertext
    /// that carries it to the holder of the decapsulation key.
    ///
    /// ```
    /// use mlkem::ml_kem_768::DecapsulationKey;
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
    /// use mlkem::ml_kem_768::DecapsulationKey;
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
    /// let dk = mlkem::ml_kem_768::DecapsulationKey::from_seed(&[5; 64]);
    /// let (ct, secret) = dk.encapsulation_key().encapsulate_with_os_rng()?;
    /// assert_eq!(dk.decapsulate(&ct), secret);
    /// # Ok::<(), getrandom::Error>(())
    /// ```
    ///
    /// # Errors
    /// The OS RNG's error, if it fails.
    #[cfg(feature = "getrandom")]
    pub fn encapsulate_with_os_rng(
        &self,
    ) -> Result<(Ciphertext<P>, SharedSecret), getrandom::Error> {
        self.try_encapsulate(&mut getrandom::SysRng)
    }

    /// `ML-KEM.Encaps_internal` (FIPS 203 Alg. 17) with a caller-chosen message.
    ///
    /// **Hazardous**: `m` must be 32 fresh random bytes, never reused; this exists for
    /// known-answer tests. Enabled by the `hazmat` feature.
    ///
    /// ```
    /// use mlkem::ml_kem_768::DecapsulationKey;
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

    /// [`Self::encapsulate_deterministic`] on a chosen backend (for tests and benchmarks).
    /// **Hazardous**, as that function is; `hazmat` feature.
    ///
    /// ```
    /// use mlkem::{AnyBackend, BackendKind, ml_kem_768::DecapsulationKey};
    ///
    /// let portable = AnyBackend::of(BackendKind::Portable).expect("always available");
    /// let dk = DecapsulationKey::from_seed(&[1; 64]);
    /// let ek = dk.encapsulation_key();
    /// let a = ek.encapsulate_deterministic_on(portable, &[2; 32]).0;
    /// let b = ek.encapsulate_deterministic(&[2; 32]).0;
    /// assert!(a == b, "the same on every backend");
    /// ```
    #[cfg(feature = "hazmat")]
    #[must_use]
    pub fn encapsulate_deterministic_on(
        &self,
        backend: AnyBackend,
        m: &[u8; 32],
    ) -> (Ciphertext<P>, SharedSecret) {
        self.encapsulate_internal(backend, m)
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
    /// use mlkem::ml_kem_768::{DecapsulationKey, EncapsulationKey};
    ///
    /// let dk = DecapsulationKey::generate(&mut rand::rng());
    /// let ek_bytes = dk.encapsulation_key().as_bytes();
    /// let (ct, secret) = EncapsulationKey::encapsulate_encoded(ek_bytes, &mut rand::rng())?;
    /// assert_eq!(dk.decapsulate(&ct), secret);
    /// assert!(EncapsulationKey::encapsulate_encoded(&[0; 10], &mut rand::rng()).is_err());
    /// # Ok::<(), mlkem::Error>(())
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
    /// use mlkem::ml_kem_512::{DecapsulationKey, EncapsulationKey};
    ///
    /// let dk = DecapsulationKey::from_seed(&[4; 64]);
    /// let ek = dk.encapsulation_key();
    /// let one_shot = EncapsulationKey::encapsulate_encoded_deterministic(ek.as_bytes(), &[5; 32])?;
    /// assert!(one_shot == ek.encapsulate_deterministic(&[5; 32]));
    /// # Ok::<(), mlkem::Error>(())
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

    /// [`Self::encapsulate_encoded_deterministic`] on a chosen backend (for tests and
    /// benchmarks). **Hazardous**; `hazmat` feature.
    ///
    /// # Errors
    /// Those of [`Self::from_bytes`].
    #[cfg(feature = "hazmat")]
    pub fn encapsulate_encoded_deterministic_on(
        backend: AnyBackend,
        bytes: &[u8],
        m: &[u8; 32],
    ) -> Result<(Ciphertext<P>, SharedSecret), Error> {
        Self::encapsulate_encoded_with(backend, bytes, m)
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

/// A decapsulation key (private key).
///
/// Holds s-hat with its multiplication cache, the parsed encapsulation key (for the
/// re-encryption of decapsulation), z, and the seed when the key was made from one. Every
/// secret in it is erased on drop; `Debug` shows none of it.
///
/// ```
/// use mlkem::ml_kem_768::DecapsulationKey;
///
/// let dk = DecapsulationKey::generate(&mut rand::rng());
/// // Store the 64-byte seed: it regenerates the same key.
/// let seed = dk.seed().expect("generated keys keep their seed");
/// let again = DecapsulationKey::from_seed(seed.as_bytes());
/// assert_eq!(again.encapsulation_key(), dk.encapsulation_key());
/// ```
pub struct DecapsulationKey<P: ParameterSet> {
    s_hat: P::SHat,
    z: [u8; 32],
    seed: Option<Seed>,
    ek: EncapsulationKey<P>,
}

impl<P: ParameterSet> Clone for DecapsulationKey<P> {
    fn clone(&self) -> Self {
        Self {
            s_hat: self.s_hat.clone(),
            z: self.z,
            seed: self.seed.clone(),
            ek: self.ek.clone(),
        }
    }
}

impl<P: ParameterSet> Zeroize for DecapsulationKey<P> {
    fn zeroize(&mut self) {
        self.s_hat.zeroize();
        self.z.zeroize();
        self.seed.zeroize();
    }
}

impl<P: ParameterSet> Drop for DecapsulationKey<P> {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl<P: ParameterSet> ZeroizeOnDrop for DecapsulationKey<P> {}

impl<P: ParameterSet> DecapsulationKey<P> {
    /// `ML-KEM.KeyGen` (FIPS 203 Alg. 19): a new key from 64 random bytes.
    ///
    /// ```
    /// use mlkem::ml_kem_768::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::generate(&mut rand::rng());
    /// assert!(dk.seed().is_some());
    /// ```
    pub fn generate<R: CryptoRng + ?Sized>(rng: &mut R) -> Self {
        match Self::try_generate(rng) {
            Ok(key) => key,
            Err(never) => match never {},
        }
    }

    /// [`Self::generate`] with a fallible RNG: the RNG's error if it fails (the partial
    /// seed is erased).
    ///
    /// ```
    /// use mlkem::ml_kem_512::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::try_generate(&mut rand::rng())?;
    /// # let _ = dk;
    /// # Ok::<(), core::convert::Infallible>(())
    /// ```
    ///
    /// # Errors
    /// The RNG's error.
    pub fn try_generate<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<Self, R::Error> {
        let mut seed = Seed::new([0u8; crate::SEED_SIZE]);
        rng.try_fill_bytes(seed.as_bytes_mut())?;
        Ok(Self::from_seed_value(AnyBackend::best(), seed))
    }

    /// [`Self::generate`] with the operating system's RNG (`getrandom`). Enabled by the
    /// `getrandom` feature.
    ///
    /// ```
    /// let dk = mlkem::ml_kem_768::DecapsulationKey::generate_with_os_rng()?;
    /// assert!(dk.seed().is_some());
    /// # Ok::<(), getrandom::Error>(())
    /// ```
    ///
    /// # Errors
    /// The OS RNG's error, if it fails.
    #[cfg(feature = "getrandom")]
    pub fn generate_with_os_rng() -> Result<Self, getrandom::Error> {
        Self::try_generate(&mut getrandom::SysRng)
    }

    /// `ML-KEM.KeyGen_internal(d, z)` (FIPS 203 Alg. 16) from the 64-byte seed
    /// `d || z`. Deterministic: the same seed always gives the same key, and
    /// [`Self::seed`] gives the seed back, so the seed is all you need to store.
    ///
    /// ```
    /// use mlkem::ml_kem_768::DecapsulationKey;
    ///
    /// let a = DecapsulationKey::from_seed(&[9; 64]);
    /// let b = DecapsulationKey::from_seed(&[9; 64]);
    /// assert_eq!(a.encapsulation_key(), b.encapsulation_key());
    /// ```
    #[must_use]
    pub fn from_seed(seed: &[u8; crate::SEED_SIZE]) -> Self {
        Self::from_seed_value(AnyBackend::best(), Seed::new(*seed))
    }

    /// [`Self::from_seed`] on a chosen backend (results are the same on every backend; for
    /// tests and benchmarks). Enabled by the `hazmat` feature.
    ///
    /// ```
    /// use mlkem::{AnyBackend, BackendKind, ml_kem_768::DecapsulationKey};
    ///
    /// let portable = AnyBackend::of(BackendKind::Portable).expect("always available");
    /// let dk = DecapsulationKey::from_seed(&[1; 64]);
    /// let ek = dk.encapsulation_key();
    /// let a = DecapsulationKey::from_seed_on(portable, &[1; 64]).encapsulation_key().clone();
    /// let b = ek.clone();
    /// assert!(a == b, "the same on every backend");
    /// ```
    #[cfg(feature = "hazmat")]
    #[must_use]
    pub fn from_seed_on(backend: AnyBackend, seed: &[u8; crate::SEED_SIZE]) -> Self {
        Self::from_seed_value(backend, Seed::new(*seed))
    }

    /// [`Self::from_seed`] for a seed of unchecked length.
    ///
    /// ```
    /// use mlkem::ml_kem_768::DecapsulationKey;
    ///
    /// assert!(DecapsulationKey::from_seed_bytes(&[0; 64]).is_ok());
    /// assert!(DecapsulationKey::from_seed_bytes(&[0; 32]).is_err());
    /// ```
    ///
    /// # Errors
    /// [`Error::SeedLength`] if `bytes` is not 64 bytes long.
    pub fn from_seed_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let seed: &[u8; crate::SEED_SIZE] = bytes.try_into().map_err(|_| Error::SeedLength {
            expected: crate::SEED_SIZE,
            actual: bytes.len(),
        })?;
        self_test_gate()?;
        Ok(Self::from_seed(seed))
    }

    pub(crate) fn from_seed_value(backend: AnyBackend, seed: Seed) -> Self {
        // Built in place: key generation writes A-hat, t-hat and s-hat straight into the
        // key instead of returning them through several layers of copies.
        let mut key = Self {
            s_hat: P::s_hat_zero(),
            z: [0; 32],
            seed: None,
            ek: EncapsulationKey {
                bytes: P::EncapsulationKeyBytes::zeroed(),
                state: P::ek_state_zero(),
            },
        };
        key.fill_from_seed(backend, seed);
        key
    }

    /// [`Self::from_seed`], computed into this key, replacing it: no copy of the new key
    /// passes through a return value. A key returned by value (`from_seed`, `generate`)
    /// leaves one copy of itself in the dead stack frame of the function that built it,
    /// which nothing can erase (SECURITY.md, measured by `ct-harness residue`); a key kept
    /// in long-lived storage (a `Box`, a static slot) and refilled with this method does
    /// not. Every part of the old key is overwritten; its seed is erased.
    ///
    /// ```
    /// use mlkem::ml_kem_768::DecapsulationKey;
    ///
    /// let mut slot = Box::new(DecapsulationKey::from_seed(&[0; 64])); // a placeholder
    /// slot.set_from_seed(&[9; 64]);
    /// let fresh = DecapsulationKey::from_seed(&[9; 64]);
    /// assert_eq!(slot.encapsulation_key(), fresh.encapsulation_key());
    /// assert_eq!(slot.seed(), fresh.seed());
    /// ```
    pub fn set_from_seed(&mut self, seed: &[u8; crate::SEED_SIZE]) {
        self.fill_from_seed(AnyBackend::best(), Seed::new(*seed));
    }

    /// KeyGen_internal into this key's storage (every field overwritten).
    fn fill_from_seed(&mut self, backend: AnyBackend, seed: Seed) {
        crate::backend::speculation_barrier();
        let Self {
            s_hat,
            z,
            seed: stored,
            ek: EncapsulationKey { bytes, state },
        } = self;
        // The old seed, if any, is dropped (erased) here.
        let seed = stored.insert(seed);
        *z = *seed.z();
        P::key_gen(backend, seed.d(), bytes.as_mut(), state, s_hat);
    }

    /// The seed `d || z` this key was generated from, or `None` for a key imported from
    /// its expanded encoding (which does not contain d).
    ///
    /// ```
    /// use mlkem::ml_kem_768::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::from_seed(&[6; 64]);
    /// assert_eq!(dk.seed().map(|s| *s.as_bytes()), Some([6; 64]));
    /// let imported = DecapsulationKey::from_expanded_bytes(&*dk.to_expanded_bytes())?;
    /// assert!(imported.seed().is_none());
    /// # Ok::<(), mlkem::Error>(())
    /// ```
    #[must_use]
    pub const fn seed(&self) -> Option<&Seed> {
        self.seed.as_ref()
    }

    /// Checks an expanded decapsulation key as [`Self::from_expanded_bytes`] does
    /// (FIPS 203 §7.3: length and hash check; and the modulus check of the embedded ek)
    /// without building the key (no A-hat, no s-hat).
    ///
    /// ```
    /// use mlkem::ml_kem_768::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::from_seed(&[7; 64]);
    /// let mut bytes = dk.to_expanded_bytes().to_vec();
    /// assert!(DecapsulationKey::validate_expanded(&bytes).is_ok());
    /// let h = bytes.len() - 64; // H(ek) sits before z
    /// bytes[h] ^= 1;
    /// assert_eq!(
    ///     DecapsulationKey::validate_expanded(&bytes),
    ///     Err(mlkem::Error::DecapsulationKeyHashMismatch)
    /// );
    /// ```
    ///
    /// # Errors
    /// Those of [`Self::from_expanded_bytes`].
    pub fn validate_expanded(bytes: &[u8]) -> Result<(), Error> {
        let (_, ek, h, _) = split_expanded::<P>(bytes)?;
        let computed = lattice_poly_ntt::dispatch!(AnyBackend::best(), |b| {
            lattice_sampling::keccak::sha3_256(b, &[ek])
        });
        // Public values: a plain comparison.
        if computed != *h {
            return Err(Error::DecapsulationKeyHashMismatch);
        }
        EncapsulationKey::<P>::validate(ek)
    }

    /// Imports the expanded FIPS 203 encoding `dk_pke || ek || H(ek) || z`, with the checks
    /// of FIPS 203 §7.3.
    ///
    /// ```
    /// use mlkem::ml_kem_768::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::from_seed(&[8; 64]);
    /// let bytes = dk.to_expanded_bytes();
    /// let imported = DecapsulationKey::from_expanded_bytes(&*bytes)?;
    /// assert_eq!(imported.encapsulation_key(), dk.encapsulation_key());
    /// # Ok::<(), mlkem::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::DecapsulationKeyLength`] if `bytes` is not
    /// [`ParameterSet::DECAPSULATION_KEY_SIZE`] long; [`Error::DecapsulationKeyHashMismatch`]
    /// if the embedded H(ek) is not the hash of the embedded ek;
    /// [`Error::EncapsulationKeyNotReduced`] if the embedded ek fails the modulus check. A
    /// coefficient of `dk_pke` not below q is reduced, not rejected (FIPS 203 does not
    /// check it; the decoded value is used mod q).
    pub fn from_expanded_bytes(bytes: &[u8]) -> Result<Self, Error> {
        self_test_gate()?;
        Self::from_expanded_bytes_with(AnyBackend::best(), bytes)
    }

    /// [`Self::from_expanded_bytes`] on a chosen backend (for tests and benchmarks).
    /// Enabled by the `hazmat` feature.
    ///
    /// ```
    /// use mlkem::{AnyBackend, BackendKind, ml_kem_768::DecapsulationKey};
    ///
    /// let portable = AnyBackend::of(BackendKind::Portable).expect("always available");
    /// let dk = DecapsulationKey::from_seed(&[1; 64]);
    /// let ek = dk.encapsulation_key();
    /// let a = DecapsulationKey::from_expanded_bytes_on(portable, dk.to_expanded_bytes().as_ref()).map(|k| k.encapsulation_key().clone());
    /// let b = Ok::<_, mlkem::Error>(ek.clone());
    /// assert!(a == b, "the same on every backend");
    /// ```
    ///
    /// # Errors
    /// Those of [`Self::from_expanded_bytes`].
    #[cfg(feature = "hazmat")]
    pub fn from_expanded_bytes_on(backend: AnyBackend, bytes: &[u8]) -> Result<Self, Error> {
        Self::from_expanded_bytes_with(backend, bytes)
    }

    pub(crate) fn from_expanded_bytes_with(
        backend: AnyBackend,
        bytes: &[u8],
    ) -> Result<Self, Error> {
        crate::backend::speculation_barrier();
        let (dk_pke, ek_bytes, h, z) = split_expanded::<P>(bytes)?;
        // Filled in place: no copy of A-hat through return values.
        let mut key = Self {
            s_hat: P::s_hat_zero(),
            z: *z,
            seed: None,
            ek: EncapsulationKey {
                bytes: P::EncapsulationKeyBytes::zeroed(),
                state: P::ek_state_zero(),
            },
        };
        key.ek.bytes.as_mut().copy_from_slice(ek_bytes);
        P::import_dk(
            backend,
            dk_pke,
            ek_bytes,
            h,
            &mut key.ek.state,
            &mut key.s_hat,
        )?;
        Ok(key)
    }

    /// The expanded FIPS 203 encoding `dk_pke || ek || H(ek) || z`
    /// ([`ParameterSet::DECAPSULATION_KEY_SIZE`] bytes), in a buffer erased on drop.
    ///
    /// ```
    /// use mlkem::ml_kem_768::{DECAPSULATION_KEY_SIZE, DecapsulationKey};
    ///
    /// let dk = DecapsulationKey::from_seed(&[1; 64]);
    /// assert_eq!(dk.to_expanded_bytes().len(), DECAPSULATION_KEY_SIZE);
    /// ```
    #[must_use]
    pub fn to_expanded_bytes(&self) -> Zeroizing<P::DecapsulationKeyBytes> {
        self.to_expanded_bytes_with(AnyBackend::best())
    }

    /// [`Self::to_expanded_bytes`] on a chosen backend (for tests). Enabled by the
    /// `hazmat` feature.
    ///
    /// ```
    /// use mlkem::{AnyBackend, BackendKind, ml_kem_768::DecapsulationKey};
    ///
    /// let portable = AnyBackend::of(BackendKind::Portable).expect("always available");
    /// let dk = DecapsulationKey::from_seed(&[1; 64]);
    /// let ek = dk.encapsulation_key();
    /// let a = dk.to_expanded_bytes_on(portable);
    /// let b = dk.to_expanded_bytes();
    /// assert!(a == b, "the same on every backend");
    /// ```
    #[cfg(feature = "hazmat")]
    #[must_use]
    pub fn to_expanded_bytes_on(&self, backend: AnyBackend) -> Zeroizing<P::DecapsulationKeyBytes> {
        self.to_expanded_bytes_with(backend)
    }

    pub(crate) fn to_expanded_bytes_with(
        &self,
        backend: AnyBackend,
    ) -> Zeroizing<P::DecapsulationKeyBytes> {
        let mut out = Zeroizing::new(P::DecapsulationKeyBytes::zeroed());
        let (dk_pke, rest) = out.as_mut().split_at_mut(384 * P::K);
        let (ek, rest) = rest.split_at_mut(P::ENCAPSULATION_KEY_SIZE);
        let (h, z) = rest.split_at_mut(32);
        P::export_s_hat(backend, &self.s_hat, dk_pke);
        ek.copy_from_slice(self.ek.bytes.as_ref());
        h.copy_from_slice(P::ek_hash(&self.ek.state));
        z.copy_from_slice(&self.z);
        out
    }

    /// The matching encapsulation key, to send to peers.
    ///
    /// ```
    /// use mlkem::ml_kem_768::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::from_seed(&[1; 64]);
    /// let to_publish: &[u8] = dk.encapsulation_key().as_bytes();
    /// assert_eq!(to_publish.len(), 1184);
    /// ```
    #[must_use]
    pub const fn encapsulation_key(&self) -> &EncapsulationKey<P> {
        &self.ek
    }

    /// `ML-KEM.Decaps` (FIPS 203 Alg. 21). Never fails: a ciphertext that was not
    /// made for this key yields a pseudorandom secret unrelated to the sender's (implicit
    /// rejection), decided in constant time.
    ///
    /// ```
    /// use mlkem::ml_kem_768::{Ciphertext, DecapsulationKey};
    ///
    /// let dk = DecapsulationKey::from_seed(&[1; 64]);
    /// let (ct, secret) = dk.encapsulation_key().encapsulate(&mut rand::rng());
    /// assert_eq!(dk.decapsulate(&ct), secret);
    /// // A ciphertext not made for this key: a different, unrelated secret.
    /// let forged = Ciphertext::from([0x55; 1088]);
    /// assert_ne!(dk.decapsulate(&forged), secret);
    /// ```
    #[must_use]
    pub fn decapsulate(&self, ct: &Ciphertext<P>) -> SharedSecret {
        self.decapsulate_with(AnyBackend::best(), ct)
    }

    /// [`Self::decapsulate`] on a chosen backend (for tests and benchmarks). Enabled by the
    /// `hazmat` feature.
    ///
    /// ```
    /// use mlkem::{AnyBackend, BackendKind, ml_kem_768::DecapsulationKey};
    ///
    /// let portable = AnyBackend::of(BackendKind::Portable).expect("always available");
    /// let dk = DecapsulationKey::from_seed(&[1; 64]);
    /// let ek = dk.encapsulation_key();
    /// let a = dk.decapsulate_on(portable, &ek.encapsulate_deterministic(&[3; 32]).0);
    /// let b = dk.decapsulate(&ek.encapsulate_deterministic(&[3; 32]).0);
    /// assert!(a == b, "the same on every backend");
    /// ```
    #[cfg(feature = "hazmat")]
    #[must_use]
    pub fn decapsulate_on(&self, backend: AnyBackend, ct: &Ciphertext<P>) -> SharedSecret {
        self.decapsulate_with(backend, ct)
    }

    pub(crate) fn decapsulate_with(&self, backend: AnyBackend, ct: &Ciphertext<P>) -> SharedSecret {
        crate::backend::speculation_barrier();
        P::decaps(
            backend,
            &self.s_hat,
            &self.ek.state,
            &self.z,
            ct.bytes.as_ref(),
        )
    }

    /// `ML-KEM.Decaps` (FIPS 203 Alg. 21) with a key in its expanded encoding, in one
    /// call: the same checks and the same shared secret as [`Self::from_expanded_bytes`]
    /// followed by [`Self::decapsulate`], for a key used once.
    ///
    /// Faster than the two calls when the key is not reused: nothing is kept for later,
    /// and the hashes the two steps would run one after the other (the hash check's H(ek),
    /// the implicit-rejection key J(z || c), the expansion of A-hat and the re-encryption's
    /// noise) share the multi-way Keccak. To decapsulate several ciphertexts with one key,
    /// import it once instead.
    ///
    /// ```
    /// use mlkem::ml_kem_768::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::from_seed(&[1; 64]);
    /// let stored = dk.to_expanded_bytes();
    /// let (ct, secret) = dk.encapsulation_key().encapsulate(&mut rand::rng());
    /// assert_eq!(DecapsulationKey::decapsulate_expanded(&*stored, &ct)?, secret);
    /// # Ok::<(), mlkem::Error>(())
    /// ```
    ///
    /// # Errors
    /// Those of [`Self::from_expanded_bytes`]. A wrong ciphertext is not an error
    /// (implicit rejection, as in [`Self::decapsulate`]).
    pub fn decapsulate_expanded(bytes: &[u8], ct: &Ciphertext<P>) -> Result<SharedSecret, Error> {
        self_test_gate()?;
        Self::decapsulate_expanded_with(AnyBackend::best(), bytes, ct)
    }

    /// [`Self::decapsulate_expanded`] on a chosen backend (for tests and benchmarks).
    /// Enabled by the `hazmat` feature.
    ///
    /// ```
    /// use mlkem::{AnyBackend, BackendKind, ml_kem_768::DecapsulationKey};
    ///
    /// let portable = AnyBackend::of(BackendKind::Portable).expect("always available");
    /// let dk = DecapsulationKey::from_seed(&[1; 64]);
    /// let ek = dk.encapsulation_key();
    /// let a = DecapsulationKey::decapsulate_expanded_on(portable, dk.to_expanded_bytes().as_ref(), &ek.encapsulate_deterministic(&[4; 32]).0);
    /// let b = DecapsulationKey::decapsulate_expanded(dk.to_expanded_bytes().as_ref(), &ek.encapsulate_deterministic(&[4; 32]).0);
    /// assert!(a == b, "the same on every backend");
    /// ```
    ///
    /// # Errors
    /// Those of [`Self::decapsulate_expanded`].
    #[cfg(feature = "hazmat")]
    pub fn decapsulate_expanded_on(
        backend: AnyBackend,
        bytes: &[u8],
        ct: &Ciphertext<P>,
    ) -> Result<SharedSecret, Error> {
        Self::decapsulate_expanded_with(backend, bytes, ct)
    }

    pub(crate) fn decapsulate_expanded_with(
        backend: AnyBackend,
        bytes: &[u8],
        ct: &Ciphertext<P>,
    ) -> Result<SharedSecret, Error> {
        crate::backend::speculation_barrier();
        let (dk_pke, ek, h, z) = split_expanded::<P>(bytes)?;
        P::decaps_expanded(backend, dk_pke, ek, h, z, ct.bytes.as_ref())
    }
}

impl<P: ParameterSet> core::fmt::Debug for DecapsulationKey<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DecapsulationKey")
            .field("parameter_set", &P::NAME)
            .finish_non_exhaustive()
    }
}

/// With the `self-test` feature, the known-answer tests on first use ([`crate::self_test::run`]);
/// without it, nothing.
#[inline(always)]
#[cfg_attr(
    not(feature = "self-test"),
    allow(
        clippy::unnecessary_wraps,
        reason = "fails only with the self-test feature"
    )
)]
fn self_test_gate() -> Result<(), Error> {
    #[cfg(feature = "self-test")]
    crate::self_test::run()?;
    Ok(())
}

/// The length check of an encoded encapsulation key (FIPS 203 §7.2, type check).
fn check_ek_length<P: ParameterSet>(bytes: &[u8]) -> Result<(), Error> {
    check_length(bytes, P::ENCAPSULATION_KEY_SIZE, |expected, actual| {
        Error::EncapsulationKeyLength { expected, actual }
    })
}

/// `Err(error(expected, actual))` unless `bytes` is `expected` bytes long.
fn check_length(
    bytes: &[u8],
    expected: usize,
    error: impl FnOnce(usize, usize) -> Error,
) -> Result<(), Error> {
    if bytes.len() == expected {
        Ok(())
    } else {
        Err(error(expected, bytes.len()))
    }
}

/// The parts of an expanded decapsulation key: `dk_pke`, `ek`, `H(ek)`, `z`.
type ExpandedParts<'a> = (&'a [u8], &'a [u8], &'a [u8; 32], &'a [u8; 32]);

/// Splits an expanded decapsulation key `dk_pke || ek || H(ek) || z` after checking its
/// length.
fn split_expanded<P: ParameterSet>(bytes: &[u8]) -> Result<ExpandedParts<'_>, Error> {
    check_length(bytes, P::DECAPSULATION_KEY_SIZE, |expected, actual| {
        Error::DecapsulationKeyLength { expected, actual }
    })?;
    let (dk_pke, rest) = bytes.split_at(384 * P::K);
    let (ek, rest) = rest.split_at(P::ENCAPSULATION_KEY_SIZE);
    let (h, z) = rest.split_at(32);
    let h = h.try_into().expect("32 bytes by the length check");
    let z = z.try_into().expect("32 bytes by the length check");
    Ok((dk_pke, ek, h, z))
}

/// A ciphertext.
///
/// ```
/// use mlkem::ml_kem_768::{CIPHERTEXT_SIZE, Ciphertext};
///
/// let ct = Ciphertext::from_bytes(&[0; CIPHERTEXT_SIZE])?;
/// assert_eq!(ct.as_bytes(), &[0; CIPHERTEXT_SIZE]);
/// assert!(Ciphertext::from_bytes(&[0; 10]).is_err());
/// # Ok::<(), mlkem::Error>(())
/// ```
pub struct Ciphertext<P: ParameterSet> {
    bytes: P::CiphertextBytes,
}

impl<P: ParameterSet> Clone for Ciphertext<P> {
    fn clone(&self) -> Self {
        Self { bytes: self.bytes }
    }
}

impl<P: ParameterSet> PartialEq for Ciphertext<P> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl<P: ParameterSet> Eq for Ciphertext<P> {}

impl<P: ParameterSet> Ciphertext<P> {
    /// Wraps ciphertext bytes.
    ///
    /// ```
    /// use mlkem::ml_kem_512::Ciphertext;
    /// assert!(Ciphertext::from_bytes(&[7; 768]).is_ok());
    /// assert!(Ciphertext::from_bytes(&[7; 767]).is_err());
    /// ```
    ///
    /// # Errors
    /// [`Error::CiphertextLength`] if `bytes` is not [`ParameterSet::CIPHERTEXT_SIZE`] long.
    /// Any content of the right length is a valid ciphertext (FIPS 203 §7.3).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        check_length(bytes, P::CIPHERTEXT_SIZE, |expected, actual| {
            Error::CiphertextLength { expected, actual }
        })?;
        let mut ct = P::CiphertextBytes::zeroed();
        ct.as_mut().copy_from_slice(bytes);
        Ok(Self { bytes: ct })
    }

    /// The ciphertext bytes.
    ///
    /// ```
    /// let ct = mlkem::ml_kem_512::Ciphertext::from([7; 768]);
    /// assert_eq!(ct.as_bytes(), &[7; 768]);
    /// ```
    #[must_use]
    pub const fn as_bytes(&self) -> &P::CiphertextBytes {
        &self.bytes
    }
}

impl<P: ParameterSet> AsRef<[u8]> for Ciphertext<P> {
    fn as_ref(&self) -> &[u8] {
        self.bytes.as_ref()
    }
}

impl<P: ParameterSet> TryFrom<&[u8]> for Ciphertext<P> {
    type Error = Error;
    fn try_from(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes(bytes)
    }
}

impl<P: ParameterSet> core::fmt::Debug for Ciphertext<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ciphertext")
            .field("parameter_set", &P::NAME)
            .finish_non_exhaustive()
    }
}

/// Defines `From` between the ciphertext of one set and its byte array (a generic impl
/// over `P::CiphertextBytes` would overlap with core's blanket `From<T> for T`).
macro_rules! ciphertext_array_conversions {
    ($($set:ty),*) => {$(
        /// Any content of the right length is a valid ciphertext (FIPS 203 §7.3).
        impl From<<$set as ParameterSet>::CiphertextBytes> for Ciphertext<$set> {
            fn from(bytes: <$set as ParameterSet>::CiphertextBytes) -> Self {
                Self { bytes }
            }
        }

        impl From<Ciphertext<$set>> for <$set as ParameterSet>::CiphertextBytes {
            fn from(ct: Ciphertext<$set>) -> Self {
                ct.bytes
            }
        }
    )*};
}

ciphertext_array_conversions!(crate::MlKem512, crate::MlKem768, crate::MlKem1024);
