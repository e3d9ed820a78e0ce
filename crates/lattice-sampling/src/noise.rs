//! The PRF of FIPS 203 (SHAKE256) and noise generation: `SamplePolyCBD_eta(PRF_eta(sigma, N))`
//! as in FIPS 203 Alg. 13 l. 8-15 and FIPS 203 Alg. 14 l. 9-17.
//!
//! sigma and everything derived from it are secret: the PRF output goes through the
//! constant-time CBD and is zeroized before returning.

use lattice_poly_ntt::mlkem::{Poly, PolyVector};

use crate::backend::SamplingBackend;
use crate::batch::Batch;
use crate::cbd::Eta;

/// `PRF(s, b)`: fills `out` with the first `out.len()` bytes of `SHAKE256(s || b)`
/// (FIPS 203 §4.1, equation 4.3).
///
/// FIPS 203's `PRF_eta(s, b)` is this with `out.len() == 64 * eta`
/// ([`Eta::prf_output_len`]). The caller owns `out` and should zeroize it when done; the
/// SHAKE256 state is wiped when dropped.
pub fn prf(backend: impl crate::keccak::KeccakF1600, s: &[u8; 32], b: u8, out: &mut [u8]) {
    crate::keccak::shake256(backend, &[s, &[b]], out);
}

/// `SamplePolyCBD_eta(PRF_eta(sigma, nonce))`: one noise polynomial (FIPS 203 Alg. 8
/// over the PRF output, as in FIPS 203 Alg. 14 l. 17 for `e2`).
///
/// Constant time with respect to `sigma`; the PRF output is zeroized before returning.
#[must_use]
pub fn sample_noise_poly(
    backend: impl SamplingBackend,
    sigma: &[u8; 32],
    eta: Eta,
    nonce: u8,
) -> Poly {
    let mut poly = Poly::zero();
    let mut batch = Batch::new(backend);
    batch.noise(sigma, eta, nonce, &mut poly);
    batch.run();
    poly
}

/// A vector of `K` noise polynomials: element `i` is
/// `SamplePolyCBD_eta(PRF_eta(sigma, first_nonce + i))` (FIPS 203 Alg. 13 l. 8-15 for
/// `s` and `e`, FIPS 203 Alg. 14 l. 9-16 for `y` and `e1`).
///
/// The nonce wraps modulo 256 (ML-KEM never gets there: its largest nonce is `2k = 8`). All
/// `K` PRF streams are handed over as one batch, for a multi-way Keccak backend. Constant
/// time with respect to `sigma`; every PRF output is zeroized before returning.
#[must_use]
pub fn sample_noise_vector<const K: usize>(
    backend: impl SamplingBackend,
    sigma: &[u8; 32],
    eta: Eta,
    first_nonce: u8,
) -> PolyVector<K> {
    let mut v = PolyVector::<K>::zero();
    sample_noise_batch(backend, sigma, eta, first_nonce, &mut v.0);
    v
}

/// Noise for a batch of consecutive nonces: `out[n]` gets nonce `first_nonce + n` (mod 256).
fn sample_noise_batch(
    backend: impl SamplingBackend,
    sigma: &[u8; 32],
    eta: Eta,
    first_nonce: u8,
    out: &mut [Poly],
) {
    // The nonce wraps by design (documented on the public functions).
    sample_noise_polys(
        backend,
        sigma,
        out.iter_mut()
            .enumerate()
            .map(|(n, poly)| (eta, first_nonce.wrapping_add(n as u8), poly)),
    );
}

/// Many noise polynomials from one sigma in one batch: for every `(eta, nonce, out)` of
/// `requests`, `*out = SamplePolyCBD_eta(PRF_eta(sigma, nonce))`.
///
/// This is the general form of [`sample_noise_vector`] for multi-way hashing: the requests
/// may mix etas and nonces and point into different vectors, so that one call covers every
/// noise polynomial of an operation and a 4-way Keccak backend fills all four lanes, e.g.
/// `s` and `e` of key generation (2k polynomials) or `y`, `e1` and `e2` of encryption
/// (2k + 1):
///
/// ```
/// use lattice_poly_ntt::mlkem::{Poly, PolyVector};
/// use lattice_sampling::{Eta, sample_noise_poly, sample_noise_polys, sample_noise_vector};
///
/// // Any backend token: `Portable` everywhere, or one detected by `AnyBackend::best()`.
/// let b = lattice_poly_ntt::backend::Portable;
///
/// // ML-KEM-512 encryption (k = 2, eta1 = 3, eta2 = 2), FIPS 203 Alg. 14 l. 9-17.
/// let r = [0x24u8; 32];
/// let (mut y, mut e1, mut e2) = (PolyVector::<2>::zero(), PolyVector::<2>::zero(), Poly::zero());
/// let requests = (y.0.iter_mut().map(|p| (Eta::Three, p)))
///     .chain(e1.0.iter_mut().map(|p| (Eta::Two, p)))
///     .chain([(Eta::Two, &mut e2)])
///     .zip(0u8..)
///     .map(|((eta, out), nonce)| (eta, nonce, out));
/// sample_noise_polys(b, &r, requests);
///
/// assert_eq!(y, sample_noise_vector::<2>(b, &r, Eta::Three, 0));
/// assert_eq!(e1, sample_noise_vector::<2>(b, &r, Eta::Two, 2));
/// assert_eq!(e2, sample_noise_poly(b, &r, Eta::Two, 4));
/// ```
///
/// Constant time with respect to `sigma` (the requests, i.e. etas and nonces, are public
/// and may steer the batching); every PRF output is zeroized before returning.
pub fn sample_noise_polys<'a>(
    backend: impl SamplingBackend,
    sigma: &[u8; 32],
    requests: impl IntoIterator<Item = (Eta, u8, &'a mut Poly)>,
) {
    let mut batch = Batch::new(backend);
    for (eta, nonce, poly) in requests {
        batch.noise(sigma, eta, nonce, poly);
    }
    batch.run();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::sample_noise_polys_portable;
    use lattice_poly_ntt::backend::Portable;
    const P: Portable = Portable;
    use crate::cbd::{CBD2_INPUT_BYTES, CBD3_INPUT_BYTES};
    use crate::{sample_poly_cbd2, sample_poly_cbd3};
    use proptest::prelude::*;

    /// Every backend's batches (the lane scheduler) against the scalar reference, for every
    /// batch size up to 9 with both etas mixed.
    #[test]
    fn batches_match_scalar_reference() {
        for any in lattice_poly_ntt::backend::AnyBackend::available() {
            let kind = any.kind();
            lattice_poly_ntt::dispatch!(any, |b| {
                for len in 0..=9usize {
                    let sigma = [len as u8 ^ 0x3c; 32];
                    let eta = |n: usize| if n % 3 == 1 { Eta::Three } else { Eta::Two };
                    let mut want = std::vec![Poly::zero(); len];
                    sample_noise_polys_portable(
                        &sigma,
                        want.iter_mut()
                            .enumerate()
                            .map(|(n, p)| (eta(n), n as u8 + 7, p)),
                    );
                    let mut got = std::vec![Poly::zero(); len];
                    sample_noise_polys(
                        b,
                        &sigma,
                        got.iter_mut()
                            .enumerate()
                            .map(|(n, p)| (eta(n), n as u8 + 7, p)),
                    );
                    assert_eq!(got, want, "{kind}, {len} polynomials");
                }
            });
        }
    }
    use sha3::Shake256;
    use sha3::digest::{ExtendableOutput, Update, XofReader};

    /// SHAKE256 of the concatenation, absorbed in one piece.
    fn shake256(input: &[u8], out: &mut [u8]) {
        let mut xof = Shake256::default();
        xof.update(input);
        xof.finalize_xof().read(out);
    }

    fn expected_noise(sigma: &[u8; 32], eta: Eta, nonce: u8) -> Poly {
        let mut input = [0u8; 33];
        input[..32].copy_from_slice(sigma);
        input[32] = nonce;
        match eta {
            Eta::Two => {
                let mut bytes = [0u8; CBD2_INPUT_BYTES];
                shake256(&input, &mut bytes);
                sample_poly_cbd2(&bytes)
            }
            Eta::Three => {
                let mut bytes = [0u8; CBD3_INPUT_BYTES];
                shake256(&input, &mut bytes);
                sample_poly_cbd3(&bytes)
            }
        }
    }

    fn check_vector<const K: usize>(sigma: &[u8; 32], eta: Eta, first: u8) {
        let v = sample_noise_vector::<K>(P, sigma, eta, first);
        for (i, p) in v.0.iter().enumerate() {
            let nonce = first.wrapping_add(i as u8);
            assert_eq!(
                p,
                &expected_noise(sigma, eta, nonce),
                "K = {K}, element {i}"
            );
            assert_eq!(p, &sample_noise_poly(P, sigma, eta, nonce));
        }
    }

    proptest! {
        #[test]
        fn prf_is_shake256_prefix(s in any::<[u8; 32]>(), b in any::<u8>(), len in 0usize..600) {
            let mut input = [0u8; 33];
            input[..32].copy_from_slice(&s);
            input[32] = b;
            let mut expected = [0u8; 600];
            shake256(&input, &mut expected);
            let mut out = [0u8; 600];
            prf(P, &s, b, &mut out[..len]);
            prop_assert_eq!(&out[..len], &expected[..len]);
            prop_assert!(out[len..].iter().all(|&x| x == 0));
        }

        #[test]
        fn noise_is_cbd_of_prf(sigma in any::<[u8; 32]>(), nonce in any::<u8>()) {
            for eta in [Eta::Two, Eta::Three] {
                prop_assert_eq!(
                    sample_noise_poly(P, &sigma, eta, nonce),
                    expected_noise(&sigma, eta, nonce)
                );
            }
        }

        #[test]
        fn noise_vector_nonces(sigma in any::<[u8; 32]>(), first in 0u8..16) {
            for eta in [Eta::Two, Eta::Three] {
                check_vector::<2>(&sigma, eta, first);
                check_vector::<3>(&sigma, eta, first);
                check_vector::<4>(&sigma, eta, first);
            }
        }
    }

    #[test]
    fn noise_with_digest_is_noise_and_shake256() {
        // ML-KEM decapsulation's shape: 2k + 1 noise polynomials and J(z || c), for each k;
        // the ciphertext lengths put the hash's padding at different block offsets.
        for (k, ct_len, eta1) in [
            (2, 768, Eta::Three),
            (3, 1088, Eta::Two),
            (4, 1568, Eta::Two),
        ] {
            let sigma = [k as u8; 32];
            let z = [0x5au8; 32];
            let ct: std::vec::Vec<u8> = (0..ct_len).map(|i| (i * 13) as u8).collect();
            let etas: std::vec::Vec<Eta> = (0..=2 * k)
                .map(|n| if n < k { eta1 } else { Eta::Two })
                .collect();
            let mut polys = std::vec![Poly::zero(); etas.len()];
            let mut j = [0u8; 32];
            // As decapsulation batches them: the hash first, then the noise.
            let mut batch = crate::Batch::new(P);
            batch.digest(crate::Digest32::shake256([&z, &ct], &mut j));
            for ((&eta, p), n) in etas.iter().zip(&mut polys).zip(0u8..) {
                batch.noise(&sigma, eta, n, p);
            }
            batch.run();
            for ((&eta, poly), n) in etas.iter().zip(&polys).zip(0u8..) {
                assert_eq!(*poly, expected_noise(&sigma, eta, n), "k = {k}, nonce {n}");
            }
            let mut message = z.to_vec();
            message.extend_from_slice(&ct);
            let mut want = [0u8; 32];
            shake256(&message, &mut want);
            assert_eq!(j, want, "k = {k}");
        }
    }

    #[test]
    fn prf_lengths_of_both_etas() {
        let s = [0x5au8; 32];
        for eta in [Eta::Two, Eta::Three] {
            let mut out = [0u8; CBD3_INPUT_BYTES];
            let out = &mut out[..eta.prf_output_len()];
            prf(P, &s, 9, out);
            let mut expected = [0u8; CBD3_INPUT_BYTES];
            let mut input = [0x5au8; 33];
            input[32] = 9;
            shake256(&input, &mut expected);
            assert_eq!(out, &expected[..eta.prf_output_len()]);
        }
    }

    #[test]
    fn nonce_wraps_without_panicking() {
        check_vector::<2>(&[1u8; 32], Eta::Two, 255);
        check_vector::<4>(&[1u8; 32], Eta::Three, 254);
        let v = sample_noise_vector::<2>(P, &[1u8; 32], Eta::Two, 255);
        assert_eq!(v.0[1], sample_noise_poly(P, &[1u8; 32], Eta::Two, 0));
    }

    #[test]
    fn distinct_nonces_give_distinct_noise() {
        let v = sample_noise_vector::<4>(P, &[3u8; 32], Eta::Three, 0);
        for i in 0..4 {
            for j in i + 1..4 {
                assert_ne!(v.0[i], v.0[j]);
            }
        }
    }
}
