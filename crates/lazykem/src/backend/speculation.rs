//! The speculation barrier at the entry of every public operation that handles secrets
//! (Spectre v1; see `SECURITY.md`, "Speculative execution").
//!
//! A caller's mispredicted branch (`if authorized { dk.decapsulate(..) }`, a bounds check
//! just before the call) could otherwise run the start of an operation speculatively, on
//! whatever the registers and memory hold at that moment. The barrier keeps every later
//! instruction from running, even speculatively, before the earlier ones complete, so an
//! operation always begins on the architectural path, as the speculative constant-time
//! (SCT) discipline of the Jasmin/libjade implementations does at each entry point (their
//! `#init_msf`).
//!
//! - x86-64 (`x86_64`): `lfence`. Measured cost on an AVX-512 machine: about 20 TSC ticks
//!   per barrier, under 0.3 % of the cheapest operation it guards (an ML-KEM-512
//!   encapsulation), so it is always on.
//! - aarch64 (`aarch64`): `sb` where the CPU has FEAT_SB (detected once at run time, or
//!   known at compile time), else `dsb nsh; isb`, the barrier Arm documents for CPUs
//!   without it.
//! - Elsewhere: a no-op.

#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(target_arch = "x86_64")]
mod x86_64;

/// Waits for every earlier instruction to complete before any later one starts, even
/// speculatively.
#[inline(always)]
pub(crate) fn barrier() {
    #[cfg(target_arch = "x86_64")]
    x86_64::barrier();
    #[cfg(target_arch = "aarch64")]
    aarch64::barrier();
}
