//! The `SampleNTT` candidate parser (FIPS 203 Alg. 7 l. 5-15) with AVX-512 VBMI2: 48 bytes
//! (32 candidates) a step, compacted by the register form of `vpcompressw`; the AVX-512
//! token's parser where the CPU has VBMI2 ([`Parser`]), the AVX2 one elsewhere.
//!
//! The input is public (derived from rho), so branching on it and on the masks is fine;
//! speculatively it may not be, hence the misspeculation flag (`crate::speculation`) on
//! every step's mask.

use core::arch::x86_64::{
    __m512i, __mmask32, _mm256_storeu_si256, _mm512_and_si512, _mm512_castsi512_si256,
    _mm512_cmplt_epu16_mask, _mm512_loadu_epi8, _mm512_mask_blend_epi16, _mm512_mask_storeu_epi16,
    _mm512_maskz_compress_epi16, _mm512_maskz_loadu_epi8, _mm512_permutexvar_epi8,
    _mm512_set1_epi16, _mm512_srli_epi16, _mm512_storeu_epi16,
};

use lattice_field::gf3329::Q;
use lattice_poly_ntt::mlkem::N;

use crate::backend::x86_64::avx2::rej::{parse_block_avx2, parse_candidates_avx2};
use crate::keccak::SHAKE128_RATE;
use crate::speculation::{
    Msf, launder, protect, update_ge, update_gt, update_le, update_lt, update_nonzero, update_zero,
};

/// Input bytes per AVX-512 step: 16 groups of 3 bytes.
pub(crate) const WIDE_STEP_BYTES: usize = 48;

/// Candidates per AVX-512 step.
pub(crate) const WIDE_STEP_CANDIDATES: usize = 32;
/// Bytes and candidates of a half step (the last 24 bytes of a SHAKE128 block; candidates
/// stored as 256 bits).
pub(crate) const HALF_STEP_BYTES: usize = WIDE_STEP_BYTES / 2;
pub(crate) const HALF_WINDOW: usize = WIDE_STEP_CANDIDATES / 2;

/// `WIDE_SPREAD[2w], WIDE_SPREAD[2w + 1]`: the input bytes of candidate word `w` of a
/// 48-byte step (`3g, 3g + 1` for `d1 = 2g`, `3g + 1, 3g + 2` for `d2 = 2g + 1`), for
/// `vpermb`, which indexes the whole 64-byte register.
static WIDE_SPREAD: [u8; 64] = wide_spread();

const fn wide_spread() -> [u8; 64] {
    let mut table = [0u8; 64];
    let mut g = 0;
    while g < 16 {
        let b = 3 * g as u8;
        table[4 * g] = b;
        table[4 * g + 1] = b + 1;
        table[4 * g + 2] = b + 1;
        table[4 * g + 3] = b + 2;
        g += 1;
    }
    table
}

cpufeatures::new!(
    cpuid_vbmi2,
    "avx2",
    "popcnt",
    "avx512f",
    "avx512vl",
    "avx512bw",
    "avx512vbmi",
    "avx512vbmi2"
);

/// Proof that the CPU has every feature [`parse_candidates_vbmi2`] enables: AVX2 and
/// POPCNT (the mask's popcount), AVX-512F/VL/BW (masked loads and stores), VBMI (`vpermb`) and
/// VBMI2 (`vpcompressw`); made only by [`Vbmi2::detect`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vbmi2(());

impl Vbmi2 {
    /// The token, if this CPU has the features (detected once, then cached: one atomic
    /// load).
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        cpuid_vbmi2::get().then_some(Self(()))
    }
}

/// Which candidate parser the lane scheduler runs (chosen once per batch from the CPU's
/// features; the two give the same result).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Parser {
    /// [`parse_candidates_avx2`].
    Avx2,
    /// [`parse_candidates_vbmi2`], on a CPU that has VBMI2.
    Vbmi2(Vbmi2),
}

impl Parser {
    /// The fastest parser of an AVX-512 CPU: VBMI2's where it has it, else AVX2's.
    #[inline]
    pub(crate) fn for_avx512() -> Self {
        Vbmi2::detect().map_or(Self::Avx2, Self::Vbmi2)
    }

    /// Runs the parser on one SHAKE128 block (the contract of [`parse_candidates`]).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn parse(
        self,
        block: &[u8; SHAKE128_RATE],
        coeffs: &mut [u16; N],
        filled: usize,
        msf: Msf,
    ) -> (usize, Msf) {
        match self {
            Self::Avx2 => parse_block_avx2(block, coeffs, filled, msf),
            // SAFETY: the `Vbmi2` token exists, so the CPU has every feature the parser
            // enables.
            Self::Vbmi2(_) => unsafe { parse_candidates_vbmi2(block, coeffs, filled, msf) },
        }
    }
}

/// The AVX-512 VBMI2 version of [`parse_candidates`], with the same contract and result.
///
/// One step takes 48 bytes (16 groups), 32 candidates: a masked load of exactly the 48
/// bytes, one `vpermb` giving each candidate its 16-bit word, the same mask / shift /
/// blend as the AVX2 step, `vpcmpuw` into a 32-bit mask register, and `vpcompressw` in
/// its register form (the memory form is microcoded on Zen 4) moving the accepted words to
/// the front; then a store at the fill position, which advances by the popcount: a plain
/// 64-byte store while the step's 32-word window fits below `N`, else a masked store of as
/// many words as there are free slots (the mask stops the polynomial exactly at `N`, where
/// the AVX2 parser hands its last slots to the scalar one). The last 24 bytes of a 168-byte
/// SHAKE128 block take a half step on a masked load of just them: a block is always four
/// steps. Inputs of other lengths (only the tests') finish on the AVX2 parser.
///
/// # Safety
/// The CPU has the features of [`Vbmi2`].
// sct: protected(updates), required
#[inline]
#[target_feature(enable = "avx2,popcnt,avx512f,avx512vl,avx512bw,avx512vbmi,avx512vbmi2")]
pub(crate) unsafe fn parse_candidates_vbmi2(
    bytes: &[u8],
    coeffs: &mut [u16; N],
    filled: usize,
    msf: Msf,
) -> (usize, Msf) {
    debug_assert!(filled <= N);
    debug_assert!(bytes.len().is_multiple_of(3), "whole 3-byte groups");
    // SAFETY: `WIDE_SPREAD` is 64 readable bytes; the load needs no alignment.
    let spread = unsafe { _mm512_loadu_epi8(WIDE_SPREAD.as_ptr().cast()) };
    let mut filled = filled.min(N);
    let mut m = msf;
    let (steps, rest) = bytes.as_chunks::<WIDE_STEP_BYTES>();
    // SCT: the walk and the half-step test update the flag on both sides; the acceptance
    // mask is protected (all ones on a mispredicted path, then cut to the step's valid
    // words: the identity compression and a whole window, whatever was read), and with it
    // the store offset (its popcount).
    let mut s = 0;
    loop {
        let s_seen = launder(s);
        if s >= steps.len() {
            m = update_ge(m, s_seen, steps.len());
            break;
        }
        m = update_lt(m, s_seen, steps.len());
        let step = &steps[s];
        // SAFETY: the mask selects bytes 0..48, all inside `step`; masked-off bytes are not
        // read (no fault), and the load needs no alignment.
        let raw =
            unsafe { _mm512_maskz_loadu_epi8((1u64 << WIDE_STEP_BYTES) - 1, step.as_ptr().cast()) };
        let (packed, accepted) = accept(spread, raw, u32::MAX, m);
        filled = store_accepted::<WIDE_STEP_CANDIDATES>(coeffs, filled, packed, accepted, &mut m);
        s += 1;
    }
    let half = rest.len() == HALF_STEP_BYTES;
    let half_seen = launder(usize::from(half));
    if half {
        m = update_nonzero(m, half_seen);
        // A SHAKE128 block's last 24 bytes: 16 candidates, the low words.
        // SAFETY: the mask selects bytes 0..24, all inside `rest`; masked-off bytes are not
        // read (no fault), and the load needs no alignment.
        let raw =
            unsafe { _mm512_maskz_loadu_epi8((1u64 << HALF_STEP_BYTES) - 1, rest.as_ptr().cast()) };
        let (packed, accepted) = accept(spread, raw, (1 << HALF_WINDOW) - 1, m);
        let filled = store_accepted::<HALF_WINDOW>(coeffs, filled, packed, accepted, &mut m);
        return (filled, m);
    }
    m = update_zero(m, half_seen);
    // Other lengths (not a SHAKE128 block: the tests' inputs) end on the AVX2 parser, which
    // keeps the exact stop at N (and needs no division of the length by 3 here).
    parse_candidates_avx2(rest, coeffs, filled, m)
}

/// Appends the accepted candidates of `packed` (`accepted`'s popcount of them, at most
/// `WINDOW` (32 or 16), at the front) to `coeffs[filled..]`, as many as fit below `N`;
/// returns the new fill count. While the whole `WINDOW`-word window fits below `N`, one
/// plain store (building a masked store's mask costs about half a step); after that a
/// masked store of the words that fit.
// sct: protected(updates)
#[inline]
#[target_feature(enable = "popcnt,avx512f,avx512bw")]
fn store_accepted<const WINDOW: usize>(
    coeffs: &mut [u16; N],
    filled: usize,
    packed: __m512i,
    accepted: __mmask32,
    msf: &mut Msf,
) -> usize {
    const { assert!(WINDOW == WIDE_STEP_CANDIDATES || WINDOW == HALF_WINDOW) };
    debug_assert!(filled <= N && accepted.count_ones() as usize <= WINDOW);
    // The popcount and N - filled are public (SampleNTT's input comes from the public rho);
    // `accepted` is protected (`accept`).
    let accepted = accepted.count_ones() as usize;
    let filled_seen = launder(filled);
    if filled + WINDOW <= N {
        *msf = update_le(*msf, filled_seen + WINDOW, N);
        let window: &mut [u16; WINDOW] = (&mut coeffs[filled..filled + WINDOW])
            .try_into()
            .expect("WINDOW words");
        // SAFETY: `window` is 2 * WINDOW writable bytes, which the 64- or 32-byte store
        // covers exactly; the store is unaligned. The words past the accepted ones are
        // zeros, overwritten by later candidates before the fill count passes them (the
        // contract allows writing past `filled`).
        unsafe {
            if WINDOW == WIDE_STEP_CANDIDATES {
                _mm512_storeu_epi16(window.as_mut_ptr().cast(), packed);
            } else {
                _mm256_storeu_si256(window.as_mut_ptr().cast(), _mm512_castsi512_si256(packed));
            }
        }
        return filled + accepted;
    }
    *msf = update_gt(*msf, filled_seen + WINDOW, N);
    let taken = accepted.min(N - filled);
    let keep = ((1u64 << taken) - 1) as __mmask32;
    let window = coeffs[filled..].as_mut_ptr();
    // SAFETY: `keep` selects words 0..taken of the store, and filled + taken <= N, so every
    // word written is inside `coeffs`; masked-off words are not written (no fault even
    // past the array's end), and the store needs no alignment.
    unsafe { _mm512_mask_storeu_epi16(window.cast(), keep, packed) };
    filled + taken
}

/// One VBMI2 parser step on `raw` (up to 48 loaded bytes, 16 groups of 3): the accepted
/// candidates among those `valid` selects, moved to the front (`vpcompressw`, register
/// form), and the mask of the accepted ones, protected with `msf` (on a mispredicted path,
/// `valid` itself: every word, in order).
///
/// `spread` gives each candidate its 16-bit word (one `vpermb`), the mask / shift / blend
/// of the AVX2 step takes its 12 bits, and `vpcmpuw` compares with q.
// sct: protected(masks)
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw,avx512vbmi,avx512vbmi2")]
fn accept(spread: __m512i, raw: __m512i, valid: __mmask32, msf: Msf) -> (__m512i, __mmask32) {
    let words = _mm512_permutexvar_epi8(spread, raw);
    let candidates = _mm512_mask_blend_epi16(
        0xaaaa_aaaa,
        _mm512_and_si512(words, _mm512_set1_epi16(0x0fff)),
        _mm512_srli_epi16::<4>(words),
    );
    // Candidates are below 2^12 and q below 2^15: the unsigned comparison is exact.
    // Protected before `valid` cuts it: all of the step's words on a mispredicted path.
    let accepted = _mm512_cmplt_epu16_mask(candidates, _mm512_set1_epi16(Q as i16));
    let accepted = protect(accepted as usize, msf) as __mmask32 & valid;
    (_mm512_maskz_compress_epi16(accepted, candidates), accepted)
}
