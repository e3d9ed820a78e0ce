//! Helpers of the SIMD backends' tests (x86-64 and aarch64): inputs, the batch checks
//! every entry point of a backend runs against the portable references, and what a
//! parser reads.

use lattice_poly_ntt::mlkem::{NttPoly, Poly};
use std::vec::Vec;

use crate::cbd::Eta;
use crate::job::{Job, SAMPLE_NTT_SEED_BYTES};
use crate::reference::{sample_noise_polys_portable, sample_ntt_batch_portable};

/// A batch entry point under test, with its name: runs every job of the list.
pub(crate) type Entry = (&'static str, fn(&mut [Job<'_>]));

/// Every byte value in every position, as a ramp and as a constant, through `check`.
pub(crate) fn every_byte<const LEN: usize>(check: fn(&[u8; LEN])) {
    for v in 0..=255u8 {
        let bytes: [u8; LEN] = core::array::from_fn(|i| v.wrapping_add(i as u8));
        check(&bytes);
        check(&[v; LEN]);
    }
}

/// The 12-bit `SampleNTT` candidates of `bytes`' whole groups, in order, none rejected
/// (what the x86 parsers take on a mispredicted path).
#[cfg(target_arch = "x86_64")]
pub(crate) fn raw_candidates(bytes: &[u8]) -> Vec<u16> {
    bytes
        .as_chunks::<3>()
        .0
        .iter()
        .flat_map(|&[b0, b1, b2]| {
            let (b0, b1, b2) = (u16::from(b0), u16::from(b1), u16::from(b2));
            [b0 | (b1 & 0x0f) << 8, b1 >> 4 | b2 << 4]
        })
        .collect()
}

/// `count` matrix seeds of `rho` (column `n % 4`, row `n / 4`).
pub(crate) fn seeds(rho: &[u8; 32], count: usize) -> Vec<[u8; SAMPLE_NTT_SEED_BYTES]> {
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

/// The `SampleNTT` polynomials of `seeds` by the entry point `run`.
pub(crate) fn run_sample_ntt(
    run: fn(&mut [Job<'_>]),
    seeds: &[[u8; SAMPLE_NTT_SEED_BYTES]],
) -> Vec<NttPoly> {
    let mut got = std::vec![NttPoly::zero(); seeds.len()];
    let mut jobs: Vec<Job<'_>> = seeds
        .iter()
        .zip(&mut got)
        .map(|(seed, poly)| Job::SampleNtt {
            seed: *seed,
            out: poly.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
        })
        .collect();
    run(&mut jobs);
    drop(jobs);
    got
}

/// Every entry point's `SampleNTT` batch of `seeds` against the portable one.
pub(crate) fn check_sample_ntt(entries: &[Entry], seeds: &[[u8; SAMPLE_NTT_SEED_BYTES]]) {
    let mut want = std::vec![NttPoly::zero(); seeds.len()];
    sample_ntt_batch_portable(seeds, &mut want);
    for (name, run) in entries {
        let got = run_sample_ntt(*run, seeds);
        assert_eq!(got, want, "{name}, {} seeds", seeds.len());
    }
}

/// `count` seeds that need a fourth block (about 1 in 100), each in every position of a
/// batch of `len` jobs and alone, then together: the extra-block path with lanes already
/// full.
pub(crate) fn check_fourth_blocks(entries: &[Entry], count: usize, len: usize) {
    let special = crate::reference::seeds_needing_a_fourth_block(count);
    let plain = seeds(&[9; 32], len);
    for &seed in &special {
        for pos in 0..len {
            let mut batch = plain.clone();
            batch[pos] = seed;
            check_sample_ntt(entries, &batch);
        }
        check_sample_ntt(entries, &[seed]);
    }
    check_sample_ntt(entries, &special);
}

/// `(eta, nonce)` requests: `etas` in order from `first_nonce` on.
pub(crate) fn noise_requests(etas: &[Eta], first_nonce: u8) -> Vec<(Eta, u8)> {
    etas.iter()
        .enumerate()
        .map(|(n, &eta)| (eta, first_nonce.wrapping_add(n as u8)))
        .collect()
}

/// Every entry point's noise batch of `requests` against the portable one.
pub(crate) fn check_noise(entries: &[Entry], sigma: &[u8; 32], requests: &[(Eta, u8)]) {
    let mut want = std::vec![Poly::zero(); requests.len()];
    sample_noise_polys_portable(
        sigma,
        requests
            .iter()
            .zip(&mut want)
            .map(|(&(eta, nonce), p)| (eta, nonce, p)),
    );
    for (name, run) in entries {
        let mut got = std::vec![Poly::zero(); requests.len()];
        let mut jobs: Vec<Job<'_>> = requests
            .iter()
            .zip(&mut got)
            .map(|(&(eta, nonce), p)| Job::Noise {
                sigma,
                nonce: [nonce],
                eta,
                out: p.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
            })
            .collect();
        run(&mut jobs);
        drop(jobs);
        assert_eq!(got, want, "{name}, {requests:?}");
    }
}

/// Noise batches of every size up to `max_len`, of each eta, and ML-KEM-512 encryption's
/// mix (y with eta1 = 3, e1 and e2 with eta2 = 2) in one batch.
pub(crate) fn check_noise_batches(entries: &[Entry], max_len: usize) {
    for len in 0..=max_len {
        for eta in [Eta::Two, Eta::Three] {
            check_noise(
                entries,
                &[len as u8; 32],
                &noise_requests(&std::vec![eta; len], 0),
            );
        }
    }
    let mixed = [Eta::Three, Eta::Three, Eta::Two, Eta::Two, Eta::Two];
    check_noise(entries, &[0x77; 32], &noise_requests(&mixed, 0));
}
