//! The step walk shared by the SIMD `SampleNTT` parsers of 24-byte steps (x86-64 AVX2 and
//! aarch64 NEON; FIPS 203 Alg. 7 l. 5-15): a step turns 8 groups of 3 bytes into 16
//! candidates and stores the accepted ones with two 16-byte stores, so it needs 16 free
//! slots. Each parser brings its step (a macro of its own instruction set); this module
//! brings the walk around it and its misspeculation flag (`crate::speculation`):
//! - [`block_walk!`]: the 7 steps of a whole SHAKE128 block as straight-line code, each
//!   preceded by its exit once fewer than 16 slots are free;
//! - [`last_slots`]: the steps after that, into a window over the last 16 slots.

use lattice_poly_ntt::mlkem::N;

use crate::keccak::SHAKE128_RATE;
use crate::speculation::{Msf, launder, update_ge, update_lt};

/// Input bytes per step: 8 groups of 3 bytes.
pub(crate) const STEP_BYTES: usize = 24;

/// Candidates per step (two halves of 8).
pub(crate) const STEP_CANDIDATES: usize = 16;

/// Steps of a whole SHAKE128 block (168 bytes), the scheduler's calls.
pub(crate) const BLOCK_STEPS: usize = 7;
const _: () = assert!(BLOCK_STEPS * STEP_BYTES == SHAKE128_RATE);

/// The last fill count at which a step stores straight into the polynomial.
pub(crate) const LAST_STEP_AT: usize = N - STEP_CANDIDATES;

/// The 7 steps of a block (`$steps: &[[u8; STEP_BYTES]]` of length [`BLOCK_STEPS`]) as
/// straight-line code: before each, the exit once `$filled > N - 16` (updating the flag
/// `$m` on its exit side), then `$step` (an expression of `$s`, the step's bytes) assigned
/// to `$filled`. Evaluates to the index of the step at which the walk left, or
/// [`BLOCK_STEPS`] after the seventh.
///
/// SCT: no walk branch to mispredict (every step reads its own bytes of the block whichever
/// way an exit goes); the continuing side of the exits is not updated (a mispredicted
/// "continue" runs a step on the same block: its two stores of public candidates past the
/// fill position are the Spectre v1.1 case `SECURITY.md` leaves uncovered). No `launder`:
/// `filled > N - 16` leaves `filled` more than one value.
macro_rules! block_walk {
    ($steps:expr, $filled:ident, $m:ident, |$s:ident| $step:expr) => {
        $crate::backend::walk::block_walk!(@steps [0 1 2 3 4 5 6], $steps, $filled, $m, |$s| $step)
    };
    (@steps [$($i:literal)*], $steps:expr, $filled:ident, $m:ident, |$s:ident| $step:expr) => {{
        const { assert!($crate::backend::walk::BLOCK_STEPS == 7) };
        let steps: &[[u8; $crate::backend::walk::STEP_BYTES]] = $steps;
        'walk: {
            $(
                if $filled > $crate::backend::walk::LAST_STEP_AT {
                    $m = $crate::speculation::update_gt_const::<
                        { $crate::backend::walk::LAST_STEP_AT },
                    >($m, $filled);
                    break 'walk $i;
                }
                let $s = &steps[$i];
                $filled = $step;
            )*
            $crate::backend::walk::BLOCK_STEPS
        }
    }};
}
pub(crate) use block_walk;

/// The last slots (fewer than 16 free): the steps of `steps` from `*s` on, each into a
/// window over the last 16 slots with room for a step past its end (`step(bytes, window,
/// at, flag)` stores from `window[at]` and returns `at` plus the accepted count), copied
/// back, the count stopping at `N` as the scalar parser does (the candidates past `N` are
/// dropped; the slots before `filled` go back unchanged). Leaves `*s` at the first step
/// not parsed.
///
/// SCT: the walk's two exits (`s` against the steps, `filled` against `N`) update the flag
/// on both sides; the step protects its masks with the flag it is given.
// sct: protected(updates)
#[inline(always)]
pub(crate) fn last_slots(
    steps: &[[u8; STEP_BYTES]],
    s: &mut usize,
    coeffs: &mut [u16; N],
    filled: &mut usize,
    msf: &mut Msf,
    mut step: impl FnMut(&[u8; STEP_BYTES], &mut [u16; 2 * STEP_CANDIDATES], usize, Msf) -> usize,
) {
    let mut window = [0u16; 2 * STEP_CANDIDATES];
    loop {
        let (s_seen, filled_seen) = (launder(*s), launder(*filled));
        if *s >= steps.len() {
            *msf = update_ge(*msf, s_seen, steps.len());
            break;
        }
        *msf = update_lt(*msf, s_seen, steps.len());
        if *filled >= N {
            *msf = update_ge(*msf, filled_seen, N);
            break;
        }
        *msf = update_lt(*msf, filled_seen, N);
        // N - 16 < filled < N: the walks before stop only past N - 16.
        window[..STEP_CANDIDATES].copy_from_slice(&coeffs[LAST_STEP_AT..]);
        let end = step(&steps[*s], &mut window, *filled - LAST_STEP_AT, *msf);
        coeffs[LAST_STEP_AT..].copy_from_slice(&window[..STEP_CANDIDATES]);
        *filled = (LAST_STEP_AT + end).min(N);
        *s += 1;
    }
}
