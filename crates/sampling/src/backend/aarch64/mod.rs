//! The NEON token's Keccak and sampling kernels (aarch64).
//!
//! Until the NEON permutations and parsers land, the token runs the portable scheduler
//! configuration (the trait's defaults) and the portable single-state permutation.

use crate::SamplingBackend;
use crate::keccak::KeccakF1600;
use lattice_poly_ntt::backend::Neon;

impl KeccakF1600 for Neon {
    #[inline]
    fn f1600(self, state: &mut [u64; 25]) {
        crate::keccak::f1600_portable(state);
    }
}

impl SamplingBackend for Neon {}
