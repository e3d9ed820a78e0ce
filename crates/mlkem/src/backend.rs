//! Which arithmetic backend the KEM runs on.
//!
//! Every operation is monomorphized for one [`mlkem_poly_ntt::Backend`]. Today the only
//! backend is the portable one; SIMD backends plug in here, selected once per operation.

/// The backend every public operation uses.
pub(crate) type Selected = mlkem_poly_ntt::Portable;
