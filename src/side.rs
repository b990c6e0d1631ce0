//! [`Side`]: the host mirror or the device view of a DualView.

use crate::abi::{abi_enum_core, DV_SIDE_DEVICE, DV_SIDE_HOST};

// Its TryFrom<u32> is written by `error` (an Error names a Side; this module imports no error).
abi_enum_core! {
    /// Which side of a DualView an operation or an error concerns. The numbers
    /// are the C ABI values (`DV_SIDE_HOST`, `DV_SIDE_DEVICE`).
    ///
    /// ```
    /// use dualview::Side;
    /// assert_eq!(Side::Host.other(), Side::Device);
    /// assert_eq!(Side::Device.to_string(), "device");
    /// assert_eq!(Side::try_from(1u32).unwrap(), Side::Device);
    /// ```
    pub enum Side {
        /// The host mirror (`h_view`).
        Host = DV_SIDE_HOST => "host",
        /// The device view (`d_view`).
        Device = DV_SIDE_DEVICE => "device",
    }
}

impl Side {
    /// The opposite side.
    ///
    /// ```
    /// # use dualview::Side;
    /// assert_eq!(Side::Device.other(), Side::Host);
    /// ```
    pub const fn other(self) -> Side {
        match self {
            Side::Host => Side::Device,
            Side::Device => Side::Host,
        }
    }

    /// Both sides, host first.
    pub const BOTH: [Side; 2] = [Side::Host, Side::Device];
}
