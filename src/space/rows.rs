//! The meaning of each [`SpaceKind`], as data: one row per kind, read by every
//! question about what a kind is (its policy, the memory its addresses are,
//! the pinned host space of its mirrors, the cargo feature its driver needs).
//! Which backend serves a kind is `src/memory/table.rs`. A new space is a row
//! here and there, its driver and its C and C++ tags (docs/ARCHITECTURE.md,
//! "Adding a memory space").

use super::{Mem, Space, SpaceKind, SpacePolicy};
use crate::layout::Layout;

/// One space kind, as data.
#[derive(Clone, Copy)]
pub(crate) struct Row {
    /// The kind (the row's index is its C ABI value).
    #[cfg_attr(not(test), allow(dead_code))] // the tests check the order
    pub kind: SpaceKind,
    /// What the kind means for a DualView.
    pub policy: SpacePolicy,
    /// What its addresses are to a device driver.
    pub memory: Mem,
    /// The page-locked host space a pinned mirror of this kind lives in.
    pub pinned_host: Space,
    /// The cargo feature its driver needs ("" when none).
    pub feature: &'static str,
}

const PINNED: Space = Space { kind: SpaceKind::HostPinned, ordinal: 0 };

const fn policy(host_accessible: bool, needs_mirror: bool, unified: bool, default_layout: Layout, is_device: bool, page_locked: bool) -> SpacePolicy {
    SpacePolicy { host_accessible, needs_mirror, unified, default_layout, is_device, page_locked }
}

/// The rows, in the order of the kinds' C ABI values.
const ROWS: [Row; 5] = [
    Row {
        kind: SpaceKind::Host,
        policy: policy(true, false, false, Layout::Right, false, false),
        memory: Mem::Pageable,
        pinned_host: PINNED,
        feature: "",
    },
    Row {
        kind: SpaceKind::HostPinned,
        policy: policy(true, false, false, Layout::Right, false, true),
        memory: Mem::Pinned,
        pinned_host: PINNED,
        feature: "cuda", // pinned memory belongs to CUDA device 0
    },
    Row {
        kind: SpaceKind::Cuda,
        policy: policy(false, true, false, Layout::Left, true, false),
        memory: Mem::Device,
        pinned_host: PINNED,
        feature: "cuda",
    },
    Row {
        kind: SpaceKind::CudaUvm,
        policy: policy(true, false, true, Layout::Left, true, false),
        memory: Mem::Managed,
        pinned_host: PINNED,
        feature: "cuda",
    },
    Row {
        kind: SpaceKind::TestDevice,
        policy: policy(true, true, false, Layout::Left, true, false),
        memory: Mem::Device,
        pinned_host: PINNED, // CUDA's: the request answers NoDevice without CUDA
        feature: "",
    },
];

/// The row of `kind`.
pub(crate) const fn row(kind: SpaceKind) -> Row {
    ROWS[kind as usize]
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_row_sits_at_its_kinds_abi_value() {
        for k in crate::SpaceKind::ALL {
            assert_eq!(super::row(*k).kind, *k);
            assert_eq!(super::ROWS[*k as u32 as usize].kind, *k);
        }
        assert_eq!(super::ROWS.len(), crate::SpaceKind::ALL.len());
    }
}
