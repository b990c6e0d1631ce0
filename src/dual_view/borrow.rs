//! Run-time borrow flags for the Rust access guards (an atomic `RefCell`).
//!
//! One flag per side (one in all when both sides share memory), shared by the
//! whole DualView family. Operations that write a side (sync into it, fill,
//! resize) refuse with `Busy` while a guard borrows it, so safe Rust never
//! sees a data race through guards.

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
    }
}
