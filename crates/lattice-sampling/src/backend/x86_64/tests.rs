//! The x86-64 `SampleNTT` parsers, AVX2's (both tokens) and VBMI2's (the AVX-512 token's),
//! against the scalar one on the same inputs, architecturally and with the misspeculation
//! flag forced set.

use lattice_field::gf3329::Q;
use lattice_poly_ntt::backend::Avx2;
use lattice_poly_ntt::mlkem::N;
use proptest::prelude::*;
use std::vec::Vec;

use super::avx2::Avx2Kernels;
use super::avx2::rej::parse_candidates_avx2;
use super::avx512::rej::{
    HALF_STEP_BYTES, HALF_WINDOW, Parser, Vbmi2, WIDE_STEP_BYTES, WIDE_STEP_CANDIDATES,
    parse_candidates_vbmi2,
};
use crate::backend::test_support::raw_candidates;
use crate::backend::walk::{STEP_BYTES, STEP_CANDIDATES};
use crate::keccak::SHAKE128_RATE;
use crate::kernels::{Kernels, parse_candidates};
use crate::speculation::{force_misspeculation, init_msf};

/// Runs the scalar parser and every SIMD parser the CPU has on copies of the same
/// starting buffer; they must agree on the returned count and on every coefficient
/// below it, and leave the slots below the start alone.
fn agree(bytes: &[u8], filled: usize) {
    let Some(avx2) = Avx2::detect() else {
        std::println!("note: CPU without AVX2, SIMD parser test skipped");
        return;
    };
    let start: [u16; N] = core::array::from_fn(|i| (i as u16).wrapping_mul(7919) % Q);
    let mut scalar = start;
    let n_scalar = parse_candidates(bytes, &mut scalar, filled);
    let check = |name: &str, parse: &dyn Fn(&mut [u16; N]) -> usize| {
        let mut simd = start;
        let n_simd = parse(&mut simd);
        let len = bytes.len();
        assert_eq!(
            n_scalar, n_simd,
            "{name} fill count (len {len}, from {filled})"
        );
        assert_eq!(scalar[..n_scalar], simd[..n_simd], "{name} coefficients");
        assert_eq!(simd[..filled], start[..filled], "{name} below the start");
    };
    check("AVX2", &|c| {
        // SAFETY: `avx2` exists, so the CPU has AVX2.
        unsafe { parse_candidates_avx2(bytes, c, filled, init_msf()).0 }
    });
    if let Some(block) = bytes.first_chunk::<SHAKE128_RATE>()
        && bytes.len() == SHAKE128_RATE
    {
        check("AVX2 block", &|c| {
            Avx2Kernels::new(avx2).parse_sample_ntt(block, c, filled, &mut init_msf())
        });
    }
    if let Some(vbmi2) = Vbmi2::detect() {
        // SAFETY: `vbmi2` exists, so the CPU has the parser's features.
        check("VBMI2", &|c| unsafe {
            parse_candidates_vbmi2(bytes, c, filled, init_msf()).0
        });
        if let Some(block) = bytes.first_chunk::<SHAKE128_RATE>()
            && bytes.len() == SHAKE128_RATE
        {
            // SAFETY: as above.
            check("VBMI2 block", &|c| unsafe {
                Parser::Vbmi2(vbmi2).parse(block, c, filled, init_msf()).0
            });
        }
    } else {
        std::println!("note: CPU without AVX-512 VBMI2, its parser not tested here");
    }
}

/// What a parser does on a mispredicted path (the flag set), where every acceptance
/// mask is protected to all ones: each SIMD step, of `windows` candidates in turn (the
/// ones of `bytes` in order), takes all of them, up to N (the table index is 255, the
/// store offset advances by the whole step); the groups no SIMD step covers go to the
/// scalar parser, which rejects them all.
fn misspeculated(
    bytes: &[u8],
    start: &[u16; N],
    filled: usize,
    windows: &[usize],
) -> (usize, Vec<u16>) {
    let raw = raw_candidates(bytes);
    let mut coeffs = start.to_vec();
    let (mut at, mut f) = (0, filled);
    for &w in windows {
        let take = w.min(N - f);
        coeffs[f..f + take].copy_from_slice(&raw[at..at + take]);
        (at, f) = (at + w, f + take);
    }
    coeffs.truncate(f);
    (f, coeffs)
}

/// Each SIMD parser with the misspeculation flag forced set gives what `misspeculated`
/// says: a protect missing on a table index or a store offset would filter a candidate,
/// or move the fill count by the real popcount, and fail.
#[test]
fn misspeculated_masks_take_every_candidate() {
    let Some(avx2) = Avx2::detect() else {
        std::println!("note: CPU without AVX2, SIMD parser test skipped");
        return;
    };
    // Candidates on both sides of q, and 4095.
    let bytes: Vec<u8> = (0..3 * 56 + 33)
        .map(|i: u32| (i.wrapping_mul(0x9e37_79b9) >> 24) as u8 | 0x80)
        .collect();
    let start: [u16; N] = core::array::from_fn(|i| (i as u16).wrapping_mul(7919) % Q);
    for len in (0..=bytes.len()).step_by(3) {
        let bytes = &bytes[..len];
        for filled in [0, 1, 100, N - 17, N - 16, N - 15, N - 1, N] {
            let check = |name: &str, windows: &[usize], parse: &dyn Fn(&mut [u16; N]) -> usize| {
                let mut coeffs = start;
                let got = force_misspeculation(|| parse(&mut coeffs));
                let (want, want_coeffs) = misspeculated(bytes, &start, filled, windows);
                assert_eq!(got, want, "{name} fill count (len {len}, from {filled})");
                assert_eq!(
                    coeffs[..got],
                    want_coeffs[..],
                    "{name} (len {len}, from {filled})"
                );
            };
            let avx2_windows = std::vec![STEP_CANDIDATES; len / STEP_BYTES];
            check("AVX2", &avx2_windows, &|c| {
                // SAFETY: `avx2` exists, so the CPU has AVX2.
                let (got, msf) = unsafe { parse_candidates_avx2(bytes, c, filled, init_msf()) };
                assert!(msf.is_set());
                got
            });
            let block = bytes
                .first_chunk::<SHAKE128_RATE>()
                .filter(|_| len == SHAKE128_RATE);
            if let Some(block) = block {
                check("AVX2 block", &avx2_windows, &|c| {
                    let mut msf = init_msf();
                    let got = Avx2Kernels::new(avx2).parse_sample_ntt(block, c, filled, &mut msf);
                    assert!(msf.is_set());
                    got
                });
            }
            if let Some(vbmi2) = Vbmi2::detect() {
                let mut windows = std::vec![WIDE_STEP_CANDIDATES; len / WIDE_STEP_BYTES];
                let rest = len % WIDE_STEP_BYTES;
                if rest == HALF_STEP_BYTES {
                    windows.push(HALF_WINDOW);
                } else {
                    windows.extend(core::iter::repeat_n(STEP_CANDIDATES, rest / STEP_BYTES));
                }
                // SAFETY: `vbmi2` exists, so the CPU has the parser's features.
                check("VBMI2", &windows, &|c| unsafe {
                    let (got, msf) = parse_candidates_vbmi2(bytes, c, filled, init_msf());
                    assert!(msf.is_set());
                    got
                });
                if let Some(block) = block {
                    // SAFETY: as above.
                    check("VBMI2 block", &windows, &|c| unsafe {
                        let (got, msf) = Parser::Vbmi2(vbmi2).parse(block, c, filled, init_msf());
                        assert!(msf.is_set());
                        got
                    });
                }
            }
        }
    }
}

#[test]
fn edge_values() {
    // Groups encoding (d1, d2) for the edge candidates: 4095, q = 3329, q - 1 = 3328, 0.
    let group = |d1: u16, d2: u16| [d1 as u8, ((d1 >> 8) | (d2 << 4)) as u8, (d2 >> 4) as u8];
    let edges = [4095, Q, Q - 1, 0, 1, Q + 1];
    for &d1 in &edges {
        for &d2 in &edges {
            let bytes: Vec<u8> = (0..3 * 56).flat_map(|_| group(d1, d2)).collect();
            for filled in [0, 100, N - 17, N - 16, N - 15, N - 1, N] {
                agree(&bytes, filled);
            }
        }
    }
    // Mixed edges at every position.
    let bytes: Vec<u8> = (0..168usize)
        .flat_map(|i| group(edges[i % edges.len()], edges[(i * 5 + 1) % edges.len()]))
        .collect();
    for filled in 0..=N {
        agree(&bytes, filled);
    }
}

#[test]
fn all_rejected_and_all_accepted() {
    agree(&[0xff; 504], 0);
    agree(&[0xff; 504], N - 16);
    agree(&[0x00; 504], 0);
    agree(&[0x00; 504], N - 16);
    agree(&[0x00; 504], N - 17);
    // Lengths that are not a multiple of 24 leave a scalar tail.
    for len in (0..=72).step_by(3) {
        agree(&[0x00; 72][..len], 240);
        agree(&[0x11; 72][..len], 0);
    }
}

proptest! {
    #[test]
    fn matches_scalar(
        groups in proptest::collection::vec(any::<[u8; 3]>(), 0..200),
        filled in 0..=N,
    ) {
        agree(groups.as_flattened(), filled);
    }

    #[test]
    fn matches_scalar_with_many_rejections(
        groups in proptest::collection::vec(
            prop_oneof![
                3 => Just([0xff, 0xff, 0xff]),
                1 => Just([0x01, 0x0d, 0xd0]), // d1 = q, d2 = q - 1 = 3328
                1 => any::<[u8; 3]>(),
            ],
            0..200,
        ),
        filled in prop_oneof![Just(0usize), N - 20..=N],
    ) {
        agree(groups.as_flattened(), filled);
    }
}
