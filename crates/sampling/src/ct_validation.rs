//! Declassification for constant-time validation (feature `ct-validation`; never needed in
//! production, and off by default).
//!
//! `cargo xtask ct` runs the library under valgrind memcheck with every secret marked
//! undefined, so that any branch or memory index that depends on a secret is reported.
//! A few values are derived from secrets yet public by design, and the code branches on
//! them: ML-KEM's `rho` comes out of `G(d || k)` with the secret `sigma`, is published in
//! the encapsulation key, and A-hat is rejection-sampled from it (FIPS 203, Algorithm 13,
//! lines 1 and 3-7; the same holds for ML-DSA's `rho`). The library calls [`declassify`] at
//! the one point where such a value becomes public, instead of the checker matching source
//! lines or stack frames, which a refactoring can silently break (the idea of BoringSSL's
//! `CONSTTIME_DECLASSIFY`).
//!
//! Natively, [`declassify`] runs valgrind's client-request instruction sequence, which
//! changes nothing but the flags (a few cycles); under valgrind it marks the bytes as
//! defined (`VALGRIND_MAKE_MEM_DEFINED`). Off x86_64 it does nothing.
//!
//! This module holds the crate's only `unsafe` outside the SIMD backends: one `asm!` block,
//! which the client request cannot be written without.
#![allow(unsafe_code)]

/// `VG_USERREQ_TOOL_BASE('M', 'C') + 2` = `VG_USERREQ__MAKE_MEM_DEFINED` (`<valgrind/memcheck.h>`).
const MAKE_MEM_DEFINED: usize = (((b'M' as usize) << 24) | ((b'C' as usize) << 16)) + 2;

/// Declares `buf` public from here on: under valgrind memcheck its bytes become defined.
/// The contents are unchanged; natively this is a no-op.
///
/// The buffer is taken as `&mut` so that the compiler must assume the request may have
/// changed it and reload it afterwards: a copy kept in a register from before the request
/// would still carry memcheck's "undefined" shadow bits.
///
/// ```
/// let mut rho = [7u8; 32];
/// lattice_sampling::ct_validation::declassify(&mut rho);
/// assert_eq!(rho, [7u8; 32]);
/// ```
pub fn declassify(buf: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        let block: [usize; 6] = [
            MAKE_MEM_DEFINED,
            buf.as_mut_ptr() as usize,
            buf.len(),
            0,
            0,
            0,
        ];
        // SAFETY: natively the four `rol`s turn `rdi` through 128 bits, back to its value,
        // and `xchg rbx, rbx` changes nothing: only the flags change, which `asm!` assumes
        // by default. Under valgrind the sequence is the client-request trap
        // (`VALGRIND_DO_CLIENT_REQUEST_EXPR` of `<valgrind/valgrind.h>`): valgrind reads the
        // six words at `rax` (`block`, a live local array), changes only the shadow state
        // of `buf` (borrowed exclusively, valid for `buf.len()` bytes) and writes its result
        // to `rdx` (declared as clobbered). No stack is used.
        unsafe {
            core::arch::asm!(
                "rol rdi, 3",
                "rol rdi, 13",
                "rol rdi, 61",
                "rol rdi, 51",
                "xchg rbx, rbx",
                in("rax") block.as_ptr(),
                inout("rdx") 0usize => _,
                options(nostack),
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = buf;
}
