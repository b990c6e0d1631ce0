//! [`Borrow`]: the state both guard kinds share. It holds the run-time borrow
//! of one side (released on drop), the view that keeps the allocation
//! alive, and the pointer, extents and strides that indexing reads.

use crate::dual_view::RawDualView;
use crate::element::Element;
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
    bounds: [usize; MAX_RANK],
    pub(super) len: usize,
    pub(super) host_ok: bool,
    pub(super) contiguous: bool,
}

// SAFETY: `ptr` addresses the allocation that `view` keeps alive; the guard
// hands out `&T` (shared guards) or `&mut T` (exclusive ones) under the
// run-time borrow, exactly like `&[T]` / `&mut [T]`, and `Element` types are
// `Send + Sync`.
unsafe impl Send for Borrow<'_> {}
// SAFETY: as above.
unsafe impl Sync for Borrow<'_> {}

impl<'a> Borrow<'a> {
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

    #[inline]
    pub(super) fn host_ptr<T>(&self) -> Result<*mut T> {
        if !self.host_ok {
            return Err(self.not_host_accessible());
        }
        Ok(self.ptr as *mut T)
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

    /// The element pointer for `[]` with a rank in the type (checked equal
    /// to the view's when the guard was made): panics like slice indexing.
    #[inline(always)]
    #[track_caller]
    pub(super) fn index_fixed<T, const R: usize>(&self, idx: &[usize; R]) -> *mut T {
        let mut off = 0;
        let mut bad = false;
        for ((&i, &b), &s) in idx.iter().zip(&self.bounds).zip(&self.strides) {
            bad |= i >= b;
            off += i * s;
        }
        if bad {
            index_fail(idx, self.ext, self.rank, self.host_ok);
        }
        (self.ptr as *mut T).wrapping_add(off)
    }

    /// The element pointer for `[]`: panics like slice indexing.
    #[inline(always)]
    #[track_caller]
    pub(super) fn index_ptr<T>(&self, idx: &[usize]) -> *mut T {
        match self.locate(idx) {
            Some(off) if self.host_ok => (self.ptr as *mut T).wrapping_add(off),
            _ => index_fail(idx, self.ext, self.rank, self.host_ok),
        }
    }

    pub(super) fn contiguous_len(&self) -> Result<usize> {
        if !self.contiguous {
            let e = err!(InvalidArgument, "the {} view is not contiguous (use iter, indexed, get or to_vec)", self.side);
            return Err(self.dv.err_on(e, Some(self.side)));
        }
        Ok(self.len)
    }

    /// The span as `(pointer, length)`, for a slice.
    pub(super) fn span<T>(&self) -> Result<(*mut T, usize)> {
        let n = self.contiguous_len()?;
        let p = self.host_ptr::<T>()?;
        // A slice needs a non-null pointer even when empty.
        Ok((if n == 0 { std::ptr::NonNull::dangling().as_ptr() } else { p }, n))
    }

    #[cold]
    #[track_caller]
    pub(super) fn span_panic(e: Error) -> ! {
        panic!("{e}")
    }

    /// Every element in row-major index order (last index fastest).
    pub(super) fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        let p = self.host_ptr::<T>()?;
        let (ext, st) = (&self.ext[..self.rank], &self.strides[..self.rank]);
        let mut out = Vec::with_capacity(self.len);
        if self.len == 0 {
            return Ok(out);
        }
        let mut idx = [0usize; MAX_RANK];
        for _ in 0..self.len {
            let off: usize = idx.iter().zip(st).map(|(i, s)| i * s).sum();
            // SAFETY: off < span, inside the live, host-accessible, borrowed allocation.
            out.push(unsafe { *p.add(off) });
            for r in (0..ext.len()).rev() {
                idx[r] += 1;
                if idx[r] < ext[r] {
                    break;
                }
                idx[r] = 0;
            }
        }
        Ok(out)
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
