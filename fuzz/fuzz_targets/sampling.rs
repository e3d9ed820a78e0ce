//! Sampling layer: `SampleNTT`, matrix generation, CBD and the PRF noise of `lattice-sampling`,
//! against naive transcriptions of FIPS 203 Algorithms 7 and 8 written here.
//!
//! Input layout: byte 0 picks the rank k (2..=4, `byte % 3`) and is the PRF nonce; bytes 1..35 are the
//! SampleNTT seed (rho, then the two index bytes; zero-padded when short), whose first 32
//! bytes are also used as rho and as sigma; the rest is CBD input, used both at its own length
//! (which `sample_poly_cbd` must accept exactly when it is `64 * eta`) and padded to size.
//! `byte 0 / 3` picks the backend among `BackendKind::ALL` (the portable one where the CPU
//! lacks it), so a campaign compares every backend's Keccak and parsers with the naive
//! versions. The backend token is passed explicitly (an `AnyBackend`
//! picked from the byte, run through `lattice_poly_ntt::dispatch!`).
#![no_main]

#[path = "../shared/backend.rs"]
mod backend;

use backend::backend_of;
use lattice_field::gf3329::Q;
use lattice_poly_ntt::mlkem::N;
use lattice_sampling::{
    CBD2_INPUT_BYTES, CBD3_INPUT_BYTES, Eta, SAMPLE_NTT_SEED_BYTES, SamplingBackend, prf,
    sample_matrix, sample_noise_poly, sample_noise_vector, sample_ntt, sample_poly_cbd,
    sample_poly_cbd2, sample_poly_cbd3,
};
use libfuzzer_sys::fuzz_target;
use sha3::digest::{ExtendableOutput, Update, XofReader};
use sha3::{Shake128, Shake256};

/// FIPS 203 Algorithm 7, three bytes at a time straight from SHAKE128.
fn naive_sample_ntt(seed: &[u8]) -> [u16; N] {
    let mut xof = Shake128::default();
    xof.update(seed);
    let mut reader = xof.finalize_xof();
    let mut out = [0u16; N];
    let mut j = 0;
    while j < N {
        let mut c = [0u8; 3];
        reader.read(&mut c);
        let d1 = u16::from(c[0]) + 256 * (u16::from(c[1]) % 16);
        let d2 = u16::from(c[1]) / 16 + 16 * u16::from(c[2]);
        if d1 < Q {
            out[j] = d1;
            j += 1;
        }
        if d2 < Q && j < N {
            out[j] = d2;
            j += 1;
        }
    }
    out
}

/// FIPS 203 Algorithm 8, bit by bit; also returns the signed values.
fn naive_cbd(eta: usize, bytes: &[u8]) -> ([u16; N], [i16; N]) {
    let bit = |i: usize| i16::from((bytes[i / 8] >> (i % 8)) & 1);
    let mut signed = [0i16; N];
    for (i, s) in signed.iter_mut().enumerate() {
        let x: i16 = (0..eta).map(|j| bit(2 * i * eta + j)).sum();
        let y: i16 = (0..eta).map(|j| bit(2 * i * eta + eta + j)).sum();
        *s = x - y;
    }
    let reduced = signed.map(|s| i32::from(s).rem_euclid(i32::from(Q)) as u16);
    (reduced, signed)
}

fn naive_prf(sigma: &[u8; 32], nonce: u8, len: usize) -> Vec<u8> {
    let mut xof = Shake256::default();
    xof.update(sigma);
    xof.update(&[nonce]);
    let mut out = vec![0u8; len];
    xof.finalize_xof().read(&mut out);
    out
}

fn eta_of(eta: Eta) -> usize {
    usize::from(eta.value())
}

fn check_cbd(eta: Eta, bytes: &[u8], got: &[u16; N]) {
    let (expected, signed) = naive_cbd(eta_of(eta), bytes);
    let bound = i16::from(eta.value());
    assert!(signed.iter().all(|s| (-bound..=bound).contains(s)));
    assert!(got.iter().all(|&c| c < Q), "CBD output not canonical");
    assert!(
        got.iter()
            .all(|&c| c <= eta.value().into() || c >= Q - u16::from(eta.value())),
        "CBD_{} coefficient outside [-eta, eta]",
        eta.value()
    );
    assert_eq!(
        got,
        &expected,
        "CBD_{} differs from Algorithm 8",
        eta.value()
    );
}

fn check_matrix<B: SamplingBackend, const K: usize>(be: B, rho: &[u8; 32]) {
    let matrix = sample_matrix::<K>(be, rho);
    for (i, row) in matrix.rows.iter().enumerate() {
        for (j, entry) in row.iter().enumerate() {
            let mut seed = [0u8; SAMPLE_NTT_SEED_BYTES];
            seed[..32].copy_from_slice(rho);
            seed[32] = j as u8;
            seed[33] = i as u8;
            assert_eq!(
                entry.coeffs(),
                &naive_sample_ntt(&seed),
                "A[{i}][{j}], k = {K}"
            );
        }
    }
}

fn check_noise<B: SamplingBackend, const K: usize>(be: B, sigma: &[u8; 32], nonce: u8) {
    for eta in [Eta::Two, Eta::Three] {
        let vector = sample_noise_vector::<K>(be, sigma, eta, nonce);
        for (i, poly) in vector.0.iter().enumerate() {
            let n = nonce.wrapping_add(i as u8);
            let single = sample_noise_poly(be, sigma, eta, n);
            assert_eq!(poly, &single, "noise vector element {i}");
            let stream = naive_prf(sigma, n, 64 * eta_of(eta));
            let mut ours = vec![0u8; stream.len()];
            prf(be, sigma, n, &mut ours);
            assert_eq!(ours, stream, "PRF output");
            check_cbd(eta, &stream, single.coeffs());
        }
    }
}

fn padded<const L: usize>(bytes: &[u8]) -> [u8; L] {
    let mut out = [0u8; L];
    let n = bytes.len().min(L);
    out[..n].copy_from_slice(&bytes[..n]);
    out
}

/// Every check of one input (`selector` is byte 0, `rest` the bytes after it) on `be`.
fn check<B: SamplingBackend>(be: B, selector: u8, rest: &[u8]) {
    let seed_len = rest.len().min(SAMPLE_NTT_SEED_BYTES);
    let (seed_part, cbd_input) = rest.split_at(seed_len);
    let seed: [u8; SAMPLE_NTT_SEED_BYTES] = padded(seed_part);
    let rho: [u8; 32] = padded(&seed);

    let a = sample_ntt(be, &seed);
    assert!(
        a.coeffs().iter().all(|&c| c < Q),
        "SampleNTT output not canonical"
    );
    assert_eq!(
        a.coeffs(),
        &naive_sample_ntt(&seed),
        "SampleNTT differs from Algorithm 7"
    );

    // CBD on the raw tail: accepted exactly at 64 * eta bytes.
    for eta in [Eta::Two, Eta::Three] {
        let got = sample_poly_cbd(eta, cbd_input);
        assert_eq!(
            got.is_some(),
            cbd_input.len() == eta.prf_output_len(),
            "length check"
        );
        if let Some(poly) = got {
            check_cbd(eta, cbd_input, poly.coeffs());
        }
    }
    let two: [u8; CBD2_INPUT_BYTES] = padded(cbd_input);
    check_cbd(Eta::Two, &two, sample_poly_cbd2(&two).coeffs());
    let three: [u8; CBD3_INPUT_BYTES] = padded(cbd_input);
    check_cbd(Eta::Three, &three, sample_poly_cbd3(&three).coeffs());

    let nonce = selector;
    match selector % 3 {
        0 => {
            check_matrix::<B, 2>(be, &rho);
            check_noise::<B, 2>(be, &rho, nonce);
        }
        1 => {
            check_matrix::<B, 3>(be, &rho);
            check_noise::<B, 3>(be, &rho, nonce);
        }
        _ => {
            check_matrix::<B, 4>(be, &rho);
            check_noise::<B, 4>(be, &rho, nonce);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let backend = backend_of(usize::from(selector / 3));
    lattice_poly_ntt::dispatch!(backend, |be| check(be, selector, rest));
});
