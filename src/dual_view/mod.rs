//! The untyped DualView engine: two views of one array (host mirror and
//! device), shared atomic modified flags, and sync. The typed Rust API
//! ([`crate::DualView`]) and the C ABI are thin layers over [`RawDualView`].
//!
//! One *family* (an `Arc<Shared>`) holds the label, flags, statistics and the
//! current allocations; every clone and subview is a handle on a family.
//! Rules are in `docs/SEMANTICS.md`; where we fix Kokkos, `docs/DECISIONS.md`.
//!
//! | file | holds |
//! | --- | --- |
//! | `mod.rs` | the handle and family types, construction, identity and shape |
//! | `desc.rs` | [`Desc`]: how to create one |
//! | `flags.rs` | the flag word: Kokkos' counters and the map's summary |
//! | `regions.rs` | index boxes: where a subview sits |
//! | `coherence/` | the coherence map: clean, host-newer or device-newer, per element |
//! | `borrow.rs` | run-time borrows of each side (guards, and writers while they write) |
//! | `exclusive.rs` | `exclusive::Exclusive`, the proof of held borrows that every write of array memory needs |
//! | `sync.rs` | modify, need_sync, sync, clear_sync_state |
//! | `checked.rs` | checked mode: each side's record, verified at every flag call |
//! | `in_flight.rs` | copies queued on streams that may still run, and who waits for them |
//! | `access.rs` | [`Access`] modes, access with a mode, guard borrows |
//! | `copy.rs` | fill, deep copy, view fill and copy |
//! | `realloc.rs` | resize, realloc, resized |
//! | `subview.rs` | subviews |
//!
//! Locking: the family's `RwLock<State>` is held exclusively by every call
//! that writes data or replaces allocations, and shared by calls that only
//! read data; two families are locked in address order.

mod access;
mod borrow;
mod checked;
pub mod coherence;
mod copy;
mod desc;
mod exclusive;
pub(crate) mod flags;
mod in_flight;
mod queries;
mod realloc;
mod regions;
mod subview;
mod sync;

use crate::abi::*;
use crate::element::ElemSpec;
use crate::error::{bail, err, Error, Result};
use crate::extents::DynRank;
use crate::layout::Mapping;
use crate::side::Side;
use crate::memory::Allocation;
use crate::space::Space;
use crate::stats::{Stats, StatsCell};
use crate::view::View;
use borrow::BorrowFlag;
use flags::Flags;
use regions::IndexBox;
use std::fmt;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

pub use access::Access;
pub use desc::Desc;

/// When a new host mirror is registered with the device's driver.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Registering {
    /// In the background at once (a created DualView).
    Now,
    /// At the first copying sync (a resized one), or the second when the
    /// first is one large copy (DECISIONS G25).
    AtFirstSync,
}

/// The state every handle of a family shares.
struct Shared {
    label: Arc<str>,
    /// `label + "_mirror"` when the host has its own allocation (as Kokkos).
    host_label: Arc<str>,
    elem: ElemSpec,
    host_space: Space,
    device_space: Space,
    /// One space: one allocation, modify/sync are no-ops, need_sync is false.
    single: bool,
    /// One allocation for both sides (single space, or managed memory).
    aliased: bool,
    /// Register the pageable host mirror with the device space's driver (see
    /// [`Desc::pin_mirror`]): asked for, and the device space registers mirrors.
    pin_mirror: bool,
    flags: Flags,
    /// Mirror of `State::generation`, for cheap stale-subview checks.
    generation: AtomicU64,
    borrows: [BorrowFlag; 2],
    stats: StatsCell,
    /// Checked mode's record of both sides (`checked.rs`; boxed: most DualViews are not checked); `None`: not checked.
    check: Option<Box<std::sync::Mutex<checked::Record>>>,
    state: RwLock<State>,
}

/// What resize and realloc replace, and the record of modified regions.
struct State {
    generation: u64,
    mapping: Mapping,
    host: Arc<Allocation>,
    device: Arc<Allocation>,
    /// The coherence map's detail: which elements are clean, host-newer or
    /// device-newer. Meaningful while the flag byte says `PARTIAL`; a
    /// uniform byte (stored lock-free) overrides it ([`RawDualView::map_locked`]).
    map: coherence::Map,
    /// Copies queued on streams that may still run (`in_flight.rs`).
    in_flight: Vec<in_flight::InFlight>,
}

impl State {
    /// The allocation of `side` (one for both when they share memory).
    fn side(&self, side: Side) -> &Arc<Allocation> {
        match side {
            Side::Host => &self.host,
            Side::Device => &self.device,
        }
    }
}

/// Where a subview sits: its own mapping and offset, and its box in the parent.
#[derive(Debug)]
struct Sub {
    generation: u64,
    mapping: Mapping,
    offset: usize,
    bounds: IndexBox,
    /// Subview axis `k` is parent axis `axes[k]`.
    axes: Vec<u8>,
}

/// A handle on a DualView. `clone` shares data and flags (Kokkos shallow copy).
///
/// ```
/// use dualview::{Side, Space};
/// let a = dualview::doc::raw::<u32>(&[4], Space::test_device(0));
/// let b = a.clone();
/// a.modify(Side::Host).unwrap();
/// assert!(b.need_sync(Side::Device));
/// b.sync(Side::Device).unwrap();
/// assert!(!a.need_sync(Side::Device));
/// ```
#[derive(Clone)]
pub struct RawDualView {
    shared: Arc<Shared>,
    /// Boxed behind an `Arc` so that a handle stays three words.
    sub: Option<Arc<Sub>>,
    const_data: bool,
}

impl Shared {
    /// A new (or grown) host mirror: registered with the device space's
    /// driver (docs/GPU.md). A created one in the background, while the
    /// program fills it; one from a resize at its first copying sync (or its
    /// second, after one large copy), since resizes come in runs and the
    /// driver's registration stalls every other driver call while it runs
    /// (docs/DECISIONS.md G10, G25).
    fn adopt_mirror(&self, host: &Arc<Allocation>, how: Registering) {
        if self.pin_mirror && how == Registering::Now {
            host.start_registration();
        }
    }

    /// The device space a new mirror of this family registers with (`None`: it does not).
    fn mirror_registers_with(&self) -> Option<Space> {
        self.pin_mirror.then_some(self.device_space)
    }

    /// Whether the host side is pageable memory for the next copy: a mirror
    /// that registers is registered first (waiting for one under way), as a
    /// copying sync does.
    fn mirror_is_pageable(&self, st: &State) -> bool {
        if self.pin_mirror {
            st.host.ensure_registered_for_stream();
        }
        st.host.is_pageable_host()
    }

    /// Count one call that moved `bytes` (`moved`; `from`: a copy's source
    /// label): the family's and the process's statistics, `DV_TRACE`, and
    /// the transfer report when asked for (`DV_REPORT`).
    fn record_moved(&self, moved: crate::stats::Moved, bytes: usize, elapsed: std::time::Duration, from: &str) {
        self.stats.record(&self.label, moved, bytes, elapsed, from);
        crate::report::record(&self.label, self.device_space, moved, bytes, elapsed.as_nanos().min(u64::MAX as u128) as u64);
    }

    fn read(&self) -> RwLockReadGuard<'_, State> {
        // A panic never leaves State half-updated (fields are swapped last), so poisoning is ignored.
        self.state.read().unwrap_or_else(|e| e.into_inner())
    }
    fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|e| e.into_inner())
    }
    fn borrow(&self, side: Side) -> &BorrowFlag {
        &self.borrows[if self.aliased { 0 } else { side as usize }]
    }
    fn alloc_label(&self, side: Side) -> &Arc<str> {
        match side {
            Side::Host => &self.host_label,
            Side::Device => &self.label,
        }
    }
}

/// Lock two families for a copy into `dst`: `dst` exclusively, `src` shared,
/// or one exclusive lock when they are one family. Address order keeps two
/// opposite copies from deadlocking.
fn lock_pair<'a>(dst: &'a Shared, src: &'a Shared) -> (RwLockWriteGuard<'a, State>, Option<RwLockReadGuard<'a, State>>) {
    if std::ptr::eq(dst, src) {
        (dst.write(), None)
    } else if (dst as *const Shared) < (src as *const Shared) {
        let d = dst.write();
        (d, Some(src.read()))
    } else {
        let s = src.read();
        (dst.write(), Some(s))
    }
}

impl RawDualView {
    /// Allocate a DualView: both sides (one allocation when the spaces are the
    /// same, or the device memory is managed), zero-filled unless `desc.init`
    /// is false, flags clean.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, ElemSpec, Layout, Mapping, RawDualView, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[8]).unwrap()).unwrap();
    /// let a = RawDualView::new("h", &Desc::new(ElemSpec::of::<u8>(), m, Space::HOST)).unwrap();
    /// assert!(a.is_single_space());
    /// ```
    pub fn new(label: &str, desc: &Desc) -> Result<RawDualView> {
        Self::new_registering(label, desc, Registering::Now)
    }

    /// [`RawDualView::new`], its mirror registered as `how` says.
    fn new_registering(label: &str, desc: &Desc, how: Registering) -> Result<RawDualView> {
        let (single, aliased) = Self::topology(desc)?;
        let bytes = desc.elem.bytes(&desc.mapping)?;
        let (label, host_label) = Self::labels(label, aliased);
        let device = Allocation::new(desc.device, bytes, desc.init, &label)?;
        // The one question whether the mirror registers (DECISIONS G13): asked here, kept by the family.
        let registers = desc.pin_mirror && !aliased && desc.device.registers_mirror(desc.host);
        let host = if aliased { device.clone() } else { Allocation::new_mirror(desc.host, bytes, registers.then_some(desc.device), desc.init, &host_label)? };
        let dv = Self::assemble(label, host_label, desc, (single, aliased, registers), host, device);
        dv.shared.adopt_mirror(&dv.shared.read().host, how);
        dv.record_locked(&mut dv.shared.write(), checked::Wrote::Everything)?;
        Ok(dv)
    }

    /// A DualView over memory the caller owns (unmanaged): never freed here,
    /// and resize/realloc answer `Unmanaged`. The two sides are assumed in sync.
    /// With one memory (single space or managed), `device` must be `None` or
    /// equal `host`; with two, the ranges must not overlap. With two spaces
    /// and `device` `None`, the caller's array becomes the host side and the
    /// device side is allocated here (owned, freed with the last handle),
    /// with the host marked modified: the first `sync(Device)` copies the
    /// array over (issue 20: adopt a legacy array).
    ///
    /// # Safety
    /// Each pointer addresses `desc.mapping.span()` elements in its space,
    /// aligned to the element, valid for reads and writes while any handle lives.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, ElemSpec, Layout, Mapping, RawDualView, Side, Space};
    /// let mut host = vec![1.0f64; 4];
    /// let p = std::ptr::NonNull::new(host.as_mut_ptr() as *mut u8).unwrap();
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4]).unwrap()).unwrap();
    /// // SAFETY: `host` holds 4 f64 and outlives the handle.
    /// let w = unsafe { RawDualView::wrap("legacy", &Desc::new(ElemSpec::of::<f64>(), m, Space::HOST), p, None) }.unwrap();
    /// assert!(!w.is_owned());
    /// drop(w);
    /// assert_eq!(host, vec![1.0; 4]);
    /// ```
    pub unsafe fn wrap(label: &str, desc: &Desc, host: NonNull<u8>, device: Option<NonNull<u8>>) -> Result<RawDualView> {
        let (single, aliased) = Self::topology(desc)?;
        desc.device.probe()?;
        desc.host.probe()?;
        let bytes = desc.elem.bytes(&desc.mapping)?;
        let align = desc.elem.align();
        for p in [Some(host), device].into_iter().flatten() {
            if !(p.as_ptr() as usize).is_multiple_of(align) {
                bail!(InvalidArgument, "wrap: pointer {p:p} is not aligned to {align} bytes");
            }
        }
        let device = match (aliased, device) {
            (true, None) => host,
            (true, Some(d)) if d == host => host,
            (true, Some(d)) => bail!(
                InvalidArgument,
                "wrap: host and device share one memory here, but two pointers were given ({host:p}, {d:p})"
            ),
            (false, Some(d)) => {
                let (h0, d0) = (host.as_ptr() as usize, d.as_ptr() as usize);
                if bytes > 0 && h0 < d0.saturating_add(bytes) && d0 < h0.saturating_add(bytes) {
                    bail!(
                        InvalidArgument,
                        "wrap: the host range {host:p}+{bytes} and the device range {d:p}+{bytes} overlap; \
                         a two-space DualView needs two distinct arrays"
                    );
                }
                d
            }
            // SAFETY: forwarded contract.
            (false, None) => return unsafe { Self::adopt_host(label, desc, host, bytes) },
        };
        let (label, host_label) = Self::labels(label, aliased);
        // SAFETY: forwarded contract.
        let (h, d) = unsafe {
            (Allocation::wrap(desc.host, host, bytes, &host_label), Allocation::wrap(desc.device, device, bytes, &label))
        };
        let d = if aliased { h.clone() } else { d };
        let dv = Self::assemble(label, host_label, desc, (single, aliased, false), h, d);
        dv.shared.adopt_mirror(&dv.shared.read().host, Registering::Now);
        dv.record_locked(&mut dv.shared.write(), checked::Wrote::Everything)?;
        Ok(dv)
    }

    /// [`RawDualView::wrap`] of a host array alone, over two spaces: the
    /// device side allocated, the host marked modified.
    ///
    /// # Safety
    /// As `wrap` for `host`, of `bytes` bytes.
    unsafe fn adopt_host(label: &str, desc: &Desc, host: NonNull<u8>, bytes: usize) -> Result<RawDualView> {
        let (label, host_label) = Self::labels(label, false);
        // Zeroed, so that no read of it (before the first sync) meets garbage.
        let device = Allocation::new(desc.device, bytes, true, &label)?;
        // SAFETY: forwarded contract.
        let h = unsafe { Allocation::wrap(desc.host, host, bytes, &host_label) };
        let dv = Self::assemble(label, host_label, desc, (false, false, false), h, device);
        dv.shared.flags.store(flags::whole(Side::Host));
        dv.record_locked(&mut dv.shared.write(), checked::Wrote::Everything)?;
        Ok(dv)
    }

    fn topology(desc: &Desc) -> Result<(bool, bool)> {
        let single = desc.device == desc.host;
        if !single && (!desc.host.is_host_accessible() || desc.host.is_unified()) {
            bail!(InvalidArgument, "the host mirror cannot live in {}", desc.host);
        }
        Ok((single, single || desc.device.is_unified()))
    }

    fn labels(label: &str, aliased: bool) -> (Arc<str>, Arc<str>) {
        let label: Arc<str> = label.into();
        let host_label = if aliased { label.clone() } else { format!("{label}_mirror").into() };
        (label, host_label)
    }

    /// `topology`: (single space, aliased, the mirror registers).
    fn assemble(
        label: Arc<str>,
        host_label: Arc<str>,
        desc: &Desc,
        topology: (bool, bool, bool),
        host: Arc<Allocation>,
        device: Arc<Allocation>,
    ) -> RawDualView {
        let (single, aliased, registers) = topology;
        let shared = Shared {
            label,
            host_label,
            elem: desc.elem,
            host_space: desc.host,
            device_space: desc.device,
            single,
            aliased,
            pin_mirror: registers,
            flags: Flags::new(single),
            generation: AtomicU64::new(0),
            borrows: Default::default(),
            stats: StatsCell::default(),
            // One memory has nothing to compare.
            check: (desc.checked && !aliased).then(Default::default),
            state: RwLock::new(State {
                generation: 0,
                mapping: desc.mapping,
                host,
                device,
                map: coherence::Map::new(&desc.mapping),
                in_flight: Vec::new(),
            }),
        };
        RawDualView { shared: Arc::new(shared), sub: None, const_data: false }
    }
}

impl fmt::Debug for RawDualView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RawDualView")
            .field("label", &self.label())
            .field("device", &self.shared.device_space)
            .field("host", &self.shared.host_space)
            .field("extents", &self.extents().as_slice())
            .field("flags", &self.shared.flags.load())
            .field("subview", &self.sub.is_some())
            .finish()
    }
}
