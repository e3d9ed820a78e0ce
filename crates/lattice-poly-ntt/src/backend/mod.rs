//! Backends: the hot functions of this crate behind one static interface, the tokens that
//! implement it, and the one place where a backend is chosen.
//!
//! A backend is a zero-sized **capability token**: [`Portable`] can always be made, a SIMD
//! token only by detecting its CPU features (`Avx2::detect`), so holding one proves its
//! kernels may run and they need no per-call checks. Callers are generic over the token type
//! and pass the token down; everything is monomorphized for it, with no dynamic dispatch in
//! hot paths. [`AnyBackend`] is the one place the choice is made: [`AnyBackend::best`]
//! (detected once, cached), [`AnyBackend::of`] a [`BackendKind`] or
//! [`AnyBackend::available`] (every one this CPU has) for tests and benchmarks;
//! [`dispatch!`](crate::dispatch) runs an expression with the chosen token, inside the
//! token's `run` so that the whole operation is compiled for its features.
//!
//! A backend implements [`Backend<R>`] for the rings it serves; every method has a portable
//! default, so it overrides only the kernels it accelerates. Crates above this one define
//! their own kernel traits the same way (`lattice-sampling`'s Keccak, `lazykem`'s
//! encodings) and implement them for the same tokens.
//!
//! # Layout
//! - `seam.rs`: [`Backend<R>`], [`DotTerm`], [`DOT_CHUNK`] and the default bodies' helpers;
//!   it imports only the ring description;
//! - `portable.rs`, and one folder per instruction set under its architecture:
//!   `x86_64/avx2/` and `x86_64/avx512/` (with `x86_64/consts.rs`, the constants and tables
//!   both share), the NEON one under `aarch64/`; each imports the seam and the ring
//!   descriptions;
//! - `registry.rs`: [`BackendKind`], [`AnyBackend`], [`dispatch!`](crate::dispatch); it
//!   imports the tokens;
//! - this module re-exports them (the tokens also at the crate root).
//!
//! # Adding a backend
//! A folder `<arch>/<isa>/` here with the token (its detection and `run`), its
//! `Backend<R>` impls and the layout of its accumulator entries for `cargo xtask bounds`;
//! in `registry.rs` a [`BackendKind`] variant, an [`AnyBackend`] arm and a `dispatch!` arm;
//! in each crate above one impl of that crate's kernel trait (an empty one falls back to
//! portable code everywhere). A future `wasm32/simd128/` is such a folder plus its arms in
//! the registry.

#[cfg(any(target_arch = "aarch64", feature = "bounds-probe"))]
pub(crate) mod aarch64;
pub(crate) mod portable;
mod registry;
pub(crate) mod seam;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

#[cfg(target_arch = "aarch64")]
pub use aarch64::neon::Neon;
pub use portable::Portable;
pub use registry::{AnyBackend, BackendKind};
pub use seam::{Backend, DOT_CHUNK, DotTerm};
#[cfg(target_arch = "x86_64")]
pub use x86_64::{avx2::Avx2, avx512::Avx512};

/// The tokens of this target, re-exported at the crate root.
pub mod tokens {
    #[cfg(target_arch = "aarch64")]
    pub use super::Neon;
    #[cfg(target_arch = "x86_64")]
    pub use super::{Avx2, Avx512};
    pub use super::{Backend, Portable};
}
