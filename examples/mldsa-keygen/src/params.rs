//! ML-DSA constants and the three parameter sets of FIPS 204, Table 1 (§4).
//!
//! The parameter sets are zero-sized marker types implementing the sealed trait
//! [`ParameterSet`]; code that depends on the set is generic over it, so the sizes below are
//! compile-time constants for each instantiation.

/// The modulus q = 2^23 - 2^13 + 1 (FIPS 204, §4, Table 1).
pub const Q: u32 = 8_380_417;

/// d, the number of bits dropped from t by Power2Round (FIPS 204, Table 1).
pub const D: u32 = 13;

/// n, the number of coefficients of a polynomial in R_q = Z_q\[X\]/(X^256 + 1).
pub const N: usize = 256;

/// Size in bytes of the seeds rho and K, and of xi (FIPS 204 Alg. 6).
pub const SEED_BYTES: usize = 32;

/// Size in bytes of rho', the seed of ExpandS (FIPS 204 Alg. 6 l. 1).
pub const RHO_PRIME_BYTES: usize = 64;

/// Size in bytes of tr = H(pk, 64) (FIPS 204 Alg. 6 l. 6).
pub const TR_BYTES: usize = 64;

/// Bit width of a t1 coefficient: bitlen(q - 1) - d = 10 (FIPS 204 Alg. 22).
pub const T1_BITS: usize = 10;

/// Bit width of a t0 coefficient in BitPack(t0, 2^(d-1) - 1, 2^(d-1)): bitlen(2^d - 1) = 13
/// (FIPS 204 Alg. 24).
pub const T0_BITS: usize = D as usize;

/// Bytes of one packed t1 polynomial, 32 * 10 = 320 (FIPS 204 Alg. 22).
pub const T1_POLY_BYTES: usize = N * T1_BITS / 8;

/// Bytes of one packed t0 polynomial, 32 * 13 = 416 (FIPS 204 Alg. 24).
pub const T0_POLY_BYTES: usize = N * T0_BITS / 8;

/// bitlen(x): the number of bits needed to write the non-negative integer x (FIPS 204, §2.3).
///
/// `bitlen(0) = 0`, `bitlen(4) = 3`, `bitlen(2^13 - 1) = 13`.
#[must_use]
pub const fn bitlen(x: u32) -> usize {
    (u32::BITS - x.leading_zeros()) as usize
}

mod sealed {
    /// Restricts [`super::ParameterSet`] to the three sets of FIPS 204.
    pub trait Sealed {}
}

/// One of the three ML-DSA parameter sets of FIPS 204, Table 1.
///
/// Sealed: only [`MlDsa44`], [`MlDsa65`] and [`MlDsa87`] implement it, so every implementor
/// satisfies the invariants the encoders rely on (`ETA` is 2 or 4; the byte sizes agree with
/// FIPS 204, Table 2). The invariants are checked at compile time.
pub trait ParameterSet: sealed::Sealed + Copy + Default + core::fmt::Debug + 'static {
    /// k: rows of A, and the number of polynomials in s2, t, t1 and t0.
    const K: usize;
    /// l: columns of A, and the number of polynomials in s1.
    const L: usize;
    /// eta: the coefficients of s1 and s2 lie in \[-eta, eta\]; 2 or 4.
    const ETA: u32;
    /// Public-key size in bytes, 32 + 32 * k * 10 (FIPS 204, Table 2).
    const PK_BYTES: usize;
    /// Private-key size in bytes, 128 + 32 * ((k + l) * bitlen(2 eta) + 13 k) (FIPS 204, Table 2).
    const SK_BYTES: usize;
    /// The name used by FIPS 204 and ACVP, e.g. `"ML-DSA-44"`.
    const NAME: &'static str;

    /// Bit width of a packed s1/s2 coefficient, bitlen(2 eta): 3 for eta = 2, 4 for eta = 4.
    const ETA_BITS: usize = bitlen(2 * Self::ETA);
    /// Bytes of one packed s1/s2 polynomial, BitPack(s, eta, eta): 96 or 128.
    const ETA_POLY_BYTES: usize = N * Self::ETA_BITS / 8;
}

/// Compile-time check of one parameter set against the formulas of FIPS 204, Table 2.
const fn check<P: ParameterSet>() -> bool {
    (P::ETA == 2 || P::ETA == 4)
        && P::PK_BYTES == SEED_BYTES + P::K * T1_POLY_BYTES
        && P::SK_BYTES
            == 2 * SEED_BYTES + TR_BYTES + (P::K + P::L) * P::ETA_POLY_BYTES + P::K * T0_POLY_BYTES
}

macro_rules! parameter_set {
    ($(#[$doc:meta])* $name:ident, $label:literal, k = $k:literal, l = $l:literal,
     eta = $eta:literal, pk = $pk:literal, sk = $sk:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl sealed::Sealed for $name {}

        impl ParameterSet for $name {
            const K: usize = $k;
            const L: usize = $l;
            const ETA: u32 = $eta;
            const PK_BYTES: usize = $pk;
            const SK_BYTES: usize = $sk;
            const NAME: &'static str = $label;
        }

        const _: () = assert!(check::<$name>(), concat!($label, ": inconsistent sizes"));
    };
}

parameter_set!(
    /// ML-DSA-44 (security category 2): k = 4, l = 4, eta = 2.
    MlDsa44, "ML-DSA-44", k = 4, l = 4, eta = 2, pk = 1312, sk = 2560
);
parameter_set!(
    /// ML-DSA-65 (security category 3): k = 6, l = 5, eta = 4.
    MlDsa65, "ML-DSA-65", k = 6, l = 5, eta = 4, pk = 1952, sk = 4032
);
parameter_set!(
    /// ML-DSA-87 (security category 5): k = 8, l = 7, eta = 2.
    MlDsa87, "ML-DSA-87", k = 8, l = 7, eta = 2, pk = 2592, sk = 4896
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitlen_matches_definition() {
        assert_eq!(bitlen(0), 0);
        assert_eq!(bitlen(1), 1);
        assert_eq!(bitlen(4), 3);
        assert_eq!(bitlen(8), 4);
        assert_eq!(bitlen((1 << 10) - 1), 10);
        assert_eq!(bitlen((1 << 13) - 1), 13);
        assert_eq!(bitlen(Q - 1), 23);
        assert_eq!(bitlen(Q - 1) - D as usize, T1_BITS);
    }

    #[test]
    fn derived_sizes() {
        assert_eq!((MlDsa44::ETA_BITS, MlDsa44::ETA_POLY_BYTES), (3, 96));
        assert_eq!((MlDsa65::ETA_BITS, MlDsa65::ETA_POLY_BYTES), (4, 128));
        assert_eq!((MlDsa87::ETA_BITS, MlDsa87::ETA_POLY_BYTES), (3, 96));
        assert_eq!((T1_POLY_BYTES, T0_POLY_BYTES), (320, 416));
    }
}
