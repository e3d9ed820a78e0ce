//! [`Ciphertext`]: `ct_PQ || ct_T`, its group element checked when parsed.

use core::fmt;

use crate::bytes::ByteArray;
use crate::error::{Error, Part};
use crate::group::NominalGroup;
use crate::params::HybridKem;

/// A hybrid ciphertext: ML-KEM's ciphertext, then the ephemeral group element (draft-irtf-
/// cfrg-hybrid-kems §5.1). Parsing checks the element (any ML-KEM ciphertext of the right
/// length is valid), so decapsulation cannot fail.
pub struct Ciphertext<H: HybridKem> {
    pub(crate) bytes: H::CiphertextBytes,
    pub(crate) ct_t: <H::Group as NominalGroup>::Element,
}

impl<H: HybridKem> Ciphertext<H> {
    /// Parses ciphertext bytes.
    ///
    /// ```
    /// use lazykem_hybrid::{Error, mlkem768_p256};
    ///
    /// // An all-zero P-256 part is not a point.
    /// assert!(matches!(
    ///     mlkem768_p256::Ciphertext::from_bytes(&[0; 1153]),
    ///     Err(Error::InvalidElement { group: "P-256" })
    /// ));
    /// ```
    ///
    /// # Errors
    /// [`Error::Length`]; [`Error::InvalidElement`] if the group part is not an element.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        if bytes.len() != H::CIPHERTEXT_SIZE {
            return Err(Error::Length {
                kem: H::NAME,
                part: Part::Ciphertext,
                expected: H::CIPHERTEXT_SIZE,
                actual: bytes.len(),
            });
        }
        let ct_t = H::Group::element_from_bytes(
            &bytes[<H::Pq as lazykem::ParameterSet>::CIPHERTEXT_SIZE..],
        )?;
        let mut own = H::CiphertextBytes::zeroed();
        own.as_mut().copy_from_slice(bytes);
        Ok(Self { bytes: own, ct_t })
    }

    /// The ciphertext bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &H::CiphertextBytes {
        &self.bytes
    }

    /// The ML-KEM part.
    pub(crate) fn pq_bytes(&self) -> &[u8] {
        &self.bytes.as_ref()[..<H::Pq as lazykem::ParameterSet>::CIPHERTEXT_SIZE]
    }

    /// The group part.
    pub(crate) fn t_bytes(&self) -> &[u8] {
        &self.bytes.as_ref()[<H::Pq as lazykem::ParameterSet>::CIPHERTEXT_SIZE..]
    }
}

impl<H: HybridKem> Clone for Ciphertext<H> {
    fn clone(&self) -> Self {
        Self {
            bytes: self.bytes,
            ct_t: self.ct_t.clone(),
        }
    }
}

impl<H: HybridKem> PartialEq for Ciphertext<H> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl<H: HybridKem> Eq for Ciphertext<H> {}

impl<H: HybridKem> AsRef<[u8]> for Ciphertext<H> {
    fn as_ref(&self) -> &[u8] {
        self.bytes.as_ref()
    }
}

impl<H: HybridKem> TryFrom<&[u8]> for Ciphertext<H> {
    type Error = Error;
    fn try_from(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes(bytes)
    }
}

impl<H: HybridKem> fmt::Debug for Ciphertext<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ciphertext")
            .field("kem", &H::NAME)
            .finish_non_exhaustive()
    }
}
