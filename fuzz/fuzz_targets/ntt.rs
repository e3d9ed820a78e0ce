//! Polynomial layer: the NTT, its inverse, base-case multiplication and the lazy accumulator
//! of `lattice-poly-ntt`, against schoolbook arithmetic in Z_q[X]/(X^256 + 1).
//!
//! Every check runs with the portable backend and, on x86-64 CPUs with AVX2 (where
//! `Avx2::detect` gives the token), with the AVX2 backend, and the two must agree exactly.
//!
//! Input layout: byte 0 picks the rank k (1..=4) of the inner product that is checked; the
//! rest is read as little-endian 16-bit words, two per coefficient slot, for 2k polynomials
//! `a_0..a_k`, `b_0..b_k`. Short inputs leave the remaining coefficients zero (small, sparse
//! polynomials), and a word is folded into `[0, q)` with `%` unless it is already canonical.
#![no_main]

use lattice_field::gf3329::Q;
use lattice_poly_ntt::mlkem::MlKem;
use lattice_poly_ntt::mlkem::{Accumulator, multiply_ntts_eager};
use lattice_poly_ntt::mlkem::{
    CachedNttPoly, MAX_RANK, N, NttPoly, NttVector, Poly, multiply_ntts,
};
use lattice_poly_ntt::{Backend, Portable};
use libfuzzer_sys::fuzz_target;

/// Reads the `index`-th polynomial of the input, checking on the way that
/// `Poly::from_coeffs` rejects exactly the raw words that are not canonical.
fn poly_at(words: &[u8], index: usize) -> Poly {
    let start = index * 2 * N;
    let mut raw = [0u16; N];
    for (i, c) in raw.iter_mut().enumerate() {
        let at = start + 2 * i;
        let lo = words.get(at).copied().unwrap_or(0);
        let hi = words.get(at + 1).copied().unwrap_or(0);
        *c = u16::from_le_bytes([lo, hi]);
    }
    let any_over = raw.iter().any(|&c| c >= Q);
    match Poly::from_coeffs(raw) {
        Some(p) => {
            assert!(!any_over, "from_coeffs accepted a coefficient >= q");
            p
        }
        None => {
            assert!(any_over, "from_coeffs rejected canonical coefficients");
            Poly::from_coeffs(raw.map(|c| c % Q)).expect("reduced coefficients are canonical")
        }
    }
}

/// Schoolbook product in Z_q[X]/(X^256 + 1): `X^256 = -1` folds the high half back negated.
fn schoolbook(a: &Poly, b: &Poly) -> [u16; N] {
    let q = u64::from(Q);
    let mut acc = [0u64; N];
    for (i, &ai) in a.coeffs().iter().enumerate() {
        if ai == 0 {
            continue;
        }
        for (j, &bj) in b.coeffs().iter().enumerate() {
            let term = u64::from(ai) * u64::from(bj) % q;
            let k = i + j;
            if k < N {
                acc[k] += term;
            } else {
                acc[k - N] += q - term;
            }
        }
    }
    acc.map(|x| (x % q) as u16)
}

fn add_naive(a: &[u16; N], b: &[u16; N]) -> [u16; N] {
    core::array::from_fn(|i| ((u32::from(a[i]) + u32::from(b[i])) % u32::from(Q)) as u16)
}

fn check_rank<B: Backend<MlKem>, const K: usize>(
    be: B,
    a: &[Poly],
    b: &[Poly],
    products: &[[u16; N]],
) -> NttPoly {
    let a_hat: [NttPoly; K] = core::array::from_fn(|i| a[i].ntt(be));
    let b_hat: [NttPoly; K] = core::array::from_fn(|i| b[i].ntt(be));

    // Lazy inner product (one reduction at the end) against the sum of schoolbook products.
    let lhs = NttVector::new(a_hat.clone());
    let rhs = NttVector::new(b_hat.clone()).cached(be);
    let dot = lhs.dot(be, &rhs).inverse_ntt(be);
    let mut expected = [0u16; N];
    for product in products {
        expected = add_naive(&expected, product);
    }
    assert_eq!(dot.coeffs(), &expected, "dot product, k = {K}");

    // The explicit accumulator agrees, and so does the eager base-case product.
    let mut acc = Accumulator::new(be);
    let mut eager = NttPoly::zero();
    for i in 0..K {
        acc.add_product(&a_hat[i], &rhs.0[i]);
        eager.add_assign(be, &multiply_ntts_eager(&a_hat[i], &b_hat[i]));
    }
    assert_eq!(acc.terms(), K);
    let reduced = acc.reduce();
    assert_eq!(reduced, eager, "accumulator vs eager, k = {K}");
    reduced
}

/// Everything one backend computes from the input, to compare across backends.
#[derive(PartialEq, Eq, Debug)]
struct Results {
    ntts: Vec<NttPoly>,
    product: NttPoly,
    accumulated: NttPoly,
}

/// Runs every check with the backend token `be`; `products[i]` is the schoolbook `a[i] * b[i]`.
fn check<B: Backend<MlKem>>(
    be: B,
    k: usize,
    a: &[Poly],
    b: &[Poly],
    products: &[[u16; N]],
) -> Results {
    let mut ntts = Vec::with_capacity(2 * k);
    for p in a.iter().chain(b) {
        // NTT then inverse NTT is the identity, and both stay canonical.
        let hat = p.ntt(be);
        assert!(
            hat.coeffs().iter().all(|&c| c < Q),
            "NTT output not canonical"
        );
        assert_eq!(&hat.inverse_ntt(be), p, "inverse_ntt(ntt(p)) != p");
        // The other way round: an arbitrary NTT-domain value survives inverse then forward.
        let as_hat = NttPoly::from_coeffs(*p.coeffs()).expect("canonical");
        let round = as_hat.inverse_ntt(be).ntt(be);
        assert_eq!(round, as_hat, "ntt(inverse_ntt(p)) != p");
        ntts.push(hat);
    }

    // Linearity: NTT(a + b) = NTT(a) + NTT(b).
    let mut sum = a[0].clone();
    sum.add_assign(be, &b[0]);
    let mut hat_sum = ntts[0].clone();
    hat_sum.add_assign(be, &ntts[k]);
    assert_eq!(sum.ntt(be), hat_sum, "NTT is not linear");

    // One product through the NTT (lazy, cached b*zeta) against the schoolbook product.
    let b_cached = CachedNttPoly::new(be, &ntts[k]);
    let product = multiply_ntts(be, &ntts[0], &b_cached);
    assert_eq!(
        product.inverse_ntt(be).coeffs(),
        &products[0],
        "a * b via NTT"
    );

    let accumulated = match k {
        1 => check_rank::<B, 1>(be, a, b, products),
        2 => check_rank::<B, 2>(be, a, b, products),
        3 => check_rank::<B, 3>(be, a, b, products),
        _ => check_rank::<B, 4>(be, a, b, products),
    };
    Results {
        ntts,
        product,
        accumulated,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, words)) = data.split_first() else {
        return;
    };
    let k = usize::from(selector) % MAX_RANK + 1;
    let a: Vec<Poly> = (0..k).map(|i| poly_at(words, i)).collect();
    let b: Vec<Poly> = (0..k).map(|i| poly_at(words, k + i)).collect();

    let products: Vec<[u16; N]> = a.iter().zip(&b).map(|(x, y)| schoolbook(x, y)).collect();
    let portable = check(Portable, k, &a, &b, &products);
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = lattice_poly_ntt::Avx2::detect() {
        let avx2 = check(avx2, k, &a, &b, &products);
        assert_eq!(avx2, portable, "AVX2 and portable backends differ");
    }
    let _ = portable;
});
