//! The one place the engine writes array memory. [`Exclusive`] is the proof
//! that this thread holds the borrows an operation needs (taken under the
//! family lock, [`RawDualView::exclusive`]); its methods are safe, check that
//! every region lies in an allocation the proof covers (writable where it is
//! written), and hold the engine's only `unsafe` data calls.
//!
//! | allocation | writable when | readable when |
//! | --- | --- | --- |
//! | a side of a family | its exclusive borrow is held | any borrow of it is held |
//! | a block only the caller has ([`Exclusive::admit_fresh`]: fresh from a resize) | always | always |

use super::borrow::Held;
use super::regions::IndexBox;
use super::{RawDualView, State};
use crate::error::{err, Result};
use crate::extents::{DynRank, Extents};
use crate::layout::Mapping;
use crate::side::Side;
use crate::memory::{self, Allocation, Fence, Held as Proven, Pair, Transfer};
use crate::space::{Region, Space, Stream};
use crate::view::View;
use std::sync::{Arc, Weak};

/// Borrows held for one operation, and the allocations they cover.
pub(crate) struct Exclusive<'a> {
    /// (a covered allocation, writable). Weak, not borrowed: the caller may
    /// replace the family's allocations while the borrows are held (resize),
    /// after the copies that need the proof; a weak reference keeps the
    /// allocation's address from being reused by another while the proof lives.
    covers: Few<(Weak<Allocation>, bool)>,
    _held: Few<Held<'a>>,
}

/// Up to four values held inline (an operation's covers and borrows: two,
/// four for both sides), more on the heap: a sync allocates nothing for them.
struct Few<T> {
    head: [Option<T>; 4],
    tail: Vec<T>,
}

impl<T> Few<T> {
    fn of(items: impl IntoIterator<Item = T>) -> Few<T> {
        let mut f = Few { head: [const { None }; 4], tail: Vec::new() };
        items.into_iter().for_each(|v| f.push(v));
        f
    }

    fn push(&mut self, v: T) {
        match self.head.iter_mut().find(|x| x.is_none()) {
            Some(slot) => *slot = Some(v),
            None => self.tail.push(v),
        }
    }

    fn iter(&self) -> impl Iterator<Item = &T> {
        self.head.iter().flatten().chain(&self.tail)
    }

    fn extend(&mut self, other: Few<T>) {
        other.head.into_iter().flatten().chain(other.tail).for_each(|v| self.push(v));
    }
}

/// A strided block of one allocation: what [`Exclusive::transfer`] copies.
pub(crate) struct Part<'a> {
    alloc: &'a Arc<Allocation>,
    region: Region,
}

impl<'a> Part<'a> {
    /// Box `b` (in the index space of `mapping`) of `alloc`, whose element 0 sits `offset` elements in.
    pub(crate) fn of_box(alloc: &'a Arc<Allocation>, mapping: &Mapping, offset: usize, elem_size: usize, b: &IndexBox) -> Result<Part<'a>> {
        let start = offset + if b.is_empty() { 0 } else { mapping.offset(b.lo())? };
        Ok(Part {
            alloc,
            region: Region {
                ptr: alloc.ptr().wrapping_add(start * elem_size),
                elem_size,
                extents: b.extents(),
                strides: *mapping.strides(),
            },
        })
    }

    /// The first `bytes` bytes of `alloc`.
    pub(crate) fn prefix(alloc: &'a Arc<Allocation>, bytes: usize) -> Result<Part<'a>> {
        let ext = DynRank::new(&[bytes])?;
        let strides = crate::layout::Layout::Right.strides(&ext)?;
        Ok(Part { alloc, region: Region { ptr: alloc.ptr(), elem_size: 1, extents: ext, strides } })
    }

    /// Its elements.
    pub(crate) fn len(&self) -> usize {
        self.region.extents.as_slice().iter().product()
    }
}

impl RawDualView {
    /// Take the borrows that writing `write` and reading `read` need (one
    /// exclusive borrow when both are one flag): `Busy` when a guard or
    /// another operation holds a conflicting one.
    pub(super) fn exclusive(&self, st: &State, write: Side, read: Side) -> Result<Exclusive<'_>> {
        let (w, r) = self.hold(write, read)?;
        let covers = Few::of([(Arc::downgrade(st.side(write)), true), (Arc::downgrade(st.side(read)), false)]);
        Ok(Exclusive { covers, _held: Few::of(std::iter::once(w).chain(r)) })
    }

    /// The exclusive borrows of both sides (one when they share memory): resize, realloc.
    pub(super) fn exclusive_all(&self, st: &State) -> Result<Exclusive<'_>> {
        let host = self.exclusive(st, Side::Host, Side::Host)?;
        Ok(if self.shared.aliased { host } else { host.join(self.exclusive(st, Side::Device, Side::Device)?) })
    }

    /// Cover the one allocation of a managed-memory DualView for prefetches,
    /// taking no borrow: a prefetch moves pages, it neither reads nor writes
    /// elements, so a guard may hold the data meanwhile (as before issue 19).
    pub(super) fn pages(&self, st: &State) -> Exclusive<'_> {
        Exclusive { covers: Few::of([(Arc::downgrade(st.side(Side::Device)), false)]), _held: Few::of([]) }
    }

    /// Take a shared borrow of `side`, for reading it.
    pub(super) fn reading(&self, st: &State, side: Side) -> Result<Exclusive<'_>> {
        let h = Held::take(self.shared.borrow(side), false).ok_or_else(|| self.busy(side, false))?;
        Ok(Exclusive { covers: Few::of([(Arc::downgrade(st.side(side)), false)]), _held: Few::of([h]) })
    }
}

impl<'a> Exclusive<'a> {
    /// Cover `a`, a block only the caller has (fresh from allocation, not yet
    /// in any family): writable. `Internal` when someone else holds it too.
    pub(crate) fn admit_fresh(&mut self, a: &Arc<Allocation>) -> Result<()> {
        if Arc::strong_count(a) != 1 {
            return Err(err!(Internal, "\"{}\" is not a fresh block (a dualview bug)", a.label()));
        }
        self.covers.push((Arc::downgrade(a), true));
        Ok(())
    }

    /// One proof holding both proofs' borrows (two families' sides).
    pub(crate) fn join(mut self, other: Exclusive<'a>) -> Exclusive<'a> {
        self.covers.extend(other.covers);
        self._held.extend(other._held);
        self
    }

    /// `Internal` unless `[ptr, ptr + span)` of `alloc` is covered (writable when `write`).
    fn check(&self, alloc: &Arc<Allocation>, region: &Region, write: bool) -> Result<()> {
        let covered = self.covers.iter().any(|(a, w)| std::ptr::eq(a.as_ptr(), Arc::as_ptr(alloc)) && (*w || !write));
        if !covered {
            return Err(err!(Internal, "a copy of \"{}\" without the borrow it needs (a dualview bug)", alloc.label()));
        }
        let n: usize = region.extents.as_slice().iter().product();
        let end = if n == 0 {
            0
        } else {
            region.extents.as_slice().iter().zip(region.strides.as_slice()).map(|(&e, &s)| (e - 1) * s).sum::<usize>() + 1
        };
        let start = (region.ptr as usize).wrapping_sub(alloc.ptr() as usize);
        // Against the bytes the array asked for, not the block (a mirror's may be whole pages).
        if n > 0 && (start > alloc.len() || end * region.elem_size > alloc.len() - start) {
            return Err(err!(Internal, "a copy outside \"{}\" (a dualview bug)", alloc.label()));
        }
        Ok(())
    }

    /// Copy each `(dst, src)` pair (same extents and element size), after a
    /// fence of space `fence` when given (a sync's device space); one backend
    /// call (one context bind, each copy planned once) when that space drives
    /// the copies. On the default stream complete on return. Returns the
    /// bytes moved. Each pair is a Kokkos `deep_copy` for tools.
    pub(crate) fn transfer(&self, pairs: &[(Part<'_>, Part<'_>)], stream: Stream, fence: Option<Space>) -> Result<usize> {
        let Some((d0, s0)) = pairs.first() else {
            if let Some(f) = fence {
                crate::memory::fence(f)?;
            }
            return Ok(0);
        };
        let (dst, src) = (d0.alloc.space(), s0.alloc.space());
        // SAFETY (every use): each region lies inside its live allocation
        // (checked below, before the copies; the Parts hold the Arcs), the two
        // allocations are distinct, and this proof holds the exclusive borrow
        // of every destination and a borrow of every source (or nobody else
        // has the block): no one else reads or writes them meanwhile.
        let prove = |d: &Part<'_>, s: &Part<'_>| Pair::new(unsafe { Proven::writable(dst, d.region) }, unsafe { Proven::readable(src, s.region) });
        // One pair (a whole sync) on the stack; more (subview boxes) in a Vec.
        let mut many = Vec::new();
        let mut moved = 0;
        for (d, s) in pairs {
            // One pair of allocations: what the first pair's say (page-locked or not) holds for all.
            if !Arc::ptr_eq(d.alloc, d0.alloc) || !Arc::ptr_eq(s.alloc, s0.alloc) || Arc::ptr_eq(d.alloc, s.alloc) {
                return Err(err!(Internal, "one transfer between two allocations of two spaces (a dualview bug)"));
            }
            if !d.region.extents.same_as(&s.region.extents) || d.region.elem_size != s.region.elem_size {
                return Err(err!(Internal, "a transfer between regions of different shapes (a dualview bug)"));
            }
            self.check(d.alloc, &d.region, true)?;
            self.check(s.alloc, &s.region, false)?;
            if d.len() > 0 {
                if pairs.len() > 1 {
                    many.push(prove(d, s)?);
                }
                moved += d.len() * d.region.elem_size;
            }
        }
        let one = [prove(d0, s0)?];
        let proven: &[Pair<'_>] = match pairs.len() {
            1 if moved > 0 => &one,
            1 => &one[..0],
            _ => &many,
        };
        // Whether host memory is pageable now: a backend stages it for an asynchronous copy and
        // for a small blocking one (G8), pipelines a large one, and waits for a tiny one from it
        // to the device to land. Memory a program wrapped may be pinned by it: the backend asks
        // the driver (None).
        let parties = [d0.alloc, s0.alloc];
        let pageable_host = parties.iter().all(|a| a.is_owned()).then(|| parties.iter().any(|a| a.is_pageable_host()));
        let t = Transfer::new(dst, src, proven, stream, pageable_host)?;
        // Each pair is a Kokkos deep_copy for tools.
        memory::run(&t, fence.map_or(Fence::Nothing, Fence::Space), Some((d0.alloc.label(), s0.alloc.label())))?;
        Ok(moved)
    }

    /// Copy `part` (of a covered allocation, any space) into `out`, host
    /// memory holding its elements packed in row-major order: checked mode's
    /// record of a side (a prefix) or of a handle's box.
    pub(crate) fn read_into(&self, part: &Part<'_>, out: &mut [u8]) -> Result<()> {
        self.check(part.alloc, &part.region, false)?;
        let n = part.len() * part.region.elem_size;
        if n != out.len() {
            return Err(err!(Internal, "a read of {n} bytes of \"{}\" into {} (a dualview bug)", part.alloc.label(), out.len()));
        }
        if n == 0 {
            return Ok(());
        }
        let packed = crate::layout::Layout::Right.strides(&part.region.extents)?;
        let dst = Region { ptr: out.as_mut_ptr(), strides: packed, ..part.region };
        // SAFETY: the source lies in its live allocation, which this proof may
        // read (checked); `out` is `n` bytes of host memory only we hold.
        let pair = [Pair::new(unsafe { Proven::writable(Space::HOST, dst) }, unsafe { Proven::readable(part.alloc.space(), part.region) })?];
        memory::run(&Transfer::new(Space::HOST, part.alloc.space(), &pair, Stream::null(), None)?, Fence::Nothing, None)
    }

    /// Prefetch each part of managed memory towards `to` (one allocation for both sides).
    pub(crate) fn prefetch(&self, parts: &[Part<'_>], to: Side, stream: Stream) -> Result<()> {
        for p in parts {
            self.check(p.alloc, &p.region, false)?;
            // SAFETY: the region lies inside its live allocation (checked);
            // a prefetch moves pages, it neither reads nor writes elements.
            let r = unsafe { Proven::readable(p.alloc.space(), p.region) };
            memory::prefetch(p.alloc.space(), &r, to, stream)?;
        }
        Ok(())
    }

    /// Kokkos `deep_copy(view, scalar)` into `v`, a view of a covered allocation.
    pub(crate) fn fill(&self, v: &View, value: &[u8]) -> Result<()> {
        self.check(v.allocation(), &v.region(), true)?;
        // SAFETY: `v` lies in an allocation this proof may write (checked):
        // nobody else reads or writes it meanwhile.
        unsafe { v.fill(value) }
    }

    /// Kokkos `deep_copy(dst, src)` between two views of covered allocations
    /// (any layouts; overlapping views of one allocation go through a buffer).
    pub(crate) fn copy_view(&self, dst: &View, src: &View) -> Result<()> {
        self.check(dst.allocation(), &dst.region(), true)?;
        self.check(src.allocation(), &src.region(), false)?;
        // SAFETY: as in `copy_view_on`, on the default stream.
        unsafe { dst.copy_from_fenced(src) }
    }

    /// [`Exclusive::copy_view`] ordered on `stream`. The caller keeps the
    /// family's memory until the stream has run it (`in_flight.rs`).
    pub(crate) fn copy_view_on(&self, dst: &View, src: &View, stream: Stream) -> Result<()> {
        self.check(dst.allocation(), &dst.region(), true)?;
        self.check(src.allocation(), &src.region(), false)?;
        // SAFETY: the proof covers both views (checked): nobody else writes
        // `dst` or `src`, nor reads `dst`, meanwhile; on a stream, the family
        // keeps the event and every later writer waits for it.
        unsafe { dst.copy_from_on(src, stream) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::raw;
    use crate::space::Space;

    fn whole(a: &RawDualView) -> IndexBox {
        IndexBox::whole(a.shared.read().mapping.extents())
    }

    #[test]
    fn a_proof_copies_into_what_it_may_write_only() {
        let a = raw::<u32>(&[8], Space::test_device(0));
        a.view_fill(Side::Device, &7u32.to_ne_bytes()).unwrap();
        let b = whole(&a);
        let st = a.shared.write();
        let part = |side: Side| Part::of_box(st.side(side), &st.mapping, 0, 4, &b).unwrap();
        let proof = a.exclusive(&st, Side::Host, Side::Device).unwrap();
        assert_eq!(proof.transfer(&[(part(Side::Host), part(Side::Device))], Stream::null(), Some(Space::test_device(0))).unwrap(), 32);
        // The device side is only read under this proof: writing it is refused, and nothing moves.
        let e = proof.transfer(&[(part(Side::Device), part(Side::Host))], Stream::null(), Some(Space::test_device(0))).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Internal);
        assert!(e.message().contains("without the borrow"), "{e}");
        drop(proof);
        drop(st);
        let h = a.view(Side::Host).unwrap();
        // SAFETY: 8 initialised u32 of host memory; no one writes them now.
        let got = unsafe { std::slice::from_raw_parts(h.data() as *const u32, 8) };
        assert_eq!(got, &[7; 8]);
    }

    #[test]
    fn a_region_outside_its_allocation_is_refused() {
        // Past a page: the mirror registers, so its block is whole pages.
        let a = raw::<u32>(&[1025], Space::test_device(0));
        let st = a.shared.write();
        let proof = a.exclusive(&st, Side::Host, Side::Device).unwrap();
        let mut d = Part::of_box(st.side(Side::Host), &st.mapping, 0, 4, &IndexBox::whole(st.mapping.extents())).unwrap();
        let s = Part::of_box(st.side(Side::Device), &st.mapping, 0, 4, &IndexBox::whole(st.mapping.extents())).unwrap();
        // One element past: the last one falls outside the 1025 elements, although the mirror's
        // block is whole pages (it registers with the device's driver, as a CUDA device's does).
        assert!(st.side(Side::Host).bytes() > 4100);
        d.region.ptr = d.region.ptr.wrapping_add(4);
        let e = proof.transfer(&[(d, s)], Stream::null(), None).unwrap_err();
        assert!(e.message().contains("outside"), "{e}");
    }

    #[test]
    fn a_block_someone_else_holds_is_not_fresh() {
        let a = raw::<u8>(&[4], Space::test_device(0));
        let st = a.shared.write();
        let mut proof = a.exclusive(&st, Side::Host, Side::Host).unwrap();
        let fresh = Allocation::new(Space::HOST, 4, true, &Arc::from("fresh")).unwrap();
        let other = fresh.clone();
        assert_eq!(proof.admit_fresh(&fresh).unwrap_err().kind(), crate::ErrorKind::Internal);
        drop(other);
        proof.admit_fresh(&fresh).unwrap();
    }

    #[test]
    fn the_proof_takes_the_borrows_and_gives_them_back() {
        let a = raw::<u8>(&[4], Space::test_device(0));
        let st = a.shared.write();
        let proof = a.exclusive(&st, Side::Device, Side::Host).unwrap();
        assert_eq!(a.exclusive(&st, Side::Host, Side::Host).err().map(|e| e.kind()), Some(crate::ErrorKind::Busy));
        assert!(a.reading(&st, Side::Host).is_ok(), "the source is only read");
        drop(proof);
        assert!(a.exclusive(&st, Side::Device, Side::Device).is_ok());
    }
}
