//! `SampleNTT` (FIPS 203 Alg. 7) and matrix generation (FIPS 203 Alg. 13 l. 3-7,
//! FIPS 203 Alg. 14 l. 4-8).
//!
//! Everything here is a function of the public seed rho, so branching on the XOF output
//! and a data-dependent number of squeezed blocks are fine.

use crate::backend::SamplingBackend;
use crate::batch::Batch;
use crate::digest::Digest32;
use crate::job::{Job, SAMPLE_NTT_SEED_BYTES};
use crate::keccak::SHAKE128_RATE;
use lattice_poly_ntt::mlkem::{MAX_RANK, Matrix, NttPoly};

/// Number of SHAKE128 blocks [`sample_ntt`] squeezes up front (504 bytes, 336 candidates);
/// further blocks are squeezed one at a time.
///
/// Each 12-bit candidate is accepted with probability q / 2^12 ~ 0.813, so 336 candidates
/// give 273 accepted on average (standard deviation ~7.2), and fewer than 256 for only
/// about 1% of seeds. Four blocks (448 candidates, mean 364, standard deviation ~8.3) run
/// short with a probability far below 2^-100, but the loop does not rely on it.
pub const SAMPLE_NTT_INITIAL_BLOCKS: usize = 3;

// Whole blocks hold whole 3-byte groups of two candidates, so a block boundary never splits
// a group and the candidate parser needs no carry-over between blocks.
const _: () = assert!(SHAKE128_RATE.is_multiple_of(3));

/// `SampleNTT(seed)`, FIPS 203 Alg. 7: rejection sampling of a uniform NTT-domain
/// polynomial from `SHAKE128(seed)`.
///
/// The seed is `rho || j || i` (32 + 1 + 1 bytes). Every 3 output bytes `b0, b1, b2` give two
/// 12-bit candidates `d1 = b0 + 256 * (b1 mod 16)` and `d2 = b1 / 16 + 16 * b2`, each kept if
/// below q, until 256 are kept, squeezing [`SHAKE128_RATE`]-byte blocks for as long as the
/// seed needs: it never gives up, whatever the seed. (One seed alone runs on the
/// single-state Keccak; many run together through a [`Batch`] or [`sample_matrix`].)
///
/// Not constant time, by design: the seed is public.
#[must_use]
pub fn sample_ntt(backend: impl SamplingBackend, seed: &[u8; SAMPLE_NTT_SEED_BYTES]) -> NttPoly {
    let mut poly = NttPoly::zero();
    let mut batch = Batch::new(backend);
    batch.push(Job::SampleNtt {
        seed: *seed,
        // The parser writes only values below q: the canonical invariant holds.
        out: poly.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
    });
    batch.run();
    poly
}

/// Generates the `K x K` matrix A-hat from rho: `rows[i][j] = SampleNTT(rho || j || i)`
/// (FIPS 203 Alg. 13 l. 3-7; FIPS 203 Alg. 14 l. 4-8 regenerate the same matrix).
///
/// Byte 32 of each seed is the column index `j`, byte 33 the row index `i`. All `K^2`
/// entries are produced by one batch of independent SHAKE128 streams (see the crate docs on
/// multi-way hashing). `K` is at most 4 (checked at compile time).
///
/// Not constant time, by design: rho is public.
#[must_use]
pub fn sample_matrix<const K: usize>(backend: impl SamplingBackend, rho: &[u8; 32]) -> Matrix<K> {
    sample_matrix_with_digests(backend, rho, [])
}

/// [`sample_matrix`] and hashes computed alongside it (see [`Digest32`]).
///
/// Importing an ML-KEM encapsulation key needs both A-hat from the key's rho and
/// `H(ek) = SHA3-256(ek)`, a hash of 6 to 12 permutations on which nothing else depends (a
/// one-shot decapsulation adds `J(z || c)`). With AVX2 the hashes run in lanes of the 4-way
/// permutations that generate A-hat instead of on the scalar Keccak afterwards; the results
/// are the same. (For other mixes of work, build a [`Batch`].)
///
/// Not constant time with respect to rho, by design (rho is public); constant time with
/// respect to the hashed messages' content (their lengths may steer the schedule).
#[must_use]
pub fn sample_matrix_with_digests<'a, const K: usize>(
    backend: impl SamplingBackend,
    rho: &[u8; 32],
    digests: impl IntoIterator<Item = Digest32<'a>>,
) -> Matrix<K> {
    const { assert!(K <= MAX_RANK, "ML-KEM ranks are at most 4") };
    let mut matrix = Matrix {
        rows: core::array::from_fn(|_| core::array::from_fn(|_| NttPoly::zero())),
    };
    let mut batch = Batch::new(backend);
    // Hashes are the longest jobs (6 to 12 permutations, a stream ~3): they go first.
    for digest in digests {
        batch.digest(digest);
    }
    batch.matrix_rows::<K>(rho, 0, &mut matrix.rows);
    batch.run();
    matrix
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::matrix_seed;
    use crate::kernels::parse_candidates;
    use crate::reference::{XofStream, sample_ntt_batch_portable, sample_ntt_from_xof};
    use lattice_field::gf3329::Q;
    use lattice_poly_ntt::backend::Portable;
    use lattice_poly_ntt::mlkem::N;
    const P: Portable = Portable;
    use sha3::Shake128;
    use sha3::digest::{ExtendableOutput, Update, XofReader};

    impl<R: XofReader> XofStream for R {
        fn read(&mut self, out: &mut [u8]) {
            XofReader::read(self, out);
        }
    }
    use proptest::prelude::*;

    #[test]
    fn matrix_with_digests_is_matrix_and_hashes() {
        // ML-KEM's key import: A-hat and H(ek) for the three ek lengths.
        fn check<const K: usize>() {
            let ek: std::vec::Vec<u8> = (0..384 * K + 32).map(|i| (i * 7 + K) as u8).collect();
            let rho: [u8; 32] = ek[384 * K..].try_into().unwrap();
            let mut want = std::vec![NttPoly::zero(); K * K];
            let seeds: std::vec::Vec<_> = (0..K * K)
                .map(|n| matrix_seed(&rho, (n / K) as u8, (n % K) as u8))
                .collect();
            sample_ntt_batch_portable(&seeds, &mut want);
            // With H(ek) alone (key import), and with J(z || c) too (one-shot decapsulation).
            let mut h = [0u8; 32];
            let a = sample_matrix_with_digests::<K>(P, &rho, [Digest32::sha3_256(&ek, &mut h)]);
            assert_eq!(a.rows.as_flattened(), &want[..], "K = {K}");
            assert_eq!(h, crate::keccak::sha3_256(P, &[&ek]), "K = {K}");
            let (z, ct) = ([9u8; 32], &ek[..ek.len() - 32]);
            let (mut h2, mut j) = ([0u8; 32], [0u8; 32]);
            let digests = [
                Digest32::sha3_256(&ek, &mut h2),
                Digest32::shake256([&z, ct], &mut j),
            ];
            let a = sample_matrix_with_digests::<K>(P, &rho, digests);
            assert_eq!(a.rows.as_flattened(), &want[..], "K = {K}");
            assert_eq!(h2, h, "K = {K}");
            let mut want_j = [0u8; 32];
            crate::keccak::shake256(P, &[&z, ct], &mut want_j);
            assert_eq!(j, want_j, "K = {K}");
        }
        check::<2>();
        check::<3>();
        check::<4>();
    }

    /// FIPS 203 Alg. 7, line by line: squeeze 3 bytes at a time. Returns the
    /// coefficients and the number of bytes squeezed.
    fn reference(reader: &mut impl XofReader) -> ([u16; N], usize) {
        let mut a = [0u16; N];
        let mut j = 0;
        let mut squeezed = 0;
        while j < 256 {
            let mut c = [0u8; 3];
            reader.read(&mut c);
            squeezed += 3;
            let d1 = u16::from(c[0]) + 256 * (u16::from(c[1]) % 16);
            let d2 = u16::from(c[1]) / 16 + 16 * u16::from(c[2]);
            if d1 < Q {
                a[j] = d1;
                j += 1;
            }
            if d2 < Q && j < 256 {
                a[j] = d2;
                j += 1;
            }
        }
        (a, squeezed)
    }

    fn reader_for(seed: &[u8]) -> impl XofReader + use<> {
        let mut xof = Shake128::default();
        xof.update(seed);
        xof.finalize_xof()
    }

    fn reference_for(seed: &[u8; SAMPLE_NTT_SEED_BYTES]) -> ([u16; N], usize) {
        reference(&mut reader_for(seed))
    }

    /// Blocks a seed needs: the reference squeezes 3 bytes at a time, whole groups per block.
    fn blocks_needed(squeezed: usize) -> usize {
        squeezed.div_ceil(SHAKE128_RATE)
    }

    /// Seeds `counter (LE) || 0...`, scanned in order, with the blocks each needs.
    fn scan_seeds() -> impl Iterator<Item = ([u8; SAMPLE_NTT_SEED_BYTES], usize)> {
        (0u32..).map(|n| {
            let mut seed = [0u8; SAMPLE_NTT_SEED_BYTES];
            seed[..4].copy_from_slice(&n.to_le_bytes());
            let (_, squeezed) = reference_for(&seed);
            (seed, blocks_needed(squeezed))
        })
    }

    /// An XOF stream that starts with `prefix` bytes of 0xff (all candidates 4095, rejected)
    /// before the real SHAKE128 output: forces as many extra blocks as wanted.
    struct RejectingPrefix<R> {
        prefix: usize,
        inner: R,
    }

    impl<R: XofReader> XofReader for RejectingPrefix<R> {
        fn read(&mut self, buffer: &mut [u8]) {
            let take = self.prefix.min(buffer.len());
            buffer[..take].fill(0xff);
            self.prefix -= take;
            self.inner.read(&mut buffer[take..]);
        }
    }

    proptest! {
        #[test]
        fn matches_reference(seed in any::<[u8; SAMPLE_NTT_SEED_BYTES]>()) {
            let (expected, _) = reference_for(&seed);
            prop_assert_eq!(*sample_ntt(P, &seed).coeffs(), expected);
        }

        #[test]
        fn matches_reference_after_rejected_prefix(
            seed in any::<[u8; SAMPLE_NTT_SEED_BYTES]>(),
            prefix in 0usize..2000,
        ) {
            let fresh = || RejectingPrefix { prefix, inner: reader_for(&seed) };
            let (expected, _) = reference(&mut fresh());
            prop_assert_eq!(*sample_ntt_from_xof(&mut fresh()).coeffs(), expected);
        }

        #[test]
        fn matrix_index_order(rho in any::<[u8; 32]>()) {
            fn check<const K: usize>(rho: &[u8; 32]) -> Result<(), TestCaseError> {
                let a = sample_matrix::<K>(P, rho);
                for i in 0..K {
                    for j in 0..K {
                        let mut seed = [0u8; SAMPLE_NTT_SEED_BYTES];
                        seed[..32].copy_from_slice(rho);
                        seed[32] = j as u8;
                        seed[33] = i as u8;
                        let (expected, _) = reference_for(&seed);
                        prop_assert_eq!(a.rows[i][j].coeffs(), &expected, "[{}][{}]", i, j);
                    }
                }
                Ok(())
            }
            check::<2>(&rho)?;
            check::<3>(&rho)?;
            check::<4>(&rho)?;
        }
    }

    #[test]
    fn seed_needing_a_fourth_block() {
        // About 1% of seeds need more than 3 blocks, so the scan stops after ~100 seeds.
        let (seed, blocks) = scan_seeds()
            .take(10_000)
            .find(|&(_, blocks)| blocks > SAMPLE_NTT_INITIAL_BLOCKS)
            .expect("no seed needing a 4th block among 10,000");
        assert!(blocks > 3);
        let (expected, _) = reference_for(&seed);
        assert_eq!(sample_ntt(P, &seed).coeffs(), &expected);
    }

    #[test]
    fn many_blocks_after_a_long_rejected_prefix() {
        // A seed needing more than 4 blocks of real SHAKE128 output does not exist in
        // practice (probability < 2^-100 per seed), so force the block-at-a-time loop to run
        // many times with a prefix of 10 blocks of rejected candidates, unaligned to both
        // the 504-byte first read and the 168-byte blocks.
        for prefix in [
            10 * SHAKE128_RATE,
            10 * SHAKE128_RATE + 1,
            10 * SHAKE128_RATE + 2,
        ] {
            let seed = [7u8; SAMPLE_NTT_SEED_BYTES];
            let fresh = || RejectingPrefix {
                prefix,
                inner: reader_for(&seed),
            };
            let (expected, squeezed) = reference(&mut fresh());
            assert!(blocks_needed(squeezed) >= 12);
            assert_eq!(sample_ntt_from_xof(&mut fresh()).coeffs(), &expected);
        }
    }

    #[test]
    fn parser_boundaries() {
        let mut coeffs = [0u16; N];
        // d1 = 0x01 + 256 * 0xd = 3329 = q: rejected. d2 = 0x0 + 16 * 0xd0 = 3328: accepted.
        assert_eq!(parse_candidates(&[0x01, 0x0d, 0xd0], &mut coeffs, 0), 1);
        assert_eq!(coeffs[0], 3328);
        // d1 = 3328 accepted; d2 = 0xf + 16 * 0xff = 4095 rejected.
        assert_eq!(parse_candidates(&[0x00, 0xfd, 0xff], &mut coeffs, 1), 2);
        assert_eq!(coeffs[1], 3328);
        // d1 = 0x123, d2 = 0x456 = 1110: both accepted, in order.
        assert_eq!(parse_candidates(&[0x23, 0x61, 0x45], &mut coeffs, 2), 4);
        assert_eq!(coeffs[2..4], [0x123, 0x456]);
        // With one slot left, only d1 is kept, and later groups are ignored.
        let mut full = [9u16; N];
        assert_eq!(
            parse_candidates(&[0x23, 0x61, 0x45, 0, 0, 0], &mut full, N - 1),
            N
        );
        assert_eq!(full[N - 2..], [9, 0x123]);
        // Nothing is written once full.
        assert_eq!(parse_candidates(&[0, 0, 0], &mut full, N), N);
        assert_eq!(full[N - 1], 0x123);
    }

    #[test]
    fn matrix_is_not_transposed() {
        let a = sample_matrix::<2>(P, &[0u8; 32]);
        assert_ne!(a.rows[0][1], a.rows[1][0]);
        assert_eq!(a.rows[0][1], sample_ntt(P, &matrix_seed(&[0u8; 32], 0, 1)));
        let mut seed = [0u8; SAMPLE_NTT_SEED_BYTES];
        seed[32] = 1; // j = 1, i = 0
        assert_eq!(a.rows[0][1], sample_ntt(P, &seed));
    }
}
