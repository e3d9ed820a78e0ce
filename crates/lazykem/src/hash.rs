//! G = SHA3-512 (FIPS 203 §4.1): everything after it depends on its output, so it
//! runs on its own, except in decapsulation, where it rides beside the first block of
//! J(z || c) (`ml_kem::decaps_internal`). The other hashes run beside the sampling they do
//! not depend on, in `lattice-sampling`'s batches: PRF and XOF inside it; H of an imported
//! key and J of an expanded key as a `Digest32`; J of a parsed key absorbing `z || c` in
//! steps; H of a generated key absorbing ek as key generation encodes it (`kpke::key_gen`).

use lattice_sampling::SamplingBackend;
use lattice_sampling::keccak::sha3_512;
use zeroize::Zeroize;

/// G(a || b) = SHA3-512, split into its two 32-byte halves.
#[inline(always)]
pub(crate) fn g(backend: impl SamplingBackend, a: &[u8], b: &[u8]) -> ([u8; 32], [u8; 32]) {
    split_g(&mut sha3_512(backend, &[a, b]))
}

/// The two 32-byte halves of G's output, which is erased.
#[inline(always)]
pub(crate) fn split_g(out: &mut [u8; 64]) -> ([u8; 32], [u8; 32]) {
    let mut first = [0u8; 32];
    let mut second = [0u8; 32];
    first.copy_from_slice(&out[..32]);
    second.copy_from_slice(&out[32..]);
    out.as_mut_slice().zeroize();
    (first, second)
}
