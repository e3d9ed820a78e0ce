//! The aarch64 instructions of the speculation barrier and of the misspeculation flag: `sb`
//! (FEAT_SB) or `dsb nsh; isb`, `csdb`, `cmp` + `csel`, `orr`.
//!
//! `sb` keeps every later instruction from running speculatively until the barrier is
//! known to be architecturally executed; it does not wait for earlier memory accesses.
//! Without it (FEAT_SB is Armv8.5, optional from Armv8.0), `dsb nsh` (wait until every
//! earlier memory access completes) followed by `isb` (refetch everything after it) stops
//! speculation too, at the price of draining the pipeline and the outstanding loads.
//!
//! FEAT_SB is known at compile time when the build targets it (`-C target-feature=+sb`, or
//! a target CPU that has it); otherwise Linux and Android report it in `AT_HWCAP`
//! (`HWCAP_SB`), read once through `getauxval` and cached in an atomic. On other operating
//! systems without the compile-time feature, `dsb nsh; isb`.

use core::arch::asm;
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
/// Out of line (the barrier's instructions stay inline at every call site): inlined, the
/// test made the scheduler's batch and `lazykem`'s decapsulation execute more
/// (docs/performance-history.md).
#[inline(never)]
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
// sct: barrier
#[inline(always)]
unsafe fn sb() {
    // SAFETY: the caller guarantees FEAT_SB, so the instruction is defined; it reads and
    // writes no register or memory. Not `nomem`: the compiler must not move memory accesses
    // across the barrier.
    unsafe { asm!(".inst 0xd50330ff", options(nostack, preserves_flags)) }
}

/// `dsb nsh; isb`: the barrier of CPUs without FEAT_SB.
// sct: barrier
#[inline(always)]
fn dsb_isb() {
    // SAFETY: `dsb` and `isb` are defined on every aarch64 CPU (Armv8.0 baseline) and at
    // every exception level; they read and write no register or memory. Not `nomem`: the
    // compiler must not move memory accesses across the barrier.
    unsafe { asm!("dsb nsh", "isb", options(nostack, preserves_flags)) }
}

/// `csdb` (after the barrier of `init_msf`): no later instruction uses a speculative result
/// of an earlier conditional select, the flag's `csel`.
// sct: barrier
#[inline(always)]
pub(super) fn select_barrier() {
    // SAFETY: `csdb` is a hint (a no-op where unimplemented): no register, memory or flag
    // changes. Not `nomem`, as the barrier before it.
    unsafe { asm!("csdb", options(nostack, preserves_flags)) }
}

/// `msf`, or all ones if `a >= b` (unsigned): `cmp` + `csel` on `hs`.
// sct: update
#[inline(always)]
pub(super) fn set_if_ae(msf: usize, a: usize, b: usize) -> usize {
    let out: usize;
    // SAFETY: register-only arithmetic (`cmp`, `csel`): no memory, no stack; the flags it
    // changes are declared clobbered by default.
    unsafe {
        asm!(
            "cmp {a}, {b}",
            "csel {out}, {ones}, {msf}, hs",
            a = in(reg) a,
            b = in(reg) b,
            ones = in(reg) usize::MAX,
            msf = in(reg) msf,
            out = lateout(reg) out,
            options(pure, nomem, nostack),
        );
    }
    out
}

/// `msf`, or all ones if `a < b` (unsigned): `cmp` + `csel` on `lo`.
// sct: update
#[inline(always)]
pub(super) fn set_if_b(msf: usize, a: usize, b: usize) -> usize {
    let out: usize;
    // SAFETY: register-only arithmetic (`cmp`, `csel`): no memory, no stack; the flags it
    // changes are declared clobbered by default.
    unsafe {
        asm!(
            "cmp {a}, {b}",
            "csel {out}, {ones}, {msf}, lo",
            a = in(reg) a,
            b = in(reg) b,
            ones = in(reg) usize::MAX,
            msf = in(reg) msf,
            out = lateout(reg) out,
            options(pure, nomem, nostack),
        );
    }
    out
}

/// `msf`, or all ones if `a > LIMIT` (unsigned): `cmp` with an immediate + `csel` on `hi`.
// sct: update
#[inline(always)]
pub(super) fn set_if_above<const LIMIT: usize>(msf: usize, a: usize) -> usize {
    const { assert!(LIMIT < 4096, "an imm12 operand of cmp") };
    let out: usize;
    // SAFETY: register-only arithmetic (`cmp`, `csel`): no memory, no stack; the flags it
    // changes are declared clobbered by default.
    unsafe {
        asm!(
            "cmp {a}, #{limit}",
            "csel {out}, {ones}, {msf}, hi",
            a = in(reg) a,
            limit = const LIMIT,
            ones = in(reg) usize::MAX,
            msf = in(reg) msf,
            out = lateout(reg) out,
            options(pure, nomem, nostack),
        );
    }
    out
}

/// `msf`, or all ones if `a <= LIMIT` (unsigned): `cmp` with an immediate + `csel` on `ls`.
// sct: update
#[inline(always)]
pub(super) fn set_if_below_or_equal<const LIMIT: usize>(msf: usize, a: usize) -> usize {
    const { assert!(LIMIT < 4096, "an imm12 operand of cmp") };
    let out: usize;
    // SAFETY: register-only arithmetic (`cmp`, `csel`): no memory, no stack; the flags it
    // changes are declared clobbered by default.
    unsafe {
        asm!(
            "cmp {a}, #{limit}",
            "csel {out}, {ones}, {msf}, ls",
            a = in(reg) a,
            limit = const LIMIT,
            ones = in(reg) usize::MAX,
            msf = in(reg) msf,
            out = lateout(reg) out,
            options(pure, nomem, nostack),
        );
    }
    out
}

/// `value | msf`: `orr`.
// sct: mask
#[inline(always)]
pub(super) fn or(value: usize, msf: usize) -> usize {
    let out: usize;
    // SAFETY: one register `orr`: no memory, no stack, no flags.
    unsafe {
        asm!(
            "orr {out}, {value}, {msf}",
            value = in(reg) value,
            msf = in(reg) msf,
            out = lateout(reg) out,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    out
}

/// `value` if `msf` is 0, `fallback` if it is all ones: `cmp` + `csel` on `ne`.
#[allow(
    clippy::pointers_in_nomem_asm_block,
    reason = "the pointers are selected, not dereferenced"
)]
// sct: select
#[inline(always)]
pub(super) fn select<T>(value: *const T, fallback: *const T, msf: usize) -> *const T {
    let out: *const T;
    // SAFETY: register-only arithmetic (`cmp`, `csel`): no memory, no stack; the flags it
    // changes are declared clobbered by default.
    unsafe {
        asm!(
            "cmp {msf}, #0",
            "csel {out}, {fallback}, {value}, ne",
            msf = in(reg) msf,
            fallback = in(reg) fallback,
            value = in(reg) value,
            out = lateout(reg) out,
            options(pure, nomem, nostack),
        );
    }
    out
}

/// `value` through a register (no instruction).
#[inline(always)]
pub(super) fn launder(value: usize) -> usize {
    let mut value = value;
    // SAFETY: an empty template (a comment): no instruction, no memory, no flags.
    unsafe {
        asm!("/* {value} */", value = inout(reg) value, options(nomem, nostack, preserves_flags));
    };
    value
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
        super::select_barrier();
        if expected {
            // SAFETY: the CPU has FEAT_SB.
            unsafe { super::sb() };
        }
        std::println!("FEAT_SB: {expected}");
    }
}
