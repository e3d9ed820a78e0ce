//! The x86-64 tokens' encodings: the AVX2 kernels (`avx2`), which the AVX-512 token runs
//! too, and its zmm Compress/Decompress (`avx512`).

mod avx2;
mod avx512;
