//! Declassification for constant-time validation (feature `ct-validation`; never needed in
//! production, and off by default).
//!
//! `cargo xtask ct` runs the library under valgrind memcheck with every secret marked
//! undefined, so that any branch or memory index that depends on a secret is reported.
//! A few values are derived from secrets yet public by design, and the code branches on
//! them: ML-KEM's `rho` comes out of `G(d || k)` with the secret `sigma`, is published in
//! the encapsulation key, and A-hat is rejection-sampled from it (FIPS 203 Alg. 13
//! l. 1 and 3-7; the same holds for ML-DSA's `rho`). The library calls [`declassify`] at
//! the one point where such a value becomes public, instead of the checker matching source
//! lines or stack frames, which a refactoring can silently break (the idea of BoringSSL's
//! `CONSTTIME_DECLASSIFY`).
//!
//! Natively, [`declassify`] runs valgrind's client-request instruction sequence, which
//! changes nothing but the flags (a few cycles); under valgrind it marks the bytes as
//! defined (`VALGRIND_MAKE_MEM_DEFINED`). Off x86_64 it does nothing.
//!
//! The request itself (one `asm!` block) is in the backend tree, with the crate's other
//! instruction-set code.

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
    crate::backend::make_mem_defined(buf);
}
