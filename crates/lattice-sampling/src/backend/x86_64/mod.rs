//! The x86-64 backends of this crate: the AVX2 token's (`avx2`) and the AVX-512 token's
//! (`avx512`) Keccak permutations, `SampleNTT` candidate parsers, CBD and lane counts, and
//! what both share here: the schedule of the multi-state Keccak round (`keccak`) and the
//! tests of every x86-64 parser (`tests`). The AVX-512 token's CPU has every AVX2 feature:
//! it runs the AVX2 kernels where it has nothing better (the AVX2 parser without VBMI2, the
//! AVX2 CBD for eta = 3).
//!
//! This is the crate's SIMD code, allowed `unsafe` for two reasons only: calling
//! `#[target_feature]` functions (sound once the features are detected: every type here
//! that calls them is made only from the token that proves them) and the unaligned loads
//! and stores of SIMD registers (each on a bounds-checked slice or a local array of the
//! right size). Every `unsafe` block states why it is sound.
//!
//! # Dispatch
//! The entry points (`avx2::run_avx2`, `avx512::run_avx512`) are `#[target_feature]`
//! functions that the generic lane scheduler (`crate::scheduler`) inlines into, with the
//! permutation and kernels of the token, so the whole batch, Keccak, parser and CBD are
//! compiled for the instruction set and inlined into one another, with the default release
//! profile and no `target-cpu` flag. They are reached only through the `SamplingBackend`
//! impls of the tokens of `lattice-poly-ntt`, which exist only on a CPU with the features.

pub(crate) mod avx2;
pub(crate) mod avx512;
mod keccak;
#[cfg(test)]
mod tests;
