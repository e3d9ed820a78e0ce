//! The AVX2 token's Keccak-f\[1600\]: four states in ymm registers (`X4Avx2`, the round of
//! `super::super::keccak` in AVX2 operations) and a single state on the portable rounds
//! compiled with BMI1/BMI2 (`Bmi`).
//!
//! AVX2 has no 64-bit rotate, so rotations are two shifts and an `or`, except the rotations
//! by 8 and 56 bits, which move whole bytes and take one `vpshufb`; chi's `!b & c` is one
//! `vpandn`. Each type is a zero-sized value made only from the AVX2 token
//! (`lattice_poly_ntt::backend::Avx2`), whose values exist only once the features have been
//! detected at run time, so its methods are safe to call.

use core::arch::x86_64::{
    __m256i, _mm256_andnot_si256, _mm256_or_si256, _mm256_set1_epi64x, _mm256_setr_epi8,
    _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_slli_epi64, _mm256_srli_epi64,
    _mm256_xor_si256,
};

use lattice_poly_ntt::backend::Avx2;
use zeroize::Zeroize;

use crate::backend::x86_64::keccak::{ROUND_CONSTANTS, load_x4, plane, round, store_x4};
use crate::keccak::f1600::permute_rounds;
use crate::keccak::{KeccakF1600, PermuteLanes, WORDS};

/// The portable rounds compiled with BMI1 (`andn`) and BMI2 (`rorx`): the AVX2 token's
/// single state, and the one its 4-way lanes finish a lone job on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bmi(());

impl Bmi {
    /// The AVX2 token's checks include BMI1 and BMI2.
    pub(crate) const fn new(_: Avx2) -> Self {
        Self(())
    }
}

impl KeccakF1600 for Bmi {
    #[inline(always)]
    fn f1600(self, state: &mut [u64; 25]) {
        // SAFETY: a `Bmi` is made only from an AVX2 token, whose CPU has BMI1 and BMI2.
        unsafe { permute_bmi(state) }
    }
}

/// The portable rounds with BMI1/BMI2.
///
/// # Safety
/// The CPU has BMI1 and BMI2.
#[target_feature(enable = "bmi1,bmi2")]
unsafe fn permute_bmi(state: &mut [u64; 25]) {
    permute_rounds(state);
}

/// The AVX2 4-way permutation. Its states are not copied out in registers: with AVX2's 16
/// ymm registers a transposition spills, and the spill slots kept PRF output in the dead
/// stack (`ct-harness residue` found 16- and 32-byte pieces); the scheduler copies the
/// squeezing lanes out word by word instead.
#[derive(Clone, Copy, Debug)]
pub(crate) struct X4Avx2(());

impl X4Avx2 {
    pub(crate) const fn new(_: Avx2) -> Self {
        Self(())
    }
}

impl KeccakF1600 for X4Avx2 {
    #[inline(always)]
    fn f1600(self, state: &mut [u64; 25]) {
        Bmi(()).f1600(state);
    }
}

impl PermuteLanes<4> for X4Avx2 {
    #[inline]
    fn permute(self, words: &mut [[u64; 4]; WORDS]) {
        // SAFETY: made only from an AVX2 token.
        unsafe { permute_x4_avx2(words) }
    }
}

/// The AVX2 4-way permutation of the states in `words` (the caller copies the lanes out:
/// see [`X4Avx2`]).
///
/// # Safety
/// The CPU has AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn permute_x4_avx2(words: &mut [[u64; 4]; WORDS]) {
    // SAFETY: this function's `target_feature`.
    let mut regs = unsafe { load_x4(words) };
    keccak_f1600_x4(&mut regs);
    // SAFETY: as above.
    unsafe { store_x4(&regs, words) };
    regs.zeroize();
}

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
