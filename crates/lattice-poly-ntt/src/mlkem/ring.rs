//! ML-KEM's ring description (FIPS 203): the parameters, [`MlKem`]'s [`Ring`] impl with the
//! degree-2 base-case product (FIPS 203 Alg. 11 and FIPS 203 Alg. 12) summed lazily in
//! `u32`, and the `b[2i+1] * gamma_i` cache. Below the seam: it imports only the generic
//! ring description and the field.

use super::zetas;
use crate::ring::{KernelCall, Ring};
use lattice_field::Gf3329;
use lattice_field::gf3329::{CANONICAL_MAX, mul};
use zeroize::Zeroize;

/// Number of coefficients of a polynomial (FIPS 203: n = 256).
pub const N: usize = 256;

/// Number of base-case rings (pairs of coefficients) in the NTT domain.
pub const PAIRS: usize = N / 2;

/// Largest value one base-case product adds to one accumulator entry: `2 (q-1)^2`
/// (two products of canonical values, `b1*gamma` being reduced first).
pub const PRODUCT_TERM_MAX: u32 = 2 * (CANONICAL_MAX as u32) * (CANONICAL_MAX as u32);

/// How many products the portable backend's `u32` accumulator entries can take before
/// one could overflow (= [`MlKem`]'s [`Ring::MAX_TERMS`]). Each backend states its own limit
/// as [`Backend::MAX_TERMS`](crate::Backend::MAX_TERMS).
pub const ACCUMULATOR_MAX_TERMS: usize = (u32::MAX / PRODUCT_TERM_MAX) as usize;

/// The largest module rank used by ML-KEM (ML-KEM-1024).
pub const MAX_RANK: usize = 4;

/// Largest coefficient the NTT, the inverse NTT and the reduced products return: `q - 1`.
pub const NTT_OUTPUT_MAX: u16 = CANONICAL_MAX;

/// ML-KEM's ring: q = 3329, n = 256, 7 NTT layers, degree-2 base cases, `b*zeta` cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MlKem;

impl Ring for MlKem {
    type Field = Gf3329;
    const N: usize = N;
    type Coeffs = [u16; N];
    type WideCoeffs = [u32; N];
    const ZERO_COEFFS: [u16; N] = [0; N];
    const ZERO_WIDE: [u32; N] = [0; N];
    const NTT_LAYERS: u32 = 7;
    const ZETA: u64 = zetas::ZETA as u64;
    const ZETAS: &'static [u16] = &zetas::ZETAS;
    const NTT_SCALE: u16 = zetas::INV_128;
    type RhsCache = [u16; PAIRS];
    const ZERO_RHS_CACHE: [u16; PAIRS] = [0; PAIRS];
    const PRODUCT_TERM_MAX: u128 = PRODUCT_TERM_MAX as u128;

    fn rhs_cache(_: KernelCall, b: &[u16; N], out: &mut [u16; PAIRS]) {
        for i in 0..PAIRS {
            out[i] = mul(b[2 * i + 1], zetas::GAMMAS[i]);
        }
    }

    fn accumulate(
        _: KernelCall,
        acc: &mut [u32; N],
        a: &[u16; N],
        b: &[u16; N],
        b_zeta: &[u16; PAIRS],
    ) {
        for i in 0..PAIRS {
            let (a0, a1) = (a[2 * i] as u32, a[2 * i + 1] as u32);
            let (b0, b1) = (b[2 * i] as u32, b[2 * i + 1] as u32);
            let bz = b_zeta[i] as u32;
            // Each sum is at most 2(q-1)^2 = PRODUCT_TERM_MAX (all inputs canonical); the
            // caller bounds the number of terms (ACCUMULATOR_MAX_TERMS).
            acc[2 * i] += a0 * b0 + a1 * bz;
            acc[2 * i + 1] += a0 * b1 + a1 * b0;
        }
    }

    fn zeroize_rhs_cache(cache: &mut [u16; PAIRS]) {
        // Bulk slice zeroization (see `NttPoly`'s impl).
        cache.as_mut_slice().zeroize();
    }
}

// The ring's compile-time checks, and the lazy bound: k = 4 terms of 2(q-1)^2 fit a u32,
// with room to spare; the final reduction accepts any u32.
const _: () = MlKem::CHECKS;
const _: () = assert!(PRODUCT_TERM_MAX == 22_151_168);
const _: () = assert!(ACCUMULATOR_MAX_TERMS == <MlKem as Ring>::MAX_TERMS);
const _: () = assert!(MAX_RANK <= ACCUMULATOR_MAX_TERMS);
const _: () = assert!(MAX_RANK as u64 * PRODUCT_TERM_MAX as u64 <= u32::MAX as u64);
const _: () = assert!(lattice_field::gf3329::BARRETT_INPUT_MAX == u32::MAX);
const _: () =
    assert!(zetas::INV_128 as u64 == lattice_field::inverse_mod(1 << MlKem::NTT_LAYERS, 3329));
