//! The negative control: deliberately leaky code that the checks must flag.
//!
//! `ct-harness leaky` marks a few bytes secret and feeds them to
//! - [`branch_on_secret`]: a conditional call on a secret bit (a real branch, not a `cmov`:
//!   the call cannot be turned into a select), which memcheck must report as "Conditional
//!   jump or move depends on uninitialised value(s)";
//! - [`lookup_by_secret`]: a table load indexed by a secret byte, which memcheck must report
//!   as "Use of uninitialised value of size 8" (the address depends on the secret);
//! - [`divide_by_secret`]: a division by a secret value. Memcheck does not see variable-latency
//!   instructions; this one is there for the division scan of `cargo xtask ct`, which must
//!   find its `div` (and does not scan this module otherwise).
//!
//! `cargo xtask ct` fails unless valgrind reports the first two in exactly these functions
//! and the scan finds the third, so a silently broken harness (client requests that do
//! nothing, a valgrind that does not track definedness, a log parser that sees nothing, a
//! disassembly scan that misses `div`) cannot pass.

use crate::valgrind;
use std::hint::black_box;

/// A 256-entry table with no arithmetic pattern the optimizer could replace the lookup with.
static TABLE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut state = 0x9e37_79b9_u32;
    let mut i = 0;
    while i < 256 {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        table[i] = (state >> 24) as u8;
        i += 1;
    }
    table
};

/// Called on one side of the secret branch only.
#[inline(never)]
fn slow_path(x: u8) -> u32 {
    black_box(u32::from(x).wrapping_mul(2_654_435_761))
}

/// LEAKS: branches on the low bit of `secret`.
#[inline(never)]
pub(crate) fn branch_on_secret(secret: u8) -> u32 {
    if black_box(secret) & 1 == 1 {
        slow_path(secret)
    } else {
        7
    }
}

/// LEAKS: loads from an address that depends on `secret`.
#[inline(never)]
pub(crate) fn lookup_by_secret(secret: u8) -> u8 {
    black_box(&TABLE)[usize::from(black_box(secret))]
}

/// LEAKS (timing, invisible to memcheck): divides by a secret value.
#[inline(never)]
pub(crate) fn divide_by_secret(numerator: u32, secret: u8) -> u32 {
    black_box(numerator) / (u32::from(black_box(secret)) | 1)
}

/// Runs the three leaky functions on secret bytes. Under valgrind, checks through
/// `VALGRIND_COUNT_ERRORS` that the branch and the lookup each raised a new error.
pub(crate) fn run(require_valgrind: bool) -> Result<(), String> {
    let on_valgrind = valgrind::running_on_valgrind();
    if require_valgrind && !on_valgrind {
        return Err("not running under valgrind (RUNNING_ON_VALGRIND returned 0)".into());
    }
    let mut secret = black_box([0x5bu8, 0xa7, 0x3c]);
    valgrind::mark_secret(&mut secret);

    let before = valgrind::error_count();
    let branch = branch_on_secret(secret[0]);
    let after_branch = valgrind::error_count();
    let lookup = lookup_by_secret(secret[1]);
    let after_lookup = valgrind::error_count();
    let quotient = divide_by_secret(1_000_000, secret[2]);

    // Declassify the results so that printing them raises no further error.
    let mut results = [0u8; 9];
    results[..4].copy_from_slice(&branch.to_le_bytes());
    results[4] = lookup;
    results[5..].copy_from_slice(&quotient.to_le_bytes());
    valgrind::declassify(&mut results);
    println!("leaky: results {results:02x?}");

    if !on_valgrind {
        println!("leaky: not under valgrind, error counts not checked");
        return Ok(());
    }
    println!(
        "leaky: memcheck errors: {} after the secret branch, {} after the secret lookup",
        after_branch - before,
        after_lookup - after_branch
    );
    if after_branch == before {
        return Err("memcheck did not flag the branch on a secret".into());
    }
    if after_lookup == after_branch {
        return Err("memcheck did not flag the table lookup at a secret index".into());
    }
    println!("leaky: both leaks flagged (as they must be)");
    Ok(())
}
