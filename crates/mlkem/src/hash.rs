//! G = SHA3-512 (FIPS 203 section 4.1), the one hash that runs on its own: everything after
//! it depends on its output. The others run beside the sampling they do not depend on, in
//! `lattice-sampling`'s batches: PRF and XOF inside it; H of an imported key and
//! J = SHAKE256 truncated to 32 bytes as a `Digest32`; H of a generated key absorbing ek as
//! key generation encodes it (`kpke::key_gen`).

use lattice_sampling::SamplingBackend;
use lattice_sampling::keccak::sha3_512;
use zeroize::Zeroize;

/// G(a || b) = SHA3-512, split into its two 32-byte halves.
#[inline(always)]
pub(crate) fn g(backend: impl SamplingBackend, a: &[u8], b: &[u8]) -> ([u8; 32], [u8; 32]) {
    let mut out = sha3_512(backend, &[a, b]);
    let mut first = [0u8; 32];
    let mut second = [0u8; 32];
    first.copy_from_slice(&out[..32]);
    second.copy_from_slice(&out[32..]);
    out.as_mut_slice().zeroize();
    (first, second)
}
