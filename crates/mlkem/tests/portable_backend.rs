//! The ACVP suites again with the portable backend forced, so both the portable reference
//! backend and the one selected by CPU detection (e.g. AVX2) are checked against the official
//! vectors. `mlkem::force_portable` is process-wide, which is why this is a test binary of its
//! own, with a single test: nothing else in this process depends on the selected backend.

mod common;

use common::acvp_suite;

#[test]
fn acvp_on_portable_backend() {
    mlkem::force_portable(true);
    assert_eq!(acvp_suite::keygen("portable backend"), 75);
    assert_eq!(acvp_suite::encap_decap("portable backend"), 195);
}
