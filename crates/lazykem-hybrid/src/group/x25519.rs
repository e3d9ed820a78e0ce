//! The Curve25519 nominal group (draft-irtf-cfrg-concrete-hybrid-kems §3.1.2): `Exp(p, x) =
//! X25519(x, p)` (RFC 7748 §5), `RandomScalar` and `ElementToSharedSecret` the identity.

use core::fmt;

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::{Imp, NominalGroup, sealed};
use crate::Error;
use crate::error::{Part, array};

/// The Curve25519 group of X25519 (RFC 7748).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct X25519;

/// An X25519 private key: 32 bytes, clamped inside the scalar multiplication (RFC 7748 §5).
/// Erased on drop; `Debug` does not show it.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct Scalar([u8; 32]);

impl fmt::Debug for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("x25519::Scalar(..)")
    }
}

/// An X25519 public key: any 32 bytes (RFC 7748 takes the u-coordinate mod p and ignores the
/// top bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Element([u8; 32]);

impl AsRef<[u8]> for Element {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl sealed::Sealed for X25519 {}

impl NominalGroup for X25519 {
    const NAME: &'static str = "X25519";
    const SCALAR_SIZE: usize = 32;
    const ELEMENT_SIZE: usize = 32;
    const SEED_SIZE: usize = 32;
    const SHARED_SECRET_SIZE: usize = 32;
    type Scalar = Scalar;
    type Element = Element;
    type ScalarBytes = [u8; 32];
    type ElementBytes = [u8; 32];
    type SharedSecretBytes = [u8; 32];

    fn random_scalar(seed: &[u8]) -> Result<Scalar, Error> {
        Self::scalar_from_bytes(seed)
    }

    fn scalar_from_bytes(bytes: &[u8]) -> Result<Scalar, Error> {
        Ok(Scalar(*array::<32>(Self::NAME, Part::Scalar, bytes)?))
    }

    fn scalar_to_bytes(x: &Scalar) -> [u8; 32] {
        x.0
    }

    fn element_from_bytes(bytes: &[u8]) -> Result<Element, Error> {
        Ok(Element(*array::<32>(Self::NAME, Part::Element, bytes)?))
    }

    fn exp_base(x: &Scalar) -> Element {
        Element(Self::exp_base_with(Imp::best(), &x.0))
    }

    fn exp_base_bytes(x: &Scalar) -> [u8; 32] {
        Self::exp_base_with(Imp::best(), &x.0)
    }

    fn exp(p: &Element, x: &Scalar) -> [u8; 32] {
        Self::exp_with(Imp::best(), &p.0, &x.0)
    }
}

impl X25519 {
    /// `Exp(g, x)` on one implementation.
    pub(crate) fn exp_base_with(imp: Imp, x: &[u8; 32]) -> [u8; 32] {
        match imp {
            #[cfg(all(
                feature = "graviola",
                any(target_arch = "x86_64", target_arch = "aarch64")
            ))]
            Imp::Graviola => graviola::key_agreement::x25519::StaticPrivateKey::from_array(x)
                .public_key()
                .as_bytes(),
            Imp::Fallback => {
                let x = x25519_dalek::StaticSecret::from(*x);
                *x25519_dalek::PublicKey::from(&x).as_bytes()
            }
        }
    }

    /// X25519(x, p), all-zero output included.
    pub(crate) fn exp_with(imp: Imp, p: &[u8; 32], x: &[u8; 32]) -> [u8; 32] {
        match imp {
            #[cfg(all(
                feature = "graviola",
                any(target_arch = "x86_64", target_arch = "aarch64")
            ))]
            Imp::Graviola => {
                use graviola::key_agreement::x25519::{PublicKey, StaticPrivateKey};
                // graviola refuses exactly the all-zero output (a low-order p; RFC 7748 §6.1),
                // which the hybrid KEMs take as it is: the error is that output. Whether p
                // has low order is public.
                StaticPrivateKey::from_array(x)
                    .diffie_hellman(&PublicKey::from_array(p))
                    .map_or([0; 32], |s| s.0)
            }
            Imp::Fallback => *x25519_dalek::StaticSecret::from(*x)
                .diffie_hellman(&x25519_dalek::PublicKey::from(*p))
                .as_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7748 §5.2's first test vector, on each implementation, and the all-zero output
    /// of a low-order point.
    #[test]
    fn rfc7748_vector_and_low_order() {
        let x: [u8; 32] = hex("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4");
        let u: [u8; 32] = hex("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c");
        let out: [u8; 32] = hex("c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552");
        for imp in Imp::available() {
            assert_eq!(X25519::exp_with(imp, &u, &x), out, "{imp:?}");
            assert_eq!(X25519::exp_with(imp, &[0; 32], &x), [0; 32], "{imp:?}");
        }
    }

    #[test]
    fn implementations_agree() {
        let mut x = [7u8; 32];
        for round in 0..16u8 {
            x[round as usize] ^= round.wrapping_mul(37) | 1;
            let all = Imp::available();
            let pk = X25519::exp_base_with(all[0], &x);
            for imp in &all {
                assert_eq!(X25519::exp_base_with(*imp, &x), pk, "{imp:?}");
                let scalar = X25519::scalar_from_bytes(&x).expect("32 bytes");
                assert_eq!(X25519::exp_base_bytes(&scalar), X25519::exp_base(&scalar).0);
                assert_eq!(
                    X25519::exp_with(*imp, &pk, &x),
                    X25519::exp_with(all[0], &pk, &x),
                    "{imp:?}"
                );
            }
        }
    }

    fn hex<const N: usize>(s: &str) -> [u8; N] {
        let mut out = [0; N];
        for (i, b) in out.iter_mut().enumerate() {
            *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        out
    }
}
