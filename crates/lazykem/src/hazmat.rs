//! Every operation on a chosen backend, in one place: [`OnBackend`], built from an
//! [`AnyBackend`] (a backend this CPU has, as a token). Enabled by the `hazmat` feature; for
//! tests, benchmarks and the constant-time harness, which run each operation on every
//! backend the CPU has. Results are the same on every backend; the plain methods of the key
//! types pick the best one ([`AnyBackend::best`]; [`crate::backend`] says which kind it is).
//! Unlike the plain methods, these do not run the `self-test` feature's known-answer gate
//! (the self-tests call them).

pub use lattice_poly_ntt::backend::AnyBackend;

use crate::params::ParameterSet;
use crate::secret::{Seed, SharedSecret};
use crate::{BackendKind, Ciphertext, DecapsulationKey, EncapsulationKey, Error};
use zeroize::Zeroizing;

/// The key operations on one backend.
///
/// ```
/// use lazykem::hazmat::OnBackend;
/// use lazykem::{BackendKind, MlKem768, ml_kem_768::DecapsulationKey};
///
/// let portable = OnBackend::of(BackendKind::Portable).expect("always available");
/// let dk = portable.decapsulation_key_from_seed::<MlKem768>(&[1; 64]);
/// let ek = portable.encapsulation_key_from_bytes::<MlKem768>(dk.encapsulation_key().as_bytes())?;
/// let (ct, secret) = portable.encapsulate_deterministic(&ek, &[2; 32]);
/// assert_eq!(portable.decapsulate(&dk, &ct), secret);
/// // The same on every backend.
/// assert_eq!(DecapsulationKey::from_seed(&[1; 64]).decapsulate(&ct), secret);
/// # Ok::<(), lazykem::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct OnBackend(AnyBackend);

impl OnBackend {
    /// The operations on `backend`.
    #[must_use]
    pub const fn new(backend: AnyBackend) -> Self {
        Self(backend)
    }

    /// The operations on the backend of `kind`, if this CPU has it.
    #[must_use]
    pub fn of(kind: BackendKind) -> Option<Self> {
        AnyBackend::of(kind).map(Self)
    }

    /// The backend.
    #[must_use]
    pub const fn backend(self) -> AnyBackend {
        self.0
    }

    /// [`EncapsulationKey::from_bytes`].
    ///
    /// # Errors
    /// Those of [`EncapsulationKey::from_bytes`].
    pub fn encapsulation_key_from_bytes<P: ParameterSet>(
        self,
        bytes: &[u8],
    ) -> Result<EncapsulationKey<P>, Error> {
        EncapsulationKey::from_bytes_with(self.0, bytes)
    }

    /// [`EncapsulationKey::encapsulate_deterministic`]: **hazardous**, `m` must be fresh.
    #[must_use]
    pub fn encapsulate_deterministic<P: ParameterSet>(
        self,
        ek: &EncapsulationKey<P>,
        m: &[u8; 32],
    ) -> (Ciphertext<P>, SharedSecret) {
        ek.encapsulate_internal(self.0, m)
    }

    /// [`EncapsulationKey::encapsulate_encoded_deterministic`]: **hazardous**, `m` must be
    /// fresh.
    ///
    /// # Errors
    /// Those of [`EncapsulationKey::from_bytes`].
    pub fn encapsulate_encoded_deterministic<P: ParameterSet>(
        self,
        ek: &[u8],
        m: &[u8; 32],
    ) -> Result<(Ciphertext<P>, SharedSecret), Error> {
        EncapsulationKey::encapsulate_encoded_with(self.0, ek, m)
    }

    /// [`DecapsulationKey::from_seed`].
    #[must_use]
    pub fn decapsulation_key_from_seed<P: ParameterSet>(
        self,
        seed: &[u8; crate::SEED_SIZE],
    ) -> DecapsulationKey<P> {
        DecapsulationKey::from_seed_value(self.0, Seed::new(*seed))
    }

    /// [`DecapsulationKey::from_expanded_bytes`].
    ///
    /// # Errors
    /// Those of [`DecapsulationKey::from_expanded_bytes`].
    pub fn decapsulation_key_from_expanded_bytes<P: ParameterSet>(
        self,
        bytes: &[u8],
    ) -> Result<DecapsulationKey<P>, Error> {
        DecapsulationKey::from_expanded_bytes_with(self.0, bytes)
    }

    /// [`DecapsulationKey::to_expanded_bytes`].
    #[must_use]
    pub fn to_expanded_bytes<P: ParameterSet>(
        self,
        dk: &DecapsulationKey<P>,
    ) -> Zeroizing<P::DecapsulationKeyBytes> {
        dk.to_expanded_bytes_with(self.0)
    }

    /// [`DecapsulationKey::decapsulate`].
    #[must_use]
    pub fn decapsulate<P: ParameterSet>(
        self,
        dk: &DecapsulationKey<P>,
        ct: &Ciphertext<P>,
    ) -> SharedSecret {
        dk.decapsulate_with(self.0, ct)
    }

    /// [`DecapsulationKey::decapsulate_expanded`].
    ///
    /// # Errors
    /// Those of [`DecapsulationKey::decapsulate_expanded`].
    pub fn decapsulate_expanded<P: ParameterSet>(
        self,
        dk: &[u8],
        ct: &Ciphertext<P>,
    ) -> Result<SharedSecret, Error> {
        DecapsulationKey::decapsulate_expanded_with(self.0, dk, ct)
    }
}
