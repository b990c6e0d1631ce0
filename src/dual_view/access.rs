//! Access with a mode (sync-if-stale and mark-on-write in one call), and the
//! borrows the Rust guards hold.

use super::borrow::Region;
use super::checked::{Call, Wrote};
use super::coherence::Cell;
use super::flags::whole;
use super::RawDualView;
use crate::abi::*;
use crate::error::{err, Error, Result};
use crate::side::Side;
use crate::view::View;

abi_enum! {
    /// What an access call will do with the data. The numbers are the C ABI values
    /// (`DV_ACCESS_READ | DV_ACCESS_WRITE == DV_ACCESS_READ_WRITE`).
    ///
    /// | mode | stale side | flags afterwards |
    /// | --- | --- | --- |
    /// | `Read` | synced first | unchanged (clean) |
    /// | `ReadWrite`, `Write` | synced first (nothing is lost, as SYCL 2020) | this side modified |
    /// | `Overwrite` | not copied: the other side's pending change in the handle's box is discarded | this side modified (Kokkos' other counter cleared) |
    ///
    /// ```
    /// use dualview::Access;
    /// assert_eq!(Access::try_from(3u32).unwrap(), Access::ReadWrite);
    /// assert!(Access::try_from(0u32).is_err());
    /// ```
    pub enum Access ("access mode") {
        /// Read only.
        Read = DV_ACCESS_READ => "read",
        /// Write (the stale side is synced first, so nothing is lost).
        Write = DV_ACCESS_WRITE => "write",
        /// Read and write.
        ReadWrite = DV_ACCESS_READ_WRITE => "read-write",
        /// Overwrite the handle's box without reading: the other side's change there is discarded.
        Overwrite = DV_ACCESS_OVERWRITE => "overwrite",
    }
}

impl RawDualView {
    /// Sync `side` if stale and mark it modified for any write mode, in one
    /// call; returns the view to use (see [`Access`]).
    ///
    /// ```
    /// use dualview::{Access, Side};
    /// let a = dualview::doc::raw::<u8>(&[2], dualview::Space::test_device(0));
    /// a.access(Side::Device, Access::ReadWrite).unwrap();
    /// assert!(a.need_sync(Side::Host));
    /// a.access(Side::Host, Access::Read).unwrap();
    /// assert!(!a.need_sync(Side::Host) && !a.need_sync(Side::Device));
    /// ```
    pub fn access(&self, side: Side, mode: Access) -> Result<View> {
        if self.shared.single {
            // One space never syncs, and its flag word stays ONE_SPACE: a copy queued into it
            // (view_copy_on) is waited for here.
            self.settle_locked(&mut self.shared.write())?;
        }
        match mode {
            Access::Read => self.sync(side)?,
            Access::ReadWrite | Access::Write => {
                self.check_writable(if mode == Access::Write { "write access" } else { "read-write access" }, Some(side))?;
                self.sync(side)?;
                self.modify(side)?;
            }
            Access::Overwrite => {
                self.check_writable("overwrite access", Some(side))?;
                let mut st = self.shared.write();
                self.settle_locked(&mut st)?; // a queued copy must not land on what the caller writes now
                self.placement(&st)?;
                self.verify_locked(&mut st, Call::Overwrite(side))?;
                self.trace_dropped(&mut st, side);
                if self.sub.is_none() {
                    st.map.set_uniform(Cell::newer(side));
                    self.shared.flags.store(whole(side));
                } else {
                    let b = self.bounds(&st);
                    self.mark_box_locked(&mut st, side, &b, true)?;
                }
                self.record_locked(&mut st, Wrote::Nothing)?;
            }
        }
        self.view(side)
    }

    /// `DV_TRACE`: an overwrite access of `side` discards the other side's pending change.
    fn trace_dropped(&self, st: &mut super::State, side: Side) {
        if !crate::stats::trace_enabled() {
            return;
        }
        self.map_locked(st);
        let b = self.bounds(st);
        let n: usize = st.map.parts(&b, Cell::newer(side.other())).map_or(0, |p| p.iter().map(|x| x.len()).sum());
        if n > 0 {
            crate::stats::trace(format_args!(
                "\"{}\": an overwrite access of the {side} side discards {n} element(s) newer on the {} side, which \
                 no sync had copied (DV_ACCESS_OVERWRITE; DV_ACCESS_WRITE would have synced them first)",
                self.shared.label,
                side.other()
            ));
        }
    }

    /// What a guard of this handle borrows: its subview's box, or the whole array.
    fn region(&self) -> Region {
        self.sub.as_ref().map(|s| s.bounds)
    }

    /// Refuse early (changing nothing) when `side` cannot be borrowed as asked.
    pub(crate) fn check_borrowable(&self, side: Side, exclusive: bool) -> Result<()> {
        if !self.shared.borrow(side).can_take(self.region(), exclusive) {
            return Err(self.busy(side, exclusive));
        }
        Ok(())
    }

    #[cold]
    pub(super) fn busy(&self, side: Side, exclusive: bool) -> Error {
        let how = if exclusive { "written" } else { "read" };
        self.err_on(
            err!(Busy, "the {side} data cannot be {how} now: an access guard or another call holds it (or an overlapping region of it)"),
            Some(side),
        )
    }

    /// Take a guard's borrow of `side` (released with [`RawDualView::release_borrow`]).
    pub(crate) fn try_borrow(&self, side: Side, exclusive: bool) -> Result<()> {
        if !self.shared.borrow(side).try_take(self.region(), exclusive) {
            return Err(self.busy(side, exclusive));
        }
        Ok(())
    }

    /// Release a borrow taken with [`RawDualView::try_borrow`].
    pub(crate) fn release_borrow(&self, side: Side, exclusive: bool) {
        self.shared.borrow(side).release(self.region(), exclusive);
    }
}
