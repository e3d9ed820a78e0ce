//! The `SampleNTT` candidate parser (FIPS 203 Alg. 7 l. 5-15) in AVX2.
//!
//! One step takes 24 bytes (8 groups of 3), which hold 16 candidates of 12 bits:
//! 1. two overlapping 16-byte loads put bytes 0..16 in the low half of a register and bytes
//!    8..24 in the high half; one `vpshufb` then gives every candidate its own 16-bit word
//!    (bytes `3g, 3g + 1` for `d1` and `3g + 1, 3g + 2` for `d2` of group `g`);
//! 2. even words keep their low 12 bits (`d1 = b0 + 256 * (b1 mod 16)`), odd words are
//!    shifted right by 4 (`d2 = b1 / 16 + 16 * b2`), merged with one blend;
//! 3. `vpcmpgtw` against q marks the accepted candidates, packed to bytes and gathered by
//!    `vpmovmskb` into one 8-bit mask per 128-bit half;
//! 4. each half is compacted by `vpshufb` with a table entry indexed by its mask (accepted
//!    words moved to the front, in order), stored with an unaligned 16-byte store at the
//!    current fill position, which then advances by the number of accepted candidates.
//!
//! A step stores 16 bytes twice, i.e. up to 16 coefficient slots past the fill position
//! whatever the mask, so it only runs while 16 slots are free: the last few coefficients
//! take whole steps into a window over the last 16 slots (copied back, the count stopping
//! exactly at N, as the scalar parser does); bytes past the last whole step (only the
//! tests' lengths) go through the scalar parser. The input is public (derived from rho), so
//! branching on it and on the masks is fine; speculatively it may not be, hence the
//! misspeculation flag (`crate::speculation`) on every step's masks.
//!
//! The callgrind cost of that flag, on top of the window (measured together, ML-KEM-768,
//! AVX2 path): key generation 119,349 -> 119,452, encapsulation from ek bytes 111,106 ->
//! 111,181 instructions.

use crate::backend::compact::{ACCEPTED, COMPACT};
use core::arch::x86_64::{
    __m256i, _mm_storeu_si128, _mm256_and_si256, _mm256_blend_epi16, _mm256_castsi256_si128,
    _mm256_cmpgt_epi16, _mm256_extracti128_si256, _mm256_loadu2_m128i, _mm256_movemask_epi8,
    _mm256_packs_epi16, _mm256_set1_epi16, _mm256_setr_epi8, _mm256_setzero_si256,
    _mm256_shuffle_epi8, _mm256_srli_epi16,
};

use core::arch::x86_64::{
    __m512i, __mmask32, _mm256_storeu_si256, _mm512_and_si512, _mm512_castsi512_si256,
    _mm512_cmplt_epu16_mask, _mm512_loadu_epi8, _mm512_mask_blend_epi16, _mm512_mask_storeu_epi16,
    _mm512_maskz_compress_epi16, _mm512_maskz_loadu_epi8, _mm512_permutexvar_epi8,
    _mm512_set1_epi16, _mm512_srli_epi16, _mm512_storeu_epi16,
};

use lattice_field::gf3329::Q;
use lattice_poly_ntt::mlkem::N;

use crate::backend::walk::{LAST_STEP_AT, STEP_BYTES, STEP_CANDIDATES, block_walk, last_slots};
use crate::keccak::SHAKE128_RATE;
use crate::kernels::parse_candidates_sct;
use crate::speculation::{
    Msf, launder, protect, update_ge, update_gt, update_gt_const, update_le, update_le_const,
    update_lt, update_nonzero, update_zero,
};

/// One AVX2 step (a macro: a function with the `avx2` feature is not always inlined, and
/// the whole-block walk is straight-line code): the accepted candidates of `$step` (24
/// bytes) stored at `$coeffs[$filled..]` (a slice with 16 free slots from `$filled`);
/// evaluates to the new fill count. The acceptance mask is protected with `$msf`: on a
/// mispredicted path it is all ones, so the table indices are 255 and the store offsets
/// advance by 8 per half, whatever was read.
macro_rules! step_avx2 {
    ($consts:expr, $step:expr, $coeffs:expr, $filled:expr, $msf:expr) => {{
        let (consts, step, coeffs, filled): (&StepConstants, &[u8; STEP_BYTES], &mut [u16], usize) =
            ($consts, $step, $coeffs, $filled);
        debug_assert!(filled + STEP_CANDIDATES <= coeffs.len());
        // SAFETY: `step` is 24 readable bytes; the loads read bytes 0..16 and 8..24 of it,
        // unaligned loads need no alignment.
        let raw = unsafe { _mm256_loadu2_m128i(step[8..].as_ptr().cast(), step.as_ptr().cast()) };
        let words = _mm256_shuffle_epi8(raw, consts.spread);
        let candidates = _mm256_blend_epi16::<0b1010_1010>(
            _mm256_and_si256(words, consts.low12),
            _mm256_srli_epi16::<4>(words),
        );
        let accepted = _mm256_cmpgt_epi16(consts.q, candidates);
        // Bytes 0..8 of each half hold that half's 8 flags (0x00 or 0xff).
        let flags = protect(
            _mm256_movemask_epi8(_mm256_packs_epi16(accepted, consts.zero)) as u32 as usize,
            $msf,
        );
        let (m0, m1) = (flags & 0xff, (flags >> 16) & 0xff);
        // SAFETY: both table entries are 16 readable bytes.
        let pattern = unsafe {
            _mm256_loadu2_m128i(COMPACT[m1].as_ptr().cast(), COMPACT[m0].as_ptr().cast())
        };
        let packed = _mm256_shuffle_epi8(candidates, pattern);

        // filled + 16 <= N, so both 8-word windows are inside `coeffs`.
        let low: &mut [u16; 8] = (&mut coeffs[filled..filled + 8])
            .try_into()
            .expect("8 words");
        // SAFETY: `low` is 16 writable bytes; the store is unaligned.
        unsafe { _mm_storeu_si128(low.as_mut_ptr().cast(), _mm256_castsi256_si128(packed)) };
        let filled = filled + usize::from(ACCEPTED[m0]);
        let high: &mut [u16; 8] = (&mut coeffs[filled..filled + 8])
            .try_into()
            .expect("8 words");
        // SAFETY: `high` is 16 writable bytes; the store is unaligned.
        unsafe {
            _mm_storeu_si128(
                high.as_mut_ptr().cast(),
                _mm256_extracti128_si256::<1>(packed),
            );
        };
        filled + usize::from(ACCEPTED[m1])
    }};
}

/// `walk::last_slots` with the AVX2 step (fewer than 16 slots free), for both AVX2
/// parsers.
// sct: protected(updates, masks)
#[inline]
#[target_feature(enable = "avx2")]
fn last_slots_avx2(
    consts: &StepConstants,
    steps: &[[u8; STEP_BYTES]],
    s: &mut usize,
    coeffs: &mut [u16; N],
    filled: &mut usize,
    msf: &mut Msf,
) {
    last_slots(steps, s, coeffs, filled, msf, |step, window, at, m| {
        step_avx2!(consts, step, &mut window[..], at, m)
    });
}

/// The AVX2 version of [`parse_candidates`] on one whole SHAKE128 block (what the scheduler
/// parses), with the same contract and the same result: appends the accepted candidates
/// of `block` to `coeffs[filled..]`, stops once `N` are filled, and returns the new fill
/// count and the flag.
///
/// SCT (`crate::speculation`): the seven steps are straight-line code (no walk
/// branch to mispredict; each step's `filled + 16 <= N` exit updates the flag on its exit
/// side: `walk::block_walk!`); the last slots walk in a loop whose two exits update the
/// flag on both sides (`walk::last_slots`); each step's acceptance mask is protected
/// (`step_avx2!`).
// sct: protected(updates, masks)
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) fn parse_block_avx2(
    block: &[u8; SHAKE128_RATE],
    coeffs: &mut [u16; N],
    filled: usize,
    msf: Msf,
) -> (usize, Msf) {
    debug_assert!(filled <= N);
    let consts = StepConstants::new();
    let mut filled = filled;
    let mut m = msf;
    let (steps, _) = block.as_chunks::<STEP_BYTES>();
    let mut s = block_walk!(steps, filled, m, |step| step_avx2!(
        &consts, step, coeffs, filled, m
    ));
    last_slots_avx2(&consts, steps, &mut s, coeffs, &mut filled, &mut m);
    (filled, m)
}

/// The AVX2 version of [`parse_candidates`] on any whole number of 3-byte groups (the
/// tests' lengths, and the VBMI2 parser's last bytes), with the same contract and result.
///
/// SCT: the step walk, the last slots and the scalar tail's walk update the flag on both
/// sides of their exits; each step's acceptance mask is protected, as are the tail's
/// groups.
// sct: protected(updates, masks)
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) fn parse_candidates_avx2(
    bytes: &[u8],
    coeffs: &mut [u16; N],
    filled: usize,
    msf: Msf,
) -> (usize, Msf) {
    debug_assert!(filled <= N);
    let consts = StepConstants::new();
    let mut filled = filled;
    let mut m = msf;
    let (steps, _) = bytes.as_chunks::<STEP_BYTES>();
    let mut s = 0;
    loop {
        let (s_seen, filled_seen) = (launder(s), launder(filled));
        if s >= steps.len() {
            m = update_ge(m, s_seen, steps.len());
            break;
        }
        m = update_lt(m, s_seen, steps.len());
        if filled > LAST_STEP_AT {
            m = update_gt_const::<LAST_STEP_AT>(m, filled_seen);
            break;
        }
        m = update_le_const::<LAST_STEP_AT>(m, filled_seen);
        filled = step_avx2!(&consts, &steps[s], coeffs, filled, m);
        s += 1;
    }
    last_slots_avx2(&consts, steps, &mut s, coeffs, &mut filled, &mut m);
    // The slots past `filled` that the stores touched hold candidates (all below q) or
    // zeros, and a later step or parser overwrites them; slots never reached keep their
    // previous value, as with the scalar parser. Bytes past the last whole step (only the
    // tests' lengths) go to the scalar parser.
    let filled = parse_candidates_sct(&bytes[s * STEP_BYTES..], coeffs, filled, &mut m);
    (filled, m)
}

/// The constant registers of an AVX2 step (`step_avx2!`).
struct StepConstants {
    spread: __m256i,
    low12: __m256i,
    q: __m256i,
    zero: __m256i,
}

impl StepConstants {
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new() -> Self {
        Self {
            // Low half: bytes 0..12 of the step, taken from a load of bytes 0..16. High
            // half: bytes 12..24, at offsets 4..16 of a load of bytes 8..24. Each pair of
            // output bytes is one candidate's little-endian word.
            spread: _mm256_setr_epi8(
                0, 1, 1, 2, 3, 4, 4, 5, 6, 7, 7, 8, 9, 10, 10, 11, //
                4, 5, 5, 6, 7, 8, 8, 9, 10, 11, 11, 12, 13, 14, 14, 15,
            ),
            low12: _mm256_set1_epi16(0x0fff),
            // q fits an i16; candidates are below 2^12, so the signed comparison is exact.
            q: _mm256_set1_epi16(Q as i16),
            zero: _mm256_setzero_si256(),
        }
    }
}

/// Input bytes per AVX-512 step: 16 groups of 3 bytes.
const WIDE_STEP_BYTES: usize = 48;

/// Candidates per AVX-512 step.
const WIDE_STEP_CANDIDATES: usize = 32;
/// Bytes and candidates of a half step (the last 24 bytes of a SHAKE128 block; candidates
/// stored as 256 bits).
const HALF_STEP_BYTES: usize = WIDE_STEP_BYTES / 2;
const HALF_WINDOW: usize = WIDE_STEP_CANDIDATES / 2;

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
// sct: protected(updates)
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

#[cfg(test)]
mod tests {
    use super::super::Avx2Kernels;
    use super::*;
    use crate::kernels::{Kernels, parse_candidates};
    use crate::speculation::{force_misspeculation, init_msf};
    use lattice_poly_ntt::backend::Avx2;
    use proptest::prelude::*;
    use std::vec::Vec;

    /// Runs the scalar parser and every SIMD parser the CPU has on copies of the same
    /// starting buffer; they must agree on the returned count and on every coefficient
    /// below it, and leave the slots below the start alone.
    fn agree(bytes: &[u8], filled: usize) {
        let Some(avx2) = Avx2::detect() else {
            std::println!("note: CPU without AVX2, SIMD parser test skipped");
            return;
        };
        let start: [u16; N] = core::array::from_fn(|i| (i as u16).wrapping_mul(7919) % Q);
        let mut scalar = start;
        let n_scalar = parse_candidates(bytes, &mut scalar, filled);
        let check = |name: &str, parse: &dyn Fn(&mut [u16; N]) -> usize| {
            let mut simd = start;
            let n_simd = parse(&mut simd);
            let len = bytes.len();
            assert_eq!(
                n_scalar, n_simd,
                "{name} fill count (len {len}, from {filled})"
            );
            assert_eq!(scalar[..n_scalar], simd[..n_simd], "{name} coefficients");
            assert_eq!(simd[..filled], start[..filled], "{name} below the start");
        };
        check("AVX2", &|c| {
            // SAFETY: `avx2` exists, so the CPU has AVX2.
            unsafe { parse_candidates_avx2(bytes, c, filled, init_msf()).0 }
        });
        if let Some(block) = bytes.first_chunk::<SHAKE128_RATE>()
            && bytes.len() == SHAKE128_RATE
        {
            check("AVX2 block", &|c| {
                Avx2Kernels::new(avx2).parse_sample_ntt(block, c, filled, &mut init_msf())
            });
        }
        if let Some(vbmi2) = Vbmi2::detect() {
            // SAFETY: `vbmi2` exists, so the CPU has the parser's features.
            check("VBMI2", &|c| unsafe {
                parse_candidates_vbmi2(bytes, c, filled, init_msf()).0
            });
            if let Some(block) = bytes.first_chunk::<SHAKE128_RATE>()
                && bytes.len() == SHAKE128_RATE
            {
                // SAFETY: as above.
                check("VBMI2 block", &|c| unsafe {
                    Parser::Vbmi2(vbmi2).parse(block, c, filled, init_msf()).0
                });
            }
        } else {
            std::println!("note: CPU without AVX-512 VBMI2, its parser not tested here");
        }
    }

    /// The 12-bit candidates of `bytes`' whole groups, in order, none rejected.
    fn raw_candidates(bytes: &[u8]) -> Vec<u16> {
        bytes
            .as_chunks::<3>()
            .0
            .iter()
            .flat_map(|&[b0, b1, b2]| {
                let (b0, b1, b2) = (u16::from(b0), u16::from(b1), u16::from(b2));
                [b0 | (b1 & 0x0f) << 8, b1 >> 4 | b2 << 4]
            })
            .collect()
    }

    /// What a parser does on a mispredicted path (the flag set), where every acceptance
    /// mask is protected to all ones: each SIMD step, of `windows` candidates in turn (the
    /// ones of `bytes` in order), takes all of them, up to N (the table index is 255, the
    /// store offset advances by the whole step); the groups no SIMD step covers go to the
    /// scalar parser, which rejects them all.
    fn misspeculated(
        bytes: &[u8],
        start: &[u16; N],
        filled: usize,
        windows: &[usize],
    ) -> (usize, Vec<u16>) {
        let raw = raw_candidates(bytes);
        let mut coeffs = start.to_vec();
        let (mut at, mut f) = (0, filled);
        for &w in windows {
            let take = w.min(N - f);
            coeffs[f..f + take].copy_from_slice(&raw[at..at + take]);
            (at, f) = (at + w, f + take);
        }
        coeffs.truncate(f);
        (f, coeffs)
    }

    /// Each SIMD parser with the misspeculation flag forced set gives what `misspeculated`
    /// says: a protect missing on a table index or a store offset would filter a candidate,
    /// or move the fill count by the real popcount, and fail.
    #[test]
    fn misspeculated_masks_take_every_candidate() {
        let Some(avx2) = Avx2::detect() else {
            std::println!("note: CPU without AVX2, SIMD parser test skipped");
            return;
        };
        // Candidates on both sides of q, and 4095.
        let bytes: Vec<u8> = (0..3 * 56 + 33)
            .map(|i: u32| (i.wrapping_mul(0x9e37_79b9) >> 24) as u8 | 0x80)
            .collect();
        let start: [u16; N] = core::array::from_fn(|i| (i as u16).wrapping_mul(7919) % Q);
        for len in (0..=bytes.len()).step_by(3) {
            let bytes = &bytes[..len];
            for filled in [0, 1, 100, N - 17, N - 16, N - 15, N - 1, N] {
                let check =
                    |name: &str, windows: &[usize], parse: &dyn Fn(&mut [u16; N]) -> usize| {
                        let mut coeffs = start;
                        let got = force_misspeculation(|| parse(&mut coeffs));
                        let (want, want_coeffs) = misspeculated(bytes, &start, filled, windows);
                        assert_eq!(got, want, "{name} fill count (len {len}, from {filled})");
                        assert_eq!(
                            coeffs[..got],
                            want_coeffs[..],
                            "{name} (len {len}, from {filled})"
                        );
                    };
                let avx2_windows = std::vec![STEP_CANDIDATES; len / STEP_BYTES];
                check("AVX2", &avx2_windows, &|c| {
                    // SAFETY: `avx2` exists, so the CPU has AVX2.
                    let (got, msf) = unsafe { parse_candidates_avx2(bytes, c, filled, init_msf()) };
                    assert!(msf.is_set());
                    got
                });
                let block = bytes
                    .first_chunk::<SHAKE128_RATE>()
                    .filter(|_| len == SHAKE128_RATE);
                if let Some(block) = block {
                    check("AVX2 block", &avx2_windows, &|c| {
                        let mut msf = init_msf();
                        let got =
                            Avx2Kernels::new(avx2).parse_sample_ntt(block, c, filled, &mut msf);
                        assert!(msf.is_set());
                        got
                    });
                }
                if let Some(vbmi2) = Vbmi2::detect() {
                    let mut windows = std::vec![WIDE_STEP_CANDIDATES; len / WIDE_STEP_BYTES];
                    let rest = len % WIDE_STEP_BYTES;
                    if rest == HALF_STEP_BYTES {
                        windows.push(HALF_WINDOW);
                    } else {
                        windows.extend(core::iter::repeat_n(STEP_CANDIDATES, rest / STEP_BYTES));
                    }
                    // SAFETY: `vbmi2` exists, so the CPU has the parser's features.
                    check("VBMI2", &windows, &|c| unsafe {
                        let (got, msf) = parse_candidates_vbmi2(bytes, c, filled, init_msf());
                        assert!(msf.is_set());
                        got
                    });
                    if let Some(block) = block {
                        // SAFETY: as above.
                        check("VBMI2 block", &windows, &|c| unsafe {
                            let (got, msf) =
                                Parser::Vbmi2(vbmi2).parse(block, c, filled, init_msf());
                            assert!(msf.is_set());
                            got
                        });
                    }
                }
            }
        }
    }

    #[test]
    fn tables() {
        assert_eq!(COMPACT[0], [0x80; 16]);
        assert_eq!(COMPACT[0xff], core::array::from_fn(|i| i as u8));
        assert_eq!(COMPACT[0b1000_0010][..4], [2, 3, 14, 15]);
        assert!(COMPACT[0b1000_0010][4..].iter().all(|&b| b == 0x80));
        for m in 0..256 {
            assert_eq!(u32::from(ACCEPTED[m]), (m as u32).count_ones());
        }
    }

    #[test]
    fn edge_values() {
        // Groups encoding (d1, d2) for the edge candidates: 4095, q = 3329, q - 1 = 3328, 0.
        let group = |d1: u16, d2: u16| [d1 as u8, ((d1 >> 8) | (d2 << 4)) as u8, (d2 >> 4) as u8];
        let edges = [4095, Q, Q - 1, 0, 1, Q + 1];
        for &d1 in &edges {
            for &d2 in &edges {
                let bytes: Vec<u8> = (0..3 * 56).flat_map(|_| group(d1, d2)).collect();
                for filled in [0, 100, N - 17, N - 16, N - 15, N - 1, N] {
                    agree(&bytes, filled);
                }
            }
        }
        // Mixed edges at every position.
        let bytes: Vec<u8> = (0..168usize)
            .flat_map(|i| group(edges[i % edges.len()], edges[(i * 5 + 1) % edges.len()]))
            .collect();
        for filled in 0..=N {
            agree(&bytes, filled);
        }
    }

    #[test]
    fn all_rejected_and_all_accepted() {
        agree(&[0xff; 504], 0);
        agree(&[0xff; 504], N - 16);
        agree(&[0x00; 504], 0);
        agree(&[0x00; 504], N - 16);
        agree(&[0x00; 504], N - 17);
        // Lengths that are not a multiple of 24 leave a scalar tail.
        for len in (0..=72).step_by(3) {
            agree(&[0x00; 72][..len], 240);
            agree(&[0x11; 72][..len], 0);
        }
    }

    proptest! {
        #[test]
        fn matches_scalar(
            groups in proptest::collection::vec(any::<[u8; 3]>(), 0..200),
            filled in 0..=N,
        ) {
            agree(groups.as_flattened(), filled);
        }

        #[test]
        fn matches_scalar_with_many_rejections(
            groups in proptest::collection::vec(
                prop_oneof![
                    3 => Just([0xff, 0xff, 0xff]),
                    1 => Just([0x01, 0x0d, 0xd0]), // d1 = q, d2 = q - 1 = 3328
                    1 => any::<[u8; 3]>(),
                ],
                0..200,
            ),
            filled in prop_oneof![Just(0usize), N - 20..=N],
        ) {
            agree(groups.as_flattened(), filled);
        }
    }
}
