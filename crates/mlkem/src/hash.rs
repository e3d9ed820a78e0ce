//! The hash functions of FIPS 203 section 4.1 that run on their own: G = SHA3-512 and
//! H = SHA3-256, from the unrolled Keccak of `mlkem_sampling::keccak`. PRF and XOF are used
//! inside `mlkem-sampling`; H of an imported key and J = SHAKE256 truncated to 32 bytes are
//! handed to it as a `Digest32`, to run beside the sampling they do not depend on.

use mlkem_sampling::keccak::{sha3_256, sha3_512};
use zeroize::Zeroize;

/// G(a || b) = SHA3-512, split into its two 32-byte halves.
pub(crate) fn g(a: &[u8], b: &[u8]) -> ([u8; 32], [u8; 32]) {
    let mut out = sha3_512(&[a, b]);
    let mut first = [0u8; 32];
    let mut second = [0u8; 32];
    first.copy_from_slice(&out[..32]);
    second.copy_from_slice(&out[32..]);
    out.as_mut_slice().zeroize();
    (first, second)
}

/// H(s) = SHA3-256.
pub(crate) fn h(s: &[u8]) -> [u8; 32] {
    sha3_256(&[s])
}
