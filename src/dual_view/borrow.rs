//! Run-time borrow flags for the Rust access guards (an atomic `RefCell`).
//!
//! One flag per side (one in all when both sides share memory), shared by the
//! whole DualView family. Guards hold a borrow while they live; operations
//! that write a side (sync into it, fill, copies, resize) take the exclusive
//! borrow for the whole write ([`Held`]), and those that read a side a shared
//! one. So a guard's slice never changes under it, in any thread: the write
//! answers `Busy` instead.

use std::sync::atomic::{AtomicUsize, Ordering};

const EXCLUSIVE: usize = usize::MAX;

#[derive(Debug, Default)]
pub(crate) struct BorrowFlag(AtomicUsize);

impl BorrowFlag {
    /// Take a shared borrow; false when exclusively borrowed.
    pub(crate) fn try_shared(&self) -> bool {
        self.0
            .fetch_update(Ordering::Acquire, Ordering::Relaxed, |n| {
                (n < EXCLUSIVE - 1).then(|| n + 1)
            })
            .is_ok()
    }

    /// Take the exclusive borrow; false when borrowed at all.
    pub(crate) fn try_exclusive(&self) -> bool {
        self.0.compare_exchange(0, EXCLUSIVE, Ordering::Acquire, Ordering::Relaxed).is_ok()
    }

    /// Whether no guard borrows the side.
    pub(crate) fn is_free(&self) -> bool {
        self.0.load(Ordering::Acquire) == 0
    }

    /// Whether no guard borrows the side mutably.
    pub(crate) fn is_readable(&self) -> bool {
        self.0.load(Ordering::Acquire) != EXCLUSIVE
    }

    /// Release a borrow taken with `exclusive` as given.
    pub(crate) fn release(&self, exclusive: bool) {
        if exclusive {
            self.0.store(0, Ordering::Release);
        } else {
            self.0.fetch_sub(1, Ordering::Release);
        }
    }
}

/// A borrow held for the length of one operation, released on drop.
pub(crate) struct Held<'a> {
    flag: &'a BorrowFlag,
    exclusive: bool,
}

impl<'a> Held<'a> {
    /// Take a borrow of `flag`; `None` when it conflicts with a live one.
    pub(crate) fn take(flag: &'a BorrowFlag, exclusive: bool) -> Option<Held<'a>> {
        let ok = if exclusive { flag.try_exclusive() } else { flag.try_shared() };
        ok.then(|| Held { flag, exclusive })
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.flag.release(self.exclusive);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_and_exclusive_exclude_each_other() {
        let b = BorrowFlag::default();
        assert!(b.try_shared() && b.try_shared());
        assert!(!b.try_exclusive());
        b.release(false);
        b.release(false);
        assert!(b.try_exclusive());
        assert!(!b.try_shared() && !b.is_readable());
        b.release(true);
        assert!(b.is_free());
        {
            let _w = Held::take(&b, true).unwrap();
            assert!(Held::take(&b, false).is_none());
            assert!(!b.is_readable(), "a refused take leaves the live borrow alone");
        }
        assert!(b.is_free());
    }
}
