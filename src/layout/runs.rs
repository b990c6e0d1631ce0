//! Contiguous runs of a strided index space, for copies and fills.
//!
//! Axes are visited in order of the first stride set (smallest stride
//! innermost). The innermost axes are merged while every stride set stays
//! contiguous across them, so a contiguous view is one run.

use crate::extents::MAX_RANK;

/// Visit `(offset, run_len)` for every contiguous run of `ext` under `strides`.
/// Offsets and lengths are in elements. Nothing is visited when `ext` is empty.
pub(crate) fn for_each_run(ext: &[usize], strides: &[usize], mut f: impl FnMut(usize, usize)) {
    for_each_run2(ext, strides, strides, |a, _, n| f(a, n));
}

/// A run plan: the innermost run length and the outer axes `(extent, stride_a, stride_b)`.
pub(crate) type Plan = (usize, Vec<(usize, usize, usize)>);

/// The run structure of a strided index space under two stride sets: the
/// length of the contiguous innermost run and the outer axes as
/// `(extent, stride_a, stride_b)`, innermost first. `None` when empty.
pub(crate) fn plan(ext: &[usize], sa: &[usize], sb: &[usize]) -> Option<Plan> {
    if ext.contains(&0) {
        return None;
    }
    // Axes of extent 1 never move an offset; drop them. On the stack: a sync's plan allocates
    // only the outer axes it returns (none for a contiguous run).
    debug_assert!(ext.len() <= MAX_RANK, "a rank above MAX_RANK");
    let mut all = [0usize; MAX_RANK];
    let mut n = 0;
    for r in (0..ext.len()).filter(|&r| ext[r] > 1) {
        all[n] = r;
        n += 1;
    }
    let axes = &mut all[..n];
    axes.sort_unstable_by_key(|&r| (sa[r], sb[r], r));
    // Merge from the innermost axis while both stride sets are contiguous.
    let mut run = 1usize;
    let mut inner = 0usize;
    while inner < axes.len() {
        let r = axes[inner];
        if sa[r] == run && sb[r] == run {
            run *= ext[r];
            inner += 1;
        } else {
            break;
        }
    }
    Some((run, axes[inner..].iter().map(|&r| (ext[r], sa[r], sb[r])).collect()))
}

/// Visit the starting offsets `(a, b)` of every combination of `outer` axes.
pub(crate) fn for_each_outer(outer: &[(usize, usize, usize)], mut f: impl FnMut(usize, usize)) {
    let mut idx = [0usize; MAX_RANK];
    let (mut oa, mut ob) = (0usize, 0usize);
    loop {
        f(oa, ob);
        let mut k = 0;
        loop {
            if k == outer.len() {
                return;
            }
            let (e, a, b) = outer[k];
            idx[k] += 1;
            oa += a;
            ob += b;
            if idx[k] < e {
                break;
            }
            oa -= a * e;
            ob -= b * e;
            idx[k] = 0;
            k += 1;
        }
    }
}

/// Visit `(offset_a, offset_b, run_len)` for runs contiguous under both stride sets.
pub(crate) fn for_each_run2(
    ext: &[usize],
    sa: &[usize],
    sb: &[usize],
    mut f: impl FnMut(usize, usize, usize),
) {
    if let Some((run, outer)) = plan(ext, sa, sb) {
        for_each_outer(&outer, |a, b| f(a, b, run));
    }
}
