//! Property tests of the generic core on ML-DSA's ring (and the ring checks of both rings):
//! the 8-layer NTT against schoolbook negacyclic multiplication mod 8380417, rectangular
//! matrix products against naive sums, and the twiddle tables against their definition.

#[macro_use]
mod common;

use lattice_field::{Field, Gf3329, Gf8380417, pow_mod};
use lattice_poly_ntt::mldsa::{
    ACCUMULATOR_MAX_TERMS, Accumulator, CachedNttPoly, MAX_COLUMNS, Matrix, MlDsa, N, NttPoly,
    NttVector, PRODUCT_TERM_MAX, Poly, PolyVector,
};
use lattice_poly_ntt::mlkem::MlKem;
use lattice_poly_ntt::{Backend, Ring};
use proptest::prelude::*;

const Q: u32 = lattice_field::gf8380417::Q;

fn poly_strategy() -> impl Strategy<Value = [u32; N]> {
    proptest::collection::vec(prop_oneof![8 => 0..Q, 1 => Just(0u32), 1 => Just(Q - 1)], N)
        .prop_map(|v| v.try_into().unwrap())
}

fn poly(c: &[u32; N]) -> Poly {
    Poly::from_coeffs(*c).unwrap()
}

/// Schoolbook product in Z_q[X]/(X^256 + 1).
fn schoolbook(a: &Poly, b: &Poly) -> Poly {
    let c = common::schoolbook(a, b);
    poly(&core::array::from_fn(|i| c[i] as u32))
}

/// Coefficient-wise sum mod q, without the library.
fn naive_add(a: &Poly, b: &Poly) -> Poly {
    let mut c = [0u32; N];
    for i in 0..N {
        c[i] = ((u64::from(a.coeffs()[i]) + u64::from(b.coeffs()[i])) % u64::from(Q)) as u32;
    }
    poly(&c)
}

/// `ZETAS[i] = zeta^BitRev_layers(i)` and `NTT_SCALE * 2^layers = 1`, read from the ring.
fn check_tables<R: Ring>() {
    let q = R::Field::MODULUS;
    let bits = R::NTT_LAYERS;
    assert_eq!(R::ZETAS.len(), 1 << bits);
    for (i, &z) in R::ZETAS.iter().enumerate() {
        let rev = (i as u64).reverse_bits() >> (64 - bits);
        assert_eq!(z.into(), pow_mod(R::ZETA, rev, q), "zeta {i}");
    }
    assert_eq!(R::NTT_SCALE.into() * (1 << bits) % q, 1);
}

#[test]
fn twiddle_tables_of_both_rings() {
    check_tables::<MlKem>();
    check_tables::<MlDsa>();
    assert_eq!(<MlKem as Ring>::Field::MODULUS, Gf3329::MODULUS);
    assert_eq!(<MlDsa as Ring>::Field::MODULUS, Gf8380417::MODULUS);
}

#[test]
fn accumulator_capacity_and_worst_case_8x7() {
    on_every_backend!(|b| worst_case_8x7(b));
}

fn worst_case_8x7<B: Backend<MlDsa>>(b: B) {
    assert_eq!(<MlDsa as Ring>::MAX_TERMS, ACCUMULATOR_MAX_TERMS);
    // The widest ML-DSA matrix, all coefficients q - 1: every raw sum is exactly
    // 7 (q-1)^2 and reduces to 7 mod q.
    let max = NttPoly::from_coeffs([Q - 1; N]).unwrap();
    let rhs = CachedNttPoly::new(b, &max);
    let mut acc = Accumulator::new(b);
    for _ in 0..MAX_COLUMNS {
        acc.add_product(&max, &rhs);
    }
    assert!(
        lattice_poly_ntt::__bounds::raw(&acc)
            .iter()
            .all(|&s| s == MAX_COLUMNS as u64 * PRODUCT_TERM_MAX)
    );
    assert_eq!(acc.reduce().coeffs(), &[MAX_COLUMNS as u32; N]);
}

fn check_matrix<B: Backend<MlDsa>, const K: usize, const L: usize>(
    b: B,
    entries: &[[u32; N]],
    vector: &[[u32; N]],
) {
    let mut a = Matrix::<K, L>::zero();
    for (i, row) in a.rows.iter_mut().enumerate() {
        for (j, e) in row.iter_mut().enumerate() {
            *e = NttPoly::from_coeffs(entries[(i * L + j) % entries.len()]).unwrap();
        }
    }
    let v = NttVector::<L>::new(core::array::from_fn(|j| {
        NttPoly::from_coeffs(vector[j % vector.len()]).unwrap()
    }));
    let av = a.mul_vector(b, &v.cached(b));
    for i in 0..K {
        let mut expected = [0u32; N];
        for (c, e) in expected.iter_mut().enumerate() {
            let sum: u128 = (0..L)
                .map(|j| u128::from(a.rows[i][j].coeffs()[c]) * u128::from(v.0[j].coeffs()[c]))
                .sum();
            *e = (sum % u128::from(Q)) as u32;
        }
        assert_eq!(av.0[i].coeffs(), &expected, "{K}x{L} row {i}");
    }
    // A^T w for w of length K.
    let w = NttVector::<K>::new(core::array::from_fn(|i| v.0[i % L].clone()));
    let atw = a.transpose_mul_vector(b, &w.cached(b));
    for j in 0..L {
        let mut expected = [0u32; N];
        for (c, e) in expected.iter_mut().enumerate() {
            let sum: u128 = (0..K)
                .map(|i| u128::from(a.rows[i][j].coeffs()[c]) * u128::from(w.0[i].coeffs()[c]))
                .sum();
            *e = (sum % u128::from(Q)) as u32;
        }
        assert_eq!(
            atw.0[j].coeffs(),
            &expected,
            "{K}x{L} transposed column {j}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

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
            let lhs = NttVector::<1>::new([a.ntt(be)]);
            let rhs = NttVector::<1>::new([b.ntt(be)]).cached(be);
            prop_assert_eq!(&lhs.dot(be, &rhs).inverse_ntt(be), &expected);
        });
    }

    #[test]
    fn vector_add_matches_naive(a in poly_strategy(), b in poly_strategy()) {
        let w = PolyVector::<2>::new([poly(&b), poly(&a)]);
        let expected = [naive_add(&poly(&a), &poly(&b)), naive_add(&poly(&b), &poly(&a))];
        prop_on_every_backend!(|be| {
            let mut v = PolyVector::<2>::new([poly(&a), poly(&b)]);
            v.add_assign(be, &w);
            prop_assert_eq!(&v.0, &expected);
        });
    }

    #[test]
    fn rectangular_products(
        entries in proptest::collection::vec(poly_strategy(), 5),
        vector in proptest::collection::vec(poly_strategy(), 3),
    ) {
        prop_on_every_backend!(|b| {
            check_matrix::<_, 4, 4>(b, &entries, &vector);
            check_matrix::<_, 6, 5>(b, &entries, &vector);
            check_matrix::<_, 8, 7>(b, &entries, &vector);
            check_matrix::<_, 2, 3>(b, &entries, &vector);
        });
    }
}
