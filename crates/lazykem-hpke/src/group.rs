//! The Diffie-Hellman groups under the DHKEMs, behind one private trait shaped like the
//! planned `lazykem_hybrid::group::NominalGroup` (scalar and element codecs, `exp_base`,
//! `exp`), so that moving the DHKEMs onto that crate changes this file only.
//!
//! Meanwhile: X25519 from `x25519-dalek`, P-256 and P-384 from RustCrypto `p256` / `p384`,
//! X448 from RustCrypto `x448` (feature `x448`).

use crate::kdf::Secret;
use alloc::vec::Vec;
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

/// X25519 (RFC 7748), `x25519-dalek`.
pub(crate) struct X25519;

/// An X25519 public key as its 32 bytes.
#[derive(Clone)]
pub(crate) struct X25519Element(x25519_dalek::PublicKey);

impl AsRef<[u8]> for X25519Element {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl DhGroup for X25519 {
    const SCALAR_SIZE: usize = 32;
    const ELEMENT_SIZE: usize = 32;
    const SHARED_SECRET_SIZE: usize = 32;
    const NIST: bool = false;
    // Keeps the unclamped bytes and clamps in each multiplication; erased on drop.
    type Scalar = x25519_dalek::StaticSecret;
    type Element = X25519Element;

    fn scalar_from_bytes(bytes: &[u8]) -> Result<Self::Scalar, GroupError> {
        let bytes: [u8; 32] = bytes.try_into().map_err(|_| GroupError::Length)?;
        let bytes = Zeroizing::new(bytes);
        Ok(x25519_dalek::StaticSecret::from(*bytes))
    }

    fn scalar_to_bytes(scalar: &Self::Scalar) -> Zeroizing<Vec<u8>> {
        Zeroizing::new(scalar.as_bytes().to_vec())
    }

    fn element_from_bytes(bytes: &[u8]) -> Result<Self::Element, GroupError> {
        let bytes: [u8; 32] = bytes.try_into().map_err(|_| GroupError::Length)?;
        Ok(X25519Element(x25519_dalek::PublicKey::from(bytes)))
    }

    fn exp_base(scalar: &Self::Scalar) -> Self::Element {
        X25519Element(x25519_dalek::PublicKey::from(scalar))
    }

    fn exp(element: &Self::Element, scalar: &Self::Scalar) -> Secret {
        let shared = scalar.diffie_hellman(&element.0);
        Secret::from_slice(shared.as_bytes())
    }
}

/// The NIST curves P-256 and P-384 through RustCrypto's `elliptic-curve` 0.14 types.
macro_rules! nist_group {
    ($name:ident, $element:ident, $krate:ident, $scalar:literal, $point:literal) => {
        #[doc = concat!("The NIST curve of `", stringify!($krate), "`.")]
        pub(crate) struct $name;

        /// A validated public key and its uncompressed SEC 1 encoding.
        #[derive(Clone)]
        pub(crate) struct $element {
            point: $krate::PublicKey,
            bytes: [u8; $point],
        }

        impl $element {
            fn new(point: $krate::PublicKey) -> Self {
                use $krate::elliptic_curve::sec1::ToSec1Point;
                let encoded = point.as_affine().to_sec1_point(false);
                let mut bytes = [0u8; $point];
                bytes.copy_from_slice(encoded.as_bytes());
                Self { point, bytes }
            }
        }

        impl AsRef<[u8]> for $element {
            fn as_ref(&self) -> &[u8] {
                &self.bytes
            }
        }

        impl DhGroup for $name {
            const SCALAR_SIZE: usize = $scalar;
            const ELEMENT_SIZE: usize = $point;
            const SHARED_SECRET_SIZE: usize = $scalar;
            const NIST: bool = true;
            type Scalar = $krate::SecretKey;
            type Element = $element;

            fn scalar_from_bytes(bytes: &[u8]) -> Result<Self::Scalar, GroupError> {
                // An exact length first: `SecretKey::from_slice` would pad a short one.
                let bytes: &[u8; $scalar] = bytes.try_into().map_err(|_| GroupError::Length)?;
                let field = (*bytes).into();
                let field = Zeroizing::new(field);
                $krate::SecretKey::from_bytes(&field).map_err(|_| GroupError::Invalid)
            }

            fn scalar_to_bytes(scalar: &Self::Scalar) -> Zeroizing<Vec<u8>> {
                let bytes = Zeroizing::new(scalar.to_bytes());
                Zeroizing::new(bytes.to_vec())
            }

            fn element_from_bytes(bytes: &[u8]) -> Result<Self::Element, GroupError> {
                if bytes.len() != $point {
                    return Err(GroupError::Length);
                }
                // Only the uncompressed form (HPKE §7.1.1); `from_sec1_bytes` checks the
                // coordinates, the curve equation and the identity (HPKE §7.1.4).
                if bytes[0] != 0x04 {
                    return Err(GroupError::Invalid);
                }
                let point =
                    $krate::PublicKey::from_sec1_bytes(bytes).map_err(|_| GroupError::Invalid)?;
                Ok($element::new(point))
            }

            fn exp_base(scalar: &Self::Scalar) -> Self::Element {
                $element::new(scalar.public_key())
            }

            fn exp(element: &Self::Element, scalar: &Self::Scalar) -> Secret {
                // The x-coordinate of sk * pk; never the identity: pk is a valid point of
                // the prime-order group and sk is not zero.
                let shared = scalar.diffie_hellman(&element.point);
                Secret::from_slice(shared.raw_secret_bytes())
            }
        }
    };
}

nist_group!(P256, P256Element, p256, 32, 65);
nist_group!(P384, P384Element, p384, 48, 97);

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
