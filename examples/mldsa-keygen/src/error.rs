//! The one error of this crate: a caller-provided buffer or polynomial slice of the wrong length.

use core::fmt;

/// A slice passed to an encoder or to key generation did not have the length the parameter set
/// requires.
///
/// Returned before anything is written, so the output buffer is left untouched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LengthError {
    /// Which argument had the wrong length (its parameter name, e.g. `"pk"` or `"s1"`).
    pub what: &'static str,
    /// The length required (bytes for byte buffers, polynomials for polynomial slices).
    pub expected: usize,
    /// The length given.
    pub actual: usize,
}

impl LengthError {
    /// `Ok(())` if `actual == expected`, else the error for argument `what`.
    pub(crate) fn check(what: &'static str, expected: usize, actual: usize) -> Result<(), Self> {
        if actual == expected {
            Ok(())
        } else {
            Err(Self {
                what,
                expected,
                actual,
            })
        }
    }
}

impl fmt::Display for LengthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` has length {}, expected {}",
            self.what, self.actual, self.expected
        )
    }
}

impl core::error::Error for LengthError {}
