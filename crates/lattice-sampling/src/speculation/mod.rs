//! Speculation barriers and speculative constant time (Spectre v1; see `SECURITY.md`,
//! "Speculative execution"), for the whole workspace: the one module of the crates that
//! stops or tracks speculative execution.
//!
//! - [`barrier`] (public): no later instruction runs, even speculatively, before the
//!   earlier ones are known to be architecturally executed. `lazykem` runs it at the entry
//!   of every public operation that handles secrets; `init_msf` here starts with it.
//! - The misspeculation flag of the sampling kernels (crate-private): a value kept in a
//!   register by conditional moves, and masking with it of every value that later becomes
//!   an address.
//!
//! The instructions are in one submodule per architecture, each an `asm!` block the
//! compiler cannot see into (so it cannot turn a conditional move back into a branch):
//! x86-64 `lfence`, `cmp` + `cmov`, `or`; aarch64 `sb` (FEAT_SB) or `dsb nsh; isb`, `csdb`,
//! `cmp` + `csel`, `orr`. Other targets get no barrier and plain arithmetic (`portable`),
//! which does not protect. `cargo xtask sct` finds the blocks in the machine code by their
//! `// sct:` markers.
//!
//! # The misspeculation flag
//! The discipline is that of the Jasmin/libjade implementations (`#init_msf`,
//! `#update_msf`, `#protect`):
//! - `init_msf`: a speculation barrier, then the flag is 0 (the path is architectural);
//! - after every branch a protected loop takes, on each of its sides, an `update_*` call
//!   with the branch's own compared operands: the flag becomes all ones when the outcome of
//!   the comparison, computed from data (no prediction), disagrees with the side being
//!   executed, i.e. on a mispredicted path, and stays as it was otherwise;
//! - `protect`: `value | flag`, on every value that becomes a table index or decides a
//!   store offset. On the architectural path the flag is 0 and `protect` is the identity;
//!   on a mispredicted one the value is all ones, a constant, so no address depends on what
//!   a speculative load read.
//!
//! ## What a protected loop calls
//! With `msf` from the caller (never a fresh one inside a loop: `init_msf` is a barrier):
//! ```text
//! while i < n {               // the loop's own compared operands
//!     msf = update_lt(msf, launder(i), n);
//!     let mask = protect(mask, msf);   // before it indexes a table or moves a store
//!     ...
//! }
//! msf = update_ge(msf, launder(i), n);  // the exit side too (`i == n` is known there)
//! ```
//!
//! The test switch `force_misspeculation` (tests only) makes `init_msf` return the set
//! flag, so that a test can run a protected kernel as a mispredicted path would and check
//! that every protected index is the constant the mask gives.

#[cfg(target_arch = "x86_64")]
mod x86_64;
#[cfg(target_arch = "x86_64")]
use x86_64 as arch;

#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(target_arch = "aarch64")]
use aarch64 as arch;

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod portable;
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
use portable as arch;

/// Stops speculative execution: no instruction after the barrier runs, even speculatively,
/// before every instruction before it is known to be architecturally executed.
///
/// For the entry of an operation that handles secrets: a caller's mispredicted branch (`if
/// authorized { dk.decapsulate(..) }`, a bounds check just before the call) cannot run the
/// start of the operation speculatively on whatever the registers and memory hold then, as
/// the speculative constant-time discipline of the Jasmin/libjade implementations does at
/// each entry point.
///
/// - x86-64: `lfence`.
/// - aarch64: `sb` where the CPU has FEAT_SB (known at compile time with
///   `-C target-feature=+sb` or a target CPU that has it; otherwise read once from
///   `AT_HWCAP` on Linux and Android and cached), else `dsb nsh; isb`, the sequence Arm
///   documents for CPUs without it. Both sides of the cached test end in a barrier, so a
///   mispredicted test still runs one.
/// - Other targets: nothing.
///
/// ```
/// // Before code that must not run on a mispredicted path.
/// lattice_sampling::speculation::barrier();
/// ```
#[inline(always)]
pub fn barrier() {
    arch::barrier();
}

/// The misspeculation flag: 0 on the architectural path, all ones once a branch on the
/// current path was mispredicted (see the module docs). Held by value, in a register.
#[derive(Clone, Copy, Debug)]
#[must_use]
pub(crate) struct Msf(usize);

impl Msf {
    /// Whether the flag is set (tests only: code never branches on the flag).
    #[cfg(test)]
    pub(crate) fn is_set(self) -> bool {
        self.0 == usize::MAX
    }
}

/// A speculation barrier, then the cleared flag: from here on the path is architectural.
/// On aarch64 the barrier is followed by `csdb`, so that no later instruction uses a
/// speculative result of a conditional select (the flag's `csel`).
#[inline(always)]
pub(crate) fn init_msf() -> Msf {
    barrier();
    arch::select_barrier();
    #[cfg(test)]
    if forced() {
        return Msf(usize::MAX);
    }
    Msf(0)
}

/// On the side of a branch where `a < b` (unsigned): the flag, set if in fact `a >= b`.
#[inline(always)]
pub(crate) fn update_lt(msf: Msf, a: usize, b: usize) -> Msf {
    Msf(arch::set_if_ae(msf.0, a, b))
}

/// On the side of a branch where `a >= b` (unsigned): the flag, set if in fact `a < b`.
#[inline(always)]
pub(crate) fn update_ge(msf: Msf, a: usize, b: usize) -> Msf {
    Msf(arch::set_if_b(msf.0, a, b))
}

/// On the side of a branch where `a <= b` (unsigned): the flag, set if in fact `a > b`.
#[cfg_attr(
    not(target_arch = "x86_64"),
    allow(dead_code, reason = "used by the x86 parsers so far")
)]
#[inline(always)]
pub(crate) fn update_le(msf: Msf, a: usize, b: usize) -> Msf {
    update_ge(msf, b, a)
}

/// On the side of a branch where `a > b` (unsigned): the flag, set if in fact `a <= b`.
#[cfg_attr(
    not(target_arch = "x86_64"),
    allow(dead_code, reason = "used by the x86 parsers so far")
)]
#[inline(always)]
pub(crate) fn update_gt(msf: Msf, a: usize, b: usize) -> Msf {
    update_lt(msf, b, a)
}

/// [`update_le`] against a constant `LIMIT` (an immediate operand: no register).
#[cfg_attr(
    not(target_arch = "x86_64"),
    allow(dead_code, reason = "used by the x86 parsers so far")
)]
#[inline(always)]
pub(crate) fn update_le_const<const LIMIT: usize>(msf: Msf, a: usize) -> Msf {
    Msf(arch::set_if_above::<LIMIT>(msf.0, a))
}

/// [`update_gt`] against a constant `LIMIT` (an immediate operand: no register).
#[cfg_attr(
    not(target_arch = "x86_64"),
    allow(dead_code, reason = "used by the x86 parsers so far")
)]
#[inline(always)]
pub(crate) fn update_gt_const<const LIMIT: usize>(msf: Msf, a: usize) -> Msf {
    Msf(arch::set_if_below_or_equal::<LIMIT>(msf.0, a))
}

/// On the side of a branch where `a != 0` (a `bool` or a mask tested for zero): the flag,
/// set if in fact `a == 0`.
#[inline(always)]
pub(crate) fn update_nonzero(msf: Msf, a: usize) -> Msf {
    update_gt_const::<0>(msf, a)
}

/// On the side of a branch where `a == 0`: the flag, set if in fact `a != 0`.
#[inline(always)]
pub(crate) fn update_zero(msf: Msf, a: usize) -> Msf {
    update_le_const::<0>(msf, a)
}

/// `value`, through a register the compiler cannot see into: compute it *before* a
/// branch on `value` and give the copy to the `update_*` calls on the branch's sides.
///
/// On each side of `if x == 0` the compiler knows more about `x` (there, that it is 0), and
/// passes that constant to an `update_*` call instead of the register, which would compare
/// constants and never set the flag on a mispredicted path. The copy is opaque (and its
/// `asm!` is not `pure`, so it is neither moved below the branch nor merged), so the
/// comparison in the `update_*` call reads the register the branch itself compared.
#[inline(always)]
pub(crate) fn launder(value: usize) -> usize {
    arch::launder(value)
}

/// `value | flag`: `value` on the architectural path, all ones on a mispredicted one.
#[inline(always)]
pub(crate) fn protect(value: usize, msf: Msf) -> usize {
    arch::or(value, msf.0)
}

/// `value` on the architectural path, `fallback` once the flag is set: the *address* a
/// kernel reads is selected, so that every value it loads (and every index or offset it
/// derives from them) comes from `fallback`, a constant, on a mispredicted path. One
/// selection per call instead of a [`protect`] per derived index, for kernels whose loads
/// are all at fixed offsets of one buffer (the NEON block parser).
#[cfg_attr(
    not(target_arch = "aarch64"),
    allow(dead_code, reason = "used by the NEON parser so far")
)]
#[inline(always)]
pub(crate) fn protect_ref<'a, T>(value: &'a T, fallback: &'a T, msf: Msf) -> &'a T {
    let selected = arch::select(
        core::ptr::from_ref(value),
        core::ptr::from_ref(fallback),
        msf.0,
    );
    // SAFETY: `selected` is the address of `value` or of `fallback` (the flag is 0 or all
    // ones), both references alive for `'a`.
    unsafe { &*selected }
}

#[cfg(test)]
std::thread_local! {
    static FORCED: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

#[cfg(test)]
fn forced() -> bool {
    FORCED.with(core::cell::Cell::get)
}

/// Runs `f` with every [`init_msf`] of this thread returning the set flag (tests only), as
/// if each protected kernel ran on a mispredicted path; the branches still follow the data,
/// so the run stays in bounds, and each protected value takes the constant its mask gives.
#[cfg(test)]
pub(crate) fn force_misspeculation<T>(f: impl FnOnce() -> T) -> T {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            FORCED.with(|c| c.set(self.0));
        }
    }
    let _reset = Reset(FORCED.with(|c| c.replace(true)));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALUES: [usize; 7] = [0, 1, 2, 255, 1 << 40, usize::MAX - 1, usize::MAX];

    #[test]
    fn updates_follow_the_comparison() {
        for a in VALUES {
            for b in VALUES {
                let clear = Msf(0);
                assert_eq!(update_lt(clear, a, b).is_set(), a >= b, "lt {a} {b}");
                assert_eq!(update_ge(clear, a, b).is_set(), a < b, "ge {a} {b}");
                assert_eq!(update_le(clear, a, b).is_set(), a > b, "le {a} {b}");
                assert_eq!(update_gt(clear, a, b).is_set(), a <= b, "gt {a} {b}");
                assert_eq!(update_nonzero(clear, a).is_set(), a == 0, "nonzero {a}");
                assert_eq!(update_zero(clear, a).is_set(), a != 0, "zero {a}");
                assert_eq!(update_le_const::<240>(clear, a).is_set(), a > 240, "le {a}");
                assert_eq!(
                    update_gt_const::<240>(clear, a).is_set(),
                    a <= 240,
                    "gt {a}"
                );
                for a in [239, 240, 241] {
                    assert_eq!(update_le_const::<240>(clear, a).is_set(), a > 240, "le {a}");
                    assert_eq!(
                        update_gt_const::<240>(clear, a).is_set(),
                        a <= 240,
                        "gt {a}"
                    );
                }
                // A set flag stays set whatever the comparison.
                let set = Msf(usize::MAX);
                assert!(update_lt(set, a, b).is_set() && update_ge(set, a, b).is_set());
                assert!(update_nonzero(set, a).is_set() && update_zero(set, a).is_set());
            }
        }
    }

    #[test]
    fn protect_is_the_identity_or_all_ones() {
        for v in VALUES {
            assert_eq!(launder(v), v);
            assert_eq!(protect(v, Msf(0)), v);
            assert_eq!(protect(v, Msf(usize::MAX)), usize::MAX);
        }
    }

    #[test]
    fn protect_ref_selects_the_fallback_when_set() {
        let (value, fallback) = ([1u8; 3], [2u8; 3]);
        let got = [
            protect_ref(&value, &fallback, Msf(0)),
            protect_ref(&value, &fallback, Msf(usize::MAX)),
        ];
        assert!(core::ptr::eq(got[0], &raw const value));
        assert!(core::ptr::eq(got[1], &raw const fallback));
    }

    #[test]
    fn init_is_clear_unless_forced() {
        assert!(!init_msf().is_set());
        assert!(force_misspeculation(|| init_msf().is_set()));
        assert!(!init_msf().is_set());
    }
}
