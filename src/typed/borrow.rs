//! [`Borrow`]: the state both guard kinds share. It holds the run-time borrow
//! of one side (released on drop), the view that keeps the allocation
//! alive, and the pointer, extents and strides that indexing reads. What it
//! lends through that pointer (elements, slices, iterators) is in raw.rs.

use crate::dual_view::RawDualView;
use crate::error::{err, Error, Result};
use crate::extents::{Extents, MAX_RANK};
use crate::side::Side;
use crate::view::View;

/// Shared state of both guard kinds; releases the borrow on drop.
pub(super) struct Borrow<'a> {
    dv: &'a RawDualView,
    pub(super) side: Side,
    pub(super) view: View,
    exclusive: bool,
    /// Cached from `view` for the indexing hot path.
    pub(super) ptr: *mut u8,
    pub(super) rank: usize,
    pub(super) ext: [usize; MAX_RANK],
    pub(super) strides: [usize; MAX_RANK],
    /// `ext` when the host can read the memory, zeros otherwise: one bounds
    /// check per axis also refuses host access to device memory.
    pub(super) bounds: [usize; MAX_RANK],
    pub(super) len: usize,
    pub(super) host_ok: bool,
    pub(super) contiguous: bool,
}

impl<'a> Borrow<'a> {
    /// Whether the borrow is exclusive (set once, by `new`): what lends `&mut`.
    pub(super) fn is_exclusive(&self) -> bool {
        self.exclusive
    }

    pub(super) fn new<E: Extents>(dv: &'a RawDualView, side: Side, view: View, exclusive: bool) -> Result<Self> {
        E::try_from_extents(view.extents()).map_err(|e| dv.err_on(e, Some(side)))?;
        dv.try_borrow(side, exclusive)?;
        let m = *view.mapping();
        let rank = m.rank();
        let (mut ext, mut strides) = ([0; MAX_RANK], [0; MAX_RANK]);
        ext[..rank].copy_from_slice(m.extents().as_slice());
        strides[..rank].copy_from_slice(&m.strides().as_slice()[..rank]);
        let host_ok = view.space().is_host_accessible();
        Ok(Borrow {
            dv,
            side,
            ptr: view.data(),
            host_ok,
            bounds: if host_ok { ext } else { [0; MAX_RANK] },
            contiguous: view.span_is_contiguous(),
            len: m.size(),
            rank,
            ext,
            strides,
            view,
            exclusive,
        })
    }

    #[cold]
    #[inline(never)]
    pub(super) fn not_host_accessible(&self) -> Error {
        let e = err!(Incompatible, "{} memory in {} is not accessible from the host", self.side, self.view.space());
        self.dv.err_on(e, Some(self.side))
    }

    /// The offset of `idx`, or `None` when the rank or a bound is wrong.
    #[inline(always)]
    pub(super) fn locate(&self, idx: &[usize]) -> Option<usize> {
        if idx.len() != self.rank {
            return None;
        }
        let mut off = 0;
        for ((&i, &e), &s) in idx.iter().zip(&self.ext).zip(&self.strides) {
            if i >= e {
                return None;
            }
            off += i * s;
        }
        Some(off)
    }

    #[inline]
    pub(super) fn offset(&self, idx: &[usize]) -> Result<usize> {
        match self.locate(idx) {
            Some(off) => Ok(off),
            None => Err(self.bad_index(idx)),
        }
    }

    /// The error of `get`, `get_mut` and `set` for an index `locate`
    /// refused: the mapping's (`OutOfRange`, `RankMismatch`) with the index
    /// and the side in the message, and the label attached, as the other
    /// errors of a guard.
    #[cold]
    #[inline(never)]
    pub(super) fn bad_index(&self, idx: &[usize]) -> Error {
        let e = self.view.mapping().offset(idx).expect_err("locate refused it");
        let e = Error::new(e.kind(), format!("the {} view at {idx:?}: {}", self.side, e.message()));
        self.dv.err_on(e, Some(self.side))
    }

    pub(super) fn contiguous_len(&self) -> Result<usize> {
        if !self.contiguous {
            let e = err!(InvalidArgument, "the {} view is not contiguous (use iter, indexed, get or to_vec)", self.side);
            return Err(self.dv.err_on(e, Some(self.side)));
        }
        Ok(self.len)
    }

    #[cold]
    #[track_caller]
    pub(super) fn span_panic(e: Error) -> ! {
        panic!("{e}")
    }

    pub(super) fn walk_parts(&self) -> (&[usize], &[usize]) {
        (&self.ext[..self.rank], &self.strides[..self.rank])
    }
}

/// The panic of `[]`. Takes copies, not the guard, so that the guard's
/// address never escapes the indexing loop (its fields stay in registers).
#[cold]
#[inline(never)]
#[track_caller]
pub(super) fn index_fail(idx: &[usize], ext: [usize; MAX_RANK], rank: usize, host_ok: bool) -> ! {
    if !host_ok {
        panic!("indexing a guard of memory the host cannot read (a CUDA device view): use a kernel, or the host side");
    }
    panic!("index {idx:?} is out of bounds for extents {:?}", &ext[..rank])
}

impl Drop for Borrow<'_> {
    fn drop(&mut self) {
        self.dv.release_borrow(self.side, self.exclusive);
    }
}
