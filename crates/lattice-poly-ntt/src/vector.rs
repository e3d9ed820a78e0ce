//! Vectors of `K` polynomials and `ROWS x COLS` matrices over a ring `R` (ML-KEM:
//! square, k = 2, 3, 4; ML-DSA: k x l up to 8 x 7), and their products, all lazily
//! accumulated (one reduction per output coefficient). For ML-KEM's K-PKE:
//!
//! | product | used in | function |
//! |---|---|---|
//! | `A * s` | key generation (FIPS 203 Alg. 13 l. 18) | [`Matrix::mul_vector`] |
//! | `A^T * r` | encryption (FIPS 203 Alg. 14 l. 19) | [`Matrix::transpose_mul_vector`] |
//! | `t^T * r`, `s^T * u` | encryption (FIPS 203 Alg. 14 l. 21), decryption (FIPS 203 Alg. 15 l. 6) | [`NttVector::dot`] |
//!
//! The right-hand side is always a [`CachedNttVector`]: build it once, and encryption's two
//! products share its `b*zeta` cache.

use crate::backend::{Backend, DotTerm};
use crate::lazy::CachedNttPoly;
use crate::poly::{NttPoly, Poly};
use crate::ring::{KernelCall, Ring};
use zeroize::Zeroize;

macro_rules! vector_type {
    ($(#[$doc:meta])* $name:ident, $elem:ident) => {
        $(#[$doc])*
        #[derive(Clone, PartialEq, Eq, Zeroize, Debug)]
        pub struct $name<R: Ring, const K: usize>(pub [$elem<R>; K]);

        impl<R: Ring, const K: usize> $name<R, K> {
            /// The zero vector.
            #[must_use]
            pub const fn zero() -> Self {
                Self([const { $elem::zero() }; K])
            }

            /// Wraps an array of polynomials.
            #[must_use]
            pub const fn new(elements: [$elem<R>; K]) -> Self {
                Self(elements)
            }

            /// `self += other` element-wise, with backend `B`.
            #[inline]
            pub fn add_assign<B: Backend<R>>(&mut self, backend: B, other: &Self) {
                for (a, b) in self.0.iter_mut().zip(&other.0) {
                    a.add_assign(backend, b);
                }
            }
        }

        impl<R: Ring, const K: usize> Default for $name<R, K> {
            fn default() -> Self {
                Self::zero()
            }
        }
    };
}

vector_type!(
    /// A vector of `K` polynomials in the coefficient domain.
    PolyVector,
    Poly
);

vector_type!(
    /// A vector of `K` polynomials in the NTT domain.
    NttVector,
    NttPoly
);

impl<R: Ring, const K: usize> PolyVector<R, K> {
    /// The forward NTT of every element (of a copy: `self` is left for the caller to erase).
    #[must_use]
    pub fn ntt<B: Backend<R>>(&self, backend: B) -> NttVector<R, K> {
        let mut out = NttVector::<R, K>::zero();
        self.ntt_into(backend, &mut out);
        out
    }

    /// [`Self::ntt`] into `out` (every entry overwritten), for a caller that builds its
    /// result in place (a returned vector is copied to its place).
    #[inline]
    pub fn ntt_into<B: Backend<R>>(&self, backend: B, out: &mut NttVector<R, K>) {
        for (o, p) in out.0.iter_mut().zip(&self.0) {
            p.ntt_into(backend, o);
        }
    }

    /// The forward NTT of every element with its `b*zeta` cache, ready to be a right-hand
    /// side (one copy; `self` is left for the caller to erase).
    #[must_use]
    pub fn ntt_cached<B: Backend<R>>(&self, backend: B) -> CachedNttVector<R, K> {
        let mut out = CachedNttVector::<R, K>::zero();
        self.ntt_cached_into(backend, &mut out);
        out
    }

    /// [`Self::ntt_cached`] into `out` (every entry overwritten), for a caller that builds
    /// its result in place.
    pub fn ntt_cached_into<B: Backend<R>>(&self, backend: B, out: &mut CachedNttVector<R, K>) {
        for (o, p) in out.0.iter_mut().zip(&self.0) {
            o.set_ntt_of(backend, p);
        }
    }
}

impl<R: Ring, const K: usize> NttVector<R, K> {
    /// The inverse NTT of every element (of a copy).
    #[must_use]
    pub fn inverse_ntt<B: Backend<R>>(&self, backend: B) -> PolyVector<R, K> {
        let mut out = PolyVector::<R, K>::zero();
        self.inverse_ntt_into(backend, &mut out);
        out
    }

    /// [`Self::inverse_ntt`] into `out` (every entry overwritten).
    #[inline]
    pub fn inverse_ntt_into<B: Backend<R>>(&self, backend: B, out: &mut PolyVector<R, K>) {
        for (o, p) in out.0.iter_mut().zip(&self.0) {
            p.inverse_ntt_into(backend, o);
        }
    }

    /// A copy with the `b*zeta` cache of every element, to use as a right-hand side.
    #[must_use]
    pub fn cached<B: Backend<R>>(&self, backend: B) -> CachedNttVector<R, K> {
        let mut out = CachedNttVector::<R, K>::zero();
        self.cached_into(backend, &mut out);
        out
    }

    /// [`Self::cached`] into `out` (every entry overwritten), for a caller that builds its
    /// result in place (no temporary copy of a secret right-hand side to erase).
    #[inline]
    pub fn cached_into<B: Backend<R>>(&self, backend: B, out: &mut CachedNttVector<R, K>) {
        for (o, p) in out.0.iter_mut().zip(&self.0) {
            o.set(backend, p);
        }
    }

    /// The inner product `self^T * rhs`, accumulated lazily and reduced once.
    #[must_use]
    pub fn dot<B: Backend<R>>(&self, backend: B, rhs: &CachedNttVector<R, K>) -> NttPoly<R> {
        const { assert!(K <= B::MAX_TERMS) };
        let mut out = NttPoly::zero();
        self.dot_into(backend, rhs, &mut out);
        out
    }

    /// [`Self::dot`] written into `out` (no returned polynomial to copy to its place).
    #[inline]
    pub fn dot_into<B: Backend<R>>(
        &self,
        backend: B,
        rhs: &CachedNttVector<R, K>,
        out: &mut NttPoly<R>,
    ) {
        const { assert!(K <= B::MAX_TERMS) };
        dot_into(backend, self.0.each_ref(), rhs, out);
    }
}

/// A vector of `K` NTT-domain polynomials with their `b*zeta` caches: the right-hand side
/// of every product.
#[derive(Clone, Zeroize, Debug)]
pub struct CachedNttVector<R: Ring, const K: usize>(pub [CachedNttPoly<R>; K]);

impl<R: Ring, const K: usize> CachedNttVector<R, K> {
    /// The zero vector (with its, all-zero, cache).
    #[must_use]
    pub const fn zero() -> Self {
        Self([const { CachedNttPoly::zero() }; K])
    }

    /// The vector without its caches.
    #[must_use]
    pub fn to_vector(&self) -> NttVector<R, K> {
        NttVector(core::array::from_fn(|i| self.0[i].poly().clone()))
    }
}

/// A `ROWS x COLS` matrix of NTT-domain polynomials, `rows[i][j]` = A-hat`[i, j]`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Matrix<R: Ring, const ROWS: usize, const COLS: usize> {
    /// The entries, row by row.
    pub rows: [[NttPoly<R>; COLS]; ROWS],
}

impl<R: Ring, const ROWS: usize, const COLS: usize> Default for Matrix<R, ROWS, COLS> {
    fn default() -> Self {
        Self::zero()
    }
}

impl<R: Ring, const ROWS: usize, const COLS: usize> Matrix<R, ROWS, COLS> {
    /// The zero matrix.
    #[must_use]
    pub const fn zero() -> Self {
        Self {
            rows: [const { [const { NttPoly::zero() }; COLS] }; ROWS],
        }
    }

    /// `A * v`: `out[i] = sum_j A[i][j] * v[j]`, one reduction per output coefficient.
    #[must_use]
    pub fn mul_vector<B: Backend<R>>(
        &self,
        backend: B,
        v: &CachedNttVector<R, COLS>,
    ) -> NttVector<R, ROWS> {
        let mut out = NttVector::<R, ROWS>::zero();
        self.mul_vector_rows(backend, v, 0..ROWS, &mut out);
        out
    }

    /// Rows `rows` of `A * v` into the same rows of `out` (the others are left alone): for
    /// a caller that gets the rows of `A` a few at a time, as ML-KEM key generation does.
    ///
    /// Row indices at or past `ROWS` (there are no such rows) are ignored, as is an empty or
    /// reversed range.
    pub fn mul_vector_rows<B: Backend<R>>(
        &self,
        backend: B,
        v: &CachedNttVector<R, COLS>,
        rows: core::ops::Range<usize>,
        out: &mut NttVector<R, ROWS>,
    ) {
        const { assert!(COLS <= B::MAX_TERMS) };
        for i in rows.start..rows.end.min(ROWS) {
            dot_into(backend, self.rows[i].each_ref(), v, &mut out.0[i]);
        }
    }

    /// Chunks `chunks` of row `row` of `A * v + plus` into the same coefficients of `out`
    /// (chunk `c`: coefficients `DOT_CHUNK c .. DOT_CHUNK (c + 1)`,
    /// [`DOT_CHUNK`](crate::backend::DOT_CHUNK)); its other coefficients are left alone. A
    /// row at or past `ROWS`, chunks past the end and an empty range change nothing.
    ///
    /// A chunk of the result depends only on the same chunk of the operands, so a caller
    /// that gets the entries of `A` a few coefficients at a time can compute each chunk as
    /// soon as every entry of the row has it: ML-KEM key generation hashes `ek`, the
    /// encoding of `t-hat = A-hat s-hat + e-hat`, block by block as A-hat is sampled.
    ///
    /// ```
    /// use lattice_poly_ntt::backend::{DOT_CHUNK, Portable};
    /// use lattice_poly_ntt::mlkem::{Matrix, NttPoly, NttVector};
    ///
    /// let b = Portable;
    /// let entry = |seed: u32| NttPoly::from_fn(|i| i as u32 * seed % 3329);
    /// let a = Matrix::<2> { rows: [[entry(3), entry(5)], [entry(7), entry(11)]] };
    /// let v = NttVector::<2>::new([entry(13), entry(17)]).cached(b);
    /// let e = entry(19);
    /// let mut whole = a.mul_vector(b, &v);
    /// whole.0[1].add_assign(b, &e);
    ///
    /// let mut row = NttPoly::zero();
    /// a.mul_vector_row_plus_chunks(b, &v, 1, &e, 0..2, &mut row);
    /// a.mul_vector_row_plus_chunks(b, &v, 1, &e, 2..8, &mut row);
    /// assert_eq!(row, whole.0[1]);
    /// # assert_eq!(DOT_CHUNK * 8, 256);
    /// ```
    #[inline]
    pub fn mul_vector_row_plus_chunks<B: Backend<R>>(
        &self,
        backend: B,
        v: &CachedNttVector<R, COLS>,
        row: usize,
        plus: &NttPoly<R>,
        chunks: core::ops::Range<usize>,
        out: &mut NttPoly<R>,
    ) {
        const { assert!(COLS <= B::MAX_TERMS) };
        let Some(entries) = self.rows.get(row) else {
            return;
        };
        let terms: [DotTerm<'_, R>; COLS] =
            core::array::from_fn(|j| (entries[j].coeffs(), v.0[j].poly().coeffs(), v.0[j].cache()));
        backend.dot_product_plus_chunks(
            KernelCall::NEW,
            out.coeffs_mut(crate::__private::WORKSPACE),
            &terms,
            plus.coeffs(),
            chunks,
        );
    }

    /// `A^T * v`: `out[i] = sum_j A[j][i] * v[j]`, one reduction per output coefficient.
    #[must_use]
    pub fn transpose_mul_vector<B: Backend<R>>(
        &self,
        backend: B,
        v: &CachedNttVector<R, ROWS>,
    ) -> NttVector<R, COLS> {
        let mut out = NttVector::<R, COLS>::zero();
        self.transpose_mul_vector_into(backend, v, &mut out);
        out
    }

    /// [`Self::transpose_mul_vector`] into `out` (every entry overwritten).
    #[inline]
    pub fn transpose_mul_vector_into<B: Backend<R>>(
        &self,
        backend: B,
        v: &CachedNttVector<R, ROWS>,
        out: &mut NttVector<R, COLS>,
    ) {
        const { assert!(ROWS <= B::MAX_TERMS) };
        for (i, o) in out.0.iter_mut().enumerate() {
            dot_into(backend, self.rows.each_ref().map(|row| &row[i]), v, o);
        }
    }
}

/// `out = a^T * v` (one reduction per coefficient), through the backend's
/// [`Backend::dot_product`].
#[inline]
fn dot_into<R: Ring, B: Backend<R>, const K: usize>(
    backend: B,
    a: [&NttPoly<R>; K],
    v: &CachedNttVector<R, K>,
    out: &mut NttPoly<R>,
) {
    let terms: [DotTerm<'_, R>; K] =
        core::array::from_fn(|j| (a[j].coeffs(), v.0[j].poly().coeffs(), v.0[j].cache()));
    backend.dot_product(
        KernelCall::NEW,
        out.coeffs_mut(crate::__private::WORKSPACE),
        &terms,
    );
}
