//! Four-way Keccak-f\[1600\] on 256-bit registers with AVX-512VL: the round of the AVX2
//! permutation (the same `round!` schedule), with three-input logic (`vpternlogq`: theta's
//! five-way parities in two instructions, chi's `a ^ (!b & c)` in one) and native 64-bit
//! rotations (`vprolq`): fewer instructions per round than the AVX2 permutation, and less
//! time (Zen 4, docs/performance-history.md). Where 512-bit operations are double-pumped (Zen 4) zmm registers would
//! add nothing, so the scheduler keeps to four lanes of this one there.
//!
//! Reached only through the AVX-512 token (`lattice_poly_ntt::backend::Avx512`), which exists
//! only once AVX-512F, VL and BW have been detected at run time.

use crate::backend::x86_64::keccak::{ROUND_CONSTANTS, plane, round};
use crate::keccak::WORDS;
use core::arch::x86_64::{
    __m256i, _mm_cvtsi64_si128, _mm_cvtsi128_si64, _mm_rol_epi64, _mm_set1_epi64x,
    _mm_setzero_si128, _mm_ternarylogic_epi64, _mm_xor_si128, _mm256_rol_epi64, _mm256_set1_epi64x,
    _mm256_setzero_si256, _mm256_ternarylogic_epi64, _mm256_xor_si256,
};

/// `vpternlogq` truth table of `a ^ b ^ c` (here and in `super::x8`).
pub(crate) const XOR3: i32 = 0x96;
/// `vpternlogq` truth table of `a ^ (!b & c)` (chi).
pub(crate) const CHI: i32 = 0xd2;

// The truth tables, evaluated bit by bit: bit `4a + 2b + c` of the table is f(a, b, c).
const _: () = {
    let mut i = 0;
    while i < 8 {
        let (a, b, c) = ((i >> 2) & 1, (i >> 1) & 1, i & 1);
        assert!((XOR3 >> i) & 1 == a ^ b ^ c);
        assert!((CHI >> i) & 1 == a ^ ((1 - b) & c));
        i += 1;
    }
};

/// The AVX-512VL operations of a round, for `round!`.
macro_rules! avx512_ops {
    (xor, $ctx:ident, $a:expr, $b:expr) => {
        _mm256_xor_si256($a, $b)
    };
    (xor5, $ctx:ident, $a:expr, $b:expr, $c:expr, $d:expr, $e:expr) => {
        _mm256_ternarylogic_epi64::<XOR3>(_mm256_ternarylogic_epi64::<XOR3>($a, $b, $c), $d, $e)
    };
    (chi, $ctx:ident, $a:expr, $b:expr, $c:expr) => {
        _mm256_ternarylogic_epi64::<CHI>($a, $b, $c)
    };
    (iota, $ctx:ident, $a:expr, $rc:expr) => {
        // The constant's bit pattern is reinterpreted, not converted.
        _mm256_xor_si256($a, _mm256_set1_epi64x($rc as i64))
    };
    (rotl, $ctx:ident, $x:expr, 0) => {
        $x
    };
    (rotl, $ctx:ident, $x:expr, $n:tt) => {
        _mm256_rol_epi64::<$n>($x)
    };
}

/// Keccak-f\[1600\] applied to four interleaved states (the layout of [`super::x4`]).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512vl")]
pub(crate) fn keccak_f1600_x4_vl(state: &mut [__m256i; WORDS]) {
    // The AVX-512 operations need no context (AVX2's rotations need byte-shuffle patterns):
    // `state` only fills the macro's context slot.
    // Two rounds per iteration, alternating between the state and a scratch copy.
    let mut a = *state;
    let mut e = [_mm256_setzero_si256(); WORDS];
    for rc in ROUND_CONSTANTS.as_chunks::<2>().0 {
        round!(avx512_ops, state, a, e, rc[0]);
        round!(avx512_ops, state, e, a, rc[1]);
    }
    *state = a;
}

/// The AVX-512VL operations of a round on 128-bit registers, for `round!`: one state, one
/// word per register (in the low 64 bits).
macro_rules! avx512_xmm_ops {
    (xor, $ctx:ident, $a:expr, $b:expr) => {
        _mm_xor_si128($a, $b)
    };
    (xor5, $ctx:ident, $a:expr, $b:expr, $c:expr, $d:expr, $e:expr) => {
        _mm_ternarylogic_epi64::<XOR3>(_mm_ternarylogic_epi64::<XOR3>($a, $b, $c), $d, $e)
    };
    (chi, $ctx:ident, $a:expr, $b:expr, $c:expr) => {
        _mm_ternarylogic_epi64::<CHI>($a, $b, $c)
    };
    (iota, $ctx:ident, $a:expr, $rc:expr) => {
        // The constant's bit pattern is reinterpreted, not converted.
        _mm_xor_si128($a, _mm_set1_epi64x($rc as i64))
    };
    (rotl, $ctx:ident, $x:expr, 0) => {
        $x
    };
    (rotl, $ctx:ident, $x:expr, $n:tt) => {
        _mm_rol_epi64::<$n>($x)
    };
}

/// Keccak-f\[1600\] on one state, a word per 128-bit register with AVX-512VL's ternary
/// logic and rotations: the four-way round with one lane. It runs on the vector units,
/// where the scalar permutation saturates the integer ALUs, so it is faster than the
/// BMI1/BMI2 scalar one (Zen 5, docs/performance-history.md) and keeps its speed on a busy
/// host.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512vl")]
pub(crate) fn keccak_f1600_vl_single(state: &mut [u64; WORDS]) {
    let mut a = [_mm_setzero_si128(); WORDS];
    for (reg, &word) in a.iter_mut().zip(state.iter()) {
        // The word's bit pattern is reinterpreted, not converted.
        *reg = _mm_cvtsi64_si128(word as i64);
    }
    let mut e = [_mm_setzero_si128(); WORDS];
    // Two rounds per iteration, alternating between the registers and a scratch set (the
    // operations need no context: `state` only fills the macro's slot).
    for rc in ROUND_CONSTANTS.as_chunks::<2>().0 {
        round!(avx512_xmm_ops, state, a, e, rc[0]);
        round!(avx512_xmm_ops, state, e, a, rc[1]);
    }
    for (word, reg) in state.iter_mut().zip(a) {
        *word = _mm_cvtsi128_si64(reg) as u64;
    }
    // `a` and `e` live in registers (25 + 25 of AVX-512VL's 32, reused round by round:
    // nothing spills, see the disassembly check in `keccak::tests`); erasing them here
    // would force them into memory.
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::arch::x86_64::{_mm256_set_epi64x, _mm256_storeu_si256};
    use lattice_poly_ntt::backend::Avx512;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn matches_scalar(states in proptest::collection::vec(any::<[u64; WORDS]>(), 4)) {
            let Some(_token) = Avx512::detect() else {
                std::println!("note: CPU without AVX-512VL, 4-way VL Keccak test skipped");
                return Ok(());
            };
            let mut regs = [[0u64; 4]; WORDS];
            for (l, state) in states.iter().enumerate() {
                for (i, w) in state.iter().enumerate() {
                    regs[i][l] = *w;
                }
            }
            let mut v: [__m256i; WORDS] = core::array::from_fn(|i| {
                let [a, b, c, d] = regs[i].map(|w| w as i64);
                // SAFETY: the token exists, so the CPU has AVX2 and AVX-512F/VL.
                unsafe { _mm256_set_epi64x(d, c, b, a) }
            });
            // SAFETY: as above.
            unsafe { keccak_f1600_x4_vl(&mut v) };
            for (l, state) in states.iter().enumerate() {
                let mut want = *state;
                crate::keccak::f1600_portable(&mut want);
                let got: [u64; WORDS] = core::array::from_fn(|i| {
                    let mut out = [0u64; 4];
                    // SAFETY: `out` is 32 writable bytes.
                    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v[i]) };
                    out[l]
                });
                prop_assert_eq!(got, want, "lane {}", l);
            }
        }

        #[test]
        fn single_matches_scalar(state in any::<[u64; WORDS]>()) {
            let Some(_token) = Avx512::detect() else {
                std::println!("note: CPU without AVX-512VL, single-state VL Keccak test skipped");
                return Ok(());
            };
            let (mut got, mut want) = (state, state);
            // SAFETY: the token exists, so the CPU has AVX2 and AVX-512F/VL.
            unsafe { keccak_f1600_vl_single(&mut got) };
            crate::keccak::f1600_portable(&mut want);
            prop_assert_eq!(got, want);
        }
    }
}
