//! The aarch64 instructions of the misspeculation flag: `dsb nsh; isb` then `csdb`,
//! `cmp` + `csel`, `orr`.

use core::arch::asm;

/// `dsb nsh; isb`: earlier instructions complete and later ones are fetched anew (the
/// barrier sequence every Armv8-A core has; `sb` needs FEAT_SB), then `csdb`, so that no
/// later instruction uses a speculative result of an earlier conditional select.
#[inline(always)]
pub(super) fn barrier() {
    // SAFETY: barriers only (`csdb` is a hint, a no-op where unimplemented): no register,
    // memory or flag changes.
    unsafe { asm!("dsb nsh", "isb", "csdb", options(nostack, preserves_flags)) };
}

/// `msf`, or all ones if `a >= b` (unsigned): `cmp` + `csel` on `hs`.
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
