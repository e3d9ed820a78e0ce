//! [`DecapsulationKey`]: the private key, generic over the parameter set.

use crate::Error;
use crate::backend::AnyBackend;
use crate::input::{self_test_gate, split_expanded};
use crate::params::{ByteArray, ParameterSet};
use crate::secret::{Seed, SharedSecret};
use crate::{Ciphertext, EncapsulationKey};
use rand_core::{CryptoRng, TryCryptoRng};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// A decapsulation key (private key).
///
/// Holds s-hat with its multiplication cache, the parsed encapsulation key (for the
/// re-encryption of decapsulation), z, and the seed when the key was made from one. Every
/// secret in it is erased on drop; `Debug` shows none of it.
///
/// ```
/// use lazykem::ml_kem_768::DecapsulationKey;
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
    /// use lazykem::ml_kem_768::DecapsulationKey;
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
    /// use lazykem::ml_kem_512::DecapsulationKey;
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
    /// let dk = lazykem::ml_kem_768::DecapsulationKey::generate_with_os_rng()?;
    /// assert!(dk.seed().is_some());
    /// # Ok::<(), lazykem::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Rng`] with the OS RNG's error, if it fails.
    #[cfg(feature = "getrandom")]
    pub fn generate_with_os_rng() -> Result<Self, Error> {
        Ok(Self::try_generate(&mut getrandom::SysRng)?)
    }

    /// `ML-KEM.KeyGen_internal(d, z)` (FIPS 203 Alg. 16) from the 64-byte seed
    /// `d || z`. Deterministic: the same seed always gives the same key, and
    /// [`Self::seed`] gives the seed back, so the seed is all you need to store.
    ///
    /// ```
    /// use lazykem::ml_kem_768::DecapsulationKey;
    ///
    /// let a = DecapsulationKey::from_seed(&[9; 64]);
    /// let b = DecapsulationKey::from_seed(&[9; 64]);
    /// assert_eq!(a.encapsulation_key(), b.encapsulation_key());
    /// ```
    #[must_use]
    pub fn from_seed(seed: &[u8; crate::SEED_SIZE]) -> Self {
        Self::from_seed_value(AnyBackend::best(), Seed::new(*seed))
    }

    /// [`Self::from_seed`] for a seed of unchecked length.
    ///
    /// ```
    /// use lazykem::ml_kem_768::DecapsulationKey;
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
    /// use lazykem::ml_kem_768::DecapsulationKey;
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
    /// use lazykem::ml_kem_768::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::from_seed(&[6; 64]);
    /// assert_eq!(dk.seed().map(|s| *s.as_bytes()), Some([6; 64]));
    /// let imported = DecapsulationKey::from_expanded_bytes(&*dk.to_expanded_bytes())?;
    /// assert!(imported.seed().is_none());
    /// # Ok::<(), lazykem::Error>(())
    /// ```
    #[must_use]
    pub const fn seed(&self) -> Option<&Seed> {
        self.seed.as_ref()
    }

    /// Checks an expanded decapsulation key as [`Self::from_expanded_bytes`] does (FIPS 203 §7.3:
    /// length and hash check; and the modulus check of the embedded ek)
    /// without building the key (no A-hat, no s-hat).
    ///
    /// ```
    /// use lazykem::ml_kem_768::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::from_seed(&[7; 64]);
    /// let mut bytes = dk.to_expanded_bytes().to_vec();
    /// assert!(DecapsulationKey::validate_expanded(&bytes).is_ok());
    /// let h = bytes.len() - 64; // H(ek) sits before z
    /// bytes[h] ^= 1;
    /// assert_eq!(
    ///     DecapsulationKey::validate_expanded(&bytes),
    ///     Err(lazykem::Error::DecapsulationKeyHashMismatch)
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
    /// use lazykem::ml_kem_768::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::from_seed(&[8; 64]);
    /// let bytes = dk.to_expanded_bytes();
    /// let imported = DecapsulationKey::from_expanded_bytes(&*bytes)?;
    /// assert_eq!(imported.encapsulation_key(), dk.encapsulation_key());
    /// # Ok::<(), lazykem::Error>(())
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

    /// [`Self::from_expanded_bytes`] and then an opt-in consistency check, for expanded keys
    /// from outside: FIPS 203 §7.3 checks only `H(ek)` against `ek`, so a key whose
    /// `dk_pke` (s-hat) was altered or swapped passes it and would decapsulate every
    /// ciphertext to an implicit-rejection secret. The check is pairwise: encapsulate a fixed
    /// message to the key's own `ek`, decapsulate, compare (constant time). It costs one
    /// encapsulation and one decapsulation. `z` cannot be checked without the seed (where a
    /// seed is present, as in the PKCS#8 `both` form, the key is compared with the seed's).
    ///
    /// ```
    /// use lazykem::ml_kem_768::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::from_seed(&[8; 64]);
    /// let mut bytes = dk.to_expanded_bytes().to_vec();
    /// assert!(DecapsulationKey::from_expanded_bytes_checked(&bytes).is_ok());
    /// bytes[0] ^= 1; // s-hat altered, H(ek) intact
    /// assert!(DecapsulationKey::from_expanded_bytes(&bytes).is_ok()); // FIPS 203 7.3 passes
    /// assert_eq!(
    ///     DecapsulationKey::from_expanded_bytes_checked(&bytes).err(),
    ///     Some(lazykem::Error::DecapsulationKeyInconsistent)
    /// );
    /// ```
    ///
    /// # Errors
    /// Those of [`Self::from_expanded_bytes`]; [`Error::DecapsulationKeyInconsistent`] if the
    /// pairwise check fails.
    pub fn from_expanded_bytes_checked(bytes: &[u8]) -> Result<Self, Error> {
        let key = Self::from_expanded_bytes(bytes)?;
        key.check_pairwise_consistency()?;
        Ok(key)
    }

    /// The pairwise-consistency check of [`Self::from_expanded_bytes_checked`] on this key.
    ///
    /// # Errors
    /// [`Error::DecapsulationKeyInconsistent`] if decapsulation does not recover the secret
    /// of an encapsulation to the key's own encapsulation key.
    pub fn check_pairwise_consistency(&self) -> Result<(), Error> {
        /// A fixed message: the check needs no randomness and its result is deterministic.
        const PAIRWISE_MESSAGE: [u8; 32] = [0xa5; 32];
        let backend = AnyBackend::best();
        let (ct, sent) = self.ek.encapsulate_internal(backend, &PAIRWISE_MESSAGE);
        let received = self.decapsulate_with(backend, &ct);
        // `SharedSecret`'s `==` is constant time.
        if sent == received {
            Ok(())
        } else {
            Err(Error::DecapsulationKeyInconsistent)
        }
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
    /// use lazykem::ml_kem_768::{DECAPSULATION_KEY_SIZE, DecapsulationKey};
    ///
    /// let dk = DecapsulationKey::from_seed(&[1; 64]);
    /// assert_eq!(dk.to_expanded_bytes().len(), DECAPSULATION_KEY_SIZE);
    /// ```
    #[must_use]
    pub fn to_expanded_bytes(&self) -> Zeroizing<P::DecapsulationKeyBytes> {
        self.to_expanded_bytes_with(AnyBackend::best())
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
    /// use lazykem::ml_kem_768::DecapsulationKey;
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
    /// use lazykem::ml_kem_768::{Ciphertext, DecapsulationKey};
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
    /// use lazykem::ml_kem_768::DecapsulationKey;
    ///
    /// let dk = DecapsulationKey::from_seed(&[1; 64]);
    /// let stored = dk.to_expanded_bytes();
    /// let (ct, secret) = dk.encapsulation_key().encapsulate(&mut rand::rng());
    /// assert_eq!(DecapsulationKey::decapsulate_expanded(&*stored, &ct)?, secret);
    /// # Ok::<(), lazykem::Error>(())
    /// ```
    ///
    /// # Errors
    /// Those of [`Self::from_expanded_bytes`]. A wrong ciphertext is not an error
    /// (implicit rejection, as in [`Self::decapsulate`]).
    pub fn decapsulate_expanded(bytes: &[u8], ct: &Ciphertext<P>) -> Result<SharedSecret, Error> {
        self_test_gate()?;
        Self::decapsulate_expanded_with(AnyBackend::best(), bytes, ct)
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
