//! Sampling for ML-KEM (FIPS 203): the public matrix A-hat from SHAKE128 by rejection
//! sampling, and the secret noise from the SHAKE256 PRF by the centered binomial distribution.
//!
//! ```
//! use lattice_field::gf3329::Q;
//! use lattice_sampling::{Eta, sample_matrix, sample_noise_vector, sample_ntt};
//! use lattice_poly_ntt::backend::AnyBackend;
//! use lattice_poly_ntt::dispatch;
//!
//! // The fastest backend this CPU has, chosen once; the same results on every backend.
//! dispatch!(AnyBackend::best(), |b| {
//! // ML-KEM-768 key generation, FIPS 203 Alg. 13 l. 3-16.
//! let rho = [0x42u8; 32];
//! let sigma = [0x17u8; 32];
//! let a_hat = sample_matrix::<3>(b, &rho);
//! let s = sample_noise_vector::<3>(b, &sigma, Eta::Two, 0);
//! let e = sample_noise_vector::<3>(b, &sigma, Eta::Two, 3);
//!
//! // A-hat[i][j] = SampleNTT(rho || j || i): byte 32 is the column, byte 33 the row.
//! let mut seed = [0u8; 34];
//! seed[..32].copy_from_slice(&rho);
//! seed[32] = 2; // j
//! seed[33] = 1; // i
//! assert_eq!(a_hat.rows[1][2], sample_ntt(b, &seed));
//!
//! // CBD_2 noise lies in [-2, 2], stored mod q.
//! for p in s.0.iter().chain(&e.0) {
//!     assert!(p.coeffs().iter().all(|&c| c <= 2 || c >= Q - 2));
//! }
//! assert_ne!(s, e);
//! });
//! ```
//!
//! # What this crate owns
//! - `SampleNTT` (FIPS 203 Alg. 7): [`sample_ntt()`], rejection sampling of an NTT-domain
//!   polynomial from SHAKE128, squeezing as many blocks as the seed needs;
//! - matrix generation (FIPS 203 Alg. 13 l. 3-7, FIPS 203 Alg. 14 l. 4-8): [`sample_matrix`];
//! - the PRF of FIPS 203 §4.1, `PRF_eta(s, b) = SHAKE256(s || b)` truncated to `64 * eta`
//!   bytes: [`prf`];
//! - `SamplePolyCBD_eta` (FIPS 203 Alg. 8) for eta = 2 and 3: [`sample_poly_cbd2`],
//!   [`sample_poly_cbd3`], [`sample_poly_cbd`];
//! - noise generation for one operation in one call: [`sample_noise_vector`],
//!   [`sample_noise_poly`], and [`sample_noise_polys`] for any mix of etas, nonces and
//!   output polynomials (all of key generation's `s, e` or encryption's `y, e1, e2` at once);
//! - [`Batch`]: any mix of independent matrix rows, noise, 32-byte hashes ([`Digest32`]) and
//!   sponge absorption, run together; every function above is a batch;
//! - [`FeedingBatch`]: matrix entries and noise whose outputs go to a [`Feed`] as they come
//!   (a report per parsed block), while a sponge absorbs the message the feed builds from
//!   them, a block as soon as one is known (ML-KEM key generation's `H(ek)` hashing `ek`
//!   while A-hat is still being sampled);
//! - Keccak: the permutation on one state and on several interleaved ones, and the sponges
//!   of [`keccak`] (SHA3-256, SHA3-512, SHAKE128/256, used for G, H, J by the KEM).
//!
//! It knows nothing of the KEM: parameter sets, byte encodings, K-PKE and ML-KEM belong to
//! the `lazykem` crate, which decides which nonces and which eta each step uses.
//!
//! # Layers
//! Each module uses only the ones above it in this table (no two import each other):
//!
//! | module | owns |
//! |---|---|
//! | [`speculation`] | the speculation barrier ([`speculation::barrier`], public: `lazykem` starts every operation with it) and the misspeculation flag the parsers and the scheduler carry (crate-private); names instruction sets, in `asm!` only (`speculation/x86_64.rs`, `speculation/aarch64.rs`; a portable fallback elsewhere) |
//! | [`keccak`] | Keccak-f\[1600\] on one state ([`keccak::KeccakF1600`]) and on `W` interleaved states (the `PermuteLanes` trait, portable one- and two-state forms), the sponge, the hashes; nothing about what the output is for |
//! | `cbd`, `kernels` | CBD, the rejection parsers, and `Kernels`: what a backend does with a squeezed block, each kernel with its portable body |
//! | `feed` | [`Feed`] and [`Feeding`]: a sponge fed from a batch's own outputs while it runs |
//! | `job` | the job model: every kind of work a batch holds (SampleNTT stream, PRF + CBD, RejNTTPoly stream, 32- and 64-byte hashes, sponge absorption, XOF sink, fed jobs), its rate, domain and input, and what it does with each block through `Kernels`; adding a kind touches this file |
//! | `scheduler` | the one lane scheduler, generic over the permutation's width and the kernels, with no instruction set in it (see below) |
//! | `backend` | [`SamplingBackend`] for each token: which permutation, kernels and lane counts it runs the scheduler with; with `speculation`, the only module that names an instruction set, grouped by architecture (`backend/x86_64/avx2/`, `backend/x86_64/avx512/`: the AVX2 and AVX-512 permutations, parsers, CBD, the 8-or-4-lane choice, and in `backend/x86_64/` what both share; `backend/aarch64/neon/`: the NEON and FEAT_SHA3 permutations, parser, CBD) |
//! | `batch`, `digest` | [`Batch`], [`FeedingBatch`], [`Digest32`]: the public way to hand jobs to a backend |
//! | `sample_ntt`, `noise`, `expand_a` | the sampling functions, each a batch |
//!
//! # Multi-way hashing
//! Every entry point takes a backend token (`lattice-poly-ntt`'s `Portable`, `Avx2`, `Avx512`
//! or `Neon`; the caller picks it once per operation) and builds a [`Batch`] of independent
//! jobs (a `SampleNTT` stream, a PRF stream with its CBD, a hash, whole blocks for a sponge
//! that goes on afterwards), which the backend runs on the lane scheduler: the jobs share a
//! Keccak-f\[1600\] on `W` interleaved states, each lane runs one job, absorbing and squeezing
//! a block per permutation, and takes the next job as soon as its own is done, whatever their
//! kinds and rates; the last job left alone finishes on the single-state permutation. This is
//! how the KEM hides its long hashes in lanes that would otherwise idle: `H(ek)` beside A-hat
//! when a key is imported, `J(z || c)` beside the re-encryption noise, and in key generation
//! `H(ek)` absorbing the first rows of t-hat while the last rows of A-hat are sampled (with a
//! [`FeedingBatch`], the first blocks of `ek` as soon as the first coefficients of each row are
//! known).
//! - **Portable**: one lane of the scalar Keccak-f\[1600\] (an unrolled round; two
//!   interleaved states are slower in scalar code) and the portable parser and CBD.
//! - **AVX2** (x86-64, the token exists only when the CPU has AVX2, BMI1 and BMI2): four
//!   lanes of a 4-way AVX2 permutation, an AVX2 rejection parser (16 candidates per step,
//!   compacted with a shuffle table) and CBD, the BMI1/BMI2 build of the scalar rounds for a
//!   single state.
//! - **AVX-512**: eight zmm lanes narrowing to four AVX-512VL ones, or four throughout
//!   (where the CPU splits zmm operations, or an estimate of the schedule says so), VBMI2's
//!   parser where the CPU has it, the zmm CBD.
//! - **NEON** (aarch64): two lanes of a 2-way permutation in NEON registers, with FEAT_SHA3's
//!   `eor3`/`rax1`/`xar`/`bcax` where the CPU has them (detected at run time, once per
//!   batch) and plain NEON otherwise; a NEON rejection parser (8 candidates per half step,
//!   compacted with a `tbl` table) and CBD; FEAT_SHA3's round on one lane or the scalar
//!   rounds for a single state.
//!
//! The SIMD code is in `#[target_feature]` functions that the generic scheduler inlines
//! into, so no `target-cpu` flag is needed. It, the `ct-validation` hook's one `asm!` block
//! (both in the `backend` tree) and the `asm!` blocks of `speculation` are the crate's only
//! `unsafe` code, each block after a `// SAFETY:` comment.
//! Results are identical on every backend: each is tested against scalar references built
//! on the sponge, and every Keccak against the `sha3` crate.
//!
//! # Constant time and secrets
//! `SampleNTT` branches and loops on its SHAKE128 output: that output depends only on the
//! public rho, so this is allowed. The PRF and CBD path handles the
//! secret sigma: CBD counts bits with shifts and masks and maps to `[0, q)` with a mask
//! (`lattice_field::gf3329::from_signed`), with no branch, loop bound or index depending on the bytes.
//! Every PRF output buffer is zeroized before returning, the scalar sponge's state is erased
//! on drop (and the permutation's scratch copy after each call); the scheduler's states
//! and its input and output buffers are zeroized the same way. The schedule (which job
//! runs in which lane, when one finishes alone) depends only on the jobs' kinds, message
//! lengths and etas, and on the XOF output of the public rho. Values moved by the
//! compiler (returned polynomials, register temporaries) are beyond what `zeroize` reaches;
//! the noise paths write straight into the caller's output to keep such copies to a minimum.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
// `deny`, not `forbid`: the SIMD backends are allowed `unsafe` (see their docs), and so are
// the `ct-validation` hook (one `asm!`, a valgrind client request) and `speculation` (its
// `asm!` blocks). Each unsafe block after a `// SAFETY:` comment.
#![deny(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]

#[cfg(test)]
extern crate std;

mod backend;
mod batch;
mod cbd;
#[cfg(feature = "ct-validation")]
#[cfg_attr(docsrs, doc(cfg(feature = "ct-validation")))]
pub mod ct_validation;
mod digest;
mod expand_a;
mod feed;
mod job;
pub mod keccak;
mod kernels;
mod noise;
#[cfg(test)]
mod reference;
mod sample_ntt;
mod scheduler;
#[allow(unsafe_code)]
pub mod speculation;

pub use backend::SamplingBackend;
pub use batch::{Batch, FeedingBatch};
pub use cbd::{
    CBD2_INPUT_BYTES, CBD3_INPUT_BYTES, Eta, sample_poly_cbd, sample_poly_cbd2, sample_poly_cbd3,
};
pub use digest::{Digest32, DigestKind};
pub use expand_a::{expand_a, rej_ntt_poly};
pub use feed::{Feed, Feeding};
pub use job::{Jobs, SAMPLE_NTT_SEED_BYTES, Shake, XofSink};
pub use keccak::SHAKE128_RATE;
pub use noise::{prf, sample_noise_poly, sample_noise_polys, sample_noise_vector};
pub use sample_ntt::{
    SAMPLE_NTT_INITIAL_BLOCKS, sample_matrix, sample_matrix_with_digests, sample_ntt,
};
