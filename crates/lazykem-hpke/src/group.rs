//! The Diffie-Hellman groups under the DHKEMs, behind one private trait ([`DhGroup`]: scalar
//! and element codecs, `exp_base`, `exp`).
//!
//! X25519, P-256 and P-384 are `lazykem_hybrid::group`'s ([`NominalGroup`], through a
//! blanket implementation); X448, which that module does not have, is RustCrypto `x448`'s
//! (feature `x448`).

use crate::kdf::Secret;
use alloc::vec::Vec;
use lazykem_hybrid::group::NominalGroup;
pub(crate) use lazykem_hybrid::group::{P256, P384, X25519};
use zeroize::Zeroizing;

/// Why a group rejected an encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GroupError {
    /// Not `SCALAR_SIZE` / `ELEMENT_SIZE` bytes.
    Length,
    /// The right length but not a valid scalar (NIST: zero or `>= n`) or element (NIST:
    /// not `0x04 || X || Y`, a coordinate `>= p`, off the curve).
    Invalid,
}

/// A prime-order group (or X25519/X448's Montgomery u-coordinates) as the DHKEM uses it.
pub(crate) trait DhGroup: 'static {
    /// Bytes of an encoded scalar: the DHKEM's `Nsk`.
    const SCALAR_SIZE: usize;
    /// Bytes of an encoded element: the DHKEM's `Npk` and `Nenc`.
    const ELEMENT_SIZE: usize;
    /// Bytes of a DH output: `Ndh`.
    const SHARED_SECRET_SIZE: usize;
    /// NIST curves: `DeriveKeyPair` samples candidates (`HPKE §7.1.3`); X25519/X448: every
    /// string of `SCALAR_SIZE` bytes is a key, and the DH output must be checked for zero
    /// (`HPKE §7.1.4`).
    const NIST: bool;
    /// A secret scalar, erased on drop.
    type Scalar: Clone + Send + Sync + 'static;
    /// A validated element.
    type Element: Clone + Send + Sync + AsRef<[u8]> + 'static;

    /// `DeserializePrivateKey` (`HPKE §7.1.2`): NIST big-endian with `0 < x < n`;
    /// X25519/X448 the raw bytes (clamped when used).
    fn scalar_from_bytes(bytes: &[u8]) -> Result<Self::Scalar, GroupError>;
    /// `SerializePrivateKey`: the bytes [`Self::scalar_from_bytes`] reads (X25519/X448 not
    /// clamped, as the test vectors print them).
    fn scalar_to_bytes(scalar: &Self::Scalar) -> Zeroizing<Vec<u8>>;
    /// `DeserializePublicKey` (`HPKE §7.1.1`) with the validation of `HPKE §7.1.4`.
    fn element_from_bytes(bytes: &[u8]) -> Result<Self::Element, GroupError>;
    /// `pk(sk)`.
    fn exp_base(scalar: &Self::Scalar) -> Self::Element;
    /// `DH(sk, pk)`, `SHARED_SECRET_SIZE` bytes (X25519/X448: possibly all zero, which the
    /// DHKEM rejects).
    fn exp(element: &Self::Element, scalar: &Self::Scalar) -> Secret;
}

/// X25519, P-256 and P-384 are `lazykem_hybrid::group`'s: graviola's verified assembly where
/// its CPU check passes (feature `graviola`), `x25519-dalek` / `p256` / `p384` elsewhere.
/// The DH output of X25519 comes back as it is, all zeros included (the DHKEM checks).
impl<N: NominalGroup> DhGroup for N {
    const SCALAR_SIZE: usize = N::SCALAR_SIZE;
    const ELEMENT_SIZE: usize = N::ELEMENT_SIZE;
    const SHARED_SECRET_SIZE: usize = N::SHARED_SECRET_SIZE;
    // X25519 is the only group of that module whose scalars are every byte string.
    const NIST: bool = N::ELEMENT_SIZE != 32;
    type Scalar = N::Scalar;
    type Element = N::Element;

    fn scalar_from_bytes(bytes: &[u8]) -> Result<Self::Scalar, GroupError> {
        N::scalar_from_bytes(bytes).map_err(from_hybrid)
    }

    fn scalar_to_bytes(scalar: &Self::Scalar) -> Zeroizing<Vec<u8>> {
        let bytes = Zeroizing::new(N::scalar_to_bytes(scalar));
        Zeroizing::new(bytes.as_ref().to_vec())
    }

    fn element_from_bytes(bytes: &[u8]) -> Result<Self::Element, GroupError> {
        N::element_from_bytes(bytes).map_err(from_hybrid)
    }

    fn exp_base(scalar: &Self::Scalar) -> Self::Element {
        N::exp_base(scalar)
    }

    fn exp(element: &Self::Element, scalar: &Self::Scalar) -> Secret {
        let shared = Zeroizing::new(N::exp(element, scalar));
        Secret::from_slice(shared.as_ref())
    }
}

fn from_hybrid(e: lazykem_hybrid::Error) -> GroupError {
    match e {
        lazykem_hybrid::Error::Length { .. } => GroupError::Length,
        _ => GroupError::Invalid,
    }
}

/// X448 (RFC 7748), RustCrypto `x448` (feature `x448`).
#[cfg(feature = "x448")]
pub(crate) struct X448;

/// An X448 private key: its 56 raw bytes (clamped when used), erased on drop.
#[cfg(feature = "x448")]
#[derive(Clone)]
pub(crate) struct X448Scalar(Zeroizing<[u8; 56]>);

/// An X448 public key.
#[cfg(feature = "x448")]
#[derive(Clone)]
pub(crate) struct X448Element([u8; 56]);

#[cfg(feature = "x448")]
impl AsRef<[u8]> for X448Element {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

#[cfg(feature = "x448")]
impl DhGroup for X448 {
    const SCALAR_SIZE: usize = 56;
    const ELEMENT_SIZE: usize = 56;
    const SHARED_SECRET_SIZE: usize = 56;
    const NIST: bool = false;
    type Scalar = X448Scalar;
    type Element = X448Element;

    fn scalar_from_bytes(bytes: &[u8]) -> Result<Self::Scalar, GroupError> {
        let bytes: [u8; 56] = bytes.try_into().map_err(|_| GroupError::Length)?;
        Ok(X448Scalar(Zeroizing::new(bytes)))
    }

    fn scalar_to_bytes(scalar: &Self::Scalar) -> Zeroizing<Vec<u8>> {
        Zeroizing::new(scalar.0.to_vec())
    }

    fn element_from_bytes(bytes: &[u8]) -> Result<Self::Element, GroupError> {
        let bytes: [u8; 56] = bytes.try_into().map_err(|_| GroupError::Length)?;
        Ok(X448Element(bytes))
    }

    fn exp_base(scalar: &Self::Scalar) -> Self::Element {
        X448Element(x448::x448_unchecked(*scalar.0, x448::X448_BASEPOINT_BYTES))
    }

    fn exp(element: &Self::Element, scalar: &Self::Scalar) -> Secret {
        // `x448_unchecked` clamps the scalar (RFC 7748 decodeScalar448) and returns the raw
        // output, all zeros for a low-order point; the DHKEM checks that.
        let shared = Zeroizing::new(x448::x448_unchecked(*scalar.0, element.0));
        Secret::from_slice(shared.as_ref())
    }
}
