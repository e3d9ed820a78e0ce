//! The nominal groups of draft-irtf-cfrg-concrete-hybrid-kems §3.1 (draft-irtf-cfrg-hybrid-kems
//! §3.2): X25519 ([`X25519`]), P-256 ([`P256`]) and P-384 ([`P384`]), each on the fastest
//! constant-time implementation the CPU runs.
//!
//! ```
//! use lazykem_hybrid::group::{NominalGroup, P256};
//!
//! # fn main() -> Result<(), lazykem_hybrid::Error> {
//! let a = P256::random_scalar(&[1; 128])?;
//! let b = P256::random_scalar(&[2; 128])?;
//! let (ga, gb) = (P256::exp_base(&a), P256::exp_base(&b));
//! // Diffie-Hellman: ElementToSharedSecret(Exp(g^b, a)) == ElementToSharedSecret(Exp(g^a, b)).
//! assert_eq!(P256::exp(&gb, &a), P256::exp(&ga, &b));
//! // Elements arrive as bytes and are checked on the way in.
//! let parsed = P256::element_from_bytes(ga.as_ref())?;
//! assert_eq!(parsed, ga);
//! assert!(P256::element_from_bytes(&[0; 65]).is_err());
//! # Ok(())
//! # }
//! ```
//!
//! # Which implementation runs
//! On x86_64 and aarch64 with the `graviola` feature (on by default), graviola's formally
//! verified assembly where graviola's run-time CPU check passes (x86_64: AVX2, BMI1, ADX,
//! AES-NI, PCLMULQDQ; aarch64: NEON, AES, PMULL, SHA2); elsewhere `x25519-dalek`, `p256` and
//! `p384`. Both give the same bytes for the same inputs (tested against each other). The
//! choice is made per call and is the same for the whole process.
//!
//! # What the groups check
//! NIST elements must be the uncompressed SEC1 encoding of a point on the curve with
//! coordinates below the field prime ([`Error::InvalidElement`]);
//! the point at infinity has no such encoding. Scalars are `0 < x < n`, big-endian. X25519
//! accepts every 32-byte string as an element and as a scalar (RFC 7748), and `exp` returns
//! its output as it is, all zeros included: a caller that must refuse low-order points (DHKEM
//! of RFC 9180, TLS) checks the output; the hybrid KEMs do not (the drafts do not).

mod nist;
pub mod x25519;

pub use nist::{P256, P384, p256_group as p256, p384_group as p384};
pub use x25519::X25519;

use crate::Error;
use crate::bytes::ByteArray;

/// A nominal group (draft-irtf-cfrg-hybrid-kems §3.2): the traditional half of a hybrid KEM,
/// and the Diffie-Hellman group of an HPKE DHKEM or a TLS key share. Sealed.
pub trait NominalGroup:
    sealed::Sealed
    + Copy
    + core::fmt::Debug
    + Default
    + Eq
    + Ord
    + core::hash::Hash
    + Send
    + Sync
    + 'static
{
    /// "X25519", "P-256", "P-384".
    const NAME: &'static str;
    /// `Nscalar`: bytes of an encoded scalar.
    const SCALAR_SIZE: usize;
    /// `Nelem`: bytes of an encoded element.
    const ELEMENT_SIZE: usize;
    /// `Nseed`: bytes of seed `RandomScalar` takes.
    const SEED_SIZE: usize;
    /// `Nss`: bytes of `ElementToSharedSecret`'s output.
    const SHARED_SECRET_SIZE: usize;

    /// A scalar (a private key): erased on drop, not shown by `Debug`.
    type Scalar: Clone + core::fmt::Debug + Send + Sync;
    /// A checked element (a public key), keeping its encoding; NIST elements also keep the
    /// implementation's parsed point, so parsing happens once.
    type Element: Clone + core::fmt::Debug + Eq + AsRef<[u8]> + Send + Sync;
    /// `[u8; Nscalar]`.
    type ScalarBytes: ByteArray;
    /// `[u8; Nelem]`.
    type ElementBytes: ByteArray;
    /// `[u8; Nss]`.
    type SharedSecretBytes: ByteArray;

    /// `RandomScalar(seed)`: X25519 takes the 32 bytes as they are; the NIST groups read
    /// `Nscalar`-byte chunks until one is a scalar `0 < x < n` (§3.1.1). `seed` must be a
    /// whole number of chunks, at most `Nseed` bytes (NIST; exactly 32 for X25519).
    ///
    /// # Errors
    /// [`Error::Length`]; [`Error::ScalarRejected`] if no chunk is a scalar.
    fn random_scalar(seed: &[u8]) -> Result<Self::Scalar, Error>;

    /// A scalar from its encoding (`Nscalar` bytes; NIST: big-endian, `0 < x < n`).
    ///
    /// # Errors
    /// [`Error::Length`]; [`Error::InvalidScalar`].
    fn scalar_from_bytes(bytes: &[u8]) -> Result<Self::Scalar, Error>;

    /// The scalar's encoding (the caller erases the returned copy).
    fn scalar_to_bytes(x: &Self::Scalar) -> Self::ScalarBytes;

    /// An element from its encoding, checked (see the module docs).
    ///
    /// # Errors
    /// [`Error::Length`]; [`Error::InvalidElement`].
    fn element_from_bytes(bytes: &[u8]) -> Result<Self::Element, Error>;

    /// `Exp(g, x)`: the public key of `x`.
    fn exp_base(x: &Self::Scalar) -> Self::Element;

    /// The encoding of `Exp(g, x)` alone, for a public key that is only sent (a TLS or
    /// HPKE ephemeral share): the same bytes as [`Self::exp_base`], without preparing the
    /// point for later multiplications (graviola's NIST points: a check and a table of
    /// multiples).
    fn exp_base_bytes(x: &Self::Scalar) -> Self::ElementBytes;

    /// `ElementToSharedSecret(Exp(p, x))`: the Diffie-Hellman shared secret (the caller
    /// erases it).
    fn exp(p: &Self::Element, x: &Self::Scalar) -> Self::SharedSecretBytes;
}

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// Whether graviola runs the group arithmetic on this CPU.
#[cfg(all(
    feature = "graviola",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
#[inline]
pub(crate) fn graviola_runs() -> bool {
    graviola::util::is_cpu_supported()
}

/// The two implementations of every group: graviola's assembly, or the portable fallback
/// (`x25519-dalek`, `p256`, `p384`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Imp {
    #[cfg(all(
        feature = "graviola",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    Graviola,
    Fallback,
}

impl Imp {
    /// graviola where it runs on this CPU, else the fallback.
    pub(crate) fn best() -> Self {
        #[cfg(all(
            feature = "graviola",
            any(target_arch = "x86_64", target_arch = "aarch64")
        ))]
        if graviola_runs() {
            return Self::Graviola;
        }
        Self::Fallback
    }

    /// Every implementation this CPU runs.
    #[cfg(test)]
    pub(crate) fn available() -> alloc::vec::Vec<Self> {
        let mut all = alloc::vec![Self::Fallback];
        #[cfg(all(
            feature = "graviola",
            any(target_arch = "x86_64", target_arch = "aarch64")
        ))]
        if graviola_runs() {
            all.push(Self::Graviola);
        }
        all
    }
}
