//! Sampling for ML-KEM (FIPS 203): the public matrix A-hat from SHAKE128 by rejection
//! sampling, and the secret noise from the SHAKE256 PRF by the centered binomial distribution.
//!
//! ```
//! use mlkem_field::Q;
//! use mlkem_sampling::{Eta, sample_matrix, sample_noise_vector, sample_ntt};
//!
//! // ML-KEM-768 key generation, lines 3-16 of FIPS 203 Algorithm 13.
//! let rho = [0x42u8; 32];
//! let sigma = [0x17u8; 32];
//! let a_hat = sample_matrix::<3>(&rho);
//! let s = sample_noise_vector::<3>(&sigma, Eta::Two, 0);
//! let e = sample_noise_vector::<3>(&sigma, Eta::Two, 3);
//!
//! // A-hat[i][j] = SampleNTT(rho || j || i): byte 32 is the column, byte 33 the row.
//! let mut seed = [0u8; 34];
//! seed[..32].copy_from_slice(&rho);
//! seed[32] = 2; // j
//! seed[33] = 1; // i
//! assert_eq!(a_hat.rows[1][2], sample_ntt(&seed));
//!
//! // CBD_2 noise lies in [-2, 2], stored mod q.
//! for p in s.0.iter().chain(&e.0) {
//!     assert!(p.coeffs().iter().all(|&c| c <= 2 || c >= Q - 2));
//! }
//! assert_ne!(s, e);
//! ```
//!
//! # What this crate owns
//! - `SampleNTT` (FIPS 203 Algorithm 7): [`sample_ntt`], rejection sampling of an NTT-domain
//!   polynomial from SHAKE128, squeezing as many blocks as the seed needs;
//! - matrix generation (Algorithm 13 lines 3-7, Algorithm 14 lines 4-8): [`sample_matrix`];
//! - the PRF of section 4.1, `PRF_eta(s, b) = SHAKE256(s || b)` truncated to `64 * eta`
//!   bytes: [`prf`];
//! - `SamplePolyCBD_eta` (Algorithm 8) for eta = 2 and 3: [`sample_poly_cbd2`],
//!   [`sample_poly_cbd3`], [`sample_poly_cbd`];
//! - noise generation for one operation in one call: [`sample_noise_vector`],
//!   [`sample_noise_poly`];
//! - the seam where a multi-way Keccak backend (4 or 8 SHAKE streams per permutation call)
//!   replaces the per-stream loops without changing any caller.
//!
//! It knows nothing of the KEM: parameter sets, byte encodings, K-PKE and ML-KEM belong to
//! the `mlkem` crate, which decides which nonces and which eta each step uses.
//!
//! # Multi-way hashing
//! The public entry points take everything one operation needs ([`sample_matrix`]: all `k^2`
//! entries; [`sample_noise_vector`]: all `k` polynomials) and hand the whole batch of
//! independent streams to one private function per kind of stream. In this portable version
//! those functions loop over the streams; a SIMD backend replaces their insides with 4- or
//! 8-way Keccak-f\[1600\] and reuses the per-block candidate parser of `SampleNTT` (itself a
//! small function, so that a SIMD parser can replace it too).
//!
//! # Constant time and secrets
//! `SampleNTT` branches and loops on its SHAKE128 output: that output depends only on the
//! public rho, so this is allowed. The PRF and CBD path handles the
//! secret sigma: CBD counts bits with shifts and masks and maps to `[0, q)` with a mask
//! (`mlkem_field::from_signed`), with no branch, loop bound or index depending on the bytes.
//! Every PRF output buffer is zeroized before returning, and `sha3` is built with its
//! `zeroize` feature so that the Keccak states wipe themselves on drop. Values moved by the
//! compiler (returned polynomials, register temporaries) are beyond what `zeroize` reaches;
//! the noise paths write straight into the caller's output to keep such copies to a minimum.
#![no_std]
#![forbid(unsafe_code)]

mod cbd;
mod noise;
mod sample_ntt;

pub use cbd::{
    CBD2_INPUT_BYTES, CBD3_INPUT_BYTES, Eta, sample_poly_cbd, sample_poly_cbd2, sample_poly_cbd3,
};
pub use noise::{prf, sample_noise_poly, sample_noise_vector};
pub use sample_ntt::{
    SAMPLE_NTT_INITIAL_BLOCKS, SAMPLE_NTT_SEED_BYTES, SHAKE128_RATE, sample_matrix, sample_ntt,
};
