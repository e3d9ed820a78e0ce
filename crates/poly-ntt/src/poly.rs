//! The two polynomial types: [`Poly`] (coefficient domain, R_q) and [`NttPoly`] (NTT domain, T_q).
//!
//! FIPS 203 writes NTT-domain values with a hat; here they have their own type, so that
//! forgetting an NTT (or doing one twice) is a type error instead of a wrong key.

use crate::backend::{Backend, Portable};
use mlkem_field::Q;
use zeroize::Zeroize;

/// Number of coefficients of a polynomial (FIPS 203: n = 256).
pub const N: usize = 256;

macro_rules! poly_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        ///
        /// Invariant: every coefficient is canonical, in `[0, q)`. Constructors that take raw
        /// coefficients check it; [`Self::coeffs_mut`] hands the responsibility to the caller.
        #[derive(Clone, PartialEq, Eq)]
        pub struct $name {
            coeffs: [u16; N],
        }

        impl $name {
            /// The zero polynomial.
            #[must_use]
            pub const fn zero() -> Self {
                Self { coeffs: [0; N] }
            }

            /// Wraps coefficients, or returns `None` if one of them is `>= q`.
            ///
            /// Runs in time independent of the values (it inspects every coefficient).
            #[must_use]
            pub fn from_coeffs(coeffs: [u16; N]) -> Option<Self> {
                let mut over = 0u16;
                for &c in &coeffs {
                    // (q - 1 - c) wraps to a value with the top bit set iff c >= q (c < 2^15).
                    over |= (Q - 1).wrapping_sub(c & 0x7fff) | (c & 0x8000);
                }
                (over & 0x8000 == 0).then_some(Self { coeffs })
            }

            /// Builds a polynomial from a function of the coefficient index whose values
            /// are reduced with [`mlkem_field::barrett_reduce`].
            #[must_use]
            pub fn from_fn(mut f: impl FnMut(usize) -> u32) -> Self {
                Self { coeffs: core::array::from_fn(|i| mlkem_field::barrett_reduce(f(i))) }
            }

            /// The coefficients, each in `[0, q)`.
            #[must_use]
            pub const fn coeffs(&self) -> &[u16; N] {
                &self.coeffs
            }

            /// Mutable access to the coefficients.
            ///
            /// The caller must leave every coefficient in `[0, q)`: the lazy accumulators
            /// rely on it for their overflow bound (a violation is caught by overflow checks
            /// in debug builds and gives wrong results, never memory unsafety, in release).
            pub fn coeffs_mut(&mut self) -> &mut [u16; N] {
                &mut self.coeffs
            }

            /// `self += other` coefficient-wise, mod q.
            ///
            /// Runs [`Backend::add`] of the backend selected at the call: [`crate::Avx2`]
            /// when [`crate::backend::use_avx2`] says so, [`Portable`] otherwise. Every
            /// backend gives the same result.
            pub fn add_assign(&mut self, other: &Self) {
                on_selected_backend!(add(&mut self.coeffs, &other.coeffs));
            }

            /// `self -= other` coefficient-wise, mod q.
            ///
            /// Runs [`Backend::sub`] of the backend selected at the call: [`crate::Avx2`]
            /// when [`crate::backend::use_avx2`] says so, [`Portable`] otherwise. Every
            /// backend gives the same result.
            pub fn sub_assign(&mut self, other: &Self) {
                on_selected_backend!(sub(&mut self.coeffs, &other.coeffs));
            }
        }

        impl Zeroize for $name {
            fn zeroize(&mut self) {
                // The slice impl is one bulk fill plus an optimization barrier; the array
                // impl would issue 256 separate volatile stores.
                self.coeffs.as_mut_slice().zeroize();
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::zero()
            }
        }

        impl core::fmt::Debug for $name {
            /// Prints only the type: polynomials are often secret.
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(concat!(stringify!($name), "{ .. }"))
            }
        }
    };
}

/// Runs `$method` of the backend chosen once per call, as everywhere outside the generic
/// code: [`Avx2`](crate::Avx2) when [`use_avx2`](crate::backend::use_avx2) says so (x86_64,
/// CPU support, portable backend not forced), [`Portable`] otherwise.
macro_rules! on_selected_backend {
    ($method:ident($($arg:expr),*)) => {{
        #[cfg(target_arch = "x86_64")]
        if crate::backend::use_avx2() {
            crate::backend::Avx2::$method($($arg),*);
        } else {
            Portable::$method($($arg),*);
        }
        #[cfg(not(target_arch = "x86_64"))]
        Portable::$method($($arg),*);
    }};
}

poly_type!(
    /// A polynomial of R_q = Z_q\[X\]/(X^256 + 1), in the coefficient domain.
    Poly
);

poly_type!(
    /// A polynomial in the NTT domain T_q: 128 elements of Z_q\[X\]/(X^2 - gamma_i),
    /// coefficient pairs `(2i, 2i + 1)` in the order of FIPS 203.
    NttPoly
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_coeffs_checks_every_coefficient() {
        assert!(Poly::from_coeffs([Q - 1; N]).is_some());
        for bad in [Q, Q + 1, 4095, 0x7fff, 0x8000, u16::MAX] {
            for pos in [0, 17, N - 1] {
                let mut c = [0u16; N];
                c[pos] = bad;
                assert!(NttPoly::from_coeffs(c).is_none(), "{bad} at {pos}");
            }
        }
    }
}
