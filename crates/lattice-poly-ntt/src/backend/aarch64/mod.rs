//! The aarch64 backends: NEON.

pub mod neon;
