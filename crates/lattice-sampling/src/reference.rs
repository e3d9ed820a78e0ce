//! The references of the tests, on the scalar sponge and the portable kernels, one stream
//! at a time: FIPS 203 Alg. 7's loop (over any XOF stream, so that the tests can feed
//! it adversarial ones) and `SamplePolyCBD_eta(PRF_eta(sigma, N))`. The lane scheduler and
//! every backend are tested against them.

use lattice_poly_ntt::mlkem::{N, NttPoly, Poly};
use zeroize::Zeroize;

use crate::cbd::{CBD2_INPUT_BYTES, CBD3_INPUT_BYTES, Eta, cbd2_into, cbd3_into};
use crate::job::SAMPLE_NTT_SEED_BYTES;
use crate::keccak::SHAKE128_RATE;
use crate::keccak::{KeccakF1600, Sponge};
use crate::kernels::parse_candidates;

/// Bytes the reference loop squeezes up front (`SAMPLE_NTT_INITIAL_BLOCKS` blocks).
pub(crate) const INITIAL_BYTES: usize = 3 * SHAKE128_RATE;

/// A stream of XOF output: SHAKE128 in FIPS 203 Alg. 7; the tests substitute adversarial streams.
pub(crate) trait XofStream {
    /// Fills `out` with the next bytes of the stream.
    fn read(&mut self, out: &mut [u8]);
}

/// A SHAKE128 sponge squeezed on a backend's Keccak.
struct SpongeStream<B> {
    backend: B,
    sponge: Sponge<SHAKE128_RATE>,
}

impl<B: KeccakF1600> XofStream for SpongeStream<B> {
    fn read(&mut self, out: &mut [u8]) {
        self.sponge.squeeze(self.backend, out);
    }
}

/// The portable `SampleNTT` into `coeffs`: scalar SHAKE128 and the scalar parser.
pub(crate) fn sample_ntt_into(
    backend: impl KeccakF1600,
    seed: &[u8; SAMPLE_NTT_SEED_BYTES],
    coeffs: &mut [u16; N],
) {
    let mut xof = Sponge::<SHAKE128_RATE>::new();
    xof.absorb(backend, seed);
    xof.finalize(backend, crate::keccak::SHAKE_DOMAIN);
    sample_ntt_from_xof_into(
        &mut SpongeStream {
            backend,
            sponge: xof,
        },
        coeffs,
    );
}

/// The loop of FIPS 203 Alg. 7 over any XOF output stream (tests feed it adversarial streams).
pub(crate) fn sample_ntt_from_xof(reader: &mut impl XofStream) -> NttPoly {
    let mut poly = NttPoly::zero();
    // `parse_candidates` writes only values below q, so the canonical invariant holds.
    sample_ntt_from_xof_into(
        reader,
        poly.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
    );
    poly
}

/// The loop of FIPS 203 Alg. 7 over any XOF output stream, into `coeffs`.
fn sample_ntt_from_xof_into(reader: &mut impl XofStream, coeffs: &mut [u16; N]) {
    let mut initial = [0u8; INITIAL_BYTES];
    reader.read(&mut initial);
    let mut filled = parse_candidates(&initial, coeffs, 0);

    let mut block = [0u8; SHAKE128_RATE];
    while filled < N {
        reader.read(&mut block);
        filled = parse_candidates(&block, coeffs, filled);
    }
}

/// `out[n] = SampleNTT(seeds[n])`, one scalar stream at a time: the reference the AVX2 path
/// is tested against.
pub(crate) fn sample_ntt_batch_portable(
    seeds: &[[u8; SAMPLE_NTT_SEED_BYTES]],
    out: &mut [NttPoly],
) {
    assert_eq!(seeds.len(), out.len(), "one output per seed");
    for (seed, poly) in seeds.iter().zip(out) {
        sample_ntt_into(
            lattice_poly_ntt::backend::Portable,
            seed,
            poly.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
        );
    }
}

/// The portable [`sample_noise_polys`]: one scalar SHAKE256 stream at a time.
pub(crate) fn sample_noise_polys_portable<'a>(
    sigma: &[u8; 32],
    requests: impl IntoIterator<Item = (Eta, u8, &'a mut Poly)>,
) {
    for (eta, nonce, poly) in requests {
        noise_into(
            lattice_poly_ntt::backend::Portable,
            sigma,
            eta,
            nonce,
            poly.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
        );
    }
}

/// `SamplePolyCBD_eta(PRF_eta(sigma, nonce))` written into `coeffs` (only values in `[0, q)`)
/// on a scalar sponge: the reference of the tests.
fn noise_into(
    backend: impl crate::keccak::KeccakF1600,
    sigma: &[u8; 32],
    eta: Eta,
    nonce: u8,
    coeffs: &mut [u16; lattice_poly_ntt::mlkem::N],
) {
    // Branching on eta is fine: it is a public parameter.
    match eta {
        Eta::Two => {
            let mut bytes = [0u8; CBD2_INPUT_BYTES];
            crate::keccak::shake256(backend, &[sigma, &[nonce]], &mut bytes);
            cbd2_into(&bytes, coeffs);
            bytes.as_mut_slice().zeroize();
        }
        Eta::Three => {
            let mut bytes = [0u8; CBD3_INPUT_BYTES];
            crate::keccak::shake256(backend, &[sigma, &[nonce]], &mut bytes);
            cbd3_into(&bytes, coeffs);
            bytes.as_mut_slice().zeroize();
        }
    }
}

/// The first `count` seeds (`n` little-endian in the first 4 bytes, for n = 0, 1, ..) whose
/// SampleNTT needs a fourth SHAKE128 block (about 1 in 100): the batches' extra-block path.
pub(crate) fn seeds_needing_a_fourth_block(
    count: usize,
) -> std::vec::Vec<[u8; crate::job::SAMPLE_NTT_SEED_BYTES]> {
    use sha3::Shake128;
    use sha3::digest::{ExtendableOutput, Update, XofReader};
    let needs_fourth = |seed: &[u8; crate::job::SAMPLE_NTT_SEED_BYTES]| {
        let mut xof = Shake128::default();
        xof.update(seed);
        let mut bytes = [0u8; INITIAL_BYTES];
        XofReader::read(&mut xof.finalize_xof(), &mut bytes);
        let mut coeffs = [0u16; lattice_poly_ntt::mlkem::N];
        crate::kernels::parse_candidates(&bytes, &mut coeffs, 0) < lattice_poly_ntt::mlkem::N
    };
    let mut special = std::vec::Vec::new();
    for n in 0u32.. {
        let mut seed = [0u8; crate::job::SAMPLE_NTT_SEED_BYTES];
        seed[..4].copy_from_slice(&n.to_le_bytes());
        if needs_fourth(&seed) {
            special.push(seed);
            if special.len() == count {
                break;
            }
        }
    }
    special
}
