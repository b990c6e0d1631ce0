//! Layout mappings, spans, Kokkos strides, subview mappings, and strided
//! copies/fills checked element by element against the mapping.

use dualview::{DynRank, ElemSpec, ErrorKind, Extents, Layout, Mapping, Slice, Space, View};
use proptest::prelude::*;
mod common;
use common::row_major;

fn d(v: &[usize]) -> DynRank {
    DynRank::new(v).unwrap()
}

#[test]
fn left_and_right_offsets_for_ranks_0_to_8() {
    for rank in 0..=8usize {
        let ext: Vec<usize> = (0..rank).map(|r| [2, 3, 1, 2][r % 4]).collect();
        for layout in [Layout::Left, Layout::Right] {
            let m = Mapping::new(layout, d(&ext)).unwrap();
            assert_eq!(m.rank(), rank);
            let mut seen = vec![false; m.size()];
            for idx in row_major(&ext) {
                let off = m.offset(&idx).unwrap();
                // The textbook formula.
                let mut want = 0;
                let mut mul = 1;
                let order: Vec<usize> =
                    if layout == Layout::Left { (0..rank).collect() } else { (0..rank).rev().collect() };
                for r in order {
                    want += idx[r] * mul;
                    mul *= ext[r];
                }
                assert_eq!(off, want, "{layout} {idx:?}");
                assert!(!seen[off]);
                seen[off] = true;
            }
            assert_eq!(m.span(), m.size());
            assert!(m.span_is_contiguous());
            let ks = m.kokkos_strides();
            assert_eq!(ks.len(), rank + 1);
            assert_eq!(ks[rank], m.span());
        }
    }
}

#[test]
fn rank0_mapping_is_one_element() {
    let m = Mapping::new(Layout::Right, d(&[])).unwrap();
    assert_eq!((m.size(), m.span(), m.offset(&[]).unwrap()), (1, 1, 0));
    assert_eq!(m.kokkos_strides(), vec![1]);
}

#[test]
fn stride_layout_invariants() {
    // 1. count
    assert_eq!(Mapping::with_strides(d(&[2, 2]), &[1]).unwrap_err().kind(), ErrorKind::InvalidArgument);
    // 2. span overflow
    assert_eq!(
        Mapping::with_strides(d(&[3, 2]), &[1, usize::MAX / 2]).unwrap_err().kind(),
        ErrorKind::Overflow
    );
    // 3. uniqueness
    assert_eq!(Mapping::with_strides(d(&[2, 3]), &[3, 2]).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(Mapping::with_strides(d(&[2, 2]), &[0, 1]).unwrap_err().kind(), ErrorKind::InvalidArgument);
    // extent-1 and zero-extent axes take any stride
    assert!(Mapping::with_strides(d(&[1, 4]), &[0, 1]).is_ok());
    assert!(Mapping::with_strides(d(&[0, 4]), &[7, 1]).is_ok());
    // a transposed (right-ordered) strided mapping is contiguous
    let m = Mapping::with_strides(d(&[2, 3]), &[3, 1]).unwrap();
    assert!(m.span_is_contiguous());
    assert_eq!(m.layout(), Layout::Stride);
    assert_eq!(m.kokkos_strides(), vec![3, 1, 6]);
    // padded: not contiguous
    let p = Mapping::with_strides(d(&[2, 3]), &[1, 4]).unwrap();
    assert_eq!((p.span(), p.size()), (10, 6));
    assert!(!p.span_is_contiguous());
}

#[test]
fn subview_mappings() {
    let m = Mapping::new(Layout::Left, d(&[4, 5, 6])).unwrap();
    // (ALL, ALL, i): a contiguous Left block
    let (s, off) = m.subview(&[Slice::All, Slice::All, Slice::Index(2)]).unwrap();
    assert_eq!((s.layout(), s.extents().as_slice(), off), (Layout::Left, &[4, 5][..], 40));
    // (range, ALL, ALL): strided
    let (s, off) = m.subview(&[Slice::Range(1, 3), Slice::All, Slice::All]).unwrap();
    assert_eq!((s.layout(), s.strides().as_slice(), off), (Layout::Stride, &[1, 4, 20][..], 1));
    assert!(!s.span_is_contiguous());
    // (i, j, ALL): rank 1 with stride 20
    let (s, off) = m.subview(&[Slice::Index(3), Slice::Index(4), Slice::All]).unwrap();
    assert_eq!((s.rank(), s.stride(0).unwrap(), off), (1, 20, 3 + 16));
    // all indices: rank 0
    let (s, off) = m.subview(&[Slice::Index(3), Slice::Index(4), Slice::Index(5)]).unwrap();
    assert_eq!((s.rank(), off), (0, 3 + 16 + 100));
    // errors: wrong count, range past extent, reversed range, index past extent
    assert_eq!(m.subview(&[Slice::All]).unwrap_err().kind(), ErrorKind::RankMismatch);
    assert_eq!(
        m.subview(&[Slice::Range(0, 5), Slice::All, Slice::All]).unwrap_err().kind(),
        ErrorKind::OutOfRange
    );
    assert_eq!(
        m.subview(&[Slice::Range(3, 2), Slice::All, Slice::All]).unwrap_err().kind(),
        ErrorKind::OutOfRange
    );
    assert_eq!(
        m.subview(&[Slice::All, Slice::Index(5), Slice::All]).unwrap_err().kind(),
        ErrorKind::OutOfRange
    );
    // an empty range is legal
    let (s, _) = m.subview(&[Slice::Range(4, 4), Slice::All, Slice::All]).unwrap();
    assert_eq!(s.size(), 0);
}

fn extents_strategy() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..4, 0..5)
}

fn layout_strategy() -> impl Strategy<Value = Layout> {
    prop_oneof![Just(Layout::Left), Just(Layout::Right)]
}

fn slices_for(ext: Vec<usize>) -> impl Strategy<Value = (Vec<usize>, Vec<Slice>)> {
    let per: Vec<BoxedStrategy<Slice>> = ext
        .iter()
        .map(|&e| {
            let mut opts: Vec<BoxedStrategy<Slice>> = vec![Just(Slice::All).boxed()];
            opts.push((0..=e).prop_flat_map(move |a| (a..=e).prop_map(move |b| Slice::Range(a, b))).boxed());
            opts.push((0..=e).prop_map(Slice::From).boxed());
            if e > 0 {
                opts.push((0..e).prop_map(Slice::Index).boxed());
            }
            prop::strategy::Union::new(opts).boxed()
        })
        .collect();
    (Just(ext), per)
}

/// The parent index that a subview index maps to.
fn parent_index(slices: &[Slice], sub_idx: &[usize]) -> Vec<usize> {
    let mut it = sub_idx.iter();
    slices
        .iter()
        .map(|s| match *s {
            Slice::All => *it.next().unwrap(),
            Slice::Range(a, _) | Slice::From(a) => a + it.next().unwrap(),
            Slice::Index(i) => i,
        })
        .collect()
}

fn fill_counting(v: &View) {
    let p = v.data() as *mut u32;
    for (k, idx) in row_major(v.extents().as_slice()).iter().enumerate() {
        let off = v.mapping().offset(idx).unwrap();
        // SAFETY: host view, offset inside the span.
        unsafe { *p.add(off) = k as u32 + 1 };
    }
}

fn read_all(v: &View) -> Vec<u32> {
    let p = v.data() as *const u32;
    row_major(v.extents().as_slice())
        .iter()
        .map(|idx| {
            // SAFETY: host-accessible view, offset inside the span.
            unsafe { *p.add(v.mapping().offset(idx).unwrap()) }
        })
        .collect()
}

proptest! {
    #[test]
    fn subview_offsets_match_the_parent((ext, slices) in extents_strategy().prop_flat_map(slices_for), layout in layout_strategy()) {
        let m = Mapping::new(layout, d(&ext)).unwrap();
        let (s, off) = m.subview(&slices).unwrap();
        for idx in row_major(s.extents().as_slice()) {
            let p = parent_index(&slices, &idx);
            prop_assert_eq!(off + s.offset(&idx).unwrap(), m.offset(&p).unwrap());
        }
        prop_assert!(s.span() <= m.span());
    }

    #[test]
    fn strided_copy_between_layouts_and_spaces((ext, slices) in extents_strategy().prop_flat_map(slices_for),
                                               a in layout_strategy(), b in layout_strategy()) {
        let e = d(&ext);
        let src = View::new("src", ElemSpec::of::<u32>(), Mapping::new(a, e).unwrap(), Space::HOST, true).unwrap();
        fill_counting(&src);
        let src_sub = src.subview(&slices).unwrap();
        let dst = View::new("dst", ElemSpec::of::<u32>(), Mapping::new(b, *src_sub.extents()).unwrap(), Space::test_device(9), true).unwrap();
        // SAFETY: the test owns these views; nothing else uses them.
        unsafe { dst.copy_from(&src_sub) }.unwrap();
        prop_assert_eq!(read_all(&dst), read_all(&src_sub));
        // and back into the strided subview of a fresh parent
        let back = View::new("back", ElemSpec::of::<u32>(), Mapping::new(a, e).unwrap(), Space::HOST, true).unwrap();
        let back_sub = back.subview(&slices).unwrap();
        // SAFETY: the test owns these views; nothing else uses them.
        unsafe { back_sub.copy_from(&dst) }.unwrap();
        prop_assert_eq!(read_all(&back_sub), read_all(&src_sub));
        // elements outside the subview stay zero
        let inside: usize = src_sub.size();
        let nonzero = read_all(&back).iter().filter(|&&x| x != 0).count();
        prop_assert_eq!(nonzero, inside);
    }

    #[test]
    fn strided_fill_touches_exactly_the_subview((ext, slices) in extents_strategy().prop_flat_map(slices_for),
                                                a in layout_strategy(), pattern in any::<u32>()) {
        let v = View::new("v", ElemSpec::of::<u32>(), Mapping::new(a, d(&ext)).unwrap(), Space::HOST, true).unwrap();
        let sub = v.subview(&slices).unwrap();
        let pattern = pattern | 1;
        // SAFETY: the test owns these views; nothing else uses them.
        unsafe { sub.fill(&pattern.to_ne_bytes()) }.unwrap();
        prop_assert!(read_all(&sub).iter().all(|&x| x == pattern));
        let touched = read_all(&v).iter().filter(|&&x| x == pattern).count();
        prop_assert_eq!(touched, sub.size());
    }
}

#[test]
fn fill_with_non_uniform_multi_byte_pattern() {
    for size in [1usize, 2, 4, 8, 16] {
        let m = Mapping::new(Layout::Right, d(&[3, 5])).unwrap();
        let v = View::new("v", ElemSpec::new(size, size).unwrap(), m, Space::test_device(9), true).unwrap();
        let pattern: Vec<u8> = (1..=size as u8).collect();
        // SAFETY: the test owns these views; nothing else uses them.
        unsafe { v.fill(&pattern) }.unwrap();
        // SAFETY: 15 contiguous elements of test-device (host) memory.
        let bytes = unsafe { std::slice::from_raw_parts(v.data(), 15 * size) };
        assert!(bytes.chunks(size).all(|c| c == pattern.as_slice()), "size {size}");
        // SAFETY: nothing else uses v.
        assert_eq!(unsafe { v.fill(&[0u8; 3]) }.unwrap_err().kind(), ErrorKind::InvalidArgument);
    }
}

#[test]
fn stride_mapping_resized_keeps_axis_order() {
    let v = View::new("v", ElemSpec::of::<u8>(), Mapping::with_strides(d(&[2, 3]), &[3, 1]).unwrap(), Space::HOST, true)
        .unwrap();
    assert_eq!(v.layout(), Layout::Stride);
    assert!(v.extents().same_as(&d(&[2, 3])));
}
