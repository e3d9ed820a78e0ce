//! Four-way Keccak-f\[1600\] in AVX2 and a minimal four-way SHAKE sponge.
//!
//! # Layout
//! The four states are interleaved word by word: `lanes[i]` is one 256-bit register whose
//! 64-bit element `l` is word `i` (`i = x + 5y`) of state `l`. Every step of the permutation
//! then acts on the four states at once with the same instruction sequence as one scalar
//! state, with no shuffling between states.
//!
//! # The round
//! Each round computes, for all 25 words at once:
//! - theta: column parities `C[x]`, then `D[x] = C[x - 1] ^ rotl(C[x + 1], 1)`;
//! - rho and pi together: `B[pi(x, y)] = rotl(A[x, y] ^ D[x], r[x, y])`, with
//!   `pi(x, y) = (y, 2x + 3y)`;
//! - chi: `A[x, y] = B[x, y] ^ (!B[x + 1, y] & B[x + 2, y])` (one `vpandn`);
//! - iota: `A[0, 0] ^= RC[round]`.
//!
//! AVX2 has no 64-bit rotate, so rotations are two shifts and an `or`, except the rotations
//! by 8 and 56 bits, which move whole bytes and take one `vpshufb`.
//!
//! Everything here runs only on CPUs with AVX2: the functions carry
//! `#[target_feature(enable = "avx2")]` and are reached through [`super::Avx2`], whose
//! values exist only once the feature has been detected at run time.

use core::arch::x86_64::{
    __m256i, _mm256_andnot_si256, _mm256_loadu_si256, _mm256_or_si256, _mm256_permute2x128_si256,
    _mm256_set_epi64x, _mm256_set1_epi64x, _mm256_setr_epi8, _mm256_setzero_si256,
    _mm256_shuffle_epi8, _mm256_slli_epi64, _mm256_srli_epi64, _mm256_storeu_si256,
    _mm256_unpackhi_epi64, _mm256_unpacklo_epi64, _mm256_xor_si256,
};

use zeroize::Zeroize;

/// Number of parallel states.
pub(crate) const WAYS: usize = 4;

/// The SHAKE128 rate in bytes.
pub(crate) const SHAKE128_RATE: usize = 168;

/// The SHAKE256 rate in bytes.
pub(crate) const SHAKE256_RATE: usize = 136;

/// Domain separation and first padding bit of SHAKE (the `1111` suffix, then pad10*1's 1).
const SHAKE_PAD_FIRST: u8 = 0x1f;

/// The last padding bit of pad10*1, in the last byte of the rate.
const PAD_LAST: u8 = 0x80;

/// Number of 64-bit words in a state.
const WORDS: usize = 25;

/// Number of rounds of Keccak-f\[1600\].
const ROUNDS: usize = 24;

/// The iota round constants, generated at compile time by the degree-8 LFSR of FIPS 202
/// Algorithm 5 (`rc(t)`): bit `2^j - 1` of `RC[i]` is `rc(j + 7i)`.
const ROUND_CONSTANTS: [u64; ROUNDS] = round_constants();

const fn round_constants() -> [u64; ROUNDS] {
    let mut out = [0u64; ROUNDS];
    // The LFSR state R of Algorithm 5 with R[0] in bit 0; it starts at 10000000.
    let mut lfsr: u8 = 1;
    let mut i = 0;
    while i < ROUNDS {
        let mut j = 0;
        while j < 7 {
            // rc(t) is R[0] before the step that computes the next output.
            if lfsr & 1 != 0 {
                out[i] |= 1 << ((1u32 << j) - 1);
            }
            // R = 0 || R; R[0] ^= R[8]; R[4] ^= R[8]; R[5] ^= R[8]; R[6] ^= R[8]; truncate.
            lfsr = if lfsr & 0x80 != 0 {
                (lfsr << 1) ^ 0x71
            } else {
                lfsr << 1
            };
            j += 1;
        }
        i += 1;
    }
    out
}

// Spot checks of the generator against the first, second and last published constants.
const _: () = assert!(ROUND_CONSTANTS[0] == 0x0000_0000_0000_0001);
const _: () = assert!(ROUND_CONSTANTS[1] == 0x0000_0000_0000_8082);
const _: () = assert!(ROUND_CONSTANTS[23] == 0x8000_0000_8000_8008);

/// `rotl(x, n)` on each 64-bit element. The byte-sized rotations by 8 and 56 use `vpshufb`
/// with the patterns `$masks.0` and `$masks.1`; the others shift both ways and `or`.
macro_rules! rotl {
    ($masks:ident, $x:expr, 0) => {
        $x
    };
    ($masks:ident, $x:expr, 8) => {
        _mm256_shuffle_epi8($x, $masks.0)
    };
    ($masks:ident, $x:expr, 56) => {
        _mm256_shuffle_epi8($x, $masks.1)
    };
    ($masks:ident, $x:expr, $n:tt) => {{
        let x = $x;
        _mm256_or_si256(
            _mm256_slli_epi64::<$n>(x),
            _mm256_srli_epi64::<{ 64 - $n }>(x),
        )
    }};
}

// `(x + 1) % 5` and friends as tables: at opt-level z a `% 5` in a loop that is not
// unrolled stays a `div` instruction, which the constant-time check forbids in our code
// (even on public values like these indices).
const NEXT: [usize; 5] = [1, 2, 3, 4, 0];
const NEXT2: [usize; 5] = [2, 3, 4, 0, 1];
const PREV: [usize; 5] = [4, 0, 1, 2, 3];

/// One output plane (row `y` of the result) of rho, pi, chi and theta's `D`: the five words
/// of the row come from `$a[src]` rotated by `rot` (listed in order of `x`), each after
/// xoring in `$d[src % 5]`; chi then combines them into `$e[5y .. 5y + 5]`.
macro_rules! plane {
    ($masks:ident, $a:ident, $d:ident, $e:ident, $y:literal;
        $($src:literal, $rot:tt;)*) => {{
        let b = [$(rotl!($masks, _mm256_xor_si256($a[$src], $d[$src % 5]), $rot)),*];
        for x in 0..5 {
            $e[5 * $y + x] =
                _mm256_xor_si256(b[x], _mm256_andnot_si256(b[NEXT[x]], b[NEXT2[x]]));
        }
    }};
}

/// One round from `$a` into `$e` (a macro rather than a function so that it is always
/// inlined: `#[inline(always)]` does not combine with `#[target_feature]`).
///
/// Rho and pi move word `x + 5y` of `a`, rotated by `r[x, y]`, to position
/// `y + 5 * ((2x + 3y) mod 5)`; the planes below list, for each output row, the source word
/// and rotation of each of its five words.
macro_rules! round {
    ($masks:ident, $a:ident, $e:ident, $rc:expr) => {{
        // Theta: column parities, then the value each column is xored with.
        let c: [__m256i; 5] = core::array::from_fn(|x| {
            _mm256_xor_si256(
                _mm256_xor_si256(_mm256_xor_si256($a[x], $a[x + 5]), $a[x + 10]),
                _mm256_xor_si256($a[x + 15], $a[x + 20]),
            )
        });
        let d: [__m256i; 5] = core::array::from_fn(|x| {
            _mm256_xor_si256(c[PREV[x]], rotl!($masks, c[NEXT[x]], 1))
        });
        plane!($masks, $a, d, $e, 0; 0, 0; 6, 44; 12, 43; 18, 21; 24, 14;);
        plane!($masks, $a, d, $e, 1; 3, 28; 9, 20; 10, 3; 16, 45; 22, 61;);
        plane!($masks, $a, d, $e, 2; 1, 1; 7, 6; 13, 25; 19, 8; 20, 18;);
        plane!($masks, $a, d, $e, 3; 4, 27; 5, 36; 11, 10; 17, 15; 23, 56;);
        plane!($masks, $a, d, $e, 4; 2, 62; 8, 55; 14, 39; 15, 41; 21, 2;);
        // Iota. The constant's bit pattern is reinterpreted, not converted.
        $e[0] = _mm256_xor_si256($e[0], _mm256_set1_epi64x($rc as i64));
    }};
}

/// Keccak-f\[1600\] applied to four interleaved states.
#[inline]
#[target_feature(enable = "avx2")]
fn keccak_f1600_x4(state: &mut [__m256i; WORDS]) {
    // Per 64-bit element, destination byte k takes source byte (k - 1) mod 8 (rotl 8) or
    // (k + 1) mod 8 (rotl 56); vpshufb works within 128-bit halves, so the pattern repeats.
    let masks = (
        _mm256_setr_epi8(
            7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, 14, //
            7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, 14,
        ),
        _mm256_setr_epi8(
            1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8, //
            1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8,
        ),
    );
    // Two rounds per iteration, alternating between the state and a scratch copy.
    let mut a = *state;
    let mut e = [_mm256_setzero_si256(); WORDS];
    for rc in ROUND_CONSTANTS.as_chunks::<2>().0 {
        round!(masks, a, e, rc[0]);
        round!(masks, e, a, rc[1]);
    }
    *state = a;
}

/// Four SHAKE sponges with the same rate `RATE` (168 for SHAKE128, 136 for SHAKE256), run
/// in lock step.
///
/// Only what ML-KEM needs: one short input per lane (shorter than the rate, so it is
/// absorbed in one block), then any number of whole output blocks from all four lanes.
/// The state is wiped on drop (the PRF absorbs the secret sigma).
pub(crate) struct ShakeX4<const RATE: usize> {
    lanes: [__m256i; WORDS],
}

impl<const RATE: usize> ShakeX4<RATE> {
    const VALID_RATE: () = assert!(
        (RATE == SHAKE128_RATE || RATE == SHAKE256_RATE) && RATE % 32 == 8,
        "SHAKE128 or SHAKE256 rate: whole groups of 4 words and one more"
    );

    /// Groups of four words in the rate, moved with one transpose each.
    const FULL_GROUPS: usize = RATE / 32;

    /// Absorbs `inputs[l]` into lane `l` with SHAKE padding: `input || 0x1f || 0* || 0x80`
    /// (the two padding bytes merge into `0x9f` when the input is `RATE - 1` bytes).
    ///
    /// Each input must be shorter than `RATE` (checked; callers pass 33 or 34 bytes). No
    /// permutation runs yet: squeezing starts with one.
    #[target_feature(enable = "avx2")]
    pub(crate) fn absorb(inputs: [&[u8]; WAYS]) -> Self {
        let () = Self::VALID_RATE;
        let mut blocks = [[0u8; RATE]; WAYS];
        for (block, input) in blocks.iter_mut().zip(inputs) {
            assert!(input.len() < RATE, "input longer than one block");
            block[..input.len()].copy_from_slice(input);
            block[input.len()] ^= SHAKE_PAD_FIRST;
            block[RATE - 1] ^= PAD_LAST;
        }
        let mut lanes = [_mm256_setzero_si256(); WORDS];
        // Whole groups of four words: one 32-byte load per lane, then a transpose.
        for (g, group) in lanes[..Self::FULL_GROUPS * 4]
            .chunks_exact_mut(4)
            .enumerate()
        {
            let rows: [__m256i; WAYS] = core::array::from_fn(|l| {
                let bytes: &[u8; 32] = blocks[l][32 * g..32 * g + 32].try_into().expect("32 bytes");
                // SAFETY: `bytes` is 32 readable bytes; the load is unaligned.
                unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
            });
            group.copy_from_slice(&transpose(rows));
        }
        // The last word of the rate (168 = 32 * 5 + 8, 136 = 32 * 4 + 8).
        let word = |l: usize| {
            let bytes = blocks[l][RATE - 8..].try_into().expect("8 bytes");
            // A bit pattern, not a number: the cast reinterprets.
            u64::from_le_bytes(bytes) as i64
        };
        lanes[RATE / 8 - 1] = _mm256_set_epi64x(word(3), word(2), word(1), word(0));
        blocks.as_flattened_mut().zeroize();
        Self { lanes }
    }

    /// Squeezes `outs[l].len() / RATE` whole blocks from every lane into `outs[l]`: one
    /// permutation per block, then the first `RATE` bytes of each state.
    ///
    /// The four outputs must have the same length, a multiple of `RATE` (checked in debug
    /// builds; a `%` by the rate would stay a `div` at opt-level z).
    #[target_feature(enable = "avx2")]
    pub(crate) fn squeeze_blocks(&mut self, outs: [&mut [u8]; WAYS]) {
        let len = outs[0].len();
        debug_assert!(
            len.is_multiple_of(RATE) && outs.iter().all(|o| o.len() == len),
            "whole blocks, same length in every lane"
        );
        let [o0, o1, o2, o3] = outs;
        let chunks = o0
            .chunks_exact_mut(RATE)
            .zip(o1.chunks_exact_mut(RATE))
            .zip(o2.chunks_exact_mut(RATE))
            .zip(o3.chunks_exact_mut(RATE));
        for (((b0, b1), b2), b3) in chunks {
            keccak_f1600_x4(&mut self.lanes);
            let mut blocks = [b0, b1, b2, b3];
            self.extract(&mut blocks);
        }
    }

    /// Writes the first `RATE` bytes of state `l` to `blocks[l]` (each exactly `RATE` long).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn extract(&self, blocks: &mut [&mut [u8]; WAYS]) {
        for (g, group) in self.lanes[..Self::FULL_GROUPS * 4]
            .chunks_exact(4)
            .enumerate()
        {
            let rows = transpose(group.try_into().expect("4 words"));
            for (block, row) in blocks.iter_mut().zip(rows) {
                let bytes: &mut [u8; 32] = (&mut block[32 * g..32 * g + 32])
                    .try_into()
                    .expect("32 bytes");
                // SAFETY: `bytes` is 32 writable bytes; the store is unaligned.
                unsafe { _mm256_storeu_si256(bytes.as_mut_ptr().cast(), row) };
            }
        }
        let mut last = [0u64; WAYS];
        // SAFETY: `last` is 32 writable bytes; the store is unaligned.
        unsafe { _mm256_storeu_si256(last.as_mut_ptr().cast(), self.lanes[RATE / 8 - 1]) };
        for (block, word) in blocks.iter_mut().zip(last) {
            block[RATE - 8..RATE].copy_from_slice(&word.to_le_bytes());
        }
    }
}

/// Transposes a 4 x 4 matrix of 64-bit words held in four registers: element `j` of
/// output `i` is element `i` of input `j`. It turns four words of one state each into
/// one word of four states (absorbing) and back (squeezing).
#[inline]
#[target_feature(enable = "avx2")]
fn transpose(rows: [__m256i; 4]) -> [__m256i; 4] {
    let [r0, r1, r2, r3] = rows;
    // [r0.0, r1.0, r0.2, r1.2], [r0.1, r1.1, r0.3, r1.3], and the same for r2, r3.
    let t0 = _mm256_unpacklo_epi64(r0, r1);
    let t1 = _mm256_unpackhi_epi64(r0, r1);
    let t2 = _mm256_unpacklo_epi64(r2, r3);
    let t3 = _mm256_unpackhi_epi64(r2, r3);
    [
        _mm256_permute2x128_si256::<0x20>(t0, t2),
        _mm256_permute2x128_si256::<0x20>(t1, t3),
        _mm256_permute2x128_si256::<0x31>(t0, t2),
        _mm256_permute2x128_si256::<0x31>(t1, t3),
    ]
}

impl<const RATE: usize> Drop for ShakeX4<RATE> {
    fn drop(&mut self) {
        self.lanes.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::Avx2;
    use proptest::prelude::*;
    use sha3::digest::{ExtendableOutput, Update, XofReader};
    use sha3::{Shake128, Shake256};
    use std::vec::Vec;

    const MAX_BLOCKS: usize = 5;

    fn expected<X: Default + Update + ExtendableOutput>(input: &[u8], out: &mut [u8]) {
        let mut x = X::default();
        x.update(input);
        x.finalize_xof().read(out);
    }

    /// Runs the 4-way sponge on `inputs` and checks each lane against sha3 for `blocks`
    /// output blocks. Returns false (after printing a note) without AVX2.
    fn check<const RATE: usize, X: Default + Update + ExtendableOutput>(
        inputs: [&[u8]; WAYS],
        blocks: usize,
    ) -> bool {
        let Some(avx2) = Avx2::detected() else {
            std::println!("note: CPU without AVX2, 4-way Keccak test skipped");
            return false;
        };
        let mut out = [[0u8; MAX_BLOCKS * 168]; WAYS];
        let [o0, o1, o2, o3] = &mut out;
        let len = blocks * RATE;
        avx2.shake_x4::<RATE>(
            inputs,
            [
                &mut o0[..len],
                &mut o1[..len],
                &mut o2[..len],
                &mut o3[..len],
            ],
        );
        for (l, input) in inputs.iter().enumerate() {
            let mut want = [0u8; MAX_BLOCKS * 168];
            expected::<X>(input, &mut want[..len]);
            assert_eq!(
                &out[l][..len],
                &want[..len],
                "lane {l}, rate {RATE}, {blocks} blocks"
            );
        }
        true
    }

    #[test]
    fn round_constants_match_fips202() {
        // The published table (FIPS 202 section 3.2.5, as tabulated in the Keccak reference).
        let published: [u64; ROUNDS] = [
            0x0000000000000001,
            0x0000000000008082,
            0x800000000000808a,
            0x8000000080008000,
            0x000000000000808b,
            0x0000000080000001,
            0x8000000080008081,
            0x8000000000008009,
            0x000000000000008a,
            0x0000000000000088,
            0x0000000080008009,
            0x000000008000000a,
            0x000000008000808b,
            0x800000000000008b,
            0x8000000000008089,
            0x8000000000008003,
            0x8000000000008002,
            0x8000000000000080,
            0x000000000000800a,
            0x800000008000000a,
            0x8000000080008081,
            0x8000000000008080,
            0x0000000080000001,
            0x8000000080008008,
        ];
        assert_eq!(ROUND_CONSTANTS, published);
    }

    #[test]
    fn known_lengths_and_edges() {
        // Empty inputs, the ML-KEM lengths, and the longest single-block inputs (where the
        // two padding bytes share one byte), in every lane position.
        for (a, b) in [(0, 0), (33, 34), (34, 33), (135, 167), (167, 135), (1, 136)] {
            let x = [0xa5u8; 168];
            let y: [u8; 168] = core::array::from_fn(|i| i as u8);
            if a < SHAKE128_RATE
                && b < SHAKE128_RATE
                && !check::<SHAKE128_RATE, Shake128>([&x[..a], &y[..b], &y[..a], &x[..b]], 3)
            {
                return;
            }
            if a < SHAKE256_RATE && b < SHAKE256_RATE {
                check::<SHAKE256_RATE, Shake256>([&y[..b], &x[..a], &x[..b], &y[..a]], 2);
            }
        }
    }

    fn lane_inputs(max: usize) -> impl Strategy<Value = [Vec<u8>; WAYS]> {
        let lane = || proptest::collection::vec(any::<u8>(), 0..max);
        (lane(), lane(), lane(), lane()).prop_map(|(a, b, c, d)| [a, b, c, d])
    }

    proptest! {
        #[test]
        fn shake128_x4_matches_sha3(inputs in lane_inputs(SHAKE128_RATE), blocks in 1..=MAX_BLOCKS) {
            let [a, b, c, d] = &inputs;
            check::<SHAKE128_RATE, Shake128>([a, b, c, d], blocks);
        }

        #[test]
        fn shake256_x4_matches_sha3(inputs in lane_inputs(SHAKE256_RATE), blocks in 1..=MAX_BLOCKS) {
            let [a, b, c, d] = &inputs;
            check::<SHAKE256_RATE, Shake256>([a, b, c, d], blocks);
        }
    }
}
