//! Polynomials over any NTT-friendly ring `Z_q[X]/(X^n + 1)`, the number-theoretic
//! transform, and lazy NTT-domain accumulation: ML-KEM's ring and ML-DSA's ring, or your own.
//!
//! # Modules
//! Each module imports only from the rows above it (besides the field and the hidden
//! workspace token); nothing imports upward,
//! which `cargo xtask layering` checks (it builds the module graph from the `use` and path
//! references and fails on any import circle).
//!
//! | module | owns |
//! |---|---|
//! | [`ring`] | the ring description [`Ring`] and [`ring::KernelCall`]; the generic NTT and inverse (FIPS 203 Alg. 9 and 10, FIPS 204 Alg. 41 and 42, any number of layers), coefficient-wise add/sub, pointwise products |
//! | `mlkem::ring`, `mldsa::ring`, [`mlkem::zetas`] | the two rings: [`mlkem::MlKem`] (7 layers, degree-2 base cases of FIPS 203 Alg. 11 and 12, the `b*zeta` cache) and [`mldsa::MlDsa`] (8 layers, pointwise), their constants and tables |
//! | `backend::seam` | the [`Backend<R>`] seam: the hot functions with their portable default bodies, [`DotTerm`](backend::DotTerm), [`DOT_CHUNK`](backend::DOT_CHUNK), the raw lazy sums of the default dot product |
//! | `backend::portable`, `backend::x86_64::{consts, avx2, avx512}`, `backend::aarch64` | the tokens and their kernels, one folder per instruction set under its architecture (NEON under `aarch64`); the constants and tables both x86 backends use in `x86_64::consts` |
//! | `backend::registry` | which backends exist and the one place one is chosen: [`BackendKind`](backend::BackendKind), [`AnyBackend`](backend::AnyBackend), [`dispatch!`] |
//! | `poly`, `lazy`, `vector` | the typed API: [`Poly`] and [`NttPoly`] (`n` canonical coefficients in R_q and T_q), lazy accumulation ([`Accumulator`], [`CachedNttPoly`]), vectors and rectangular matrices ([`Matrix::mul_vector`], [`Matrix::transpose_mul_vector`], [`NttVector::dot`]) |
//! | [`mlkem`], [`mldsa`], [`backend`], the root | facades: re-exports and each ring's type aliases (`mlkem::Poly`, ...) |
//!
//! Private modules appear here by path; their items are re-exported by the facades. It
//! knows nothing of hashing, sampling, byte formats or the schemes that use the rings.
//!
//! ```
//! use lattice_field::{Gf3329, pow_mod};
//! use lattice_poly_ntt::ring::{KernelCall, Ring, accumulate_pointwise, bit_reversed_powers};
//! use lattice_poly_ntt::{NttVector, Poly, Portable};
//!
//! /// Z_3329[X]/(X^64 + 1) with a complete 6-layer NTT (17^2 is a primitive 128th root).
//! #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
//! struct Small;
//!
//! const ZETAS: [u16; 64] = {
//!     let wide = bit_reversed_powers::<64>(289, 3329);
//!     let mut t = [0u16; 64];
//!     let mut i = 0;
//!     while i < 64 {
//!         t[i] = wide[i] as u16;
//!         i += 1;
//!     }
//!     t
//! };
//!
//! impl Ring for Small {
//!     type Field = Gf3329;
//!     const N: usize = 64;
//!     type Coeffs = [u16; 64];
//!     type WideCoeffs = [u32; 64];
//!     const ZERO_COEFFS: [u16; 64] = [0; 64];
//!     const ZERO_WIDE: [u32; 64] = [0; 64];
//!     const NTT_LAYERS: u32 = 6;
//!     const ZETA: u64 = 289;
//!     const ZETAS: &'static [u16] = &ZETAS;
//!     const NTT_SCALE: u16 = pow_mod(64, 3327, 3329) as u16; // 64^-1
//!     type RhsCache = ();
//!     const ZERO_RHS_CACHE: () = ();
//!     const PRODUCT_TERM_MAX: u128 = 3328 * 3328;
//!     fn rhs_cache(_: KernelCall, _: &[u16; 64], (): &mut ()) {}
//!     fn accumulate(k: KernelCall, acc: &mut [u32; 64], a: &[u16; 64], b: &[u16; 64], (): &()) {
//!         accumulate_pointwise::<Self>(k, acc, a, b);
//!     }
//!     fn zeroize_rhs_cache((): &mut ()) {}
//! }
//!
//! // x * x^63 = x^64 = -1.
//! let x = Poly::<Small>::from_fn(|i| u32::from(i == 1));
//! let x63 = Poly::<Small>::from_fn(|i| u32::from(i == 63));
//! let a = NttVector::new([x.ntt(Portable)]);
//! let b = NttVector::new([x63.ntt(Portable)]).cached(Portable);
//! let product = a.dot(Portable, &b).inverse_ntt(Portable);
//! assert_eq!(product.get(0), Some(3328));
//! assert!((1..64).all(|i| product.get(i) == Some(0)));
//! ```
//!
//! A ring whose root has the wrong order, whose twiddle table has the wrong length, or whose
//! product bound does not fit its accumulator does not compile ([`Ring::CHECKS`]).
//!
//! # Lazy accumulation
//! NTT-domain products are summed unreduced in the field's wide type ([`Accumulator`], each
//! term at most [`Ring::PRODUCT_TERM_MAX`], at most [`Backend::MAX_TERMS`] terms before the
//! sums fold) and reduced once per coefficient; right-hand sides carry the ring's product
//! cache ([`CachedNttPoly`]).
//!
//! # Backends
//! Every operation that does arithmetic takes a backend token, a value of a type that
//! implements [`Backend<R>`]: [`Portable`] (always available, every ring) or a SIMD token
//! that exists only once its CPU features are detected (`Avx2::detect`, `Avx512::detect` on
//! x86-64, `Neon::detect` on aarch64), so no vector kernel is reachable on a CPU without
//! them. [`backend::AnyBackend::best`] picks the fastest once, [`backend::AnyBackend::available`]
//! lists every one this CPU has, and [`dispatch!`] runs an operation monomorphized for one,
//! compiled for its features. The SIMD tokens accelerate ML-KEM's ring; ML-DSA's ring runs
//! the portable defaults on every token.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
// Only the SIMD backend modules allow `unsafe` (each block with a `// SAFETY:` line).
#![deny(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod backend;
mod lazy;
pub mod mldsa;
pub mod mlkem;
mod poly;
pub mod ring;
mod vector;

pub use backend::tokens::*;
pub use lazy::{Accumulator, CachedNttPoly, multiply_ntts};
pub use poly::{NotCanonical, NttPoly, Poly};
pub use ring::Ring;
pub use vector::{CachedNttVector, Matrix, NttVector, PolyVector};

#[cfg(feature = "bounds-probe")]
#[doc(hidden)]
pub mod __bounds;

/// Not public API: items the other crates of this workspace need and nobody else should
/// use (hidden from the docs, no stability promise).
#[doc(hidden)]
pub mod __private {
    /// The token of [`crate::Poly::coeffs_mut`] / [`crate::NttPoly::coeffs_mut`]: whoever
    /// names it promises to leave every coefficient canonical.
    #[derive(Clone, Copy, Debug)]
    pub struct Workspace(());

    /// The one value of [`Workspace`].
    pub const WORKSPACE: Workspace = Workspace(());
}

/// The example of `docs/lower-crates.md` (a ring of one's own), compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/lower-crates.md")]
struct LowerCratesDoctests;
