//! Entry points for `cargo xtask bounds`; not part of the API.
//!
//! The batch wrappers run the kernels' own `montgomery_mul`, `barrett_reduce_i16` and
//! `montgomery_reduce_i32` on arrays of lanes. [`ntt`] and [`inverse_ntt`] run the
//! kernels themselves (`ntt_kernel`, `inverse_ntt_kernel`) with a recording
//! `Observer` and return, per stage, the largest `|lane|` and the largest input of
//! its Montgomery multiplications: the bounds are read off the schedule that ships, so a
//! change to the kernels' reductions needs no mirror here.
//!
//! Every function panics when the CPU lacks AVX2 (the `_avx512` ones: AVX-512F/VL/BW):
//! check [`Avx2::detect`](super::Avx2::detect) first. [`ntt_avx512`] and
//! [`inverse_ntt_avx512`] run the AVX-512 backend's zmm kernels, which follow the AVX2
//! schedule on two halves, with the same recorder (their halves split back into the
//! 16-vector view).
#![allow(unsafe_code)]

use super::arith::{self, load};
use super::basemul;
use super::ntt::{Observer, inverse_ntt_kernel, ntt_kernel};
use crate::backend::x86_64::consts::{
    FWD_SHUFFLED, FWD_SHUFFLED_QINV, GAMMAS_ODD, GAMMAS_ODD_QINV, INTT_SCALE, INV_SHUFFLED,
    INV_SHUFFLED_QINV, R2, ZETAS_MONT, qinv_of,
};
use crate::mlkem::N;
use core::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm256_set1_epi16, _mm256_storeu_si256};

/// One step of an NTT kernel, as recorded by [`Trace`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// A butterfly layer with this length (Cooley-Tukey forward, Gentleman-Sande inverse).
    Layer(usize),
    /// The signed Barrett reduction (`barrett_reduce_i16`) of every lane.
    Barrett,
    /// The inverse NTT's Montgomery multiplication by `128^-1 2^16`.
    Scale,
    /// The final conditional addition of q (the stored output).
    Output,
}

/// The forward kernel's stages, in order.
pub const NTT_STAGES: [Stage; 9] = [
    Stage::Layer(128),
    Stage::Layer(64),
    Stage::Layer(32),
    Stage::Layer(16),
    Stage::Layer(8),
    Stage::Layer(4),
    Stage::Layer(2),
    Stage::Barrett,
    Stage::Output,
];

/// The inverse kernel's stages, in order.
pub const INTT_STAGES: [Stage; 11] = [
    Stage::Layer(2),
    Stage::Layer(4),
    Stage::Layer(8),
    Stage::Barrett,
    Stage::Layer(16),
    Stage::Layer(32),
    Stage::Layer(64),
    Stage::Barrett,
    Stage::Layer(128),
    Stage::Scale,
    Stage::Output,
];

/// What one traced run saw, per stage (same order as [`NTT_STAGES`] / [`INTT_STAGES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trace<const S: usize> {
    /// Largest `|lane|` after the stage.
    pub lane_max: [i32; S],
    /// Largest `|a|` of the variable operand of the stage's Montgomery multiplications,
    /// computed exactly in `i32` (for the inverse butterflies, `b - a` before it is
    /// formed in 16 bits); 0 for stages without one.
    pub mont_input_max: [i32; S],
}

impl<const S: usize> Default for Trace<S> {
    fn default() -> Self {
        Self {
            lane_max: [0; S],
            mont_input_max: [0; S],
        }
    }
}

fn require_avx2() {
    assert!(
        super::Avx2::detect().is_some(),
        "the AVX2 probe needs a CPU with AVX2"
    );
}

#[inline]
#[target_feature(enable = "avx2")]
fn lanes(x: __m256i) -> [i16; 16] {
    let mut out = [0i16; 16];
    // SAFETY: `out` is 32 writable bytes; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), x) };
    out
}

#[inline]
#[target_feature(enable = "avx2")]
fn store(out: &mut [i16; 16], x: __m256i) {
    // SAFETY: `out` is 32 writable bytes; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), x) };
}

#[inline]
#[target_feature(enable = "avx2")]
fn store_i32(out: &mut [i32; 8], x: __m256i) {
    // SAFETY: `out` is 32 writable bytes; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), x) };
}

#[inline]
#[target_feature(enable = "avx2")]
fn load_i32(x: &[i32; 8]) -> __m256i {
    // SAFETY: `x` is 32 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_si256(x.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx2")]
fn abs_max(x: __m256i) -> i32 {
    lanes(x)
        .iter()
        .map(|&l| i32::from(l).abs())
        .max()
        .unwrap_or(0)
}

#[inline]
#[target_feature(enable = "avx2")]
fn abs_max_all(v: &[__m256i; 16]) -> i32 {
    v.iter().map(|&x| abs_max(x)).max().unwrap_or(0)
}

/// Largest `|hi - lo|` over the lanes, in `i32`.
#[inline]
#[target_feature(enable = "avx2")]
fn difference_max(lo: __m256i, hi: __m256i) -> i32 {
    let (lo, hi) = (lanes(lo), lanes(hi));
    lo.iter()
        .zip(&hi)
        .map(|(&a, &b)| (i32::from(b) - i32::from(a)).abs())
        .max()
        .unwrap_or(0)
}

#[inline]
#[target_feature(enable = "avx2")]
fn barrett_blocks(x: &[[i16; 16]], out: &mut [[i16; 16]]) {
    for (o, v) in out.iter_mut().zip(x) {
        store(o, arith::barrett_reduce_i16(load(v)));
    }
}

#[inline]
#[target_feature(enable = "avx2")]
fn montgomery_mul_blocks(a: &[[i16; 16]], b: i16, b_qinv: i16, out: &mut [[i16; 16]]) {
    let (b, b_qinv) = (_mm256_set1_epi16(b), _mm256_set1_epi16(b_qinv));
    for (o, v) in out.iter_mut().zip(a) {
        store(o, arith::montgomery_mul(load(v), b, b_qinv));
    }
}

#[inline]
#[target_feature(enable = "avx2")]
fn montgomery_reduce_blocks(x: &[[i32; 8]], out: &mut [[i32; 8]]) {
    for (o, v) in out.iter_mut().zip(x) {
        store_i32(o, basemul::montgomery_reduce_i32(load_i32(v)));
    }
}

/// The kernels' signed Barrett reduction of every lane of `x`, into `out`.
#[inline]
pub fn barrett_reduce_i16(x: &[[i16; 16]], out: &mut [[i16; 16]]) {
    require_avx2();
    assert_eq!(x.len(), out.len(), "input and output lengths differ");
    // SAFETY: the CPU supports AVX2 (checked above).
    unsafe { barrett_blocks(x, out) }
}

/// The kernels' Montgomery multiplication of every lane of `a` by the constant `b`
/// (with its precomputed `b_qinv = b q^-1 mod 2^16`), into `out`.
#[inline]
pub fn montgomery_mul(a: &[[i16; 16]], b: i16, b_qinv: i16, out: &mut [[i16; 16]]) {
    require_avx2();
    assert_eq!(a.len(), out.len(), "input and output lengths differ");
    // SAFETY: the CPU supports AVX2 (checked above).
    unsafe { montgomery_mul_blocks(a, b, b_qinv, out) }
}

/// The accumulator's Montgomery reduction of every 32-bit lane of `x`, into `out`
/// (sign-extended 16-bit results).
#[inline]
pub fn montgomery_reduce_i32(x: &[[i32; 8]], out: &mut [[i32; 8]]) {
    require_avx2();
    assert_eq!(x.len(), out.len(), "input and output lengths differ");
    // SAFETY: the CPU supports AVX2 (checked above).
    unsafe { montgomery_reduce_blocks(x, out) }
}

/// Calls `visit(table, b, b_qinv)` for every constant operand of a Montgomery
/// multiplication in the kernels: every lane of the in-register twiddle tables, every
/// entry of the scalar twiddle table, every lane of the gamma tables (zero in the even
/// lanes), `R2` and `INTT_SCALE`, each with the `q^-1` multiple the kernels use with it.
pub fn for_each_montgomery_constant(mut visit: impl FnMut(&'static str, i16, i16)) {
    for (name, t, tq) in [
        ("FWD_SHUFFLED", &FWD_SHUFFLED, &FWD_SHUFFLED_QINV),
        ("INV_SHUFFLED", &INV_SHUFFLED, &INV_SHUFFLED_QINV),
    ] {
        let lanes = t.iter().flatten().flatten();
        for (&b, &bq) in lanes.zip(tq.iter().flatten().flatten()) {
            visit(name, b, bq);
        }
    }
    for &(z, zq) in &ZETAS_MONT {
        visit("ZETAS_MONT", z, zq);
    }
    let gammas = GAMMAS_ODD.iter().flatten();
    for (&g, &gq) in gammas.zip(GAMMAS_ODD_QINV.iter().flatten()) {
        visit("GAMMAS_ODD", g, gq);
    }
    visit("R2", R2, qinv_of(R2));
    visit("INTT_SCALE", INTT_SCALE, qinv_of(INTT_SCALE));
}

/// Records a [`Trace`] while a kernel runs (the kernels' [`Observer`]).
struct Recorder<const S: usize> {
    trace: Trace<S>,
    stage: usize,
}

impl<const S: usize> Observer for Recorder<S> {
    fn butterfly(&mut self, a: __m256i, b: __m256i, inverse: bool) {
        // SAFETY: the probe's entry points checked that the CPU supports AVX2.
        let input = unsafe {
            if inverse {
                difference_max(a, b)
            } else {
                abs_max(b)
            }
        };
        let slot = &mut self.trace.mont_input_max[self.stage];
        *slot = (*slot).max(input);
    }

    fn scale_input(&mut self, v: &[__m256i; 16]) {
        // SAFETY: the probe's entry points checked that the CPU supports AVX2.
        self.trace.mont_input_max[self.stage] = unsafe { abs_max_all(v) };
    }

    fn stage_done(&mut self, v: &[__m256i; 16]) {
        // SAFETY: the probe's entry points checked that the CPU supports AVX2.
        self.trace.lane_max[self.stage] = unsafe { abs_max_all(v) };
        self.stage += 1;
    }
}

/// The forward NTT of `f` in place, by the kernel itself, recording every stage.
#[inline]
pub fn ntt(f: &mut [u16; N]) -> Trace<9> {
    require_avx2();
    let mut recorder = Recorder {
        trace: Trace::default(),
        stage: 0,
    };
    // SAFETY: the CPU supports AVX2 (checked above).
    unsafe { ntt_kernel(&f.clone(), f, &mut recorder) };
    assert_eq!(
        recorder.stage,
        NTT_STAGES.len(),
        "the kernel's stages changed"
    );
    recorder.trace
}

/// The inverse NTT of `f` in place, by the kernel itself, recording every stage.
#[inline]
pub fn inverse_ntt(f: &mut [u16; N]) -> Trace<11> {
    require_avx2();
    let mut recorder = Recorder {
        trace: Trace::default(),
        stage: 0,
    };
    // SAFETY: the CPU supports AVX2 (checked above).
    unsafe { inverse_ntt_kernel(&f.clone(), f, &mut recorder) };
    assert_eq!(
        recorder.stage,
        INTT_STAGES.len(),
        "the kernel's stages changed"
    );
    recorder.trace
}

fn require_avx512() {
    assert!(
        crate::backend::x86_64::avx512::Avx512::detect().is_some(),
        "the AVX-512 probe needs a CPU with AVX-512F/VL/BW"
    );
}

/// The AVX-512 backend's forward NTT (the zmm kernel) of `f` in place, recording every
/// stage in the AVX2 kernel's 16-vector view.
#[inline]
pub fn ntt_avx512(f: &mut [u16; N]) -> Trace<9> {
    require_avx512();
    let mut recorder = Recorder {
        trace: Trace::default(),
        stage: 0,
    };
    // SAFETY: the CPU supports AVX-512F/BW (checked above) and AVX2 (implied).
    unsafe { crate::backend::x86_64::avx512::ntt_kernel(&f.clone(), f, &mut recorder) };
    assert_eq!(
        recorder.stage,
        NTT_STAGES.len(),
        "the zmm kernel's stages changed"
    );
    recorder.trace
}

/// The AVX-512 backend's inverse NTT (the zmm kernel) of `f` in place, recording every
/// stage in the AVX2 kernel's 16-vector view.
#[inline]
pub fn inverse_ntt_avx512(f: &mut [u16; N]) -> Trace<11> {
    require_avx512();
    let mut recorder = Recorder {
        trace: Trace::default(),
        stage: 0,
    };
    // SAFETY: as for `ntt_avx512`.
    unsafe { crate::backend::x86_64::avx512::inverse_ntt_kernel(&f.clone(), f, &mut recorder) };
    assert_eq!(
        recorder.stage,
        INTT_STAGES.len(),
        "the zmm kernel's stages changed"
    );
    recorder.trace
}
