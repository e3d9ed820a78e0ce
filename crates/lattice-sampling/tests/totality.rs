//! Totality of every public function of `lattice-sampling`, on every backend this CPU has
//! (the tokens of `lattice-poly-ntt`, which implement `SamplingBackend`): random and boundary
//! inputs (all-zero and all-ones seeds, seeds that need a fourth SHAKE128 block, empty,
//! short, block-sized and long messages and outputs, odd lengths, nonces that wrap, more
//! jobs than a batch holds), no panic (a panic fails the test; overflow checks and debug
//! assertions are on in the test profile), every backend's result equal to the portable
//! one, the portable one equal to a reference built on the `sha3` crate, and every documented
//! output range (coefficients below q, CBD noise in `[-eta, eta]`).
//!
//! `SamplingBackend::run_jobs` takes a `Jobs`, which only the crate can make: it is reached
//! through `Batch::run`, which every sampling function calls.

use lattice_field::gf3329::Q;
use lattice_poly_ntt::backend::{AnyBackend, BackendKind};
use lattice_poly_ntt::dispatch;
use lattice_poly_ntt::mlkem::{Matrix, N, NttPoly, Poly, PolyVector};
use lattice_poly_ntt::{Portable, mldsa};
use lattice_sampling::keccak::{
    SHA3_256_RATE, SHA3_512_RATE, SHA3_DOMAIN, SHAKE_DOMAIN, SHAKE256_RATE, Sponge, f1600,
    f1600_portable, sha3_256, sha3_512, shake256,
};
use lattice_sampling::{
    Batch, CBD2_INPUT_BYTES, CBD3_INPUT_BYTES, Digest32, DigestKind, Eta,
    SAMPLE_NTT_INITIAL_BLOCKS, SAMPLE_NTT_SEED_BYTES, SHAKE128_RATE, SamplingBackend, Shake,
    XofSink, expand_a, prf, rej_ntt_poly, sample_matrix, sample_matrix_with_digests,
    sample_noise_poly, sample_noise_polys, sample_noise_vector, sample_ntt, sample_poly_cbd,
    sample_poly_cbd2, sample_poly_cbd3,
};
use proptest::prelude::*;
use sha3::digest::{Digest, ExtendableOutput, Update, XofReader};

/// Runs `$body` with `$b` bound to the token of every backend this CPU has
/// ([`AnyBackend::available`], inside the token's `run`) and says which kinds it skipped.
macro_rules! on_every_backend {
    (|$b:ident| $body:expr) => {{
        for any in AnyBackend::available() {
            dispatch!(any, |$b| $body);
        }
        for kind in BackendKind::ALL.into_iter().filter(|k| !k.is_available()) {
            eprintln!("{kind}: skipped (not available on this CPU)");
        }
    }};
}

// ---- references on the sha3 crate ---------------------------------------------------

fn shake128_reader(parts: &[&[u8]]) -> impl XofReader + use<> {
    let mut x = sha3::Shake128::default();
    for p in parts {
        x.update(p);
    }
    x.finalize_xof()
}

fn shake256_ref(parts: &[&[u8]], len: usize) -> Vec<u8> {
    let mut x = sha3::Shake256::default();
    for p in parts {
        x.update(p);
    }
    let mut out = vec![0u8; len];
    x.finalize_xof().read(&mut out);
    out
}

fn shake128_ref(parts: &[&[u8]], len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    shake128_reader(parts).read(&mut out);
    out
}

fn sha3_256_ref(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = sha3::Sha3_256::new();
    for p in parts {
        Digest::update(&mut h, p);
    }
    h.finalize().into()
}

fn sha3_512_ref(parts: &[&[u8]]) -> Vec<u8> {
    let mut h = sha3::Sha3_512::new();
    for p in parts {
        Digest::update(&mut h, p);
    }
    h.finalize().to_vec()
}

/// FIPS 203 Alg. 7, three bytes at a time; also returns the SHAKE128 blocks it read.
fn sample_ntt_ref(seed: &[u8; SAMPLE_NTT_SEED_BYTES]) -> ([u16; N], usize) {
    let mut xof = shake128_reader(&[seed]);
    let (mut a, mut j, mut read) = ([0u16; N], 0, 0usize);
    while j < N {
        let mut c = [0u8; 3];
        xof.read(&mut c);
        read += 3;
        let d1 = u16::from(c[0]) + 256 * (u16::from(c[1]) % 16);
        let d2 = u16::from(c[1]) / 16 + 16 * u16::from(c[2]);
        if d1 < Q {
            a[j] = d1;
            j += 1;
        }
        if d2 < Q && j < N {
            a[j] = d2;
            j += 1;
        }
    }
    (a, read.div_ceil(SHAKE128_RATE))
}

/// FIPS 204 Alg. 30.
fn rej_ntt_ref(seed: &[u8; SAMPLE_NTT_SEED_BYTES]) -> [u32; N] {
    let q = lattice_field::gf8380417::Q;
    let mut xof = shake128_reader(&[seed]);
    let (mut a, mut j) = ([0u32; N], 0);
    while j < N {
        let mut b = [0u8; 3];
        xof.read(&mut b);
        let c = u32::from(b[0]) + 256 * u32::from(b[1]) + 65536 * u32::from(b[2] % 128);
        if c < q {
            a[j] = c;
            j += 1;
        }
    }
    a
}

/// FIPS 203 Alg. 8, bit by bit.
fn cbd_ref(eta: usize, bytes: &[u8]) -> [u16; N] {
    assert_eq!(bytes.len(), 64 * eta);
    let bit = |i: usize| i32::from((bytes[i / 8] >> (i % 8)) & 1);
    core::array::from_fn(|i| {
        let x: i32 = (0..eta).map(|k| bit(2 * i * eta + k)).sum();
        let y: i32 = (0..eta).map(|k| bit(2 * i * eta + eta + k)).sum();
        (x - y).rem_euclid(i32::from(Q)) as u16
    })
}

fn noise_ref(sigma: &[u8; 32], eta: Eta, nonce: u8) -> [u16; N] {
    let e = usize::from(eta.value());
    cbd_ref(e, &shake256_ref(&[sigma, &[nonce]], 64 * e))
}

fn matrix_seed(rho: &[u8; 32], row: usize, col: usize) -> [u8; SAMPLE_NTT_SEED_BYTES] {
    let mut seed = [0u8; SAMPLE_NTT_SEED_BYTES];
    seed[..32].copy_from_slice(rho);
    seed[32] = col as u8;
    seed[33] = row as u8;
    seed
}

/// Every coefficient in `{0..=eta} ∪ {q-eta..q}`.
fn in_cbd_range(eta: Eta, c: &[u16; N]) -> bool {
    let e = u16::from(eta.value());
    c.iter().all(|&x| x <= e || (Q - e..Q).contains(&x))
}

/// The first counter seed that needs more than the initial SHAKE128 blocks.
fn long_seed() -> [u8; SAMPLE_NTT_SEED_BYTES] {
    (0u32..100_000)
        .map(|n| {
            let mut seed = [0u8; SAMPLE_NTT_SEED_BYTES];
            seed[..4].copy_from_slice(&n.to_le_bytes());
            seed
        })
        .find(|s| sample_ntt_ref(s).1 > SAMPLE_NTT_INITIAL_BLOCKS)
        .expect("about one seed in 100 needs a fourth block: one in 100,000 does")
}

fn boundary_seeds() -> Vec<[u8; SAMPLE_NTT_SEED_BYTES]> {
    vec![
        [0; SAMPLE_NTT_SEED_BYTES],
        [0xff; SAMPLE_NTT_SEED_BYTES],
        core::array::from_fn(|i| i as u8),
        long_seed(),
    ]
}

/// Message lengths around the rates (72, 136, 168) and ML-KEM's sizes.
const LENGTHS: [usize; 16] = [
    0, 1, 7, 8, 33, 71, 72, 135, 136, 137, 167, 168, 169, 272, 1184, 3001,
];

fn message(len: usize, salt: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(131) ^ salt)
        .collect()
}

// ---- SampleNTT and the ML-KEM matrix ------------------------------------------------

fn check_sample_ntt<B: SamplingBackend>(b: B, seed: &[u8; SAMPLE_NTT_SEED_BYTES]) {
    let p = sample_ntt(b, seed);
    assert!(p.coeffs().iter().all(|&c| c < Q));
    assert_eq!(p, sample_ntt(Portable, seed), "{b:?}");
    assert_eq!(p.coeffs(), &sample_ntt_ref(seed).0);
}

#[test]
fn sample_ntt_boundary_seeds() {
    for seed in boundary_seeds() {
        on_every_backend!(|b| check_sample_ntt(b, &seed));
    }
}

fn check_sample_matrix<B: SamplingBackend, const K: usize>(b: B, rho: &[u8; 32]) {
    let a: Matrix<K> = sample_matrix::<K>(b, rho);
    assert_eq!(a, sample_matrix::<K>(Portable, rho), "{b:?} K = {K}");
    for i in 0..K {
        for j in 0..K {
            assert_eq!(a.rows[i][j], sample_ntt(Portable, &matrix_seed(rho, i, j)));
        }
    }
}

fn check_all_ranks<B: SamplingBackend>(b: B, rho: &[u8; 32]) {
    check_sample_matrix::<B, 0>(b, rho);
    check_sample_matrix::<B, 1>(b, rho);
    check_sample_matrix::<B, 2>(b, rho);
    check_sample_matrix::<B, 3>(b, rho);
    check_sample_matrix::<B, 4>(b, rho);
}

#[test]
fn sample_matrix_every_rank() {
    for rho in [[0u8; 32], [0xff; 32]] {
        on_every_backend!(|b| check_all_ranks(b, &rho));
    }
}

/// `sample_matrix_with_digests` with the given messages hashed alongside (alternately H and
/// J, J's message split in two), against `sample_matrix` and the `sha3` crate.
fn check_with_digests<B: SamplingBackend, const K: usize>(b: B, rho: &[u8; 32], msgs: &[Vec<u8>]) {
    let mut outs = vec![[0u8; 32]; msgs.len()];
    let digests: Vec<Digest32<'_>> = msgs
        .iter()
        .zip(outs.iter_mut())
        .enumerate()
        .map(|(n, (m, out))| {
            let d = if n % 2 == 0 {
                Digest32::sha3_256(m, out)
            } else {
                let (x, y) = m.split_at(m.len() / 3);
                Digest32::shake256([x, y], out)
            };
            assert!(!format!("{d:?}").is_empty());
            assert_eq!(
                d.kind(),
                if n % 2 == 0 {
                    DigestKind::Sha3_256
                } else {
                    DigestKind::Shake256
                }
            );
            d
        })
        .collect();
    let a = sample_matrix_with_digests::<K>(b, rho, digests);
    assert_eq!(a, sample_matrix::<K>(Portable, rho));
    for (n, (m, out)) in msgs.iter().zip(&outs).enumerate() {
        let want: Vec<u8> = if n % 2 == 0 {
            sha3_256_ref(&[m]).to_vec()
        } else {
            shake256_ref(&[m], 32)
        };
        assert_eq!(out.to_vec(), want, "{b:?} digest {n} of {} bytes", m.len());
    }
}

#[test]
fn sample_matrix_with_digests_every_length() {
    let rho = [0x5a; 32];
    for &len in &LENGTHS {
        let msgs = vec![message(len, 1), message(len + 1, 2), message(len / 2, 3)];
        on_every_backend!(|b| {
            check_with_digests::<_, 2>(b, &rho, &msgs[..1]);
            check_with_digests::<_, 3>(b, &rho, &msgs[..2]);
            check_with_digests::<_, 4>(b, &rho, &msgs);
            check_with_digests::<_, 0>(b, &rho, &msgs);
        });
    }
    on_every_backend!(|b| check_with_digests::<_, 3>(b, &rho, &[]));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn sample_ntt_and_matrix_random(seed in any::<[u8; SAMPLE_NTT_SEED_BYTES]>(), rho in any::<[u8; 32]>()) {
        on_every_backend!(|b| {
            check_sample_ntt(b, &seed);
            check_all_ranks(b, &rho);
        });
    }
}

// ---- ML-DSA's matrix ----------------------------------------------------------------

fn check_rej_ntt<B: SamplingBackend>(b: B, seed: &[u8; SAMPLE_NTT_SEED_BYTES]) {
    let p = rej_ntt_poly(b, seed);
    assert!(p.coeffs().iter().all(|&c| c < lattice_field::gf8380417::Q));
    assert_eq!(p, rej_ntt_poly(Portable, seed));
    assert_eq!(p.coeffs(), &rej_ntt_ref(seed));
}

fn check_expand_a<B: SamplingBackend, const K: usize, const L: usize>(b: B, rho: &[u8; 32]) {
    let a: mldsa::Matrix<K, L> = expand_a::<K, L>(b, rho);
    assert_eq!(a, expand_a::<K, L>(Portable, rho), "{b:?} {K} x {L}");
    for r in 0..K {
        for s in 0..L {
            assert_eq!(
                a.rows[r][s],
                rej_ntt_poly(Portable, &matrix_seed(rho, r, s))
            );
        }
    }
}

#[test]
fn rej_ntt_poly_and_expand_a_boundaries() {
    for seed in boundary_seeds() {
        on_every_backend!(|b| check_rej_ntt(b, &seed));
    }
    for rho in [[0u8; 32], [0xff; 32]] {
        on_every_backend!(|b| {
            check_expand_a::<_, 0, 0>(b, &rho);
            check_expand_a::<_, 0, 3>(b, &rho);
            check_expand_a::<_, 1, 1>(b, &rho);
            check_expand_a::<_, 2, 3>(b, &rho);
            check_expand_a::<_, 8, 7>(b, &rho);
        });
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn rej_ntt_poly_and_expand_a_random(seed in any::<[u8; SAMPLE_NTT_SEED_BYTES]>(), rho in any::<[u8; 32]>()) {
        on_every_backend!(|b| {
            check_rej_ntt(b, &seed);
            check_expand_a::<_, 4, 4>(b, &rho);
        });
    }
}

// ---- PRF, CBD and noise -------------------------------------------------------------

fn check_prf<B: SamplingBackend>(b: B, s: &[u8; 32], nonce: u8, len: usize) {
    let mut out = vec![0xa5u8; len];
    prf(b, s, nonce, &mut out);
    assert_eq!(
        out,
        shake256_ref(&[s, &[nonce]], len),
        "{b:?} PRF of {len} bytes"
    );
}

#[test]
fn prf_every_length_up_to_three_blocks() {
    let s = [0x17; 32];
    on_every_backend!(|b| {
        for len in (0..=3 * SHAKE256_RATE + 1).chain([1000, 4099]) {
            check_prf(b, &s, (len % 256) as u8, len);
        }
    });
}

#[test]
fn cbd_boundaries_and_lengths() {
    assert_eq!(Eta::Two.value(), 2);
    assert_eq!(Eta::Three.value(), 3);
    assert_eq!(Eta::Two.prf_output_len(), CBD2_INPUT_BYTES);
    assert_eq!(Eta::Three.prf_output_len(), CBD3_INPUT_BYTES);
    for fill in [0x00, 0xff, 0x55, 0xaa, 0x03, 0x0c, 0x0f, 0xf0, 0xc7, 0x38] {
        let b2 = [fill; CBD2_INPUT_BYTES];
        let p = sample_poly_cbd2(&b2);
        assert_eq!(p.coeffs(), &cbd_ref(2, &b2));
        assert!(in_cbd_range(Eta::Two, p.coeffs()));
        let b3 = [fill; CBD3_INPUT_BYTES];
        let p = sample_poly_cbd3(&b3);
        assert_eq!(p.coeffs(), &cbd_ref(3, &b3));
        assert!(in_cbd_range(Eta::Three, p.coeffs()));
    }
    // The extremes +eta and -eta everywhere.
    let plus3: [u8; CBD3_INPUT_BYTES] = core::array::from_fn(|i| [0xc7, 0x71, 0x1c][i % 3]);
    assert_eq!(sample_poly_cbd3(&plus3).coeffs(), &[3; N]);
    assert_eq!(sample_poly_cbd3(&plus3.map(|x| !x)).coeffs(), &[Q - 3; N]);
    assert_eq!(
        sample_poly_cbd2(&[0x33; CBD2_INPUT_BYTES]).coeffs(),
        &[2; N]
    );
    assert_eq!(
        sample_poly_cbd2(&[0xcc; CBD2_INPUT_BYTES]).coeffs(),
        &[Q - 2; N]
    );
    // Every slice length up to twice the longest input: `Some` exactly at 64 * eta.
    let bytes = message(2 * CBD3_INPUT_BYTES + 1, 9);
    for len in 0..=bytes.len() {
        for eta in [Eta::Two, Eta::Three] {
            let got = sample_poly_cbd(eta, &bytes[..len]);
            assert_eq!(
                got.is_some(),
                len == eta.prf_output_len(),
                "{eta:?}, {len} bytes"
            );
            if let Some(p) = got {
                assert_eq!(
                    p.coeffs(),
                    &cbd_ref(usize::from(eta.value()), &bytes[..len])
                );
            }
        }
    }
}

fn check_noise<B: SamplingBackend>(b: B, sigma: &[u8; 32], eta: Eta, nonce: u8) {
    let p = sample_noise_poly(b, sigma, eta, nonce);
    assert!(in_cbd_range(eta, p.coeffs()));
    assert_eq!(p, sample_noise_poly(Portable, sigma, eta, nonce), "{b:?}");
    assert_eq!(p.coeffs(), &noise_ref(sigma, eta, nonce));
}

fn check_noise_vector<B: SamplingBackend, const K: usize>(
    b: B,
    sigma: &[u8; 32],
    eta: Eta,
    first: u8,
) {
    let v: PolyVector<K> = sample_noise_vector::<K>(b, sigma, eta, first);
    assert_eq!(v, sample_noise_vector::<K>(Portable, sigma, eta, first));
    for (i, p) in v.0.iter().enumerate() {
        let nonce = first.wrapping_add(i as u8);
        assert_eq!(
            p.coeffs(),
            &noise_ref(sigma, eta, nonce),
            "{b:?} K = {K} element {i}"
        );
    }
}

/// `sample_noise_polys` with the given requests, against one `sample_noise_poly` each.
fn check_noise_polys<B: SamplingBackend>(b: B, sigma: &[u8; 32], requests: &[(Eta, u8)]) {
    let mut out = vec![Poly::zero(); requests.len()];
    sample_noise_polys(
        b,
        sigma,
        requests
            .iter()
            .zip(out.iter_mut())
            .map(|(&(e, n), p)| (e, n, p)),
    );
    for (&(eta, nonce), p) in requests.iter().zip(&out) {
        assert_eq!(
            p.coeffs(),
            &noise_ref(sigma, eta, nonce),
            "{b:?} {eta:?} {nonce}"
        );
    }
}

#[test]
fn noise_boundaries() {
    for sigma in [[0u8; 32], [0xff; 32]] {
        on_every_backend!(|b| {
            for eta in [Eta::Two, Eta::Three] {
                for nonce in [0, 1, 127, 128, 254, 255] {
                    check_noise(b, &sigma, eta, nonce);
                }
                for first in [0, 253, 255] {
                    check_noise_vector::<_, 0>(b, &sigma, eta, first);
                    check_noise_vector::<_, 1>(b, &sigma, eta, first);
                    check_noise_vector::<_, 4>(b, &sigma, eta, first);
                    check_noise_vector::<_, 9>(b, &sigma, eta, first);
                }
            }
            check_noise_polys(b, &sigma, &[]);
            // More requests than a batch holds (32), both etas, repeated and wrapping nonces.
            let many: Vec<(Eta, u8)> = (0..40u8)
                .map(|n| {
                    (
                        if n % 3 == 0 { Eta::Three } else { Eta::Two },
                        n.wrapping_mul(37),
                    )
                })
                .collect();
            check_noise_polys(b, &sigma, &many);
        });
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn prf_cbd_noise_random(
        s in any::<[u8; 32]>(),
        nonce in any::<u8>(),
        len in 0usize..700,
        b2 in any::<[u8; CBD2_INPUT_BYTES]>(),
        b3 in proptest::collection::vec(any::<u8>(), CBD3_INPUT_BYTES),
        requests in proptest::collection::vec(
            (prop_oneof![Just(Eta::Two), Just(Eta::Three)], any::<u8>()), 0..12),
    ) {
        let p = sample_poly_cbd2(&b2);
        prop_assert_eq!(p.coeffs(), &cbd_ref(2, &b2));
        prop_assert_eq!(sample_poly_cbd(Eta::Two, &b2), Some(p));
        let b3: [u8; CBD3_INPUT_BYTES] = b3.try_into().unwrap();
        let p = sample_poly_cbd3(&b3);
        prop_assert_eq!(p.coeffs(), &cbd_ref(3, &b3));
        prop_assert_eq!(sample_poly_cbd(Eta::Three, &b3), Some(p));
        on_every_backend!(|b| {
            check_prf(b, &s, nonce, len);
            check_noise(b, &s, Eta::Two, nonce);
            check_noise(b, &s, Eta::Three, nonce);
            check_noise_vector::<_, 3>(b, &s, Eta::Two, nonce);
            check_noise_polys(b, &s, &requests);
        });
    }
}

// ---- Batch --------------------------------------------------------------------------

/// Collects SHAKE output a block at a time until it has `want` bytes.
struct Collect {
    rate: usize,
    want: usize,
    got: Vec<u8>,
}

impl XofSink for Collect {
    fn take_block(&mut self, block: &[u8]) -> bool {
        assert_eq!(block.len(), self.rate, "every block is rate-sized");
        self.got.extend_from_slice(block);
        self.got.len() >= self.want
    }
}

/// The outputs of one batch of every kind of job, for comparison across backends.
#[derive(Debug, PartialEq, Eq)]
struct Outputs {
    kem_rows: Vec<NttPoly>,
    dsa_rows: Vec<mldsa::NttPoly>,
    noise: Vec<Poly>,
    digests: Vec<[u8; 32]>,
    sponge: [u8; 32],
    sinks: Vec<Vec<u8>>,
}

/// A marker no sampler writes (a constant polynomial of ones is not uniform output).
fn marker() -> NttPoly {
    NttPoly::from_fn(|_| 1)
}

/// One batch with every kind of job: ML-KEM matrix rows `first..first + rows` of a 3 x 3
/// matrix (rows past the matrix left alone), ML-DSA rows likewise of a 2 x 3 one, noise,
/// hashes, a sponge absorbing `prefix` then `data` and more than `MAX_JOBS` jobs in all
/// when `many`.
#[allow(clippy::too_many_lines)] // one batch of every job kind, then every reference
fn run_batch<B: SamplingBackend>(
    b: B,
    (first, rows): (usize, usize),
    prefix: &[u8],
    data: &[u8],
    many: bool,
) -> Outputs {
    let rho = [0x33u8; 32];
    let sigma = [0x44u8; 32];
    let mut kem = vec![core::array::from_fn::<_, 3, _>(|_| marker()); rows];
    let dsa_marker = mldsa::NttPoly::from_fn(|_| 1);
    let mut dsa = vec![core::array::from_fn::<_, 3, _>(|_| dsa_marker.clone()); rows];
    let extra = if many { 30 } else { 2 };
    let mut noise = vec![Poly::zero(); extra];
    let msgs: Vec<Vec<u8>> = (0..extra).map(|n| message(n * 53, n as u8)).collect();
    let mut digests = vec![[0u8; 32]; extra];
    let mut sponge = Sponge::<SHA3_256_RATE>::new();
    sponge.absorb(b, prefix);
    let mut sinks: Vec<Collect> = [
        (Shake::Shake128, 0),
        (Shake::Shake256, 1),
        (Shake::Shake128, 700),
    ]
    .iter()
    .map(|&(shake, want)| Collect {
        rate: shake.rate(),
        want,
        got: Vec::new(),
    })
    .collect();
    let shakes = [Shake::Shake128, Shake::Shake256, Shake::Shake128];
    let sink_msg = message(200, 7);
    {
        let mut batch = Batch::new(b);
        for (n, (m, out)) in msgs.iter().zip(digests.iter_mut()).enumerate() {
            batch.digest(if n % 2 == 0 {
                Digest32::sha3_256(m, out)
            } else {
                Digest32::shake256([m, &[]], out)
            });
        }
        batch.absorb(&mut sponge, data);
        batch.matrix_rows::<3>(&rho, first, &mut kem);
        batch.mldsa_matrix_rows::<2, 3>(&rho, first, &mut dsa);
        for (n, p) in noise.iter_mut().enumerate() {
            let eta = if n % 2 == 0 { Eta::Two } else { Eta::Three };
            batch.noise(&sigma, eta, n as u8, p);
        }
        for (sink, &shake) in sinks.iter_mut().zip(&shakes) {
            batch.xof(shake, [&sink_msg[..10], &sink_msg[10..]], sink);
        }
        batch.run();
    }
    sponge.finalize(b, SHA3_DOMAIN);
    let mut h = [0u8; 32];
    sponge.squeeze(b, &mut h);
    // References: what each job had to produce.
    for (r, row) in kem.iter().enumerate() {
        for (j, p) in row.iter().enumerate() {
            let i = first.saturating_add(r);
            if i < 3 {
                assert_eq!(p, &sample_ntt(Portable, &matrix_seed(&rho, i, j)));
            } else {
                assert_eq!(p, &marker(), "row {i} is past the matrix: left alone");
            }
        }
    }
    for (r, row) in dsa.iter().enumerate() {
        for (s, p) in row.iter().enumerate() {
            let i = first.saturating_add(r);
            if i < 2 {
                assert_eq!(p, &rej_ntt_poly(Portable, &matrix_seed(&rho, i, s)));
            } else {
                assert_eq!(
                    p, &dsa_marker,
                    "ML-DSA row {i} is past the matrix: left alone"
                );
            }
        }
    }
    for (n, p) in noise.iter().enumerate() {
        let eta = if n % 2 == 0 { Eta::Two } else { Eta::Three };
        assert_eq!(p.coeffs(), &noise_ref(&sigma, eta, n as u8));
    }
    for (n, (m, d)) in msgs.iter().zip(&digests).enumerate() {
        let want = if n % 2 == 0 {
            sha3_256_ref(&[m]).to_vec()
        } else {
            shake256_ref(&[m], 32)
        };
        assert_eq!(d.to_vec(), want);
    }
    assert_eq!(h, sha3_256_ref(&[prefix, data]), "sponge through the batch");
    for (sink, &shake) in sinks.iter().zip(&shakes) {
        assert!(sink.got.len() >= sink.want.max(1) && sink.got.len() % shake.rate() == 0);
        let want = match shake {
            Shake::Shake128 => shake128_ref(&[&sink_msg], sink.got.len()),
            Shake::Shake256 => shake256_ref(&[&sink_msg], sink.got.len()),
        };
        assert_eq!(sink.got, want);
    }
    Outputs {
        kem_rows: kem.into_iter().flatten().collect(),
        dsa_rows: dsa.into_iter().flatten().collect(),
        noise,
        digests,
        sponge: h,
        sinks: sinks.into_iter().map(|s| s.got).collect(),
    }
}

#[test]
fn batch_every_job_kind_and_row_range() {
    assert_eq!(Shake::Shake128.rate(), SHAKE128_RATE);
    assert_eq!(Shake::Shake256.rate(), SHAKE256_RATE);
    let ranges = [
        (0, 3),
        (0, 0),
        (1, 2),
        (2, 1),
        (2, 2),
        (3, 1),
        (0, 5),
        (usize::MAX, 2),
        (usize::MAX - 1, 3),
    ];
    for (n, &range) in ranges.iter().enumerate() {
        let prefix = message(LENGTHS[n % LENGTHS.len()], 1);
        let data = message(LENGTHS[(3 * n + 5) % LENGTHS.len()], 2);
        let many = n % 3 == 0;
        let want = run_batch(Portable, range, &prefix, &data, many);
        on_every_backend!(|b| assert_eq!(run_batch(b, range, &prefix, &data, many), want));
    }
}

/// `Batch::absorb` into a sponge in any state (fresh, mid-block, squeezing mid-block, at a
/// block end after `squeeze_block`), beside other jobs: the sponge's later output is the same
/// on every backend as on the portable one.
fn absorb_any_state<B: SamplingBackend>(b: B, state: usize, data: &[u8]) -> Vec<u8> {
    let mut sponge = Sponge::<SHA3_256_RATE>::new();
    match state {
        0 => {}
        1 => sponge.absorb(b, &[7; 50]),
        2 => {
            sponge.finalize(b, SHAKE_DOMAIN);
            sponge.squeeze(b, &mut [0; 5]);
        }
        _ => {
            sponge.finalize(b, SHAKE_DOMAIN);
            sponge.squeeze_block(b, &mut [0; SHA3_256_RATE]);
        }
    }
    let mut rows = [core::array::from_fn::<NttPoly, 2, _>(|_| NttPoly::zero())];
    let mut digests = [[0u8; 32]; 3];
    let mut batch = Batch::new(b);
    batch.absorb(&mut sponge, data);
    batch.matrix_rows::<2>(&[1; 32], 1, &mut rows);
    for (n, d) in digests.iter_mut().enumerate() {
        batch.digest(Digest32::sha3_256(&data[..(n * 100).min(data.len())], d));
    }
    batch.run();
    sponge.finalize(b, SHA3_DOMAIN);
    let mut out = vec![0u8; 200];
    sponge.squeeze(b, &mut out);
    // The other jobs' outputs too.
    out.extend(digests.as_flattened());
    out.extend(
        rows[0]
            .iter()
            .flat_map(|p| p.coeffs().iter().flat_map(|c| c.to_le_bytes())),
    );
    out
}

#[test]
fn batch_absorb_into_a_sponge_in_any_state() {
    for &len in &LENGTHS {
        let data = message(len, 3);
        for state in 0..4 {
            let want = absorb_any_state(Portable, state, &data);
            on_every_backend!(|b| assert_eq!(
                absorb_any_state(b, state, &data),
                want,
                "{state} {len}"
            ));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn batch_random(
        first in 0usize..5,
        rows in 0usize..5,
        prefix in proptest::collection::vec(any::<u8>(), 0..400),
        data in proptest::collection::vec(any::<u8>(), 0..700),
        many in any::<bool>(),
    ) {
        let want = run_batch(Portable, (first, rows), &prefix, &data, many);
        on_every_backend!(|b| assert_eq!(run_batch(b, (first, rows), &prefix, &data, many), want));
    }
}

// ---- Keccak -------------------------------------------------------------------------

fn check_f1600<B: SamplingBackend>(b: B, state: &[u64; 25]) {
    let (mut x, mut y, mut z) = (*state, *state, *state);
    f1600(b, &mut x);
    b.f1600(&mut y);
    f1600_portable(&mut z);
    assert_eq!(x, z, "{b:?} keccak::f1600");
    assert_eq!(y, z, "{b:?} SamplingBackend::f1600");
}

#[test]
fn f1600_boundaries() {
    // Keccak-f[1600] of the zero state (the Keccak team's known answer, first lane).
    let mut zero = [0u64; 25];
    f1600_portable(&mut zero);
    assert_eq!(zero[0], 0xF125_8F79_40E1_DDE7);
    for state in [
        [0u64; 25],
        [u64::MAX; 25],
        core::array::from_fn(|i| 1u64 << (i * 2)),
    ] {
        on_every_backend!(|b| check_f1600(b, &state));
    }
}

/// A sponge of rate `RATE` driven by `ops` on `b`, the bytes it squeezes recorded.
/// `ops`: 0 absorb the next piece, 1 finalize, 2 squeeze `len` bytes, 3 squeeze a block;
/// any order, misuse included (squeezing before finalizing, absorbing after squeezing).
fn drive_sponge<B: SamplingBackend, const RATE: usize>(
    b: B,
    ops: &[(u8, usize)],
    data: &[u8],
) -> Vec<u8> {
    let mut sponge = Sponge::<RATE>::default();
    let mut out = Vec::new();
    let mut at = 0;
    for &(op, len) in ops {
        match op % 4 {
            0 => {
                let end = (at + len).min(data.len());
                sponge.absorb(b, &data[at..end]);
                at = end;
            }
            1 => sponge.finalize(
                b,
                if len % 2 == 0 {
                    SHA3_DOMAIN
                } else {
                    SHAKE_DOMAIN
                },
            ),
            2 => {
                let mut buf = vec![0u8; len];
                sponge.squeeze(b, &mut buf);
                out.extend(buf);
            }
            _ => {
                let mut block = [0u8; RATE];
                sponge.squeeze_block(b, &mut block);
                out.extend(block);
            }
        }
    }
    let mut s2 = sponge.clone();
    let mut tail = [0u8; 17];
    s2.squeeze(b, &mut tail);
    out.extend(tail);
    out
}

fn check_sponge_orders<B: SamplingBackend>(b: B, ops: &[(u8, usize)], data: &[u8]) {
    assert_eq!(
        drive_sponge::<_, 8>(b, ops, data),
        drive_sponge::<_, 8>(Portable, ops, data)
    );
    assert_eq!(
        drive_sponge::<_, 72>(b, ops, data),
        drive_sponge::<_, 72>(Portable, ops, data)
    );
    assert_eq!(
        drive_sponge::<_, 136>(b, ops, data),
        drive_sponge::<_, 136>(Portable, ops, data)
    );
    assert_eq!(
        drive_sponge::<_, 168>(b, ops, data),
        drive_sponge::<_, 168>(Portable, ops, data)
    );
    assert_eq!(
        drive_sponge::<_, 192>(b, ops, data),
        drive_sponge::<_, 192>(Portable, ops, data)
    );
}

/// The standard use (absorb in pieces, finalize, squeeze in pieces) against the `sha3`
/// crate at the three rates that have a standard hash.
fn check_sponge_standard<B: SamplingBackend>(b: B, data: &[u8], cuts: &[usize], outs: &[usize]) {
    fn run<B: SamplingBackend, const RATE: usize>(
        b: B,
        data: &[u8],
        cuts: &[usize],
        outs: &[usize],
        domain: u8,
    ) -> Vec<u8> {
        let mut s = Sponge::<RATE>::new();
        let mut at = 0;
        for &c in cuts {
            let end = (at + c).min(data.len());
            s.absorb(b, &data[at..end]);
            at = end;
        }
        s.absorb(b, &data[at..]);
        s.finalize(b, domain);
        let mut out = Vec::new();
        for &n in outs {
            let mut buf = vec![0u8; n];
            s.squeeze(b, &mut buf);
            out.extend(buf);
        }
        out
    }
    let total: usize = outs.iter().sum();
    assert_eq!(
        run::<_, 168>(b, data, cuts, outs, SHAKE_DOMAIN),
        shake128_ref(&[data], total)
    );
    assert_eq!(
        run::<_, 136>(b, data, cuts, outs, SHAKE_DOMAIN),
        shake256_ref(&[data], total)
    );
    let h = run::<_, 136>(b, data, cuts, &[32], SHA3_DOMAIN);
    assert_eq!(h, sha3_256_ref(&[data]));
    let g = run::<_, 72>(b, data, cuts, &[64], SHA3_DOMAIN);
    assert_eq!(g, sha3_512_ref(&[data]));
    // Whole blocks squeezed after finalizing.
    let mut s = Sponge::<168>::new();
    s.absorb(b, data);
    s.finalize(b, SHAKE_DOMAIN);
    let mut blocks = vec![0u8; 3 * 168];
    for block in blocks.chunks_exact_mut(168) {
        s.squeeze_block(b, block.try_into().unwrap());
    }
    assert_eq!(blocks, shake128_ref(&[data], 3 * 168));
}

#[test]
fn sponges_and_hashes_at_the_boundaries() {
    assert_eq!(
        (SHA3_256_RATE, SHA3_512_RATE, SHAKE256_RATE),
        (136, 72, 136)
    );
    for &len in &LENGTHS {
        let data = message(len, 5);
        let outs = [0, 1, 31, 32, 135, 136, 137, 168, 400];
        on_every_backend!(|b| {
            check_sponge_standard(b, &data, &[len / 3, 1, 0], &outs);
            check_sponge_standard(b, &data, &[], &[0]);
            let (x, y) = data.split_at(len / 2);
            for parts in [
                &[][..],
                &[&data[..]][..],
                &[&[][..], &data[..], &[][..]][..],
                &[x, y][..],
            ] {
                let flat: Vec<u8> = parts.concat();
                assert_eq!(sha3_256(b, parts), sha3_256_ref(&[&flat]));
                assert_eq!(sha3_512(b, parts).to_vec(), sha3_512_ref(&[&flat]));
                for out_len in [0, 1, 32, 136, 137, 500] {
                    let mut out = vec![0u8; out_len];
                    shake256(b, parts, &mut out);
                    assert_eq!(out, shake256_ref(&[&flat], out_len));
                }
            }
            // Every order of the sponge's calls, misuse included, as the portable one.
            let ops = [
                (2, 5),
                (0, len),
                (2, 9),
                (1, 0),
                (0, 3),
                (3, 0),
                (2, 200),
                (1, 1),
                (1, 0),
                (3, 0),
                (0, 0),
                (2, 0),
            ];
            check_sponge_orders(b, &ops, &data);
        });
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn keccak_random(
        state in any::<[u64; 25]>(),
        data in proptest::collection::vec(any::<u8>(), 0..600),
        cuts in proptest::collection::vec(0usize..300, 0..5),
        outs in proptest::collection::vec(0usize..300, 0..5),
        ops in proptest::collection::vec((any::<u8>(), 0usize..400), 0..12),
    ) {
        on_every_backend!(|b| {
            check_f1600(b, &state);
            check_sponge_standard(b, &data, &cuts, &outs);
            check_sponge_orders(b, &ops, &data);
        });
    }
}
