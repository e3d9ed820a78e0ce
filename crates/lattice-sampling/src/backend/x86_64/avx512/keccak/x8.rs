//! Eight-way Keccak-f\[1600\] on 512-bit registers with AVX-512F: the round of the AVX2
//! permutation (the same `round!` schedule) on zmm, with `vpternlogq` and `vprolq`. On
//! Intel cores with full-width 512-bit units a zmm permutation costs less than two ymm ones
//! (Sapphire Rapids, docs/performance-history.md), so the lane scheduler uses it when a
//! batch has more than four jobs.
//!
//! Reached only through the AVX-512 token (`lattice_poly_ntt::backend::Avx512`).

use super::x4_vl::{CHI, XOR3};
use crate::backend::x86_64::keccak::{ROUND_CONSTANTS, plane, round};
use crate::keccak::WORDS;
use core::arch::x86_64::{
    __m512i, _mm512_rol_epi64, _mm512_set1_epi64, _mm512_setzero_si512, _mm512_ternarylogic_epi64,
    _mm512_xor_si512,
};

/// The AVX-512F operations of a round, for `round!`.
macro_rules! avx512z_ops {
    (xor, $ctx:ident, $a:expr, $b:expr) => {
        _mm512_xor_si512($a, $b)
    };
    (xor5, $ctx:ident, $a:expr, $b:expr, $c:expr, $d:expr, $e:expr) => {
        _mm512_ternarylogic_epi64::<XOR3>(_mm512_ternarylogic_epi64::<XOR3>($a, $b, $c), $d, $e)
    };
    (chi, $ctx:ident, $a:expr, $b:expr, $c:expr) => {
        _mm512_ternarylogic_epi64::<CHI>($a, $b, $c)
    };
    (iota, $ctx:ident, $a:expr, $rc:expr) => {
        // The constant's bit pattern is reinterpreted, not converted.
        _mm512_xor_si512($a, _mm512_set1_epi64($rc as i64))
    };
    (rotl, $ctx:ident, $x:expr, 0) => {
        $x
    };
    (rotl, $ctx:ident, $x:expr, $n:tt) => {
        _mm512_rol_epi64::<$n>($x)
    };
}

/// Keccak-f\[1600\] applied to eight interleaved states (word `i` of state `l` in 64-bit
/// element `l` of `state[i]`).
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn keccak_f1600_x8(state: &mut [__m512i; WORDS]) {
    // Two rounds per iteration, alternating between the state and a scratch copy; `state`
    // only fills the macro's context slot (these operations need none).
    let mut a = *state;
    let mut e = [_mm512_setzero_si512(); WORDS];
    for rc in ROUND_CONSTANTS.as_chunks::<2>().0 {
        round!(avx512z_ops, state, a, e, rc[0]);
        round!(avx512z_ops, state, e, a, rc[1]);
    }
    *state = a;
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::arch::x86_64::{_mm512_loadu_si512, _mm512_storeu_si512};
    use lattice_poly_ntt::backend::Avx512;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn matches_scalar(states in proptest::collection::vec(any::<[u64; WORDS]>(), 8)) {
            let Some(_token) = Avx512::detect() else {
                std::println!("note: CPU without AVX-512F, 8-way Keccak test skipped");
                return Ok(());
            };
            let mut words = [[0u64; 8]; WORDS];
            for (l, state) in states.iter().enumerate() {
                for (i, w) in state.iter().enumerate() {
                    words[i][l] = *w;
                }
            }
            // SAFETY: the token exists, so the CPU has AVX-512F; each load reads 64 bytes.
            let mut v: [__m512i; WORDS] =
                core::array::from_fn(|i| unsafe { _mm512_loadu_si512(words[i].as_ptr().cast()) });
            // SAFETY: as above.
            unsafe { keccak_f1600_x8(&mut v) };
            for (i, reg) in v.iter().enumerate() {
                // SAFETY: `words[i]` is 64 writable bytes.
                unsafe { _mm512_storeu_si512(words[i].as_mut_ptr().cast(), *reg) };
            }
            for (l, state) in states.iter().enumerate() {
                let mut want = *state;
                crate::keccak::f1600_portable(&mut want);
                let got: [u64; WORDS] = core::array::from_fn(|i| words[i][l]);
                prop_assert_eq!(got, want, "lane {}", l);
            }
        }
    }
}
