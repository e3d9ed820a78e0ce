//! Totality of every public function of `lattice-poly-ntt`, on every backend this CPU has:
//! random and boundary inputs (all zero, all `q - 1`, and for the functions that take bare
//! arrays every value of the element type: `q`, `2^15`, the type's maximum), no panic (a
//! panic fails the test; overflow checks and debug assertions are on in the test profile),
//! the result of every backend equal to the portable one, and every documented output range
//! (canonical coefficients).
//!
//! Both built-in rings are covered: ML-KEM's (`MlKem`, where AVX2 and AVX-512 have their own
//! kernels) and ML-DSA's (`MlDsa`, portable code on every token). The raw kernels of
//! [`Backend`] and [`Ring`] other than `Backend::ntt` / `Backend::inverse_ntt` take a
//! `KernelCall`, which only the crate can make: they are reached here through the typed API
//! that calls them. Raw coefficient access (`coeffs_mut`) is not public API: hidden, and it
//! takes the workspace's token (`__private::WORKSPACE`).

#[macro_use]
mod common;

use lattice_field::Field;
use lattice_poly_ntt::backend::{AnyBackend, BackendKind};
use lattice_poly_ntt::mldsa::MlDsa;
use lattice_poly_ntt::mlkem::MlKem;
use lattice_poly_ntt::ring::{Elem, Ring, bit_reversed_powers};
use lattice_poly_ntt::{
    Accumulator, Backend, CachedNttPoly, CachedNttVector, Matrix, NttPoly, NttVector, Poly,
    PolyVector, Portable, dispatch, mldsa, mlkem, multiply_ntts,
};
use proptest::prelude::*;
use zeroize::Zeroize;

const N: usize = 256;
const QK: u16 = lattice_field::gf3329::Q;
const QD: u32 = lattice_field::gf8380417::Q;

// ---- inputs -------------------------------------------------------------------------

/// Any `u16` array: uniform values, canonical ones, and the boundaries around q and 2^15.
fn raw_mlkem() -> impl Strategy<Value = [u16; N]> {
    let coeff = prop_oneof![
        3 => any::<u16>(),
        3 => 0..QK,
        1 => prop::sample::select(vec![0, QK - 1, QK, QK + 1, 2 * QK, 0x7fff, 0x8000, u16::MAX]),
    ];
    prop_oneof![
        8 => proptest::collection::vec(coeff, N).prop_map(|v| v.try_into().unwrap()),
        1 => prop::sample::select(vec![0, QK - 1, QK, u16::MAX]).prop_map(|c| [c; N]),
    ]
}

/// Any `u32` array, as [`raw_mlkem`] for ML-DSA's q.
fn raw_mldsa() -> impl Strategy<Value = [u32; N]> {
    let coeff = prop_oneof![
        3 => any::<u32>(),
        3 => 0..QD,
        1 => prop::sample::select(vec![0, QD - 1, QD, QD + 1, 1 << 31, u32::MAX]),
    ];
    prop_oneof![
        8 => proptest::collection::vec(coeff, N).prop_map(|v| v.try_into().unwrap()),
        1 => prop::sample::select(vec![0, QD - 1, QD, u32::MAX]).prop_map(|c| [c; N]),
    ]
}

/// Canonical ML-KEM coefficients, often at the extremes 0 and q - 1, or constant.
fn canonical_mlkem() -> impl Strategy<Value = [u16; N]> {
    prop_oneof![
        8 => proptest::collection::vec(prop_oneof![6 => 0..QK, 1 => Just(0), 1 => Just(QK - 1)], N)
            .prop_map(|v| v.try_into().unwrap()),
        1 => Just([0; N]),
        1 => Just([QK - 1; N]),
    ]
}

/// Canonical ML-DSA coefficients, as [`canonical_mlkem`].
fn canonical_mldsa() -> impl Strategy<Value = [u32; N]> {
    prop_oneof![
        8 => proptest::collection::vec(prop_oneof![6 => 0..QD, 1 => Just(0), 1 => Just(QD - 1)], N)
            .prop_map(|v| v.try_into().unwrap()),
        1 => Just([0; N]),
        1 => Just([QD - 1; N]),
    ]
}

/// Whether every coefficient is in `[0, q)`.
fn is_canonical<R: Ring>(c: &R::Coeffs) -> bool {
    c.as_ref().iter().all(|&x| R::Field::not_canonical(x) == 0)
}

/// A coefficient as a `u64`.
fn val<R: Ring>(x: Elem<R>) -> u64 {
    x.into()
}

fn kpoly(c: &[u16; N]) -> mlkem::Poly {
    Poly::from_coeffs(*c).expect("canonical")
}

fn kntt(c: &[u16; N]) -> mlkem::NttPoly {
    NttPoly::from_coeffs(*c).expect("canonical")
}

fn dpoly(c: &[u32; N]) -> mldsa::Poly {
    Poly::from_coeffs(*c).expect("canonical")
}

fn dntt(c: &[u32; N]) -> mldsa::NttPoly {
    NttPoly::from_coeffs(*c).expect("canonical")
}

/// `t * p` coefficient-wise mod q, without the library.
fn times<R: Ring>(p: &NttPoly<R>, t: u64) -> Vec<u64> {
    let q = R::Field::MODULUS;
    p.coeffs()
        .as_ref()
        .iter()
        .map(|&c| (u128::from(val::<R>(c)) * u128::from(t) % u128::from(q)) as u64)
        .collect()
}

fn coeffs_u64<R: Ring>(c: &R::Coeffs) -> Vec<u64> {
    c.as_ref().iter().map(|&x| val::<R>(x)).collect()
}

/// `B::MAX_TERMS` for ring `R`.
fn max_terms<R: Ring, B: Backend<R>>(_: B) -> usize {
    B::MAX_TERMS
}

// ---- backend selection --------------------------------------------------------------

#[test]
fn backend_kinds_tokens_and_dispatch() {
    assert_eq!(BackendKind::ALL[0], BackendKind::Portable);
    for kind in BackendKind::ALL {
        assert!(!kind.name().is_empty());
        assert_eq!(kind.to_string(), kind.name());
        let any = AnyBackend::of(kind);
        assert_eq!(kind.is_available(), any.is_some());
        if let Some(any) = any {
            assert_eq!(any.kind(), kind);
            // `dispatch!` runs the body with the token of that kind.
            let seven = dispatch!(any, |b| {
                let _ = b;
                7
            });
            assert_eq!(seven, 7);
        } else {
            eprintln!("{kind}: skipped (not available on this CPU)");
        }
    }
    assert!(BackendKind::Portable.is_available());
    assert!(AnyBackend::best().kind().is_available());
    #[cfg(target_arch = "x86_64")]
    {
        use lattice_poly_ntt::{Avx2, Avx512};
        assert_eq!(Avx2::detect().is_some(), BackendKind::Avx2.is_available());
        assert_eq!(
            Avx512::detect().is_some(),
            BackendKind::Avx512.is_available()
        );
        if let Some(t) = Avx2::detect() {
            assert_eq!(t.run(|_| 5), 5);
        }
        if let Some(t) = Avx512::detect() {
            assert_eq!(t.run(|_| 6), 6);
            assert_eq!(t.avx2().run(|_| 8), 8);
        }
        // AVX-512 implies AVX2 here.
        assert!(Avx512::detect().is_none() || Avx2::detect().is_some());
    }
    // The available backends: the portable one first, then in `ALL`'s order, exactly the
    // kinds `is_available` says, each once; `best` is one of them.
    let kinds: Vec<BackendKind> = BackendKind::available().collect();
    let from_tokens: Vec<BackendKind> = AnyBackend::available().map(AnyBackend::kind).collect();
    assert_eq!(kinds, from_tokens);
    assert_eq!(kinds.first(), Some(&BackendKind::Portable));
    let expected: Vec<BackendKind> = BackendKind::ALL
        .into_iter()
        .filter(|k| k.is_available())
        .collect();
    assert_eq!(kinds, expected);
    assert!(kinds.contains(&AnyBackend::best().kind()));
    // Every backend's accumulator takes at least the largest module rank of each ring.
    on_every_backend!(|b| {
        assert!(max_terms::<MlKem, _>(b) >= mlkem::MAX_RANK);
        assert!(max_terms::<MlKem, _>(b) <= <MlKem as Ring>::MAX_TERMS);
        assert!(max_terms::<MlDsa, _>(b) >= mldsa::MAX_COLUMNS);
        assert!(max_terms::<MlDsa, _>(b) <= <MlDsa as Ring>::MAX_TERMS);
    });
}

// ---- Backend::ntt / Backend::inverse_ntt on bare arrays (any input) ---------------

/// `Backend::ntt` and `Backend::inverse_ntt` of `c` on `b` and on the portable backend:
/// equal, canonical, and the transform of `c` taken mod q.
fn check_raw_ntts<R: Ring, B: Backend<R>>(b: B, c: &R::Coeffs, reduced: &Poly<R>) {
    let (mut x, mut p) = (*c, *c);
    b.ntt(&mut x);
    Backend::<R>::ntt(Portable, &mut p);
    assert_eq!(x, p, "{b:?} ntt");
    assert!(is_canonical::<R>(&x));
    assert_eq!(
        &x,
        reduced.ntt(Portable).coeffs(),
        "ntt of the reduced input"
    );
    let (mut x, mut p) = (*c, *c);
    b.inverse_ntt(&mut x);
    Backend::<R>::inverse_ntt(Portable, &mut p);
    assert_eq!(x, p, "{b:?} inverse ntt");
    assert!(is_canonical::<R>(&x));
    let hat = NttPoly::<R>::from_coeffs(*reduced.coeffs()).expect("canonical");
    assert_eq!(&x, hat.inverse_ntt(Portable).coeffs());
}

fn reduce_mlkem(c: &[u16; N]) -> mlkem::Poly {
    kpoly(&c.map(|x| x % QK))
}

fn reduce_mldsa(c: &[u32; N]) -> mldsa::Poly {
    dpoly(&c.map(|x| x % QD))
}

#[test]
fn raw_ntts_at_the_boundaries() {
    let mut cases: Vec<[u16; N]> = [
        0,
        1,
        QK - 1,
        QK,
        QK + 1,
        2 * QK - 1,
        0x7fff,
        0x8000,
        u16::MAX,
    ]
    .iter()
    .map(|&c| [c; N])
    .collect();
    cases.push(core::array::from_fn(
        |i| if i % 2 == 0 { u16::MAX } else { 0 },
    ));
    cases.push(core::array::from_fn(|i| (i as u16).wrapping_mul(257)));
    for c in &cases {
        let reduced = reduce_mlkem(c);
        on_every_backend!(|b| check_raw_ntts::<MlKem, _>(b, c, &reduced));
    }
    for v in [0, 1, QD - 1, QD, QD + 1, 1 << 31, u32::MAX] {
        let c = [v; N];
        let reduced = reduce_mldsa(&c);
        on_every_backend!(|b| check_raw_ntts::<MlDsa, _>(b, &c, &reduced));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn raw_ntts_any_array(k in raw_mlkem(), d in raw_mldsa()) {
        let rk = reduce_mlkem(&k);
        let rd = reduce_mldsa(&d);
        on_every_backend!(|b| {
            check_raw_ntts::<MlKem, _>(b, &k, &rk);
            check_raw_ntts::<MlDsa, _>(b, &d, &rd);
        });
    }
}

// ---- Poly / NttPoly -----------------------------------------------------------------

/// Everything of `Poly` / `NttPoly` that needs no backend, for any coefficient array `raw`.
fn check_constructors<R: Ring>(raw: &R::Coeffs) {
    let canonical = is_canonical::<R>(raw);
    let p = Poly::<R>::from_coeffs(*raw);
    let h = NttPoly::<R>::from_coeffs(*raw);
    assert_eq!(p.is_some(), canonical);
    assert_eq!(h.is_some(), canonical);
    // The in-place setters, from a canonical non-zero start: checked (all or nothing) and
    // reducing.
    let start = Poly::<R>::from_fn(|i| {
        R::Field::widen(if i % 3 == 1 {
            R::Field::CANONICAL_MAX
        } else {
            R::Field::ONE
        })
    });
    let (mut ps, mut hs) = (
        start.clone(),
        NttPoly::<R>::from_coeffs(*start.coeffs()).unwrap(),
    );
    assert_eq!(ps.try_set_coeffs(raw).is_ok(), canonical);
    assert_eq!(hs.try_set_coeffs(raw).is_ok(), canonical);
    let kept = if canonical { raw } else { start.coeffs() };
    assert_eq!(ps.coeffs(), kept);
    assert_eq!(hs.coeffs(), kept);
    ps.set_coeffs_reduced(raw);
    hs.set_coeffs_reduced(raw);
    let q = R::Field::MODULUS;
    for (i, (&c, &r)) in ps.coeffs().as_ref().iter().zip(raw.as_ref()).enumerate() {
        assert_eq!(c.into(), r.into() % q, "set_coeffs_reduced at {i}");
    }
    assert_eq!(hs.coeffs(), ps.coeffs());
    if let (Some(p), Some(h)) = (p, h) {
        assert_eq!(p.coeffs(), raw);
        assert_eq!(h.coeffs(), raw);
        for i in [0, 1, R::N - 1] {
            assert_eq!(p.get(i), Some(raw.as_ref()[i]));
            assert_eq!(h.get(i), Some(raw.as_ref()[i]));
        }
        let mut z = p.clone();
        assert_eq!(z, p);
        z.zeroize();
        assert_eq!(z, Poly::<R>::zero());
        let mut z = h.clone();
        z.zeroize();
        assert_eq!(z, NttPoly::<R>::default());
        assert_eq!(format!("{p:?}"), "Poly{ .. }");
        assert_eq!(format!("{h:?}"), "NttPoly{ .. }");
    }
    for i in [R::N, R::N + 1, usize::MAX] {
        assert_eq!(Poly::<R>::zero().get(i), None);
        assert_eq!(NttPoly::<R>::zero().get(i), None);
    }
    assert_eq!(Poly::<R>::zero(), Poly::<R>::default());
    assert!(
        Poly::<R>::zero()
            .coeffs()
            .as_ref()
            .iter()
            .all(|&c| val::<R>(c) == 0)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn poly_constructors_any_array(k in raw_mlkem(), d in raw_mldsa(), wk in any::<[u32; 8]>(), wd in any::<[u64; 8]>()) {
        check_constructors::<MlKem>(&k);
        check_constructors::<MlDsa>(&d);
        // `from_fn` reduces any wide value (both fields' reductions take all of it).
        let p = mlkem::Poly::from_fn(|i| wk[i % 8]);
        prop_assert!(p.coeffs().iter().zip(0..).all(|(&c, i)| u32::from(c) == wk[i % 8] % 3329));
        let h = mlkem::NttPoly::from_fn(|i| wk[i % 8]);
        prop_assert_eq!(h.coeffs(), p.coeffs());
        let p = mldsa::Poly::from_fn(|i| wd[i % 8]);
        prop_assert!(p.coeffs().iter().zip(0..).all(|(&c, i)| u64::from(c) == wd[i % 8] % u64::from(QD)));
        let h = mldsa::NttPoly::from_fn(|i| wd[i % 8]);
        prop_assert_eq!(h.coeffs(), p.coeffs());
    }
}

#[test]
fn poly_constructors_at_the_boundaries() {
    // One bad coefficient anywhere is refused.
    for bad in [QK, QK + 1, 4095, 0x7fff, 0x8000, u16::MAX] {
        for pos in [0, 1, 127, 128, N - 1] {
            let mut c = [QK - 1; N];
            c[pos] = bad;
            check_constructors::<MlKem>(&c);
        }
    }
    for bad in [QD, QD + 1, 1 << 23, 1 << 31, u32::MAX] {
        for pos in [0, N - 1] {
            let mut c = [QD - 1; N];
            c[pos] = bad;
            check_constructors::<MlDsa>(&c);
        }
    }
    check_constructors::<MlKem>(&[QK - 1; N]);
    check_constructors::<MlDsa>(&[QD - 1; N]);
    assert!(
        mlkem::Poly::from_fn(|_| u32::MAX)
            .coeffs()
            .iter()
            .all(|&c| u32::from(c) == u32::MAX % 3329)
    );
    assert!(
        mldsa::Poly::from_fn(|_| u64::MAX)
            .coeffs()
            .iter()
            .all(|&c| u64::from(c) == u64::MAX % u64::from(QD))
    );
    // The in-place setters: canonical values kept, a non-canonical one refused (the
    // polynomial unchanged) or reduced.
    let mut p = mlkem::Poly::zero();
    let mut c = [0u16; N];
    c[N - 1] = QK - 1;
    assert_eq!(p.try_set_coeffs(&c), Ok(()));
    assert_eq!(p.get(N - 1), Some(QK - 1));
    c[0] = QK;
    assert_eq!(p.try_set_coeffs(&c), Err(lattice_poly_ntt::NotCanonical));
    assert_eq!(p.get(0), Some(0));
    assert_eq!(p.get(N - 1), Some(QK - 1));
    c[0] = u16::MAX;
    p.set_coeffs_reduced(&c);
    assert_eq!(p.get(0), Some(u16::MAX % QK));
    assert_eq!(p.get(N - 1), Some(QK - 1));
}

/// Every operation on one or two canonical polynomials with backend `b`, against the
/// portable backend; outputs canonical.
fn check_poly_ops<R: Ring, B: Backend<R>>(b: B, x: &Poly<R>, y: &Poly<R>) {
    let p = Portable;
    let (xh, yh) = (
        NttPoly::<R>::from_coeffs(*x.coeffs()).unwrap(),
        NttPoly::<R>::from_coeffs(*y.coeffs()).unwrap(),
    );
    // add_assign / sub_assign, both domains.
    let (mut s, mut t) = (x.clone(), x.clone());
    s.add_assign(b, y);
    t.add_assign(p, y);
    assert_eq!(s, t, "Poly::add_assign");
    assert!(is_canonical::<R>(s.coeffs()));
    let (mut s, mut t) = (x.clone(), x.clone());
    s.sub_assign(b, y);
    t.sub_assign(p, y);
    assert_eq!(s, t, "Poly::sub_assign");
    let q = R::Field::MODULUS;
    for i in 0..R::N {
        let (a, c) = (
            val::<R>(x.coeffs().as_ref()[i]),
            val::<R>(y.coeffs().as_ref()[i]),
        );
        assert_eq!(val::<R>(s.coeffs().as_ref()[i]), (a + q - c) % q);
    }
    let (mut s, mut t) = (xh.clone(), xh.clone());
    s.add_assign(b, &yh);
    t.add_assign(p, &yh);
    assert_eq!(s, t, "NttPoly::add_assign");
    let (mut s, mut t) = (xh.clone(), xh.clone());
    s.sub_assign(b, &yh);
    t.sub_assign(p, &yh);
    assert_eq!(s, t, "NttPoly::sub_assign");
    // The NTTs, returning and in place.
    let fwd = x.ntt(b);
    assert_eq!(fwd, x.ntt(p), "Poly::ntt");
    assert!(is_canonical::<R>(fwd.coeffs()));
    let mut into = NttPoly::<R>::from_coeffs(*y.coeffs()).unwrap();
    x.ntt_into(b, &mut into);
    assert_eq!(into, fwd, "Poly::ntt_into");
    let inv = xh.inverse_ntt(b);
    assert_eq!(inv, xh.inverse_ntt(p), "NttPoly::inverse_ntt");
    assert!(is_canonical::<R>(inv.coeffs()));
    let mut into = y.clone();
    xh.inverse_ntt_into(b, &mut into);
    assert_eq!(into, inv, "NttPoly::inverse_ntt_into");
    assert_eq!(&fwd.inverse_ntt(b), x, "round trip");
    // Right-hand sides and their caches.
    let cached = CachedNttPoly::new(b, &yh);
    let reference = CachedNttPoly::new(p, &yh);
    assert_eq!(cached.poly(), &yh);
    assert_eq!(format!("{cached:?}"), "CachedNttPoly { .. }");
    let mut set = CachedNttPoly::<R>::default();
    set.set(b, &yh);
    assert_eq!(set.poly(), reference.poly());
    let mut of = CachedNttPoly::<R>::zero();
    of.set_ntt_of(b, y);
    assert_eq!(of.poly(), &y.ntt(p), "set_ntt_of");
    // The product, against the portable one and the schoolbook product.
    let prod = multiply_ntts(b, &fwd, &of);
    assert_eq!(prod, multiply_ntts(p, &fwd, &of), "multiply_ntts");
    assert!(is_canonical::<R>(prod.coeffs()));
    assert_eq!(
        coeffs_u64::<R>(prod.inverse_ntt(b).coeffs()),
        common::schoolbook(x, y)
    );
    let mut z = cached.clone();
    z.zeroize();
    assert_eq!(z.poly(), &NttPoly::<R>::zero());
}

/// ML-KEM's caches (`b * zeta`) are the same on every backend, and canonical.
fn check_mlkem_cache<B: Backend<MlKem>>(b: B, y: &mlkem::NttPoly, yp: &mlkem::Poly) {
    let p = Portable;
    let cached = CachedNttPoly::new(b, y);
    let reference = CachedNttPoly::new(p, y);
    assert_eq!(cached.b_zeta(), reference.b_zeta());
    assert_eq!(cached.cache(), reference.cache());
    assert!(cached.b_zeta().iter().all(|&c| c < QK));
    let mut set = mlkem::CachedNttPoly::zero();
    set.set(b, y);
    assert_eq!(set.b_zeta(), reference.b_zeta());
    let mut of = mlkem::CachedNttPoly::zero();
    of.set_ntt_of(b, yp);
    assert_eq!(of.b_zeta(), CachedNttPoly::new(p, &yp.ntt(p)).b_zeta());
    let mut z = cached.clone();
    z.zeroize();
    assert!(z.b_zeta().iter().all(|&c| c == 0));
    // The lazy product against the eager reference.
    let lazy = mlkem::multiply_ntts(b, y, &reference);
    assert_eq!(lazy, mlkem::multiply_ntts_eager(y, y));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn poly_operations_every_backend(
        kx in canonical_mlkem(), ky in canonical_mlkem(),
        dx in canonical_mldsa(), dy in canonical_mldsa(),
    ) {
        let (kx, ky, dx, dy) = (kpoly(&kx), kpoly(&ky), dpoly(&dx), dpoly(&dy));
        let kyh = kntt(ky.coeffs());
        on_every_backend!(|b| {
            check_poly_ops::<MlKem, _>(b, &kx, &ky);
            check_poly_ops::<MlDsa, _>(b, &dx, &dy);
            check_mlkem_cache(b, &kyh, &ky);
        });
    }
}

#[test]
fn poly_operations_at_the_boundaries() {
    let k: Vec<_> = [
        [0; N],
        [1; N],
        [QK - 1; N],
        core::array::from_fn(|i| if i % 2 == 0 { QK - 1 } else { 0 }),
    ]
    .iter()
    .map(kpoly)
    .collect();
    let d: Vec<_> = [[0; N], [QD - 1; N]].iter().map(dpoly).collect();
    for x in &k {
        for y in &k {
            let yh = kntt(y.coeffs());
            on_every_backend!(|b| {
                check_poly_ops::<MlKem, _>(b, x, y);
                check_mlkem_cache(b, &yh, y);
            });
        }
    }
    for x in &d {
        for y in &d {
            on_every_backend!(|b| check_poly_ops::<MlDsa, _>(b, x, y));
        }
    }
}

// ---- Accumulator --------------------------------------------------------------------

/// `t` products `a * rhs` on `b` (any `t`: past its `MAX_TERMS` the accumulator folds):
/// the count, the reduced result (`t` times one product, mod q) through `reduce` and
/// `reduce_into`, `clear`, `Clone` and `Zeroize`.
fn check_accumulator<R: Ring, B: Backend<R>>(b: B, a: &NttPoly<R>, rhs: &NttPoly<R>, t: usize) {
    let cached = CachedNttPoly::new(b, rhs);
    let one = multiply_ntts(Portable, a, &CachedNttPoly::new(Portable, rhs));
    let mut acc = Accumulator::new(b);
    assert_eq!(acc.terms(), 0);
    assert!(format!("{acc:?}").starts_with("Accumulator"));
    for n in 1..=t {
        acc.add_product(a, &cached);
        assert_eq!(acc.terms(), n);
    }
    let want = times::<R>(&one, t as u64);
    let got = acc.reduce();
    assert!(is_canonical::<R>(got.coeffs()));
    assert_eq!(coeffs_u64::<R>(got.coeffs()), want, "{t} terms on {b:?}");
    let mut into = NttPoly::<R>::from_coeffs(*a.coeffs()).unwrap();
    acc.reduce_into(&mut into);
    assert_eq!(into, got);
    let copy = acc.clone();
    assert_eq!(copy.reduce(), got);
    acc.clear();
    assert_eq!(acc.terms(), 0);
    assert_eq!(acc.reduce(), NttPoly::<R>::zero());
    if t > 0 {
        acc.add_product(a, &cached);
        assert_eq!(acc.reduce(), one);
    }
    acc.zeroize();
    assert_eq!(acc.terms(), 0);
    assert_eq!(acc.reduce(), NttPoly::<R>::zero());
}

#[test]
fn accumulators_up_to_each_backends_bound() {
    let kmax = kntt(&[QK - 1; N]);
    let dmax = dntt(&[QD - 1; N]);
    let kmix = kntt(&core::array::from_fn(|i| {
        (i as u32 * 1031 % u32::from(QK)) as u16
    }));
    on_every_backend!(|b| {
        let kcap = max_terms::<MlKem, _>(b);
        // Up to the bound, one past it (the first fold), and several folds.
        for t in [
            0,
            1,
            2,
            mlkem::MAX_RANK,
            kcap - 1,
            kcap,
            kcap + 1,
            3 * kcap + 2,
        ] {
            check_accumulator::<MlKem, _>(b, &kmax, &kmax, t);
            check_accumulator::<MlKem, _>(b, &kmix, &kmax, t);
        }
        for t in [0, 1, mldsa::MAX_COLUMNS, 1000] {
            check_accumulator::<MlDsa, _>(b, &dmax, &dmax, t);
        }
    });
    // ML-DSA's bound is 262,656 terms: once, on the portable backend, through the bound
    // and one product past it (the fold).
    let dcap = max_terms::<MlDsa, _>(Portable);
    check_accumulator::<MlDsa, _>(Portable, &dmax, &dmax, dcap + 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn accumulators_random(a in canonical_mlkem(), r in canonical_mlkem(), t in 0usize..=8,
                           da in canonical_mldsa(), dr in canonical_mldsa()) {
        let (a, r, da, dr) = (kntt(&a), kntt(&r), dntt(&da), dntt(&dr));
        on_every_backend!(|b| {
            check_accumulator::<MlKem, _>(b, &a, &r, t);
            check_accumulator::<MlDsa, _>(b, &da, &dr, t);
        });
    }
}

// ---- vectors and matrices -----------------------------------------------------------

/// Every vector and matrix operation at `ROWS x COLS` on `b` against the portable backend,
/// and the products against sums of single products.
fn check_linear_algebra<R: Ring, B: Backend<R>, const ROWS: usize, const COLS: usize>(
    b: B,
    m: &[[NttPoly<R>; COLS]; ROWS],
    v: &[Poly<R>; COLS],
    w: &[NttPoly<R>; ROWS],
) {
    let p = Portable;
    let a = Matrix::<R, ROWS, COLS> { rows: m.clone() };
    assert_eq!(Matrix::<R, ROWS, COLS>::zero(), Matrix::default());
    // PolyVector.
    let pv = PolyVector::<R, COLS>::new(v.clone());
    assert_eq!(PolyVector::<R, COLS>::zero(), PolyVector::default());
    let mut sum = pv.clone();
    sum.add_assign(b, &pv);
    let mut want = pv.clone();
    want.add_assign(p, &pv);
    assert_eq!(sum, want, "PolyVector::add_assign");
    let hat = pv.ntt(b);
    assert_eq!(hat, pv.ntt(p), "PolyVector::ntt");
    let cached = pv.ntt_cached(b);
    assert_eq!(cached.to_vector(), hat, "PolyVector::ntt_cached");
    let mut into = CachedNttVector::<R, COLS>::zero();
    pv.ntt_cached_into(b, &mut into);
    assert_eq!(into.to_vector(), hat);
    // NttVector.
    assert_eq!(NttVector::<R, COLS>::zero(), NttVector::default());
    let mut hsum = hat.clone();
    hsum.add_assign(b, &hat);
    assert_eq!(hsum, sum.ntt(p), "NttVector::add_assign");
    assert_eq!(hat.inverse_ntt(b), pv, "NttVector::inverse_ntt");
    let c2 = hat.cached(b);
    assert_eq!(c2.to_vector(), hat);
    let mut c3 = CachedNttVector::<R, COLS>::zero();
    hat.cached_into(b, &mut c3);
    assert_eq!(c3.to_vector(), hat);
    let reference = hat.cached(p);
    let mut z = c3.clone();
    z.zeroize();
    assert_eq!(z.to_vector(), NttVector::zero());
    let dot = hat.dot(b, &cached);
    assert_eq!(dot, hat.dot(p, &reference), "NttVector::dot");
    let mut naive = NttPoly::<R>::zero();
    for j in 0..COLS {
        naive.add_assign(p, &multiply_ntts(p, &hat.0[j], &reference.0[j]));
    }
    assert_eq!(dot, naive);
    // Matrix products.
    let av = a.mul_vector(b, &cached);
    assert_eq!(av, a.mul_vector(p, &reference), "Matrix::mul_vector");
    for i in 0..ROWS {
        let mut row = NttPoly::<R>::zero();
        for j in 0..COLS {
            row.add_assign(p, &multiply_ntts(p, &a.rows[i][j], &reference.0[j]));
        }
        assert_eq!(av.0[i], row, "A * v row {i}");
    }
    let wv = NttVector::<R, ROWS>::new(w.clone());
    let wc = wv.cached(b);
    let atw = a.transpose_mul_vector(b, &wc);
    assert_eq!(
        atw,
        a.transpose_mul_vector(p, &wv.cached(p)),
        "transpose_mul_vector"
    );
    for j in 0..COLS {
        let mut col = NttPoly::<R>::zero();
        for i in 0..ROWS {
            col.add_assign(p, &multiply_ntts(p, &a.rows[i][j], &wc.0[i]));
        }
        assert_eq!(atw.0[j], col, "A^T * w row {j}");
    }
    // Row ranges, empty, reversed and past the end included: rows inside the range are
    // computed, every other row of `out` is left alone.
    let marker = NttPoly::<R>::from_fn(|_| R::Field::widen(R::Field::ONE));
    let ranges = [
        (0, ROWS),
        (0, 0),
        (1, ROWS),
        (ROWS, ROWS),
        (ROWS.saturating_sub(1), ROWS + 3),
        (2, 1),
        (0, usize::MAX),
        (usize::MAX, usize::MAX),
        (ROWS + 1, usize::MAX),
    ];
    for (start, end) in ranges {
        let mut out = NttVector::<R, ROWS>::new(core::array::from_fn(|_| marker.clone()));
        a.mul_vector_rows(b, &cached, start..end, &mut out);
        for i in 0..ROWS {
            let want = if i >= start && i < end {
                &av.0[i]
            } else {
                &marker
            };
            assert_eq!(&out.0[i], want, "rows {start}..{end}, row {i}");
        }
    }
}

fn kmatrix<const R: usize, const C: usize>(seed: u16) -> [[mlkem::NttPoly; C]; R] {
    core::array::from_fn(|i| {
        core::array::from_fn(|j| {
            let s = seed.wrapping_add((i * C + j) as u16);
            mlkem::NttPoly::from_fn(|n| u32::from(s) * 7919 + n as u32 * 104_729)
        })
    })
}

fn dmatrix<const R: usize, const C: usize>(seed: u32) -> [[mldsa::NttPoly; C]; R] {
    core::array::from_fn(|i| {
        core::array::from_fn(|j| {
            let s = u64::from(seed) + (i * C + j) as u64;
            mldsa::NttPoly::from_fn(|n| s * 1_000_003 + n as u64 * 999_983)
        })
    })
}

#[test]
fn vectors_and_matrices_every_shape() {
    fn k<const R: usize, const C: usize>(seed: u16) {
        let m = kmatrix::<R, C>(seed);
        let v: [mlkem::Poly; C] = core::array::from_fn(|j| {
            mlkem::Poly::from_fn(|n| (n * 31 + j * 5 + usize::from(seed)) as u32)
        });
        let w: [mlkem::NttPoly; R] =
            core::array::from_fn(|i| m[i].first().cloned().unwrap_or_default());
        on_every_backend!(|b| check_linear_algebra::<MlKem, _, R, C>(b, &m, &v, &w));
    }
    fn d<const R: usize, const C: usize>(seed: u32) {
        let m = dmatrix::<R, C>(seed);
        let v: [mldsa::Poly; C] = core::array::from_fn(|j| {
            mldsa::Poly::from_fn(|n| (n * 31 + j * 5) as u64 + u64::from(seed))
        });
        let w: [mldsa::NttPoly; R] =
            core::array::from_fn(|i| m[i].first().cloned().unwrap_or_default());
        on_every_backend!(|b| check_linear_algebra::<MlDsa, _, R, C>(b, &m, &v, &w));
    }
    /// All-maximal entries: the accumulators' worst case.
    fn kmax<const K: usize>() {
        let max = kntt(&[QK - 1; N]);
        let m: [[mlkem::NttPoly; K]; K] =
            core::array::from_fn(|_| core::array::from_fn(|_| max.clone()));
        let v: [mlkem::Poly; K] = core::array::from_fn(|_| kpoly(&[QK - 1; N]));
        let w: [mlkem::NttPoly; K] = core::array::from_fn(|_| max.clone());
        on_every_backend!(|b| check_linear_algebra::<MlKem, _, K, K>(b, &m, &v, &w));
    }
    // Empty and single-element shapes, ML-KEM's ranks, ML-DSA's widest matrix.
    k::<0, 0>(1);
    k::<1, 0>(1);
    k::<0, 1>(1);
    k::<1, 1>(2);
    k::<2, 2>(3);
    k::<3, 3>(4);
    k::<4, 4>(5);
    k::<2, 3>(6);
    d::<1, 1>(7);
    d::<2, 3>(8);
    d::<3, 2>(9);
    d::<8, 7>(10);
    // All-maximal entries: the accumulators' worst case, for every rank.
    kmax::<2>();
    kmax::<3>();
    kmax::<4>();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn vectors_and_matrices_random(
        m in proptest::collection::vec(canonical_mlkem(), 9),
        v in proptest::collection::vec(canonical_mlkem(), 3),
        w in proptest::collection::vec(canonical_mlkem(), 3),
    ) {
        let m: [[mlkem::NttPoly; 3]; 3] = core::array::from_fn(|i| core::array::from_fn(|j| kntt(&m[3 * i + j])));
        let v: [mlkem::Poly; 3] = core::array::from_fn(|j| kpoly(&v[j]));
        let w: [mlkem::NttPoly; 3] = core::array::from_fn(|i| kntt(&w[i]));
        on_every_backend!(|b| check_linear_algebra::<MlKem, _, 3, 3>(b, &m, &v, &w));
    }
}

// ---- ring descriptions --------------------------------------------------------------

/// `ZETA^BitRev(i) mod q` by the definition, independent of the library.
fn naive_table(zeta: u64, q: u64, len: usize) -> Vec<u64> {
    let bits = len.trailing_zeros();
    (0..len)
        .map(|i| {
            let rev = if bits == 0 {
                0
            } else {
                (i as u64).reverse_bits() >> (64 - bits)
            };
            lattice_field::pow_mod(zeta, rev, q)
        })
        .collect()
}

fn check_tables(zeta: u64, q: u64) {
    assert_eq!(
        bit_reversed_powers::<1>(zeta, q).to_vec(),
        naive_table(zeta, q, 1)
    );
    assert_eq!(
        bit_reversed_powers::<2>(zeta, q).to_vec(),
        naive_table(zeta, q, 2)
    );
    assert_eq!(
        bit_reversed_powers::<8>(zeta, q).to_vec(),
        naive_table(zeta, q, 8)
    );
    assert_eq!(
        bit_reversed_powers::<256>(zeta, q).to_vec(),
        naive_table(zeta, q, 256)
    );
}

#[test]
fn ring_descriptions_and_tables() {
    let () = MlKem::CHECKS;
    let () = MlDsa::CHECKS;
    assert_eq!(<MlKem as Ring>::MAX_TERMS, mlkem::ACCUMULATOR_MAX_TERMS);
    assert_eq!(<MlDsa as Ring>::MAX_TERMS, mldsa::ACCUMULATOR_MAX_TERMS);
    assert!(u64::from(mlkem::NTT_OUTPUT_MAX) < u64::from(QK));
    assert_eq!(mlkem::PAIRS * 2, mlkem::N);
    let mut cache = [QK - 1; mlkem::PAIRS];
    MlKem::zeroize_rhs_cache(&mut cache);
    assert_eq!(cache, [0; mlkem::PAIRS]);
    MlDsa::zeroize_rhs_cache(&mut ());
    for (zeta, q) in [
        (17, 3329),
        (1753, 8_380_417),
        (0, 3329),
        (3, 0),
        (3, 1),
        (u64::MAX, u64::MAX),
        (u64::MAX - 1, u64::MAX),
    ] {
        check_tables(zeta, q);
    }
    assert_eq!(
        bit_reversed_powers::<256>(1753, 8_380_417).map(|z| z as u32),
        mldsa::ZETAS
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn bit_reversed_powers_random(zeta in any::<u64>(), q in any::<u64>()) {
        check_tables(zeta, q);
    }
}
