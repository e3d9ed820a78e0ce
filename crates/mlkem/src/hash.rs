//! The hash functions of FIPS 203 section 4.1: G = SHA3-512, H = SHA3-256, J = SHAKE256
//! truncated to 32 bytes (PRF and XOF are used inside `mlkem-sampling`). All come from the
//! unrolled Keccak of `mlkem_sampling::keccak`.

use mlkem_sampling::keccak::{sha3_256, sha3_512, shake256};
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

/// J(a || b) = SHAKE256(a || b), first 32 bytes.
pub(crate) fn j(a: &[u8], b: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    shake256(&[a, b], &mut out);
    out
}
