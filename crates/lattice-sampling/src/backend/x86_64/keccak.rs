//! The schedule of Keccak-f\[1600\] that the x86-64 multi-state permutations share: the
//! round constants, the `round!` macro (one round, in the operations of one instruction
//! set) and the loads and stores of four interleaved states in ymm registers.
//!
//! | permutation | states | where |
//! |---|---|---|
//! | BMI1/BMI2 scalar rounds | 1 | `avx2::keccak::Bmi` |
//! | AVX2 | 4 | `avx2::keccak::X4Avx2` |
//! | AVX-512VL (and one lane of it for a single state) | 4 | `avx512::keccak::X4Vl`, `VlSingle` |
//! | AVX-512F on zmm | 8 | `avx512::keccak::X8` |
//!
//! # Layout
//! The states are interleaved word by word: `lanes[i]` is one register whose 64-bit element
//! `l` is word `i` (`i = x + 5y`) of state `l`. Every step of the permutation then acts on
//! every state at once with the same instruction sequence as one scalar state, with no
//! shuffling between states. x86-64 is little-endian: the states' words are stored as they
//! are, in Keccak's byte order.
//!
//! # The round
//! Each round computes, for all 25 words at once:
//! - theta: column parities `C[x]`, then `D[x] = C[x - 1] ^ rotl(C[x + 1], 1)`;
//! - rho and pi together: `B[pi(x, y)] = rotl(A[x, y] ^ D[x], r[x, y])`, with
//!   `pi(x, y) = (y, 2x + 3y)`;
//! - chi: `A[x, y] = B[x, y] ^ (!B[x + 1, y] & B[x + 2, y])`;
//! - iota: `A[0, 0] ^= RC[round]`.

use core::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm256_setzero_si256, _mm256_storeu_si256};

use crate::keccak::WORDS;

/// Number of rounds of Keccak-f\[1600\].
const ROUNDS: usize = 24;

/// The iota round constants, generated at compile time by the degree-8 LFSR of
/// FIPS 202 Alg. 5 (`rc(t)`): bit `2^j - 1` of `RC[i]` is `rc(j + 7i)`.
pub(crate) const ROUND_CONSTANTS: [u64; ROUNDS] = round_constants();

const fn round_constants() -> [u64; ROUNDS] {
    let mut out = [0u64; ROUNDS];
    // The LFSR state R of FIPS 202 Alg. 5 with R[0] in bit 0; it starts at 10000000.
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

// `(x + 1) % 5` and friends as tables: at opt-level z a `% 5` in a loop that is not
// unrolled stays a `div` instruction, which the constant-time check forbids in our code
// (even on public values like these indices).
pub(crate) const NEXT: [usize; 5] = [1, 2, 3, 4, 0];
pub(crate) const NEXT2: [usize; 5] = [2, 3, 4, 0, 1];
pub(crate) const PREV: [usize; 5] = [4, 0, 1, 2, 3];

/// One output plane (row `y` of the result) of rho, pi, chi and theta's `D`: the five words
/// of the row come from `$a[src]` rotated by `rot` (listed in order of `x`), each after
/// xoring in `$d[src % 5]`; chi then combines them into `$e[5y .. 5y + 5]`. `$ops` is the
/// instruction set's operations (`avx2_ops!` in `avx2::keccak`, `avx512_ops!` and
/// `avx512z_ops!` in `avx512::keccak`).
macro_rules! plane {
    ($ops:ident, $ctx:ident, $a:ident, $d:ident, $e:ident, $y:literal;
        $($src:literal, $rot:tt;)*) => {{
        let b = [$($ops!(rotl, $ctx, $ops!(xor, $ctx, $a[$src], $d[$src % 5]), $rot)),*];
        for x in 0..5 {
            $e[5 * $y + x] = $ops!(chi, $ctx, b[x], b[$crate::backend::x86_64::keccak::NEXT[x]], b[$crate::backend::x86_64::keccak::NEXT2[x]]);
        }
    }};
}

/// One round from `$a` into `$e` (a macro rather than a function so that it is always
/// inlined: `#[inline(always)]` does not combine with `#[target_feature]`), in the
/// operations `$ops` of one instruction set.
///
/// Rho and pi move word `x + 5y` of `a`, rotated by `r[x, y]`, to position
/// `y + 5 * ((2x + 3y) mod 5)`; the planes below list, for each output row, the source word
/// and rotation of each of its five words.
macro_rules! round {
    ($ops:ident, $ctx:ident, $a:ident, $e:ident, $rc:expr) => {{
        use $crate::backend::x86_64::keccak::{NEXT, PREV};
        // Theta: column parities, then the value each column is xored with.
        let c: [_; 5] = core::array::from_fn(|x| {
            $ops!(xor5, $ctx, $a[x], $a[x + 5], $a[x + 10], $a[x + 15], $a[x + 20])
        });
        let d: [_; 5] =
            core::array::from_fn(|x| $ops!(xor, $ctx, c[PREV[x]], $ops!(rotl, $ctx, c[NEXT[x]], 1)));
        plane!($ops, $ctx, $a, d, $e, 0; 0, 0; 6, 44; 12, 43; 18, 21; 24, 14;);
        plane!($ops, $ctx, $a, d, $e, 1; 3, 28; 9, 20; 10, 3; 16, 45; 22, 61;);
        plane!($ops, $ctx, $a, d, $e, 2; 1, 1; 7, 6; 13, 25; 19, 8; 20, 18;);
        plane!($ops, $ctx, $a, d, $e, 3; 4, 27; 5, 36; 11, 10; 17, 15; 23, 56;);
        plane!($ops, $ctx, $a, d, $e, 4; 2, 62; 8, 55; 14, 39; 15, 41; 21, 2;);
        $e[0] = $ops!(iota, $ctx, $e[0], $rc);
    }};
}

pub(crate) use {plane, round};

/// The four states of `words` in ymm registers (word `i` of the four in `regs[i]`).
///
/// # Safety
/// The CPU has AVX2. (Not a `target_feature` function: it inlines into the permutations,
/// which are.)
#[inline(always)]
pub(super) unsafe fn load_x4(words: &[[u64; 4]; WORDS]) -> [__m256i; WORDS] {
    // A plain loop rather than `core::array::from_fn` (whose closure is not always
    // inlined under AVX2).
    // SAFETY: the caller guarantees AVX2.
    let mut regs = [unsafe { _mm256_setzero_si256() }; WORDS];
    for (reg, word) in regs.iter_mut().zip(words.iter()) {
        // SAFETY: `word` is 32 readable bytes; the load is unaligned; AVX2 as above.
        *reg = unsafe { _mm256_loadu_si256(word.as_ptr().cast()) };
    }
    regs
}

/// Stores `regs` back to `words` (the inverse of [`load_x4`]).
///
/// # Safety
/// As for [`load_x4`].
#[inline(always)]
pub(super) unsafe fn store_x4(regs: &[__m256i; WORDS], words: &mut [[u64; 4]; WORDS]) {
    for (word, reg) in words.iter_mut().zip(regs) {
        // SAFETY: `word` is 32 writable bytes; the store is unaligned; the caller
        // guarantees AVX2.
        unsafe { _mm256_storeu_si256(word.as_mut_ptr().cast(), *reg) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_constants_match_fips202() {
        // The published table (FIPS 202 §3.2.5, as tabulated in the Keccak reference).
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
}
