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

/// Visit `(offset_a, offset_b, run_len)` for runs contiguous under both stride sets.
pub(crate) fn for_each_run2(
    ext: &[usize],
    sa: &[usize],
    sb: &[usize],
    mut f: impl FnMut(usize, usize, usize),
) {
    let rank = ext.len();
    if ext.contains(&0) {
        return;
    }
    // Axes of extent 1 never move an offset; drop them.
    let mut axes: Vec<usize> = (0..rank).filter(|&r| ext[r] > 1).collect();
    axes.sort_by_key(|&r| (sa[r], sb[r]));
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
    let outer = &axes[inner..];
    let mut idx = [0usize; MAX_RANK];
    let (mut oa, mut ob) = (0usize, 0usize);
    loop {
        f(oa, ob, run);
        // Odometer over the outer axes, innermost first.
        let mut k = 0;
        loop {
            if k == outer.len() {
                return;
            }
            let r = outer[k];
            idx[k] += 1;
            oa += sa[r];
            ob += sb[r];
            if idx[k] < ext[r] {
                break;
            }
            oa -= sa[r] * ext[r];
            ob -= sb[r] * ext[r];
            idx[k] = 0;
            k += 1;
        }
    }
}
