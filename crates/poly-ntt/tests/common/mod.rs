//! Running a test on every backend this CPU has.
//!
//! Each macro runs its body once per [`BackendKind`], with the token bound to the given
//! name, says on stderr which kinds it skipped because the CPU lacks them, and fails if an
//! available kind did not run.

/// Runs `$body` with `$b` bound to each backend this CPU has.
#[allow(unused_macros)]
macro_rules! on_every_backend {
    (|$b:ident| $body:expr) => {{
        let mut ran = 0;
        for kind in lattice_poly_ntt::backend::BackendKind::ALL {
            match lattice_poly_ntt::backend::AnyBackend::of(kind) {
                Some(any) => {
                    lattice_poly_ntt::dispatch!(any, |$b| $body);
                    ran += 1;
                }
                None => eprintln!("{kind}: skipped (not available on this CPU)"),
            }
        }
        let available = lattice_poly_ntt::backend::BackendKind::ALL
            .iter()
            .filter(|k| k.is_available())
            .count();
        assert_eq!(ran, available, "every available backend must run");
    }};
}

/// [`on_every_backend`] for proptest bodies (`prop_assert!` returns a `Result`).
#[allow(unused_macros)]
macro_rules! prop_on_every_backend {
    (|$b:ident| $body:expr) => {{
        for kind in lattice_poly_ntt::backend::BackendKind::ALL {
            match lattice_poly_ntt::backend::AnyBackend::of(kind) {
                Some(any) => lattice_poly_ntt::dispatch!(any, |$b| {
                    $body;
                    Ok::<(), proptest::test_runner::TestCaseError>(())
                })?,
                None => eprintln!("{kind}: skipped (not available on this CPU)"),
            }
        }
    }};
}
