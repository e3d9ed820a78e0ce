//! The sampling rule of ExpandS (FIPS 204 Alg. 33): RejBoundedPoly (FIPS 204 Alg. 31) with
//! CoeffFromHalfByte (FIPS 204 Alg. 15), independent of any particular Keccak implementation.
//!
//! # Seeds
//! ExpandS(rho') samples the l polynomials of s1 and the k polynomials of s2, each from its own
//! SHAKE256 stream:
//!
//! * `s1[r]` from `SHAKE256(rho' || IntegerToBytes(r, 2))` for `r = 0, ..., l - 1`;
//! * `s2[r]` from `SHAKE256(rho' || IntegerToBytes(l + r, 2))` for `r = 0, ..., k - 1`,
//!
//! where rho' is the 64-byte seed of FIPS 204 Alg. 6 l. 1, and IntegerToBytes is little-endian.
//! [`expand_s_seed`] builds that 66-byte input. FIPS 204 Alg. 31 reads the stream one byte at a
//! time; [`BoundedSampler`] accepts it in blocks of any size (naturally one SHAKE256 rate, 136
//! bytes, per squeeze) with identical results, and [`rej_bounded_poly`] drives it from any
//! block-squeezing closure.
//!
//! # Timing
//! Unlike the encoders, the sampler branches on the stream: whether a half-byte is accepted
//! (b < 15 for eta = 2, b < 9 for eta = 4). FIPS 204 permits this for rejection sampling: the
//! stream is SHAKE256 output of the secret rho', but which positions are rejected is
//! independent of the values accepted, and so reveals nothing about the resulting s1, s2.
//! The accepted value itself is mapped to its coefficient without a branch or table lookup.

use zeroize::Zeroize;

use crate::encode::reduce_once;
use crate::params::{N, ParameterSet, Q, RHO_PRIME_BYTES};

/// The SHAKE256 rate in bytes, the natural block size for [`BoundedSampler::absorb_block`].
pub const SHAKE256_RATE: usize = 136;

/// Length of the SHAKE256 input of one ExpandS polynomial: `rho' || IntegerToBytes(r, 2)`.
pub const EXPAND_S_SEED_BYTES: usize = RHO_PRIME_BYTES + 2;

/// The SHAKE256 input for polynomial `r` of ExpandS (FIPS 204 Alg. 33 l. 2 and 5):
/// `rho' || IntegerToBytes(r, 2)`, with r little-endian.
///
/// Use `r = i` for `s1[i]` (`i < l`) and `r = l + i` for `s2[i]` (`i < k`). The result contains
/// the secret rho': the caller should zeroize it once it has been absorbed.
#[must_use]
pub fn expand_s_seed(rho_prime: &[u8; RHO_PRIME_BYTES], r: u16) -> [u8; EXPAND_S_SEED_BYTES] {
    let mut seed = [0u8; EXPAND_S_SEED_BYTES];
    let (head, tail) = seed.split_at_mut(RHO_PRIME_BYTES);
    head.copy_from_slice(rho_prime);
    tail.copy_from_slice(&r.to_le_bytes());
    seed
}

/// CoeffFromHalfByte (FIPS 204 Alg. 15): maps a half-byte `b < 16` to a coefficient in
/// `[-eta, eta]`, or rejects it (`None`).
///
/// * eta = 2: accepts b < 15 and returns 2 - (b mod 5);
/// * eta = 4: accepts b < 9 and returns 4 - b;
/// * any other eta (not used by FIPS 204): rejects everything.
///
/// The coefficient is returned canonical mod q (a negative x as q + x). Only the accept/reject
/// decision branches on `b` (see the module documentation); the value is computed branch-free.
#[must_use]
#[inline]
pub const fn coeff_from_half_byte(eta: u32, b: u8) -> Option<u32> {
    let b = b as u32;
    if eta == 2 && b < 15 {
        // b mod 5 for b < 15 without a division: floor(b * 205 / 1024) = floor(b / 5) there.
        let b_mod_5 = b - 5 * ((b * 205) >> 10);
        Some(reduce_once(2 + Q - b_mod_5))
    } else if eta == 4 && b < 9 {
        Some(reduce_once(4 + Q - b))
    } else {
        None
    }
}

/// The rejection loop of RejBoundedPoly (FIPS 204 Alg. 31), fed the SHAKE256 stream in
/// blocks.
///
/// Each byte gives two candidates, low half-byte first; accepted candidates fill `out` in
/// order, and sampling stops at the 256th (the rest of the stream is ignored, including a
/// byte's high half-byte when its low half-byte was the 256th). Coefficients are written
/// canonical mod q, as [`coeff_from_half_byte`] returns them. Until
/// [`absorb_block`](Self::absorb_block) returns `true`, only the first
/// [`filled`](Self::filled) entries of `out` have been written.
pub struct BoundedSampler<'a> {
    eta: u32,
    out: &'a mut [u32; N],
    filled: usize,
}

impl<'a> BoundedSampler<'a> {
    /// A sampler for bound `eta` writing into `out`; `None` unless eta is 2 or 4 (the only
    /// values FIPS 204 defines, for which sampling terminates).
    #[must_use]
    pub fn new(eta: u32, out: &'a mut [u32; N]) -> Option<Self> {
        if eta == 2 || eta == 4 {
            Some(Self {
                eta,
                out,
                filled: 0,
            })
        } else {
            None
        }
    }

    /// A sampler for the eta of parameter set `P`; infallible because every [`ParameterSet`]
    /// has eta 2 or 4.
    #[must_use]
    pub fn for_parameter_set<P: ParameterSet>(out: &'a mut [u32; N]) -> Self {
        Self {
            eta: P::ETA,
            out,
            filled: 0,
        }
    }

    /// Consumes the next `block` of the SHAKE256 stream (any length; 136 bytes is one squeeze)
    /// and returns `true` once all 256 coefficients have been written. Blocks passed after
    /// that are ignored.
    pub fn absorb_block(&mut self, block: &[u8]) -> bool {
        for &byte in block {
            if self.filled == N {
                break;
            }
            // FIPS 204 Alg. 31 l. 5-14: z0 = low half-byte, z1 = high half-byte, each stored
            // if accepted and j < 256.
            self.push(coeff_from_half_byte(self.eta, byte & 0x0F));
            self.push(coeff_from_half_byte(self.eta, byte >> 4));
        }
        self.is_full()
    }

    /// Stores an accepted candidate if there is room.
    fn push(&mut self, candidate: Option<u32>) {
        if let (Some(coefficient), Some(slot)) = (candidate, self.out.get_mut(self.filled)) {
            *slot = coefficient;
            self.filled += 1;
        }
    }

    /// Number of coefficients written so far (256 when done).
    #[must_use]
    pub fn filled(&self) -> usize {
        self.filled
    }

    /// `true` once all 256 coefficients have been written.
    #[must_use]
    pub fn is_full(&self) -> bool {
        self.filled == N
    }
}

impl core::fmt::Debug for BoundedSampler<'_> {
    /// Shows eta and the progress only; the coefficients are secret.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BoundedSampler")
            .field("eta", &self.eta)
            .field("filled", &self.filled)
            .finish_non_exhaustive()
    }
}

/// RejBoundedPoly (FIPS 204 Alg. 31) for parameter set `P`: samples `out` from a
/// SHAKE256 stream that `squeeze` produces one 136-byte block per call.
///
/// `squeeze` is the caller's sponge, already absorbed with
/// [`expand_s_seed`]`(rho', r)`; each call must write the next block of its output. This makes
/// one blocking pass of FIPS 204 Alg. 31 without tying this crate to a Keccak implementation. Like
/// the algorithm, the number of calls is unbounded in principle, but each half-byte is accepted
/// with probability 15/16 (eta = 2) or 9/16 (eta = 4), so one or two blocks nearly always
/// suffice. The local block buffer holds secret-derived bytes and is zeroized on return.
pub fn rej_bounded_poly<P: ParameterSet>(
    mut squeeze: impl FnMut(&mut [u8; SHAKE256_RATE]),
    out: &mut [u32; N],
) {
    let mut block = [0u8; SHAKE256_RATE];
    let mut sampler = BoundedSampler::for_parameter_set::<P>(out);
    loop {
        squeeze(&mut block);
        if sampler.absorb_block(&block) {
            break;
        }
    }
    block.zeroize();
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::params::{MlDsa44, MlDsa65};

    /// CoeffFromHalfByte as written in FIPS 204 Alg. 15, as a signed integer.
    fn coeff_spec(eta: u32, b: u8) -> Option<i32> {
        match (eta, b) {
            (2, b) if b < 15 => Some(2 - i32::from(b % 5)),
            (4, b) if b < 9 => Some(4 - i32::from(b)),
            _ => None,
        }
    }

    #[test]
    fn coeff_from_half_byte_all_inputs() {
        for eta in [0, 1, 2, 3, 4, 5] {
            for b in 0..16u8 {
                let expected = coeff_spec(eta, b).map(|x| x.rem_euclid(Q as i32) as u32);
                assert_eq!(coeff_from_half_byte(eta, b), expected, "eta {eta}, b {b}");
            }
        }
    }

    #[test]
    fn invalid_eta_is_refused() {
        let mut out = [0u32; N];
        for eta in [0, 1, 3, 5, 8] {
            assert!(BoundedSampler::new(eta, &mut out).is_none());
        }
        assert!(BoundedSampler::new(2, &mut out).is_some());
        assert!(BoundedSampler::new(4, &mut out).is_some());
    }

    #[test]
    fn seed_layout() {
        let rho_prime: [u8; 64] = core::array::from_fn(|i| i as u8);
        let seed = expand_s_seed(&rho_prime, 0x0102);
        assert_eq!(&seed[..64], &rho_prime);
        assert_eq!(seed[64..], [0x02, 0x01]);
    }

    /// A deterministic stand-in stream (not SHAKE256; the ACVP test uses the real one).
    fn stream(len: usize, salt: u64) -> std::vec::Vec<u8> {
        let mut x = salt.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    }

    /// FIPS 204 Alg. 31 with the whole stream at hand, byte by byte, as a reference.
    fn reference(eta: u32, bytes: &[u8]) -> Option<[u32; N]> {
        let mut a = [0u32; N];
        let mut j = 0;
        for &byte in bytes {
            if j == N {
                break;
            }
            for z in [byte & 15, byte >> 4] {
                if let Some(c) = coeff_spec(eta, z)
                    && j < N
                {
                    a[j] = c.rem_euclid(Q as i32) as u32;
                    j += 1;
                }
            }
        }
        (j == N).then_some(a)
    }

    proptest::proptest! {
        #[test]
        fn block_size_does_not_matter(
            salt in proptest::prelude::any::<u64>(),
            four in proptest::prelude::any::<bool>(),
            block in 1usize..300,
        ) {
            let eta = if four { 4 } else { 2 };
            let bytes = stream(2048, salt);
            let expected = reference(eta, &bytes).expect("2048 bytes always suffice");
            let mut out = [0u32; N];
            let mut sampler = BoundedSampler::new(eta, &mut out).unwrap();
            let mut done = false;
            for chunk in bytes.chunks(block) {
                let was_done = sampler.is_full();
                done = sampler.absorb_block(chunk);
                proptest::prop_assert!(!was_done || done);
            }
            proptest::prop_assert!(done);
            proptest::prop_assert_eq!(sampler.filled(), N);
            proptest::prop_assert_eq!(out, expected);
        }
    }

    #[test]
    fn last_coefficient_from_low_half_byte_drops_high_half_byte() {
        // eta = 4: 0x00 gives two accepted 4s; 0x90 gives one (low 0 -> 4, high 9 rejected).
        let mut out = [7u32; N];
        let mut sampler = BoundedSampler::new(4, &mut out).unwrap();
        assert!(!sampler.absorb_block(&[0x90]));
        assert_eq!(sampler.filled(), 1);
        assert!(!sampler.absorb_block(&[0x00; 127]));
        assert_eq!(sampler.filled(), 255);
        // 0x31: low half-byte 1 -> 3 is coefficient 255; the high half-byte 3 is dropped.
        assert!(sampler.absorb_block(&[0x31, 0x00]));
        assert_eq!(sampler.filled(), N);
        assert!(sampler.absorb_block(&[0x00]));
        assert_eq!(out[0], 4);
        assert_eq!(out[254], 4);
        assert_eq!(out[255], 3);
    }

    #[test]
    fn rej_bounded_poly_drives_the_sampler() {
        for salt in 0..20 {
            let bytes = stream(SHAKE256_RATE * 8, salt);
            let mut blocks = bytes.chunks_exact(SHAKE256_RATE);
            let mut calls = 0;
            let mut out = [0u32; N];
            rej_bounded_poly::<MlDsa65>(
                |block| {
                    calls += 1;
                    block.copy_from_slice(blocks.next().expect("enough blocks"));
                },
                &mut out,
            );
            assert_eq!(Some(out), reference(4, &bytes), "salt {salt}");
            // eta = 4 needs at least 128 bytes of accepted pairs; far fewer than 8 blocks.
            assert!((1..8).contains(&calls));

            let mut blocks = bytes.chunks_exact(SHAKE256_RATE);
            rej_bounded_poly::<MlDsa44>(
                |block| block.copy_from_slice(blocks.next().expect("enough blocks")),
                &mut out,
            );
            assert_eq!(Some(out), reference(2, &bytes), "salt {salt}");
        }
    }
}
