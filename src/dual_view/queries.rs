//! What a DualView is and holds, asked without changing it: identity,
//! shape, the sync word, the coherence map's size, its views and statistics;
//! and the checks every operation starts with (fresh, writable, placement).

use super::*;

impl RawDualView {
    // ---- identity and shape -------------------------------------------------

    /// The label.
    ///
    /// ```
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// assert_eq!(a.label(), "A");
    /// ```
    pub fn label(&self) -> &str {
        &self.shared.label
    }

    /// The label of one side's view (`"A_mirror"` for a separate host mirror, as Kokkos).
    ///
    /// ```
    /// # use dualview::{Side, Space};
    /// let a = dualview::doc::raw::<f32>(&[4], Space::test_device(0));
    /// assert_eq!(a.view_label(Side::Host), "A_mirror");
    /// assert_eq!(dualview::doc::raw::<f32>(&[4], Space::HOST).view_label(Side::Host), "A");
    /// ```
    pub fn view_label(&self, side: Side) -> &str {
        self.shared.alloc_label(side)
    }

    /// The element description.
    ///
    /// ```
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// assert_eq!(a.elem().size(), 4);
    /// ```
    pub fn elem(&self) -> ElemSpec {
        self.shared.elem
    }

    /// The space of `side`.
    ///
    /// ```
    /// # use dualview::{Side, Space};
    /// let a = dualview::doc::raw::<f32>(&[4, 2], Space::test_device(0));
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
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// assert!(!a.is_single_space());
    /// ```
    pub fn is_single_space(&self) -> bool {
        self.shared.single
    }

    /// True when both sides are one allocation (single space or managed memory).
    ///
    /// ```
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// assert!(!a.is_one_allocation());
    /// ```
    pub fn is_one_allocation(&self) -> bool {
        self.shared.aliased
    }

    /// True for a handle made with [`RawDualView::as_const`].
    ///
    /// ```
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// assert!(!a.is_const() && a.as_const().is_const());
    /// ```
    pub fn is_const(&self) -> bool {
        self.const_data
    }

    /// True for a subview handle.
    ///
    /// ```
    /// use dualview::Slice;
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// assert!(a.subview(&[Slice::All, Slice::Index(0)]).unwrap().is_subview());
    /// ```
    pub fn is_subview(&self) -> bool {
        self.sub.is_some()
    }

    /// True for a subview made before its parent was resized or reallocated.
    ///
    /// ```
    /// use dualview::{DynRank, Slice};
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// let s = a.subview(&[Slice::All, Slice::Index(0)]).unwrap();
    /// a.resize(&DynRank::new(&[8, 2]).unwrap()).unwrap();
    /// assert!(s.is_stale() && !a.is_stale());
    /// ```
    pub fn is_stale(&self) -> bool {
        self.sub.as_ref().is_some_and(|s| s.generation != self.shared.generation.load(Ordering::Acquire))
    }

    /// Whether dualview owns all the memory (false for [`RawDualView::wrap`],
    /// also when it allocated the device side of a wrapped host array).
    ///
    /// ```
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// assert!(a.is_owned());
    /// ```
    pub fn is_owned(&self) -> bool {
        let st = self.shared.read();
        st.device.is_owned() && st.host.is_owned()
    }

    /// Always true for a live handle (Kokkos `is_allocated`).
    ///
    /// ```
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// assert!(a.is_allocated());
    /// ```
    pub fn is_allocated(&self) -> bool {
        true
    }

    /// How many handles share this family.
    ///
    /// ```
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// let b = a.clone();
    /// assert_eq!(a.use_count(), 2);
    /// ```
    pub fn use_count(&self) -> usize {
        Arc::strong_count(&self.shared)
    }

    /// Whether two handles belong to one family (share flags).
    ///
    /// ```
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// assert!(a.same_family(&a.clone()));
    /// ```
    pub fn same_family(&self, other: &RawDualView) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// The layout mapping of this handle (a subview's own).
    ///
    /// ```
    /// use dualview::Layout;
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// assert_eq!(a.mapping().layout(), Layout::Left);
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
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// assert_eq!(a.extents().as_slice(), &[4, 2]);
    /// ```
    pub fn extents(&self) -> DynRank {
        *self.mapping().extents()
    }

    /// A handle with const data, sharing data and flags. Through it a sync
    /// that would copy answers `ConstSync`, and everything that writes data or
    /// drops changes is refused (`InvalidArgument`): fills, view copies into
    /// it, write access, resize, realloc, `clear_sync_state`. What remains:
    /// reads, syncs with nothing to copy, `modify` (it records, writes nothing).
    ///
    /// ```
    /// use dualview::{ErrorKind, Side};
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// a.modify(Side::Device).unwrap();
    /// assert_eq!(a.as_const().sync(Side::Host).unwrap_err().kind(), ErrorKind::ConstSync);
    /// assert_eq!(a.as_const().clear_sync_state().unwrap_err().kind(), ErrorKind::InvalidArgument);
    /// ```
    pub fn as_const(&self) -> RawDualView {
        RawDualView { const_data: true, ..self.clone() }
    }

    /// The address of the family's sync-state byte (`DV_SYNC_*` values), valid
    /// while any handle of the family lives: the C++ header reads it inline
    /// for its fast paths. Read it atomically (acquire).
    ///
    /// ```
    /// use dualview::{abi::{DV_SYNC_HOST_MODIFIED, DV_SYNC_HOST_NEWER}, Side};
    /// let a = dualview::doc::raw::<u8>(&[2], dualview::Space::test_device(0));
    /// a.modify(Side::Host).unwrap();
    /// // One byte per family: every handle reads the same one, which holds `sync_state()`.
    /// assert_eq!(a.sync_state_ptr(), a.clone().sync_state_ptr());
    /// assert_eq!(a.sync_state(), DV_SYNC_HOST_MODIFIED | DV_SYNC_HOST_NEWER);
    /// ```
    pub fn sync_state_ptr(&self) -> *const u8 {
        self.shared.flags.as_ptr()
    }

    /// The family's sync-state byte now (`DV_SYNC_*` bits: Kokkos' counters
    /// and the coherence map's summary).
    ///
    /// ```
    /// use dualview::{abi::{DV_SYNC_CLEAN, DV_SYNC_DEVICE_MODIFIED, DV_SYNC_DEVICE_NEWER, DV_SYNC_PARTIAL}, Side, Slice};
    /// let a = dualview::doc::raw::<u8>(&[4], dualview::Space::test_device(0));
    /// assert_eq!(a.sync_state(), DV_SYNC_CLEAN);
    /// a.modify(Side::Device).unwrap();
    /// assert_eq!(a.sync_state(), DV_SYNC_DEVICE_MODIFIED | DV_SYNC_DEVICE_NEWER);
    /// a.subview(&[Slice::Range(0, 2)]).unwrap().sync(Side::Host).unwrap();
    /// assert_eq!(a.sync_state(), DV_SYNC_DEVICE_NEWER | DV_SYNC_PARTIAL, "counters clear, elements 2..4 still newer");
    /// ```
    pub fn sync_state(&self) -> u8 {
        self.shared.flags.load()
    }

    /// Whether the host mirror is page-locked (copied at pinned speed): in
    /// pinned memory, or registered with the CUDA driver. A registered mirror
    /// is once its background registration (or its first copying sync; after
    /// a resize, its second when the first was one large copy) is done; never for mirrors kept pageable ([`Desc::pin_mirror`]), under
    /// 256 KiB, or refused by the driver. Does not wait.
    ///
    /// ```
    /// let a = dualview::doc::raw::<f64>(&[4], dualview::Space::test_device(0));
    /// assert!(!a.is_mirror_pinned()); // only CUDA mirrors are registered
    /// ```
    pub fn is_mirror_pinned(&self) -> bool {
        self.shared.read().host.is_page_locked()
    }

    /// The family's coherence map: how many elements are newer on each side,
    /// its form (boxes or a bitmap) and the heap bytes it holds
    /// (introspection; docs/SEMANTICS.md states the bound). Does not wait.
    ///
    /// ```
    /// use dualview::{Side, Slice};
    /// let a = dualview::doc::raw::<f64>(&[1000, 3], dualview::Space::test_device(0));
    /// a.modify(Side::Device).unwrap();
    /// a.subview(&[Slice::Range(900, 1000), Slice::All]).unwrap().sync(Side::Host).unwrap();
    /// let m = a.coherence();
    /// assert_eq!((m.device_newer, m.host_newer, m.boxes, m.bitmap), (2700, 0, 1, false));
    /// ```
    pub fn coherence(&self) -> coherence::MapInfo {
        let st = self.shared.read();
        let n = st.mapping.size();
        match flags::uniform(self.shared.flags.load()) {
            _ if self.shared.single => coherence::MapInfo::default(),
            Some(c) => coherence::MapInfo {
                host_newer: if c == coherence::Cell::Host { n } else { 0 },
                device_newer: if c == coherence::Cell::Device { n } else { 0 },
                ..Default::default()
            },
            None => st.map.info(),
        }
    }

    /// The `dv_info_t.bits` of this handle (`DV_INFO_*`).
    pub(crate) fn info_bits(&self) -> u32 {
        let mut bits = 0;
        for (on, bit) in [
            (self.shared.single, DV_INFO_SINGLE_SPACE),
            (self.shared.aliased, DV_INFO_ONE_ALLOCATION),
            (self.const_data, DV_INFO_CONST),
            (self.sub.is_some(), DV_INFO_SUBVIEW),
            (self.is_owned(), DV_INFO_OWNED),
            (self.is_stale(), DV_INFO_STALE),
            (self.is_mirror_pinned(), DV_INFO_MIRROR_PINNED),
            (self.is_checked(), DV_INFO_CHECKED),
        ] {
            if on {
                bits |= bit;
            }
        }
        bits
    }

    /// The host side's block (a `Vec` adopted as the host side hands its
    /// release over to it).
    pub(crate) fn host_allocation(&self) -> Arc<Allocation> {
        self.shared.read().host.clone()
    }

    pub(crate) fn err_on(&self, e: Error, side: Option<Side>) -> Error {
        e.on(&self.shared.label, side)
    }

    #[cold]
    pub(super) fn stale_error(&self) -> Error {
        self.err_on(
            err!(Stale, "this subview was made before the parent was resized or reallocated; make it again from the parent"),
            None,
        )
    }

    pub(super) fn check_fresh(&self) -> Result<()> {
        if self.is_stale() {
            return Err(self.stale_error());
        }
        Ok(())
    }

    pub(super) fn check_writable(&self, what: &str, side: Option<Side>) -> Result<()> {
        if self.const_data {
            let whose = side.map(|s| format!("{s} ")).unwrap_or_default();
            return Err(self.err_on(
                err!(InvalidArgument, "{what}: the {whose}data of this handle is const (a const DualView)"),
                side,
            ));
        }
        Ok(())
    }

    /// This handle's mapping and offset, valid under `st`.
    pub(super) fn placement(&self, st: &State) -> Result<(Mapping, usize)> {
        match &self.sub {
            Some(s) if s.generation != st.generation => Err(self.stale_error()),
            Some(s) => Ok((s.mapping, s.offset)),
            None => Ok((st.mapping, 0)),
        }
    }

    pub(super) fn view_in(&self, st: &State, side: Side) -> Result<View> {
        let (mapping, offset) = self.placement(st)?;
        Ok(self.shared_view(st, side, mapping, offset))
    }

    pub(super) fn shared_view(&self, st: &State, side: Side, mapping: Mapping, offset: usize) -> View {
        View::from_parts(self.shared.alloc_label(side).clone(), self.shared.elem, mapping, st.side(side).clone(), offset)
    }

    /// This handle's box in the parent (the whole array for a parent).
    pub(super) fn bounds(&self, st: &State) -> IndexBox {
        match &self.sub {
            Some(s) => s.bounds,
            None => IndexBox::whole(st.mapping.extents()),
        }
    }

    /// The parent axes this handle keeps (its axis `k` is parent axis `kept_axes()[k]`).
    pub(super) fn kept_axes(&self, st: &State) -> Vec<u8> {
        match &self.sub {
            Some(s) => s.axes.clone(),
            None => (0..st.mapping.rank() as u8).collect(),
        }
    }

    /// The view of `side` (`h_view` / `d_view`), sharing the allocation. No sync, no flags.
    ///
    /// ```
    /// # use dualview::{Side, Space};
    /// let a = dualview::doc::raw::<u8>(&[2], Space::test_device(0));
    /// assert_eq!(a.view(Side::Host).unwrap().label(), "A_mirror");
    /// assert_eq!(a.view(Side::Device).unwrap().label(), "A");
    /// ```
    pub fn view(&self, side: Side) -> Result<View> {
        self.view_in(&self.shared.read(), side)
    }

    // ---- statistics --------------------------------------------------------

    /// Transfer counters of this family.
    ///
    /// ```
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// assert_eq!(a.stats().to_host.count, 0);
    /// ```
    pub fn stats(&self) -> Stats {
        self.shared.stats.get()
    }

    /// Zero this family's transfer counters.
    ///
    /// ```
    /// use dualview::Side;
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// a.modify(Side::Host).unwrap();
    /// a.sync(Side::Device).unwrap();
    /// a.reset_stats();
    /// assert_eq!(a.stats().to_device.count, 0);
    /// ```
    pub fn reset_stats(&self) {
        self.shared.stats.reset();
    }

    /// Add the transfer counters of `from`'s family to this family's (the
    /// process-wide total is unchanged): a DualView that replaces another,
    /// as a C++ resize does while copies of the old one live, keeps counting
    /// from where the old one stood. Nothing happens when both are one family.
    ///
    /// ```
    /// use dualview::Side;
    /// let a = dualview::doc::raw::<f32>(&[4], dualview::Space::test_device(0));
    /// a.modify(Side::Host).unwrap();
    /// a.sync(Side::Device).unwrap();
    /// let b = dualview::doc::raw::<f32>(&[8], dualview::Space::test_device(0));
    /// b.add_stats_from(&a);
    /// assert_eq!(b.stats().to_device.count, 1);
    /// a.add_stats_from(&a.clone());
    /// assert_eq!(a.stats().to_device.count, 1);
    /// ```
    pub fn add_stats_from(&self, from: &RawDualView) {
        if !Arc::ptr_eq(&self.shared, &from.shared) {
            self.shared.stats.add(from.stats());
        }
    }
}
