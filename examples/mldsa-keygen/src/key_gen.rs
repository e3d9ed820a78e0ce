//! The arithmetic and hashing of FIPS 204 Alg. 6 l. 1-7, on the shared crates.

use lattice_poly_ntt::backend::AnyBackend;
use lattice_poly_ntt::mldsa::{CachedNttVector, Matrix, MlDsa, PolyVector};
use lattice_poly_ntt::{Backend, dispatch};
use lattice_sampling::keccak::shake256;
use lattice_sampling::{Batch, SamplingBackend, Shake, XofSink};
use zeroize::Zeroize;

use crate::error::LengthError;
use crate::expand_s::{BoundedSampler, EXPAND_S_SEED_BYTES, expand_s_seed};
use crate::params::{N, ParameterSet, TR_BYTES};
use crate::seeds::{KEY_GEN_HASH_OUTPUT_BYTES, KeyGenSeeds, key_gen_hash_input};
use crate::{pk_encode, power2round_poly, sk_encode};

impl XofSink for BoundedSampler<'_> {
    fn take_block(&mut self, block: &[u8]) -> bool {
        self.absorb_block(block)
    }
}

/// FIPS 204 Alg. 6 for `K x L` = `P::K x P::L` on the best backend; lengths already checked.
///
/// The Keccak work runs on the backend's multi-way scheduler; ML-DSA's ring arithmetic has
/// no SIMD kernels yet, so it is the portable code (compiled for the backend's features).
pub(crate) fn key_gen<P: ParameterSet, const K: usize, const L: usize>(
    xi: &[u8; 32],
    pk: &mut [u8],
    sk: &mut [u8],
) -> Result<(), LengthError> {
    dispatch!(AnyBackend::best(), |b| key_gen_on::<P, K, L, _>(
        b, xi, pk, sk
    ))
}

#[inline(always)]
fn key_gen_on<P: ParameterSet, const K: usize, const L: usize, B>(
    b: B,
    xi: &[u8; 32],
    pk: &mut [u8],
    sk: &mut [u8],
) -> Result<(), LengthError>
where
    B: Backend<MlDsa> + SamplingBackend,
{
    // Line 1: (rho, rho', K) = H(xi || k || l, 128).
    let mut input = key_gen_hash_input::<P>(xi);
    let mut h = [0u8; KEY_GEN_HASH_OUTPUT_BYTES];
    shake256(b, &[&input], &mut h);
    let seeds = KeyGenSeeds::from_h_output(&h);
    input.zeroize();
    h.zeroize();

    // Lines 2-3: ExpandA(rho) and ExpandS(rho'), all k*l + k + l streams in one batch. The
    // secret ExpandS streams go first (they are the ones a caller would least like to see
    // finish alone on the scalar Keccak, and their count is fixed).
    let mut a_hat = Matrix::<K, L>::zero();
    let mut s1 = [[0u32; N]; L];
    let mut s2 = [[0u32; N]; K];
    let mut seeds_s: [[u8; EXPAND_S_SEED_BYTES]; 15] = [[0; EXPAND_S_SEED_BYTES]; 15];
    for (r, seed) in seeds_s.iter_mut().take(K + L).enumerate() {
        // r < k + l <= 15: the cast is exact.
        *seed = expand_s_seed(&seeds.rho_prime, r as u16);
    }
    {
        let mut samplers_1 = s1.each_mut().map(BoundedSampler::for_parameter_set::<P>);
        let mut samplers_2 = s2.each_mut().map(BoundedSampler::for_parameter_set::<P>);
        let mut batch = Batch::new(b);
        let sinks = samplers_1.iter_mut().chain(samplers_2.iter_mut());
        for (sink, seed) in sinks.zip(&seeds_s) {
            batch.xof(Shake::Shake256, [seed, &[]], sink);
        }
        batch.mldsa_matrix_rows::<K, L>(&seeds.rho, 0, &mut a_hat.rows);
        batch.run();
    }
    seeds_s.as_flattened_mut().zeroize();

    // Line 4: t = NTT^-1(A-hat * NTT(s1)) + s2, the product summed lazily in u64.
    let mut s1_poly = PolyVector::<L>::zero();
    for (p, c) in s1_poly.0.iter_mut().zip(&s1) {
        // ExpandS writes canonical values (eta - z mod q), which the reduction keeps.
        p.set_coeffs_reduced(c);
    }
    // In place: no temporary copy of the secret s1-hat to erase.
    let mut s1_hat = CachedNttVector::<L>::zero();
    s1_poly.ntt_cached_into(b, &mut s1_hat);
    s1_poly.zeroize();
    let mut t_hat = a_hat.mul_vector(b, &s1_hat);
    s1_hat.zeroize();
    let mut t = t_hat.inverse_ntt(b);
    t_hat.zeroize();
    let mut s2_poly = PolyVector::<K>::zero();
    for (p, c) in s2_poly.0.iter_mut().zip(&s2) {
        p.set_coeffs_reduced(c);
    }
    t.add_assign(b, &s2_poly);
    s2_poly.zeroize();

    // Line 5: (t1, t0) = Power2Round(t).
    let mut t1 = [[0u32; N]; K];
    let mut t0 = [[0u32; N]; K];
    for ((p, hi), lo) in t.0.iter().zip(&mut t1).zip(&mut t0) {
        power2round_poly(p.coeffs(), hi, lo);
    }
    t.zeroize();

    // Lines 6-8: pk = pkEncode(rho, t1); tr = H(pk, 64); sk = skEncode(rho, K, tr, s1, s2, t0).
    let result = pk_encode::<P>(&seeds.rho, &t1, pk).and_then(|()| {
        let mut tr = [0u8; TR_BYTES];
        shake256(b, &[pk], &mut tr);
        sk_encode::<P>(&seeds.rho, &seeds.key, &tr, &s1, &s2, &t0, sk)
    });
    s1.as_flattened_mut().zeroize();
    s2.as_flattened_mut().zeroize();
    t0.as_flattened_mut().zeroize();
    result
}
