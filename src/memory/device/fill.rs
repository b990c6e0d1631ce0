//! Fills of device memory: one memset of the widest word that repeats the
//! element (1, 2 or 4 bytes), otherwise a seed doubled by device copies, and
//! any strides through a packed scratch block and one strided copy (the
//! driver calls: `raw.rs`).

use super::{raw, Engine, Word};
use crate::error::Result;
use crate::layout::plan;
use crate::memory::Held;
use crate::space::Stream;

/// Fill `dst` (held device memory of device `ordinal`, bound) with `value`,
/// one element's bytes, on `stream`. Returns once queued (memset) or run (the rest).
pub(super) fn fill(e: &'static Engine, dst: &Held<'_>, value: &[u8], stream: Stream) -> Result<()> {
    let r = dst.region();
    let es = r.elem_size;
    if dst.len() == 0 {
        return Ok(());
    }
    let contiguous = plan(r.extents.as_slice(), r.strides.as_slice(), r.strides.as_slice()).is_some_and(|(_, outer)| outer.is_empty());
    if !contiguous {
        return raw::fill_strided(e, dst, value, stream);
    }
    let word = if value.iter().all(|&b| b == value[0]) {
        Some(Word::W8(value[0]))
    } else if es.is_multiple_of(4) && value.chunks(4).all(|c| c == &value[..4]) {
        Some(Word::W32(u32::from_ne_bytes(value[..4].try_into().expect("4 bytes"))))
    } else if es.is_multiple_of(2) && value.chunks(2).all(|c| c == &value[..2]) {
        Some(Word::W16(u16::from_ne_bytes(value[..2].try_into().expect("2 bytes"))))
    } else {
        None
    };
    match word {
        Some(w) => raw::memset(e, dst, w, stream),
        None => raw::fill_by_doubling(e, dst, value, stream),
    }
}
