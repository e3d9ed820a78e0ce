//! The backend a fuzz input asks for, shared by the targets (`#[path]`-included; outside
//! `fuzz_targets/`, where every file is a target).

use lattice_poly_ntt::backend::{AnyBackend, BackendKind};

/// The backend of `BackendKind::ALL` that `selector` picks (its value mod the number of
/// kinds), or the portable one where this CPU lacks it, so every input runs.
pub fn backend_of(selector: usize) -> AnyBackend {
    let kind = BackendKind::ALL[selector % BackendKind::ALL.len()];
    AnyBackend::of(kind)
        .or_else(|| AnyBackend::of(BackendKind::Portable))
        .expect("the portable backend is always available")
}
