//! Compile-time twiddle tables of FIPS 203 (Appendix A), in BitRev7 order.

use lattice_field::gf3329::pow;

/// zeta = 17, a primitive 256th root of unity mod q (17^128 = -1).
pub const ZETA: u16 = 17;

/// Reverses the 7 low bits of `i` (FIPS 203 §4.3, BitRev7).
#[must_use]
pub const fn bitrev7(i: u8) -> u8 {
    (i << 1).reverse_bits() & 0x7f
}

/// `ZETAS[i] = 17^BitRev7(i) mod q`: the twiddles of FIPS 203 Alg. 9 and FIPS 203 Alg. 10.
pub const ZETAS: [u16; 128] = {
    let mut table = [0u16; 128];
    let mut i = 0;
    while i < 128 {
        table[i] = pow(ZETA, bitrev7(i as u8) as u32);
        i += 1;
    }
    table
};

/// `GAMMAS[i] = 17^(2*BitRev7(i) + 1) mod q`: the moduli `X^2 - GAMMAS[i]` of the 128
/// base-case rings of FIPS 203 Alg. 11 and FIPS 203 Alg. 12.
pub const GAMMAS: [u16; 128] = {
    let mut table = [0u16; 128];
    let mut i = 0;
    while i < 128 {
        table[i] = pow(ZETA, 2 * bitrev7(i as u8) as u32 + 1);
        i += 1;
    }
    table
};

/// 128^-1 mod q = 3303: the scaling at the end of the inverse NTT (FIPS 203 Alg. 10 l. 14).
pub const INV_128: u16 = 3303;

const _: () = assert!((INV_128 as u32 * 128) % lattice_field::gf3329::Q32 == 1);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitrev7_examples() {
        assert_eq!(bitrev7(0), 0);
        assert_eq!(bitrev7(1), 64);
        assert_eq!(bitrev7(2), 32);
        assert_eq!(bitrev7(3), 96);
        assert_eq!(bitrev7(127), 127);
        for i in 0..128u8 {
            assert_eq!(bitrev7(bitrev7(i)), i);
        }
    }

    #[test]
    fn tables_match_fips203_appendix_a() {
        // First and last entries of the two tables printed in FIPS 203, Appendix A.
        assert_eq!(&ZETAS[..8], &[1, 1729, 2580, 3289, 2642, 630, 1897, 848]);
        assert_eq!(
            &ZETAS[120..],
            &[1722, 1212, 1874, 1029, 2110, 2935, 885, 2154]
        );
        assert_eq!(&GAMMAS[..8], &[17, 3312, 2761, 568, 583, 2746, 2649, 680]);
        assert_eq!(
            &GAMMAS[120..],
            &[2110, 1219, 2935, 394, 885, 2444, 2154, 1175]
        );
        // gamma_{2i+1} = -gamma_{2i}.
        for i in 0..64 {
            assert_eq!(
                (GAMMAS[2 * i] + GAMMAS[2 * i + 1]) % lattice_field::gf3329::Q,
                0
            );
        }
    }
}
