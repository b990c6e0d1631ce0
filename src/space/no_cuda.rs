//! The CUDA driver's stand-in for builds without the `cuda` feature: no
//! driver is loaded, every CUDA space answers `NoDevice` with the reason.

use super::{Backend, Space};
use crate::error::{bail, Result};

/// No CUDA devices without the feature.
pub(crate) fn device_count() -> usize {
    0
}

/// Every CUDA space is unusable in this build.
pub(crate) fn backend(space: Space) -> Result<&'static dyn Backend> {
    bail!(NoDevice, "{space}: dualview was built without its `cuda` feature")
}
