//! Unit tests of the NEON backend (run under qemu): every lane primitive against its
//! scalar model on extreme and random inputs, the NTT schedules on NEON against the same
//! schedules on the model, and every kernel against the portable backend on extreme
//! operands (all 0, all q - 1, alternating) and random ones.

extern crate std;

use std::{format, string::String, vec, vec::Vec};

use super::arith::NeonLanes;
use super::consts::{CANONICAL_REDUCE_INPUT_MAX, NEON_NTT_LANE_BOUND, Q_I16};
use super::lanes::Lanes;
use super::model::{self, Scalar};
use super::ntt::TWIDDLE_TABLES;
use super::*;
use crate::backend::Portable;
use crate::mlkem::PRODUCT_TERM_MAX;
use core::arch::aarch64::{int16x8_t, int32x4_t, vld1q_s16, vld1q_s32, vst1q_s16};
use lattice_field::gf3329::Q;

const QU: u16 = Q;

fn vec(x: &[i16; 8]) -> int16x8_t {
    // SAFETY: `x` is 16 readable bytes.
    unsafe { vld1q_s16(x.as_ptr()) }
}

fn arr(v: int16x8_t) -> [i16; 8] {
    let mut out = [0i16; 8];
    // SAFETY: `out` is 16 writable bytes.
    unsafe { vst1q_s16(out.as_mut_ptr(), v) };
    out
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn poly(&mut self) -> [u16; N] {
        core::array::from_fn(|_| self.below(u64::from(QU)) as u16)
    }
}

/// Extreme `i16` lanes: the ends of the type and of every declared domain, and their
/// neighbours.
fn extreme_i16() -> Vec<i16> {
    let q = i32::from(Q_I16);
    let mut v = vec![];
    for c in [
        i32::from(i16::MIN),
        -9 * q,
        -4 * q,
        -2 * q,
        -q,
        -q / 2,
        0,
        q / 2,
        q,
        2 * q,
        4 * q,
        NEON_NTT_LANE_BOUND,
        CANONICAL_REDUCE_INPUT_MAX,
        i32::from(i16::MAX),
    ] {
        for d in -2..=2 {
            let x = c + d;
            if (i32::from(i16::MIN)..=i32::from(i16::MAX)).contains(&x) {
                v.push(x as i16);
            }
        }
    }
    v
}

/// Vectors of 8 lanes covering the extremes and `random` random vectors.
fn lane_vectors(random: usize) -> Vec<[i16; 8]> {
    let ext = extreme_i16();
    let mut out: Vec<[i16; 8]> = ext
        .chunks(8)
        .map(|c| core::array::from_fn(|i| c[i % c.len()]))
        .collect();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for _ in 0..random {
        out.push(core::array::from_fn(|_| rng.next() as i16));
    }
    out
}

#[test]
fn lane_primitives_equal_their_scalar_models() {
    let (mut n, mut s) = (NeonLanes, Scalar::default());
    for x in lane_vectors(4096) {
        let v = vec(&x);
        assert_eq!(arr(n.reduce_centered(v)), s.reduce_centered(x), "{x:?}");
        assert_eq!(arr(n.add_q_if_negative(v)), s.add_q_if_negative(x), "{x:?}");
        assert_eq!(arr(n.reduce_canonical(v)), s.reduce_canonical(x), "{x:?}");
        for (name, table) in TWIDDLE_TABLES {
            for rows in table.chunks(2) {
                let (z, zt) = (rows[0], rows[1]);
                let got = arr(n.bmul(v, vec(&z), vec(&zt)));
                assert_eq!(got, s.bmul(x, z, zt), "{name}: {x:?}");
                let got = arr(n.bmul_lane::<3>(v, vec(&z), vec(&zt)));
                assert_eq!(got, s.bmul_lane::<3>(x, z, zt), "{name}: {x:?}");
            }
        }
    }
    // Layout operations.
    let block: [u16; 32] = core::array::from_fn(|i| i as u16 * 7);
    let ext = n.load4_pairs(&block).map(arr);
    assert_eq!(ext, s.load4_pairs(&block));
    let natural = n.load4(&block).map(arr);
    assert_eq!(natural, s.load4(&block));
    assert_eq!(
        n.transpose4(natural.map(|x| vec(&x))).map(arr),
        s.transpose4(natural)
    );
    assert_eq!(s.transpose4(natural), ext, "ld4 {{.4s}} is the transpose");
    let (mut a, mut b) = ([0u16; 32], [0u16; 32]);
    n.store4_pairs(&mut a, ext.map(|x| vec(&x)));
    s.store4_pairs(&mut b, ext);
    assert_eq!((a, b), (block, block));
}

#[test]
fn wide_reduction_equals_its_model_and_is_exact() {
    let q = i64::from(Q);
    let limit = NEON_ACCUMULATOR_LIMIT;
    let mut inputs = vec![];
    for c in [
        0,
        q,
        2 * q,
        PRODUCT_TERM_MAX as i64,
        4 * PRODUCT_TERM_MAX as i64,
        limit,
    ] {
        for d in -3..=3 {
            if (0..=limit).contains(&(c + d)) {
                inputs.push((c + d) as i32);
            }
        }
    }
    // The multiples of q (and their neighbours) at the top of the domain.
    let top = limit / q * q;
    for k in 0..64 {
        for d in [-1, 0, 1] {
            let x = top - k * q + d;
            if (0..=limit).contains(&x) {
                inputs.push(x as i32);
            }
        }
    }
    let mut rng = Rng(77);
    for _ in 0..20_000 {
        inputs.push(rng.below(limit as u64 + 1) as i32);
    }
    while inputs.len() % 32 != 0 {
        inputs.push(limit as i32);
    }
    for chunk in inputs.chunks(32) {
        let sums: [int32x4_t; 8] = core::array::from_fn(|v| {
            // SAFETY: 4 readable i32 of the chunk.
            unsafe { vld1q_s32(chunk[4 * v..].as_ptr()) }
        });
        let reduced = basemul::reduce_sums(&sums).map(arr);
        for k in 0..4 {
            for lane in 0..8 {
                let x = chunk[8 * k + lane];
                let r = reduced[k][lane] as u16;
                assert_eq!(r, model::reduce_wide(x), "x = {x}");
                assert_eq!(i64::from(r), i64::from(x) % q, "x = {x}");
            }
        }
    }
}

#[test]
fn add_sub_equal_their_models_on_every_pair() {
    let b = Neon::detect().expect("aarch64");
    let mut rng = Rng(5);
    for round in 0..(usize::from(QU) / N + 1) * 2 {
        // a covers every canonical value, b all of them in turn and random ones.
        let a: [u16; N] = core::array::from_fn(|i| ((round / 2 * N + i) % usize::from(QU)) as u16);
        let c: [u16; N] = if round % 2 == 0 {
            core::array::from_fn(|i| [0, 1, QU - 1, QU - 2][i % 4])
        } else {
            rng.poly()
        };
        let (mut sum, mut diff) = (a, a);
        Backend::<MlKem>::add(b, KernelCall::NEW, &mut sum, &c);
        Backend::<MlKem>::sub(b, KernelCall::NEW, &mut diff, &c);
        for i in 0..N {
            assert_eq!(sum[i], model::add_mod(a[i], c[i]));
            assert_eq!(diff[i], model::sub_mod(a[i], c[i]));
            assert_eq!(sum[i], (a[i] + c[i]) % QU);
            assert_eq!(diff[i], (a[i] + QU - c[i]) % QU);
        }
    }
}

/// Extreme and random canonical polynomials.
fn polys() -> Vec<(String, [u16; N])> {
    let max = QU - 1;
    let mut out = vec![
        ("zero".into(), [0; N]),
        ("all q-1".into(), [max; N]),
        (
            "alternating 0, q-1".into(),
            core::array::from_fn(|i| if i % 2 == 0 { 0 } else { max }),
        ),
        (
            "alternating q-1, 0".into(),
            core::array::from_fn(|i| if i % 2 == 0 { max } else { 0 }),
        ),
        (
            "halves".into(),
            core::array::from_fn(|i| if i < N / 2 { max } else { 0 }),
        ),
        (
            "ramp".into(),
            core::array::from_fn(|i| (i as u16 * 13) % QU),
        ),
        ("one".into(), core::array::from_fn(|i| u16::from(i == 0))),
    ];
    let mut rng = Rng(99);
    for i in 0..32 {
        out.push((format!("random #{i}"), rng.poly()));
    }
    out
}

#[test]
fn ntt_schedules_on_neon_equal_the_model_and_portable() {
    let b = Neon::detect().expect("aarch64");
    for (name, p) in polys() {
        let mut model_out = [0u16; N];
        ntt::ntt(&mut Scalar::default(), Some(&p), &mut model_out);
        let mut portable = p;
        Backend::<MlKem>::ntt_canonical(Portable, KernelCall::NEW, &mut portable);
        let (mut into, mut in_place) = ([7u16; N], p);
        Backend::<MlKem>::ntt_canonical_into(b, KernelCall::NEW, &p, &mut into);
        Backend::<MlKem>::ntt_canonical(b, KernelCall::NEW, &mut in_place);
        assert_eq!(model_out, portable, "{name}: model ntt");
        assert_eq!(into, portable, "{name}: ntt into");
        assert_eq!(in_place, portable, "{name}: ntt in place");

        let mut model_out = [0u16; N];
        ntt::inverse_ntt(&mut Scalar::default(), Some(&p), &mut model_out);
        let mut portable = p;
        Backend::<MlKem>::inverse_ntt_canonical(Portable, KernelCall::NEW, &mut portable);
        let (mut into, mut in_place) = ([7u16; N], p);
        Backend::<MlKem>::inverse_ntt_canonical_into(b, KernelCall::NEW, &p, &mut into);
        Backend::<MlKem>::inverse_ntt_canonical(b, KernelCall::NEW, &mut in_place);
        assert_eq!(model_out, portable, "{name}: model inverse");
        assert_eq!(into, portable, "{name}: inverse into");
        assert_eq!(in_place, portable, "{name}: inverse in place");
    }
}

#[test]
fn accumulator_layout_is_a_permutation_and_raw_sums_match_portable() {
    let mut seen = [false; N];
    for i in 0..N {
        let c = neon_accumulator_coefficient(i);
        assert!(c < N && !seen[c], "entry {i}");
        seen[c] = true;
    }
    let b = Neon::detect().expect("aarch64");
    let ps = polys();
    for w in ps.windows(2) {
        let (a, rhs) = (&w[0].1, &w[1].1);
        let (mut cache, mut want_cache) = ([0u16; PAIRS], [0u16; PAIRS]);
        Backend::<MlKem>::mul_cache(b, KernelCall::NEW, rhs, &mut cache);
        Backend::<MlKem>::mul_cache(Portable, KernelCall::NEW, rhs, &mut want_cache);
        assert_eq!(cache, want_cache, "{}: mul_cache", w[1].0);
        let (mut acc, mut want) = ([0u32; N], [0u32; N]);
        for _ in 0..3 {
            Backend::<MlKem>::accumulate(b, KernelCall::NEW, &mut acc, a, rhs, &cache);
            Backend::<MlKem>::accumulate(Portable, KernelCall::NEW, &mut want, a, rhs, &cache);
        }
        for i in 0..N {
            assert_eq!(
                acc[i],
                want[neon_accumulator_coefficient(i)],
                "{}: entry {i}",
                w[0].0
            );
        }
        let (mut out, mut want_out) = ([0u16; N], [0u16; N]);
        Backend::<MlKem>::reduce_accumulator(b, KernelCall::NEW, &acc, &mut out);
        Backend::<MlKem>::reduce_accumulator(Portable, KernelCall::NEW, &want, &mut want_out);
        assert_eq!(out, want_out, "{}: reduce_accumulator", w[0].0);
    }
}

#[test]
fn dot_products_match_the_portable_accumulator() {
    let b = Neon::detect().expect("aarch64");
    let check = |terms: &[DotTerm<'_, MlKem>], plus: &[u16; N], what: (&str, usize)| {
        let mut want = [0u16; N];
        crate::backend::seam::dot_product_accumulated::<MlKem, Portable>(
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
            for chunks in [0..3, 3..3, 3..8, 8..9, 9..12] {
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
    let max = [QU - 1; N];
    let mut max_cache = [0u16; PAIRS];
    Backend::<MlKem>::mul_cache(Portable, KernelCall::NEW, &max, &mut max_cache);
    // A cache of q - 1 everywhere (b1 = -gamma^-1): the largest c0 terms.
    let full_cache = [QU - 1; PAIRS];
    let all_max = vec![(&max, &max, &max_cache); NEON_MAX_TERMS + 3];
    let all_full = vec![(&max, &max, &full_cache); NEON_MAX_TERMS + 3];
    for k in [
        0,
        1,
        2,
        3,
        4,
        NEON_MAX_TERMS,
        NEON_MAX_TERMS + 1,
        NEON_MAX_TERMS + 3,
    ] {
        check(&all_max[..k], &max, ("all-maximal terms", k));
        check(&all_full[..k], &max, ("all-maximal terms, cache q - 1", k));
    }
    let ps = polys();
    let caches: Vec<[u16; PAIRS]> = ps
        .iter()
        .map(|(_, p)| {
            let mut c = [0u16; PAIRS];
            Backend::<MlKem>::mul_cache(Portable, KernelCall::NEW, p, &mut c);
            c
        })
        .collect();
    let terms: Vec<DotTerm<'_, MlKem>> = (0..ps.len())
        .map(|j| {
            (
                &ps[j].1,
                &ps[(j + 1) % ps.len()].1,
                &caches[(j + 1) % ps.len()],
            )
        })
        .collect();
    for k in 0..=8 {
        for start in [0, 1, 4, 9] {
            check(
                &terms[start..start + k],
                &ps[start + 2].1,
                ("mixed terms", k),
            );
        }
    }
}
