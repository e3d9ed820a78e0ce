//! ML-DSA's ring description (FIPS 204): the parameters, the twiddle table and [`MlDsa`]'s
//! [`Ring`] impl (pointwise products summed in `u64`). Below the seam: it imports only the
//! generic ring description and the field.

use crate::ring::{KernelCall, Ring, accumulate_pointwise, bit_reversed_powers};
use lattice_field::gf8380417::{CANONICAL_MAX, Q};
use lattice_field::{Gf8380417, inverse_mod};

/// Number of coefficients of a polynomial (FIPS 204: n = 256).
pub const N: usize = 256;

/// zeta = 1753, a primitive 512th root of unity mod q (FIPS 204 §7.5).
pub const ZETA: u32 = 1753;

/// `ZETAS[k] = 1753^BitRev8(k) mod q`: the twiddles of FIPS 204 Alg. 41 and FIPS 204 Alg. 42
/// (Appendix B).
pub const ZETAS: [u32; N] = {
    let wide = bit_reversed_powers::<N>(ZETA as u64, Q as u64);
    let mut table = [0u32; N];
    let mut i = 0;
    while i < N {
        table[i] = wide[i] as u32;
        i += 1;
    }
    table
};

/// `256^-1 mod q` = 8347681: the inverse NTT's final scaling (FIPS 204 Alg. 42).
pub const INV_256: u32 = inverse_mod(256, Q as u64) as u32;

/// Largest value one pointwise product adds to an accumulator entry: `(q-1)^2`.
pub const PRODUCT_TERM_MAX: u64 = CANONICAL_MAX as u64 * CANONICAL_MAX as u64;

/// How many products a `u64` accumulator entry takes (= [`MlDsa`]'s [`Ring::MAX_TERMS`]).
pub const ACCUMULATOR_MAX_TERMS: usize = (u64::MAX / PRODUCT_TERM_MAX) as usize;

/// The most columns (l) of an ML-DSA matrix A-hat (ML-DSA-87: 8 x 7).
pub const MAX_COLUMNS: usize = 7;

/// ML-DSA's ring: q = 8380417, n = 256, 8 NTT layers, pointwise products in `u64`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MlDsa;

impl Ring for MlDsa {
    type Field = Gf8380417;
    const N: usize = N;
    type Coeffs = [u32; N];
    type WideCoeffs = [u64; N];
    const ZERO_COEFFS: [u32; N] = [0; N];
    const ZERO_WIDE: [u64; N] = [0; N];
    const NTT_LAYERS: u32 = 8;
    const ZETA: u64 = ZETA as u64;
    const ZETAS: &'static [u32] = &ZETAS;
    const NTT_SCALE: u32 = INV_256;
    type RhsCache = ();
    const ZERO_RHS_CACHE: () = ();
    const PRODUCT_TERM_MAX: u128 = PRODUCT_TERM_MAX as u128;

    fn rhs_cache(_: KernelCall, _b: &[u32; N], (): &mut ()) {}

    #[inline]
    fn accumulate(call: KernelCall, acc: &mut [u64; N], a: &[u32; N], b: &[u32; N], (): &()) {
        // Each entry grows by at most (q-1)^2 = PRODUCT_TERM_MAX.
        accumulate_pointwise::<Self>(call, acc, a, b);
    }

    fn zeroize_rhs_cache((): &mut ()) {}
}

// The ring's compile-time checks; the widest ML-DSA matrix fits one accumulator with
// ~37,000x headroom, and the table's scaling is 2^-8.
const _: () = MlDsa::CHECKS;
const _: () = assert!(ACCUMULATOR_MAX_TERMS == <MlDsa as Ring>::MAX_TERMS);
const _: () = assert!(MAX_COLUMNS <= ACCUMULATOR_MAX_TERMS);
const _: () = assert!(MAX_COLUMNS as u128 * PRODUCT_TERM_MAX as u128 <= u64::MAX as u128);
const _: () = assert!(INV_256 == 8347681);
const _: () = assert!(INV_256 as u64 * 256 % Q as u64 == 1);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zetas_match_fips204_appendix_b() {
        assert_eq!(
            &ZETAS[..8],
            &[
                1, 4808194, 3765607, 3761513, 5178923, 5496691, 5234739, 5178987
            ]
        );
        assert_eq!(&ZETAS[252..], &[1900052, 7598542, 1054478, 7648983]);
    }
}
