//! Lane arithmetic of the AVX2 backend: loads and stores, Montgomery and Barrett reductions
//! in 16-bit lanes, and the coefficient-wise addition and subtraction kernels.
#![allow(unsafe_code)]

use crate::backend::x86_64::consts::Q_I16;
use crate::mlkem::N;
use core::arch::x86_64::{
    __m256i, _mm256_add_epi16, _mm256_and_si256, _mm256_loadu_si256, _mm256_min_epu16,
    _mm256_mulhi_epi16, _mm256_mullo_epi16, _mm256_set1_epi16, _mm256_setzero_si256,
    _mm256_srai_epi16, _mm256_storeu_si256, _mm256_sub_epi16,
};
use lattice_field::gf3329::Q;

#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn load(src: &[i16; 16]) -> __m256i {
    // SAFETY: `src` is 32 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_si256(src.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn load_coeffs(f: &[u16; N]) -> [__m256i; 16] {
    // A plain loop rather than `core::array::from_fn`: the closure of `from_fn` is not
    // always inlined into a caller compiled with AVX2 (seen: 16 calls per NTT).
    let mut v = [_mm256_setzero_si256(); 16];
    for (i, x) in v.iter_mut().enumerate() {
        // SAFETY: each read covers coefficients 16i..16i+16 of the 256-entry array.
        *x = unsafe { _mm256_loadu_si256(f.as_ptr().add(16 * i).cast()) };
    }
    v
}

#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn store_coeffs(f: &mut [u16; N], v: &[__m256i; 16]) {
    for (i, x) in v.iter().enumerate() {
        // SAFETY: each write covers coefficients 16i..16i+16 of the 256-entry array.
        unsafe { _mm256_storeu_si256(f.as_mut_ptr().add(16 * i).cast(), *x) };
    }
}

/// `a * b * 2^-16 mod q` in `(-q, q)`, for `|a| <= 2^15`, `|b| < q`, `b_qinv = b q^-1 mod 2^16`.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn montgomery_mul(a: __m256i, b: __m256i, b_qinv: __m256i) -> __m256i {
    let hi = _mm256_mulhi_epi16(a, b);
    let m = _mm256_mullo_epi16(a, b_qinv);
    let mq_hi = _mm256_mulhi_epi16(m, _mm256_set1_epi16(Q_I16));
    _mm256_sub_epi16(hi, mq_hi)
}

/// Signed Barrett reduction of every `i16` lane: a representative of `x mod q` in
/// `[-(q-1)/2, (q-1)/2]` (exact for every `i16` input; checked exhaustively in the tests).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn barrett_reduce_i16(x: __m256i) -> __m256i {
    // v = round(2^26 / q); t = round(x v / 2^26).
    let t = _mm256_mulhi_epi16(x, _mm256_set1_epi16(20159));
    let t = _mm256_srai_epi16(_mm256_add_epi16(t, _mm256_set1_epi16(1 << 9)), 10);
    _mm256_sub_epi16(x, _mm256_mullo_epi16(t, _mm256_set1_epi16(Q_I16)))
}

/// Adds q to negative lanes: `(-q, q)` to `[0, q)`.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn add_q_if_negative(x: __m256i) -> __m256i {
    _mm256_add_epi16(
        x,
        _mm256_and_si256(_mm256_srai_epi16(x, 15), _mm256_set1_epi16(Q_I16)),
    )
}

/// `a + b mod q` in every lane, for canonical (`[0, q)`) lanes; output canonical.
///
/// The sum `s` is at most `2q - 2` (sum < 2q, one conditional subtraction): if `s >= q`,
/// `s - q` is in `[0, q - 1)` and is the smaller of the two as unsigned numbers; if `s < q`,
/// `s - q` wraps to at least `2^16 - q` and `s` is the smaller. One unsigned minimum
/// therefore subtracts q exactly when needed, with no data-dependent branch.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn add_mod_q(a: __m256i, b: __m256i) -> __m256i {
    let s = _mm256_add_epi16(a, b);
    _mm256_min_epu16(s, _mm256_sub_epi16(s, _mm256_set1_epi16(Q_I16)))
}

/// `a - b mod q` in every lane, for canonical (`[0, q)`) lanes; output canonical.
///
/// `d = a - b` (mod 2^16): if `a >= b`, `d` is in `[0, q)` and `d + q` in `[q, 2q)` is the
/// larger; if `a < b`, `d` wrapped to at least `2^16 - q + 1` while `d + q` wraps back to
/// `a - b + q` in `[1, q)`, the smaller. The unsigned minimum is `a - b + q` (in `[1, 2q)`)
/// reduced by one conditional subtraction, with no data-dependent branch.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn sub_mod_q(a: __m256i, b: __m256i) -> __m256i {
    let d = _mm256_sub_epi16(a, b);
    _mm256_min_epu16(d, _mm256_add_epi16(d, _mm256_set1_epi16(Q_I16)))
}

#[target_feature(enable = "avx2")]
pub(super) fn add_avx2(a: &mut [u16; N], b: &[u16; N]) {
    for m in 0..16 {
        // SAFETY: reads 16 coefficients (32 bytes) of `a` and `b` at block m and writes them
        // back to `a`, all inside the 256-entry arrays; `loadu`/`storeu` need no alignment.
        unsafe {
            let pa = a.as_mut_ptr().add(16 * m);
            let vb = _mm256_loadu_si256(b.as_ptr().add(16 * m).cast());
            _mm256_storeu_si256(pa.cast(), add_mod_q(_mm256_loadu_si256(pa.cast()), vb));
        }
    }
}

#[target_feature(enable = "avx2")]
pub(super) fn sub_avx2(a: &mut [u16; N], b: &[u16; N]) {
    for m in 0..16 {
        // SAFETY: reads 16 coefficients (32 bytes) of `a` and `b` at block m and writes them
        // back to `a`, all inside the 256-entry arrays; `loadu`/`storeu` need no alignment.
        unsafe {
            let pa = a.as_mut_ptr().add(16 * m);
            let vb = _mm256_loadu_si256(b.as_ptr().add(16 * m).cast());
            _mm256_storeu_si256(pa.cast(), sub_mod_q(_mm256_loadu_si256(pa.cast()), vb));
        }
    }
}

/// Whether every coefficient of `a` and `b` is canonical, for debug assertions (the scalar
/// field helpers assert it per coefficient; the vector kernels cannot).
pub(super) fn canonical(a: &[u16; N], b: &[u16; N]) -> bool {
    a.iter().chain(b).all(|&c| c < Q)
}
