//! The P-256 and P-384 nominal groups (draft-irtf-cfrg-concrete-hybrid-kems §3.1.1): elements
//! in the uncompressed SEC1 encoding, scalars big-endian, `RandomScalar` by rejection over
//! `Nscalar`-byte chunks, `ElementToSharedSecret` the x-coordinate (SEC1 §3.3.1 ECDH).

use core::fmt;

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::{Imp, NominalGroup, sealed};
use crate::Error;
use crate::error::{Part, array};

macro_rules! nist_group {
    (
        $(#[$doc:meta])*
        $group:ident, $module:ident, $name:literal, $rc:ident, $grav:ident,
        scalar: $ns:literal, element: $ne:literal, seed: $nseed:literal
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $group;

        #[doc = concat!("Types of the ", $name, " group: its scalar and element.")]
        pub mod $module {
            use super::*;

            #[doc = concat!("A ", $name, " private key `0 < x < n`: erased on drop; `Debug` does not show it.")]
            #[derive(Clone)]
            pub struct Scalar {
                /// The big-endian encoding (what graviola takes).
                pub(super) bytes: [u8; $ns],
                /// The same value as RustCrypto's type.
                pub(super) nz: $rc::NonZeroScalar,
            }

            impl Drop for Scalar {
                fn drop(&mut self) {
                    self.bytes.zeroize();
                    self.nz.zeroize();
                }
            }

            impl ZeroizeOnDrop for Scalar {}

            impl fmt::Debug for Scalar {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str(concat!($name, " Scalar(..)"))
                }
            }

            #[doc = concat!("A ", $name, " public key, checked: its uncompressed encoding and, once parsed, the point.")]
            #[derive(Clone)]
            pub struct Element {
                pub(super) bytes: [u8; $ne],
                /// The parsed point; `None` for a point this crate computed (`exp_base`),
                /// which is parsed only if something multiplies it (most never are: a key
                /// share or an ephemeral ciphertext element).
                pub(super) point: Option<Point>,
            }

            /// The parsed point, in the form of the implementation that parsed it. graviola's
            /// keeps its precomputed multiples of the point (1.6 / 2.4 KB), so a key parsed
            /// once multiplies without redoing them; inline, as boxing it would allocate
            /// per parse and need `alloc`.
            #[allow(clippy::large_enum_variant)]
            #[derive(Clone)]
            pub(super) enum Point {
                #[cfg(all(
                    feature = "graviola",
                    any(target_arch = "x86_64", target_arch = "aarch64")
                ))]
                Graviola(graviola::key_agreement::$grav::PublicKey),
                RustCrypto($rc::PublicKey),
            }

            impl PartialEq for Element {
                fn eq(&self, other: &Self) -> bool {
                    self.bytes == other.bytes
                }
            }

            impl Eq for Element {}

            impl AsRef<[u8]> for Element {
                fn as_ref(&self) -> &[u8] {
                    &self.bytes
                }
            }

            impl fmt::Debug for Element {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.debug_struct(concat!($name, " Element")).finish_non_exhaustive()
                }
            }
        }

        impl sealed::Sealed for $group {}

        impl NominalGroup for $group {
            const NAME: &'static str = $name;
            const SCALAR_SIZE: usize = $ns;
            const ELEMENT_SIZE: usize = $ne;
            const SEED_SIZE: usize = $nseed;
            const SHARED_SECRET_SIZE: usize = $ns;
            type Scalar = $module::Scalar;
            type Element = $module::Element;
            type ScalarBytes = [u8; $ns];
            type ElementBytes = [u8; $ne];
            type SharedSecretBytes = [u8; $ns];

            fn random_scalar(seed: &[u8]) -> Result<$module::Scalar, Error> {
                if seed.is_empty() || seed.len() % $ns != 0 || seed.len() > $nseed {
                    return Err(Error::Length {
                        kem: $name,
                        part: Part::Randomness,
                        expected: $nseed,
                        actual: seed.len(),
                    });
                }
                // The first chunk that is a scalar. Which chunk that is depends only on the
                // rejected chunks, which are discarded (and a rejection has probability
                // below 2^-32 per chunk).
                for chunk in seed.chunks_exact($ns) {
                    if let Ok(x) = Self::scalar_from_bytes(chunk) {
                        return Ok(x);
                    }
                }
                Err(Error::ScalarRejected { group: $name })
            }

            fn scalar_from_bytes(bytes: &[u8]) -> Result<$module::Scalar, Error> {
                let bytes = array::<$ns>($name, Part::Scalar, bytes)?;
                // `SecretKey::from_bytes` checks 0 < x < n in constant time.
                // `from_repr` checks x < n and `NonZeroScalar` x != 0, in constant time; only
                // the verdict is revealed.
                let nz: Option<$rc::NonZeroScalar> =
                    $rc::NonZeroScalar::from_repr($rc::FieldBytes::from(*bytes)).into();
                match nz {
                    Some(nz) => Ok($module::Scalar { bytes: *bytes, nz }),
                    None => Err(Error::InvalidScalar { group: $name }),
                }
            }

            fn scalar_to_bytes(x: &$module::Scalar) -> [u8; $ns] {
                x.bytes
            }

            fn element_from_bytes(bytes: &[u8]) -> Result<$module::Element, Error> {
                let bytes = array::<$ne>($name, Part::Element, bytes)?;
                Self::parse_with(Imp::best(), bytes)
            }

            fn exp_base(x: &$module::Scalar) -> $module::Element {
                Self::exp_base_with(Imp::best(), x)
            }

            fn exp_base_bytes(x: &$module::Scalar) -> [u8; $ne] {
                Self::exp_base_bytes_with(Imp::best(), x)
            }

            fn exp(p: &$module::Element, x: &$module::Scalar) -> [u8; $ns] {
                use $module::Point;
                let parsed;
                let point = match &p.point {
                    Some(point) => point,
                    // A point `exp_base` computed: on the curve by construction.
                    None => match Self::parse_with(Imp::best(), &p.bytes) {
                        Ok($module::Element { point: Some(point), .. }) => {
                            parsed = point;
                            &parsed
                        }
                        _ => return [0; $ns],
                    },
                };
                match point {
                    #[cfg(all(
                        feature = "graviola",
                        any(target_arch = "x86_64", target_arch = "aarch64")
                    ))]
                    Point::Graviola(point) => {
                        use graviola::key_agreement::$grav::StaticPrivateKey;
                        // Neither call fails: `x` is in range by its type and the point was
                        // checked when parsed (graviola reports only those, and faults).
                        StaticPrivateKey::from_bytes(&x.bytes)
                            .and_then(|k| k.diffie_hellman(point))
                            .map_or([0; $ns], |s| s.0)
                    }
                    Point::RustCrypto(point) => {
                        let shared = $rc::ecdh::diffie_hellman(x.nz, point.as_affine());
                        (*shared.raw_secret_bytes()).into()
                    }
                }
            }
        }

        impl $group {
            /// The uncompressed encoding of `Exp(g, x)`.
            pub(crate) fn exp_base_bytes_with(imp: Imp, x: &$module::Scalar) -> [u8; $ne] {
                match imp {
                    #[cfg(all(
                        feature = "graviola",
                        any(target_arch = "x86_64", target_arch = "aarch64")
                    ))]
                    Imp::Graviola => {
                        use graviola::key_agreement::$grav::StaticPrivateKey;
                        match StaticPrivateKey::from_bytes(&x.bytes) {
                            Ok(k) => k.public_key_uncompressed(),
                            // Unreachable (`x` is in range by its type): the other
                            // implementation.
                            Err(_) => Self::exp_base_bytes_with(Imp::Fallback, x),
                        }
                    }
                    Imp::Fallback => {
                        let mut bytes = [0u8; $ne];
                        bytes.copy_from_slice(Self::exp_base_with(Imp::Fallback, x).as_ref());
                        bytes
                    }
                }
            }

            /// Checks and parses an uncompressed point.
            pub(crate) fn parse_with(imp: Imp, bytes: &[u8; $ne]) -> Result<$module::Element, Error> {
                use $module::Point;
                // Only the uncompressed form (tag 4); both parsers check the coordinates and
                // the curve equation, and neither has an encoding of the identity here.
                if bytes[0] != 0x04 {
                    return Err(Error::InvalidElement { group: $name });
                }
                let point = match imp {
                    #[cfg(all(
                        feature = "graviola",
                        any(target_arch = "x86_64", target_arch = "aarch64")
                    ))]
                    Imp::Graviola => Point::Graviola(
                        graviola::key_agreement::$grav::PublicKey::from_x962_uncompressed(bytes)
                            .map_err(|_| Error::InvalidElement { group: $name })?,
                    ),
                    Imp::Fallback => Point::RustCrypto(
                        $rc::PublicKey::from_sec1_bytes(bytes)
                            .map_err(|_| Error::InvalidElement { group: $name })?,
                    ),
                };
                Ok($module::Element { bytes: *bytes, point: Some(point) })
            }

            /// `Exp(g, x)`.
            pub(crate) fn exp_base_with(imp: Imp, x: &$module::Scalar) -> $module::Element {
                use $module::Point;
                match imp {
                    #[cfg(all(
                        feature = "graviola",
                        any(target_arch = "x86_64", target_arch = "aarch64")
                    ))]
                    Imp::Graviola => {
                        // `exp` parses the point if it is ever multiplied.
                        $module::Element { bytes: Self::exp_base_bytes_with(imp, x), point: None }
                    }
                    Imp::Fallback => {
                        use $rc::elliptic_curve::sec1::ToSec1Point;
                        let public = $rc::PublicKey::from_secret_scalar(&x.nz);
                        let mut bytes = [0u8; $ne];
                        bytes.copy_from_slice(public.to_sec1_point(false).as_bytes());
                        $module::Element { bytes, point: Some(Point::RustCrypto(public)) }
                    }
                }
            }
        }
    };
}

nist_group! {
    /// NIST P-256 (secp256r1, SP 800-186 §3.2.1.3): `Nscalar = 32`, `Nelem = 65`, `Nseed = 128`
    /// (four chunks), `Nss = 32`.
    P256, p256_group, "P-256", p256, p256,
    scalar: 32, element: 65, seed: 128
}

nist_group! {
    /// NIST P-384 (secp384r1, SP 800-186 §3.2.1.4): `Nscalar = 48`, `Nelem = 97`, `Nseed = 48`
    /// (one chunk), `Nss = 48`.
    P384, p384_group, "P-384", p384, p384,
    scalar: 48, element: 97, seed: 48
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! group_tests {
        ($test:ident, $group:ty, $module:ident, $ns:literal, $ne:literal, $order:literal) => {
            #[test]
            fn $test() {
                type G = $group;
                let order: [u8; $ns] = hex($order);
                // Scalars: 0 and n are refused, n - 1 and 1 accepted; RandomScalar skips a
                // refused chunk.
                assert_eq!(
                    G::scalar_from_bytes(&[0; $ns]).err(),
                    Some(Error::InvalidScalar { group: G::NAME })
                );
                assert!(G::scalar_from_bytes(&order).is_err());
                let mut n_minus_1 = order;
                n_minus_1[$ns - 1] -= 1;
                assert!(G::scalar_from_bytes(&n_minus_1).is_ok());
                let mut seed = alloc::vec![0xff; $ns];
                seed.extend([0x11; $ns]);
                if seed.len() <= G::SEED_SIZE {
                    let x = G::random_scalar(&seed).expect("the second chunk");
                    assert_eq!(G::scalar_to_bytes(&x), [0x11; $ns]);
                }
                assert_eq!(
                    G::random_scalar(&[0xff; $ns]).err(),
                    Some(Error::ScalarRejected { group: G::NAME })
                );
                assert!(G::random_scalar(&[1; $ns + 1]).is_err());

                // Both implementations: the same public keys and shared secrets, and the
                // same verdicts on malformed points.
                let all = Imp::available();
                for round in 1..=8u8 {
                    let a = G::scalar_from_bytes(&[round; $ns]).expect("in range");
                    let b = G::scalar_from_bytes(&[round.wrapping_mul(29); $ns]).expect("in range");
                    let ga = G::exp_base_with(all[0], &a);
                    let gb_bytes: [u8; $ne] = G::exp_base_with(all[0], &b).as_ref().try_into().unwrap();
                    assert_eq!(&G::exp_base_bytes(&a)[..], ga.as_ref());
                    for imp in &all {
                        assert_eq!(G::exp_base_with(*imp, &a), ga, "{imp:?}");
                        assert_eq!(&G::exp_base_bytes_with(*imp, &a)[..], ga.as_ref(), "{imp:?}");
                        let gb = G::parse_with(*imp, &gb_bytes).expect("a public key");
                        assert_eq!(G::exp(&gb, &a), G::exp(&ga, &b), "{imp:?}");
                    }
                }
                let good: [u8; $ne] = G::exp_base(&G::scalar_from_bytes(&[3; $ns]).unwrap())
                    .as_ref()
                    .try_into()
                    .unwrap();
                let mut off_curve = good;
                off_curve[$ne - 1] ^= 1;
                let mut compressed = good;
                compressed[0] = 0x02;
                let mut big_x = good;
                big_x[1..1 + $ns].fill(0xff);
                for bad in [[0u8; $ne], off_curve, compressed, big_x] {
                    for imp in &all {
                        assert_eq!(
                            G::parse_with(*imp, &bad).err(),
                            Some(Error::InvalidElement { group: G::NAME }),
                            "{imp:?}"
                        );
                    }
                }
                assert!(matches!(
                    G::element_from_bytes(&good[..$ne - 1]),
                    Err(Error::Length { .. })
                ));
                // Nothing secret in Debug.
                let x = G::scalar_from_bytes(&[0xab; $ns]).unwrap();
                let text = alloc::format!("{x:?}");
                assert!(!text.contains("171") && !text.contains("ab"), "{text}");
            }
        };
    }

    group_tests!(
        p256_scalars_points_and_implementations,
        P256,
        p256_group,
        32,
        65,
        "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"
    );
    group_tests!(
        p384_scalars_points_and_implementations,
        P384,
        p384_group,
        48,
        97,
        "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973"
    );

    fn hex<const N: usize>(s: &str) -> [u8; N] {
        let mut out = [0; N];
        for (i, b) in out.iter_mut().enumerate() {
            *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        out
    }
}
