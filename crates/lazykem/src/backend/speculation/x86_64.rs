//! The x86-64 speculation barrier: `lfence`.
#![allow(unsafe_code)]

/// `lfence`: no later instruction starts, even speculatively, before it completes.
#[inline(always)]
pub(super) fn barrier() {
    // SAFETY: `lfence` needs SSE2, which every x86_64 CPU has (it is part of the x86_64
    // baseline the compiler already assumes); it reads and writes no memory or register.
    unsafe {
        core::arch::x86_64::_mm_lfence();
    }
}
