//! The aarch64 token's encodings: the NEON kernels (`neon`).

mod neon;
