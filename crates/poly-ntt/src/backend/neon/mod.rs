//! The NEON backend (aarch64): the token, and its kernels for ML-KEM's ring.
//!
//! NEON (Advanced SIMD) is part of the aarch64 baseline, so the token can always be made on
//! this architecture; what else a kernel needs (FEAT_SHA3 for Keccak, in `lattice-sampling`)
//! is detected by that kernel's crate at run time.
#![allow(unsafe_code)]

use super::Backend;
use crate::mldsa::MlDsa;
use crate::mlkem::MlKem;

/// The NEON backend's capability token (aarch64, where Advanced SIMD is always present).
#[derive(Clone, Copy, Debug)]
pub struct Neon {
    _detected: (),
}

impl Neon {
    /// The token: every aarch64 CPU has NEON.
    #[must_use]
    #[inline]
    pub fn detect() -> Option<Self> {
        Some(Self { _detected: () })
    }

    /// Runs `f` with this token inside a function compiled with NEON enabled (the target's
    /// baseline already has it; the wrapper keeps the same shape as the other tokens').
    #[inline]
    pub fn run<T>(self, f: impl FnOnce(Self) -> T) -> T {
        // SAFETY: `self` exists, so the CPU has NEON (every aarch64 CPU does).
        unsafe { with_features(self, f) }
    }
}

/// Calls `f` in a function compiled with the token's features (see `Avx2::run`).
#[inline]
#[target_feature(enable = "neon")]
unsafe fn with_features<T>(token: Neon, f: impl FnOnce(Neon) -> T) -> T {
    f(token)
}

/// ML-KEM's ring: the portable kernels until the NEON ones land.
impl Backend<MlKem> for Neon {}

/// ML-DSA's ring: the portable kernels.
impl Backend<MlDsa> for Neon {}
