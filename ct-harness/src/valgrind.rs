//! Valgrind client requests for memcheck, issued with valgrind's x86_64 "magic" instruction
//! sequence (the `VALGRIND_DO_CLIENT_REQUEST_EXPR` macro of `<valgrind/valgrind.h>`).
//!
//! The sequence rotates `rdi` left by 3, 13, 61 and 51 bits (128 in total, so `rdi` ends
//! unchanged) and then executes `xchg rbx, rbx`. On a real CPU it changes no register but
//! the flags and touches no memory: every request is a no-op that returns its default.
//! Valgrind's JIT recognizes the pattern and performs the request whose six-word argument
//! block `rax` points to (request code, then up to five arguments), putting the result in
//! `rdx`.
//!
//! The request codes are those of `<valgrind/memcheck.h>` and `<valgrind/valgrind.h>`
//! (valgrind 3.x); the core ones are fixed, memcheck's are `VG_USERREQ_TOOL_BASE('M','C')`
//! plus their position in its enum.
//!
//! This is the only module of the crate with `unsafe` code: one `asm!` block, which cannot
//! be written without it.
#![allow(unsafe_code)]

/// `VG_USERREQ_TOOL_BASE('M', 'C')`: memcheck's request codes start here.
const MEMCHECK_BASE: usize = ((b'M' as usize) << 24) | ((b'C' as usize) << 16);
/// `VG_USERREQ__MAKE_MEM_UNDEFINED`.
const MAKE_MEM_UNDEFINED: usize = MEMCHECK_BASE + 1;
/// `VG_USERREQ__MAKE_MEM_DEFINED`.
const MAKE_MEM_DEFINED: usize = MEMCHECK_BASE + 2;
/// `VG_USERREQ__GET_VBITS`.
const GET_VBITS: usize = MEMCHECK_BASE + 8;
/// `VG_USERREQ__RUNNING_ON_VALGRIND` (a core request).
const RUNNING_ON_VALGRIND: usize = 0x1001;
/// `VG_USERREQ__COUNT_ERRORS` (a core request).
const COUNT_ERRORS: usize = 0x1201;

/// Issues one client request; returns `default` when not running under valgrind.
#[cfg(target_arch = "x86_64")]
fn client_request(default: usize, request: usize, args: [usize; 5]) -> usize {
    let block: [usize; 6] = [request, args[0], args[1], args[2], args[3], args[4]];
    let result: usize;
    // SAFETY: natively the four `rol`s turn `rdi` through 128 bits, back to its value, and
    // `xchg rbx, rbx` changes nothing: only the flags are modified, which `asm!` assumes by
    // default. Under valgrind the same sequence is the client-request trap: valgrind reads
    // the six words at `rax` (`block`, a live local array) and writes the result to `rdx`
    // (declared `inout`). The only memory a request here writes is the `vbits` buffer of
    // `GET_VBITS`, which `undefined_bits` passes as an exclusive borrow valid for the
    // requested length. No stack is used.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") block.as_ptr(),
            inout("rdx") default => result,
            options(nostack),
        );
    }
    result
}

/// Without the x86_64 magic sequence every request is a no-op.
#[cfg(not(target_arch = "x86_64"))]
fn client_request(default: usize, _request: usize, _args: [usize; 5]) -> usize {
    default
}

/// Whether the process runs under valgrind (`RUNNING_ON_VALGRIND`).
pub(crate) fn running_on_valgrind() -> bool {
    client_request(0, RUNNING_ON_VALGRIND, [0; 5]) != 0
}

/// Marks `buf` as secret: memcheck treats its bits as undefined (`VALGRIND_MAKE_MEM_UNDEFINED`),
/// so any branch, memory address or syscall argument that depends on them is reported.
/// The contents are unchanged.
///
/// The buffer is taken as `&mut` so that the compiler must assume the request may have
/// changed it and reloads it from memory afterwards (a value kept in a register from before
/// the request would still carry "defined" shadow bits).
pub(crate) fn mark_secret(buf: &mut [u8]) {
    client_request(
        0,
        MAKE_MEM_UNDEFINED,
        [buf.as_mut_ptr() as usize, buf.len(), 0, 0, 0],
    );
}

/// Declassifies `buf`: a value that is public by design from this point on
/// (`VALGRIND_MAKE_MEM_DEFINED`). The contents are unchanged.
pub(crate) fn declassify(buf: &mut [u8]) {
    client_request(
        0,
        MAKE_MEM_DEFINED,
        [buf.as_mut_ptr() as usize, buf.len(), 0, 0, 0],
    );
}

/// The number of undefined (secret-derived) bits in `buf` according to memcheck
/// (`VALGRIND_GET_VBITS`), or `None` when not running under valgrind.
///
/// Reading the shadow bits is not a use of the value: it raises no memcheck error.
pub(crate) fn undefined_bits(buf: &[u8]) -> Option<u32> {
    let mut vbits = vec![0u8; buf.len()];
    let status = client_request(
        0,
        GET_VBITS,
        [
            buf.as_ptr() as usize,
            vbits.as_mut_ptr() as usize,
            buf.len(),
            0,
            0,
        ],
    );
    // 0: not under valgrind; 1: success; 3: part of a range not addressable.
    (status == 1).then(|| vbits.iter().map(|b| b.count_ones()).sum())
}

/// The number of errors memcheck has reported so far (`VALGRIND_COUNT_ERRORS`); 0 when not
/// running under valgrind.
pub(crate) fn error_count() -> usize {
    client_request(0, COUNT_ERRORS, [0; 5])
}
