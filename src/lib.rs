//! # dualview
//!
//! Kokkos-style DualViews without Kokkos: one array with a host mirror and a
//! device view, shared modified flags, and sync; plus typed tensor extents
//! with mdspan semantics. Callable from Rust (this crate), C, C++ and Fortran.
//!
//! | module | holds |
//! | --- | --- |
//! | [`extents`] | `Const`/`Dyn` tuples, `Dims<R>`, `DynRank`, the uBLAS predicates |
//! | [`layout`] | `Layout` (Left, Right, Stride), `Mapping`, `Slice` |
//! | [`view`] | `View`: a single-space array with a reference-counted allocation |
//! | [`space`] | memory spaces and their backends (host, test device, CUDA device / managed / pinned) |
//! | [`ffi`] | the C ABI (`dv_` prefix) behind `include/dualview.h` |
//! | [`dual_view`] | `RawDualView`: the untyped engine (flags, sync, resize) |
//! | [`typed`] | `DualView<T, E>` with access guards |
//! | [`stats`] | transfer statistics and `DV_TRACE=1` tracing |
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
//! assert_eq!(*a.device().unwrap().get(&[99, 2]).unwrap(), 2.0);
//! ```

#![warn(missing_docs, unsafe_op_in_unsafe_fn)]

pub mod dual_view;
pub mod element;
pub mod error;
pub mod ffi;
pub mod extents;
pub mod layout;
pub mod space;
pub mod stats;
pub mod typed;
pub mod view;

pub use dual_view::{Access, Desc, RawDualView};
pub use element::Element;
pub use error::{Error, ErrorKind, Result, Side};
pub use extents::{Const, Dim, Dims, Dyn, DynRank, Extents, MAX_RANK};
pub use layout::{Layout, Mapping, Slice, Strides};
pub use space::{Space, SpaceKind, Stream};
pub use stats::Stats;
pub use typed::{Builder, DualView, ViewMut, ViewRef};
pub use view::{Elem, View};
