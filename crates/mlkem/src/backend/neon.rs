//! The NEON token's encodings (aarch64): the portable ones until NEON kernels land.

use super::EncodeBackend;
use lattice_poly_ntt::backend::Neon;

impl EncodeBackend for Neon {}
