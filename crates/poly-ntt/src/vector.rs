//! Vectors and matrices of polynomials over a module of rank `K` (2, 3 or 4 in ML-KEM),
//! and the three products K-PKE needs, all lazily accumulated:
//!
//! | product | used in | function |
//! |---|---|---|
//! | `A * s` | key generation (Algorithm 13, line 18) | [`Matrix::mul_vector`] |
//! | `A^T * r` | encryption (Algorithm 14, line 19) | [`Matrix::transpose_mul_vector`] |
//! | `t^T * r`, `s^T * u` | encryption (line 21), decryption (Algorithm 15, line 6) | [`NttVector::dot`] |
//!
//! The right-hand side is always a [`CachedNttVector`]: build it once, and encryption's two
//! products share its `b*zeta` cache.

use crate::backend::Backend;
use crate::lazy::{Accumulator, CachedNttPoly};
use crate::{NttPoly, Poly};
use zeroize::Zeroize;

macro_rules! vector_type {
    ($(#[$doc:meta])* $name:ident, $elem:ident) => {
        $(#[$doc])*
        #[derive(Clone, PartialEq, Eq, Zeroize, Debug)]
        pub struct $name<const K: usize>(pub [$elem; K]);

        impl<const K: usize> $name<K> {
            /// The zero vector.
            #[must_use]
            pub const fn zero() -> Self {
                Self([const { $elem::zero() }; K])
            }

            /// `self += other` element-wise.
            pub fn add_assign(&mut self, other: &Self) {
                for (a, b) in self.0.iter_mut().zip(&other.0) {
                    a.add_assign(b);
                }
            }
        }

        impl<const K: usize> Default for $name<K> {
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

impl<const K: usize> PolyVector<K> {
    /// The forward NTT of every element (of a copy: `self` is left for the caller to erase).
    #[must_use]
    pub fn ntt<B: Backend>(&self) -> NttVector<K> {
        // Built in place: one copy per element, no moves of whole polynomials.
        let mut out = NttVector::<K>::zero();
        for (o, p) in out.0.iter_mut().zip(&self.0) {
            p.ntt_into::<B>(o);
        }
        out
    }

    /// The forward NTT of every element with its `b*zeta` cache, ready to be a right-hand
    /// side (one copy; `self` is left for the caller to erase).
    #[must_use]
    pub fn ntt_cached<B: Backend>(&self) -> CachedNttVector<K> {
        let mut out = CachedNttVector::<K>::zero();
        self.ntt_cached_into::<B>(&mut out);
        out
    }

    /// [`Self::ntt_cached`] into `out` (every entry overwritten), for a caller that builds
    /// its result in place.
    pub fn ntt_cached_into<B: Backend>(&self, out: &mut CachedNttVector<K>) {
        for (o, p) in out.0.iter_mut().zip(&self.0) {
            o.set_ntt_of::<B>(p);
        }
    }
}

impl<const K: usize> NttVector<K> {
    /// The inverse NTT of every element (of a copy).
    #[must_use]
    pub fn inverse_ntt<B: Backend>(&self) -> PolyVector<K> {
        let mut out = PolyVector::<K>::zero();
        for (o, p) in out.0.iter_mut().zip(&self.0) {
            p.inverse_ntt_into::<B>(o);
        }
        out
    }

    /// A copy with the `b*zeta` cache of every element, to use as a right-hand side.
    #[must_use]
    pub fn cached<B: Backend>(&self) -> CachedNttVector<K> {
        CachedNttVector(core::array::from_fn(|i| {
            CachedNttPoly::new::<B>(&self.0[i])
        }))
    }

    /// The inner product `self^T * rhs`, accumulated lazily and reduced once.
    #[must_use]
    pub fn dot<B: Backend>(&self, rhs: &CachedNttVector<K>) -> NttPoly {
        const { assert!(K <= B::MAX_TERMS) };
        let mut acc = Accumulator::new();
        for (a, b) in self.0.iter().zip(&rhs.0) {
            acc.add_product::<B>(a, b);
        }
        let mut out = NttPoly::zero();
        acc.reduce_into::<B>(&mut out);
        acc.zeroize();
        out
    }
}

/// A vector of `K` NTT-domain polynomials with their `b*zeta` caches: the right-hand side
/// of every product.
#[derive(Clone, Zeroize, Debug)]
pub struct CachedNttVector<const K: usize>(pub [CachedNttPoly; K]);

impl<const K: usize> CachedNttVector<K> {
    /// The zero vector (with its, all-zero, cache).
    #[must_use]
    pub const fn zero() -> Self {
        Self([const { CachedNttPoly::zero() }; K])
    }

    /// The vector without its caches.
    #[must_use]
    pub fn to_vector(&self) -> NttVector<K> {
        NttVector(core::array::from_fn(|i| self.0[i].poly().clone()))
    }
}

/// A `K x K` matrix of NTT-domain polynomials, `rows[i][j]` = A-hat`[i, j]`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Matrix<const K: usize> {
    /// The entries, row by row.
    pub rows: [[NttPoly; K]; K],
}

impl<const K: usize> Matrix<K> {
    /// The zero matrix.
    #[must_use]
    pub const fn zero() -> Self {
        Self {
            rows: [const { [const { NttPoly::zero() }; K] }; K],
        }
    }

    /// `A * v`: `out[i] = sum_j A[i][j] * v[j]`, one reduction per output coefficient.
    #[must_use]
    pub fn mul_vector<B: Backend>(&self, v: &CachedNttVector<K>) -> NttVector<K> {
        let mut out = NttVector::<K>::zero();
        self.product_rows::<B, false>(v, 0..K, &mut out);
        out
    }

    /// Rows `rows` of `A * v` into the same rows of `out` (the others are left alone): for
    /// a caller that gets the rows of `A` a few at a time, as ML-KEM key generation does.
    ///
    /// # Panics
    /// If `rows` reaches past `K`.
    pub fn mul_vector_rows<B: Backend>(
        &self,
        v: &CachedNttVector<K>,
        rows: core::ops::Range<usize>,
        out: &mut NttVector<K>,
    ) {
        self.product_rows::<B, false>(v, rows, out);
    }

    /// `A^T * v`: `out[i] = sum_j A[j][i] * v[j]`, one reduction per output coefficient.
    #[must_use]
    pub fn transpose_mul_vector<B: Backend>(&self, v: &CachedNttVector<K>) -> NttVector<K> {
        let mut out = NttVector::<K>::zero();
        self.product_rows::<B, true>(v, 0..K, &mut out);
        out
    }

    /// Rows `rows` of `A v` or `A^T v`; one accumulator, reset per output row.
    fn product_rows<B: Backend, const TRANSPOSE: bool>(
        &self,
        v: &CachedNttVector<K>,
        rows: core::ops::Range<usize>,
        out: &mut NttVector<K>,
    ) {
        const { assert!(K <= B::MAX_TERMS) };
        let mut acc = Accumulator::new();
        for i in rows {
            acc.clear();
            for (j, vj) in v.0.iter().enumerate() {
                let a = if TRANSPOSE {
                    &self.rows[j][i]
                } else {
                    &self.rows[i][j]
                };
                acc.add_product::<B>(a, vj);
            }
            acc.reduce_into::<B>(&mut out.0[i]);
        }
        acc.zeroize();
    }
}
