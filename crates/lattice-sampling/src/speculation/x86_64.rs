//! The x86-64 instructions of the speculation barrier and of the misspeculation flag:
//! `lfence`, `cmp` + `cmov`, `or`.

use core::arch::asm;

/// `lfence`: no later instruction starts, even speculatively, before every earlier one
/// completes.
// sct: barrier
#[inline(always)]
pub(super) fn barrier() {
    // SAFETY: `lfence` is in the x86-64 baseline (SSE2); it touches no register, memory or
    // flag. Not `nomem`: the compiler must not move memory accesses across the barrier.
    unsafe { asm!("lfence", options(nostack, preserves_flags)) };
}

/// Nothing: `lfence` orders the flag's `cmov`s too.
#[inline(always)]
pub(super) fn select_barrier() {}

/// `msf`, or all ones if `a >= b` (unsigned): `cmp` + `cmovae`.
// sct: update
#[inline(always)]
pub(super) fn set_if_ae(msf: usize, a: usize, b: usize) -> usize {
    let mut msf = msf;
    // SAFETY: register-only arithmetic (`cmp`, `cmov`): no memory, no stack; the flags it
    // changes are declared clobbered by default.
    unsafe {
        asm!(
            "cmp {a}, {b}",
            "cmovae {msf}, {ones}",
            a = in(reg) a,
            b = in(reg) b,
            ones = in(reg) usize::MAX,
            msf = inout(reg) msf,
            options(pure, nomem, nostack),
        );
    }
    msf
}

/// `msf`, or all ones if `a < b` (unsigned): `cmp` + `cmovb`.
// sct: update
#[inline(always)]
pub(super) fn set_if_b(msf: usize, a: usize, b: usize) -> usize {
    let mut msf = msf;
    // SAFETY: register-only arithmetic (`cmp`, `cmov`): no memory, no stack; the flags it
    // changes are declared clobbered by default.
    unsafe {
        asm!(
            "cmp {a}, {b}",
            "cmovb {msf}, {ones}",
            a = in(reg) a,
            b = in(reg) b,
            ones = in(reg) usize::MAX,
            msf = inout(reg) msf,
            options(pure, nomem, nostack),
        );
    }
    msf
}

/// `msf`, or all ones if `a > LIMIT` (unsigned): `cmp` with an immediate + `cmova`.
// sct: update
#[inline(always)]
pub(super) fn set_if_above<const LIMIT: usize>(msf: usize, a: usize) -> usize {
    const { assert!(LIMIT <= i32::MAX as usize, "an imm32 operand of cmp") };
    let mut msf = msf;
    // SAFETY: register-only arithmetic (`cmp`, `cmov`): no memory, no stack; the flags it
    // changes are declared clobbered by default.
    unsafe {
        asm!(
            "cmp {a}, {limit}",
            "cmova {msf}, {ones}",
            a = in(reg) a,
            limit = const LIMIT,
            ones = in(reg) usize::MAX,
            msf = inout(reg) msf,
            options(pure, nomem, nostack),
        );
    }
    msf
}

/// `msf`, or all ones if `a <= LIMIT` (unsigned): `cmp` with an immediate + `cmovbe`.
// sct: update
#[inline(always)]
pub(super) fn set_if_below_or_equal<const LIMIT: usize>(msf: usize, a: usize) -> usize {
    const { assert!(LIMIT <= i32::MAX as usize, "an imm32 operand of cmp") };
    let mut msf = msf;
    // SAFETY: register-only arithmetic (`cmp`, `cmov`): no memory, no stack; the flags it
    // changes are declared clobbered by default.
    unsafe {
        asm!(
            "cmp {a}, {limit}",
            "cmovbe {msf}, {ones}",
            a = in(reg) a,
            limit = const LIMIT,
            ones = in(reg) usize::MAX,
            msf = inout(reg) msf,
            options(pure, nomem, nostack),
        );
    }
    msf
}

/// `value | msf`: `or`.
// sct: mask
#[inline(always)]
pub(super) fn or(value: usize, msf: usize) -> usize {
    let mut value = value;
    // SAFETY: one register `or`: no memory, no stack; it changes only the flags, declared
    // clobbered by default.
    unsafe {
        asm!(
            "or {value}, {msf}",
            value = inout(reg) value,
            msf = in(reg) msf,
            options(pure, nomem, nostack),
        );
    }
    value
}

/// `value` if `msf` is 0, `fallback` if it is all ones: `test` + `cmovnz`.
#[allow(
    clippy::pointers_in_nomem_asm_block,
    reason = "the pointers are selected, not dereferenced"
)]
// sct: select
#[inline(always)]
pub(super) fn select<T>(value: *const T, fallback: *const T, msf: usize) -> *const T {
    let mut out = value;
    // SAFETY: register-only arithmetic (`test`, `cmov`): no memory, no stack; the flags it
    // changes are declared clobbered by default.
    unsafe {
        asm!(
            "test {msf}, {msf}",
            "cmovnz {out}, {fallback}",
            msf = in(reg) msf,
            fallback = in(reg) fallback,
            out = inout(reg) out,
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
