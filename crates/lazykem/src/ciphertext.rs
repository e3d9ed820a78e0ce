//! [`Ciphertext`]: a ciphertext, generic over the parameter set.

use crate::Error;
use crate::input::check_length;
use crate::params::{ByteArray, ParameterSet};

/// A ciphertext.
///
/// ```
/// use lazykem::ml_kem_768::{CIPHERTEXT_SIZE, Ciphertext};
///
/// let ct = Ciphertext::from_bytes(&[0; CIPHERTEXT_SIZE])?;
/// assert_eq!(ct.as_bytes(), &[0; CIPHERTEXT_SIZE]);
/// assert!(Ciphertext::from_bytes(&[0; 10]).is_err());
/// # Ok::<(), lazykem::Error>(())
/// ```
pub struct Ciphertext<P: ParameterSet> {
    pub(crate) bytes: P::CiphertextBytes,
}

impl<P: ParameterSet> Clone for Ciphertext<P> {
    fn clone(&self) -> Self {
        Self { bytes: self.bytes }
    }
}

impl<P: ParameterSet> PartialEq for Ciphertext<P> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl<P: ParameterSet> Eq for Ciphertext<P> {}

impl<P: ParameterSet> Ciphertext<P> {
    /// Wraps ciphertext bytes.
    ///
    /// ```
    /// use lazykem::ml_kem_512::Ciphertext;
    /// assert!(Ciphertext::from_bytes(&[7; 768]).is_ok());
    /// assert!(Ciphertext::from_bytes(&[7; 767]).is_err());
    /// ```
    ///
    /// # Errors
    /// [`Error::CiphertextLength`] if `bytes` is not [`ParameterSet::CIPHERTEXT_SIZE`] long.
    /// Any content of the right length is a valid ciphertext (FIPS 203 §7.3).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        check_length(bytes, P::CIPHERTEXT_SIZE, |expected, actual| {
            Error::CiphertextLength { expected, actual }
        })?;
        let mut ct = P::CiphertextBytes::zeroed();
        ct.as_mut().copy_from_slice(bytes);
        Ok(Self { bytes: ct })
    }

    /// The ciphertext bytes.
    ///
    /// ```
    /// let ct = lazykem::ml_kem_512::Ciphertext::from([7; 768]);
    /// assert_eq!(ct.as_bytes(), &[7; 768]);
    /// ```
    #[must_use]
    pub const fn as_bytes(&self) -> &P::CiphertextBytes {
        &self.bytes
    }
}

impl<P: ParameterSet> AsRef<[u8]> for Ciphertext<P> {
    fn as_ref(&self) -> &[u8] {
        self.bytes.as_ref()
    }
}

impl<P: ParameterSet> TryFrom<&[u8]> for Ciphertext<P> {
    type Error = Error;
    fn try_from(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes(bytes)
    }
}

impl<P: ParameterSet> core::fmt::Debug for Ciphertext<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ciphertext")
            .field("parameter_set", &P::NAME)
            .finish_non_exhaustive()
    }
}

/// Defines `From` between the ciphertext of one set and its byte array (a generic impl
/// over `P::CiphertextBytes` would overlap with core's blanket `From<T> for T`).
macro_rules! ciphertext_array_conversions {
    ($($set:ty),*) => {$(
        /// Any content of the right length is a valid ciphertext (FIPS 203 §7.3).
        impl From<<$set as ParameterSet>::CiphertextBytes> for Ciphertext<$set> {
            fn from(bytes: <$set as ParameterSet>::CiphertextBytes) -> Self {
                Self { bytes }
            }
        }

        impl From<Ciphertext<$set>> for <$set as ParameterSet>::CiphertextBytes {
            fn from(ct: Ciphertext<$set>) -> Self {
                ct.bytes
            }
        }
    )*};
}

ciphertext_array_conversions!(crate::MlKem512, crate::MlKem768, crate::MlKem1024);
