//! The two polynomial types of a ring `R`: [`Poly`] (coefficient domain, R_q) and
//! [`NttPoly`] (NTT domain, T_q).
//!
//! FIPS 203 and FIPS 204 write NTT-domain values with a hat; here they have their own type,
//! so that forgetting an NTT (or doing one twice) is a type error instead of a wrong key.

use crate::backend::Backend;
use crate::ring::{Elem, KernelCall, Ring, zeroize_array};
use lattice_field::Field;
use zeroize::Zeroize;

macro_rules! poly_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        ///
        /// Invariant: every coefficient is canonical, in `[0, q)`. Every public way in checks
        /// it ([`Self::from_coeffs`], [`Self::try_set_coeffs`]) or reduces
        /// ([`Self::from_fn`], [`Self::set_coeffs_reduced`]), so no caller outside this workspace
        /// can break it (the workspace's samplers write through a hidden accessor).
        #[derive(Clone, PartialEq, Eq)]
        pub struct $name<R: Ring> {
            coeffs: R::Coeffs,
        }

        impl<R: Ring> $name<R> {
            /// The zero polynomial.
            #[must_use]
            pub const fn zero() -> Self {
                Self { coeffs: R::ZERO_COEFFS }
            }

            /// Wraps coefficients, or returns `None` if one of them is `>= q`.
            ///
            /// Runs in time independent of the values (it inspects every coefficient).
            #[must_use]
            pub fn from_coeffs(coeffs: R::Coeffs) -> Option<Self> {
                let mut over = 0u8;
                for &c in coeffs.as_ref() {
                    over |= R::Field::not_canonical(c);
                }
                (over == 0).then_some(Self { coeffs })
            }

            /// Builds a polynomial from a function of the coefficient index whose values
            /// are reduced with the field's [`Field::reduce_wide`] (so they must lie in
            /// its domain).
            #[must_use]
            pub fn from_fn(mut f: impl FnMut(usize) -> <R::Field as Field>::Wide) -> Self {
                let mut coeffs = R::ZERO_COEFFS;
                for (i, c) in coeffs.as_mut().iter_mut().enumerate() {
                    *c = R::Field::reduce_wide(f(i));
                }
                Self { coeffs }
            }

            /// The coefficients, each in `[0, q)`.
            #[must_use]
            pub const fn coeffs(&self) -> &R::Coeffs {
                &self.coeffs
            }

            /// Replaces the coefficients with `coeffs` if every one is canonical (in
            /// `[0, q)`); otherwise leaves `self` as it was.
            ///
            /// Runs in time independent of the values (it inspects every coefficient).
            ///
            /// # Errors
            /// [`NotCanonical`] if a coefficient is `>= q`.
            pub fn try_set_coeffs(&mut self, coeffs: &R::Coeffs) -> Result<(), NotCanonical> {
                let mut over = 0u8;
                for &c in coeffs.as_ref() {
                    over |= R::Field::not_canonical(c);
                }
                if over != 0 {
                    return Err(NotCanonical);
                }
                self.coeffs = *coeffs;
                Ok(())
            }

            /// Replaces the coefficients with `coeffs`, each reduced mod q (so every value
            /// is accepted; canonical ones are kept as they are).
            pub fn set_coeffs_reduced(&mut self, coeffs: &R::Coeffs) {
                for (out, &c) in self.coeffs.as_mut().iter_mut().zip(coeffs.as_ref()) {
                    *out = R::Field::reduce_wide(R::Field::widen(c));
                }
            }

            /// Raw mutable access to the coefficients, for the crates of this workspace
            /// only: the samplers of `lattice-sampling` and the decoders of `lazykem`, whose
            /// outputs are canonical by construction (each call site says why), write
            /// straight into the polynomial. Not public API (hidden, no stability promise,
            /// it takes the workspace's token); elsewhere use `try_set_coeffs` or
            /// `set_coeffs_reduced`.
            #[doc(hidden)]
            pub fn coeffs_mut(&mut self, _: crate::__private::Workspace) -> &mut R::Coeffs {
                &mut self.coeffs
            }

            /// `self += other` coefficient-wise, mod q, with `backend`.
            #[inline]
            pub fn add_assign<B: Backend<R>>(&mut self, backend: B, other: &Self) {
                backend.add(KernelCall::NEW, &mut self.coeffs, &other.coeffs);
            }

            /// `self -= other` coefficient-wise, mod q, with `backend`.
            #[inline]
            pub fn sub_assign<B: Backend<R>>(&mut self, backend: B, other: &Self) {
                backend.sub(KernelCall::NEW, &mut self.coeffs, &other.coeffs);
            }

            /// Coefficient `i` (for tests and examples; `None` past `n`).
            #[must_use]
            pub fn get(&self, i: usize) -> Option<Elem<R>> {
                self.coeffs.as_ref().get(i).copied()
            }
        }

        impl<R: Ring> Zeroize for $name<R> {
            fn zeroize(&mut self) {
                zeroize_array(&mut self.coeffs);
            }
        }

        impl<R: Ring> Default for $name<R> {
            fn default() -> Self {
                Self::zero()
            }
        }

        impl<R: Ring> core::fmt::Debug for $name<R> {
            /// Prints only the type: polynomials are often secret.
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(concat!(stringify!($name), "{ .. }"))
            }
        }
    };
}

poly_type!(
    /// A polynomial of R_q = Z_q\[X\]/(X^n + 1), in the coefficient domain.
    Poly
);

poly_type!(
    /// A polynomial in the NTT domain T_q, in the order of FIPS 203 / FIPS 204 (for
    /// ML-KEM's incomplete NTT: 128 elements of Z_q\[X\]/(X^2 - gamma_i), coefficient pairs
    /// `(2i, 2i + 1)`).
    NttPoly
);

/// The error of [`Poly::try_set_coeffs`] and [`NttPoly::try_set_coeffs`]: a coefficient is
/// not canonical (`>= q`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NotCanonical;

impl core::fmt::Display for NotCanonical {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("a coefficient is not in [0, q)")
    }
}

impl core::error::Error for NotCanonical {}

impl<R: Ring> Poly<R> {
    /// The forward NTT (FIPS 203 Alg. 9, FIPS 204 Alg. 41) of a copy of `self`.
    ///
    /// Takes `&self` so that a caller holding a secret polynomial keeps the one copy it
    /// has to erase.
    #[must_use]
    #[inline]
    pub fn ntt<B: Backend<R>>(&self, backend: B) -> NttPoly<R> {
        let mut out = NttPoly::zero();
        self.ntt_into(backend, &mut out);
        out
    }

    /// The forward NTT of `self` written into `out` (out of place: no copy first).
    #[inline]
    pub fn ntt_into<B: Backend<R>>(&self, backend: B, out: &mut NttPoly<R>) {
        // The backend contract keeps outputs canonical.
        backend.ntt_canonical_into(KernelCall::NEW, &self.coeffs, &mut out.coeffs);
    }
}

impl<R: Ring> NttPoly<R> {
    /// The inverse NTT, including the final scaling (FIPS 203 Alg. 10,
    /// FIPS 204 Alg. 42), of a copy of `self`: `p.ntt().inverse_ntt() == p`.
    #[must_use]
    #[inline]
    pub fn inverse_ntt<B: Backend<R>>(&self, backend: B) -> Poly<R> {
        let mut out = Poly::zero();
        self.inverse_ntt_into(backend, &mut out);
        out
    }

    /// The inverse NTT of `self` written into `out` (out of place: no copy first).
    #[inline]
    pub fn inverse_ntt_into<B: Backend<R>>(&self, backend: B, out: &mut Poly<R>) {
        backend.inverse_ntt_canonical_into(KernelCall::NEW, &self.coeffs, &mut out.coeffs);
    }
}

#[cfg(test)]
mod tests {
    use crate::mldsa::MlDsa;
    use crate::mlkem::{MlKem, N};

    #[test]
    fn from_coeffs_checks_every_coefficient() {
        type P = super::Poly<MlKem>;
        type D = super::NttPoly<MlDsa>;
        assert!(P::from_coeffs([3328; N]).is_some());
        for bad in [3329, 3330, 4095, 0x7fff, 0x8000, u16::MAX] {
            for pos in [0, 17, N - 1] {
                let mut c = [0u16; N];
                c[pos] = bad;
                assert!(P::from_coeffs(c).is_none(), "{bad} at {pos}");
            }
        }
        assert!(D::from_coeffs([8380416; N]).is_some());
        for bad in [8380417, 1 << 23, 0x7fff_ffff, 0x8000_0000, u32::MAX] {
            let mut c = [0u32; N];
            c[200] = bad;
            assert!(D::from_coeffs(c).is_none(), "{bad}");
        }
    }
}
