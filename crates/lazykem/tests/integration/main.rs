//! The integration tests of `lazykem`, one test binary: a module per topic, and `common`, the
//! helpers they share (vector loading, the generic parameter-set face, running a suite on
//! every backend this CPU has). Run one topic with
//! `cargo test -p lazykem --test integration <module>::` (e.g. `wycheproof::`).
//!
//! The vector tests (`acvp`, `cctv`, `wycheproof`, the LAMPS files of `pkcs8` and
//! `checked_import`, `self_test`'s known answers) read the workspace's `vectors/`; in a
//! packaged copy of the crate without it they are skipped (`common::skip_without_vectors`).

mod common;

mod acvp;
mod api;
mod cctv;
mod checked_import;
mod differential;
mod errors;
mod kem_traits;
mod pkcs8;
mod self_test;
mod wycheproof;
