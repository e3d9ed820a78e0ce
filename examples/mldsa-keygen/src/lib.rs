//! ML-DSA (FIPS 204) key generation, `ML-DSA.KeyGen_internal` (FIPS 204 Alg. 6), for ML-DSA-44,
//! ML-DSA-65 and ML-DSA-87.
//!
//! This crate is a **demonstration of reuse**: it shows that the workspace's lower crates carry
//! over to a second lattice scheme. It implements key generation only; there is no signing and
//! no verification, and it is not a signature library.
//!
//! # Layout
//! * [`params`]: q, d, n, the sealed [`ParameterSet`] trait and [`MlDsa44`], [`MlDsa65`],
//!   [`MlDsa87`] (FIPS 204, Table 1).
//! * [`seeds`]: the input and output framing of H in FIPS 204 Alg. 6 l. 1.
//! * [`expand_s`]: the rejection rule of ExpandS (FIPS 204 Alg. 15, FIPS 204 Alg. 31,
//!   FIPS 204 Alg. 33), fed SHAKE256 output block by block.
//! * [`encode`]: Power2Round (FIPS 204 Alg. 35), SimpleBitPack / BitPack (FIPS 204 Alg. 16,
//!   FIPS 204 Alg. 17), pkEncode (FIPS 204 Alg. 22) and skEncode (FIPS 204 Alg. 24).
//!
//! None of these modules does ring arithmetic or hashing. [`key_gen_internal`] combines them
//! with what the shared crates provide, and has no arithmetic or Keccak of its own:
//! * `lattice-sampling`: SHAKE256 for H, and one [`Batch`](lattice_sampling::Batch) running
//!   ExpandA's `k * l` `RejNTTPoly` streams (FIPS 204 Alg. 30) and ExpandS's `k + l` SHAKE256
//!   streams (fed to [`BoundedSampler`] through `XofSink`) on the same multi-lane Keccak
//!   scheduler that samples ML-KEM's matrix;
//! * `lattice-poly-ntt`: ML-DSA's ring ([`lattice_poly_ntt::mldsa::MlDsa`], the 8-layer
//!   NTT over GF(8380417)), `A-hat * NTT(s1)` as a lazy `u64` accumulation reduced once per
//!   coefficient, the inverse NTT and the addition of s2;
//! * `lattice-field`: the reductions behind all of it.
//!
//! # Representation
//! Polynomials are `[u32; 256]` arrays of canonical coefficients in `[0, q)`; a negative
//! coefficient x (in s1, s2, t0) is stored as q + x.
//!
//! ```
//! use mldsa_keygen::{pk_encode, power2round, MlDsa44, ParameterSet, D, Q};
//!
//! // Power2Round: t = t1 * 2^13 + t0 with t0 in (-2^12, 2^12], t0 < 0 stored as q + t0.
//! assert_eq!(power2round(5 << D), (5, 0));
//! assert_eq!(power2round((5 << D) + 4097), (6, Q - 4095));
//!
//! // pkEncode writes rho || SimpleBitPack(t1[i], 2^10 - 1) into a buffer of exactly PK_BYTES.
//! let t1 = [[0u32; 256]; 4];
//! let mut pk = [0u8; MlDsa44::PK_BYTES];
//! pk_encode::<MlDsa44>(&[7; 32], &t1, &mut pk).unwrap();
//! assert_eq!(pk[..32], [7; 32]);
//! ```
#![no_std]
#![forbid(unsafe_code)]

pub mod encode;
pub mod error;
pub mod expand_s;
mod key_gen;
pub mod params;
pub mod seeds;

pub use encode::{bit_pack, pk_encode, power2round, power2round_poly, simple_bit_pack, sk_encode};
pub use error::LengthError;
pub use expand_s::{
    BoundedSampler, EXPAND_S_SEED_BYTES, SHAKE256_RATE, coeff_from_half_byte, expand_s_seed,
    rej_bounded_poly,
};
pub use params::{D, MlDsa44, MlDsa65, MlDsa87, N, ParameterSet, Q};
pub use seeds::{KeyGenSeeds, key_gen_hash_input};

/// ML-DSA.KeyGen_internal (FIPS 204 Alg. 6): derives the key pair of parameter set `P`
/// from the 32-byte seed `xi`, writing the encoded public key into `pk` and the encoded private
/// key into `sk`.
///
/// `pk` must be exactly `P::PK_BYTES` bytes and `sk` exactly `P::SK_BYTES`; otherwise
/// [`LengthError`] is returned and nothing is written.
///
/// ```
/// use mldsa_keygen::{MlDsa65, ParameterSet, key_gen_internal};
///
/// let (mut pk, mut sk) = ([0u8; MlDsa65::PK_BYTES], [0u8; MlDsa65::SK_BYTES]);
/// key_gen_internal::<MlDsa65>(&[42; 32], &mut pk, &mut sk).unwrap();
/// // Both encodings start with rho; the same seed gives the same keys.
/// assert_eq!(pk[..32], sk[..32]);
/// let (mut pk2, mut sk2) = ([0u8; MlDsa65::PK_BYTES], [0u8; MlDsa65::SK_BYTES]);
/// key_gen_internal::<MlDsa65>(&[42; 32], &mut pk2, &mut sk2).unwrap();
/// assert!(pk == pk2 && sk == sk2);
/// ```
///
/// # Errors
/// [`LengthError`] if `pk` or `sk` has the wrong length.
pub fn key_gen_internal<P: ParameterSet>(
    xi: &[u8; 32],
    pk: &mut [u8],
    sk: &mut [u8],
) -> Result<(), LengthError> {
    LengthError::check("pk", P::PK_BYTES, pk.len())?;
    LengthError::check("sk", P::SK_BYTES, sk.len())?;
    // The sealed trait has exactly these three (k, l): the match is on public constants and
    // folds away.
    match (P::K, P::L) {
        (4, 4) => key_gen::key_gen::<P, 4, 4>(xi, pk, sk),
        (6, 5) => key_gen::key_gen::<P, 6, 5>(xi, pk, sk),
        (8, 7) => key_gen::key_gen::<P, 8, 7>(xi, pk, sk),
        _ => unreachable!("sealed parameter sets"),
    }
}
