//! Helpers shared by the integration tests. Each test file is its own crate
//! and takes what it needs with `mod common;` (`tests/reliability/engine.rs`,
//! which the fuzz target also compiles, with a `#[path]`).
#![allow(dead_code)] // every file uses only some of them

/// Every multi-index of `ext`, in row-major order (the last index fastest).
pub fn row_major(ext: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = ext.iter().product();
    (0..n)
        .map(|mut lin| {
            let mut idx = vec![0; ext.len()];
            for r in (0..ext.len()).rev() {
                idx[r] = lin % ext[r];
                lin /= ext[r];
            }
            idx
        })
        .collect()
}

/// Call `f` with every multi-index of `ext` in row-major order, in one
/// buffer (no allocation per index).
pub fn for_each_index(ext: &[usize], f: impl FnMut(&[usize])) {
    for_each_index_in(&vec![0; ext.len()], ext, f);
}

/// [`for_each_index`] over the box `lo..hi` (per axis).
pub fn for_each_index_in(lo: &[usize], hi: &[usize], mut f: impl FnMut(&[usize])) {
    if lo.iter().zip(hi).any(|(l, h)| l >= h) {
        return;
    }
    let mut idx = lo.to_vec();
    loop {
        f(&idx);
        let mut ax = idx.len();
        loop {
            if ax == 0 {
                return;
            }
            ax -= 1;
            idx[ax] += 1;
            if idx[ax] < hi[ax] {
                break;
            }
            idx[ax] = lo[ax];
        }
    }
}

/// The row-major position of multi-index `idx` in `ext`.
pub fn flat(ext: &[usize], idx: &[usize]) -> usize {
    idx.iter().zip(ext).fold(0, |acc, (i, e)| acc * e + i)
}

/// Two elements of one slice, the first mutable (`a != b`).
pub fn two_mut<T>(v: &mut [T], a: usize, b: usize) -> (&mut T, &T) {
    assert_ne!(a, b);
    if a < b {
        let (x, y) = v.split_at_mut(b);
        (&mut x[a], &y[0])
    } else {
        let (x, y) = v.split_at_mut(a);
        (&mut y[0], &x[b])
    }
}

pub mod oracle;
