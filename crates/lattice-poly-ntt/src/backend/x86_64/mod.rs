//! The x86-64 backends: AVX2 and AVX-512 (which runs the AVX2 kernels where it has none of
//! its own).

pub(crate) mod avx2;
pub(crate) mod avx512;
pub(crate) mod consts;
