//! Shared inputs and adapters for the criterion benchmarks of this workspace.
//!
//! The benchmarks themselves live in `benches/` (one target per layer):
//!
//! | target | group(s) | what |
//! |---|---|---|
//! | `field` | `field` | each GF(3329) reduction over a 256-element array |
//! | `poly_ntt` | `poly-ntt` | NTT, inverse NTT, base-case products, matrix-vector products (lazy vs eager), `b*zeta` cache |
//! | `sampling` | `sampling` | SampleNTT, CBD for eta = 2 and 3, whole-matrix generation |
//! | `kem` | `kem/ML-KEM-512`, `kem/ML-KEM-768`, `kem/ML-KEM-1024` | keygen, encaps and decaps, on parsed keys and from bytes; with the `peers` feature, the same operations of other implementations |
//!
//! This library holds what the targets share: deterministic pseudo-random inputs
//! ([`inputs`]), and a uniform interface over ML-KEM implementations ([`kem::KemUnderTest`])
//! with one adapter per implementation and parameter set, so that every library is measured
//! on the same inputs, through the same generic benchmark code, after the same correctness
//! check ([`kem::check`]).
//!
//! KEM benchmark IDs are `kem/<set>/<operation>/<library>`, for instance
//! `kem/ML-KEM-768/encaps_from_bytes/libcrux`; `cargo xtask bench-report` parses them.

pub mod inputs;
pub mod interleaved;
pub mod kem;
#[cfg(feature = "peers")]
pub mod peers;

/// The workspace README's examples, compiled and run as doctests of this workspace-only
/// crate: the published `lazykem` package does not carry the workspace README, and its own
/// doctests must build from its own files.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct WorkspaceReadmeDoctests;
