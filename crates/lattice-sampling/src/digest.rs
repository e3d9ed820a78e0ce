//! A 32-byte hash computed alongside a sampling batch.
//!
//! Some hashes of an ML-KEM operation depend on nothing the sampling produces and nothing
//! waits for them until the end: `H(ek)` when an encapsulation key is imported (beside
//! A-hat), `J(z || c)` in decapsulation (beside the re-encryption's noise). Handing such a
//! hash to [`sample_matrix_with_digests`](crate::sample_matrix_with_digests) or to a
//! [`Batch`](crate::Batch) lets a multi-way Keccak run it in a lane that would otherwise idle; without one it is computed
//! on the scalar Keccak. The digest is the same either way.

use crate::keccak::{SHA3_DOMAIN, SHAKE_DOMAIN};

/// Which hash a [`Digest32`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DigestKind {
    /// SHA3-256 (FIPS 202): ML-KEM's `H`.
    Sha3_256,
    /// SHAKE256 truncated to 32 bytes (FIPS 202): ML-KEM's `J`.
    Shake256,
}

/// A hash of `parts[0] || parts[1]` to compute alongside sampling, and where its 32-byte
/// digest goes.
///
/// ```
/// use lattice_sampling::keccak::sha3_256;
/// use lattice_sampling::{Digest32, sample_matrix, sample_matrix_with_digests};
///
/// // Any backend token: `Portable` everywhere, or one detected by `AnyBackend::best()`.
/// let b = lattice_poly_ntt::backend::Portable;
///
/// let ek = [7u8; 1184];
/// let rho: [u8; 32] = ek[1152..].try_into().unwrap();
/// let mut h = [0u8; 32];
/// let a_hat = sample_matrix_with_digests::<3>(b, &rho, [Digest32::sha3_256(&ek, &mut h)]);
/// assert_eq!(a_hat, sample_matrix::<3>(b, &rho));
/// assert_eq!(h, sha3_256(b, &[&ek]));
/// ```
pub struct Digest32<'a> {
    pub(crate) kind: DigestKind,
    pub(crate) message: [&'a [u8]; 2],
    pub(crate) out: &'a mut [u8; 32],
}

/// Shows the kind and the message length only: the message (`z || c` for J) and the output
/// may be secret.
impl core::fmt::Debug for Digest32<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Digest32")
            .field("kind", &self.kind)
            .field(
                "message_len",
                &(self.message[0].len() + self.message[1].len()),
            )
            .finish_non_exhaustive()
    }
}

impl<'a> Digest32<'a> {
    /// `SHA3-256(message)`, written to `out`.
    pub fn sha3_256(message: &'a [u8], out: &'a mut [u8; 32]) -> Self {
        Self {
            kind: DigestKind::Sha3_256,
            message: [message, &[]],
            out,
        }
    }

    /// The first 32 bytes of `SHAKE256(parts[0] || parts[1])`, written to `out`.
    pub fn shake256(parts: [&'a [u8]; 2], out: &'a mut [u8; 32]) -> Self {
        Self {
            kind: DigestKind::Shake256,
            message: parts,
            out,
        }
    }

    /// Which hash this is.
    #[must_use]
    pub const fn kind(&self) -> DigestKind {
        self.kind
    }

    /// The padding's domain-separation byte.
    pub(crate) const fn domain(&self) -> u8 {
        match self.kind {
            DigestKind::Sha3_256 => SHA3_DOMAIN,
            DigestKind::Shake256 => SHAKE_DOMAIN,
        }
    }
}
