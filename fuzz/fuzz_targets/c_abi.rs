//! libFuzzer target: the input is a program of C ABI calls (`dv_*`, called
//! through their `extern "C"` definitions) on a few DualViews, two-space
//! (test device) and host-only, ranks 0 to 3, Left / Right / Stride layouts,
//! with clones, subviews, const handles and wrapped memory, each call with
//! valid or bad arguments (NULL pointers, destroyed or foreign handles,
//! unknown enum values, bad extents, out-of-range axes), the program's own
//! writes through the data pointers, the halo idiom and fragmented coherence
//! maps. Every status is predicted; the flags and the data of both sides are
//! checked against the oracle of what the program wrote and marked and of
//! Kokkos' two counters (`tests/common/oracle.rs`); a disagreement panics,
//! which libFuzzer reports as a crash.
//!
//! The interpreter lives in `tests/reliability/engine.rs`, so
//! `cargo test --test reliability` replays this target's corpus too; here it is
//! the crate `dualview-fuzz-harness` (`harness/`), built without coverage
//! instrumentation (see `Cargo.toml`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    dualview_fuzz_harness::run(data);
});
