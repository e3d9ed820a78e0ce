//! [`Kernels`]: what a backend does with a squeezed block: the rejection parsers and CBD, each
//! with its portable body here. The job model ([`crate::job`]) calls them; a backend overrides
//! the ones it accelerates (x86-64: AVX2 and VBMI2 parsers, AVX2 and zmm CBD; aarch64: the
//! NEON parser and CBD).
//!
//! Every kernel has the contract of its portable body and must give the same result for
//! every input: the backends are tested against these bodies.

use lattice_field::gf3329;
use lattice_field::gf8380417;
use lattice_poly_ntt::mlkem::N;

use crate::cbd::{CBD2_INPUT_BYTES, cbd2_into, cbd3_groups};
use crate::keccak::SHAKE128_RATE;
#[cfg(test)]
use crate::speculation::init_msf;
use crate::speculation::{Msf, launder, protect, update_ge, update_lt};

/// Bytes of PRF output per step of [`Kernels::cbd3_steps`]: eight 3-byte groups.
pub(crate) const CBD3_STEP_BYTES: usize = 24;
/// Coefficients per step of [`Kernels::cbd3_steps`] (four per group).
pub(crate) const CBD3_STEP_COEFFS: usize = 32;

/// The block kernels of a backend (a zero-sized value, made only where they may run).
pub(crate) trait Kernels: Copy {
    /// `SampleNTT`'s candidate parsing (FIPS 203 Alg. 7 l. 5-15): appends the
    /// accepted candidates of `block` (one SHAKE128 block) to `coeffs[filled..]`, stopping
    /// once all `N` are filled; returns the new count (`filled <= N`). Under the
    /// misspeculation flag `msf` (`crate::speculation`): every branch of its loops
    /// updates it, and the values that decide a table index or a store offset are protected
    /// with it (all ones on a mispredicted path, so that nothing read there reaches an
    /// address).
    #[inline(always)]
    fn parse_sample_ntt(
        self,
        block: &[u8; SHAKE128_RATE],
        coeffs: &mut [u16; N],
        filled: usize,
        msf: &mut Msf,
    ) -> usize {
        parse_candidates_sct(block, coeffs, filled, msf)
    }

    /// `RejNTTPoly`'s candidate parsing (FIPS 204 Alg. 30 l. 4-9), as
    /// [`Self::parse_sample_ntt`] with three bytes per candidate and ML-DSA's q.
    #[inline(always)]
    fn parse_rej_ntt_poly(
        self,
        bytes: &[u8],
        coeffs: &mut [u32; lattice_poly_ntt::mldsa::N],
        filled: usize,
        msf: &mut Msf,
    ) -> usize {
        parse_three_byte_candidates(bytes, coeffs, filled, msf)
    }

    /// `SamplePolyCBD_2` (FIPS 203 Alg. 8, eta = 2) of 128 bytes of PRF output into
    /// `out`, values in `[0, q)`. Constant time.
    #[inline(always)]
    fn cbd2(self, bytes: &[u8; CBD2_INPUT_BYTES], out: &mut [u16; N]) {
        cbd2_into(bytes, out);
    }

    /// `SamplePolyCBD_3` (FIPS 203 Alg. 8, eta = 3) on whole steps: each
    /// [`CBD3_STEP_BYTES`] bytes of `bytes` give the next [`CBD3_STEP_COEFFS`] coefficients
    /// of `out` (the PRF output comes in two SHAKE256 blocks, split on a step). The caller
    /// passes whole steps, as many of `bytes` as of `out`. Values in `[0, q)`. Constant
    /// time.
    #[inline(always)]
    fn cbd3_steps(self, bytes: &[u8], out: &mut [u16]) {
        // Whole steps (no division: the division scan allows none in our code).
        debug_assert!(
            out.len().is_multiple_of(CBD3_STEP_COEFFS)
                && bytes.len() * CBD3_STEP_COEFFS == out.len() * CBD3_STEP_BYTES
        );
        cbd3_groups(bytes, out);
    }
}

/// The portable kernels: the bodies above.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PortableKernels;

impl Kernels for PortableKernels {}

/// Parses XOF output into candidates and appends the accepted ones (FIPS 203 Alg. 7
/// l. 5-15) to `coeffs[filled..]`; returns the new number of filled coefficients.
///
/// `bytes.len()` must be a multiple of 3 (whole blocks are); `filled <= N`. Stops as soon as
/// all `N` coefficients are filled, ignoring the rest of `bytes`, exactly as the algorithm
/// stops squeezing. The reference every SIMD parser is tested against. A fresh
/// misspeculation flag (a barrier) per call; the kernels use [`parse_candidates_sct`].
#[cfg(test)]
pub(crate) fn parse_candidates(bytes: &[u8], coeffs: &mut [u16; N], filled: usize) -> usize {
    parse_candidates_sct(bytes, coeffs, filled, &mut init_msf())
}

/// [`parse_candidates`] under the misspeculation flag `msf` (SCT, see
/// `crate::speculation`): the group walk and the exit once full update it, and
/// each group's 24 bits are protected before they decide anything, so on a mispredicted
/// path (past the end of `bytes`, or past `N`) every candidate is 4095, rejected: nothing
/// read there moves the fill position or reaches memory.
// sct: protected(updates, masks)
#[inline(always)]
pub(crate) fn parse_candidates_sct(
    bytes: &[u8],
    coeffs: &mut [u16; N],
    mut filled: usize,
    msf: &mut Msf,
) -> usize {
    debug_assert!(filled <= N);
    let (groups, rest) = bytes.as_chunks::<3>();
    debug_assert!(rest.is_empty(), "partial 3-byte group");
    let mut m = *msf;
    let mut g = 0;
    loop {
        let (g_seen, filled_seen) = (launder(g), launder(filled));
        if g >= groups.len() {
            m = update_ge(m, g_seen, groups.len());
            break;
        }
        m = update_lt(m, g_seen, groups.len());
        if filled >= N {
            m = update_ge(m, filled_seen, N);
            break;
        }
        m = update_lt(m, filled_seen, N);
        let [b0, b1, b2] = groups[g];
        let bits = protect(
            usize::from(b0) | usize::from(b1) << 8 | usize::from(b2) << 16,
            m,
        );
        // Both candidates are below 2^12: d1 = b0 + 256 * (b1 mod 16), d2 = b1 / 16 + 16 * b2.
        let d1 = (bits & 0xfff) as u16;
        let d2 = ((bits >> 12) & 0xfff) as u16;
        if d1 < gf3329::Q {
            coeffs[filled] = d1;
            filled += 1;
        }
        if d2 < gf3329::Q && filled < N {
            coeffs[filled] = d2;
            filled += 1;
        }
        g += 1;
    }
    *msf = m;
    filled
}

/// FIPS 204 Alg. 30 l. 4-9 over `bytes` (a multiple of 3): appends the accepted
/// candidates to `coeffs[filled..]`, stopping once all are filled; returns the new count.
/// Under the misspeculation flag `msf`, as [`parse_candidates_sct`]: on a mispredicted path
/// every candidate is 2^23 - 1, rejected.
// sct: protected(updates, masks)
#[inline(always)]
pub(crate) fn parse_three_byte_candidates(
    bytes: &[u8],
    coeffs: &mut [u32; lattice_poly_ntt::mldsa::N],
    mut filled: usize,
    msf: &mut Msf,
) -> usize {
    let (groups, rest) = bytes.as_chunks::<3>();
    debug_assert!(rest.is_empty(), "partial 3-byte group");
    let mut m = *msf;
    let mut g = 0;
    loop {
        let (g_seen, filled_seen) = (launder(g), launder(filled));
        if g >= groups.len() {
            m = update_ge(m, g_seen, groups.len());
            break;
        }
        m = update_lt(m, g_seen, groups.len());
        if filled >= coeffs.len() {
            m = update_ge(m, filled_seen, coeffs.len());
            break;
        }
        m = update_lt(m, filled_seen, coeffs.len());
        let [b0, b1, b2] = groups[g];
        // CoeffFromThreeBytes (FIPS 204 Alg. 14): the top bit of b2 is dropped.
        let c = protect(
            usize::from(b0) | usize::from(b1) << 8 | usize::from(b2 & 0x7f) << 16,
            m,
        ) & 0x7f_ffff;
        let c = c as u32;
        if c < gf8380417::Q {
            coeffs[filled] = c;
            filled += 1;
        }
        g += 1;
    }
    *msf = m;
    filled
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::speculation::force_misspeculation;

    /// On a mispredicted path (the flag forced set) every group is protected to all ones:
    /// its candidates are 4095 (FIPS 203) and 2^23 - 1 (FIPS 204), rejected, so nothing is
    /// stored and the fill count does not move, whatever the bytes.
    #[test]
    fn misspeculated_groups_are_all_rejected() {
        let bytes: std::vec::Vec<u8> = (0..168u32).map(|i| (i * 37 % 251) as u8).collect();
        let zeros = [0u8; 168];
        for input in [&bytes[..], &zeros[..]] {
            let start: [u16; N] = core::array::from_fn(|i| i as u16);
            for filled in [0, 100, N - 1, N] {
                let (got, coeffs, set) = force_misspeculation(|| {
                    let mut coeffs = start;
                    let mut msf = init_msf();
                    let got = parse_candidates_sct(input, &mut coeffs, filled, &mut msf);
                    (got, coeffs, msf.is_set())
                });
                assert_eq!((got, coeffs), (filled, start), "SampleNTT from {filled}");
                assert!(set);
                // Not forced: the same bytes are accepted (zeros are all below q).
                let mut coeffs = start;
                let accepted = parse_candidates(&zeros, &mut coeffs, filled);
                assert_eq!(accepted, (filled + 112).min(N));
            }
            let mut out = [7u32; lattice_poly_ntt::mldsa::N];
            let got = force_misspeculation(|| {
                parse_three_byte_candidates(input, &mut out, 3, &mut init_msf())
            });
            assert_eq!(
                (got, out),
                (3, [7; lattice_poly_ntt::mldsa::N]),
                "RejNTTPoly"
            );
        }
    }
}
