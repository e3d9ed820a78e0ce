//! Not public API: what `cargo xtask bounds` reads, and nothing else (compiled only with the
//! `bounds-probe` feature, hidden from the docs, no stability promise).
//!
//! - [`AccumulatorLayout`] and [`HasAccumulatorLayout`]: the layout and limits of each
//!   backend's raw accumulator entries, as the backend declares them next to its kernels;
//!   [`accumulator_layout`] gives it for any registered backend (so a token without one
//!   does not compile here), [`raw`] an accumulator's raw sums;
//! - [`avx2`] (x86-64): the AVX2 lane probe, which runs the AVX2 and AVX-512 kernels with a
//!   recording observer, and the bounds both x86 backends share;
//! - [`neon`] (any host): the NEON backend's constants, lane vocabulary, NTT schedules and
//!   scalar models, which the checker runs in its own interval domain.

pub use crate::backend::seam::{AccumulatorLayout, HasAccumulatorLayout};
use crate::backend::{AnyBackend, Backend};
use crate::lazy::Accumulator;
use crate::mlkem::MlKem;
use crate::ring::Ring;

/// The raw sums of `acc`, in its backend's own layout.
#[must_use]
pub const fn raw<R: Ring, B: Backend<R>>(acc: &Accumulator<R, B>) -> &R::WideCoeffs {
    acc.raw()
}

/// The ML-KEM accumulator layout `backend` declares (every registered token has one).
#[must_use]
pub fn accumulator_layout(backend: AnyBackend) -> AccumulatorLayout {
    crate::dispatch!(backend, |b| layout_of::<MlKem, _>(b))
}

/// `B`'s declared layout for ring `R`.
const fn layout_of<R: Ring, B: HasAccumulatorLayout<R>>(_: B) -> AccumulatorLayout {
    B::ACCUMULATOR_LAYOUT
}

/// The AVX2 backend's probe and the bounds of the x86 kernels.
#[cfg(target_arch = "x86_64")]
pub mod avx2 {
    pub use crate::backend::x86_64::avx2::probe;
    pub use crate::backend::x86_64::consts::{
        AVX2_ACCUMULATOR_LIMIT, AVX2_MAX_TERMS, INTT_LANE_BOUND, NTT_LANE_BOUND,
    };
}

/// The NEON backend's schedules, models and bounds, on any host.
pub mod neon {
    pub use crate::backend::aarch64::neon::consts::*;
    pub use crate::backend::aarch64::neon::{lanes, model, ntt};
}

#[cfg(test)]
mod tests {
    use super::accumulator_layout;
    use crate::backend::AnyBackend;
    use crate::mlkem::N;

    /// Every backend this CPU has declares an ML-KEM layout that is a permutation of the
    /// coefficients, within its lane type (`xtask bounds` checks the values against it).
    #[test]
    fn every_available_backend_declares_a_layout() {
        for any in AnyBackend::available() {
            let layout = accumulator_layout(any);
            let mut seen = [false; N];
            for i in 0..N {
                let c = (layout.coefficient_of)(i);
                assert!(c < N && !seen[c], "{}: entry {i}", any.kind());
                seen[c] = true;
            }
            assert!(layout.entry_limit <= layout.lane_max, "{}", any.kind());
        }
    }
}
