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
//! misspeculation flag (`crate::speculation`) on every step's masks (its callgrind cost:
//! SECURITY.md, docs/performance-history.md).

use crate::backend::compact::{ACCEPTED, COMPACT};
use core::arch::x86_64::{
    __m256i, _mm_storeu_si128, _mm256_and_si256, _mm256_blend_epi16, _mm256_castsi256_si128,
    _mm256_cmpgt_epi16, _mm256_extracti128_si256, _mm256_loadu2_m128i, _mm256_movemask_epi8,
    _mm256_packs_epi16, _mm256_set1_epi16, _mm256_setr_epi8, _mm256_setzero_si256,
    _mm256_shuffle_epi8, _mm256_srli_epi16,
};

use lattice_field::gf3329::Q;
use lattice_poly_ntt::mlkem::N;

use crate::backend::walk::{LAST_STEP_AT, STEP_BYTES, STEP_CANDIDATES, block_walk, last_slots};
use crate::keccak::SHAKE128_RATE;
use crate::kernels::parse_candidates_sct;
use crate::speculation::{
    Msf, launder, protect, update_ge, update_gt_const, update_le_const, update_lt,
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
// sct: protected(updates, masks), required
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
