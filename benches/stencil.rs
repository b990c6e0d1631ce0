//! The stencil inner loop's cost per cell through each way of reaching the
//! elements of a guard (docs/BENCHMARKS.md, "Rust access"): checked `get`,
//! typed `[[i, j]]` and `[(i, j)]` indexing, the slice with hand-computed
//! offsets, and an ndarray `Zip` over the guard's `ArrayView` (with the
//! `ndarray` feature).
//!
//! `cargo bench --bench stencil --features ndarray` (criterion reports
//! elements per second; one element is one cell update).

// ndarray's `s![1..-1]` counts from the end: not an empty range.
#![allow(clippy::reversed_empty_ranges)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use dualview::{DualView, Dims, Layout};

const N: usize = 512;

fn grids() -> (DualView<f64, Dims<2>>, DualView<f64, Dims<2>>) {
    let mk = |l| DualView::<f64, Dims<2>>::builder(l, Dims::from([N, N])).layout(Layout::Right).build().unwrap();
    let (a, b) = (mk("a"), mk("b"));
    for ([i, j], x) in a.host_mut().unwrap().indexed_mut() {
        *x = (i * 3 + j) as f64;
    }
    (a, b)
}

fn stencil(c: &mut Criterion) {
    let (a, b) = grids();
    let mut g = c.benchmark_group("stencil_512x512");
    g.throughput(Throughput::Elements(((N - 2) * (N - 2)) as u64));
    g.bench_function("get", |bch| {
        bch.iter(|| -> dualview::Result<()> {
            let (x, mut y) = (a.host()?, b.host_mut()?);
            for i in 1..N - 1 {
                for j in 1..N - 1 {
                    *y.get_mut([i, j])? =
                        0.25 * (*x.get([i - 1, j])? + *x.get([i + 1, j])? + *x.get([i, j - 1])? + *x.get([i, j + 1])?);
                }
            }
            Ok(())
        })
    });
    g.bench_function("index", |bch| {
        bch.iter(|| {
            let (x, mut y) = (a.host().unwrap(), b.host_mut().unwrap());
            for i in 1..N - 1 {
                for j in 1..N - 1 {
                    y[[i, j]] = 0.25 * (x[[i - 1, j]] + x[[i + 1, j]] + x[[i, j - 1]] + x[[i, j + 1]]);
                }
            }
        })
    });
    g.bench_function("index_tuple", |bch| {
        bch.iter(|| {
            let (x, mut y) = (a.host().unwrap(), b.host_mut().unwrap());
            for i in 1..N - 1 {
                for j in 1..N - 1 {
                    y[(i, j)] = 0.25 * (x[(i - 1, j)] + x[(i + 1, j)] + x[(i, j - 1)] + x[(i, j + 1)]);
                }
            }
        })
    });
    g.bench_function("slice", |bch| {
        bch.iter(|| {
            let (x, mut y) = (a.host().unwrap(), b.host_mut().unwrap());
            let (xs, ys) = (&x[..], &mut y[..]);
            for i in 1..N - 1 {
                for j in 1..N - 1 {
                    let c = i * N + j;
                    ys[c] = 0.25 * (xs[c - N] + xs[c + N] + xs[c - 1] + xs[c + 1]);
                }
            }
        })
    });
    #[cfg(feature = "ndarray")]
    g.bench_function("ndarray_zip", |bch| {
        use ndarray::{s, Zip};
        bch.iter(|| {
            let (x, mut y) = (a.host().unwrap(), b.host_mut().unwrap());
            let (u, mut v) = (x.array().unwrap(), y.array_mut().unwrap());
            Zip::from(v.slice_mut(s![1..-1, 1..-1]))
                .and(u.slice(s![..-2, 1..-1]))
                .and(u.slice(s![2.., 1..-1]))
                .and(u.slice(s![1..-1, ..-2]))
                .and(u.slice(s![1..-1, 2..]))
                .for_each(|y, &n, &s, &w, &e| *y = 0.25 * (n + s + w + e));
        })
    });
    g.finish();
    black_box(b.host().unwrap()[[1, 1]]);
}

criterion_group!(benches, stencil);
criterion_main!(benches);
