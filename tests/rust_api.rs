//! The Rust API as a new user meets it: guards that index and iterate like
//! arrays and slices, element order for both layouts, typed subviews, and
//! disjoint mutable borrows of one array.

// `get(&[i, j])` is tested on purpose, beside `get([i, j])`.
#![allow(clippy::needless_borrows_for_generic_args)]

use dualview::{s, Const, DualView, Dims, Dyn, DynIndex, DynRank, ErrorKind, Layout, Side, Slice, Space};

fn grid(layout: Layout, nx: usize, ny: usize) -> DualView<u32, Dims<2>> {
    let a = DualView::<u32, Dims<2>>::builder("g", Dims::from([nx, ny]))
        .layout(layout)
        .device(Space::test_device(0))
        .build()
        .unwrap();
    for ([i, j], x) in a.host_mut().unwrap().indexed_mut() {
        *x = (10 * i + j) as u32;
    }
    a
}

#[test]
fn index_and_get_agree_with_the_multi_index_for_both_layouts() {
    for layout in [Layout::Left, Layout::Right] {
        let a = grid(layout, 3, 4);
        let h = a.host().unwrap();
        for i in 0..3 {
            for j in 0..4 {
                assert_eq!(h[[i, j]], (10 * i + j) as u32);
                assert_eq!(*h.get([i, j]).unwrap(), (10 * i + j) as u32);
                assert_eq!(*h.get(&[i, j]).unwrap(), (10 * i + j) as u32);
            }
        }
        assert_eq!(h.get([3, 0]).unwrap_err().kind(), ErrorKind::OutOfRange);
        assert_eq!(h.shape(), [3, 4]);
    }
}

#[test]
fn slice_order_is_memory_order_and_to_vec_is_row_major() {
    let left = grid(Layout::Left, 2, 3);
    let h = left.host().unwrap();
    assert_eq!(h.strides(), [1, 2]);
    assert_eq!(&h[..], &[0, 10, 1, 11, 2, 12], "LayoutLeft: first index fastest");
    assert_eq!(h.as_slice().unwrap(), &h[..]);
    assert_eq!(h.iter().copied().collect::<Vec<_>>(), h[..].to_vec());
    assert_eq!(h.to_vec().unwrap(), vec![0, 1, 2, 10, 11, 12], "to_vec: row-major whatever the layout");
    assert_eq!(h[1], 10, "h[i] is the span's element i");
    let idx: Vec<[usize; 2]> = h.indexed().map(|(i, _)| i).collect();
    assert_eq!(idx, vec![[0, 0], [1, 0], [0, 1], [1, 1], [0, 2], [1, 2]]);

    let right = grid(Layout::Right, 2, 3);
    let h = right.host().unwrap();
    assert_eq!(h.strides(), [3, 1]);
    assert_eq!(&h[..], &[0, 1, 2, 10, 11, 12], "LayoutRight: last index fastest");
    assert_eq!(h.to_vec().unwrap(), &h[..]);
    let idx: Vec<[usize; 2]> = (&h).into_iter().zip(h.indexed()).map(|(x, (i, y))| {
        assert_eq!(x, y);
        i
    }).collect();
    assert_eq!(idx, vec![[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]);
}

#[test]
fn the_default_layout_follows_the_device_so_index_with_multi_indices() {
    // Left on CUDA and the test device, Right on the host (as Kokkos):
    // `[[i, j]]` means the same element either way, the span order does not.
    let dev = DualView::<u8, Dims<2>>::builder("d", Dims::from([2, 2])).device(Space::test_device(0)).build().unwrap();
    let host = DualView::<u8, Dims<2>>::new("h", Dims::from([2, 2])).unwrap();
    assert_eq!((dev.layout(), host.layout()), (Layout::Left, Layout::Right));
    for a in [&dev, &host] {
        a.host_mut().unwrap()[[0, 1]] = 7;
        assert_eq!(a.host().unwrap()[[0, 1]], 7);
    }
    assert_eq!(&dev.host().unwrap()[..], &[0, 0, 7, 0]);
    assert_eq!(&host.host().unwrap()[..], &[0, 7, 0, 0]);
}

#[test]
fn mutable_guards_write_through_index_deref_and_iter_mut() {
    let a = grid(Layout::Right, 2, 2);
    {
        let mut h = a.host_mut().unwrap();
        h[[0, 0]] += 100;
        h[1] = 5;
        h[2..].copy_from_slice(&[6, 7]);
        for x in &mut h {
            *x += 1;
        }
        h.iter_mut().for_each(|x| *x *= 2);
    }
    assert!(a.need_sync_device());
    assert_eq!(a.device().unwrap().to_vec().unwrap(), vec![202, 12, 14, 16]);
}

#[test]
fn strided_views_iterate_but_do_not_deref() {
    let a = grid(Layout::Right, 3, 4);
    let col = a.slice(s![.., 2]).unwrap();
    let h = col.host().unwrap();
    assert!(h.as_slice().is_err());
    assert_eq!(h.iter().copied().collect::<Vec<_>>(), vec![2, 12, 22]);
    assert_eq!(h[[1]], 12);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h[0]));
    assert!(r.is_err(), "a strided view has no slice: indexing the span panics");
}

#[test]
#[should_panic(expected = "out of bounds")]
fn index_out_of_bounds_panics_like_a_slice() {
    let a = grid(Layout::Left, 2, 2);
    let h = a.host().unwrap();
    let _ = h[[2, 0]];
}

#[test]
fn tuple_indices_reach_the_same_element_as_arrays() {
    for layout in [Layout::Left, Layout::Right] {
        let a = grid(layout, 3, 4);
        {
            let h = a.host().unwrap();
            for i in 0..3 {
                for j in 0..4 {
                    assert!(std::ptr::eq(&h[(i, j)], &h[[i, j]]), "{layout:?} ({i}, {j})");
                    assert_eq!(h[(i, j)], (10 * i + j) as u32);
                }
            }
        }
        let mut m = a.host_mut().unwrap();
        m[(2, 1)] = 99;
        m[(0, 3)] += 1;
        assert_eq!((m[[2, 1]], m[[0, 3]], m[(0, 3)]), (99, 4, 4));
        let p: *const u32 = &mut m[(1, 2)];
        assert!(std::ptr::eq(p, &m[[1, 2]]));
    }
    // 3D, and extents given as a tuple of static and dynamic axes.
    let b = DualView::<u64, (Const<2>, Dyn, Dyn)>::builder("b", (Const, Dyn::new(3), Dyn::new(4))).device(Space::test_device(0)).build().unwrap();
    {
        let mut m = b.device_mut().unwrap();
        for i in 0..2 {
            for j in 0..3 {
                for k in 0..4 {
                    m[(i, j, k)] = (100 * i + 10 * j + k) as u64;
                }
            }
        }
    }
    let h = b.host().unwrap();
    assert!(h.indexed().all(|([i, j, k], &x)| x == (100 * i + 10 * j + k) as u64 && h[(i, j, k)] == x));
    assert_eq!(h[(1, 2, 3)], 123);
}

#[test]
fn a_tuple_index_out_of_bounds_panics_like_the_array_form() {
    let message = |f: &dyn Fn()| {
        let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_err();
        p.downcast_ref::<String>().cloned().unwrap_or_default()
    };
    let a = grid(Layout::Left, 2, 3);
    let h = a.host().unwrap();
    let tuple = message(&|| {
        let _ = h[(2, 0)];
    });
    assert!(tuple.contains("out of bounds"), "{tuple}");
    assert_eq!(tuple, message(&|| {
        let _ = h[[2, 0]];
    }));
    drop(h);
    let m = std::cell::RefCell::new(a.host_mut().unwrap());
    let write = message(&|| m.borrow_mut()[(0, 3)] = 1);
    assert_eq!(write, message(&|| m.borrow_mut()[[0, 3]] = 1));
    assert!(write.contains("[0, 3]"), "{write}");
}

#[test]
fn guard_errors_name_the_dual_view() {
    let a = DualView::<u32, Dims<2>>::builder("temperature", Dims::from([2, 3])).device(Space::test_device(0)).build().unwrap();
    let check = |e: dualview::Error, kind: ErrorKind, side: Side| {
        assert_eq!((e.kind(), e.label(), e.side()), (kind, Some("temperature"), Some(side)), "{e}");
        let msg = e.to_string();
        assert!(msg.starts_with("DualView \"temperature\": the ") && msg.contains(&format!("{side} view")), "{msg}");
    };
    let h = a.host().unwrap();
    check(h.get([2, 0]).unwrap_err(), ErrorKind::OutOfRange, Side::Host);
    let e = h.get([0, 5]).unwrap_err();
    assert_eq!(e.to_string(), "DualView \"temperature\": the host view at [0, 5]: index 5 of axis 1 is out of range for extent 3");
    drop(h);
    let mut d = a.device_mut().unwrap();
    check(d.set([0, 3], 1).unwrap_err(), ErrorKind::OutOfRange, Side::Device);
    check(d.get_mut([9, 9]).unwrap_err(), ErrorKind::OutOfRange, Side::Device);
    check(d.get([2, 2]).unwrap_err(), ErrorKind::OutOfRange, Side::Device);
    drop(d);
    // A run-time rank: a wrong count too.
    let r = a.into_extents::<DynRank>().unwrap();
    let mut m = r.host_mut().unwrap();
    check(m.set([1, 1, 0], 3).unwrap_err(), ErrorKind::RankMismatch, Side::Host);
    check(m.get(&[5, 0][..]).unwrap_err(), ErrorKind::OutOfRange, Side::Host);
}

#[test]
fn typed_subviews_keep_a_static_rank() {
    let a = DualView::<f64, Dims<3>>::builder("a", Dims::from([4, 5, 6])).device(Space::test_device(0)).build().unwrap();
    let plane: DualView<f64, Dims<2>> = a.slice(s![1, .., 2..]).unwrap();
    assert_eq!(plane.extents().unwrap(), Dims::from([5, 4]));
    let line: DualView<f64, Dims<1>> = a.slice((0, 3, ..=2)).unwrap();
    assert_eq!(line.len(), 3);
    let point: DualView<f64, Dims<0>> = a.slice(s![3, 4, 5]).unwrap();
    point.host_mut().unwrap()[[]] = 9.0;
    assert_eq!(a.host().unwrap()[[3, 4, 5]], 9.0);
    let all: DualView<f64, Dims<3>> = a.slice(s![.., ..4, 1..=1]).unwrap();
    assert_eq!(all.extents().unwrap().get(), [4, 4, 1]);
    assert_eq!(a.slice(s![9, .., ..]).unwrap_err().kind(), ErrorKind::OutOfRange);
    // A run-time rank checks the argument count at run time.
    let d = a.clone().into_extents::<DynRank>().unwrap();
    assert_eq!(d.slice(s![1, ..]).unwrap_err().kind(), ErrorKind::RankMismatch);
    assert_eq!(d.slice(s![1, .., 0]).unwrap().rank(), 1);
}

#[test]
fn disjoint_subviews_borrow_mutably_at_once_and_overlaps_are_refused() {
    let a = grid(Layout::Right, 8, 4);
    let top = a.slice(s![..4, ..]).unwrap();
    let bottom = a.slice(s![4.., ..]).unwrap();
    let middle = a.slice(s![3..5, ..]).unwrap();
    let mut t = top.host_mut().unwrap();
    let mut b = bottom.host_mut().unwrap();
    assert_eq!(middle.host().unwrap_err().kind(), ErrorKind::Busy, "overlaps both");
    assert_eq!(a.host().unwrap_err().kind(), ErrorKind::Busy, "the whole array overlaps");
    assert_eq!(top.host().unwrap_err().kind(), ErrorKind::Busy);
    t.fill(1).unwrap();
    b.fill(2).unwrap();
    drop((t, b));
    assert_eq!(a.host().unwrap().iter().filter(|&&x| x == 1).count(), 16);
    // Shared guards of overlapping regions coexist.
    let (m, w) = (middle.host().unwrap(), a.host().unwrap());
    assert_eq!(m[[0, 0]], w[[3, 0]]);
}

#[test]
fn threads_fill_disjoint_halves_through_their_own_guards() {
    let a = DualView::<u64, Dims<2>>::builder("t", Dims::from([64, 32])).device(Space::test_device(0)).build().unwrap();
    let halves = [a.slice(s![..32, ..]).unwrap(), a.slice(s![32.., ..]).unwrap()];
    std::thread::scope(|sc| {
        for (k, half) in halves.iter().enumerate() {
            sc.spawn(move || {
                let mut h = half.host_mut().unwrap();
                for ([i, j], x) in h.indexed_mut() {
                    *x = (k * 32 + i) as u64 * 100 + j as u64;
                }
            });
        }
    });
    a.sync_device().unwrap();
    let d = a.device().unwrap();
    assert!(d.indexed().all(|([i, j], &x)| x == i as u64 * 100 + j as u64));
}

#[test]
fn dynamic_rank_guards_index_with_slices_and_dyn_indices() {
    let a = DualView::<i32>::new("d", DynRank::new(&[2, 3]).unwrap()).unwrap();
    let mut h = a.host_mut().unwrap();
    h[[1, 2]] = 4;
    h[&[0, 1][..]] = 3;
    h[DynIndex::from([0, 0])] = 1;
    assert_eq!(*h.get(&[1, 2]).unwrap(), 4);
    assert_eq!(h.get([1, 2, 0]).unwrap_err().kind(), ErrorKind::RankMismatch);
    assert_eq!(&*h.shape(), &[2, 3]);
    let idx: Vec<DynIndex> = h.indexed().map(|(i, _)| i).collect();
    assert_eq!(idx[1], [0, 1]);
    assert_eq!(h.to_vec().unwrap(), vec![1, 3, 0, 0, 0, 4]);
}

#[test]
fn small_conversions() {
    assert_eq!(Dims::from([2, 3]), Dims::new([2, 3]).unwrap());
    assert_eq!(Slice::from(2..), Slice::From(2));
    assert_eq!(Slice::from(..), Slice::All);
    assert_eq!(Slice::from(..=3), Slice::Range(0, 4));
    let a = DualView::<u8, Dims<1>>::new("c", Dims::from([6])).unwrap();
    assert_eq!(a.subview(&[Slice::from(4..)]).unwrap().len(), 2);
    assert_eq!(a.subview(&[Slice::From(7)]).unwrap_err().kind(), ErrorKind::OutOfRange);
}

#[cfg(not(feature = "cuda"))]
#[test]
fn without_the_cuda_feature_cuda_spaces_say_why() {
    assert_eq!(dualview::memory::cuda_device_count(), 0);
    let e = DualView::<f32, Dims<1>>::builder("c", Dims::from([4])).device(Space::cuda(0)).build().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NoDevice);
    assert!(e.to_string().contains("without its `cuda` feature"), "{e}");
}

#[test]
fn an_error_from_main_reads_like_its_message() {
    let a = DualView::<f32, Dims<1>>::builder("A", Dims::from([2])).device(Space::test_device(0)).build().unwrap();
    a.modify_device().unwrap();
    let e = a.modify_host().unwrap_err();
    // What `fn main() -> Result<(), dualview::Error>` prints after "Error: ".
    assert!(format!("{e:?}").starts_with("ConcurrentModification: DualView \"A\": modify_host"), "{e:?}");
    assert!(format!("{e:?}").ends_with(&e.to_string()));
}

#[test]
fn a_guard_that_must_sync_needs_the_whole_side() {
    let a = grid(Layout::Right, 4, 4); // host newer than the device
    let (top, bottom) = (a.slice(s![..2, ..]).unwrap(), a.slice(s![2.., ..]).unwrap());
    let t = top.host_mut().unwrap();
    // The device is stale: its guard must copy the whole host side first, which `t` holds in part.
    assert_eq!(bottom.device_mut().unwrap_err().kind(), ErrorKind::Busy);
    drop(t);
    a.sync_device().unwrap();
    // In sync, nothing to copy: disjoint regions coexist.
    let (_t, _b) = (top.device_mut().unwrap(), bottom.device_mut().unwrap());
}

#[test]
fn a_guard_refused_for_its_extents_type_changes_nothing() {
    use dualview::Const;
    let a = DualView::<u8, (Const<4>,)>::builder("c", (Const,)).device(Space::test_device(0)).build().unwrap();
    // The untyped handle can resize to sizes the static type cannot hold.
    a.raw().resize(&DynRank::new(&[5]).unwrap()).unwrap();
    assert_eq!(a.host_mut().unwrap_err().kind(), ErrorKind::StaticMismatch);
    assert_eq!(a.device().unwrap_err().kind(), ErrorKind::StaticMismatch);
    assert!(!a.need_sync_device() && !a.need_sync_host(), "no side was marked");
    assert_eq!(a.into_extents::<DynRank>().unwrap().host().unwrap().len(), 5);
}

#[test]
fn safe_forms_adopt_a_vec_and_copy_between_guards() {
    // adopt_host_vec: the DualView owns the array; its values go to the device at the first sync.
    let legacy: Vec<i32> = (0..12).collect();
    let a = DualView::<i32, Dims<2>>::builder("adopted", Dims::new([4, 3]).unwrap()).device(Space::test_device(3)).layout(Layout::Right).adopt_host_vec(legacy).unwrap();
    a.sync_device().unwrap();
    assert_eq!(a.device().unwrap().to_vec().unwrap(), (0..12).collect::<Vec<_>>());
    let e = DualView::<i32, Dims<2>>::builder("short", Dims::new([4, 3]).unwrap()).device(Space::test_device(3)).adopt_host_vec(vec![0; 5]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    let e = DualView::<i32, Dims<2>>::builder("one_space", Dims::new([4, 3]).unwrap()).adopt_host_vec(vec![0; 12]).unwrap_err();
    assert!(e.message().contains("no pageable host mirror"), "one allocation for both sides: {e}");
    assert_eq!(a.resize(Dims::new([8, 3]).unwrap()).unwrap_err().kind(), ErrorKind::Unmanaged);
    let sub = a.subview(&[Slice::Range(1, 3), Slice::All]).unwrap();
    drop(a);
    assert_eq!(sub.host().unwrap().to_vec().unwrap(), (3..9).collect::<Vec<_>>(), "a subview keeps the adopted array alive");
    drop(sub); // frees it (valgrind and ASan runs see a leak or a double free otherwise)

    // copy_from: a guard's region from another guard's, across DualViews, sides and layouts.
    let l = DualView::<i32, Dims<2>>::builder("left", Dims::new([4, 3]).unwrap()).device(Space::test_device(3)).layout(Layout::Left).build().unwrap();
    let r = DualView::<i32, Dims<2>>::builder("right", Dims::new([4, 3]).unwrap()).device(Space::test_device(3)).layout(Layout::Right).build().unwrap();
    {
        let mut h = r.host_write().unwrap();
        for i in 0..4 {
            for j in 0..3 {
                h[[i, j]] = (10 * i + j) as i32;
            }
        }
    }
    l.device_write().unwrap().copy_from(&r.host().unwrap()).unwrap();
    let d = l.host().unwrap();
    assert_eq!((d[[3, 2]], d[[1, 0]]), (32, 10), "element by element, whatever the layouts");
    let e = l.host_write().unwrap_err(); // `d` still reads it: no writer meanwhile
    assert_eq!(e.kind(), ErrorKind::Busy, "{e}");
    drop(d);
    let small = DualView::<i32, Dims<2>>::builder("small", Dims::new([2, 3]).unwrap()).build().unwrap();
    assert!(small.host_write().unwrap().copy_from(&r.host().unwrap()).is_err(), "different extents");
}

/// Messages of the Rust API name no C function (issue 46, item 3): each refusal a
/// Rust caller can meet names the method and what was wrong, never `dv_...`.
#[test]
fn refusals_speak_rust_not_c() {
    use dualview::{Desc, ElemSpec, Mapping, RawDualView};
    let a = DualView::<f64, Dims<2>>::builder("A", Dims::from([4, 3])).device(Space::test_device(0)).build().unwrap();
    let mut msgs = vec![];
    a.modify_host().unwrap();
    msgs.push(a.modify_device().unwrap_err());
    a.sync_device().unwrap();
    msgs.push(a.subview(&[Slice::Range(0, 9), Slice::All]).unwrap_err());
    msgs.push(a.subview(&[Slice::All]).unwrap_err());
    let c = a.as_const();
    a.modify_device().unwrap();
    msgs.push(c.sync_host().unwrap_err()); // a const handle that would have to copy
    a.sync_host().unwrap();
    msgs.push(c.host_mut().map(|_| ()).unwrap_err());
    // A wrapped array cannot be resized.
    let mut buf = vec![0f64; 12];
    let m = Mapping::new(Layout::Right, DynRank::new(&[4, 3]).unwrap()).unwrap();
    let desc = Desc::new(ElemSpec::of::<f64>(), m, Space::HOST);
    // SAFETY: buf outlives w and holds 12 f64; nothing else touches it meanwhile.
    let w = unsafe { RawDualView::wrap("W", &desc, std::ptr::NonNull::new(buf.as_mut_ptr() as *mut u8).unwrap(), None) }.unwrap();
    msgs.push(w.resize(&DynRank::new(&[8, 3]).unwrap()).unwrap_err());
    drop(w);
    for e in &msgs {
        assert!(!e.message().contains("dv_"), "a C name in a Rust message: {e}");
        assert!(!e.message().contains("desc->"), "a C descriptor in a Rust message: {e}");
    }
    assert_eq!(msgs.len(), 6);
}
