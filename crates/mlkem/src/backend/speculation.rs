//! The speculation barrier at the entry of every public operation that handles secrets
//! (Spectre v1; see `SECURITY.md`, "Speculative execution").
//!
//! A caller's mispredicted branch (`if authorized { dk.decapsulate(..) }`, a bounds check
//! just before the call) could otherwise run the start of an operation speculatively, on
//! whatever the registers and memory hold at that moment. `lfence` makes every earlier
//! instruction complete before any later one starts, so an operation always begins on the
//! architectural path, as the speculative constant-time (SCT) discipline of the
//! Jasmin/libjade implementations does at each entry point (their `#init_msf`). Measured
//! cost on an AVX-512 machine: about 20 TSC ticks per barrier, under 0.3 % of the cheapest operation it
//! guards (an ML-KEM-512 encapsulation), so it is always on.
//!
//! On other architectures this is a no-op (aarch64 would need `sb` or `csdb`; not covered).
#![allow(unsafe_code)]

/// Waits for every earlier instruction to complete before any later one starts.
#[inline(always)]
pub(crate) fn barrier() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `lfence` needs SSE2, which every x86_64 CPU has (it is part of the x86_64
    // baseline the compiler already assumes); it reads and writes no memory or register.
    unsafe {
        core::arch::x86_64::_mm_lfence();
    }
}
