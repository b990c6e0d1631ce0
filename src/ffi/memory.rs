//! Blocks in the C ABI: holds on one side's block by token, and how much
//! memory dualview's blocks take now.
//!
//! A hold is what a View of another library keeps (the C++ `with_kokkos`
//! DualView's Kokkos allocation records, docs/DECISIONS.md K7): the block
//! stays valid after a resize or realloc replaced it, or after its DualView
//! was destroyed, until the token is released. Tokens are never reused, so a
//! second or foreign release is caught.

use super::boundary::{call, function, out, put};
use super::handle::{self, dv_dualview_t};
use super::status::dv_status_t;
use super::types::{side_from, space_from};
use crate::error::err;
use crate::view::View;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Held blocks by token (each a view of the whole block, which owns a reference to it).
static HOLDS: Mutex<Option<HashMap<u64, View>>> = Mutex::new(None);
static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);

fn holds() -> MutexGuard<'static, Option<HashMap<u64, View>>> {
    HOLDS.lock().unwrap_or_else(|e| e.into_inner())
}

/// `*token` = a hold on the current block of `side` (`DV_SIDE_HOST` /
/// `DV_SIDE_DEVICE`) of `dv`: the block (the whole allocation, also for a
/// subview) stays allocated, at the same address, until
/// `dv_block_release(*token)`, even after a resize or realloc of the DualView
/// replaced it or the DualView was destroyed. A side grown in place is the
/// same block: a hold on it costs nothing. What a reference-counted View of
/// another library does (Kokkos' allocation record, docs/CPP.md). Tokens are
/// never 0.
///
/// # Safety
/// `dv` is a handle or NULL; `token` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_block_hold(dv: *const dv_dualview_t, side: u32, token: *mut u64) -> dv_status_t {
    call(function!(), || {
        let e = handle::get(dv, "dv")?;
        let side = side_from(side, "side")?;
        let token = out(token, "token")?;
        let view = e.dv.view(side)?;
        let t = NEXT_TOKEN.fetch_add(1, Ordering::Relaxed);
        holds().get_or_insert_with(HashMap::new).insert(t, view);
        put(token, t);
        Ok(())
    })
}

/// Release a hold from `dv_block_hold`: its block is freed if nothing else
/// uses it (no DualView, no other hold). `dv_block_release(0)` does nothing;
/// a token released before or never given answers `DV_ERROR_INVALID_HANDLE`
/// and changes nothing.
#[must_use]
#[unsafe(no_mangle)]
pub extern "C" fn dv_block_release(token: u64) -> dv_status_t {
    call(function!(), || {
        if token == 0 {
            return Ok(());
        }
        let view = holds().as_mut().and_then(|m| m.remove(&token));
        // Dropped outside the lock: freeing a block may take a while.
        match view {
            Some(v) => {
                drop(v);
                Ok(())
            }
            None => Err(err!(InvalidHandle, "argument `token` is {token}, not a live hold (released before, or not from dv_block_hold)")),
        }
    })
}

/// `*bytes` and `*blocks` = what dualview's blocks alive now take in `space`
/// (`DV_SPACE_*`, every device of it): the blocks of DualViews, views and
/// holds, as `DV_LEAK_REPORT=1` lists them at exit; blocks kept for reuse
/// (docs/GPU.md) are not counted. Either pointer may be NULL.
///
/// # Safety
/// `bytes` and `blocks` are NULL or writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_live_memory(space: u32, bytes: *mut u64, blocks: *mut u64) -> dv_status_t {
    call(function!(), || {
        let kind = space_from(space, 0, "space")?.kind();
        let (mut b, mut n) = (0u64, 0u64);
        for a in crate::memory::live_allocations().into_iter().filter(|a| a.space.kind() == kind) {
            b += a.bytes as u64;
            n += 1;
        }
        if !bytes.is_null() {
            put(bytes, b);
        }
        if !blocks.is_null() {
            put(blocks, n);
        }
        Ok(())
    })
}

/// Unregister and free every registered host block dualview keeps for reuse
/// (the mirrors of DualViews that went, up to `DV_POOL_BYTES`: DECISIONS
/// S11); `*released_bytes` = the bytes given back (NULL: not written). For a
/// program about to need that memory elsewhere; `Kokkos::finalize` does it
/// too. The pool fills again as registered DualViews go.
///
/// # Safety
/// `released_bytes` is NULL or writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_pool_release(released_bytes: *mut u64) -> dv_status_t {
    call(function!(), || {
        let n = crate::memory::pool_release() as u64;
        if !released_bytes.is_null() {
            put(released_bytes, n);
        }
        Ok(())
    })
}
