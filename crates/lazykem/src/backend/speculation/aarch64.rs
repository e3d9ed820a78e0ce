//! The aarch64 speculation barrier: `sb` (FEAT_SB, Armv8.5, optional from Armv8.0) where the
//! CPU has it, else `dsb nsh; isb`.
//!
//! `sb` keeps every later instruction from running speculatively until the barrier is
//! known to be architecturally executed; it does not wait for earlier memory accesses.
//! Without it, `dsb nsh` (wait until every earlier memory access completes) followed by
//! `isb` (refetch everything after it) stops speculation too, at the price of draining
//! the pipeline and the outstanding loads.
//!
//! FEAT_SB is known at compile time when the build targets it (`-C target-feature=+sb`, or
//! a target CPU that has it); otherwise Linux and Android report it in `AT_HWCAP`
//! (`HWCAP_SB`), read once through `getauxval` and cached in an atomic. On other operating
//! systems without the compile-time feature, `dsb nsh; isb`. Both paths of the cached test
//! end in a barrier, so a mispredicted test still runs one before the operation.
#![allow(unsafe_code)]

use core::sync::atomic::{AtomicU8, Ordering};

/// FEAT_SB unknown (not detected yet), absent, present.
const UNKNOWN: u8 = 0;
const ABSENT: u8 = 1;
const PRESENT: u8 = 2;

/// Whether the CPU has FEAT_SB, once [`detect`] ran.
static FEAT_SB: AtomicU8 = AtomicU8::new(UNKNOWN);

/// `sb` if the CPU has it, else `dsb nsh; isb`.
#[inline(always)]
pub(super) fn barrier() {
    if has_sb() {
        // SAFETY: the CPU has FEAT_SB (checked just above), so `sb` is defined.
        unsafe { sb() }
    } else {
        dsb_isb();
    }
}

/// Whether the CPU has FEAT_SB: known at compile time, or cached after the first call.
#[inline(always)]
fn has_sb() -> bool {
    if cfg!(target_feature = "sb") {
        return true;
    }
    match FEAT_SB.load(Ordering::Relaxed) {
        PRESENT => true,
        ABSENT => false,
        _ => detect(),
    }
}

/// Reads FEAT_SB from the operating system and caches the answer.
#[cold]
#[inline(never)]
fn detect() -> bool {
    let present = hwcap() & HWCAP_SB != 0;
    FEAT_SB.store(if present { PRESENT } else { ABSENT }, Ordering::Relaxed);
    present
}

/// `HWCAP_SB` of Linux's aarch64 `AT_HWCAP` (arch/arm64/include/uapi/asm/hwcap.h).
const HWCAP_SB: core::ffi::c_ulong = 1 << 29;

/// The `AT_HWCAP` word of the auxiliary vector (Linux, Android).
#[cfg(any(target_os = "linux", target_os = "android"))]
fn hwcap() -> core::ffi::c_ulong {
    /// `AT_HWCAP` (include/uapi/linux/auxvec.h).
    const AT_HWCAP: core::ffi::c_ulong = 16;
    // SAFETY: `getauxval` is the C library's (glibc 2.16+, musl, bionic: every Linux or
    // Android program links one); it takes any type, returns 0 for an unknown one and
    // touches no memory of ours, so declaring it `safe` is sound.
    unsafe extern "C" {
        safe fn getauxval(kind: core::ffi::c_ulong) -> core::ffi::c_ulong;
    }
    getauxval(AT_HWCAP)
}

/// No run-time source of CPU features here without an OS-specific call: `dsb nsh; isb`.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn hwcap() -> core::ffi::c_ulong {
    0
}

/// `sb`: no later instruction runs speculatively before it completes.
///
/// Emitted by its encoding (`0xd50330ff`, `SB` in the Arm ARM), so that it inlines into
/// functions compiled without the `sb` target feature.
///
/// # Safety
/// The CPU must have FEAT_SB (the encoding is undefined without it).
#[inline(always)]
unsafe fn sb() {
    // SAFETY: the caller guarantees FEAT_SB, so the instruction is defined; it reads and
    // writes no register or memory. Not `nomem`: the compiler must not move memory accesses
    // across the barrier.
    unsafe { core::arch::asm!(".inst 0xd50330ff", options(nostack, preserves_flags)) }
}

/// `dsb nsh; isb`: the barrier of CPUs without FEAT_SB.
#[inline(always)]
fn dsb_isb() {
    // SAFETY: `dsb` and `isb` are defined on every aarch64 CPU (Armv8.0 baseline) and at
    // every exception level; they read and write no register or memory. Not `nomem`: the
    // compiler must not move memory accesses across the barrier.
    unsafe { core::arch::asm!("dsb nsh", "isb", options(nostack, preserves_flags)) }
}

#[cfg(test)]
mod tests {
    /// The cached detection agrees with the standard library's, and both barriers run
    /// (`sb` only where the CPU has it: under `qemu-aarch64 -cpu max`, not `cortex-a72`).
    #[test]
    fn detection_agrees_with_std_and_both_barriers_run() {
        let expected = std::arch::is_aarch64_feature_detected!("sb");
        assert_eq!(super::has_sb(), expected);
        assert_eq!(super::has_sb(), expected, "cached");
        super::barrier();
        super::dsb_isb();
        if expected {
            // SAFETY: the CPU has FEAT_SB.
            unsafe { super::sb() };
        }
        std::println!("FEAT_SB: {expected}");
    }
}
