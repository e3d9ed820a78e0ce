//! Property tests of the NTT and the lazy products against naive references.

use lattice_field::gf3329::Q;
use lattice_poly_ntt::Portable;
use lattice_poly_ntt::mlkem::{
    ACCUMULATOR_MAX_TERMS, Accumulator, CachedNttPoly, Matrix, MlKem, N, NttPoly, NttVector,
    PRODUCT_TERM_MAX, Poly, PolyVector, multiply_ntts, multiply_ntts_eager,
};
use proptest::prelude::*;

type B = Portable;

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
    let mut acc = [0i64; N];
    for (i, &x) in a.coeffs().iter().enumerate() {
        for (j, &y) in b.coeffs().iter().enumerate() {
            let p = i64::from(x) * i64::from(y);
            if i + j < N {
                acc[i + j] += p;
            } else {
                acc[i + j - N] -= p;
            }
        }
    }
    poly(&acc.map(|c| c.rem_euclid(i64::from(Q)) as u16))
}

fn eager_sum(terms: &[(&NttPoly, &NttPoly)]) -> NttPoly {
    let mut out = NttPoly::zero();
    for (a, b) in terms {
        out.add_assign::<B>(&multiply_ntts_eager(a, b));
    }
    out
}

fn vec_strategy<const K: usize>() -> impl Strategy<Value = [[u16; N]; K]> {
    proptest::collection::vec(poly_strategy(), K).prop_map(|v| v.try_into().unwrap())
}

fn check_products<const K: usize>(m: [[[u16; N]; K]; K], v: [[u16; N]; K]) {
    let a = Matrix::<K> {
        rows: m.map(|row| row.map(|c| ntt_poly(&c))),
    };
    let v = NttVector::new(v.map(|c| ntt_poly(&c)));
    let cached = v.clone().cached::<B>();
    let av = a.mul_vector::<B>(&cached);
    let atv = a.transpose_mul_vector::<B>(&cached);
    for i in 0..K {
        let row: Vec<_> = (0..K).map(|j| (&a.rows[i][j], &v.0[j])).collect();
        assert_eq!(av.0[i], eager_sum(&row), "A*v row {i}");
        let col: Vec<_> = (0..K).map(|j| (&a.rows[j][i], &v.0[j])).collect();
        assert_eq!(atv.0[i], eager_sum(&col), "A^T*v row {i}");
    }
    // The same rows computed a few at a time (every split point).
    for split in 0..=K {
        let mut parts = NttVector::<K>::zero();
        a.mul_vector_rows::<B>(&cached, 0..split, &mut parts);
        a.mul_vector_rows::<B>(&cached, split..K, &mut parts);
        assert_eq!(parts, av, "A*v in rows 0..{split} and {split}..{K}");
    }
    let dot = a.rows[0].clone();
    let dot = NttVector::new(dot).dot::<B>(&cached);
    let terms: Vec<_> = (0..K).map(|j| (&a.rows[0][j], &v.0[j])).collect();
    assert_eq!(dot, eager_sum(&terms), "inner product");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn ntt_roundtrip(c in poly_strategy()) {
        let p = poly(&c);
        prop_assert_eq!(p.clone().ntt::<B>().inverse_ntt::<B>(), p);
    }

    #[test]
    fn ntt_product_is_negacyclic_product(a in poly_strategy(), b in poly_strategy()) {
        let (a, b) = (poly(&a), poly(&b));
        let expected = schoolbook(&a, &b);
        let (ah, bh) = (a.ntt::<B>(), b.ntt::<B>());
        let lazy = multiply_ntts::<B>(&ah, &CachedNttPoly::new::<B>(&bh));
        let eager = multiply_ntts_eager(&ah, &bh);
        prop_assert_eq!(&lazy, &eager);
        prop_assert_eq!(lazy.inverse_ntt::<B>(), expected);
    }

    #[test]
    fn ntt_is_linear(a in poly_strategy(), b in poly_strategy()) {
        let (a, b) = (poly(&a), poly(&b));
        let mut sum = a.clone();
        sum.add_assign::<B>(&b);
        let mut hat_sum = a.ntt::<B>();
        hat_sum.add_assign::<B>(&b.ntt::<B>());
        prop_assert_eq!(sum.ntt::<B>(), hat_sum);
    }

    #[test]
    fn add_sub_assign_match_field_arithmetic(a in poly_strategy(), b in poly_strategy()) {
        // Through the public methods, with the portable backend (the AVX2 module compares the two).
        let expected_sum: [u16; N] = core::array::from_fn(|i| lattice_field::gf3329::add(a[i], b[i]));
        let expected_diff: [u16; N] = core::array::from_fn(|i| lattice_field::gf3329::sub(a[i], b[i]));
        let mut sum = poly(&a);
        sum.add_assign::<B>(&poly(&b));
        prop_assert_eq!(sum.coeffs(), &expected_sum);
        let mut diff = poly(&a);
        diff.sub_assign::<B>(&poly(&b));
        prop_assert_eq!(diff.coeffs(), &expected_diff);
        let mut sum = ntt_poly(&a);
        sum.add_assign::<B>(&ntt_poly(&b));
        prop_assert_eq!(sum.coeffs(), &expected_sum);
        let mut diff = ntt_poly(&a);
        diff.sub_assign::<B>(&ntt_poly(&b));
        prop_assert_eq!(diff.coeffs(), &expected_diff);
    }

    #[test]
    fn lazy_products_k2(m in vec_strategy::<2>().prop_flat_map(|r0| vec_strategy::<2>().prop_map(move |r1| [r0, r1])), v in vec_strategy::<2>()) {
        check_products::<2>(m, v);
    }

    #[test]
    fn lazy_products_k3(m in proptest::collection::vec(vec_strategy::<3>(), 3), v in vec_strategy::<3>()) {
        check_products::<3>(m.try_into().unwrap(), v);
    }

    #[test]
    fn lazy_products_k4(m in proptest::collection::vec(vec_strategy::<4>(), 4), v in vec_strategy::<4>()) {
        check_products::<4>(m.try_into().unwrap(), v);
    }
}

/// All-maximal operands (every coefficient q-1) through the accumulators for K = 2, 3, 4:
/// with overflow checks on, an overflow would panic here.
fn all_max<const K: usize>() {
    let max = ntt_poly(&[Q - 1; N]);
    let a = Matrix::<K> {
        rows: core::array::from_fn(|_| core::array::from_fn(|_| max.clone())),
    };
    let v = NttVector::<K>::new(core::array::from_fn(|_| max.clone())).cached::<B>();
    let expected = {
        let terms: Vec<_> = (0..K).map(|_| (&max, &max)).collect();
        eager_sum(&terms)
    };
    for out in a
        .mul_vector::<B>(&v)
        .0
        .iter()
        .chain(&a.transpose_mul_vector::<B>(&v).0)
    {
        assert_eq!(out, &expected);
    }
    let mut acc = Accumulator::new();
    for j in 0..K {
        acc.add_product::<B>(&a.rows[0][j], &v.0[j]);
    }
    let worst = *acc.raw().iter().max().unwrap();
    assert!(u64::from(worst) <= K as u64 * u64::from(PRODUCT_TERM_MAX));
    assert_eq!(acc.reduce::<B>(), expected);
}

#[test]
fn all_maximal_inputs_do_not_overflow() {
    all_max::<2>();
    all_max::<3>();
    all_max::<4>();
}

#[test]
fn accumulator_refuses_more_terms_than_its_bound() {
    let max = ntt_poly(&[Q - 1; N]);
    let cached = CachedNttPoly::new::<B>(&max);
    let mut acc = Accumulator::new();
    for _ in 0..ACCUMULATOR_MAX_TERMS {
        acc.add_product::<B>(&max, &cached);
    }
    let result = std::panic::catch_unwind(move || {
        let mut acc = acc;
        acc.add_product::<B>(&max, &cached);
    });
    assert!(result.is_err());
}

#[test]
fn vector_ntt_roundtrip() {
    let v = PolyVector::<3>::new(core::array::from_fn(|k| {
        Poly::from_fn(|i| (i * 7 + k * 1000) as u32)
    }));
    assert_eq!(v.clone().ntt::<B>().inverse_ntt::<B>(), v);
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::*;
    use lattice_poly_ntt::{Avx2, Backend, backend::avx2_detected};
    type Kem = MlKem;

    fn extreme_strategy() -> impl Strategy<Value = [u16; N]> {
        prop_oneof![
            poly_strategy(),
            Just([Q - 1; N]),
            Just([0; N]),
            Just(core::array::from_fn(|i| if i % 2 == 0 { Q - 1 } else { 0 })),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn ntt_matches_portable(c in extreme_strategy()) {
            if !avx2_detected() { return Ok(()); }
            let mut a = c;
            let mut p = c;
            Avx2::ntt(&mut a);
            <Portable as Backend<Kem>>::ntt(&mut p);
            prop_assert_eq!(a, p);
            Avx2::inverse_ntt(&mut a);
            <Portable as Backend<Kem>>::inverse_ntt(&mut p);
            prop_assert_eq!(a, p);
            prop_assert_eq!(a, c);
        }

        #[test]
        fn inverse_ntt_matches_portable(c in extreme_strategy()) {
            if !avx2_detected() { return Ok(()); }
            let mut a = c;
            let mut p = c;
            Avx2::inverse_ntt(&mut a);
            <Portable as Backend<Kem>>::inverse_ntt(&mut p);
            prop_assert_eq!(a, p);
        }

        #[test]
        fn mul_cache_matches_portable(c in extreme_strategy()) {
            if !avx2_detected() { return Ok(()); }
            let (mut a, mut p) = ([0u16; 128], [0u16; 128]);
            Avx2::mul_cache(&c, &mut a);
            <Portable as Backend<Kem>>::mul_cache(&c, &mut p);
            prop_assert_eq!(a, p);
        }

        #[test]
        fn add_sub_match_portable(a in extreme_strategy(), b in extreme_strategy()) {
            if !avx2_detected() { return Ok(()); }
            let (mut x, mut y) = (a, a);
            Avx2::add(&mut x, &b);
            <Portable as Backend<Kem>>::add(&mut y, &b);
            prop_assert_eq!(x, y);
            let (mut x, mut y) = (a, a);
            Avx2::sub(&mut x, &b);
            <Portable as Backend<Kem>>::sub(&mut y, &b);
            prop_assert_eq!(x, y);
        }

        #[test]
        fn products_match_portable(m in proptest::collection::vec(extreme_strategy(), 16), v in proptest::collection::vec(extreme_strategy(), 4)) {
            if !avx2_detected() { return Ok(()); }
            let a = Matrix::<4> { rows: core::array::from_fn(|i| core::array::from_fn(|j| ntt_poly(&m[4 * i + j]))) };
            let v = NttVector::<4>::new(core::array::from_fn(|i| ntt_poly(&v[i])));
            let (va, vp) = (v.clone().cached::<Avx2>(), v.clone().cached::<Portable>());
            prop_assert_eq!(a.mul_vector::<Avx2>(&va), a.mul_vector::<Portable>(&vp));
            prop_assert_eq!(a.transpose_mul_vector::<Avx2>(&va), a.transpose_mul_vector::<Portable>(&vp));
            prop_assert_eq!(v.dot::<Avx2>(&va), v.dot::<Portable>(&vp));
        }
    }

    fn all_max_avx2<const K: usize>() {
        let max = ntt_poly(&[Q - 1; N]);
        let a = Matrix::<K> {
            rows: core::array::from_fn(|_| core::array::from_fn(|_| max.clone())),
        };
        let v = NttVector::<K>::new(core::array::from_fn(|_| max.clone()));
        assert_eq!(
            a.mul_vector::<Avx2>(&v.clone().cached::<Avx2>()),
            a.mul_vector::<Portable>(&v.cached::<Portable>())
        );
    }

    #[test]
    fn all_maximal_inputs_k234() {
        if !avx2_detected() {
            eprintln!("no AVX2 on this CPU: AVX2 tests skipped");
            return;
        }
        all_max_avx2::<2>();
        all_max_avx2::<3>();
        all_max_avx2::<4>();
    }

    fn check_add_sub(a: &[u16; N], b: &[u16; N]) {
        let (mut x, mut y) = (*a, *a);
        Avx2::add(&mut x, b);
        <Portable as Backend<Kem>>::add(&mut y, b);
        assert_eq!(x, y, "add");
        let (mut x, mut y) = (*a, *a);
        Avx2::sub(&mut x, b);
        <Portable as Backend<Kem>>::sub(&mut y, b);
        assert_eq!(x, y, "sub");
    }

    #[test]
    fn add_sub_extremes() {
        if !avx2_detected() {
            eprintln!("no AVX2 on this CPU: AVX2 tests skipped");
            return;
        }
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
        for a in &cases {
            for b in &cases {
                check_add_sub(a, b);
            }
        }
    }

    #[test]
    fn add_sub_every_pair_of_coefficients() {
        if !avx2_detected() {
            eprintln!("no AVX2 on this CPU: AVX2 tests skipped");
            return;
        }
        // Every (a, b) in [0, q)^2: a fixed per call, b running through [0, q) 256 at a time
        // (the last block wraps around), against the scalar field functions.
        for a in 0..Q {
            let av = [a; N];
            for start in (0..Q).step_by(N) {
                let b: [u16; N] = core::array::from_fn(|i| (start + i as u16) % Q);
                let (mut sum, mut diff) = (av, av);
                Avx2::add(&mut sum, &b);
                Avx2::sub(&mut diff, &b);
                for i in 0..N {
                    assert_eq!(
                        sum[i],
                        lattice_field::gf3329::add(a, b[i]),
                        "{a} + {}",
                        b[i]
                    );
                    assert_eq!(
                        diff[i],
                        lattice_field::gf3329::sub(a, b[i]),
                        "{a} - {}",
                        b[i]
                    );
                }
            }
        }
    }
}
