//! The CUDA backend's stand-in for builds without the `cuda` feature: no
//! driver is loaded, every CUDA space answers `NoDevice` with the reason.

use super::Space;
use crate::error::{bail, Result};

/// No CUDA devices without the feature.
pub(crate) fn device_count() -> usize {
    0
}

/// Every CUDA space is unusable in this build.
pub(crate) fn probe(space: Space) -> Result<()> {
    bail!(NoDevice, "{space}: dualview was built without its `cuda` feature")
}

/// Never reached: no DualView has a CUDA device in this build.
pub(crate) fn register_host(_ptr: *mut u8, _len: usize) -> Result<()> {
    bail!(NoDevice, "dualview was built without its `cuda` feature")
}

/// Never reached, as [`register_host`].
pub(crate) fn unregister_host(_ptr: *mut u8) {}
