//! Extents: the rank-1 resolution, the uBLAS suite cases (reference/extents.md
//! section 1.8) under mdspan semantics, conversions and errors.

use dualview::extents::ublas;
use dualview::{Const, Dims, Dyn, DynRank, ErrorKind, Extents, Layout};

fn d(v: &[usize]) -> DynRank {
    DynRank::new(v).unwrap()
}

// ---- the rank-1 case: a size is never a rank -------------------------------

#[test]
fn static_rank1_of_4_is_not_rank4() {
    type S4 = (Const<4>,);
    assert_eq!(S4::RANK, Some(1));
    assert_eq!(S4::RANK_DYNAMIC, Some(0));
    assert_eq!(S4::STATIC_SIZE, Some(4));
    assert_eq!(S4::static_extent(0), Some(4));
    assert_eq!(S4::static_extent(1), None);
    let s = (Const::<4>,);
    assert_eq!((s.rank(), s.size().unwrap()), (1, 4));

    assert_eq!(Dims::<4>::RANK, Some(4));
    assert_eq!(Dims::<4>::RANK_DYNAMIC, Some(4));
    assert_eq!(Dims::<4>::STATIC_SIZE, None);
    let f = Dims::new([4, 4, 4, 4]).unwrap();
    assert_eq!((f.rank(), f.size().unwrap()), (4, 256));

    // They never compare equal and never convert into each other.
    assert!(!s.same_as(&f));
    assert_eq!(<(Const<4>,)>::try_from_extents(&f).unwrap_err().kind(), ErrorKind::RankMismatch);
    assert_eq!(Dims::<4>::try_from_extents(&s).unwrap_err().kind(), ErrorKind::RankMismatch);
}

#[test]
fn dims1_and_dyn_extents_keep_vector_aliasing() {
    // vector<float>{4}: rank 1, four elements, whatever the kind.
    let v = Dims::new([4]).unwrap();
    assert_eq!((v.rank(), v.size().unwrap()), (1, 4));
    assert_eq!(d(&[4]).rank(), 1);
    assert_eq!(d(&[4, 4]).rank(), 2);
    assert_eq!((d(&[]).rank(), d(&[]).size().unwrap()), (0, 1));
    assert!((Const::<4>,).same_as(&v));
    assert!((Const::<4>,).same_as(&d(&[4])));
    assert!(v == d(&[4]) && d(&[4]) == v);
    assert!((Const::<4>,) == d(&[4]));
    assert!(d(&[2, 3]) == (Const::<2>, Const::<3>));
    assert!(!(Dims::new([4, 4, 4, 4]).unwrap() == d(&[4])));
}

#[test]
fn dims_of_dyn_tuple_and_dims_agree() {
    let t = (Dyn::new(2), Dyn::new(3));
    assert!(t.same_as(&Dims::new([2, 3]).unwrap()));
    assert_eq!(<(Dyn, Dyn)>::RANK_DYNAMIC, Some(2));
}

// ---- construction and errors -----------------------------------------------

#[test]
fn mdspan_constructor_rule_and_static_mismatch() {
    type E = (Dyn, Const<3>, Dyn);
    let a = E::try_from_slice(&[5, 7]).unwrap();
    assert_eq!(&a.values()[..3], &[5, 3, 7]);
    let b = E::try_from_slice(&[5, 3, 7]).unwrap();
    assert_eq!(a, b);
    let e = E::try_from_slice(&[5, 4, 7]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::StaticMismatch);
    assert!(e.message().contains("axis 1"), "{e}");
    assert_eq!(E::try_from_slice(&[1]).unwrap_err().kind(), ErrorKind::RankMismatch);
    // extents<4>{5} throws std::invalid_argument -> StaticMismatch
    assert_eq!(<(Const<4>,)>::try_from_slice(&[5]).unwrap_err().kind(), ErrorKind::StaticMismatch);
    assert_eq!(<(Const<4>,)>::try_from_slice(&[4]).unwrap(), (Const::<4>,));
    assert_eq!(<(Const<4>,)>::try_from_slice(&[]).unwrap(), (Const::<4>,));
}

#[test]
fn rank_above_8_is_refused() {
    assert_eq!(DynRank::new(&[1; 9]).unwrap_err().kind(), ErrorKind::RankTooLarge);
    assert!(DynRank::new(&[1; 8]).is_ok());
    assert_eq!(DynRank::try_from_slice(&[2; 9]).unwrap_err().kind(), ErrorKind::RankTooLarge);
}

#[test]
fn overflow_is_refused_everywhere() {
    let big = usize::MAX / 2;
    assert_eq!(DynRank::new(&[big, 3]).unwrap_err().kind(), ErrorKind::Overflow);
    assert_eq!(Dims::new([big, 3]).unwrap_err().kind(), ErrorKind::Overflow);
    assert_eq!(<(Dyn, Dyn)>::try_from_slice(&[big, 3]).unwrap_err().kind(), ErrorKind::Overflow);
    let t = (Dyn::new(big), Dyn::new(3));
    assert_eq!(t.size().unwrap_err().kind(), ErrorKind::Overflow);
    assert_eq!(Layout::Right.strides(&t).unwrap_err().kind(), ErrorKind::Overflow);
    // A zero extent does not hide an overflow of the others (strides would overflow).
    assert_eq!(DynRank::new(&[0, big, 3]).unwrap_err().kind(), ErrorKind::Overflow);
    assert_eq!(DynRank::new(&[0, isize::MAX as usize]).unwrap().size().unwrap(), 0);
}

#[test]
fn axis_out_of_range() {
    let e = d(&[2, 3]);
    assert_eq!(e.extent(2).unwrap_err().kind(), ErrorKind::OutOfRange);
    assert_eq!(d(&[]).extent(0).unwrap_err().kind(), ErrorKind::OutOfRange);
    assert_eq!(Dims::<0>::default().extent(0).unwrap_err().kind(), ErrorKind::OutOfRange);
}

#[test]
fn default_fixed_rank_is_zeros_and_valid() {
    // uBLAS #121: a default static-rank extents is zeros, and here that is valid.
    let z = Dims::<3>::default();
    assert_eq!(z.get(), [0, 0, 0]);
    assert!(z.check().is_ok());
    assert_eq!(z.size().unwrap(), 0);
}

#[test]
fn conversions_between_kinds() {
    // more static -> less static always works
    let s = (Const::<2>, Const::<3>);
    let dims: Dims<2> = Dims::try_from_extents(&s).unwrap();
    assert_eq!(dims.get(), [2, 3]);
    let dy: DynRank = dims.into();
    assert_eq!(dy.as_slice(), &[2, 3]);
    // less static -> more static is checked
    assert_eq!(Dims::<2>::try_from(d(&[1, 2, 3])).unwrap_err().kind(), ErrorKind::RankMismatch);
    assert_eq!(
        <(Const<2>, Const<3>)>::try_from_extents(&d(&[2, 4])).unwrap_err().kind(),
        ErrorKind::StaticMismatch
    );
    assert_eq!(<(Dyn, Const<3>)>::try_from_extents(&d(&[9, 3])).unwrap().values()[0], 9);
    // Rank 0 converts between all kinds.
    assert!(<()>::try_from_extents(&d(&[])).is_ok());
    assert!(Dims::<0>::try_from_extents(&()).is_ok());
}

// ---- uBLAS suite, section 1.8 ----------------------------------------------

/// The develop fixtures (digits are the extents).
fn fixtures() -> Vec<(&'static str, DynRank)> {
    [
        ("n", vec![]),
        ("n1", vec![1]),
        ("n2", vec![2]),
        ("n11", vec![1, 1]),
        ("n12", vec![1, 2]),
        ("n21", vec![2, 1]),
        ("n22", vec![2, 2]),
        ("n32", vec![3, 2]),
        ("n111", vec![1, 1, 1]),
        ("n112", vec![1, 1, 2]),
        ("n121", vec![1, 2, 1]),
        ("n123", vec![1, 2, 3]),
        ("n211", vec![2, 1, 1]),
        ("n213", vec![2, 1, 3]),
        ("n321", vec![3, 2, 1]),
        ("n432", vec![4, 3, 2]),
        ("n1111", vec![1, 1, 1, 1]),
        ("n4231", vec![4, 2, 3, 1]),
    ]
    .into_iter()
    .map(|(n, v)| (n, d(&v)))
    .collect()
}

fn names_where(p: impl Fn(&DynRank) -> bool) -> Vec<&'static str> {
    fixtures().into_iter().filter(|(_, e)| p(e)).map(|(n, _)| n).collect()
}

#[test]
fn ublas_2_3_construction_values_and_at() {
    // #2, #3: {1,2,3,4,5}; at(5) out of range
    let e = d(&[1, 2, 3, 4, 5]);
    assert_eq!(e.rank(), 5);
    assert_eq!(e.as_slice(), &[1, 2, 3, 4, 5]);
    assert_eq!(e.extent(5).unwrap_err().kind(), ErrorKind::OutOfRange);
    // #1: empty extents: rank 0, at(0) throws
    assert_eq!(d(&[]).rank(), 0);
    // #6/#7: extents<4> (static rank 4) == Dims<4> here
    let f = Dims::new([1, 2, 3, 4]).unwrap();
    assert_eq!(f.get(), [1, 2, 3, 4]);
    assert_eq!(f.extent(4).unwrap_err().kind(), ErrorKind::OutOfRange);
    // #10: static extents<4,2,3,1>
    let s = (Const::<4>, Const::<2>, Const::<3>, Const::<1>);
    assert_eq!(&s.values()[..4], &[4, 2, 3, 1]);
    assert_eq!(s.extent(4).unwrap_err().kind(), ErrorKind::OutOfRange);
    // #16: at / []
    assert_eq!(d(&[4, 3, 2]).extent(1).unwrap(), 3);
}

#[test]
fn ublas_5_9_zero_extents_are_legal_here() {
    // uBLAS throws for {1,1,0}, {1,0}, {0}, {0,1}; mdspan semantics allow them
    // (empty views, resize to 0). uBLAS's validity survives as ublas::is_valid.
    for v in [&[1, 1, 0][..], &[1, 0], &[0], &[0, 1]] {
        let e = d(v);
        assert_eq!(e.size().unwrap(), 0);
        assert!(!ublas::is_valid(&e));
    }
    // #9: a wrong count for a fixed rank is RankMismatch (uBLAS length_error).
    assert_eq!(Dims::<4>::try_from_slice(&[1, 1, 0]).unwrap_err().kind(), ErrorKind::RankMismatch);
    assert_eq!(Dims::<4>::try_from_slice(&[1, 1, 1, 1, 1]).unwrap_err().kind(), ErrorKind::RankMismatch);
    assert!(Dims::<4>::try_from_slice(&[1, 1, 0, 1]).is_ok());
}

#[test]
fn ublas_13_size_is_rank() {
    for (name, e) in fixtures() {
        let expected = name.len() - 1;
        assert_eq!(e.rank(), expected, "{name}");
    }
}

#[test]
fn ublas_17_18_comparison() {
    let f: std::collections::HashMap<_, _> = fixtures().into_iter().collect();
    for (a, b) in [
        ("n1", "n2"),
        ("n11", "n12"),
        ("n12", "n21"),
        ("n21", "n22"),
        ("n22", "n32"),
        ("n111", "n112"),
        ("n1111", "n4231"),
        ("n", "n1"),
        ("n1", "n11"),
        ("n11", "n111"),
        ("n111", "n1111"),
    ] {
        assert_ne!(f[a], f[b], "{a} vs {b}");
        assert_eq!(f[a], f[a]);
    }
}

#[test]
fn ublas_19_validity_of_fixtures() {
    assert_eq!(names_where(|e| !ublas::is_valid(e)), Vec::<&str>::new());
}

#[test]
fn ublas_20_is_scalar() {
    assert_eq!(names_where(ublas::is_scalar), vec!["n1", "n11", "n111", "n1111"]);
}

#[test]
fn ublas_21_is_vector() {
    assert_eq!(
        names_where(ublas::is_vector),
        vec!["n1", "n2", "n11", "n12", "n21", "n111", "n121", "n211", "n1111"]
    );
}

#[test]
fn ublas_22_is_matrix() {
    assert_eq!(
        names_where(ublas::is_matrix),
        vec!["n1", "n2", "n11", "n12", "n21", "n22", "n32", "n111", "n121", "n211", "n321", "n1111"]
    );
}

#[test]
fn ublas_23_is_tensor() {
    assert_eq!(names_where(ublas::is_tensor), vec!["n112", "n123", "n213", "n432", "n4231"]);
}

#[test]
fn ublas_24_product_and_our_size() {
    let expect = [0, 1, 2, 1, 2, 2, 4, 6, 1, 2, 2, 6, 2, 6, 6, 24, 1, 24];
    for ((name, e), p) in fixtures().into_iter().zip(expect) {
        assert_eq!(ublas::product(&e), p, "{name}");
        // Our size differs only for rank 0 (a scalar has one element).
        let size = if name == "n" { 1 } else { p };
        assert_eq!(e.size().unwrap(), size, "{name}");
    }
}

#[test]
fn ublas_26_first_order_strides() {
    let canonical: [(&str, &[usize]); 17] = [
        ("n1", &[1]),
        ("n2", &[1]),
        ("n11", &[1, 1]),
        ("n12", &[1, 1]),
        ("n21", &[1, 2]),
        ("n22", &[1, 2]),
        ("n32", &[1, 3]),
        ("n111", &[1, 1, 1]),
        ("n112", &[1, 1, 1]),
        ("n121", &[1, 1, 2]),
        ("n123", &[1, 1, 2]),
        ("n211", &[1, 2, 2]),
        ("n213", &[1, 2, 2]),
        ("n321", &[1, 3, 6]),
        ("n432", &[1, 4, 12]),
        ("n1111", &[1, 1, 1, 1]),
        ("n4231", &[1, 4, 8, 24]),
    ];
    let shortcut: [(&str, &[usize]); 3] = [("n21", &[1, 1]), ("n211", &[1, 1, 1]), ("n121", &[1, 1, 1])];
    check_strides(Layout::Left, &canonical, &shortcut);
}

#[test]
fn ublas_27_last_order_strides() {
    let canonical: [(&str, &[usize]); 17] = [
        ("n1", &[1]),
        ("n2", &[1]),
        ("n11", &[1, 1]),
        ("n12", &[2, 1]),
        ("n21", &[1, 1]),
        ("n22", &[2, 1]),
        ("n32", &[2, 1]),
        ("n111", &[1, 1, 1]),
        ("n112", &[2, 2, 1]),
        ("n121", &[2, 1, 1]),
        ("n123", &[6, 3, 1]),
        ("n211", &[1, 1, 1]),
        ("n213", &[3, 3, 1]),
        ("n321", &[2, 1, 1]),
        ("n432", &[6, 2, 1]),
        ("n1111", &[1, 1, 1, 1]),
        ("n4231", &[6, 3, 1, 1]),
    ];
    let shortcut: [(&str, &[usize]); 2] = [("n12", &[1, 1]), ("n121", &[1, 1, 1])];
    check_strides(Layout::Right, &canonical, &shortcut);
}

/// Our canonical strides, uBLAS's shortcut strides where they differ, and the
/// proof that both address every element identically.
fn check_strides(layout: Layout, canonical: &[(&str, &[usize])], shortcut: &[(&str, &[usize])]) {
    let f: std::collections::HashMap<_, _> = fixtures().into_iter().collect();
    for &(name, want) in canonical {
        let e = f[name];
        assert_eq!(layout.strides(&e).unwrap().as_slice(), want, "{name}");
        let order = if layout == Layout::Left { ublas::Order::First } else { ublas::Order::Last };
        let ub = ublas::to_strides(&e, order);
        if let Some((_, s)) = shortcut.iter().find(|(n, _)| *n == name) {
            assert_eq!(ub.as_slice(), *s, "{name} uBLAS shortcut");
        }
        // identical offsets for every index
        let ext = e.as_slice();
        let n: usize = ext.iter().product();
        for lin in 0..n {
            let mut rem = lin;
            let mut idx = vec![0; ext.len()];
            for r in (0..ext.len()).rev() {
                idx[r] = rem % ext[r];
                rem /= ext[r];
            }
            let off = |s: &[usize]| idx.iter().zip(s).map(|(i, s)| i * s).sum::<usize>();
            assert_eq!(off(want), off(&ub), "{name} {idx:?}");
        }
    }
}

#[test]
fn ublas_35_36_master_strides() {
    let cases: [(&[usize], &[usize], &[usize]); 5] = [
        (&[2, 3], &[1, 2], &[3, 1]),
        (&[2, 3, 1], &[1, 2, 6], &[3, 1, 1]),
        (&[1, 2, 3], &[1, 1, 2], &[6, 3, 1]),
        (&[2, 1, 3], &[1, 2, 2], &[3, 3, 1]),
        (&[4, 2, 3], &[1, 4, 8], &[6, 3, 1]),
    ];
    for (e, left, right) in cases {
        assert_eq!(Layout::Left.strides(&d(e)).unwrap().as_slice(), left, "{e:?}");
        assert_eq!(Layout::Right.strides(&d(e)).unwrap().as_slice(), right, "{e:?}");
    }
    // Static kinds give the same (uBLAS #44 and issue #119, fixed by construction).
    let s = (Const::<4>, Const::<2>, Const::<3>);
    assert_eq!(Layout::Left.strides(&s).unwrap().as_slice(), &[1, 4, 8]);
    assert_eq!(Layout::Right.strides(&s).unwrap().as_slice(), &[6, 3, 1]);
    assert_eq!(Layout::Left.strides(&d(&[0, 3])).unwrap().as_slice(), &[1, 0]);
    assert_eq!(Layout::Stride.strides(&d(&[2])).unwrap_err().kind(), ErrorKind::InvalidArgument);
}

#[test]
fn ublas_32_41_squeeze() {
    // numpy squeeze (uBLAS master #32 cases that do not need "keep two")
    for (from, to) in [
        (&[][..], &[][..]),
        (&[2, 3], &[2, 3]),
        (&[2, 3, 1], &[2, 3]),
        (&[1, 2, 3], &[2, 3]),
        (&[1, 1, 2, 3], &[2, 3]),
        (&[1, 2, 3, 1, 1], &[2, 3]),
        (&[4, 2, 1, 3, 1], &[4, 2, 3]),
        (&[1, 4, 2, 1, 3, 1], &[4, 2, 3]),
        (&[1, 4, 1], &[4]),
        (&[1, 1], &[]),
    ] {
        assert_eq!(d(from).squeeze().as_slice(), to, "{from:?}");
    }
    // Octave rule (uBLAS 2020, #41), and the rank <= 2 cases of #32
    for (from, to) in [
        (&[1, 4, 1][..], &[1, 4][..]),
        (&[1, 1, 1, 1], &[1, 1]),
        (&[1, 4, 1, 1, 1], &[1, 4]),
        (&[1, 1, 2, 1, 1, 1], &[2, 1]),
        (&[1, 1, 2, 3, 1, 1], &[2, 3]),
        (&[4, 2, 1, 3, 1], &[4, 2, 3]),
        (&[1, 1], &[1, 1]),
        (&[1, 2], &[1, 2]),
        (&[2, 1], &[2, 1]),
    ] {
        assert_eq!(d(from).squeeze_octave().as_slice(), to, "{from:?}");
    }
    // #42: squeezing a static extents gives the squeezed values
    let s = (Const::<1>, Const::<4>, Const::<2>, Const::<1>, Const::<3>, Const::<1>);
    assert_eq!(s.squeeze().as_slice(), &[4, 2, 3]);
}

#[test]
fn ublas_40_cross_kind_equality() {
    let s = (Const::<1>, Const::<4>, Const::<2>, Const::<1>, Const::<3>, Const::<1>);
    let f = Dims::new([1, 4, 2, 1, 3, 1]).unwrap();
    let y = d(&[1, 4, 2, 1, 3, 1]);
    assert!(s.same_as(&f) && f.same_as(&y) && y.same_as(&s));
    assert!(().same_as(&Dims::<0>::default()) && ().same_as(&d(&[])));
    assert!(!(Const::<1>, Const::<1>).same_as(&d(&[])));
}

#[test]
fn ublas_39_static_rank1_predicates_are_correct_for_the_type() {
    // uBLAS #116/#39: extents_core<T,2> was read as static {2}. Here (Const<2>,) is that.
    let s1 = (Const::<1>,);
    let s2 = (Const::<2>,);
    assert!(ublas::is_scalar(&s1) && ublas::is_vector(&s1));
    assert!(!ublas::is_scalar(&s2) && ublas::is_vector(&s2));
    assert_eq!(ublas::product(&s2), 2);
    assert!(ublas::is_valid(&s2));
}

#[test]
fn all_ranks_0_to_8_have_consistent_strides() {
    for rank in 0..=8 {
        let ext: Vec<usize> = (0..rank).map(|r| r % 3 + 1).collect();
        let e = d(&ext);
        let left = Layout::Left.strides(&e).unwrap();
        let right = Layout::Right.strides(&e).unwrap();
        let n = e.size().unwrap();
        if rank > 0 {
            assert_eq!(left.as_slice()[rank - 1] * ext[rank - 1], n);
            assert_eq!(right.as_slice()[0] * ext[0], n);
        }
    }
}
