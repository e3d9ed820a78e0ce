//! The AVX2 backend of this crate: 4-way SHAKE for matrix and noise generation, and the
//! vectorized `SampleNTT` candidate parser.
//!
//! This is the only module of the crate allowed to use `unsafe`, for two reasons only:
//! calling `#[target_feature(enable = "avx2")]` functions (sound once AVX2 is detected) and
//! the unaligned loads and stores of SIMD registers (each on a bounds-checked slice or a
//! local array of the right size). Every `unsafe` block states why it is sound.
//!
//! # Dispatch
//! The hot functions are `#[target_feature(enable = "avx2")]` so that the whole Keccak
//! permutation, the parser and the CBD are compiled for AVX2 and inlined into one another,
//! with the default release profile and no `target-cpu` flag. They are reached only through
//! [`Avx2`], a token that exists only when [`mlkem_poly_ntt::backend::use_avx2`] said yes
//! (the CPU has AVX2 and the portable backend is not forced). The rest of the crate asks
//! [`Avx2::get`] once per batch and falls back to the portable code when it is `None`.
//!
//! # Batching policy
//! Streams are hashed four at a time; a last group of one to three streams runs the same
//! 4-way permutation with the unused lanes hashing a copy of a real input, whose output is
//! discarded. Measured on the target machine (AMD EPYC, release profile), one 4-way
//! permutation costs about as much as one scalar permutation of `sha3` (~420 ns against
//! ~410 ns), and the 4-way path has less overhead around it, so even a single stream is
//! slightly faster through it (`SampleNTT` of one seed: ~1.45 us against ~1.65 us for scalar
//! SHAKE128 with the AVX2 parser; ML-KEM-768's matrix, 4 + 4 + 1 seeds: ~4.9 us against
//! ~6.2 us with the ninth seed scalar). There is therefore no scalar fallback inside the
//! AVX2 path.

mod cbd;
mod keccak_x4;
mod rej;

use mlkem_poly_ntt::{N, NttPoly};
use zeroize::Zeroize;

use crate::cbd::{CBD2_INPUT_BYTES, CBD3_INPUT_BYTES, Eta, cbd3_into};
use crate::sample_ntt::{INITIAL_BYTES, SAMPLE_NTT_SEED_BYTES};
use keccak_x4::{SHAKE128_RATE, SHAKE256_RATE, ShakeX4, WAYS};

// The two crate-wide rate constants describe the same sponge.
const _: () = assert!(SHAKE128_RATE == crate::SHAKE128_RATE);

/// A PRF output buffer big enough for both etas: two SHAKE256 blocks (272 >= 192 bytes).
const NOISE_BUFFER_BYTES: usize = 2 * SHAKE256_RATE;
const _: () = assert!(CBD3_INPUT_BYTES <= NOISE_BUFFER_BYTES);
const _: () = assert!(CBD2_INPUT_BYTES <= SHAKE256_RATE);

/// Proof that AVX2 code may run: the CPU has AVX2 (checked at run time, cached by
/// `mlkem-poly-ntt`). Only [`Avx2::get`] and, in tests, `Avx2::detected` make one (the
/// private field keeps other code from building one).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2 {
    _detected: (),
}

/// One noise polynomial of a 4-way batch: eta, nonce and where the coefficients go.
pub(crate) type NoiseLane<'a> = Option<(Eta, u8, &'a mut [u16; N])>;

// The methods take `self` only as proof that AVX2 was detected.
#[allow(clippy::unused_self)]
impl Avx2 {
    /// The token if AVX2 should be used: the CPU has it and
    /// [`mlkem_poly_ntt::backend::force_portable`] is not in effect.
    #[inline]
    pub(crate) fn get() -> Option<Self> {
        mlkem_poly_ntt::backend::use_avx2().then_some(Self { _detected: () })
    }

    /// The token if the CPU has AVX2, ignoring `force_portable` (for differential tests,
    /// which must not flip the process-wide switch).
    #[cfg(test)]
    pub(crate) fn detected() -> Option<Self> {
        mlkem_poly_ntt::backend::avx2_detected().then_some(Self { _detected: () })
    }

    /// `out[n] = SampleNTT(seeds[n])`, four seeds per 4-way permutation.
    pub(crate) fn sample_ntt_batch(
        self,
        seeds: &[[u8; SAMPLE_NTT_SEED_BYTES]],
        out: &mut [NttPoly],
    ) {
        // SAFETY: `self` exists, so the CPU supports AVX2.
        unsafe { sample_ntt_batch(seeds, out) }
    }

    /// Noise for up to four requests (`None` lanes are skipped), hashed together.
    pub(crate) fn noise_x4(self, sigma: &[u8; 32], lanes: [NoiseLane<'_>; WAYS]) {
        // SAFETY: `self` exists, so the CPU supports AVX2.
        unsafe { noise_x4(sigma, lanes) }
    }

    /// The AVX2 candidate parser (same contract as `parse_candidates`).
    #[cfg(test)]
    pub(crate) fn parse_candidates(
        self,
        bytes: &[u8],
        coeffs: &mut [u16; N],
        filled: usize,
    ) -> usize {
        // SAFETY: `self` exists, so the CPU supports AVX2.
        unsafe { rej::parse_candidates_avx2(bytes, coeffs, filled) }
    }

    /// The 4-way sponge: absorbs `inputs[l]` (shorter than `RATE`) and squeezes
    /// `outs[l].len() / RATE` blocks into `outs[l]`.
    #[cfg(test)]
    pub(crate) fn shake_x4<const RATE: usize>(
        self,
        inputs: [&[u8]; WAYS],
        outs: [&mut [u8]; WAYS],
    ) {
        // SAFETY: `self` exists, so the CPU supports AVX2.
        unsafe { ShakeX4::<RATE>::absorb(inputs).squeeze_blocks(outs) }
    }
}

/// `out[n] = SampleNTT(seeds[n])`: groups of four seeds share a 4-way SHAKE128 (the last
/// group may be smaller).
#[target_feature(enable = "avx2")]
fn sample_ntt_batch(seeds: &[[u8; SAMPLE_NTT_SEED_BYTES]], out: &mut [NttPoly]) {
    assert_eq!(seeds.len(), out.len(), "one output per seed");
    for (seeds, out) in seeds.chunks(WAYS).zip(out.chunks_mut(WAYS)) {
        sample_ntt_x4(seeds, out);
    }
}

/// `SampleNTT` of one to four seeds with one 4-way SHAKE128: three blocks of every lane,
/// then one more block of every lane for as long as any lane is short (never gives up).
/// Unused lanes hash a copy of the last seed and are ignored.
#[target_feature(enable = "avx2")]
fn sample_ntt_x4(seeds: &[[u8; SAMPLE_NTT_SEED_BYTES]], out: &mut [NttPoly]) {
    debug_assert!((1..=WAYS).contains(&seeds.len()) && seeds.len() == out.len());
    let last = seeds.len() - 1;
    let inputs: [&[u8]; WAYS] = core::array::from_fn(|l| &seeds[l.min(last)][..]);
    let mut sponge = ShakeX4::<SHAKE128_RATE>::absorb(inputs);

    let mut initial = [[0u8; INITIAL_BYTES]; WAYS];
    let [i0, i1, i2, i3] = &mut initial;
    sponge.squeeze_blocks([i0, i1, i2, i3]);
    // Unused lanes count as full.
    let mut filled = [N; WAYS];
    for ((poly, bytes), filled) in out.iter_mut().zip(&initial).zip(&mut filled) {
        *filled = rej::parse_candidates_avx2(bytes, poly.coeffs_mut(), 0);
    }

    // About 1% of seeds need a fourth block; a fifth is needed with probability < 2^-100.
    let mut blocks = [[0u8; SHAKE128_RATE]; WAYS];
    while filled.iter().any(|&f| f < N) {
        let [b0, b1, b2, b3] = &mut blocks;
        sponge.squeeze_blocks([b0, b1, b2, b3]);
        for ((poly, bytes), filled) in out.iter_mut().zip(&blocks).zip(&mut filled) {
            if *filled < N {
                *filled = rej::parse_candidates_avx2(bytes, poly.coeffs_mut(), *filled);
            }
        }
    }
}

/// Noise for up to four requests with one 4-way SHAKE256: `SamplePolyCBD_eta(PRF_eta(sigma,
/// nonce))` into each `Some` lane (callers never pass four `None`s, but it would be
/// harmless). One block per lane for eta = 2 (128 of 136 bytes), two
/// when any lane has eta = 3 (192 of 272 bytes). Unused lanes hash nonce 0 and are
/// discarded. Every buffer holding sigma or PRF output is zeroized, and so is the state.
#[target_feature(enable = "avx2")]
fn noise_x4(sigma: &[u8; 32], lanes: [NoiseLane<'_>; WAYS]) {
    let mut inputs = [[0u8; 33]; WAYS];
    for (input, lane) in inputs.iter_mut().zip(&lanes) {
        input[..32].copy_from_slice(sigma);
        input[32] = lane.as_ref().map_or(0, |&(_, nonce, _)| nonce);
    }
    let mut sponge =
        ShakeX4::<SHAKE256_RATE>::absorb([&inputs[0], &inputs[1], &inputs[2], &inputs[3]]);
    inputs.as_flattened_mut().zeroize();

    // eta is public: branching on it is fine.
    let any_three = lanes.iter().flatten().any(|&(eta, _, _)| eta == Eta::Three);
    let len = if any_three {
        2 * SHAKE256_RATE
    } else {
        SHAKE256_RATE
    };
    let mut bytes = [[0u8; NOISE_BUFFER_BYTES]; WAYS];
    let [b0, b1, b2, b3] = &mut bytes;
    sponge.squeeze_blocks([
        &mut b0[..len],
        &mut b1[..len],
        &mut b2[..len],
        &mut b3[..len],
    ]);
    drop(sponge);

    for (lane, bytes) in lanes.into_iter().zip(&bytes) {
        let Some((eta, _, coeffs)) = lane else {
            continue;
        };
        match eta {
            Eta::Two => cbd::cbd2_avx2(
                bytes[..CBD2_INPUT_BYTES].try_into().expect("128 bytes"),
                coeffs,
            ),
            Eta::Three => cbd3_into(
                bytes[..CBD3_INPUT_BYTES].try_into().expect("192 bytes"),
                coeffs,
            ),
        }
    }
    bytes.as_flattened_mut().zeroize();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::sample_noise_polys_portable;
    use crate::sample_ntt::sample_ntt_batch_portable;
    use mlkem_poly_ntt::Poly;
    use proptest::prelude::*;
    use sha3::Shake128;
    use sha3::digest::{ExtendableOutput, Update, XofReader};
    use std::vec::Vec;

    fn avx2_or_note(what: &str) -> Option<Avx2> {
        let avx2 = Avx2::detected();
        if avx2.is_none() {
            std::println!("note: CPU without AVX2, {what} skipped");
        }
        avx2
    }

    fn seeds(rho: &[u8; 32], count: usize) -> Vec<[u8; SAMPLE_NTT_SEED_BYTES]> {
        (0..count)
            .map(|n| {
                let mut seed = [0u8; SAMPLE_NTT_SEED_BYTES];
                seed[..32].copy_from_slice(rho);
                seed[32] = (n % 4) as u8;
                seed[33] = (n / 4) as u8;
                seed
            })
            .collect()
    }

    /// The AVX2 batch against the portable one for every batch size up to 16 (all the
    /// remainders of 4, and the matrix sizes 4, 9, 16).
    fn check_sample_ntt(avx2: Avx2, seeds: &[[u8; SAMPLE_NTT_SEED_BYTES]]) {
        let mut want = std::vec![NttPoly::zero(); seeds.len()];
        let mut got = std::vec![NttPoly::zero(); seeds.len()];
        sample_ntt_batch_portable(seeds, &mut want);
        avx2.sample_ntt_batch(seeds, &mut got);
        assert_eq!(got, want, "{} seeds", seeds.len());
    }

    #[test]
    fn sample_ntt_batch_matches_portable() {
        let Some(avx2) = avx2_or_note("AVX2 SampleNTT test") else {
            return;
        };
        for count in 0..=16 {
            check_sample_ntt(avx2, &seeds(&[count as u8; 32], count));
        }
    }

    #[test]
    fn sample_ntt_batch_with_fourth_blocks() {
        let Some(avx2) = avx2_or_note("AVX2 SampleNTT test") else {
            return;
        };
        // Seeds that need a fourth block (about 1 in 100), each placed in every lane
        // position of a 4-way batch and alone, so the extra-block loop runs with lanes
        // that are already full.
        let needs_fourth = |seed: &[u8; SAMPLE_NTT_SEED_BYTES]| {
            let mut xof = Shake128::default();
            xof.update(seed);
            let mut bytes = [0u8; INITIAL_BYTES];
            xof.finalize_xof().read(&mut bytes);
            let mut coeffs = [0u16; N];
            crate::sample_ntt::parse_candidates(&bytes, &mut coeffs, 0) < N
        };
        let mut special = Vec::new();
        for n in 0u32.. {
            let mut seed = [0u8; SAMPLE_NTT_SEED_BYTES];
            seed[..4].copy_from_slice(&n.to_le_bytes());
            if needs_fourth(&seed) {
                special.push(seed);
                if special.len() == 3 {
                    break;
                }
            }
        }
        let plain = seeds(&[9; 32], 4);
        for &seed in &special {
            for pos in 0..4 {
                let mut batch = plain.clone();
                batch[pos] = seed;
                check_sample_ntt(avx2, &batch);
            }
            check_sample_ntt(avx2, &[seed]);
        }
        check_sample_ntt(avx2, &special);
    }

    #[test]
    fn sample_matrix_matches_portable() {
        fn check<const K: usize>(avx2: Avx2, rho: &[u8; 32]) {
            let mut flat_seeds = Vec::new();
            for i in 0..K {
                for j in 0..K {
                    flat_seeds.push(crate::sample_ntt::matrix_seed(rho, i as u8, j as u8));
                }
            }
            check_sample_ntt(avx2, &flat_seeds);
            // The public function (whichever backend it picks) agrees too.
            let a = crate::sample_matrix::<K>(rho);
            let mut want = std::vec![NttPoly::zero(); K * K];
            sample_ntt_batch_portable(&flat_seeds, &mut want);
            assert_eq!(a.rows.as_flattened(), &want[..]);
        }
        let Some(avx2) = avx2_or_note("AVX2 matrix test") else {
            return;
        };
        for r in 0..8u8 {
            let rho: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(31) ^ r);
            check::<2>(avx2, &rho);
            check::<3>(avx2, &rho);
            check::<4>(avx2, &rho);
        }
    }

    fn noise_requests(etas: &[Eta], first_nonce: u8) -> Vec<(Eta, u8)> {
        etas.iter()
            .enumerate()
            .map(|(n, &eta)| (eta, first_nonce.wrapping_add(n as u8)))
            .collect()
    }

    fn check_noise(avx2: Avx2, sigma: &[u8; 32], requests: &[(Eta, u8)]) {
        let mut want = std::vec![Poly::zero(); requests.len()];
        sample_noise_polys_portable(
            sigma,
            requests
                .iter()
                .zip(&mut want)
                .map(|(&(eta, nonce), p)| (eta, nonce, p)),
        );
        let mut got = std::vec![Poly::zero(); requests.len()];
        let mut outs = got.iter_mut();
        for chunk in requests.chunks(WAYS) {
            let lanes: [NoiseLane<'_>; WAYS] = core::array::from_fn(|l| {
                chunk.get(l).map(|&(eta, nonce)| {
                    (
                        eta,
                        nonce,
                        outs.next().expect("one per request").coeffs_mut(),
                    )
                })
            });
            avx2.noise_x4(sigma, lanes);
        }
        assert_eq!(got, want, "{requests:?}");
    }

    proptest! {
        #[test]
        fn noise_x4_matches_portable(
            sigma in any::<[u8; 32]>(),
            etas in proptest::collection::vec(prop_oneof![Just(Eta::Two), Just(Eta::Three)], 0..=9),
            first_nonce in any::<u8>(),
        ) {
            let Some(avx2) = avx2_or_note("AVX2 noise test") else { return Ok(()) };
            check_noise(avx2, &sigma, &noise_requests(&etas, first_nonce));
        }
    }

    #[test]
    fn noise_batches_of_every_size() {
        let Some(avx2) = avx2_or_note("AVX2 noise test") else {
            return;
        };
        for len in 0..=9 {
            for eta in [Eta::Two, Eta::Three] {
                check_noise(
                    avx2,
                    &[len as u8; 32],
                    &noise_requests(&std::vec![eta; len], 0),
                );
            }
        }
        // ML-KEM-512 encryption: y with eta1 = 3, e1 and e2 with eta2 = 2, in one batch.
        let mixed = [Eta::Three, Eta::Three, Eta::Two, Eta::Two, Eta::Two];
        check_noise(avx2, &[0x77; 32], &noise_requests(&mixed, 0));
    }

    #[test]
    fn public_noise_functions_match_portable() {
        let Some(_) = avx2_or_note("AVX2 noise test") else {
            return;
        };
        let sigma = [0x3c; 32];
        let mut want = [Poly::zero(), Poly::zero(), Poly::zero()];
        sample_noise_polys_portable(
            &sigma,
            want.iter_mut()
                .enumerate()
                .map(|(n, p)| (Eta::Two, 5 + n as u8, p)),
        );
        assert_eq!(crate::sample_noise_vector::<3>(&sigma, Eta::Two, 5).0, want);
    }
}
