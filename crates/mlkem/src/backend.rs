//! Which arithmetic backend the KEM runs on.
//!
//! Every public operation is monomorphized for one [`lattice_poly_ntt::Backend`] and picks it
//! once, at its start: AVX2 when the CPU has it (detected once, cached) and the portable
//! backend is not forced, the portable backend otherwise. All backends compute identical
//! results; [`force_portable`](crate::force_portable) selects the portable one for tests,
//! benchmarks and users who want it.

/// Runs `$body` with the type alias `$b` naming the selected backend.
macro_rules! with_backend {
    ($b:ident => $body:expr) => {{
        #[cfg(target_arch = "x86_64")]
        {
            if lattice_poly_ntt::backend::use_avx2() {
                type $b = lattice_poly_ntt::Avx2;
                $body
            } else {
                type $b = lattice_poly_ntt::Portable;
                $body
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            type $b = lattice_poly_ntt::Portable;
            $body
        }
    }};
}

pub(crate) use with_backend;
