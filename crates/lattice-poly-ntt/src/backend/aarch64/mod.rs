//! The aarch64 backends: NEON.

pub(crate) mod neon;
