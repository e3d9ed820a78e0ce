//! `SamplePolyCBD_eta` (FIPS 203 Alg. 8) for eta = 2 and eta = 3, in constant time.
//!
//! Coefficient `i` is `x - y` where `x` and `y` are the numbers of one bits in two adjacent
//! groups of eta bits of the input (bits `2 * i * eta ..` and `2 * i * eta + eta ..`). Bits
//! are counted in parallel with shifts and masks over a little-endian word, and the signed
//! result in `[-eta, eta]` goes to `[0, q)` through the mask-based
//! [`lattice_field::gf3329::from_signed`]: no branch, loop bound or index depends on the input bytes.

use lattice_field::gf3329::from_signed;
use lattice_poly_ntt::mlkem::{N, Poly};

/// Input length of [`sample_poly_cbd2`]: `64 * 2` bytes, the output length of `PRF_2`.
pub const CBD2_INPUT_BYTES: usize = 128;

/// Input length of [`sample_poly_cbd3`]: `64 * 3` bytes, the output length of `PRF_3`.
pub const CBD3_INPUT_BYTES: usize = 192;

/// The parameter eta of the centered binomial distribution of
/// FIPS 203 Alg. 8: 2 or 3.
///
/// Eta is a public parameter of the parameter set (eta1 = 3 for ML-KEM-512, 2 otherwise;
/// eta2 = 2), so code may branch on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Eta {
    /// eta = 2: coefficients in `[-2, 2]`, 128 input bytes.
    Two,
    /// eta = 3: coefficients in `[-3, 3]`, 192 input bytes.
    Three,
}

impl Eta {
    /// The numeric value, 2 or 3.
    #[must_use]
    pub const fn value(self) -> u8 {
        match self {
            Self::Two => 2,
            Self::Three => 3,
        }
    }

    /// `64 * eta`: the number of PRF output bytes [`sample_poly_cbd`] consumes.
    #[must_use]
    pub const fn prf_output_len(self) -> usize {
        match self {
            Self::Two => CBD2_INPUT_BYTES,
            Self::Three => CBD3_INPUT_BYTES,
        }
    }
}

/// `SamplePolyCBD_2(bytes)`, FIPS 203 Alg. 8 with eta = 2.
///
/// Every coefficient of the result is in `{0, 1, 2} ∪ {q - 2, q - 1}`. Constant time.
#[must_use]
pub fn sample_poly_cbd2(bytes: &[u8; CBD2_INPUT_BYTES]) -> Poly {
    let mut poly = Poly::zero();
    cbd2_into(
        bytes,
        poly.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
    );
    poly
}

/// `SamplePolyCBD_3(bytes)`, FIPS 203 Alg. 8 with eta = 3.
///
/// Every coefficient of the result is in `{0, 1, 2, 3} ∪ {q - 3, q - 2, q - 1}`. Constant time.
#[must_use]
pub fn sample_poly_cbd3(bytes: &[u8; CBD3_INPUT_BYTES]) -> Poly {
    let mut poly = Poly::zero();
    cbd3_into(
        bytes,
        poly.coeffs_mut(lattice_poly_ntt::__private::WORKSPACE),
    );
    poly
}

/// `SamplePolyCBD_eta(bytes)`, FIPS 203 Alg. 8, for an eta chosen at run time.
///
/// `bytes` must be exactly `64 * eta` bytes long ([`Eta::prf_output_len`]); otherwise this
/// returns `None`. The length check depends only on public values; the sampling itself is
/// constant time, as in [`sample_poly_cbd2`] and [`sample_poly_cbd3`].
#[must_use]
pub fn sample_poly_cbd(eta: Eta, bytes: &[u8]) -> Option<Poly> {
    match eta {
        Eta::Two => bytes.try_into().ok().map(sample_poly_cbd2),
        Eta::Three => bytes.try_into().ok().map(sample_poly_cbd3),
    }
}

/// FIPS 203 Alg. 8 with eta = 2 into `coeffs`: each 32-bit word gives 8 coefficients.
///
/// Writes only values in `[0, q)`.
pub(crate) fn cbd2_into(bytes: &[u8; CBD2_INPUT_BYTES], coeffs: &mut [u16; N]) {
    // 4 bits per coefficient: 32 words of 8 coefficients.
    const _: () = assert!(CBD2_INPUT_BYTES * 8 == N * 4);
    let (words, _) = bytes.as_chunks::<4>();
    let (outs, _) = coeffs.as_chunks_mut::<8>();
    for (word, out) in words.iter().zip(outs) {
        let t = u32::from_le_bytes(*word);
        // Each 2-bit field of d (at bits 2m, 2m + 1) holds the sum of bits 2m and 2m + 1 of
        // t, at most 2, so the fields never carry into each other.
        let d = (t & 0x5555_5555) + ((t >> 1) & 0x5555_5555);
        for (k, c) in out.iter_mut().enumerate() {
            // Coefficient k of this word uses bits 4k, 4k+1 (x) and 4k+2, 4k+3 (y).
            let x = ((d >> (4 * k)) & 0x3) as i16;
            let y = ((d >> (4 * k + 2)) & 0x3) as i16;
            // x - y in [-2, 2], inside the domain of from_signed (|x| < q).
            *c = from_signed(x - y);
        }
    }
}

/// FIPS 203 Alg. 8 with eta = 3 into `coeffs`: each 24-bit group gives 4 coefficients.
///
/// Writes only values in `[0, q)`.
pub(crate) fn cbd3_into(bytes: &[u8; CBD3_INPUT_BYTES], coeffs: &mut [u16; N]) {
    // 6 bits per coefficient: 64 groups of 3 bytes, 4 coefficients each.
    const _: () = assert!(CBD3_INPUT_BYTES * 8 == N * 6);
    cbd3_groups(bytes, coeffs);
}

/// FIPS 203 Alg. 8 with eta = 3 on as many whole 3-byte groups of `bytes` as `coeffs` has
/// 4-coefficient groups: each 24-bit group gives the next 4 coefficients (values in
/// `[0, q)`).
pub(crate) fn cbd3_groups(bytes: &[u8], coeffs: &mut [u16]) {
    let (groups, _) = bytes.as_chunks::<3>();
    let (outs, _) = coeffs.as_chunks_mut::<4>();
    for (group, out) in groups.iter().zip(outs) {
        let t = u32::from(group[0]) | (u32::from(group[1]) << 8) | (u32::from(group[2]) << 16);
        // Each 3-bit field of d (at bits 3m .. 3m + 2) holds the sum of bits 3m, 3m + 1 and
        // 3m + 2 of t, at most 3, so the fields never carry into each other.
        let d = (t & 0x0024_9249) + ((t >> 1) & 0x0024_9249) + ((t >> 2) & 0x0024_9249);
        for (k, c) in out.iter_mut().enumerate() {
            // Coefficient k of this group uses bits 6k .. 6k+2 (x) and 6k+3 .. 6k+5 (y).
            let x = ((d >> (6 * k)) & 0x7) as i16;
            let y = ((d >> (6 * k + 3)) & 0x7) as i16;
            // x - y in [-3, 3], inside the domain of from_signed (|x| < q).
            *c = from_signed(x - y);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_field::gf3329::Q;
    use proptest::prelude::*;

    /// FIPS 203 Alg. 8, bit by bit.
    fn reference(eta: usize, bytes: &[u8]) -> [u16; N] {
        assert_eq!(bytes.len(), 64 * eta);
        let bit = |i: usize| i32::from((bytes[i / 8] >> (i % 8)) & 1);
        core::array::from_fn(|i| {
            let x: i32 = (0..eta).map(|j| bit(2 * i * eta + j)).sum();
            let y: i32 = (0..eta).map(|j| bit(2 * i * eta + eta + j)).sum();
            (x - y).rem_euclid(i32::from(Q)) as u16
        })
    }

    fn in_range(eta: u16, coeffs: &[u16; N]) -> bool {
        coeffs
            .iter()
            .all(|&c| c <= eta || (Q - eta..Q).contains(&c))
    }

    proptest! {
        #[test]
        fn cbd2_matches_reference(bytes in any::<[u8; CBD2_INPUT_BYTES]>()) {
            let p = sample_poly_cbd2(&bytes);
            prop_assert_eq!(p.coeffs(), &reference(2, &bytes));
            prop_assert!(in_range(2, p.coeffs()));
            prop_assert_eq!(sample_poly_cbd(Eta::Two, &bytes), Some(p));
        }

        #[test]
        fn cbd3_matches_reference(bytes in any::<[u8; CBD3_INPUT_BYTES]>()) {
            let p = sample_poly_cbd3(&bytes);
            prop_assert_eq!(p.coeffs(), &reference(3, &bytes));
            prop_assert!(in_range(3, p.coeffs()));
            prop_assert_eq!(sample_poly_cbd(Eta::Three, &bytes), Some(p));
        }

        #[test]
        fn wrong_length_is_none(len in 0usize..400) {
            for eta in [Eta::Two, Eta::Three] {
                let bytes = [0u8; 400];
                let out = sample_poly_cbd(eta, &bytes[..len]);
                prop_assert_eq!(out.is_some(), len == eta.prf_output_len());
            }
        }
    }

    #[test]
    fn constant_inputs_give_zero() {
        // All zeros: x = y = 0. All ones: x = y = eta.
        for fill in [0x00, 0xff] {
            assert_eq!(sample_poly_cbd2(&[fill; CBD2_INPUT_BYTES]), Poly::zero());
            assert_eq!(sample_poly_cbd3(&[fill; CBD3_INPUT_BYTES]), Poly::zero());
            assert_eq!(reference(2, &[fill; CBD2_INPUT_BYTES]), [0; N]);
            assert_eq!(reference(3, &[fill; CBD3_INPUT_BYTES]), [0; N]);
        }
    }

    #[test]
    fn extreme_values() {
        // eta = 2: byte 0x03 = x bits 11, y bits 00 -> +2; then 0 from the high nibble.
        let p = sample_poly_cbd2(&[0x03; CBD2_INPUT_BYTES]);
        assert!(p.coeffs().chunks(2).all(|c| c == [2, 0]));
        // Byte 0x0c: x = 0, y = 2 -> q - 2.
        let p = sample_poly_cbd2(&[0x0c; CBD2_INPUT_BYTES]);
        assert!(p.coeffs().chunks(2).all(|c| c == [Q - 2, 0]));
        // eta = 3: 6-bit pattern 000111 per coefficient (x = 3 in the low bits, y = 0 above)
        // repeats as the 24-bit group 0b000111_000111_000111_000111 = 0x1c71c7 -> all +3.
        let group = [0xc7, 0x71, 0x1c];
        let bytes: [u8; CBD3_INPUT_BYTES] = core::array::from_fn(|i| group[i % 3]);
        assert_eq!(sample_poly_cbd3(&bytes).coeffs(), &[3; N]);
        // The complement 111000 per coefficient: x = 0, y = 3 -> q - 3.
        let bytes = bytes.map(|b| !b);
        assert_eq!(sample_poly_cbd3(&bytes).coeffs(), &[Q - 3; N]);
    }

    #[test]
    fn eta_parameters() {
        assert_eq!(Eta::Two.value(), 2);
        assert_eq!(Eta::Three.value(), 3);
        for eta in [Eta::Two, Eta::Three] {
            assert_eq!(eta.prf_output_len(), 64 * usize::from(eta.value()));
        }
    }
}
