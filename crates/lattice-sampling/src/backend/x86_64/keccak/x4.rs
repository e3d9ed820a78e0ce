//! Four-way Keccak-f\[1600\] in AVX2 (the sponges around it are in [`super::lanes`]).
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
    __m256i, _mm256_andnot_si256, _mm256_or_si256, _mm256_set1_epi64x, _mm256_setr_epi8,
    _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_slli_epi64, _mm256_srli_epi64,
    _mm256_xor_si256,
};

pub(crate) use crate::keccak::WORDS;

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

/// The AVX2 operations of a round, for [`round!`]: `rotl` is two shifts and an `or`, except
/// the byte-sized rotations by 8 and 56, which are one `vpshufb` with the patterns
/// `$ctx.0` and `$ctx.1`; chi's `!b & c` is one `vpandn`.
macro_rules! avx2_ops {
    (xor, $ctx:ident, $a:expr, $b:expr) => {
        _mm256_xor_si256($a, $b)
    };
    (xor5, $ctx:ident, $a:expr, $b:expr, $c:expr, $d:expr, $e:expr) => {
        _mm256_xor_si256(
            _mm256_xor_si256(_mm256_xor_si256($a, $b), $c),
            _mm256_xor_si256($d, $e),
        )
    };
    (chi, $ctx:ident, $a:expr, $b:expr, $c:expr) => {
        _mm256_xor_si256($a, _mm256_andnot_si256($b, $c))
    };
    (iota, $ctx:ident, $a:expr, $rc:expr) => {
        // The constant's bit pattern is reinterpreted, not converted.
        _mm256_xor_si256($a, _mm256_set1_epi64x($rc as i64))
    };
    (rotl, $ctx:ident, $x:expr, 0) => {
        $x
    };
    (rotl, $ctx:ident, $x:expr, 8) => {
        _mm256_shuffle_epi8($x, $ctx.0)
    };
    (rotl, $ctx:ident, $x:expr, 56) => {
        _mm256_shuffle_epi8($x, $ctx.1)
    };
    (rotl, $ctx:ident, $x:expr, $n:tt) => {{
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
pub(crate) const NEXT: [usize; 5] = [1, 2, 3, 4, 0];
pub(crate) const NEXT2: [usize; 5] = [2, 3, 4, 0, 1];
pub(crate) const PREV: [usize; 5] = [4, 0, 1, 2, 3];

/// One output plane (row `y` of the result) of rho, pi, chi and theta's `D`: the five words
/// of the row come from `$a[src]` rotated by `rot` (listed in order of `x`), each after
/// xoring in `$d[src % 5]`; chi then combines them into `$e[5y .. 5y + 5]`. `$ops` is the
/// instruction set's operations ([`avx2_ops!`] here, `avx512_ops!` in `x4_vl`).
macro_rules! plane {
    ($ops:ident, $ctx:ident, $a:ident, $d:ident, $e:ident, $y:literal;
        $($src:literal, $rot:tt;)*) => {{
        let b = [$($ops!(rotl, $ctx, $ops!(xor, $ctx, $a[$src], $d[$src % 5]), $rot)),*];
        for x in 0..5 {
            $e[5 * $y + x] = $ops!(chi, $ctx, b[x], b[$crate::backend::x86_64::keccak::x4::NEXT[x]], b[$crate::backend::x86_64::keccak::x4::NEXT2[x]]);
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
        use $crate::backend::x86_64::keccak::x4::{NEXT, PREV};
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

/// Keccak-f\[1600\] applied to four interleaved states.
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) fn keccak_f1600_x4(state: &mut [__m256i; WORDS]) {
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
        round!(avx2_ops, masks, a, e, rc[0]);
        round!(avx2_ops, masks, e, a, rc[1]);
    }
    *state = a;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Number of parallel states.
    const WAYS: usize = 4;
    use core::arch::x86_64::{_mm256_set_epi64x, _mm256_storeu_si256};
    use lattice_poly_ntt::backend::Avx2;
    use proptest::prelude::*;

    /// Four states through the 4-way permutation against each through the scalar one.
    fn check(states: &[[u64; WORDS]; WAYS]) {
        let Some(_avx2) = Avx2::detect() else {
            std::println!("note: CPU without AVX2, 4-way Keccak test skipped");
            return;
        };
        let mut regs: [__m256i; WORDS] = core::array::from_fn(|i| {
            let [a, b, c, d] = states.map(|s| s[i] as i64);
            // SAFETY: an `Avx2` token exists, so the CPU supports AVX2.
            unsafe { _mm256_set_epi64x(d, c, b, a) }
        });
        // SAFETY: an `Avx2` token exists, so the CPU supports AVX2.
        unsafe { keccak_f1600_x4(&mut regs) };
        for (l, state) in states.iter().enumerate() {
            let mut want = *state;
            crate::keccak::f1600_portable(&mut want);
            let got: [u64; WORDS] = core::array::from_fn(|i| {
                let mut words = [0u64; WAYS];
                // SAFETY: `words` is 32 writable bytes; the store is unaligned.
                unsafe { _mm256_storeu_si256(words.as_mut_ptr().cast(), regs[i]) };
                words[l]
            });
            assert_eq!(got, want, "lane {l}");
        }
    }

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

    #[test]
    fn zero_and_extreme_states() {
        check(&[
            [0; WORDS],
            [u64::MAX; WORDS],
            [0x8000_0000_0000_0001; WORDS],
            [1; WORDS],
        ]);
    }

    proptest! {
        #[test]
        fn matches_scalar_permutation(states in any::<[[u64; WORDS]; WAYS]>()) {
            check(&states);
        }
    }
}
