//! Single-space views: alignment, zero-fill, sharing, wrapping, overlap.

use dualview::{DynRank, ElemSpec, ErrorKind, Layout, Mapping, Slice, Space, View};
use std::ptr::NonNull;

fn right(v: &[usize]) -> Mapping {
    Mapping::new(Layout::Right, DynRank::new(v).unwrap()).unwrap()
}

#[test]
fn host_allocations_are_64_byte_aligned_and_zeroed() {
    for n in [1usize, 3, 17, 1000, 1 << 16] {
        let v = View::new("v", ElemSpec::of::<u8>(), right(&[n]), Space::HOST, true).unwrap();
        assert_eq!(v.data() as usize % 64, 0);
        // SAFETY: n zero-filled host bytes.
        let s = unsafe { std::slice::from_raw_parts(v.data(), n) };
        assert!(s.iter().all(|&b| b == 0));
    }
}

#[test]
fn zero_sized_views_are_legal() {
    let v = View::new("empty", ElemSpec::of::<f64>(), right(&[0, 5]), Space::HOST, true).unwrap();
    assert_eq!((v.size(), v.span()), (0, 0));
    // SAFETY: nothing else uses v.
    unsafe { v.fill(&[0; 8]) }.unwrap();
    let w = View::new("empty2", ElemSpec::of::<f64>(), right(&[0, 5]), Space::test_device(3), true).unwrap();
    // SAFETY: the test owns these views; nothing else uses them.
    unsafe { w.copy_from(&v) }.unwrap();
}

#[test]
fn clones_and_subviews_share_the_allocation() {
    let v = View::new("v", ElemSpec::of::<u32>(), right(&[4, 4]), Space::HOST, true).unwrap();
    let c = v.clone();
    let s = v.subview(&[Slice::Range(1, 3), Slice::All]).unwrap();
    assert_eq!(v.use_count(), 3);
    assert_eq!(s.data() as usize - v.data() as usize, 16);
    assert_eq!(s.label(), "v");
    drop((c, s));
    assert_eq!(v.use_count(), 1);
}

#[test]
fn wrapped_memory_is_not_freed_and_is_used_in_place() {
    let mut buf = vec![0u64; 12];
    let p = NonNull::new(buf.as_mut_ptr() as *mut u8).unwrap();
    {
        // SAFETY: buf holds 12 u64 and outlives the view.
        let v = unsafe { View::wrap("legacy", ElemSpec::of::<u64>(), right(&[3, 4]), Space::HOST, p) }.unwrap();
        assert!(!v.is_owned());
        // SAFETY: the test owns these views; nothing else uses them.
        unsafe { v.fill(&9u64.to_ne_bytes()) }.unwrap();
    }
    assert!(buf.iter().all(|&x| x == 9));
    // misaligned pointer
    let bad = NonNull::new(buf.as_mut_ptr() as *mut u8).unwrap().as_ptr().wrapping_add(1);
    // SAFETY: refused before any access.
    let e = unsafe { View::wrap("bad", ElemSpec::of::<u64>(), right(&[2]), Space::HOST, NonNull::new(bad).unwrap()) };
    assert_eq!(e.unwrap_err().kind(), ErrorKind::InvalidArgument);
}

#[test]
fn overlapping_copy_within_one_allocation_is_staged() {
    let v = View::new("v", ElemSpec::of::<u32>(), right(&[6]), Space::HOST, true).unwrap();
    let p = v.data() as *mut u32;
    for i in 0..6 {
        // SAFETY: 6 host u32.
        unsafe { *p.add(i) = i as u32 };
    }
    let a = v.subview(&[Slice::Range(0, 4)]).unwrap();
    let b = v.subview(&[Slice::Range(2, 6)]).unwrap();
    // SAFETY: the test owns these views; nothing else uses them.
    unsafe { a.copy_from(&b) }.unwrap();
    // SAFETY: 6 host u32.
    let s = unsafe { std::slice::from_raw_parts(p, 6) };
    assert_eq!(s, &[2, 3, 4, 5, 4, 5]);
}

#[test]
fn copy_checks_shapes_and_element_sizes() {
    let a = View::new("a", ElemSpec::of::<u32>(), right(&[4]), Space::HOST, true).unwrap();
    let b = View::new("b", ElemSpec::of::<u32>(), right(&[5]), Space::HOST, true).unwrap();
    let c = View::new("c", ElemSpec::of::<u64>(), right(&[4]), Space::HOST, true).unwrap();
    // SAFETY: the test owns these views; nothing else uses them.
    assert_eq!(unsafe { a.copy_from(&b) }.unwrap_err().kind(), ErrorKind::Incompatible);
    // SAFETY: the test owns these views; nothing else uses them.
    assert_eq!(unsafe { a.copy_from(&c) }.unwrap_err().kind(), ErrorKind::Incompatible);
}

/// Without a GPU the CUDA spaces answer `NoDevice`; with one they allocate
/// (zero-filled, read back through a host copy). A device that does not exist
/// answers `NoDevice` on every machine.
#[test]
fn cuda_spaces_answer_no_device_without_a_backend() {
    let gpu = dualview::memory::cuda_device_count() > 0;
    for s in [Space::cuda(0), Space::cuda_uvm(0), Space::host_pinned()] {
        let r = View::new("g", ElemSpec::of::<f32>(), right(&[4]), s, true);
        if gpu {
            let v = r.unwrap_or_else(|e| panic!("{s} with a GPU present: {e}"));
            let h = View::new("h", ElemSpec::of::<f32>(), right(&[4]), Space::HOST, false).unwrap();
            // SAFETY: the test owns these views; nothing else uses them.
            unsafe { h.copy_from(&v) }.unwrap();
            // SAFETY: 4 f32 of host memory, written by the copy.
            assert_eq!(unsafe { std::slice::from_raw_parts(h.data() as *const f32, 4) }, &[0.0; 4], "{s}");
        } else {
            let e = r.unwrap_err();
            assert_eq!(e.kind(), ErrorKind::NoDevice);
            assert!(!e.message().is_empty());
        }
    }
    for s in [Space::cuda(99), Space::cuda_uvm(99), Space::test_device(64)] {
        let e = View::new("t", ElemSpec::of::<f32>(), right(&[4]), s, true).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NoDevice, "{s}");
    }
}

#[test]
fn large_allocations_come_from_zero_pages_and_round_trip() {
    // 40 MiB: far above the kernel-mapping threshold.
    let n = 40usize << 20;
    let v = View::new("big", ElemSpec::of::<u8>(), right(&[n]), Space::test_device(8), true).unwrap();
    assert_eq!(v.data() as usize % 4096, 0);
    // SAFETY: n host bytes.
    let s = unsafe { std::slice::from_raw_parts(v.data(), n) };
    assert!(s.iter().step_by(4093).all(|&b| b == 0) && s[n - 1] == 0);
    // SAFETY: the test owns these views; nothing else uses them.
    unsafe { v.fill(&[7]) }.unwrap();
    let w = View::new("small", ElemSpec::of::<u8>(), right(&[n]), Space::HOST, false).unwrap();
    // SAFETY: the test owns these views; nothing else uses them.
    unsafe { w.copy_from(&v) }.unwrap();
    // SAFETY: n host bytes, written by the copy.
    let t = unsafe { std::slice::from_raw_parts(w.data(), n) };
    assert!(t.iter().step_by(4093).all(|&b| b == 7));
    drop((v, w));
    assert_eq!(dualview::memory::test_device::used_bytes(8).unwrap(), 0);
}
