//! The input checks every key type shares: lengths (the type checks of FIPS 203 sections
//! 7.2 and 7.3), the split of an expanded key, and the self-test gate.

use crate::Error;
use crate::params::ParameterSet;

/// With the `self-test` feature, the known-answer tests on first use ([`crate::self_test::run`]);
/// without it, nothing.
#[inline(always)]
#[cfg_attr(
    not(feature = "self-test"),
    allow(
        clippy::unnecessary_wraps,
        reason = "fails only with the self-test feature"
    )
)]
pub(crate) fn self_test_gate() -> Result<(), Error> {
    #[cfg(feature = "self-test")]
    crate::self_test::run()?;
    Ok(())
}

/// The length check of an encoded encapsulation key (FIPS 203 §7.2, type check).
pub(crate) fn check_ek_length<P: ParameterSet>(bytes: &[u8]) -> Result<(), Error> {
    check_length(bytes, P::ENCAPSULATION_KEY_SIZE, |expected, actual| {
        Error::EncapsulationKeyLength { expected, actual }
    })
}

/// `Err(error(expected, actual))` unless `bytes` is `expected` bytes long.
pub(crate) fn check_length(
    bytes: &[u8],
    expected: usize,
    error: impl FnOnce(usize, usize) -> Error,
) -> Result<(), Error> {
    if bytes.len() == expected {
        Ok(())
    } else {
        Err(error(expected, bytes.len()))
    }
}

/// The parts of an expanded decapsulation key: `dk_pke`, `ek`, `H(ek)`, `z`.
pub(crate) type ExpandedParts<'a> = (&'a [u8], &'a [u8], &'a [u8; 32], &'a [u8; 32]);

/// Splits an expanded decapsulation key `dk_pke || ek || H(ek) || z` after checking its
/// length.
pub(crate) fn split_expanded<P: ParameterSet>(bytes: &[u8]) -> Result<ExpandedParts<'_>, Error> {
    check_length(bytes, P::DECAPSULATION_KEY_SIZE, |expected, actual| {
        Error::DecapsulationKeyLength { expected, actual }
    })?;
    let (dk_pke, rest) = bytes.split_at(384 * P::K);
    let (ek, rest) = rest.split_at(P::ENCAPSULATION_KEY_SIZE);
    let (h, z) = rest.split_at(32);
    let h = h.try_into().expect("32 bytes by the length check");
    let z = z.try_into().expect("32 bytes by the length check");
    Ok((dk_pke, ek, h, z))
}
