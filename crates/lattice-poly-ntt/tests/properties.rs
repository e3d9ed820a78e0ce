//! Property tests of the NTT and the lazy products against naive references, on every
//! backend this CPU has, and every backend kernel against the portable one.

#[macro_use]
mod common;

use lattice_field::gf3329::Q;
use lattice_poly_ntt::mlkem::{
    Accumulator, CachedNttPoly, Matrix, MlKem, N, NttPoly, NttVector, PRODUCT_TERM_MAX, Poly,
    PolyVector, multiply_ntts, multiply_ntts_eager,
};
use lattice_poly_ntt::{Backend, Portable};
use proptest::prelude::*;

fn poly_strategy() -> impl Strategy<Value = [u16; N]> {
    // Mix uniform coefficients with the extremes 0 and q-1.
    proptest::collection::vec(prop_oneof![8 => 0..Q, 1 => Just(0u16), 1 => Just(Q - 1)], N)
        .prop_map(|v| v.try_into().unwrap())
}

fn poly(c: &[u16; N]) -> Poly {
    Poly::from_coeffs(*c).unwrap()
}

fn ntt_poly(c: &[u16; N]) -> NttPoly {
    NttPoly::from_coeffs(*c).unwrap()
}

/// Schoolbook product in Z_q[X]/(X^256 + 1).
fn schoolbook(a: &Poly, b: &Poly) -> Poly {
    let c = common::schoolbook(a, b);
    poly(&core::array::from_fn(|i| c[i] as u16))
}

fn eager_sum(terms: &[(&NttPoly, &NttPoly)]) -> NttPoly {
    let mut out = NttPoly::zero();
    for (a, b) in terms {
        out.add_assign(Portable, &multiply_ntts_eager(a, b));
    }
    out
}

fn vec_strategy<const K: usize>() -> impl Strategy<Value = [[u16; N]; K]> {
    proptest::collection::vec(poly_strategy(), K).prop_map(|v| v.try_into().unwrap())
}

fn check_products<B: Backend<MlKem>, const K: usize>(
    b: B,
    m: &[[[u16; N]; K]; K],
    v: &[[u16; N]; K],
) {
    let a = Matrix::<K> {
        rows: m.map(|row| row.map(|c| ntt_poly(&c))),
    };
    let v = NttVector::new(v.map(|c| ntt_poly(&c)));
    let cached = v.cached(b);
    let av = a.mul_vector(b, &cached);
    let atv = a.transpose_mul_vector(b, &cached);
    for i in 0..K {
        let row: Vec<_> = (0..K).map(|j| (&a.rows[i][j], &v.0[j])).collect();
        assert_eq!(av.0[i], eager_sum(&row), "A*v row {i}");
        let col: Vec<_> = (0..K).map(|j| (&a.rows[j][i], &v.0[j])).collect();
        assert_eq!(atv.0[i], eager_sum(&col), "A^T*v row {i}");
    }
    // The in-place forms overwrite every entry of a vector that held something else.
    let mut into = NttVector::<K>::new(core::array::from_fn(|i| a.rows[i][0].clone()));
    a.transpose_mul_vector_into(b, &cached, &mut into);
    assert_eq!(into, atv, "transpose_mul_vector_into");
    let mut back = PolyVector::<K>::new(core::array::from_fn(|i| {
        poly(&core::array::from_fn(|c| (i + c) as u16))
    }));
    av.inverse_ntt_into(b, &mut back);
    assert_eq!(back, av.inverse_ntt(b), "inverse_ntt_into");
    let mut forward = into;
    back.ntt_into(b, &mut forward);
    assert_eq!(forward, av, "ntt_into of inverse_ntt_into");
    // The same rows computed a few at a time (every split point).
    for split in 0..=K {
        let mut parts = NttVector::<K>::zero();
        a.mul_vector_rows(b, &cached, 0..split, &mut parts);
        a.mul_vector_rows(b, &cached, split..K, &mut parts);
        assert_eq!(parts, av, "A*v in rows 0..{split} and {split}..{K}");
    }
    let dot = a.rows[0].clone();
    let dot = NttVector::new(dot).dot(b, &cached);
    let terms: Vec<_> = (0..K).map(|j| (&a.rows[0][j], &v.0[j])).collect();
    assert_eq!(dot, eager_sum(&terms), "inner product");
    // Each row plus a polynomial, chunk by chunk at every pair of split points (chunks
    // past the end ignored; the coefficients outside the chunks left alone).
    let plus = &v.0[K - 1];
    for (i, want_row) in av.0.iter().enumerate() {
        let mut want = want_row.clone();
        want.add_assign(Portable, plus);
        for first in [0, 1, 3, 8] {
            for second in [first, first + 2, 8, 9] {
                let mut got = a.rows[i][0].clone();
                a.mul_vector_row_plus_chunks(b, &cached, i, plus, 0..first, &mut got);
                a.mul_vector_row_plus_chunks(b, &cached, i, plus, first..second, &mut got);
                let done = 32 * second.min(8);
                for c in 0..N {
                    let expected = if c < done { &want } else { &a.rows[i][0] };
                    assert_eq!(
                        got.get(c),
                        expected.get(c),
                        "row {i}, chunks ..{first}, ..{second}, coefficient {c}"
                    );
                }
                a.mul_vector_row_plus_chunks(b, &cached, i, plus, second..12, &mut got);
                assert_eq!(got, want, "row {i} completed");
            }
        }
        // A row past the end changes nothing.
        let mut untouched = a.rows[i][0].clone();
        a.mul_vector_row_plus_chunks(b, &cached, K, plus, 0..8, &mut untouched);
        assert_eq!(untouched, a.rows[i][0]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn ntt_roundtrip(c in poly_strategy()) {
        let p = poly(&c);
        prop_on_every_backend!(|b| prop_assert_eq!(&p.ntt(b).inverse_ntt(b), &p));
    }

    #[test]
    fn ntt_product_is_negacyclic_product(a in poly_strategy(), b in poly_strategy()) {
        let (a, b) = (poly(&a), poly(&b));
        let expected = schoolbook(&a, &b);
        prop_on_every_backend!(|be| {
            let (ah, bh) = (a.ntt(be), b.ntt(be));
            let lazy = multiply_ntts(be, &ah, &CachedNttPoly::new(be, &bh));
            let eager = multiply_ntts_eager(&ah, &bh);
            prop_assert_eq!(&lazy, &eager);
            prop_assert_eq!(&lazy.inverse_ntt(be), &expected);
        });
    }

    #[test]
    fn ntt_is_linear(a in poly_strategy(), b in poly_strategy()) {
        let (a, b) = (poly(&a), poly(&b));
        prop_on_every_backend!(|be| {
            let mut sum = a.clone();
            sum.add_assign(be, &b);
            let mut hat_sum = a.ntt(be);
            hat_sum.add_assign(be, &b.ntt(be));
            prop_assert_eq!(&sum.ntt(be), &hat_sum);
        });
    }

    #[test]
    fn add_sub_assign_match_field_arithmetic(a in poly_strategy(), b in poly_strategy()) {
        let expected_sum: [u16; N] = core::array::from_fn(|i| lattice_field::gf3329::add(a[i], b[i]));
        let expected_diff: [u16; N] = core::array::from_fn(|i| lattice_field::gf3329::sub(a[i], b[i]));
        prop_on_every_backend!(|be| {
            let mut sum = poly(&a);
            sum.add_assign(be, &poly(&b));
            prop_assert_eq!(sum.coeffs(), &expected_sum);
            let mut diff = poly(&a);
            diff.sub_assign(be, &poly(&b));
            prop_assert_eq!(diff.coeffs(), &expected_diff);
            let mut sum = ntt_poly(&a);
            sum.add_assign(be, &ntt_poly(&b));
            prop_assert_eq!(sum.coeffs(), &expected_sum);
            let mut diff = ntt_poly(&a);
            diff.sub_assign(be, &ntt_poly(&b));
            prop_assert_eq!(diff.coeffs(), &expected_diff);
        });
    }

    #[test]
    fn lazy_products_k2(m in vec_strategy::<2>().prop_flat_map(|r0| vec_strategy::<2>().prop_map(move |r1| [r0, r1])), v in vec_strategy::<2>()) {
        on_every_backend!(|b| check_products::<_, 2>(b, &m, &v));
    }

    #[test]
    fn lazy_products_k3(m in proptest::collection::vec(vec_strategy::<3>(), 3), v in vec_strategy::<3>()) {
        let m: [[[u16; N]; 3]; 3] = m.try_into().unwrap();
        on_every_backend!(|b| check_products::<_, 3>(b, &m, &v));
    }

    #[test]
    fn lazy_products_k4(m in proptest::collection::vec(vec_strategy::<4>(), 4), v in vec_strategy::<4>()) {
        let m: [[[u16; N]; 4]; 4] = m.try_into().unwrap();
        on_every_backend!(|b| check_products::<_, 4>(b, &m, &v));
    }
}

/// All-maximal operands (every coefficient q-1) through the accumulators for K = 2, 3, 4:
/// with overflow checks on, an overflow would panic here.
fn all_max<B: Backend<MlKem>, const K: usize>(b: B) {
    let max = ntt_poly(&[Q - 1; N]);
    let a = Matrix::<K> {
        rows: core::array::from_fn(|_| core::array::from_fn(|_| max.clone())),
    };
    let v = NttVector::<K>::new(core::array::from_fn(|_| max.clone())).cached(b);
    let expected = {
        let terms: Vec<_> = (0..K).map(|_| (&max, &max)).collect();
        eager_sum(&terms)
    };
    for out in a
        .mul_vector(b, &v)
        .0
        .iter()
        .chain(&a.transpose_mul_vector(b, &v).0)
    {
        assert_eq!(out, &expected);
    }
    let mut acc = Accumulator::new(b);
    for j in 0..K {
        acc.add_product(&a.rows[0][j], &v.0[j]);
    }
    assert_eq!(acc.reduce(), expected);
}

#[test]
fn all_maximal_inputs_do_not_overflow() {
    on_every_backend!(|b| {
        all_max::<_, 2>(b);
        all_max::<_, 3>(b);
        all_max::<_, 4>(b);
    });
}

#[test]
fn portable_raw_sums_stay_within_the_declared_term_bound() {
    let max = ntt_poly(&[Q - 1; N]);
    let cached = CachedNttPoly::new(Portable, &max);
    let mut acc = Accumulator::new(Portable);
    for _ in 0..4 {
        acc.add_product(&max, &cached);
    }
    let worst = *lattice_poly_ntt::__bounds::raw(&acc).iter().max().unwrap();
    assert!(u64::from(worst) <= 4 * u64::from(PRODUCT_TERM_MAX));
}

#[test]
fn vector_ntt_roundtrip() {
    let v = PolyVector::<3>::new(core::array::from_fn(|k| {
        Poly::from_fn(|i| (i * 7 + k * 1000) as u32)
    }));
    on_every_backend!(|b| assert_eq!(v.ntt(b).inverse_ntt(b), v));
}

/// Every kernel of a backend against the portable one, on extreme and random inputs.
mod kernels {
    use super::*;

    fn extreme_strategy() -> impl Strategy<Value = [u16; N]> {
        prop_oneof![
            poly_strategy(),
            Just([Q - 1; N]),
            Just([0; N]),
            Just(core::array::from_fn(|i| if i % 2 == 0 { Q - 1 } else { 0 })),
        ]
    }

    type P = Portable;

    fn ntt_matches_portable<B: Backend<MlKem>>(b: B, c: &[u16; N]) {
        let (mut x, mut p) = (*c, *c);
        b.ntt(&mut x);
        Backend::<MlKem>::ntt(P {}, &mut p);
        assert_eq!(x, p, "ntt");
        b.inverse_ntt(&mut x);
        Backend::<MlKem>::inverse_ntt(P {}, &mut p);
        assert_eq!(x, p, "inverse ntt after ntt");
        assert_eq!(&x, c, "round trip");
        let (mut x, mut p) = (*c, *c);
        b.inverse_ntt(&mut x);
        Backend::<MlKem>::inverse_ntt(P {}, &mut p);
        assert_eq!(x, p, "inverse ntt");
    }

    // The product-cache, addition and subtraction kernels are reached through the typed
    // API only (they take a `KernelCall`).
    fn mul_cache_matches_portable<B: Backend<MlKem>>(b: B, c: &[u16; N]) {
        let x = CachedNttPoly::new(b, &ntt_poly(c));
        let p = CachedNttPoly::new(P {}, &ntt_poly(c));
        assert_eq!(x.b_zeta(), p.b_zeta());
    }

    fn add_sub_match_portable<B: Backend<MlKem>>(b: B, x: &[u16; N], y: &[u16; N]) {
        let (mut s, mut t) = (ntt_poly(x), ntt_poly(x));
        s.add_assign(b, &ntt_poly(y));
        t.add_assign(P {}, &ntt_poly(y));
        assert_eq!(s, t, "add");
        let (mut s, mut t) = (ntt_poly(x), ntt_poly(x));
        s.sub_assign(b, &ntt_poly(y));
        t.sub_assign(P {}, &ntt_poly(y));
        assert_eq!(s, t, "sub");
    }

    fn products_match_portable<B: Backend<MlKem>>(b: B, m: &[[u16; N]], v: &[[u16; N]]) {
        let a = Matrix::<4> {
            rows: core::array::from_fn(|i| core::array::from_fn(|j| ntt_poly(&m[4 * i + j]))),
        };
        let v = NttVector::<4>::new(core::array::from_fn(|i| ntt_poly(&v[i])));
        let (vb, vp) = (v.cached(b), v.cached(P {}));
        assert_eq!(a.mul_vector(b, &vb), a.mul_vector(P {}, &vp));
        assert_eq!(
            a.transpose_mul_vector(b, &vb),
            a.transpose_mul_vector(P {}, &vp)
        );
        assert_eq!(v.dot(b, &vb), v.dot(P {}, &vp));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn kernels_match_portable(
            c in extreme_strategy(),
            d in extreme_strategy(),
            m in proptest::collection::vec(extreme_strategy(), 16),
            v in proptest::collection::vec(extreme_strategy(), 4),
        ) {
            on_every_backend!(|b| {
                ntt_matches_portable(b, &c);
                mul_cache_matches_portable(b, &c);
                add_sub_match_portable(b, &c, &d);
                products_match_portable(b, &m, &v);
            });
        }
    }

    #[test]
    fn add_sub_extremes() {
        let alternating: [u16; N] = core::array::from_fn(|i| if i % 2 == 0 { Q - 1 } else { 0 });
        let shifted: [u16; N] = core::array::from_fn(|i| if i % 2 == 0 { 0 } else { Q - 1 });
        let ramp: [u16; N] = core::array::from_fn(|i| (i as u16 * 13) % Q);
        let cases = [
            [0; N],
            [1; N],
            [Q - 1; N],
            [Q / 2; N],
            [Q / 2 + 1; N],
            alternating,
            shifted,
            ramp,
        ];
        on_every_backend!(|b| {
            for x in &cases {
                for y in &cases {
                    add_sub_match_portable(b, x, y);
                }
            }
        });
    }

    fn add_sub_every_pair<B: Backend<MlKem>>(b: B) {
        // Every (a, b) in [0, q)^2: a fixed per call, b running through [0, q) 256 at a time
        // (the last block wraps around), against the scalar field functions.
        for a in 0..Q {
            let av = [a; N];
            for start in (0..Q).step_by(N) {
                let y: [u16; N] = core::array::from_fn(|i| (start + i as u16) % Q);
                let (mut sum, mut diff) = (ntt_poly(&av), ntt_poly(&av));
                sum.add_assign(b, &ntt_poly(&y));
                diff.sub_assign(b, &ntt_poly(&y));
                let (sum, diff) = (sum.coeffs(), diff.coeffs());
                for i in 0..N {
                    assert_eq!(
                        sum[i],
                        lattice_field::gf3329::add(a, y[i]),
                        "{a} + {}",
                        y[i]
                    );
                    assert_eq!(
                        diff[i],
                        lattice_field::gf3329::sub(a, y[i]),
                        "{a} - {}",
                        y[i]
                    );
                }
            }
        }
    }

    #[test]
    fn add_sub_every_pair_of_coefficients() {
        on_every_backend!(|b| add_sub_every_pair(b));
    }
}
