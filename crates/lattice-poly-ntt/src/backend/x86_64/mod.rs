//! The x86-64 backends: AVX2 and AVX-512 (which runs the AVX2 kernels where it has none of
//! its own).

pub mod avx2;
pub mod avx512;
mod consts;
