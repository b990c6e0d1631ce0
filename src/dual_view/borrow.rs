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

/// A box borrow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    region: IndexBox,
    exclusive: bool,
}

/// The live borrows of one side: whole-array ones as counts (every sync takes
/// one, and a count allocates nothing), box ones in a list that is freed when
/// it empties (a 64-byte DualView kept 1.2 KB of empty list capacity after its
/// first sync: issue 45).
#[derive(Debug, Default)]
struct Table {
    whole_shared: usize,
    whole_exclusive: bool,
    boxes: Vec<Entry>,
}

impl Table {
    fn conflicts(&self, region: &Region, exclusive: bool) -> bool {
        if self.whole_exclusive || (exclusive && self.whole_shared > 0) {
            return true;
        }
        match region {
            None => self.boxes.iter().any(|h| exclusive || h.exclusive),
            Some(b) => self.boxes.iter().any(|h| (exclusive || h.exclusive) && h.region.overlaps(b)),
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct BorrowFlag(Mutex<Table>);

impl BorrowFlag {
    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        // Every update is one field or one push / swap_remove: never half done, so poisoning is ignored.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a borrow of `region` could be taken now.
    pub(crate) fn can_take(&self, region: Region, exclusive: bool) -> bool {
        !self.table().conflicts(&region, exclusive)
    }

    /// Take a borrow of `region`; false (nothing changed) when it conflicts with a live one.
    pub(crate) fn try_take(&self, region: Region, exclusive: bool) -> bool {
        let mut t = self.table();
        if t.conflicts(&region, exclusive) {
            return false;
        }
        match region {
            None if exclusive => t.whole_exclusive = true,
            None => t.whole_shared += 1,
            Some(region) => t.boxes.push(Entry { region, exclusive }),
        }
        true
    }

    /// Release a borrow taken with the same arguments.
    pub(crate) fn release(&self, region: Region, exclusive: bool) {
        let mut t = self.table();
        match region {
            None if exclusive => {
                debug_assert!(t.whole_exclusive, "a whole exclusive borrow released twice");
                t.whole_exclusive = false;
            }
            None => {
                debug_assert!(t.whole_shared > 0, "a whole shared borrow released twice");
                t.whole_shared = t.whole_shared.saturating_sub(1);
            }
            Some(region) => {
                let e = Entry { region, exclusive };
                if let Some(i) = t.boxes.iter().position(|h| *h == e) {
                    t.boxes.swap_remove(i);
                }
                if t.boxes.is_empty() {
                    t.boxes = Vec::new();
                }
            }
        }
    }

    /// The bytes of list capacity the table holds (tests: none once every box borrow went).
    #[cfg(test)]
    fn capacity_bytes(&self) -> usize {
        self.table().boxes.capacity() * std::mem::size_of::<Entry>()
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
        // `then`, not `then_some`: a `Held` made and dropped on a refusal would release the
        // borrow of whoever holds the side (a refused writer freed the live writer's borrow).
        flag.try_take(None, exclusive).then(|| Held { flag, exclusive })
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
            assert!(Held::take(&b, true).is_none());
            assert!(!b.can_take(None, false) && !b.can_take(None, true), "a refused writer leaves the live writer's borrow alone");
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

    #[test]
    fn nothing_is_held_once_every_borrow_went() {
        let b = BorrowFlag::default();
        for _ in 0..3 {
            let _w = Held::take(&b, true).unwrap();
        }
        assert_eq!(b.capacity_bytes(), 0, "whole borrows allocate nothing");
        assert!(b.try_take(rows(0, 2), true) && b.try_take(rows(2, 4), false) && b.capacity_bytes() > 0);
        b.release(rows(0, 2), true);
        b.release(rows(2, 4), false);
        assert_eq!(b.capacity_bytes(), 0, "the list of boxes is freed when it empties");
        assert!(b.can_take(None, true));
    }
}
