//! The public types of each parameter set, generated from one definition.

/// Defines the constants and key/ciphertext types of one parameter set (FIPS 203 Table 2).
macro_rules! parameter_set {
    (
        module: $module:ident,
        name: $name:literal,
        k: $k:literal, eta1: $eta1:literal, eta2: $eta2:literal, du: $du:literal, dv: $dv:literal,
        sizes: ($ek_size:literal, $dk_size:literal, $ct_size:literal)
    ) => {
        use crate::Error;
        use crate::backend::{AnyBackend, with_backend};
        use crate::kem::{self, EkState};
        use crate::secret::{Seed, SharedSecret};
        use lattice_poly_ntt::mlkem::CachedNttVector;
        use rand_core::{CryptoRng, TryCryptoRng};
        use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

        const K: usize = $k;
        const ETA1: usize = $eta1;
        const ETA2: usize = $eta2;
        const DU: usize = $du;
        const DV: usize = $dv;

        /// Size in bytes of an encoded encapsulation key: `384 k + 32`.
        pub const ENCAPSULATION_KEY_SIZE: usize = $ek_size;
        /// Size in bytes of an expanded (FIPS 203) decapsulation key: `768 k + 96`.
        pub const DECAPSULATION_KEY_SIZE: usize = $dk_size;
        /// Size in bytes of a ciphertext: `32 (du k + dv)`.
        pub const CIPHERTEXT_SIZE: usize = $ct_size;

        const _: () = assert!(ENCAPSULATION_KEY_SIZE == 384 * K + 32);
        const _: () = assert!(DECAPSULATION_KEY_SIZE == 768 * K + 96);
        const _: () = assert!(CIPHERTEXT_SIZE == 32 * (DU * K + DV));
        const _: () = assert!(CIPHERTEXT_SIZE <= kem::MAX_CIPHERTEXT_SIZE);
        const DK_PKE_SIZE: usize = 384 * K;

        #[doc = concat!("An ", $name, " encapsulation key (public key), parsed.")]
        ///
        /// Parsing checks it (FIPS 203 section 7.2) and computes, once, everything an
        /// encapsulation would otherwise recompute: the decoded t-hat, the expanded matrix
        /// A-hat and H(ek). Keep the parsed key to encapsulate to the same peer repeatedly.
        #[derive(Clone)]
        pub struct EncapsulationKey {
            bytes: [u8; ENCAPSULATION_KEY_SIZE],
            state: EkState<K>,
        }

        impl EncapsulationKey {
            /// Parses and checks an encoded encapsulation key.
            ///
            /// # Errors
            /// [`Error::EncapsulationKeyLength`] if `bytes` is not
            /// [`ENCAPSULATION_KEY_SIZE`] long; [`Error::EncapsulationKeyNotReduced`] if a
            /// coefficient is not below q.
            pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
                Self::from_bytes_with(AnyBackend::best(), bytes)
            }

            /// [`Self::from_bytes`] on a chosen backend (results are the same on every
            /// backend; for tests and benchmarks). Enabled by the `hazmat` feature.
            ///
            /// # Errors
            /// Those of [`Self::from_bytes`].
            #[cfg(feature = "hazmat")]
            pub fn from_bytes_on(backend: AnyBackend, bytes: &[u8]) -> Result<Self, Error> {
                Self::from_bytes_with(backend, bytes)
            }

            fn from_bytes_with(backend: AnyBackend, bytes: &[u8]) -> Result<Self, Error> {
                let bytes: &[u8; ENCAPSULATION_KEY_SIZE] =
                    bytes
                        .try_into()
                        .map_err(|_| Error::EncapsulationKeyLength {
                            expected: ENCAPSULATION_KEY_SIZE,
                            actual: bytes.len(),
                        })?;
                // Filled in place: no copy of A-hat through return values.
                let mut key = Self {
                    bytes: *bytes,
                    state: EkState::zero(),
                };
                if !with_backend!(backend, |b| key.state.parse_into(b, bytes)) {
                    return Err(Error::EncapsulationKeyNotReduced);
                }
                Ok(key)
            }

            /// The encoded key, `ByteEncode_12(t-hat) || rho`.
            #[must_use]
            pub const fn as_bytes(&self) -> &[u8; ENCAPSULATION_KEY_SIZE] {
                &self.bytes
            }

            /// `ML-KEM.Encaps` (FIPS 203 Algorithm 20): a fresh shared secret and the
            /// ciphertext that carries it to the holder of the decapsulation key.
            ///
            /// ```
            #[doc = concat!("use mlkem::", stringify!($module), "::DecapsulationKey;")]
            /// let mut rng = rand::rng();
            /// let dk = DecapsulationKey::generate(&mut rng);
            /// let (ct, secret) = dk.encapsulation_key().encapsulate(&mut rng);
            /// assert_eq!(dk.decapsulate(&ct), secret);
            /// ```
            pub fn encapsulate<R: CryptoRng + ?Sized>(
                &self,
                rng: &mut R,
            ) -> (Ciphertext, SharedSecret) {
                match self.try_encapsulate(rng) {
                    Ok(out) => out,
                    Err(never) => match never {},
                }
            }

            /// [`Self::encapsulate`] with a fallible RNG (an OS RNG, a hardware one): the
            /// RNG's error if it fails, and nothing is computed.
            ///
            /// # Errors
            /// The RNG's error.
            pub fn try_encapsulate<R: TryCryptoRng + ?Sized>(
                &self,
                rng: &mut R,
            ) -> Result<(Ciphertext, SharedSecret), R::Error> {
                let mut m = Zeroizing::new([0u8; 32]);
                rng.try_fill_bytes(m.as_mut())?;
                Ok(self.encapsulate_internal(AnyBackend::best(), &m))
            }

            /// [`Self::encapsulate`] with the operating system's RNG (`getrandom`).
            /// Enabled by the `getrandom` feature.
            ///
            /// # Errors
            /// The OS RNG's error, if it fails.
            #[cfg(feature = "getrandom")]
            pub fn encapsulate_with_os_rng(
                &self,
            ) -> Result<(Ciphertext, SharedSecret), getrandom::Error> {
                self.try_encapsulate(&mut getrandom::SysRng)
            }

            /// Checks an encoded encapsulation key as [`Self::from_bytes`] does (FIPS 203
            /// section 7.2: length, then every coefficient below q) without building the
            /// parsed key (no A-hat, no hashing): for validating keys received and stored
            /// before they are used.
            ///
            /// ```
            #[doc = concat!("use mlkem::", stringify!($module), "::{DecapsulationKey, EncapsulationKey};")]
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
                let bytes: &[u8; ENCAPSULATION_KEY_SIZE] =
                    bytes
                        .try_into()
                        .map_err(|_| Error::EncapsulationKeyLength {
                            expected: ENCAPSULATION_KEY_SIZE,
                            actual: bytes.len(),
                        })?;
                let mut t_hat = lattice_poly_ntt::mlkem::NttVector::<K>::zero();
                let reduced = with_backend!(AnyBackend::best(), |b| {
                    crate::kpke::decode_vector_12_into(b, &bytes[..DK_PKE_SIZE], &mut t_hat)
                });
                if reduced {
                    Ok(())
                } else {
                    Err(Error::EncapsulationKeyNotReduced)
                }
            }

            /// `ML-KEM.Encaps_internal` (FIPS 203 Algorithm 17) with a caller-chosen message.
            ///
            /// **Hazardous**: `m` must be 32 fresh random bytes, never reused; this exists
            /// for known-answer tests. Enabled by the `hazmat` feature.
            #[cfg(feature = "hazmat")]
            #[must_use]
            pub fn encapsulate_deterministic(&self, m: &[u8; 32]) -> (Ciphertext, SharedSecret) {
                self.encapsulate_internal(AnyBackend::best(), m)
            }

            /// [`Self::encapsulate_deterministic`] on a chosen backend (for tests and
            /// benchmarks). **Hazardous**, as that function is; `hazmat` feature.
            #[cfg(feature = "hazmat")]
            #[must_use]
            pub fn encapsulate_deterministic_on(
                &self,
                backend: AnyBackend,
                m: &[u8; 32],
            ) -> (Ciphertext, SharedSecret) {
                self.encapsulate_internal(backend, m)
            }

            fn encapsulate_internal(
                &self,
                backend: AnyBackend,
                m: &[u8; 32],
            ) -> (Ciphertext, SharedSecret) {
                let mut ct = [0u8; CIPHERTEXT_SIZE];
                let key = with_backend!(backend, |b| kem::encaps_internal::<
                    _,
                    K,
                    ETA1,
                    ETA2,
                    DU,
                    DV,
                >(b, &self.state, m, &mut ct,));
                (Ciphertext { bytes: ct }, key)
            }
        }

        impl PartialEq for EncapsulationKey {
            fn eq(&self, other: &Self) -> bool {
                self.bytes == other.bytes
            }
        }

        impl Eq for EncapsulationKey {}

        /// Hashes the encoded key (equal keys have equal encodings).
        impl core::hash::Hash for EncapsulationKey {
            fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
                self.bytes.hash(state);
            }
        }

        impl AsRef<[u8]> for EncapsulationKey {
            fn as_ref(&self) -> &[u8] {
                &self.bytes
            }
        }

        impl core::fmt::Debug for EncapsulationKey {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct("EncapsulationKey").finish_non_exhaustive()
            }
        }

        impl TryFrom<&[u8]> for EncapsulationKey {
            type Error = Error;
            fn try_from(bytes: &[u8]) -> Result<Self, Error> {
                Self::from_bytes(bytes)
            }
        }

        #[doc = concat!("An ", $name, " decapsulation key (private key).")]
        ///
        /// Holds s-hat with its multiplication cache, the parsed encapsulation key (for
        /// the re-encryption of decapsulation), z, and the seed when the key was made
        /// from one. Every secret in it is erased on drop.
        #[derive(Clone)]
        pub struct DecapsulationKey {
            s_hat: CachedNttVector<K>,
            z: [u8; 32],
            seed: Option<Seed>,
            ek: EncapsulationKey,
        }

        impl Zeroize for DecapsulationKey {
            fn zeroize(&mut self) {
                self.s_hat.zeroize();
                self.z.zeroize();
                self.seed.zeroize();
            }
        }

        impl Drop for DecapsulationKey {
            fn drop(&mut self) {
                self.zeroize();
            }
        }

        impl ZeroizeOnDrop for DecapsulationKey {}

        impl DecapsulationKey {
            /// `ML-KEM.KeyGen` (FIPS 203 Algorithm 19): a new key from 64 random bytes.
            ///
            /// ```
            #[doc = concat!("use mlkem::", stringify!($module), "::DecapsulationKey;")]
            /// let dk = DecapsulationKey::generate(&mut rand::rng());
            /// assert!(dk.seed().is_some());
            /// ```
            pub fn generate<R: CryptoRng + ?Sized>(rng: &mut R) -> Self {
                match Self::try_generate(rng) {
                    Ok(key) => key,
                    Err(never) => match never {},
                }
            }

            /// [`Self::generate`] with a fallible RNG: the RNG's error if it fails (the
            /// partial seed is erased).
            ///
            /// # Errors
            /// The RNG's error.
            pub fn try_generate<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<Self, R::Error> {
                let mut seed = Seed::new([0u8; crate::SEED_SIZE]);
                rng.try_fill_bytes(seed.as_bytes_mut())?;
                Ok(Self::from_seed_value(AnyBackend::best(), seed))
            }

            /// [`Self::generate`] with the operating system's RNG (`getrandom`). Enabled
            /// by the `getrandom` feature.
            ///
            /// # Errors
            /// The OS RNG's error, if it fails.
            #[cfg(feature = "getrandom")]
            pub fn generate_with_os_rng() -> Result<Self, getrandom::Error> {
                Self::try_generate(&mut getrandom::SysRng)
            }

            /// Checks an expanded decapsulation key as [`Self::from_expanded_bytes`] does
            /// (FIPS 203 section 7.3: length and hash check; and the modulus check of the
            /// embedded ek) without building the key (no A-hat, no s-hat).
            ///
            /// ```
            #[doc = concat!("use mlkem::", stringify!($module), "::DecapsulationKey;")]
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
                let (_, ek, h, _) = split_expanded(bytes)?;
                let computed = with_backend!(AnyBackend::best(), |b| {
                    lattice_sampling::keccak::sha3_256(b, &[ek])
                });
                // Public values: a plain comparison.
                if computed != *h {
                    return Err(Error::DecapsulationKeyHashMismatch);
                }
                EncapsulationKey::validate(ek)
            }

            /// `ML-KEM.KeyGen_internal(d, z)` (FIPS 203 Algorithm 16) from the 64-byte
            /// seed `d || z`. Deterministic: the same seed always gives the same key, and
            /// [`Self::seed`] gives the seed back, so the seed is all you need to store.
            #[must_use]
            pub fn from_seed(seed: &[u8; crate::SEED_SIZE]) -> Self {
                Self::from_seed_value(AnyBackend::best(), Seed::new(*seed))
            }

            /// [`Self::from_seed`] on a chosen backend (results are the same on every
            /// backend; for tests and benchmarks). Enabled by the `hazmat` feature.
            #[cfg(feature = "hazmat")]
            #[must_use]
            pub fn from_seed_on(backend: AnyBackend, seed: &[u8; crate::SEED_SIZE]) -> Self {
                Self::from_seed_value(backend, Seed::new(*seed))
            }

            /// [`Self::from_seed`] for a seed of unchecked length.
            ///
            /// # Errors
            /// [`Error::SeedLength`] if `bytes` is not 64 bytes long.
            pub fn from_seed_bytes(bytes: &[u8]) -> Result<Self, Error> {
                let seed: &[u8; crate::SEED_SIZE] =
                    bytes.try_into().map_err(|_| Error::SeedLength {
                        expected: crate::SEED_SIZE,
                        actual: bytes.len(),
                    })?;
                Ok(Self::from_seed(seed))
            }

            fn from_seed_value(backend: AnyBackend, seed: Seed) -> Self {
                // Built in place: key generation writes A-hat, t-hat and s-hat straight into
                // the key instead of returning them through several layers of copies.
                let mut key = Self {
                    s_hat: CachedNttVector::zero(),
                    z: *seed.z(),
                    seed: None,
                    ek: EncapsulationKey {
                        bytes: [0; ENCAPSULATION_KEY_SIZE],
                        state: EkState::zero(),
                    },
                };
                let EncapsulationKey { bytes, state } = &mut key.ek;
                with_backend!(backend, |b| kem::key_gen_internal::<_, K, ETA1>(
                    b,
                    seed.d(),
                    bytes,
                    state,
                    &mut key.s_hat,
                ));
                key.seed = Some(seed);
                key
            }

            /// The seed `d || z` this key was generated from, or `None` for a key imported
            /// from its expanded encoding (which does not contain d).
            #[must_use]
            pub const fn seed(&self) -> Option<&Seed> {
                self.seed.as_ref()
            }

            /// Imports the expanded FIPS 203 encoding `dk_pke || ek || H(ek) || z`, with the
            /// checks of FIPS 203 section 7.3.
            ///
            /// # Errors
            /// [`Error::DecapsulationKeyLength`] if `bytes` is not
            /// [`DECAPSULATION_KEY_SIZE`] long; [`Error::DecapsulationKeyHashMismatch`] if
            /// the embedded H(ek) is not the hash of the embedded ek;
            /// [`Error::EncapsulationKeyNotReduced`] if the embedded ek fails the modulus
            /// check. A coefficient of `dk_pke` not below q is reduced, not rejected
            /// (FIPS 203 does not check it; the decoded value is used mod q).
            pub fn from_expanded_bytes(bytes: &[u8]) -> Result<Self, Error> {
                Self::from_expanded_bytes_with(AnyBackend::best(), bytes)
            }

            /// [`Self::from_expanded_bytes`] on a chosen backend (for tests and
            /// benchmarks). Enabled by the `hazmat` feature.
            ///
            /// # Errors
            /// Those of [`Self::from_expanded_bytes`].
            #[cfg(feature = "hazmat")]
            pub fn from_expanded_bytes_on(
                backend: AnyBackend,
                bytes: &[u8],
            ) -> Result<Self, Error> {
                Self::from_expanded_bytes_with(backend, bytes)
            }

            fn from_expanded_bytes_with(backend: AnyBackend, bytes: &[u8]) -> Result<Self, Error> {
                let (dk_pke, ek_bytes, h, z) = split_expanded(bytes)?;
                // Filled in place: no copy of A-hat through return values.
                let mut key = Self {
                    s_hat: CachedNttVector::zero(),
                    z: *z,
                    seed: None,
                    ek: EncapsulationKey {
                        bytes: ek_bytes
                            .try_into()
                            .expect("split at the encapsulation key size"),
                        state: EkState::zero(),
                    },
                };
                // The hash check, then the modulus check of the embedded ek too.
                let s_hat = &mut key.s_hat;
                let state = &mut key.ek.state;
                with_backend!(backend, |b| {
                    state.parse_checking_hash_into(b, ek_bytes, h)?;
                    let mut decoded = crate::kpke::decode_vector_12_reduced::<_, K>(b, dk_pke);
                    // In place: no unerased temporary of the cached s-hat.
                    decoded.cached_into(b, s_hat);
                    decoded.zeroize();
                    Ok::<(), Error>(())
                })?;
                Ok(key)
            }

            /// The expanded FIPS 203 encoding `dk_pke || ek || H(ek) || z`
            /// ([`DECAPSULATION_KEY_SIZE`] bytes), in a buffer erased on drop.
            #[must_use]
            pub fn to_expanded_bytes(&self) -> Zeroizing<[u8; DECAPSULATION_KEY_SIZE]> {
                self.to_expanded_bytes_with(AnyBackend::best())
            }

            /// [`Self::to_expanded_bytes`] on a chosen backend (for tests). Enabled by the
            /// `hazmat` feature.
            #[cfg(feature = "hazmat")]
            #[must_use]
            pub fn to_expanded_bytes_on(
                &self,
                backend: AnyBackend,
            ) -> Zeroizing<[u8; DECAPSULATION_KEY_SIZE]> {
                self.to_expanded_bytes_with(backend)
            }

            fn to_expanded_bytes_with(
                &self,
                backend: AnyBackend,
            ) -> Zeroizing<[u8; DECAPSULATION_KEY_SIZE]> {
                let mut out = Zeroizing::new([0u8; DECAPSULATION_KEY_SIZE]);
                let (dk_pke, rest) = out.split_at_mut(DK_PKE_SIZE);
                let (ek, rest) = rest.split_at_mut(ENCAPSULATION_KEY_SIZE);
                let (h, z) = rest.split_at_mut(32);
                let mut s_hat = self.s_hat.to_vector();
                with_backend!(backend, |b| crate::kpke::encode_vector_12(
                    b, &s_hat, dk_pke
                ));
                s_hat.zeroize();
                ek.copy_from_slice(&self.ek.bytes);
                h.copy_from_slice(&self.ek.state.h);
                z.copy_from_slice(&self.z);
                out
            }

            /// The matching encapsulation key, to send to peers.
            #[must_use]
            pub const fn encapsulation_key(&self) -> &EncapsulationKey {
                &self.ek
            }

            /// `ML-KEM.Decaps` (FIPS 203 Algorithm 21). Never fails: a ciphertext that was
            /// not made for this key yields a pseudorandom secret unrelated to the sender's
            /// (implicit rejection), decided in constant time.
            #[must_use]
            pub fn decapsulate(&self, ct: &Ciphertext) -> SharedSecret {
                self.decapsulate_with(AnyBackend::best(), ct)
            }

            /// [`Self::decapsulate`] on a chosen backend (for tests and benchmarks).
            /// Enabled by the `hazmat` feature.
            #[cfg(feature = "hazmat")]
            #[must_use]
            pub fn decapsulate_on(&self, backend: AnyBackend, ct: &Ciphertext) -> SharedSecret {
                self.decapsulate_with(backend, ct)
            }

            fn decapsulate_with(&self, backend: AnyBackend, ct: &Ciphertext) -> SharedSecret {
                with_backend!(
                    backend,
                    |b| kem::decaps_internal::<_, K, ETA1, ETA2, DU, DV>(
                        b,
                        &self.s_hat,
                        &self.ek.state,
                        &self.z,
                        &ct.bytes,
                    )
                )
            }

            /// `ML-KEM.Decaps` (FIPS 203 Algorithm 21) with a key in its expanded encoding,
            /// in one call: the same checks and the same shared secret as
            /// [`Self::from_expanded_bytes`] followed by [`Self::decapsulate`], for a key
            /// used once.
            ///
            /// Faster than the two calls when the key is not reused: nothing is kept for
            /// later, and the hashes the two steps would run one after the other (the
            /// hash check's H(ek), the implicit-rejection key J(z || c) and the expansion
            /// of A-hat) share the 4-way Keccak. To decapsulate several ciphertexts with
            /// one key, import it once instead.
            ///
            /// # Errors
            /// Those of [`Self::from_expanded_bytes`]. A wrong ciphertext is not an error
            /// (implicit rejection, as in [`Self::decapsulate`]).
            pub fn decapsulate_expanded(
                bytes: &[u8],
                ct: &Ciphertext,
            ) -> Result<SharedSecret, Error> {
                Self::decapsulate_expanded_with(AnyBackend::best(), bytes, ct)
            }

            /// [`Self::decapsulate_expanded`] on a chosen backend (for tests and
            /// benchmarks). Enabled by the `hazmat` feature.
            ///
            /// # Errors
            /// Those of [`Self::decapsulate_expanded`].
            #[cfg(feature = "hazmat")]
            pub fn decapsulate_expanded_on(
                backend: AnyBackend,
                bytes: &[u8],
                ct: &Ciphertext,
            ) -> Result<SharedSecret, Error> {
                Self::decapsulate_expanded_with(backend, bytes, ct)
            }

            fn decapsulate_expanded_with(
                backend: AnyBackend,
                bytes: &[u8],
                ct: &Ciphertext,
            ) -> Result<SharedSecret, Error> {
                let (dk_pke, ek, h, z) = split_expanded(bytes)?;
                with_backend!(
                    backend,
                    |b| kem::decaps_expanded::<_, K, ETA1, ETA2, DU, DV>(
                        b, dk_pke, ek, h, z, &ct.bytes,
                    )
                )
            }
        }

        impl core::fmt::Debug for DecapsulationKey {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct("DecapsulationKey").finish_non_exhaustive()
            }
        }

        /// Splits an expanded decapsulation key `dk_pke || ek || H(ek) || z` after checking
        /// its length.
        fn split_expanded(bytes: &[u8]) -> Result<(&[u8], &[u8], &[u8; 32], &[u8; 32]), Error> {
            if bytes.len() != DECAPSULATION_KEY_SIZE {
                return Err(Error::DecapsulationKeyLength {
                    expected: DECAPSULATION_KEY_SIZE,
                    actual: bytes.len(),
                });
            }
            let (dk_pke, rest) = bytes.split_at(DK_PKE_SIZE);
            let (ek, rest) = rest.split_at(ENCAPSULATION_KEY_SIZE);
            let (h, z) = rest.split_at(32);
            let h = h.try_into().expect("32 bytes by the length check");
            let z = z.try_into().expect("32 bytes by the length check");
            Ok((dk_pke, ek, h, z))
        }

        #[doc = concat!("An ", $name, " ciphertext.")]
        #[derive(Clone, PartialEq, Eq)]
        pub struct Ciphertext {
            bytes: [u8; CIPHERTEXT_SIZE],
        }

        impl Ciphertext {
            /// Wraps ciphertext bytes.
            ///
            /// # Errors
            /// [`Error::CiphertextLength`] if `bytes` is not [`CIPHERTEXT_SIZE`] long. Any
            /// content of the right length is a valid ciphertext (FIPS 203 section 7.3).
            pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
                let bytes = bytes.try_into().map_err(|_| Error::CiphertextLength {
                    expected: CIPHERTEXT_SIZE,
                    actual: bytes.len(),
                })?;
                Ok(Self { bytes })
            }

            /// The ciphertext bytes.
            #[must_use]
            pub const fn as_bytes(&self) -> &[u8; CIPHERTEXT_SIZE] {
                &self.bytes
            }
        }

        impl AsRef<[u8]> for Ciphertext {
            fn as_ref(&self) -> &[u8] {
                &self.bytes
            }
        }

        /// Any content of the right length is a valid ciphertext (FIPS 203 section 7.3).
        impl From<[u8; CIPHERTEXT_SIZE]> for Ciphertext {
            fn from(bytes: [u8; CIPHERTEXT_SIZE]) -> Self {
                Self { bytes }
            }
        }

        impl From<Ciphertext> for [u8; CIPHERTEXT_SIZE] {
            fn from(ct: Ciphertext) -> Self {
                ct.bytes
            }
        }

        impl TryFrom<&[u8]> for Ciphertext {
            type Error = Error;
            fn try_from(bytes: &[u8]) -> Result<Self, Error> {
                Self::from_bytes(bytes)
            }
        }

        impl core::fmt::Debug for Ciphertext {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct("Ciphertext").finish_non_exhaustive()
            }
        }
    };
}

pub(crate) use parameter_set;
