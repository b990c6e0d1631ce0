//! The untyped DualView engine: two views of one array (host mirror and
//! device), shared atomic modified flags, and sync. The typed Rust API
//! ([`crate::DualView`]) and the C ABI are thin layers over [`RawDualView`].
//!
//! One *family* (an `Arc<Shared>`) holds the label, flags, statistics and the
//! current allocations; every clone and subview is a handle on a family.
//! Rules are in `docs/SEMANTICS.md`; where we fix Kokkos, `docs/DECISIONS.md`.

mod borrow;
mod flags;

use crate::error::{bail, err, Error, Result, Side};
use crate::extents::{DynRank, Extents};
use crate::layout::{Mapping, Slice};
use crate::space::{self, Allocation, Space, Stream};
use crate::stats::{Stats, StatsCell};
use crate::view::{Elem, View};
use borrow::BorrowFlag;
use flags::{Flags, CLEAN};
use std::fmt;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Instant;

/// What an access call will do with the data. The numbers are the C ABI values
/// (`DV_ACCESS_READ | DV_ACCESS_WRITE == DV_ACCESS_READ_WRITE`).
///
/// | mode | stale side | flags afterwards |
/// | --- | --- | --- |
/// | `Read` | synced first | unchanged (clean) |
/// | `ReadWrite` | synced first | this side modified |
/// | `Write` | not copied: the other side's pending change is discarded (a subview syncs first, since it overwrites only part) | this side modified |
///
/// ```
/// use dualview::Access;
/// assert_eq!(Access::try_from(3u32).unwrap(), Access::ReadWrite);
/// assert!(Access::try_from(0u32).is_err());
/// ```
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Read only.
    Read = 1,
    /// Overwrite everything without reading.
    Write = 2,
    /// Read and write.
    ReadWrite = 3,
}

impl TryFrom<u32> for Access {
    type Error = Error;
    fn try_from(v: u32) -> Result<Access> {
        Ok(match v {
            1 => Access::Read,
            2 => Access::Write,
            3 => Access::ReadWrite,
            _ => bail!(InvalidArgument, "unknown access mode {v} (1 read, 2 write, 3 read-write)"),
        })
    }
}

/// How to create a DualView.
///
/// ```
/// use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Space};
/// let m = Mapping::new(Layout::Left, DynRank::new(&[10, 3]).unwrap()).unwrap();
/// let desc = Desc::new(Elem::of::<f64>(), m, Space::test_device(0));
/// let a = RawDualView::new("A", &desc).unwrap();
/// assert_eq!(a.mapping().span(), 30);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Desc {
    /// Element size and alignment.
    pub elem: Elem,
    /// Layout and extents (strides for LayoutStride), shared by both sides.
    pub mapping: Mapping,
    /// The device space (`Space::HOST` makes a single-space DualView).
    pub device: Space,
    /// The host mirror's space: `Space::HOST`, or `Space::host_pinned()` for a pinned mirror.
    pub host: Space,
    /// Zero-fill new memory (false: Kokkos `WithoutInitializing`).
    pub init: bool,
}

impl Desc {
    /// A description with a default host mirror and zero-filled memory.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[2]).unwrap()).unwrap();
    /// let d = Desc::new(Elem::of::<f64>(), m, Space::test_device(0));
    /// assert_eq!((d.host, d.init), (Space::HOST, true));
    /// ```
    pub fn new(elem: Elem, mapping: Mapping, device: Space) -> Desc {
        Desc { elem, mapping, device, host: device.default_mirror(), init: true }
    }
}

/// The state every handle of a family shares.
struct Shared {
    label: Arc<str>,
    /// `label + "_mirror"` when the host has its own allocation (as Kokkos).
    host_label: Arc<str>,
    elem: Elem,
    host_space: Space,
    device_space: Space,
    /// One space: one allocation, modify/sync are no-ops, need_sync is false.
    single: bool,
    /// One allocation for both sides (single space, or managed memory).
    aliased: bool,
    flags: Flags,
    /// Mirror of `State::generation`, for cheap stale-subview checks.
    generation: AtomicU64,
    borrows: [BorrowFlag; 2],
    stats: StatsCell,
    state: RwLock<State>,
}

/// What resize and realloc replace.
struct State {
    generation: u64,
    mapping: Mapping,
    host: Arc<Allocation>,
    device: Arc<Allocation>,
}

#[derive(Debug)]
struct Sub {
    generation: u64,
    mapping: Mapping,
    offset: usize,
}

/// A handle on a DualView. `clone` shares data and flags (Kokkos shallow copy).
///
/// ```
/// use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
/// let m = Mapping::new(Layout::Right, DynRank::new(&[4]).unwrap()).unwrap();
/// let a = RawDualView::new("A", &Desc::new(Elem::of::<u32>(), m, Space::test_device(0))).unwrap();
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

impl RawDualView {
    /// Allocate a DualView: both sides (one allocation when the spaces are the
    /// same), zero-filled unless `desc.init` is false, flags clean.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[8]).unwrap()).unwrap();
    /// let a = RawDualView::new("h", &Desc::new(Elem::of::<u8>(), m, Space::HOST)).unwrap();
    /// assert!(a.is_single_space());
    /// ```
    pub fn new(label: &str, desc: &Desc) -> Result<RawDualView> {
        let (single, aliased) = Self::topology(desc)?;
        let bytes = desc.elem.bytes(&desc.mapping)?;
        let device = Allocation::new(desc.device, bytes, desc.init)?;
        let host = if aliased { device.clone() } else { Allocation::new(desc.host, bytes, desc.init)? };
        Ok(Self::assemble(label, desc, single, aliased, host, device))
    }

    /// A DualView over memory the caller owns (unmanaged): never freed here,
    /// and resize/realloc answer `Unmanaged`. The two sides are assumed in sync.
    /// With one memory (single space or managed), `device` must be `None` or equal `host`.
    ///
    /// # Safety
    /// Each pointer addresses `desc.mapping.span()` elements in its space,
    /// aligned to the element, valid for reads and writes while any handle lives.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let mut host = vec![1.0f64; 4];
    /// let p = std::ptr::NonNull::new(host.as_mut_ptr() as *mut u8).unwrap();
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4]).unwrap()).unwrap();
    /// // SAFETY: `host` holds 4 f64 and outlives the handle.
    /// let w = unsafe { RawDualView::wrap("legacy", &Desc::new(Elem::of::<f64>(), m, Space::HOST), p, None) }.unwrap();
    /// assert!(!w.is_managed());
    /// drop(w);
    /// assert_eq!(host, vec![1.0; 4]);
    /// ```
    pub unsafe fn wrap(label: &str, desc: &Desc, host: NonNull<u8>, device: Option<NonNull<u8>>) -> Result<RawDualView> {
        let (single, aliased) = Self::topology(desc)?;
        let bytes = desc.elem.bytes(&desc.mapping)?;
        let align = desc.elem.align();
        for p in [Some(host), device].into_iter().flatten() {
            if p.as_ptr() as usize % align != 0 {
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
            (false, Some(d)) => d,
            (false, None) => bail!(InvalidArgument, "wrap: a two-space DualView needs a device pointer"),
        };
        // SAFETY: forwarded contract.
        let (h, d) = unsafe { (Allocation::wrap(desc.host, host, bytes), Allocation::wrap(desc.device, device, bytes)) };
        let d = if aliased { h.clone() } else { d };
        Ok(Self::assemble(label, desc, single, aliased, h, d))
    }

    fn topology(desc: &Desc) -> Result<(bool, bool)> {
        if !desc.host.is_host_accessible() || desc.host.is_managed() {
            bail!(InvalidArgument, "the host mirror cannot live in {}", desc.host);
        }
        let single = desc.device == desc.host;
        Ok((single, single || desc.device.is_managed()))
    }

    fn assemble(label: &str, desc: &Desc, single: bool, aliased: bool, host: Arc<Allocation>, device: Arc<Allocation>) -> RawDualView {
        let label: Arc<str> = label.into();
        let host_label = if aliased { label.clone() } else { format!("{label}_mirror").into() };
        let shared = Shared {
            label,
            host_label,
            elem: desc.elem,
            host_space: desc.host,
            device_space: desc.device,
            single,
            aliased,
            flags: Flags::new(single),
            generation: AtomicU64::new(0),
            borrows: Default::default(),
            stats: StatsCell::default(),
            state: RwLock::new(State { generation: 0, mapping: desc.mapping, host, device }),
        };
        RawDualView { shared: Arc::new(shared), sub: None, const_data: false }
    }

    // ---- identity and shape -------------------------------------------------

    /// The label.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// assert_eq!(a.label(), "A");
    /// ```
    pub fn label(&self) -> &str {
        &self.shared.label
    }

    /// The element description.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// assert_eq!(a.elem().size(), 4);
    /// ```
    pub fn elem(&self) -> Elem {
        self.shared.elem
    }

    /// The space of `side`.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// assert_eq!(a.space(Side::Host), Space::HOST);
    /// assert_eq!(a.space(Side::Device), Space::test_device(0));
    /// ```
    pub fn space(&self, side: Side) -> Space {
        match side {
            Side::Host => self.shared.host_space,
            Side::Device => self.shared.device_space,
        }
    }

    /// True when host and device are one space (one allocation, free modify/sync).
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// assert!(!a.is_single_space());
    /// ```
    pub fn is_single_space(&self) -> bool {
        self.shared.single
    }

    /// True when both sides are one allocation (single space or managed memory).
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// assert!(!a.is_aliased());
    /// ```
    pub fn is_aliased(&self) -> bool {
        self.shared.aliased
    }

    /// True for a handle made with [`RawDualView::as_const`].
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// assert!(!a.is_const() && a.as_const().is_const());
    /// ```
    pub fn is_const(&self) -> bool {
        self.const_data
    }

    /// True for a subview handle.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// use dualview::Slice;
    /// assert!(a.subview(&[Slice::All, Slice::Index(0)]).unwrap().is_subview());
    /// ```
    pub fn is_subview(&self) -> bool {
        self.sub.is_some()
    }

    /// False for a DualView over caller-owned memory.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// assert!(a.is_managed());
    /// ```
    pub fn is_managed(&self) -> bool {
        self.shared.read().device.is_owned()
    }

    /// Always true for a live handle (Kokkos `is_allocated`).
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// assert!(a.is_allocated());
    /// ```
    pub fn is_allocated(&self) -> bool {
        true
    }

    /// How many handles share this family.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// let b = a.clone();
    /// assert_eq!(a.use_count(), 2);
    /// ```
    pub fn use_count(&self) -> usize {
        Arc::strong_count(&self.shared)
    }

    /// Whether two handles belong to one family (share flags).
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// assert!(a.same_family(&a.clone()));
    /// ```
    pub fn same_family(&self, other: &RawDualView) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// The layout mapping of this handle (a subview's own).
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// assert_eq!(a.mapping().strides().as_slice(), &[1, 4]);
    /// ```
    pub fn mapping(&self) -> Mapping {
        match &self.sub {
            Some(s) => s.mapping,
            None => self.shared.read().mapping,
        }
    }

    /// The extents.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// assert_eq!(a.extents().as_slice(), &[4, 2]);
    /// ```
    pub fn extents(&self) -> DynRank {
        match &self.sub {
            Some(s) => *s.mapping.extents(),
            None => *self.shared.read().mapping.extents(),
        }
    }

    /// A handle with const data: a sync that would copy answers `ConstSync`,
    /// write access and fills are refused. Shares data and flags.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// a.modify(Side::Device).unwrap();
    /// assert_eq!(a.as_const().sync(Side::Host).unwrap_err().kind(), dualview::ErrorKind::ConstSync);
    /// ```
    pub fn as_const(&self) -> RawDualView {
        RawDualView { const_data: true, ..self.clone() }
    }

    fn err_on(&self, e: Error, side: Option<Side>) -> Error {
        e.on(&self.shared.label, side)
    }

    fn check_fresh(&self) -> Result<()> {
        if let Some(s) = &self.sub {
            let now = self.shared.generation.load(Ordering::Acquire);
            if s.generation != now {
                return Err(self.err_on(
                    err!(Stale, "this subview was made before the parent was resized or reallocated"),
                    None,
                ));
            }
        }
        Ok(())
    }

    fn check_writable(&self, what: &str, side: Side) -> Result<()> {
        if self.const_data {
            return Err(self.err_on(err!(InvalidArgument, "{what}: the data of this handle is const"), Some(side)));
        }
        Ok(())
    }

    /// This handle's mapping and offset, valid under `st`.
    fn placement(&self, st: &State) -> Result<(Mapping, usize)> {
        match &self.sub {
            Some(s) if s.generation != st.generation => {
                self.check_fresh()?;
                Err(self.err_on(err!(Stale, "this subview is stale"), None))
            }
            Some(s) => Ok((s.mapping, s.offset)),
            None => Ok((st.mapping, 0)),
        }
    }

    fn view_in(&self, st: &State, side: Side) -> Result<View> {
        let (mapping, offset) = self.placement(st)?;
        let alloc = match side {
            Side::Host => st.host.clone(),
            Side::Device => st.device.clone(),
        };
        Ok(View::from_parts(self.shared.alloc_label(side).clone(), self.shared.elem, mapping, alloc, offset))
    }

    /// The view of `side` (`h_view` / `d_view`), sharing the allocation. No sync, no flags.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<u8>(), m, Space::test_device(0))).unwrap();
    /// assert_eq!(a.view(Side::Host).unwrap().label(), "A_mirror");
    /// assert_eq!(a.view(Side::Device).unwrap().label(), "A");
    /// ```
    pub fn view(&self, side: Side) -> Result<View> {
        self.view_in(&self.shared.read(), side)
    }

    // ---- flags -------------------------------------------------------------

    /// Mark `side` modified. Errors with `ConcurrentModification` (flags
    /// unchanged) when the other side holds unsynced changes. Free on one space.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// a.modify(Side::Host).unwrap();
    /// assert!(a.modify(Side::Device).is_err());
    /// ```
    #[inline]
    pub fn modify(&self, side: Side) -> Result<()> {
        if self.modify_is_noop(side) {
            return Ok(());
        }
        self.modify_slow(side)
    }

    /// Whether `modify(side)` would succeed without changing anything (one load).
    #[inline(always)]
    pub(crate) fn modify_is_noop(&self, side: Side) -> bool {
        self.sub.is_none() && self.shared.flags.is_modified_already(side)
    }

    #[inline(never)]
    fn modify_slow(&self, side: Side) -> Result<()> {
        if self.sub.is_some() {
            self.check_fresh()?;
        }
        self.shared.flags.modify(side).map_err(|()| self.concurrent(side))
    }

    #[cold]
    fn concurrent(&self, side: Side) -> Error {
        self.err_on(
            err!(
                ConcurrentModification,
                "modify_{side}: concurrent modification of host and device views: the {} side holds changes \
                 not yet synced to the {side}; call sync_{side}() (keep them) or clear_sync_state() (drop them) first",
                side.other()
            ),
            Some(side),
        )
    }

    /// Whether `side` is stale (the other side is newer). Always false on one space.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// a.modify(Side::Device).unwrap();
    /// assert!(a.need_sync(Side::Host) && !a.need_sync(Side::Device));
    /// ```
    #[inline]
    pub fn need_sync(&self, side: Side) -> bool {
        self.shared.flags.is_stale(side)
    }

    /// Forget both sides' changes without copying.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// a.modify(Side::Host).unwrap();
    /// a.clear_sync_state();
    /// assert!(!a.need_sync(Side::Device));
    /// ```
    pub fn clear_sync_state(&self) {
        self.shared.flags.store(CLEAN);
    }

    /// Bring `side` up to date: copy from the other side when it is newer, then
    /// both clean. Waits for outstanding device work first, like Kokkos' fence.
    /// A subview copies only its region (and, as in Kokkos, clears the shared flags).
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// a.fill(Side::Host, &2.0f32.to_ne_bytes()).unwrap();
    /// a.sync(Side::Device).unwrap();
    /// assert_eq!(a.stats().to_device.bytes, 32);
    /// ```
    #[inline]
    pub fn sync(&self, side: Side) -> Result<()> {
        if !self.need_sync(side) {
            return Ok(());
        }
        self.sync_slow(side, None)
    }

    /// [`RawDualView::sync`] ordered on `stream`: the flags are reset at once and
    /// the copy is queued on the stream (Kokkos `sync(exec)`).
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// a.modify(Side::Host).unwrap();
    /// a.sync_on(Side::Device, dualview::Stream::null()).unwrap();
    /// assert!(!a.need_sync(Side::Device));
    /// ```
    pub fn sync_on(&self, side: Side, stream: Stream) -> Result<()> {
        if !self.need_sync(side) {
            return Ok(());
        }
        self.sync_slow(side, Some(stream))
    }

    #[cold]
    fn sync_slow(&self, target: Side, stream: Option<Stream>) -> Result<()> {
        let sh = &*self.shared;
        if self.const_data {
            return Err(self.err_on(
                err!(ConstSync, "sync_{target}: calling sync on a DualView with a const data type would write the stale {target} side"),
                Some(target),
            ));
        }
        let st = sh.write();
        if !sh.flags.is_stale(target) {
            return Ok(()); // another handle synced meanwhile
        }
        let dst = self.view_in(&st, target)?;
        let src = self.view_in(&st, target.other())?;
        if !sh.borrow(target).is_free() || !sh.borrow(target.other()).is_readable() {
            return Err(self.err_on(err!(Busy, "sync_{target}: an access guard borrows the data"), Some(target)));
        }
        let t0 = Instant::now();
        let s = stream.unwrap_or(Stream::null());
        if stream.is_none() {
            space::fence(sh.device_space).map_err(|e| self.err_on(e, Some(target)))?;
        }
        let moved = if sh.aliased {
            // SAFETY: the region is the handle's mapping inside its live allocation.
            unsafe { space::prefetch(sh.device_space, &dst.region(), target, s) }
                .map_err(|e| self.err_on(e, Some(target)))?;
            0
        } else {
            dst.copy_from_on(&src, s).map_err(|e| self.err_on(e, Some(target)))?;
            dst.size() * sh.elem.size()
        };
        // On the default stream the copy (or prefetch) is complete here: it synchronises itself.
        sh.stats.record(&sh.label, target, moved, t0.elapsed());
        sh.flags.store(CLEAN);
        drop(st);
        Ok(())
    }

    // ---- access ------------------------------------------------------------

    /// Sync `side` if stale and mark it modified for any write mode, in one
    /// call; returns the view to use (see [`Access`]).
    ///
    /// ```
    /// # use dualview::{Access, Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<u8>(), m, Space::test_device(0))).unwrap();
    /// a.access(Side::Device, Access::ReadWrite).unwrap();
    /// assert!(a.need_sync(Side::Host));
    /// a.access(Side::Host, Access::Read).unwrap();
    /// assert!(!a.need_sync(Side::Host) && !a.need_sync(Side::Device));
    /// ```
    pub fn access(&self, side: Side, mode: Access) -> Result<View> {
        match mode {
            Access::Read => self.sync(side)?,
            Access::ReadWrite => {
                self.check_writable("read-write access", side)?;
                self.sync(side)?;
                self.modify(side)?;
            }
            Access::Write if self.sub.is_some() => {
                self.check_writable("write access", side)?;
                self.sync(side)?;
                self.modify(side)?;
            }
            Access::Write => {
                self.check_writable("write access", side)?;
                self.shared.flags.store(flags::newer(side));
            }
        }
        self.view(side)
    }

    /// Refuse early (changing nothing) when `side` cannot be borrowed as asked.
    pub(crate) fn check_borrowable(&self, side: Side, exclusive: bool) -> Result<()> {
        let b = self.shared.borrow(side);
        if (exclusive && !b.is_free()) || !b.is_readable() {
            return Err(self.busy(side, exclusive));
        }
        Ok(())
    }

    #[cold]
    fn busy(&self, side: Side, exclusive: bool) -> Error {
        let how = if exclusive { "for writing " } else { "" };
        self.err_on(err!(Busy, "the {side} data cannot be borrowed {how}while an access guard holds it"), Some(side))
    }

    pub(crate) fn try_borrow(&self, side: Side, exclusive: bool) -> Result<()> {
        let b = self.shared.borrow(side);
        let ok = if exclusive { b.try_exclusive() } else { b.try_shared() };
        if !ok {
            return Err(self.busy(side, exclusive));
        }
        Ok(())
    }

    pub(crate) fn release_borrow(&self, side: Side, exclusive: bool) {
        self.shared.borrow(side).release(exclusive);
    }

    // ---- fill, subview, deep copy ------------------------------------------

    /// Set every element of `side` to `value` (one element's bytes) and mark
    /// that side modified (Kokkos `deep_copy(view, scalar)` + `modify`).
    /// `ConcurrentModification` when the other side is newer; nothing changes then.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// a.fill(Side::Device, &1.5f32.to_ne_bytes()).unwrap();
    /// assert!(a.need_sync(Side::Host));
    /// ```
    pub fn fill(&self, side: Side, value: &[u8]) -> Result<()> {
        self.check_writable("fill", side)?;
        self.check_fresh()?;
        if self.need_sync(side) {
            return Err(self.concurrent(side));
        }
        let st = self.shared.read();
        let v = self.view_in(&st, side)?;
        if !self.shared.borrow(side).is_free() {
            return Err(self.err_on(err!(Busy, "fill_{side}: an access guard borrows the data"), Some(side)));
        }
        v.fill(value).map_err(|e| self.err_on(e, Some(side)))?;
        drop(st);
        self.modify(side)
    }

    /// A subview sharing memory and flags with this handle's family.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Slice, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 4]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<u8>(), m, Space::test_device(0))).unwrap();
    /// let b = a.subview(&[Slice::Range(1, 3), Slice::Index(0)]).unwrap();
    /// b.modify(Side::Device).unwrap();
    /// assert!(a.need_sync(Side::Host));
    /// ```
    pub fn subview(&self, slices: &[Slice]) -> Result<RawDualView> {
        let st = self.shared.read();
        let (mapping, offset) = self.placement(&st)?;
        let (m, off) = mapping.subview(slices).map_err(|e| self.err_on(e, None))?;
        let sub = Sub { generation: st.generation, mapping: m, offset: offset + off };
        Ok(RawDualView { sub: Some(Arc::new(sub)), ..self.clone() })
    }

    /// Kokkos `deep_copy(DualView dst, DualView src)`: when the source's host
    /// is newer, copy host to host and mark `dst`'s host modified; otherwise
    /// copy device to device and mark `dst`'s device modified. Checks first, so
    /// a refused copy changes nothing.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// let b = RawDualView::new("B", &Desc::new(Elem::of::<f32>(), a.mapping(), Space::test_device(0))).unwrap();
    /// a.modify(Side::Host).unwrap();
    /// RawDualView::deep_copy(&b, &a).unwrap();
    /// assert!(b.need_sync(Side::Device));
    /// ```
    pub fn deep_copy(dst: &RawDualView, src: &RawDualView) -> Result<()> {
        let side = if src.need_sync(Side::Device) { Side::Host } else { Side::Device };
        dst.check_writable("deep_copy", side)?;
        dst.check_fresh()?;
        if dst.need_sync(side) {
            return Err(dst.concurrent(side));
        }
        let (d, s) = (dst.view(side)?, src.view(side)?);
        if !dst.shared.borrow(side).is_free() || !src.shared.borrow(side).is_readable() {
            return Err(dst.err_on(err!(Busy, "deep_copy: an access guard borrows the data"), Some(side)));
        }
        space::fence(d.space())?;
        space::fence(s.space())?;
        d.copy_from(&s).map_err(|e| dst.err_on(e, Some(side)))?;
        dst.modify(side)
    }

    // ---- reallocation ------------------------------------------------------

    /// Kokkos `resize`: new extents of the same rank, keeping the overlapping
    /// index range on *both* sides, each copied in its own space; new elements
    /// are zero. Flags unchanged. On failure nothing changes.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// a.resize(&DynRank::new(&[8, 2]).unwrap()).unwrap();
    /// assert_eq!(a.extents().as_slice(), &[8, 2]);
    /// ```
    pub fn resize(&self, extents: &DynRank) -> Result<()> {
        self.reallocate(extents, true, true)
    }

    /// Kokkos `realloc`: new extents of the same rank, contents dropped, both
    /// sides zero-filled when `init` (even at the same size), flags clean.
    /// On failure nothing changes.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// a.modify(Side::Host).unwrap();
    /// a.realloc(&DynRank::new(&[1, 1]).unwrap(), true).unwrap();
    /// assert!(!a.need_sync(Side::Device));
    /// ```
    pub fn realloc(&self, extents: &DynRank, init: bool) -> Result<()> {
        self.reallocate(extents, false, init)
    }

    fn reallocate(&self, extents: &DynRank, keep: bool, init: bool) -> Result<()> {
        let what = if keep { "resize" } else { "realloc" };
        let sh = &*self.shared;
        let fail = |e: Error| self.err_on(e, None);
        if self.sub.is_some() {
            return Err(fail(err!(InvalidArgument, "{what} of a subview: resize the parent DualView instead")));
        }
        let mut st = sh.write();
        if !st.device.is_owned() {
            return Err(fail(err!(Unmanaged, "{what}: the memory is owned by the caller (dv_wrap)")));
        }
        let old = st.mapping;
        if extents.rank() != old.rank() {
            return Err(fail(err!(RankMismatch, "{what} from rank {} to rank {}: the rank cannot change", old.rank(), extents.rank())));
        }
        extents.check().map_err(fail)?;
        if !sh.borrows.iter().all(BorrowFlag::is_free) {
            return Err(fail(err!(Busy, "{what}: an access guard borrows the data")));
        }
        if old.extents() == extents {
            if !keep {
                if init {
                    let zero = vec![0u8; sh.elem.size()];
                    for side in [Side::Host, Side::Device].into_iter().take(if sh.aliased { 1 } else { 2 }) {
                        self.view_in(&st, side)?.fill(&zero).map_err(fail)?;
                    }
                }
                sh.flags.store(CLEAN);
            }
            return Ok(());
        }
        let mapping = old.with_extents(*extents).map_err(fail)?;
        let bytes = sh.elem.bytes(&mapping).map_err(fail)?;
        let device = Allocation::new(sh.device_space, bytes, init).map_err(fail)?;
        let host = if sh.aliased { device.clone() } else { Allocation::new(sh.host_space, bytes, init).map_err(fail)? };
        if keep {
            self.copy_overlap(&st, &mapping, &host, &device).map_err(fail)?;
        }
        st.mapping = mapping;
        st.host = host;
        st.device = device;
        st.generation += 1;
        sh.generation.store(st.generation, Ordering::Release);
        if !keep {
            sh.flags.store(CLEAN);
        }
        Ok(())
    }

    /// Copy the index range that `st` and `mapping` share, side by side, from
    /// the current allocations into `host` / `device` (laid out by `mapping`).
    fn copy_overlap(&self, st: &State, mapping: &Mapping, host: &Arc<Allocation>, device: &Arc<Allocation>) -> Result<()> {
        let sh = &*self.shared;
        let overlap: Vec<Slice> = st
            .mapping
            .extents()
            .as_slice()
            .iter()
            .zip(mapping.extents().as_slice())
            .map(|(&a, &b)| Slice::Range(0, a.min(b)))
            .collect();
        let sides: &[(Side, &Arc<Allocation>)] =
            if sh.aliased { &[(Side::Device, device)] } else { &[(Side::Host, host), (Side::Device, device)] };
        space::fence(sh.device_space)?;
        for &(side, new_alloc) in sides {
            let from = self.view_in(st, side)?.subview(&overlap)?;
            let to = View::from_parts(sh.alloc_label(side).clone(), sh.elem, *mapping, new_alloc.clone(), 0)
                .subview(&overlap)?;
            to.copy_from(&from)?; // synchronous: complete on return
        }
        Ok(())
    }

    /// Kokkos-style resize into a *new* DualView: same label, element, layout
    /// and spaces, the overlapping index range of both sides copied, the flags
    /// copied. This handle and its family are untouched, so views taken from
    /// it stay valid (what the C++ wrapper's value semantics need).
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<u8>(), m, Space::test_device(0))).unwrap();
    /// a.fill(Side::Host, &[7]).unwrap();
    /// let b = a.resized(&DynRank::new(&[4]).unwrap()).unwrap();
    /// assert!(!a.same_family(&b) && b.need_sync(Side::Device));
    /// assert_eq!(a.extents().as_slice(), &[2]);
    /// ```
    pub fn resized(&self, extents: &DynRank) -> Result<RawDualView> {
        let sh = &*self.shared;
        let fail = |e: Error| self.err_on(e, None);
        if self.sub.is_some() {
            return Err(fail(err!(InvalidArgument, "resize of a subview: resize the parent DualView instead")));
        }
        let st = sh.read();
        if extents.rank() != st.mapping.rank() {
            return Err(fail(err!(RankMismatch, "resize from rank {} to rank {}: the rank cannot change", st.mapping.rank(), extents.rank())));
        }
        if !sh.borrows.iter().all(BorrowFlag::is_readable) {
            return Err(fail(err!(Busy, "resize: an access guard borrows the data for writing")));
        }
        let mapping = st.mapping.with_extents(*extents).map_err(fail)?;
        let desc = Desc { elem: sh.elem, mapping, device: sh.device_space, host: sh.host_space, init: true };
        let new = RawDualView::new(&sh.label, &desc)?;
        {
            let nst = new.shared.read();
            self.copy_overlap(&st, &mapping, &nst.host, &nst.device).map_err(fail)?;
        }
        new.shared.flags.store(sh.flags.load());
        Ok(new)
    }

    // ---- statistics --------------------------------------------------------

    /// Transfer counters of this family.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// assert_eq!(a.stats().to_host.count, 0);
    /// ```
    pub fn stats(&self) -> Stats {
        self.shared.stats.get()
    }

    /// Zero this family's transfer counters.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, Elem, Layout, Mapping, RawDualView, Side, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 2]).unwrap()).unwrap();
    /// let a = RawDualView::new("A", &Desc::new(Elem::of::<f32>(), m, Space::test_device(0))).unwrap();
    /// a.modify(Side::Host).unwrap();
    /// a.sync(Side::Device).unwrap();
    /// a.reset_stats();
    /// assert_eq!(a.stats().to_device.count, 0);
    /// ```
    pub fn reset_stats(&self) {
        self.shared.stats.reset();
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
