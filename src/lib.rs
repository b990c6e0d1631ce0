//! # dualview
//!
//! Kokkos-style DualViews without Kokkos: one array with a host mirror and a
//! device view, shared modified flags, and sync; plus typed tensor extents
//! with mdspan semantics. Callable from Rust (this crate), C, C++ and Fortran.
//!
//! | module | holds |
//! | --- | --- |
//! | [`abi`] | every number that crosses the C boundary, written once |
//! | [`extents`] | `Const`/`Dyn` tuples, `Dims<R>`, `DynRank`, the uBLAS predicates |
//! | [`layout`] | `Layout` (Left, Right, Stride), `Mapping`, `Strides`, `Slice` |
//! | [`element`] | `Element` (plain old data), `ElemSpec`, the C `Dtype`s |
//! | [`side`] | `Side`: host mirror or device view |
//! | [`view`] | `View`: a single-space array with a reference-counted allocation |
//! | [`space`] | memory spaces as vocabulary: kinds, their policy, `Space`, `Stream` |
//! | [`memory`] | memory served: allocations, the backend table, the host and device engines, their drivers (CUDA, the test device's fake), streams |
//! | [`device_id`] | which device a process uses (Kokkos' device mapping at `initialize`) |
//! | [`dual_view`] | `RawDualView`: the untyped engine (flags, sync, regions, resize) |
//! | [`typed`] | `DualView<T, E>` with access guards |
//! | [`stats`] | transfer statistics and `DV_TRACE=1` tracing |
//! | [`report`] | the transfer report at exit (`DV_REPORT`) |
//! | [`tools`] | the Kokkos Tools interface (`KOKKOS_TOOLS_LIBS`) |
//!
//! The C ABI (`dv_` prefix, `include/dualview.h`) lives in a hidden `ffi`
//! module; docs/ARCHITECTURE.md traces a call through the layers.
//!
//! | cargo feature | default | gives |
//! | --- | --- | --- |
//! | `cuda` | on | CUDA device, managed and pinned spaces (cudarc's driver API, loaded at run time) |
//! | `ndarray` | off | guards as `ndarray::ArrayView` / `ArrayViewMut` (`array()`, `array_mut()`) |
//! | `cudarc-interop` | off | CUDA device guards as cudarc kernel arguments (`cuda()`, `cuda_mut()`), cudarc streams for `sync_*_on` |
//!
//! Guards index like arrays and deref to slices (docs/RUST.md):
//!
//! ```
//! use dualview::{s, DualView, Dims};
//! let a = DualView::<f32, Dims<2>>::new("a", Dims::from([4, 4])).unwrap();
//! a.slice(s![1, ..]).unwrap().host_mut().unwrap().fill(2.0).unwrap();
//! let h = a.host().unwrap();
//! assert_eq!(h[[1, 3]], 2.0);
//! assert_eq!(h.iter().sum::<f32>(), 8.0);
//! ```
//!
//! ```
//! use dualview::{DualView, Dims, Space};
//! let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([100, 3]).unwrap())
//!     .device(Space::test_device(0))
//!     .build()
//!     .unwrap();
//! a.fill_device(1.0).unwrap();
//! a.sync_host().unwrap();
//! a.fill_host(2.0).unwrap();
//! a.sync_device().unwrap();
//! assert_eq!(*a.device().unwrap().get([99, 2]).unwrap(), 2.0);
//! ```

#![warn(missing_docs, unsafe_op_in_unsafe_fn)]

pub mod abi;
pub mod device_id;
pub mod dual_view;
pub mod element;
mod env;
pub mod error;
pub mod extents;
#[doc(hidden)]
pub mod ffi;
pub mod layout;
pub mod memory;
pub mod side;
pub mod space;
pub mod report;
pub mod stats;
pub mod tools;
pub mod typed;
pub mod view;

pub use dual_view::{coherence::MapInfo, Access, Desc, RawDualView};
pub use element::{ElemSpec, Element};
pub use error::{Error, ErrorKind, Result};
pub use side::Side;
pub use extents::{AsIndex, Const, Dim, Dims, Dyn, DynIndex, DynRank, Extents, Rank, MAX_RANK};
pub use layout::{Layout, Mapping, Slice, Strides};
pub use space::{Space, SpaceKind, SpacePolicy, Stream};
pub use stats::Stats;
pub use typed::{Builder, DualView, SliceArg, SliceSpec, ViewMut, ViewRef};
pub use view::View;

/// README.md's Rust example, compiled and run as a doctest exactly as written.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// Shared setup of the documentation examples.
#[doc(hidden)]
pub mod doc {
    use crate::{Desc, DynRank, ElemSpec, Element, Mapping, RawDualView, Space};

    /// A zero-filled DualView labelled "A" of `T` with `extents`, its device
    /// in `device` and the space's default layout.
    pub fn raw<T: Element>(extents: &[usize], device: Space) -> RawDualView {
        let m = Mapping::new(device.default_layout(), DynRank::new(extents).expect("extents")).expect("mapping");
        RawDualView::new("A", &Desc::new(ElemSpec::of::<T>(), m, device)).expect("allocation")
    }

    /// A stream of `space`'s device (`memory::stream::create`), made at the
    /// first call for that space and kept for the process, so that an
    /// example never destroys a stream (`unsafe`) it has handed out.
    pub fn stream(space: Space) -> crate::Stream {
        static MADE: std::sync::Mutex<Vec<(Space, crate::Stream)>> = std::sync::Mutex::new(Vec::new());
        let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&(_, s)) = made.iter().find(|(sp, _)| *sp == space) {
            return s;
        }
        let s = crate::memory::stream::create(space).expect("a stream");
        made.push((space, s));
        s
    }
}
