//! The drivers under the device engine: each implements the engine's
//! `Driver` trait (about 25 raw calls) for one vendor, or for the test
//! device.
//!
//! | driver | serves |
//! | --- | --- |
//! | `cuda.rs` | CUDA device, managed and pinned memory (cudarc's driver API, loaded at run time; feature `cuda`) |
//! | `fake/` | the test device: host memory posing as a device, with streams on worker threads (public as `dualview::memory::test_device`) |

#[cfg(feature = "cuda")]
pub(crate) mod cuda;
pub mod fake;
