//! Other targets: no barrier, and plain (branch-free as written, but not guaranteed to stay
//! so) arithmetic. This does **not** protect: the compiler may turn the selections back into
//! branches, and nothing stops speculation at entry. It keeps the code and its results the
//! same on every target.

/// Nothing (no barrier on this target).
#[inline(always)]
pub(super) fn barrier() {}

/// Nothing.
#[inline(always)]
pub(super) fn select_barrier() {}

/// `msf`, or all ones if `a >= b`.
#[inline(always)]
pub(super) fn set_if_ae(msf: usize, a: usize, b: usize) -> usize {
    msf | (usize::from(a >= b)).wrapping_neg()
}

/// `msf`, or all ones if `a < b`.
#[inline(always)]
pub(super) fn set_if_b(msf: usize, a: usize, b: usize) -> usize {
    msf | (usize::from(a < b)).wrapping_neg()
}

/// `msf`, or all ones if `a > LIMIT`.
#[inline(always)]
pub(super) fn set_if_above<const LIMIT: usize>(msf: usize, a: usize) -> usize {
    msf | (usize::from(a > LIMIT)).wrapping_neg()
}

/// `msf`, or all ones if `a <= LIMIT`.
#[inline(always)]
pub(super) fn set_if_below_or_equal<const LIMIT: usize>(msf: usize, a: usize) -> usize {
    msf | (usize::from(a <= LIMIT)).wrapping_neg()
}

/// `value | msf`.
#[inline(always)]
pub(super) fn or(value: usize, msf: usize) -> usize {
    value | msf
}

/// `value` if `msf` is 0, else `fallback`.
#[inline(always)]
pub(super) fn select<T>(value: *const T, fallback: *const T, msf: usize) -> *const T {
    if msf == 0 { value } else { fallback }
}

/// `value` (no opaque copy on this target).
#[inline(always)]
pub(super) fn launder(value: usize) -> usize {
    core::hint::black_box(value)
}
