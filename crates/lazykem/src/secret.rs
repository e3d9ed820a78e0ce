//! Secret value types: the shared secret and the private-key seed.

use subtle::{Choice, ConstantTimeEq};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Size of a shared secret in bytes.
pub const SHARED_SECRET_SIZE: usize = 32;

/// Size of a private-key seed `d || z` in bytes.
pub const SEED_SIZE: usize = 64;

/// The 32-byte shared secret K established by encapsulation and decapsulation.
///
/// Erased on drop; compared in constant time (`==` uses [`ConstantTimeEq`]); its `Debug`
/// output does not show the bytes.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SharedSecret([u8; SHARED_SECRET_SIZE]);

impl SharedSecret {
    pub(crate) const fn new(bytes: [u8; SHARED_SECRET_SIZE]) -> Self {
        Self(bytes)
    }

    /// The secret bytes, to feed a key-derivation function.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; SHARED_SECRET_SIZE] {
        &self.0
    }
}

/// The secret's bytes, for a KDF or a cipher key. Compare with `==` (constant time) or
/// [`ConstantTimeEq`], not by comparing these slices.
impl AsRef<[u8]> for SharedSecret {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl ConstantTimeEq for SharedSecret {
    fn ct_eq(&self, other: &Self) -> Choice {
        self.0.ct_eq(&other.0)
    }
}

impl PartialEq for SharedSecret {
    fn eq(&self, other: &Self) -> bool {
        self.ct_eq(other).into()
    }
}

impl Eq for SharedSecret {}

impl core::fmt::Debug for SharedSecret {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SharedSecret(..)")
    }
}

/// The 64-byte private-key seed `d || z` of `ML-KEM.KeyGen_internal` (FIPS 203 Alg. 16):
/// the compact private-key format recommended for storage.
///
/// Erased on drop; compared in constant time; `Debug` does not show the bytes.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct Seed([u8; SEED_SIZE]);

impl Seed {
    /// Wraps 64 seed bytes.
    #[must_use]
    pub const fn new(bytes: [u8; SEED_SIZE]) -> Self {
        Self(bytes)
    }

    /// The seed bytes `d || z`.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; SEED_SIZE] {
        &self.0
    }

    pub(crate) fn as_bytes_mut(&mut self) -> &mut [u8; SEED_SIZE] {
        &mut self.0
    }

    pub(crate) fn d(&self) -> &[u8; 32] {
        self.0[..32].try_into().expect("64 = 32 + 32")
    }

    pub(crate) fn z(&self) -> &[u8; 32] {
        self.0[32..].try_into().expect("64 = 32 + 32")
    }
}

impl From<[u8; SEED_SIZE]> for Seed {
    fn from(bytes: [u8; SEED_SIZE]) -> Self {
        Self::new(bytes)
    }
}

impl ConstantTimeEq for Seed {
    fn ct_eq(&self, other: &Self) -> Choice {
        self.0.ct_eq(&other.0)
    }
}

impl PartialEq for Seed {
    fn eq(&self, other: &Self) -> bool {
        self.ct_eq(other).into()
    }
}

impl Eq for Seed {}

impl core::fmt::Debug for Seed {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Seed(..)")
    }
}
