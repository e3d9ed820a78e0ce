//! The portable scalar backend: straight-line Rust, one FIPS 203 / FIPS 204 loop per
//! function (the default bodies of [`Backend`]).

use super::seam::Backend;
use crate::ring::Ring;

/// The portable backend, available on every target, for every ring.
#[derive(Clone, Copy, Debug, Default)]
pub struct Portable;

impl<R: Ring> Backend<R> for Portable {}

/// One wide entry per coefficient, bounded by the field's wide reduction.
#[cfg(feature = "bounds-probe")]
impl<R: Ring> super::seam::HasAccumulatorLayout<R> for Portable {
    const ACCUMULATOR_LAYOUT: super::seam::AccumulatorLayout =
        super::seam::AccumulatorLayout::wide::<R>();
}
