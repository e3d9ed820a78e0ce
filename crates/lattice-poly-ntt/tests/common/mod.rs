//! Running a test on every backend this CPU has ([`AnyBackend::available`]).
//!
//! Each macro runs its body once per available backend, with the token bound to the given
//! name, and says on stderr which kinds it skipped because the CPU lacks them.
//!
//! [`AnyBackend::available`]: lattice_poly_ntt::backend::AnyBackend::available

/// Says on stderr which backend kinds this CPU lacks (their tests are skipped).
pub(crate) fn report_skipped() {
    for kind in lattice_poly_ntt::backend::BackendKind::ALL {
        if !kind.is_available() {
            eprintln!("{kind}: skipped (not available on this CPU)");
        }
    }
}

/// Runs `$body` with `$b` bound to each backend this CPU has.
#[allow(unused_macros)]
macro_rules! on_every_backend {
    (|$b:ident| $body:expr) => {{
        for any in lattice_poly_ntt::backend::AnyBackend::available() {
            lattice_poly_ntt::dispatch!(any, |$b| $body);
        }
        common::report_skipped();
    }};
}

/// [`on_every_backend`] for proptest bodies (`prop_assert!` returns a `Result`).
#[allow(unused_macros)]
macro_rules! prop_on_every_backend {
    (|$b:ident| $body:expr) => {{
        for any in lattice_poly_ntt::backend::AnyBackend::available() {
            lattice_poly_ntt::dispatch!(any, |$b| {
                $body;
                Ok::<(), proptest::test_runner::TestCaseError>(())
            })?;
        }
        common::report_skipped();
    }};
}

/// The schoolbook product of two polynomials of ring `R` in `Z_q[X]/(X^n + 1)`, in `i128`,
/// independent of the library's arithmetic.
pub(crate) fn schoolbook<R: lattice_poly_ntt::Ring>(
    a: &lattice_poly_ntt::Poly<R>,
    b: &lattice_poly_ntt::Poly<R>,
) -> Vec<u64> {
    use lattice_field::Field;
    let (a, b) = (a.coeffs().as_ref(), b.coeffs().as_ref());
    let n = a.len();
    let mut acc = vec![0i128; n];
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            let p = i128::from(x.into()) * i128::from(y.into());
            if i + j < n {
                acc[i + j] += p;
            } else {
                acc[i + j - n] -= p;
            }
        }
    }
    let q = i128::from(R::Field::MODULUS);
    acc.iter().map(|c| c.rem_euclid(q) as u64).collect()
}
