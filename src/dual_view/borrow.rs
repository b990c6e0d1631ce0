//! Run-time borrows of each side for the Rust access guards (a `RefCell`
//! whose borrows cover regions).
//!
//! One table per side (one in all when both sides share memory), shared by
//! the whole DualView family. A borrow covers the whole array or a subview's
//! box ([`IndexBox`], in the family's index space); two borrows conflict
//! when either is exclusive and their regions overlap. Strides never alias
//! (`Mapping::with_strides` refuses it), so disjoint boxes are disjoint memory.
//!
//! | held \ asked | whole, shared | whole, exclusive | box, shared | box, exclusive |
//! | --- | --- | --- | --- | --- |
//! | whole, shared | yes | `Busy` | yes | `Busy` |
//! | whole, exclusive | `Busy` | `Busy` | `Busy` | `Busy` |
//! | box, shared | yes | `Busy` | yes | `Busy` if overlapping |
//! | box, exclusive | `Busy` | `Busy` | `Busy` if overlapping | `Busy` if overlapping |
//!
//! Guards hold a borrow while they live; operations that write a side (sync
//! into it, fill, copies, resize) take the whole exclusive borrow for the
//! write ([`Held`]), and those that read a side a whole shared one. So a
//! guard's slice never changes under it, in any thread: the write answers
//! `Busy` instead.

use super::regions::IndexBox;
use std::sync::Mutex;

/// What a borrow covers: the whole array (`None`) or one box.
pub(crate) type Region = Option<IndexBox>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    region: Region,
    exclusive: bool,
}

impl Entry {
    fn conflicts(&self, other: &Entry) -> bool {
        (self.exclusive || other.exclusive)
            && match (&self.region, &other.region) {
                (Some(a), Some(b)) => a.overlaps(b),
                _ => true,
            }
    }
}

#[derive(Debug, Default)]
pub(crate) struct BorrowFlag(Mutex<Vec<Entry>>);

impl BorrowFlag {
    fn entries(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        // Every update is one push or one swap_remove: never half done, so poisoning is ignored.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a borrow of `region` could be taken now.
    pub(crate) fn can_take(&self, region: Region, exclusive: bool) -> bool {
        let e = Entry { region, exclusive };
        !self.entries().iter().any(|h| h.conflicts(&e))
    }

    /// Take a borrow of `region`; false (nothing changed) when it conflicts with a live one.
    pub(crate) fn try_take(&self, region: Region, exclusive: bool) -> bool {
        let e = Entry { region, exclusive };
        let mut held = self.entries();
        if held.iter().any(|h| h.conflicts(&e)) {
            return false;
        }
        held.push(e);
        true
    }

    /// Release a borrow taken with the same arguments.
    pub(crate) fn release(&self, region: Region, exclusive: bool) {
        let e = Entry { region, exclusive };
        let mut held = self.entries();
        if let Some(i) = held.iter().position(|h| *h == e) {
            held.swap_remove(i);
        }
    }
}

/// A whole-array borrow held for the length of one operation, released on drop.
pub(crate) struct Held<'a> {
    flag: &'a BorrowFlag,
    exclusive: bool,
}

impl<'a> Held<'a> {
    /// Take a whole borrow of `flag`; `None` when it conflicts with a live one.
    pub(crate) fn take(flag: &'a BorrowFlag, exclusive: bool) -> Option<Held<'a>> {
        flag.try_take(None, exclusive).then_some(Held { flag, exclusive })
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.flag.release(None, self.exclusive);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extents::DynRank;
    use crate::layout::Slice;

    fn rows(a: usize, b: usize) -> Region {
        let whole = IndexBox::whole(&DynRank::new(&[8, 4]).unwrap());
        Some(whole.narrow(&[0, 1], &[Slice::Range(a, b), Slice::All]).0)
    }

    #[test]
    fn shared_and_exclusive_exclude_each_other() {
        let b = BorrowFlag::default();
        assert!(b.try_take(None, false) && b.try_take(None, false));
        assert!(!b.try_take(None, true));
        b.release(None, false);
        b.release(None, false);
        assert!(b.try_take(None, true));
        assert!(!b.try_take(None, false) && !b.can_take(None, false));
        b.release(None, true);
        assert!(b.can_take(None, true));
        {
            let _w = Held::take(&b, true).unwrap();
            assert!(Held::take(&b, false).is_none());
            assert!(!b.can_take(None, false), "a refused take leaves the live borrow alone");
        }
        assert!(b.can_take(None, true));
    }

    #[test]
    fn boxes_conflict_only_where_they_overlap() {
        let b = BorrowFlag::default();
        assert!(b.try_take(rows(0, 4), true));
        assert!(b.try_take(rows(4, 8), true), "disjoint rows: both exclusive");
        assert!(!b.try_take(rows(3, 5), false), "overlaps both");
        assert!(!b.try_take(None, false), "the whole array overlaps every box");
        b.release(rows(0, 4), true);
        assert!(b.try_take(rows(1, 3), false) && b.try_take(rows(0, 2), false), "shared boxes may overlap");
        assert!(!b.try_take(rows(2, 3), true));
        b.release(rows(1, 3), false);
        b.release(rows(0, 2), false);
        b.release(rows(4, 8), true);
        assert!(b.can_take(None, true), "every borrow released");
        assert!(b.try_take(rows(2, 2), true) && b.try_take(rows(0, 8), true), "an empty box overlaps nothing");
    }
}
