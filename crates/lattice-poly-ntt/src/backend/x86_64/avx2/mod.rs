//! The AVX2 backend: 16-lane `i16` NTTs with Montgomery multiplication and lazy
//! base-case accumulation in 32-bit lanes (`vpmaddwd`).
//!
//! # Representation
//! Inputs and outputs are the same as the portable backend's: canonical coefficients in
//! FIPS 203 order. Inside, coefficients are signed `i16` lanes that grow without reduction
//! as far as the bounds below allow, and are brought back to `[0, q)` at the end.
//!
//! # Bounds (checked by `cargo xtask bounds` and the differential tests)
//! - `montgomery_mul`: for `|a| <= 2^15` and a constant `|b| < q`, the result is
//!   `a b 2^-16 mod q` in `(-q, q)` (exact: `(ab - mq) / 2^16` with `|m| <= 2^15`).
//! - Forward NTT: canonical input; each of the 7 layers adds at most `q` to `|x|`, so every
//!   lane stays below `consts::NTT_LANE_BOUND` = `8q < 2^15`, inside the `i16` range and
//!   inside Montgomery's input domain. One signed Barrett reduction (`barrett_reduce_i16`,
//!   exact for every `i16`) and one conditional addition end it.
//! - Inverse NTT: sums double per layer, so after layers 3 and 6 every lane is reduced
//!   with `barrett_reduce_i16` (to `|x| <= q/2`), keeping lanes below `8 * (q/2) * 2` before
//!   each reduction (`consts::INTT_LANE_BOUND`); the final multiplication by `128^-1 2^16` is
//!   Montgomery.
//! - Accumulation: `vpmaddwd` of canonical operands adds at most `mlkem::PRODUCT_TERM_MAX` =
//!   `2 (q-1)^2` per term to a signed 32-bit lane; the final Montgomery reduction needs the
//!   sum at most `consts::AVX2_ACCUMULATOR_LIMIT` = `2^31 - 2^15 q - 1`, which allows
//!   `consts::AVX2_MAX_TERMS` terms.
//! - Coefficient-wise addition / subtraction: canonical operands in unsigned 16-bit lanes;
//!   the sum `a + b` is below `2q` (and `a - b + q` lies in `[1, 2q)`), so one conditional
//!   subtraction of q, done as an unsigned minimum, makes them canonical.
#![allow(unsafe_code)]

#[cfg(feature = "bounds-probe")]
use super::consts::AVX2_ACCUMULATOR_LIMIT;
use super::consts::AVX2_MAX_TERMS;
use crate::backend::seam::{self, Backend, DotTerm};
use crate::mldsa::MlDsa;
use crate::mlkem::{MlKem, N, PAIRS};
use crate::ring::KernelCall;
use arith::{add_avx2, canonical, sub_avx2};
use basemul::{
    accumulate_avx2, dot_product_avx2, dot_product_plus_chunks_avx2, mul_cache_avx2,
    reduce_accumulator_avx2,
};
use ntt::{inverse_ntt_avx2, ntt_avx2};

/// The AVX2 backend's capability token: it exists only on a CPU with AVX2, BMI1, BMI2, FMA
/// and POPCNT (made by [`Avx2::detect`], which checks once and caches), so its kernels run
/// without per-call checks.
#[derive(Clone, Copy, Debug)]
pub struct Avx2 {
    _detected: (),
}

cpufeatures::new!(cpuid_avx2, "avx2", "bmi1", "bmi2", "fma", "popcnt");

impl Avx2 {
    /// The token, if this CPU has the features (detected once, then cached).
    #[must_use]
    #[inline]
    pub fn detect() -> Option<Self> {
        cpuid_avx2::get().then_some(Self { _detected: () })
    }

    /// Runs `f` with this token inside a function compiled for the token's features, so that
    /// everything `f` inlines (the glue between kernels included) is built for them, as a
    /// `-C target-cpu` build would be.
    #[inline]
    pub fn run<T>(self, f: impl FnOnce(Self) -> T) -> T {
        // SAFETY: `self` exists, so the CPU has every feature `with_features` enables.
        unsafe { with_features(self, f) }
    }
}

/// Calls `f` in a function compiled with the token's features. `#[inline]` so that it is
/// instantiated in the caller's codegen unit, beside `f`, which can then be inlined into it
/// (from another unit it could not be, and the glue would be built without the features).
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,fma,popcnt")]
unsafe fn with_features<T>(token: Avx2, f: impl FnOnce(Avx2) -> T) -> T {
    f(token)
}

mod arith;
mod basemul;
mod ntt;
#[cfg(feature = "bounds-probe")]
pub mod probe;

// The observer hook of the NTT schedule, which the AVX-512 kernels run on two halves.
pub(crate) use ntt::Observer;

/// The coefficient of raw AVX2 accumulator entry `i`: entry `16m + j` is `c0` and entry
/// `16m + 8 + j` is `c1` of pair `8m + j`.
#[cfg(feature = "bounds-probe")]
const fn blocks16_coefficient(i: usize) -> usize {
    2 * (8 * (i / 16) + i % 8) + (i % 16 >= 8) as usize
}

impl Backend<MlKem> for Avx2 {
    const MAX_TERMS: usize = AVX2_MAX_TERMS;

    #[inline]
    fn ntt_canonical(self, call: KernelCall, coeffs: &mut [u16; N]) {
        seam::through_copy(coeffs, |src, dst| {
            Backend::<MlKem>::ntt_canonical_into(self, call, src, dst);
        });
    }

    #[inline]
    fn inverse_ntt_canonical(self, call: KernelCall, coeffs: &mut [u16; N]) {
        seam::through_copy(coeffs, |src, dst| {
            Backend::<MlKem>::inverse_ntt_canonical_into(self, call, src, dst);
        });
    }

    #[inline]
    fn ntt_canonical_into(self, _: KernelCall, src: &[u16; N], dst: &mut [u16; N]) {
        // SAFETY: `self` exists, so the CPU supports AVX2.
        unsafe { ntt_avx2(src, dst) }
    }

    #[inline]
    fn inverse_ntt_canonical_into(self, _: KernelCall, src: &[u16; N], dst: &mut [u16; N]) {
        // SAFETY: `self` exists, so the CPU supports AVX2.
        unsafe { inverse_ntt_avx2(src, dst) }
    }

    #[inline]
    fn mul_cache(self, _: KernelCall, b: &[u16; N], out: &mut [u16; PAIRS]) {
        // SAFETY: `self` exists, so the CPU supports AVX2.
        unsafe { mul_cache_avx2(b, out) }
    }

    #[inline]
    fn accumulate(
        self,
        _: KernelCall,
        acc: &mut [u32; N],
        a: &[u16; N],
        b: &[u16; N],
        b_zeta: &[u16; PAIRS],
    ) {
        // SAFETY: `self` exists, so the CPU supports AVX2.
        unsafe { accumulate_avx2(acc, a, b, b_zeta) }
    }

    #[inline]
    fn reduce_accumulator(self, _: KernelCall, acc: &[u32; N], out: &mut [u16; N]) {
        // SAFETY: `self` exists, so the CPU supports AVX2.
        unsafe { reduce_accumulator_avx2(acc, out) }
    }

    #[inline]
    fn dot_product(self, call: KernelCall, out: &mut [u16; N], terms: &[DotTerm<'_, MlKem>]) {
        // Public: the number of terms is the module rank.
        if terms.len() <= <Self as Backend<MlKem>>::MAX_TERMS {
            // SAFETY: `self` exists, so the CPU supports AVX2.
            unsafe { dot_product_avx2(out, terms) }
        } else {
            seam::dot_product_accumulated::<MlKem, Self>(self, call, out, terms);
        }
    }

    #[inline]
    fn dot_product_plus_chunks(
        self,
        call: KernelCall,
        out: &mut [u16; N],
        terms: &[DotTerm<'_, MlKem>],
        plus: &[u16; N],
        chunks: core::ops::Range<usize>,
    ) {
        // Public: the number of terms is the module rank.
        if terms.len() <= <Self as Backend<MlKem>>::MAX_TERMS {
            // SAFETY: `self` exists, so the CPU supports AVX2.
            unsafe { dot_product_plus_chunks_avx2(out, terms, plus, chunks) }
        } else {
            seam::dot_product_plus_chunks_default::<MlKem, Self>(
                self, call, out, terms, plus, chunks,
            );
        }
    }

    #[inline]
    fn add(self, _: KernelCall, a: &mut [u16; N], b: &[u16; N]) {
        debug_assert!(canonical(a, b), "non-canonical operand");
        // SAFETY: `self` exists, so the CPU supports AVX2.
        unsafe { add_avx2(a, b) }
    }

    #[inline]
    fn sub(self, _: KernelCall, a: &mut [u16; N], b: &[u16; N]) {
        debug_assert!(canonical(a, b), "non-canonical operand");
        // SAFETY: `self` exists, so the CPU supports AVX2.
        unsafe { sub_avx2(a, b) }
    }
}

// For each block of 8 pairs, 8 c0 sums then 8 c1 sums (the natural output of `vpmaddwd`),
// in signed 32-bit lanes bounded by the final Montgomery reduction.
#[cfg(feature = "bounds-probe")]
impl seam::HasAccumulatorLayout<MlKem> for Avx2 {
    const ACCUMULATOR_LAYOUT: seam::AccumulatorLayout = seam::AccumulatorLayout {
        tag: " [AVX2]",
        max_terms_name: "AVX2_MAX_TERMS",
        coefficient_of: blocks16_coefficient,
        entry_limit: if AVX2_ACCUMULATOR_LIMIT < i32::MAX as i64 {
            AVX2_ACCUMULATOR_LIMIT as u128
        } else {
            i32::MAX as u128
        },
        entry_limit_name: "AVX2_ACCUMULATOR_LIMIT",
        lane_max: i32::MAX as u128,
    };
}

#[cfg(feature = "bounds-probe")]
impl seam::HasAccumulatorLayout<MlDsa> for Avx2 {
    const ACCUMULATOR_LAYOUT: seam::AccumulatorLayout = seam::AccumulatorLayout::wide::<MlDsa>();
}

/// ML-DSA's ring takes every portable default: no AVX2 kernel for it yet, but under the
/// token's `run` the portable code is compiled for AVX2 (and auto-vectorized) too.
impl Backend<MlDsa> for Avx2 {}

#[cfg(test)]
mod tests {
    use super::arith::{barrett_reduce_i16, load, montgomery_mul};
    use super::*;
    use crate::backend::portable::Portable;
    use crate::backend::x86_64::consts::{Q_I16, qinv_of};
    use core::arch::x86_64::{__m256i, _mm256_set_epi16, _mm256_set1_epi16, _mm256_storeu_si256};
    use lattice_field::gf3329::Q;

    /// The register dot product (and its chunked form with a polynomial added) against the
    /// portable accumulator, for term counts up to `MAX_TERMS` with all-maximal operands
    /// (every coefficient q - 1: the sums at their bound), past it (the fallbacks), and
    /// with pseudo-random operands. The vector-level tests (`tests/properties.rs`) compare
    /// them on every backend too; this one reaches the counts the typed API's const bounds
    /// keep out.
    #[test]
    fn dot_products_match_the_portable_accumulator() {
        const MAX_TERMS: usize = <Avx2 as Backend<MlKem>>::MAX_TERMS;
        let Some(b) = Avx2::detect() else {
            return;
        };
        let check = |terms: &[DotTerm<'_, MlKem>], plus: &[u16; N], what: (&str, usize)| {
            let mut want = [0u16; N];
            seam::dot_product_accumulated::<MlKem, Portable>(
                Portable,
                KernelCall::NEW,
                &mut want,
                terms,
            );
            let mut got = [7u16; N];
            b.run(|b| Backend::<MlKem>::dot_product(b, KernelCall::NEW, &mut got, terms));
            assert_eq!(got, want, "{what:?}: dot product");
            Backend::<MlKem>::add(Portable, KernelCall::NEW, &mut want, plus);
            let mut chunked = [7u16; N];
            b.run(|b| {
                for chunks in [0..3, 3..3, 3..8, 8..9] {
                    Backend::<MlKem>::dot_product_plus_chunks(
                        b,
                        KernelCall::NEW,
                        &mut chunked,
                        terms,
                        plus,
                        chunks,
                    );
                }
            });
            assert_eq!(chunked, want, "{what:?}: chunks plus a polynomial");
        };
        let max = [Q - 1; N];
        let mut max_cache = [0u16; PAIRS];
        Backend::<MlKem>::mul_cache(Portable, KernelCall::NEW, &max, &mut max_cache);
        let all_max = [(&max, &max, &max_cache); MAX_TERMS + 3];
        for k in [0, 1, 2, 3, 4, MAX_TERMS, MAX_TERMS + 1, MAX_TERMS + 3] {
            check(&all_max[..k], &max, ("all-maximal terms", k));
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % u64::from(Q)) as u16
        };
        let a: [[u16; N]; 8] = core::array::from_fn(|_| core::array::from_fn(|_| next()));
        let rhs: [[u16; N]; 8] = core::array::from_fn(|_| core::array::from_fn(|_| next()));
        let plus: [u16; N] = core::array::from_fn(|_| next());
        let caches: [[u16; PAIRS]; 8] = core::array::from_fn(|j| {
            let mut c = [0u16; PAIRS];
            Backend::<MlKem>::mul_cache(Portable, KernelCall::NEW, &rhs[j], &mut c);
            c
        });
        let terms: [DotTerm<'_, MlKem>; 8] = core::array::from_fn(|j| (&a[j], &rhs[j], &caches[j]));
        for k in 0..=8 {
            check(&terms[..k], &plus, ("random terms", k));
        }
    }

    #[target_feature(enable = "avx2")]
    fn lanes(x: __m256i) -> [i16; 16] {
        let mut out = [0i16; 16];
        // SAFETY: `out` is 32 writable bytes.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), x) };
        out
    }

    #[test]
    fn barrett_i16_exact_for_every_i16() {
        if super::Avx2::detect().is_none() {
            return;
        }
        let q = i32::from(Q_I16);
        let mut x = i32::from(i16::MIN);
        while x <= i32::from(i16::MAX) {
            let chunk: [i16; 16] =
                core::array::from_fn(|i| (x + i as i32).min(i32::from(i16::MAX)) as i16);
            // SAFETY: AVX2 is present (checked above).
            let out = unsafe { lanes(barrett_reduce_i16(load(&chunk))) };
            for (i, &r) in out.iter().enumerate() {
                let v = i32::from(chunk[i]);
                assert_eq!((i32::from(r) - v).rem_euclid(q), 0, "x = {v}");
                assert!(i32::from(r).abs() <= (q - 1) / 2, "x = {v}: r = {r}");
            }
            x += 16;
        }
    }

    #[test]
    fn montgomery_mul_range_and_value() {
        if super::Avx2::detect().is_none() {
            return;
        }
        let q = i64::from(Q_I16);
        for b in [1i16, -1, 1353, 512, (Q_I16 - 1) / 2, -(Q_I16 - 1) / 2] {
            for start in (i32::from(i16::MIN)..=i32::from(i16::MAX)).step_by(16 * 37) {
                let a: [i16; 16] = core::array::from_fn(|i| (start + i as i32).min(32767) as i16);
                // SAFETY: AVX2 is present (checked above).
                let out = unsafe {
                    lanes(montgomery_mul(
                        load(&a),
                        _mm256_set1_epi16(b),
                        _mm256_set1_epi16(qinv_of(b)),
                    ))
                };
                for i in 0..16 {
                    let r = i64::from(out[i]);
                    assert!(r.abs() < q);
                    assert_eq!(
                        (r * 65536 - i64::from(a[i]) * i64::from(b)).rem_euclid(q),
                        0
                    );
                }
            }
        }
        // Keep the import used on every path.
        // SAFETY: AVX2 is present (checked above).
        let _ = unsafe {
            lanes(_mm256_set_epi16(
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            ))
        };
    }
}
