//! The generic parts of the CG framework (draft-irtf-cfrg-hybrid-kems §5.1): the key
//! expansion (`expandDecapsulationKey`, SHAKE256 as the PRG) and the combiner (SHA3-256 as
//! the KDF), both on `lattice-sampling`'s Keccak.

use lattice_poly_ntt::backend::AnyBackend;
use zeroize::Zeroizing;

use crate::SharedSecret;
use crate::group::NominalGroup;
use crate::params::HybridKem;

/// The longest expanded seed: ML-KEM's 64 bytes and P-256's 128.
const EXPANDED_MAX: usize = 64 + 128;

/// SHA3-256 on the best backend.
fn sha3_256(parts: &[&[u8]]) -> [u8; 32] {
    lattice_poly_ntt::dispatch!(AnyBackend::best(), |b| {
        lattice_sampling::keccak::sha3_256(b, parts)
    })
}

/// SHAKE256 on the best backend.
fn shake256(parts: &[&[u8]], out: &mut [u8]) {
    lattice_poly_ntt::dispatch!(AnyBackend::best(), |b| {
        lattice_sampling::keccak::shake256(b, parts, out);
    });
}

/// `expandDecapsulationKey(seed)`'s PRG step: `SHAKE256(seed, 64 + Nseed_T)`, split into
/// ML-KEM's `d || z` and the group's `RandomScalar` seed. Both halves are erased on drop.
pub(crate) fn expand<H: HybridKem>(
    seed: &[u8; 32],
) -> (Zeroizing<[u8; 64]>, Zeroizing<[u8; EXPANDED_MAX]>, usize) {
    const { assert!(64 + <H::Group as NominalGroup>::SEED_SIZE <= EXPANDED_MAX) };
    let n_t = <H::Group as NominalGroup>::SEED_SIZE;
    let mut out = Zeroizing::new([0u8; EXPANDED_MAX]);
    shake256(&[seed], &mut out[..64 + n_t]);
    let mut pq = Zeroizing::new([0u8; 64]);
    pq.copy_from_slice(&out[..64]);
    let mut t = Zeroizing::new([0u8; EXPANDED_MAX]);
    t[..n_t].copy_from_slice(&out[64..64 + n_t]);
    (pq, t, n_t)
}

/// `C2PRICombiner(ss_PQ, ss_T, ct_T, ek_T, label)`: SHA3-256 of their concatenation
/// (draft-irtf-cfrg-hybrid-kems §5.1; X-Wing §5.3).
pub(crate) fn combine<H: HybridKem>(
    ss_pq: &[u8; 32],
    ss_t: &[u8],
    ct_t: &[u8],
    ek_t: &[u8],
) -> SharedSecret {
    lazykem::__hybrid_internal::shared_secret(sha3_256(&[ss_pq, ss_t, ct_t, ek_t, H::LABEL]))
}
