//! Bad input: each case gets its own error kind and a message, and leaves the
//! DualView exactly as it was. The last test feeds arbitrary values to the
//! safe API and requires an answer, never a panic.

use dualview::{Const, Dims, DualView, Dyn, DynRank, ErrorKind, Extents, Layout, Mapping, Side, Slice, Space};
use proptest::prelude::*;

type DV = DualView<f64, Dims<2>>;

fn dv() -> DV {
    let a = DV::builder("A", Dims::new([3, 4]).unwrap()).device(Space::test_device(5)).build().unwrap();
    a.fill_host(1.5).unwrap();
    a.sync_device().unwrap();
    a.fill_device(2.5).unwrap();
    a
}

/// Everything observable about a DualView.
#[derive(Debug, PartialEq)]
struct Snapshot {
    extents: Vec<usize>,
    flags: (bool, bool),
    ptrs: (usize, usize),
    host: Vec<f64>,
    device: Vec<f64>,
}

fn snap(a: &DV) -> Snapshot {
    let read = |s: Side| {
        let v = a.raw().view(s).unwrap();
        // SAFETY: test-device DualView: both sides are host memory of span elements.
        let vals = unsafe { std::slice::from_raw_parts(v.data() as *const f64, v.span()) }.to_vec();
        (v.data() as usize, vals)
    };
    let (hp, host) = read(Side::Host);
    let (dp, device) = read(Side::Device);
    Snapshot {
        extents: a.raw().extents().as_slice().to_vec(),
        flags: (a.need_sync_host(), a.need_sync_device()),
        ptrs: (hp, dp),
        host,
        device,
    }
}

fn expect<T: std::fmt::Debug>(r: dualview::Result<T>, kind: ErrorKind) {
    let e = r.unwrap_err();
    assert_eq!(e.kind(), kind, "{e}");
    assert!(!e.message().is_empty());
}

#[test]
fn rank_above_8() {
    expect(DynRank::new(&[1; 9]), ErrorKind::RankTooLarge);
    expect(DynRank::try_from_slice(&[2; 12]), ErrorKind::RankTooLarge);
}

#[test]
fn overflowing_extents_and_bytes() {
    expect(Dims::new([usize::MAX, 2]), ErrorKind::Overflow);
    // the extents fit, the bytes do not
    let n = (isize::MAX as usize) / 4;
    expect(DualView::<f64, Dims<1>>::new("big", Dims::new([n]).unwrap()), ErrorKind::Overflow);
    let a = dv();
    let before = snap(&a);
    expect(a.resize(Dims::new([n, 1]).unwrap()), ErrorKind::Overflow);
    expect(a.realloc(Dims::new([1, n]).unwrap()), ErrorKind::Overflow);
    assert_eq!(snap(&a), before);
}

#[test]
fn axis_out_of_range() {
    let a = dv();
    let before = snap(&a);
    expect(a.extent(2), ErrorKind::OutOfRange);
    expect(a.stride(7), ErrorKind::OutOfRange);
    assert_eq!(snap(&a), before);
    let h = DualView::<u8, Dims<2>>::new("h", Dims::new([3, 4]).unwrap()).unwrap();
    expect(h.host().unwrap().get([3, 0]).map(|_| ()), ErrorKind::OutOfRange);
    // A rank in the type makes `get(&[0, 0, 0])` a compile error; at run-time rank it is RankMismatch.
    let d = h.clone().into_extents::<DynRank>().unwrap();
    expect(d.host().unwrap().get([0, 0, 0]).map(|_| ()), ErrorKind::RankMismatch);
}

#[test]
fn resize_or_realloc_to_another_rank() {
    let a = dv();
    let before = snap(&a);
    expect(a.raw().resize(&DynRank::new(&[12]).unwrap()), ErrorKind::RankMismatch);
    expect(a.raw().realloc(&DynRank::new(&[2, 2, 3]).unwrap(), true), ErrorKind::RankMismatch);
    assert_eq!(snap(&a), before);
}

#[test]
fn subview_ranges_past_an_extent() {
    let a = dv();
    let before = snap(&a);
    expect(a.subview(&[Slice::Range(0, 4), Slice::All]), ErrorKind::OutOfRange);
    expect(a.subview(&[Slice::All, Slice::Index(4)]), ErrorKind::OutOfRange);
    expect(a.subview(&[Slice::Range(2, 1), Slice::All]), ErrorKind::OutOfRange);
    expect(a.subview(&[Slice::All]), ErrorKind::RankMismatch);
    assert_eq!(snap(&a), before);
}

#[test]
fn a_static_extent_that_does_not_match() {
    expect(<(Const<4>, Dyn)>::try_from_slice(&[5, 1]), ErrorKind::StaticMismatch);
    let v = DualView::<u32>::new("v", DynRank::new(&[5]).unwrap()).unwrap();
    expect(v.clone().into_extents::<(Const<4>,)>(), ErrorKind::StaticMismatch);
    expect(DualView::<u32, (Const<4>,)>::from_raw(v.raw().clone()), ErrorKind::StaticMismatch);
    assert_eq!(v.extent(0).unwrap(), 5);
}

#[test]
fn bad_layout_values_and_strides() {
    expect(Layout::try_from(3u32), ErrorKind::InvalidArgument);
    expect(dualview::SpaceKind::try_from(5u32), ErrorKind::InvalidArgument);
    expect(dualview::Access::try_from(5u32), ErrorKind::InvalidArgument);
    expect(
        DualView::<u8, Dims<2>>::builder("s", Dims::new([2, 2]).unwrap()).strides(&[1, 1]).build(),
        ErrorKind::InvalidArgument,
    );
    expect(
        DualView::<u8, Dims<2>>::builder("s", Dims::new([2, 2]).unwrap()).layout(Layout::Stride).build(),
        ErrorKind::InvalidArgument,
    );
}

#[test]
fn guards_exclude_writers() {
    let a = dv();
    let before = snap(&a);
    {
        let d = a.device().unwrap(); // device is newer: no sync; device borrowed
        expect(a.fill_device(9.0), ErrorKind::Busy);
        expect(a.resize(Dims::new([5, 5]).unwrap()), ErrorKind::Busy);
        expect(a.device_mut().map(|_| ()), ErrorKind::Busy);
        expect(a.device_write().map(|_| ()), ErrorKind::Busy);
        drop(d);
    }
    assert_eq!(snap(&a), before);
    {
        let _h = a.host_mut().unwrap();
        expect(a.host().map(|_| ()), ErrorKind::Busy);
        expect(a.sync_device(), ErrorKind::Busy);
    }
    a.sync_device().unwrap();
    assert_eq!(snap(&a).device, before.device);
}

fn values() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(prop_oneof![0usize..6, any::<usize>()], 0..11)
}

proptest! {
    #[test]
    fn the_safe_api_never_panics(a in values(), b in values(), c in values(), k in 0u8..3) {
        let _ = DynRank::new(&a);
        let _ = Dims::<2>::try_from_slice(&a);
        let _ = <(Dyn, Const<3>)>::try_from_slice(&a);
        let _ = <(Const<2>, Dyn, Const<1>)>::try_from_slice(&b);
        if let Ok(e) = DynRank::new(&a) {
            let _ = e.size();
            let _ = Layout::Left.strides(&e);
            let _ = Layout::Right.strides(&e);
            let _ = e.squeeze_octave();
            let _ = dualview::extents::ublas::product(&e);
            let _ = Mapping::with_strides(e, &b);
            if let Ok(m) = Mapping::new(Layout::Right, e) {
                let _ = m.offset(&b);
                let slices: Vec<Slice> = c.iter().zip(&b).map(|(&x, &y)| match k {
                    0 => Slice::Index(x),
                    1 => Slice::Range(x, y),
                    _ => Slice::All,
                }).collect();
                let _ = m.subview(&slices);
            }
        }
        let v = dv();
        let slices: Vec<Slice> = a.iter().zip(&b).map(|(&x, &y)| if k == 0 { Slice::Index(x) } else { Slice::Range(x, y) }).collect();
        let _ = v.subview(&slices);
        let _ = v.clone().into_extents::<DynRank>().unwrap().host().map(|h| h.get(c.as_slice()).copied());
        let _ = v.extent(a.first().copied().unwrap_or(0));
        let _ = v.raw().resize(&DynRank::new(&[b.len() % 3 + 1, 3]).unwrap());
    }
}

/// Rust's messages advise the Rust methods (`sync_host()`), C's the C
/// functions, C++'s and Fortran's their own calls (issue 35: tests/c/bad_input.c,
/// cpp_tests/test_dualview.cpp K10, examples_fortran/errors.f90).
#[test]
fn messages_advise_rust_calls() {
    let a = dv(); // the device side modified
    let msg = a.modify_host().unwrap_err().to_string();
    assert!(msg.contains("Call sync_host() before writing the host side"), "{msg}");
    assert!(msg.contains("or clear_sync_state() to drop that change") && !msg.contains("dv_"), "{msg}");
}
