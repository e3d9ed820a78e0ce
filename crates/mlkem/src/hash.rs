//! The hash functions of FIPS 203 section 4.1: G = SHA3-512, H = SHA3-256, J = SHAKE256
//! truncated to 32 bytes. (PRF and XOF live in `mlkem-sampling`.)

use sha3::digest::{ExtendableOutput, Update, XofReader};
use sha3::{Digest, Sha3_256, Sha3_512, Shake256};

/// G(a || b) = SHA3-512, split into its two 32-byte halves.
pub(crate) fn g(a: &[u8], b: &[u8]) -> ([u8; 32], [u8; 32]) {
    let mut h = Sha3_512::new();
    Digest::update(&mut h, a);
    Digest::update(&mut h, b);
    let out = h.finalize();
    let mut first = [0u8; 32];
    let mut second = [0u8; 32];
    first.copy_from_slice(&out[..32]);
    second.copy_from_slice(&out[32..]);
    // `out` is a GenericArray on the stack; the halves are all callers use.
    let mut out = out;
    zeroize::Zeroize::zeroize(out.as_mut_slice());
    (first, second)
}

/// H(s) = SHA3-256.
pub(crate) fn h(s: &[u8]) -> [u8; 32] {
    Sha3_256::digest(s).into()
}

/// J(a || b) = SHAKE256(a || b), first 32 bytes.
pub(crate) fn j(a: &[u8], b: &[u8]) -> [u8; 32] {
    let mut x = Shake256::default();
    x.update(a);
    x.update(b);
    let mut out = [0u8; 32];
    x.finalize_xof().read(&mut out);
    out
}
