//! The seed expansion of ML-DSA.KeyGen_internal (FIPS 204 Alg. 6 l. 1), minus the
//! hash itself:
//!
//! `(rho, rho', K) <- H(xi || IntegerToBytes(k, 1) || IntegerToBytes(l, 1), 128)`
//!
//! where H is SHAKE256. [`key_gen_hash_input`] builds the 34-byte input and
//! [`KeyGenSeeds::from_h_output`] splits the 128-byte output; the caller runs SHAKE256 in
//! between with whichever Keccak it has.

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::params::{ParameterSet, RHO_PRIME_BYTES, SEED_BYTES};

/// Length of the H input of FIPS 204 Alg. 6 l. 1: xi || k || l.
pub const KEY_GEN_HASH_INPUT_BYTES: usize = SEED_BYTES + 2;

/// Length of the H output of FIPS 204 Alg. 6 l. 1: rho (32) || rho' (64) || K (32).
pub const KEY_GEN_HASH_OUTPUT_BYTES: usize = 2 * SEED_BYTES + RHO_PRIME_BYTES;

/// `xi || IntegerToBytes(k, 1) || IntegerToBytes(l, 1)` for parameter set `P`
/// (FIPS 204 Alg. 6 l. 1).
///
/// The result contains the secret xi: the caller should zeroize it once it has been hashed.
#[must_use]
pub fn key_gen_hash_input<P: ParameterSet>(
    xi: &[u8; SEED_BYTES],
) -> [u8; KEY_GEN_HASH_INPUT_BYTES] {
    let mut input = [0u8; KEY_GEN_HASH_INPUT_BYTES];
    let (head, tail) = input.split_at_mut(SEED_BYTES);
    head.copy_from_slice(xi);
    // k, l <= 8 for every parameter set, so one byte each is exact.
    tail.copy_from_slice(&[P::K as u8, P::L as u8]);
    input
}

/// The three seeds of FIPS 204 Alg. 6 l. 1. Wiped on drop (rho' and K are secret; rho is public
/// but wiped along with them).
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct KeyGenSeeds {
    /// rho: the public seed of ExpandA, and the first 32 bytes of pk and sk.
    pub rho: [u8; SEED_BYTES],
    /// rho': the secret seed of ExpandS (see [`crate::expand_s_seed`]).
    pub rho_prime: [u8; RHO_PRIME_BYTES],
    /// K: the secret signing seed, stored in sk after rho.
    pub key: [u8; SEED_BYTES],
}

impl KeyGenSeeds {
    /// Splits the 128-byte output of H into rho (bytes 0..32), rho' (32..96) and K (96..128).
    #[must_use]
    pub fn from_h_output(h: &[u8; KEY_GEN_HASH_OUTPUT_BYTES]) -> Self {
        let mut seeds = Self {
            rho: [0; SEED_BYTES],
            rho_prime: [0; RHO_PRIME_BYTES],
            key: [0; SEED_BYTES],
        };
        let (rho, rest) = h.split_at(SEED_BYTES);
        let (rho_prime, key) = rest.split_at(RHO_PRIME_BYTES);
        seeds.rho.copy_from_slice(rho);
        seeds.rho_prime.copy_from_slice(rho_prime);
        seeds.key.copy_from_slice(key);
        seeds
    }
}

impl core::fmt::Debug for KeyGenSeeds {
    /// Shows rho only; rho' and K are secret.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KeyGenSeeds")
            .field("rho", &self.rho)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{MlDsa44, MlDsa65, MlDsa87};

    #[test]
    fn hash_input_layout() {
        let xi = [0xA5u8; 32];
        assert_eq!(key_gen_hash_input::<MlDsa44>(&xi)[32..], [4, 4]);
        assert_eq!(key_gen_hash_input::<MlDsa65>(&xi)[32..], [6, 5]);
        assert_eq!(key_gen_hash_input::<MlDsa87>(&xi)[32..], [8, 7]);
        assert_eq!(key_gen_hash_input::<MlDsa87>(&xi)[..32], xi);
    }

    #[test]
    fn output_split() {
        let h: [u8; 128] = core::array::from_fn(|i| i as u8);
        let seeds = KeyGenSeeds::from_h_output(&h);
        assert_eq!(seeds.rho[..], h[..32]);
        assert_eq!(seeds.rho_prime[..], h[32..96]);
        assert_eq!(seeds.key[..], h[96..]);
    }
}
