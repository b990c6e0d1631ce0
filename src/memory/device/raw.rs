//! The device engine's only `unsafe`: every driver call that reads, writes
//! or releases something, with the address arithmetic of copies and fills.
//! Each function here takes what proves its addresses: [`Held`] regions
//! (live and held until the stream has run the work) and checked [`Pair`]s
//! of them, [`Block`]s (owned blocks of one allocation) and
//! [`EventHandle`]s (live events, not `Clone`), and checks the rest itself
//! (a contiguous region where one run is written, a buffer large enough),
//! so the engine's other files are safe code (cudarc's `result` and `safe`
//! layers, in one file). One fact the engine keeps rather than checks: a
//! block's `mem` is the memory of the backend that allocated it.
//!
//! | group | functions |
//! | --- | --- |
//! | blocks | [`alloc`], [`free`], [`zero_new`], [`grow_in_place`] |
//! | copies | [`copy_now`], [`issue`], [`through_host`] |
//! | fills | [`memset`], [`fill_by_doubling`], [`fill_strided`] |
//! | staging | [`buffer_held`], [`Job`] |
//! | pages | [`prefetch`], [`host_register`], [`host_unregister`] |
//! | handles | [`event_record`], [`event_query`], [`event_synchronize`], [`event_destroy`], [`stream_wait_event`], [`stream_destroy`] |

use super::copy::{packed_like, End};
use super::stage::{self, Buffer, Flag};
use super::{on, Addr, Copy2D, Dir, Engine, EventHandle, Mem, Word};
use crate::error::{err, Result};
use crate::extents::Extents;
use crate::layout::{for_each_outer, plan, Plan};
use crate::memory::{host, Block, Held, Pair};
use crate::space::{Region, Space, Stream};
use std::sync::Arc;

/// The address a held region starts at.
fn at(h: &Held<'_>) -> Result<Addr> {
    Addr::of(h.region().ptr).ok_or_else(|| err!(Internal, "a held region at address 0 (a dualview bug)"))
}

/// A fresh block of `bytes` of `mem` from the driver (the device is bound).
pub(super) fn alloc(e: &Engine, bytes: usize, mem: Mem) -> Result<Block> {
    let a = e.driver.alloc(bytes, mem)?;
    let p = std::ptr::NonNull::new(a.get() as *mut u8).ok_or_else(|| err!(Device, "the driver returned address 0"))?;
    // SAFETY: the driver's block of `bytes`, just made; this token is its only owner.
    Ok(unsafe { Block::from_raw(p, bytes) })
}

/// Free `block`, of `mem`, on the bound device.
pub(super) fn free(e: &Engine, block: Block, mem: Mem) {
    if let Some(a) = Addr::new(block.addr()) {
        // SAFETY: the token owns one block of the driver's `alloc`; it is consumed here.
        unsafe { e.driver.free(a, block.bytes(), mem) };
    }
}

/// Zero the first `bytes` of a new block of `mem`: the host writes pinned
/// memory, the device the rest (complete on return).
pub(super) fn zero_new(e: &Engine, block: &Block, mem: Mem, bytes: usize) -> Result<()> {
    let bytes = bytes.min(block.bytes());
    if mem == Mem::Pinned {
        // SAFETY: host memory of the owned block.
        unsafe { std::ptr::write_bytes(block.ptr(), 0, bytes) };
        return Ok(());
    }
    zero_runs(e, &[(block.addr(), bytes)])
}

/// Zero `runs` (address, bytes) of device memory on the bound device, then wait for the
/// device: complete on return. Each run lies in memory the caller owns and no queued work
/// uses (a new block, or slots of this engine's slabs taken from its free lists by
/// `blocks::Kept::take_dirty`).
pub(super) fn zero_runs(e: &Engine, runs: &[(usize, usize)]) -> Result<()> {
    for &(at, bytes) in runs {
        let a = Addr::new(at).ok_or_else(|| err!(Internal, "device memory at address 0"))?;
        // SAFETY: device memory the caller owns on the bound device, which no one else
        // holds and no queued work uses (this function's contract above).
        unsafe { e.driver.memset_async(a, Word::W8(0), bytes, None) }?;
    }
    e.driver.synchronize()
}

/// Grow a device block of device `ordinal` in place (see `Driver::grow_in_place`).
pub(super) fn grow_in_place(e: &Engine, ordinal: u32, block: &Block, new: usize) -> Result<bool> {
    let Some(a) = Addr::new(block.addr()) else { return Ok(false) };
    if new < block.bytes() {
        return Ok(false);
    }
    // SAFETY: a live block the token owns; the bytes past it are no one's.
    unsafe { e.driver.grow_in_place(ordinal, a, block.bytes(), new) }
}

/// The bytes of a held region when its elements are one contiguous run:
/// its span holds no gap (a mapping's elements never alias, so a span of
/// exactly its elements is dense). O(rank), no plan.
fn contiguous(h: &Held<'_>) -> Option<usize> {
    let bytes = h.len() * h.region().elem_size;
    (h.span_bytes() == bytes).then_some(bytes)
}

/// A copy planned once: a checked pair and the plan of its two regions
/// (made only by [`plan_of`], so the plan is the pair's).
pub(super) struct Planned<'p, 'a> {
    pair: &'p Pair<'a>,
    plan: Plan,
}

/// The plan of `pair`'s copy; `None` when there is nothing to copy.
pub(super) fn plan_of<'p, 'a>(pair: &'p Pair<'a>) -> Option<Planned<'p, 'a>> {
    let (dr, sr) = (pair.dst().region(), pair.src().region());
    let plan = plan(dr.extents.as_slice(), dr.strides.as_slice(), sr.strides.as_slice())?;
    Some(Planned { pair, plan })
}

impl Planned<'_, '_> {
    /// The bytes of the copy when it is one contiguous run in both regions.
    pub(super) fn contiguous_bytes(&self) -> Option<usize> {
        self.plan.1.is_empty().then(|| self.plan.0 * self.pair.dst().region().elem_size)
    }
}

/// One synchronous copy of a contiguous pair between host memory and the
/// device (the tiny path, to the host or from page-locked memory): complete
/// on return. From pageable memory to the device the driver returns once it
/// has staged the bytes, which land later on the default stream (G8).
pub(super) fn copy_now(e: &Engine, p: &Planned<'_, '_>) -> Result<()> {
    let (dst, src) = (End::of(p.pair.dst()), End::of(p.pair.src()));
    let dir = match (dst.mem(), src.mem()) {
        (Mem::Device, Mem::Pageable) => Dir::HtoD,
        (Mem::Pageable, Mem::Device) => Dir::DtoH,
        _ => return Err(err!(Internal, "a synchronous copy between {:?} and {:?} (a dualview bug)", src.mem(), dst.mem())),
    };
    let Some(bytes) = p.contiguous_bytes() else {
        return Err(err!(Internal, "a synchronous copy of a strided region (a dualview bug)"));
    };
    // SAFETY: one contiguous run of `bytes` in each held region, in one order (the pair's plan).
    unsafe { e.driver.copy(at(p.pair.dst())?, at(p.pair.src())?, bytes, dir) }
}

/// Queue a planned copy on `stream` as its plan lays it out: one contiguous
/// or peer copy, or one 2D copy per combination of the outer axes beyond
/// the first; strided between two devices, through a packed host buffer.
pub(super) fn issue(e: &Engine, p: &Planned<'_, '_>, stream: Stream) -> Result<()> {
    let pair = p.pair;
    let (dst, src) = (End::of(pair.dst()), End::of(pair.src()));
    let (run, outer) = (p.plan.0, &p.plan.1);
    let es = dst.region().elem_size;
    let (da, sa) = (at(pair.dst())?, at(pair.src())?);
    let d = e.driver;
    if dst.mem().on_device() && src.mem().on_device() && dst.device() != src.device() {
        if outer.is_empty() {
            // SAFETY: contiguous ranges of the held regions on two devices.
            return unsafe { d.copy_peer_async(da, dst.device(), sa, src.device(), run * es, on(stream)) };
        }
        return through_host(e, pair, stream); // strided across devices: through a packed host buffer
    }
    if outer.is_empty() {
        let dir = match (dst.mem().on_device(), src.mem().on_device()) {
            (true, false) => Dir::HtoD,
            (false, true) => Dir::DtoH,
            _ => Dir::DtoD,
        };
        // SAFETY: one contiguous range in each held region.
        return unsafe { d.copy_async(da, sa, run * es, dir, on(stream)) };
    }
    let (height, dpitch, spitch) = outer[0];
    let mut outcome = Ok(());
    for_each_outer(&outer[1..], |doff, soff| {
        if outcome.is_err() {
            return;
        }
        let c = Copy2D {
            dst: da.add(doff * es),
            dst_mem: dst.mem(),
            dst_pitch: dpitch * es,
            src: sa.add(soff * es),
            src_mem: src.mem(),
            src_pitch: spitch * es,
            width: run * es,
            height,
        };
        // SAFETY: the rows lie inside both held regions (the plan of their mappings).
        outcome = unsafe { d.copy_2d_async(&c, on(stream)) };
    });
    outcome
}

/// [`issue`] of a pair, planned here.
pub(super) fn issue_pair(e: &Engine, pair: &Pair<'_>, stream: Stream) -> Result<()> {
    plan_of(pair).map_or(Ok(()), |p| issue(e, &p, stream))
}

/// A strided copy between two devices, through a packed host buffer: each
/// step synchronised, so the buffer is never freed under a copy.
fn through_host(e: &Engine, pair: &Pair<'_>, stream: Stream) -> Result<()> {
    let (dst, src) = (pair.dst(), pair.src());
    let dr = dst.region();
    let mut buf = vec![0u8; pair.dst().len() * dr.elem_size];
    let packed = packed_like(dr, buf.as_mut_ptr());
    // SAFETY: `buf` holds the packed region, only this function uses it, and
    // it lives until both steps have run (or is leaked).
    let w = unsafe { Held::writable(Space::HOST, packed) };
    let r = w.read_only();
    let step = |p: Pair<'_>, device: u32| -> Result<()> {
        let _bound = e.bind(device)?;
        let queued = issue_pair(e, &p, stream);
        let synced = e.driver.stream_synchronize(on(stream));
        queued.and(synced)
    };
    let r = Pair::new(w, *src).and_then(|p| step(p, src.space().ordinal())).and_then(|()| Pair::new(*dst, r)).and_then(|p| step(p, dst.space().ordinal()));
    if r.is_err() {
        std::mem::forget(buf); // a failed wait may leave a copy using it: leaked, never freed under it
    }
    r
}

/// Write `word` over the whole of `dst` (contiguous device memory; the word's
/// width divides its bytes), on `stream`.
pub(super) fn memset(e: &Engine, dst: &Held<'_>, word: Word, stream: Stream) -> Result<()> {
    let width = match word {
        Word::W8(_) => 1,
        Word::W16(_) => 2,
        Word::W32(_) => 4,
    };
    let Some(bytes) = contiguous(dst).filter(|b| b % width == 0 && dst.is_writable()) else {
        return Err(err!(Internal, "a memset of a strided or read-only region, or by a word that does not divide it (a dualview bug)"));
    };
    // SAFETY: `bytes / width` words: the whole contiguous held region.
    unsafe { e.driver.memset_async(at(dst)?, word, bytes / width, on(stream)) }
}

/// Fill the whole of `dst` (contiguous device memory) with `value`, one
/// element's bytes, as a memset cannot: one small host seed copied in, then
/// device-to-device copies that double the filled prefix. About
/// `n * value.len()` bytes of device traffic; no host buffer of the array's
/// size. Returns once the stream has run it (the seed lives only until then).
pub(super) fn fill_by_doubling(e: &Engine, dst: &Held<'_>, value: &[u8], stream: Stream) -> Result<()> {
    let es = value.len();
    let Some(bytes) = contiguous(dst).filter(|_| es == dst.region().elem_size && es > 0 && dst.is_writable()) else {
        return Err(err!(Internal, "a fill by doubling of a strided or read-only region, or with a value of another size (a dualview bug)"));
    };
    let n = bytes / es;
    let a = at(dst)?;
    let d = e.driver;
    let seed_n = n.min((64usize << 10).div_ceil(es).max(1));
    let seed: Vec<u8> = value.iter().copied().cycle().take(seed_n * es).collect();
    let s = Addr::of(seed.as_ptr()).ok_or_else(|| err!(Internal, "an empty seed"))?;
    // SAFETY: the seed lies in the first `seed_n` elements, each doubling
    // inside the first `n`; the host seed lives until the stream has run the
    // copies (synchronised below, or leaked).
    let queued = (|| unsafe {
        d.copy_async(a, s, seed.len(), Dir::HtoD, on(stream))?;
        let mut filled = seed_n;
        while filled < n {
            let k = filled.min(n - filled);
            d.copy_async(a.add(filled * es), a, k * es, Dir::DtoD, on(stream))?;
            filled += k;
        }
        Ok(())
    })();
    let synced = d.stream_synchronize(on(stream));
    if synced.is_err() {
        std::mem::forget(seed); // a copy may still read it: leaked, never freed under it
    }
    queued.and(synced)
}

/// Fill a strided device region: a packed scratch block filled by doubling,
/// then one strided device copy; complete on return.
pub(super) fn fill_strided(e: &Engine, dst: &Held<'_>, value: &[u8], stream: Stream) -> Result<()> {
    let r = dst.region();
    let scratch = alloc(e, dst.len() * r.elem_size, Mem::Device)?;
    let packed = packed_like(r, scratch.ptr());
    // SAFETY: the owned scratch block holds the packed region, only this
    // function uses it, and it is freed only after the stream has run both steps.
    let w = unsafe { Held::writable(dst.space(), packed) };
    let rd = w.read_only();
    let done = fill_by_doubling(e, &w, value, stream).and_then(|()| issue_pair(e, &Pair::new(*dst, rd)?, stream));
    let synced = e.driver.stream_synchronize(on(stream));
    if synced.is_ok() {
        free(e, scratch, Mem::Device);
    } // else: work may still use it: leaked (the token dropped), never freed under it
    done.and(synced)
}

/// A staging buffer holding `like`'s elements packed, held for this one
/// copy: the engine's own pinned block, taken from the pool for it.
/// `Internal` when the buffer is too small.
pub(super) fn buffer_held<'a>(buf: &'a Buffer, like: &Region) -> Result<Held<'a>> {
    let n: usize = like.extents.as_slice().iter().product();
    if n * like.elem_size > buf.block.bytes() {
        return Err(err!(Internal, "a staging buffer of {} bytes for {} (a dualview bug)", buf.block.bytes(), n * like.elem_size));
    }
    let packed = packed_like(like, buf.block.ptr());
    // SAFETY: the buffer holds the packed region; the pool hands it to this copy alone until its job returns it.
    Ok(unsafe { Held::writable(Space::host_pinned(), packed) })
}

/// One copy's pair, shared by its lanes (`pipeline.rs`), each cutting its own windows of it.
pub(super) struct Shared<'p, 'a>(pub(super) &'p Pair<'a>);

// SAFETY: the lanes only read the pair (its regions' addresses and shapes); each copies into
// its own disjoint windows of the destination and reads the source, and the caller holds both
// regions until every lane has returned (`host::run_scoped`).
unsafe impl Sync for Shared<'_, '_> {}

impl<'p, 'a> Shared<'p, 'a> {
    /// The pair (a method, so that a closure captures the whole `Shared`, not its field).
    pub(super) fn pair(&self) -> &'p Pair<'a> {
        self.0
    }
}

/// What a stream's host function does when the stream reaches it: unpack a
/// staging buffer into a host region (device to host), return the buffer
/// to the pool, set the flag.
pub(super) struct Job {
    engine: &'static Engine,
    /// Unpack the buffer into this host region (of this space), or nothing.
    unpack: Option<(Space, Region)>,
    /// The buffer, packed as `packed` describes.
    packed: Region,
    buf: Buffer,
    /// Set once the job has run.
    flag: Arc<Flag>,
}

// SAFETY: the regions are host memory held until the stream has run the job
// (the Held contract: the DualView's family waits for its events before
// freeing, and a view copy's caller keeps its views until then); only the job
// touches them then.
unsafe impl Send for Job {}

impl Job {
    /// The job of one staged copy; `unpack`: the pageable host region to
    /// unpack into, of `like`'s shape. `Internal` when the buffer does not hold
    /// `like` or `unpack` is not writable host memory of that shape.
    /// `Internal` unless `buf` holds `like` packed and `unpack`, when given,
    /// is writable host memory of `like`'s shape: what [`Job::new`] relies on.
    pub(super) fn check(unpack: Option<&Held<'_>>, like: &Region, buf: &Buffer) -> Result<()> {
        buffer_held(buf, like)?;
        if let Some(u) = unpack {
            let r = u.region();
            if !u.is_writable() || !u.space().is_host_accessible() || !r.extents.same_as(&like.extents) || r.elem_size != like.elem_size {
                return Err(err!(Internal, "a staged copy unpacking into {} of another shape, or not writable (a dualview bug)", u.space()));
            }
        }
        Ok(())
    }

    /// The job of one staged copy, checked by [`Job::check`]; `unpack`: the
    /// host region to unpack into. (Unchecked here, the unpack is refused
    /// when the job runs.)
    pub(super) fn new(engine: &'static Engine, unpack: Option<&Held<'_>>, like: &Region, buf: Buffer, flag: Arc<Flag>) -> Job {
        let packed = packed_like(like, buf.block.ptr());
        Job { engine, unpack: unpack.map(|h| (h.space(), *h.region())), packed, buf, flag }
    }

    /// Unpack if asked, then return the buffer to the pool and set the flag.
    /// Calls no driver function (the driver forbids it there) and never unwinds.
    pub(super) fn finish(self) {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if let Some((space, dst)) = self.unpack {
                // SAFETY: as `Job`'s Send says; the stream has written the buffer. `new` checked the shapes.
                let (d, s) = unsafe { (Held::writable(space, dst), Held::readable(Space::host_pinned(), self.packed)) };
                let _ = Pair::new(d, s).and_then(|p| host::copy(&p));
            }
        }));
        let Job { engine, buf, flag, .. } = self;
        stage::give_back(engine, buf);
        flag.set();
    }

    /// The buffer back, when the job will not run.
    pub(super) fn into_buffer(self) -> Buffer {
        self.buf
    }
}

/// Move the held managed range towards device `to` (`None`: the host) on `stream`.
pub(super) fn prefetch(e: &Engine, region: &Held<'_>, to: Option<u32>, stream: Stream) -> Result<()> {
    let bytes = region.span_bytes();
    if bytes == 0 {
        return Ok(());
    }
    // SAFETY: the range of the held region; a prefetch moves pages, it reads and writes no element.
    unsafe { e.driver.prefetch_async(at(region)?, bytes, to, on(stream)) }
}

/// Page-lock `[addr, addr + len)`, a live host block whose registration the caller owns.
pub(super) fn host_register(e: &Engine, addr: usize, len: usize) -> Result<()> {
    let a = Addr::new(addr).ok_or_else(|| err!(InvalidArgument, "registration of address 0"))?;
    // SAFETY: the registration state machine's live block (`registration.rs`); registering only pins its pages.
    unsafe { e.driver.host_register(a, len) }
}

/// Undo the registration that starts at `addr`.
pub(super) fn host_unregister(e: &Engine, addr: usize) {
    if let Some(a) = Addr::new(addr) {
        // SAFETY: a range registered by `host_register`; errors leave it to the driver.
        unsafe { e.driver.host_unregister(a) };
    }
}

/// Record `event` after the work queued on `stream` so far.
pub(super) fn event_record(e: &Engine, event: &EventHandle, stream: Stream) -> Result<()> {
    // SAFETY: a live event of the driver (the handle is not Clone and destroyed once).
    unsafe { e.driver.event_record(event, on(stream)) }
}

/// Whether `event` has passed.
pub(super) fn event_query(e: &Engine, event: &EventHandle) -> Result<bool> {
    // SAFETY: as `event_record`.
    unsafe { e.driver.event_query(event) }
}

/// Wait on the host for `event`.
pub(super) fn event_synchronize(e: &Engine, event: &EventHandle) -> Result<()> {
    // SAFETY: as `event_record`.
    unsafe { e.driver.event_synchronize(event) }
}

/// Release `event` (its work still runs).
pub(super) fn event_destroy(e: &Engine, event: EventHandle) {
    // SAFETY: the live event, taken: destroyed once.
    unsafe { e.driver.event_destroy(event) }
}

/// Make `stream`'s later work wait for `event`.
pub(super) fn stream_wait_event(e: &Engine, stream: Stream, event: &EventHandle) -> Result<()> {
    // SAFETY: as `event_record`.
    unsafe { e.driver.stream_wait_event(on(stream), event) }
}

/// Release a stream of the bound device (its work still runs); the default stream is never released.
pub(super) fn stream_destroy(e: &Engine, stream: Stream) -> Result<()> {
    let Some(h) = on(stream) else { return Ok(()) };
    // SAFETY: the caller's stream from `stream_create` (`memory::stream::destroy`'s contract).
    unsafe { e.driver.stream_destroy(h) }
}

/// The block of `bytes` at `addr` inside one of the engine's slabs
/// (`blocks.rs`): a slot, which the slab hands out once until it comes back,
/// or the whole slab when it goes back to the driver.
pub(super) fn slab_part(addr: usize, bytes: usize) -> Block {
    // SAFETY: `blocks.rs` calls this only for a slab the driver allocated (SLAB bytes) or a
    // slot inside one, and hands each out once until it is given back: Block::from_raw's
    // contract, with a slot freed by giving it back to its slab, never to the driver.
    unsafe { Block::from_raw(std::ptr::NonNull::new(addr as *mut u8).unwrap_or(std::ptr::NonNull::dangling()), bytes) }
}
