//! Which objects hold a handle, for languages whose compilers copy objects
//! bitwise without telling anyone (Fortran: `allocate(x, source=a)`, array
//! constructors, function results, and gfortran's temporary for a component
//! with a defined assignment, which it finalizes, if at all, after copying it
//! into the component). Objects are named by their address. The rules
//! (docs/FORTRAN.md "Copies the compiler makes"):
//!
//! | event | rule |
//! | --- | --- |
//! | made or received by a known object (create, wrap, subview; an assignment into an object with a known holder) | that object is the one user |
//! | received by an assignment into an object with none | no user; the written object is noted (it may be the compiler's temporary) |
//! | a use by an object | it becomes a user; a use elsewhere than the written object drops the note (a temporary is never used) |
//! | a user lets go | released when no user is left |
//! | the written object lets go unused | released if a copy let go unused before, else detached (its copy may live on) |
//! | another object lets go unused | detached while users remain or the written object may live; else released (the last holder) |
//!
//! Where no rule can tell a temporary from the object it was copied into, a
//! handle is kept rather than released: an object that receives a DualView
//! by assignment and is never used keeps it alive (docs/FORTRAN.md).

/// The holder record of one handle (kept in its table slot).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Holder {
    /// The objects that used the handle and have not let it go.
    pub users: Vec<usize>,
    /// The object an assignment wrote while no user is known (0: none).
    pub assigned_at: usize,
    /// That object let go without a use.
    pub assigned_gone: bool,
    /// Another object let go without a use while the written object might live.
    pub copy_left: bool,
}

impl Holder {
    /// No holder recorded (a handle made in C, C++ or Rust: any holder releases it).
    pub const NONE: Holder = Holder { users: Vec::new(), assigned_at: 0, assigned_gone: false, copy_left: false };

    /// Made or received by the object at `owner` when known, else by an
    /// assignment that wrote the object at `assigned_at`.
    pub fn new(owner: usize, assigned_at: usize) -> Holder {
        if owner != 0 { Holder { users: vec![owner], ..Holder::NONE } } else { Holder { assigned_at, ..Holder::NONE } }
    }

    /// A use by the object at `at` (0: a question only); the first user after it (0: none).
    pub fn used_by(&mut self, at: usize) -> usize {
        if at != 0 {
            if !self.users.contains(&at) {
                self.users.push(at);
            }
            if at != self.assigned_at {
                self.assigned_at = 0;
            }
        }
        self.users.first().copied().unwrap_or(0)
    }

    /// The object at `at` lets go: whether the handle is to be released.
    pub fn let_go(&mut self, at: usize) -> bool {
        if let Some(k) = self.users.iter().position(|&u| u == at) {
            self.users.swap_remove(k);
            if at == self.assigned_at {
                self.assigned_at = 0;
            }
            return self.users.is_empty();
        }
        if at != 0 && at == self.assigned_at {
            self.assigned_gone = true;
            return self.copy_left;
        }
        if !self.users.is_empty() {
            return false;
        }
        if self.assigned_at == 0 || self.assigned_gone {
            return true;
        }
        self.copy_left = true;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::Holder;

    const A: usize = 0x1000; // the object that made or received the handle
    const T: usize = 0x2000; // a copy, or the target of gfortran's copy-back
    const U: usize = 0x3000; // another copy

    #[test]
    fn the_maker_releases_and_its_unused_copies_detach() {
        let mut h = Holder::new(A, 0);
        assert!(!h.let_go(T));
        assert!(h.let_go(A));
    }

    #[test]
    fn used_copies_share_the_handle_in_either_order() {
        for first in [A, T] {
            let mut h = Holder::new(A, 0);
            assert_eq!(h.used_by(T), A);
            let second = if first == A { T } else { A };
            assert!(!h.let_go(first), "{first:#x} goes first: the other still uses it");
            assert!(h.let_go(second));
        }
    }

    #[test]
    fn an_assigned_object_and_its_used_copy_share_the_handle() {
        for (first_use, first_go) in [(A, A), (A, T), (T, A), (T, T)] {
            let mut h = Holder::new(0, A);
            let other = |x| if x == A { T } else { A };
            h.used_by(first_use);
            h.used_by(other(first_use));
            assert!(!h.let_go(first_go));
            assert!(h.let_go(other(first_go)));
        }
    }

    #[test]
    fn gfortran_component_temporary_then_the_component() {
        // The temporary (A) is finalized first; the component (T) is used, then goes.
        let mut h = Holder::new(0, A);
        assert!(!h.let_go(A), "the temporary must not release what the component holds");
        h.used_by(T);
        assert!(h.let_go(T));
        // Or the component goes without a use.
        let mut h = Holder::new(0, A);
        assert!(!h.let_go(A));
        assert!(h.let_go(T), "the last holder releases");
        // Or the component is used while the temporary lives, which is finalized later.
        let mut h = Holder::new(0, A);
        h.used_by(T);
        assert!(!h.let_go(A), "a temporary is never a user");
        assert!(h.let_go(T));
    }

    #[test]
    fn an_unused_copy_that_goes_first_leaves_the_release_to_the_assigned_object() {
        let mut h = Holder::new(0, A);
        assert!(!h.let_go(T), "a compiler copy never releases what an unused original holds");
        assert!(h.let_go(A));
    }

    #[test]
    fn an_assigned_object_never_used_keeps_its_handle() {
        let mut h = Holder::new(0, A);
        assert!(!h.let_go(A), "it may be a temporary whose copy lives on");
        assert!(h.let_go(U), "until the copy goes");
    }

    #[test]
    fn a_handle_with_no_holder_is_released_by_anyone() {
        assert!(Holder::NONE.clone().let_go(T));
    }

    #[test]
    fn a_question_claims_nothing() {
        let mut h = Holder::new(0, A);
        assert_eq!(h.used_by(0), 0);
        assert_eq!(h, Holder::new(0, A));
    }
}
