//! The proofs the backends' methods take instead of `unsafe` contracts
//! (DECISIONS G22). Each is made by one `unsafe` constructor whose caller
//! states the fact, or checked here from others; the backends and engines
//! then check what is left (space, shape, overlap, a value's length) and
//! never trust a raw address.
//!
//! | proof | made by | states |
//! | --- | --- | --- |
//! | [`Held`] | `unsafe` [`Held::writable`] / [`Held::readable`]: the exclusive-access proof after its checks, `View`'s unsafe promise, an engine for its own buffers | the region lies in live memory of its space until the work on it has run; no one else writes it (nor, writable, reads it) meanwhile |
//! | [`Pair`] | [`Pair::new`], checked: a writable destination, one shape, no overlap | one copy |
//! | [`Block`] | a backend's `allocate`, or `unsafe` [`Block::from_raw`] in the `Allocation` that owns it | the address and size of one allocation (or grow), used by no one else |

use crate::error::{err, Result};
use crate::space::{Region, Space};
use std::marker::PhantomData;
use std::num::NonZeroUsize;
use std::ptr::NonNull;

/// A region of one space proven live and held for the work on it: what
/// fills, copies and prefetches take.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Held<'a> {
    space: Space,
    region: Region,
    writable: bool,
    _held: PhantomData<&'a ()>,
}

impl<'a> Held<'a> {
    /// `region` of `space`, held for writing for `'a`.
    ///
    /// # Safety
    /// The region lies inside live memory of `space`, and stays live for
    /// `'a` and, for work queued on a stream, until the stream has run it;
    /// meanwhile no one else reads or writes it.
    pub(crate) const unsafe fn writable(space: Space, region: Region) -> Held<'a> {
        Held { space, region, writable: true, _held: PhantomData }
    }

    /// `region` of `space`, held for reading for `'a`.
    ///
    /// # Safety
    /// As [`Held::writable`], except that others may read it too: no one writes it meanwhile.
    pub(crate) const unsafe fn readable(space: Space, region: Region) -> Held<'a> {
        Held { space, region, writable: false, _held: PhantomData }
    }

    /// A writable region a unit test holds, taking [`Held::writable`]'s contract on itself.
    #[cfg(test)]
    pub(crate) const fn for_test(space: Space, region: Region) -> Held<'a> {
        Held { space, region, writable: true, _held: PhantomData }
    }

    /// The same region held for reading only (fewer rights: safe).
    pub(crate) const fn read_only(self) -> Held<'a> {
        Held { writable: false, ..self }
    }

    /// Whether it is held for writing.
    pub(crate) const fn is_writable(&self) -> bool {
        self.writable
    }

    /// Its space.
    pub(crate) const fn space(&self) -> Space {
        self.space
    }

    /// The region.
    pub(crate) const fn region(&self) -> &Region {
        &self.region
    }

    /// Its elements.
    pub(crate) fn len(&self) -> usize {
        self.region.extents.as_slice().iter().product()
    }

    /// The bytes from its first element to the end of its last (0 when empty).
    pub(crate) fn span_bytes(&self) -> usize {
        let r = &self.region;
        if self.len() == 0 {
            return 0;
        }
        let last: usize = r.extents.as_slice().iter().zip(r.strides.as_slice()).map(|(&e, &s)| (e - 1) * s).sum();
        (last + 1) * r.elem_size
    }

    /// Elements `first..first + n` in memory order of a region whose elements
    /// are one contiguous run, as a 1-D region with the same rights (a part
    /// of what is held); `Internal` when the region is not one run or the
    /// range passes its end. (The span test alone would also pass elements that
    /// overlap, as a stride-0 axis makes; the engine windows only a pair its plan
    /// found one run in both regions.)
    pub(crate) fn window(&self, first: usize, n: usize) -> Result<Held<'a>> {
        let r = &self.region;
        let len = self.len();
        if self.span_bytes() != len * r.elem_size || first.checked_add(n).is_none_or(|end| end > len) {
            return Err(err!(Internal, "a window {first}+{n} of a region of {len} elements that is not one run or too short (a dualview bug)"));
        }
        let region = Region {
            ptr: r.ptr.wrapping_add(first * r.elem_size),
            elem_size: r.elem_size,
            extents: crate::extents::DynRank::from_slice_unchecked(&[n]),
            strides: crate::layout::Strides::from_slice(&[1]),
        };
        Ok(Held { region, ..*self })
    }

    /// `Internal` unless this region of `space` may be written with `value`,
    /// one element's bytes (a fill).
    pub(crate) fn check_fill(&self, space: Space, value: &[u8]) -> Result<()> {
        if !self.writable || self.space != space || value.len() != self.region.elem_size {
            return Err(err!(Internal, "a fill of {} with a {}-byte value where it may not write (a dualview bug)", self.space, value.len()));
        }
        Ok(())
    }

    /// `Internal` unless this is a region of `space`.
    pub(crate) fn check_space(&self, space: Space) -> Result<()> {
        if self.space != space {
            return Err(err!(Internal, "a region of {} where one of {space} was expected (a dualview bug)", self.space));
        }
        Ok(())
    }
}

/// One copy: a writable destination and a source of the same shape that do
/// not overlap, both held. Only [`Pair::new`] makes one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pair<'a> {
    dst: Held<'a>,
    src: Held<'a>,
}

impl<'a> Pair<'a> {
    /// The copy of `src` into `dst`: `Internal` when `dst` is not writable,
    /// the extents or element sizes differ, or the two spans overlap.
    pub(crate) fn new(dst: Held<'a>, src: Held<'a>) -> Result<Pair<'a>> {
        let (d, s) = (dst.region(), src.region());
        let (de, se) = (d.extents.as_slice(), s.extents.as_slice());
        // Element by element: a rank of a few axes, no memcmp call on the sync path.
        let same = de.len() == se.len() && de.iter().zip(se).all(|(a, b)| a == b);
        if !dst.writable || !same || d.elem_size != s.elem_size {
            return Err(err!(Internal, "a copy between regions of different shapes or into one it may not write (a dualview bug)"));
        }
        let (da, sa) = (d.ptr as usize, s.ptr as usize);
        let (dn, sn) = (dst.span_bytes(), src.span_bytes());
        if dn > 0 && sn > 0 && da < sa + sn && sa < da + dn {
            return Err(err!(Internal, "a copy between overlapping regions (a dualview bug)"));
        }
        Ok(Pair { dst, src })
    }

    /// The destination.
    pub(crate) const fn dst(&self) -> &Held<'a> {
        &self.dst
    }

    /// The source.
    pub(crate) const fn src(&self) -> &Held<'a> {
        &self.src
    }
}

/// One block from a backend's `allocate`, owned, with its true size: what
/// freeing and growing take. Not `Clone`: a block is freed once.
#[derive(Debug)]
pub(crate) struct Block {
    addr: NonZeroUsize,
    bytes: usize,
}

impl Block {
    /// The block at `ptr` of `bytes`.
    ///
    /// # Safety
    /// `ptr` and `bytes` are those of one allocation (or a grow since) of the
    /// backend and ordinal the block goes back to, as the backend made it;
    /// nobody uses the block through another `Block` or after it is freed.
    pub(crate) unsafe fn from_raw(ptr: NonNull<u8>, bytes: usize) -> Block {
        Block { addr: NonZeroUsize::new(ptr.as_ptr() as usize).unwrap_or(NonZeroUsize::MIN), bytes }
    }

    /// The block of an empty allocation: no memory (freeing and growing it do nothing).
    pub(crate) fn empty(at: NonNull<u8>) -> Block {
        Block { addr: NonZeroUsize::new(at.as_ptr() as usize).unwrap_or(NonZeroUsize::MIN), bytes: 0 }
    }

    /// A token a unit test makes, taking [`Block::from_raw`]'s contract on
    /// itself (made-up addresses for bookkeeping, or a block it allocated).
    #[cfg(test)]
    pub(crate) fn for_test(addr: usize, bytes: usize) -> Block {
        Block { addr: NonZeroUsize::new(addr).expect("a test address is not 0"), bytes }
    }

    /// The base address.
    pub(crate) fn ptr(&self) -> *mut u8 {
        std::ptr::with_exposed_provenance_mut(self.addr.get())
    }

    /// The base address as a number (driver calls take them so).
    pub(crate) const fn addr(&self) -> usize {
        self.addr.get()
    }

    /// The size in bytes.
    pub(crate) const fn bytes(&self) -> usize {
        self.bytes
    }
}
