//! Core benchmarks (`cargo bench --bench core`), each beside its plain
//! equivalent in the same run. `scripts/bench-report.py` turns the criterion
//! output into docs/BENCHMARKS.md.

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};
use dualview::{Dims, DualView, Space};
use std::alloc::{alloc, alloc_zeroed, dealloc, Layout};
use std::time::Duration;

const MIB: usize = 1 << 20;

/// A hand-rolled host/device mirror with two plain flags: the "plain equivalent".
struct Mirror {
    host_dirty: bool,
    device_dirty: bool,
}

/// A rank-1 `double` DualView of `n` elements on the test device, for the C ABI rows.
fn test_device_desc(n: u64) -> dualview::ffi::dv_desc_t {
    dualview::ffi::dv_desc_t {
        dtype: dualview::ffi::DV_DTYPE_FLOAT64,
        elem_size: 0,
        elem_align: 0,
        layout: dualview::ffi::DV_LAYOUT_LEFT,
        space: dualview::ffi::DV_SPACE_TEST_DEVICE,
        ordinal: 0,
        flags: 0,
        reserved: 0,
        extents: dualview::ffi::dv_extents_t { rank: 1, reserved: 0, extent: [n, 1, 1, 1, 1, 1, 1, 1] },
        strides: [0; 8],
    }
}

fn flags(c: &mut Criterion) {
    let mut g = c.benchmark_group("flags");
    let two = DualView::<f64, Dims<1>>::builder("A", Dims::new([1024]).unwrap())
        .device(Space::test_device(0))
        .build()
        .unwrap();
    let one = DualView::<f64, Dims<1>>::new("S", Dims::new([1024]).unwrap()).unwrap();
    two.modify_device().unwrap();
    g.bench_function("modify_sync_noop/dualview_two_space", |b| {
        b.iter(|| {
            let a = black_box(&two);
            a.modify_device().unwrap();
            a.sync_device().unwrap();
        })
    });
    g.bench_function("modify_sync_noop/dualview_one_space", |b| {
        b.iter(|| {
            let a = black_box(&one);
            a.modify_device().unwrap();
            a.sync_device().unwrap();
        })
    });
    let mut m = Mirror { host_dirty: false, device_dirty: true };
    g.bench_function("modify_sync_noop/plain_bools", |b| {
        b.iter(|| {
            let m = black_box(&mut m);
            m.device_dirty = true;
            if m.host_dirty {
                black_box(());
            }
        })
    });
    g.bench_function("need_sync/dualview", |b| b.iter(|| black_box(&two).need_sync_host()));
    // The same pair through the C ABI: handle lookup, panic boundary, status.
    let desc = test_device_desc(1024);
    let mut h = std::ptr::null_mut();
    use dualview::ffi::dv_status_t::DV_OK;
    // SAFETY: valid label, description and output pointer.
    unsafe {
        assert_eq!(dualview::ffi::dv_create(c"A".as_ptr(), &desc, &mut h), DV_OK);
        assert_eq!(dualview::ffi::dv_modify_device(h), DV_OK);
    }
    g.bench_function("modify_sync_noop/c_abi_two_space", |b| {
        b.iter(|| {
            let h = black_box(h);
            // SAFETY: a live handle.
            unsafe {
                black_box(dualview::ffi::dv_modify_device(h));
                black_box(dualview::ffi::dv_sync_device(h));
            }
        })
    });
    // SAFETY: a live handle, destroyed once.
    unsafe { assert_eq!(dualview::ffi::dv_destroy(h), DV_OK) };
    g.bench_function("need_sync/plain_bool", |b| b.iter(|| black_box(&m).device_dirty));
    g.finish();
}

fn aligned_alloc_memset(bytes: usize) {
    let layout = Layout::from_size_align(bytes, 64).unwrap();
    // SAFETY: non-zero size; freed below with the same layout.
    unsafe {
        let p = alloc(layout);
        std::ptr::write_bytes(p, 0, bytes);
        black_box(p);
        dealloc(p, layout);
    }
}

fn aligned_alloc_zeroed(bytes: usize) {
    let layout = Layout::from_size_align(bytes, 64).unwrap();
    // SAFETY: non-zero size; freed below with the same layout.
    unsafe {
        let p = alloc_zeroed(layout);
        black_box(p);
        dealloc(p, layout);
    }
}

fn create(c: &mut Criterion) {
    let mut g = c.benchmark_group("create");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    for (name, bytes) in [("1MiB", MIB), ("256MiB", 256 * MIB)] {
        let n = bytes / 8;
        g.bench_function(format!("{name}/dualview_one_space"), |b| {
            b.iter(|| black_box(DualView::<f64, Dims<1>>::new("c", Dims::new([n]).unwrap()).unwrap()))
        });
        g.bench_function(format!("{name}/dualview_two_space"), |b| {
            b.iter(|| {
                black_box(
                    DualView::<f64, Dims<1>>::builder("c", Dims::new([n]).unwrap())
                        .device(Space::test_device(0))
                        .build()
                        .unwrap(),
                )
            })
        });
        g.bench_function(format!("{name}/plain_alloc_memset"), |b| b.iter(|| aligned_alloc_memset(bytes)));
        g.bench_function(format!("{name}/plain_alloc_memset_x2"), |b| {
            // Both arrays alive at once, as in a hand-rolled mirror.
            b.iter(|| {
                let (h, d) = (Aligned::new(bytes), Aligned::new(bytes));
                // SAFETY: each holds `bytes`.
                unsafe {
                    std::ptr::write_bytes(h.0, 0, bytes);
                    std::ptr::write_bytes(d.0, 0, bytes);
                }
                black_box((h, d))
            })
        });
        g.bench_function(format!("{name}/plain_alloc_zeroed"), |b| b.iter(|| aligned_alloc_zeroed(bytes)));
    }
    g.finish();
}

/// A 64-byte aligned, uninitialised buffer freed on drop (outside the timing, like the DualView).
struct Aligned(*mut u8, Layout);

impl Aligned {
    fn new(bytes: usize) -> Aligned {
        let layout = Layout::from_size_align(bytes, 64).unwrap();
        // SAFETY: non-zero size.
        Aligned(unsafe { alloc(layout) }, layout)
    }
}

impl Drop for Aligned {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.0, self.1) }
    }
}

/// Creation followed by writing every element once: the total cost a user pays,
/// whoever zeroes the pages.
fn create_touch(c: &mut Criterion) {
    let mut g = c.benchmark_group("create_touch");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    for (name, bytes) in [("1MiB", MIB), ("256MiB", 256 * MIB)] {
        let n = bytes / 8;
        g.bench_function(format!("{name}/dualview_one_space"), |b| {
            b.iter(|| {
                let a = DualView::<f64, Dims<1>>::new("c", Dims::new([n]).unwrap()).unwrap();
                a.host_write().unwrap().fill(1.0).unwrap();
                black_box(a)
            })
        });
        g.bench_function(format!("{name}/plain_alloc_memset"), |b| {
            b.iter(|| {
                let h = Aligned::new(bytes);
                // SAFETY: `h` holds `bytes` = n f64.
                unsafe {
                    std::ptr::write_bytes(h.0, 0, bytes);
                    std::slice::from_raw_parts_mut(h.0 as *mut f64, n).fill(1.0);
                }
                black_box(h)
            })
        });
    }
    g.finish();
}

fn resize(c: &mut Criterion) {
    let mut g = c.benchmark_group("resize");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    let bytes = 256 * MIB;
    let n = bytes / 8;
    let filled = |dev: Option<Space>| {
        let mut b = DualView::<f64, Dims<1>>::builder("r", Dims::new([n]).unwrap());
        if let Some(d) = dev {
            b = b.device(d);
        }
        let a = b.build().unwrap();
        a.fill_host(1.0).unwrap();
        a
    };
    g.bench_function("256MiB_to_2x/dualview_one_space", |b| {
        b.iter_batched(
            || filled(None),
            |a| {
                a.resize(Dims::new([2 * n]).unwrap()).unwrap();
                a
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("256MiB_to_2x/dualview_two_space", |b| {
        b.iter_batched(
            || {
                let a = filled(Some(Space::test_device(0)));
                a.sync_device().unwrap();
                a
            },
            |a| {
                a.resize(Dims::new([2 * n]).unwrap()).unwrap();
                a
            },
            BatchSize::PerIteration,
        )
    });
    // 2-D, two spaces, LayoutLeft (rows x 16): growing the last axis keeps the
    // old contents as a prefix (in place); growing the first moves every column.
    let rows = n / 16;
    let filled2 = || {
        let a = DualView::<f64, Dims<2>>::builder("r2", Dims::new([rows, 16]).unwrap())
            .device(Space::test_device(0))
            .layout(dualview::Layout::Left)
            .build()
            .unwrap();
        a.fill_host(1.0).unwrap();
        a.sync_device().unwrap();
        a
    };
    g.bench_function("256MiB_to_2x/slowest_axis_two_space", |b| {
        b.iter_batched(
            filled2,
            |a| {
                a.resize(Dims::new([rows, 32]).unwrap()).unwrap();
                a
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("256MiB_to_2x/other_axis_two_space", |b| {
        b.iter_batched(
            filled2,
            |a| {
                a.resize(Dims::new([2 * rows, 16]).unwrap()).unwrap();
                a
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("256MiB_to_2x/plain_alloc_memcpy", |b| {
        b.iter_batched(
            || vec![1.0f64; n],
            |old| {
                let new = Aligned::new(2 * bytes);
                // SAFETY: `new` holds 2*bytes; `old` holds `bytes`.
                unsafe { std::ptr::copy_nonoverlapping(old.as_ptr() as *const u8, new.0, bytes) };
                drop(old);
                new
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

/// The sync path through the C ABI (issue 19, item 3): `dv_sync_device` on a
/// clean DualView (nothing to copy), and the tiny round trip (write one double,
/// `dv_modify_host`, `dv_sync_device`, and with the `dv_fence` of the GPU row) on
/// the test device, whose copy is a memcpy: what is measured is the path around the copy.
fn sync_path(c: &mut Criterion) {
    use dualview::ffi::dv_status_t::DV_OK;
    let mut g = c.benchmark_group("sync");
    let desc = test_device_desc;
    let (mut clean, mut tiny) = (std::ptr::null_mut(), std::ptr::null_mut());
    let mut host: *mut std::ffi::c_void = std::ptr::null_mut();
    // SAFETY: valid labels, descriptions and output pointers.
    unsafe {
        assert_eq!(dualview::ffi::dv_create(c"clean".as_ptr(), &desc(1024), &mut clean), DV_OK);
        assert_eq!(dualview::ffi::dv_create(c"tiny".as_ptr(), &desc(1), &mut tiny), DV_OK);
        assert_eq!(dualview::ffi::dv_host_ptr(tiny, &mut host), DV_OK);
    }
    g.bench_function("c_abi_sync_device_clean", |b| {
        b.iter(|| {
            // SAFETY: a live handle.
            black_box(unsafe { dualview::ffi::dv_sync_device(black_box(clean)) })
        })
    });
    let mut v = 0.0f64;
    // Without and with the GPU row's `Kokkos::fence()` (benches/kokkos_rows.cu `tiny`), which
    // the Kokkos-named headers make `dv_fence` with the name "dualview::fence".
    for (name, fence) in [("c_abi_tiny_round_trip", false), ("c_abi_tiny_round_trip_fenced", true)] {
        g.bench_function(name, |b| {
            b.iter(|| {
                v += 1.0;
                // SAFETY: `host` is the live host side of one f64, written by no one else; a NUL-terminated name.
                unsafe {
                    host.cast::<f64>().write(v);
                    assert_eq!(dualview::ffi::dv_modify_host(tiny), DV_OK);
                    assert_eq!(dualview::ffi::dv_sync_device(tiny), DV_OK);
                    if fence {
                        assert_eq!(dualview::ffi::dv_fence(dualview::ffi::DV_SPACE_TEST_DEVICE, 0, c"dualview::fence".as_ptr()), DV_OK);
                    }
                }
            })
        });
    }
    // SAFETY: live handles, destroyed once.
    unsafe {
        assert_eq!(dualview::ffi::dv_destroy(clean), DV_OK);
        assert_eq!(dualview::ffi::dv_destroy(tiny), DV_OK);
    }
    g.finish();
}

/// Checked mode's cost (issue 20): a whole round trip (modify_host,
/// sync_device, modify_device, sync_host) with and without it, on the test device.
fn checked(c: &mut Criterion) {
    let mut g = c.benchmark_group("checked");
    for (name, n) in [("8KiB", 1024usize), ("8MiB", MIB)] {
        for on in [false, true] {
            let b0 = DualView::<f64, Dims<1>>::builder("c", Dims::new([n]).unwrap()).device(Space::test_device(0));
            let a = if on { b0.checked() } else { b0 }.build().unwrap();
            let what = if on { "checked" } else { "unchecked" };
            g.bench_function(format!("round_trip_{name}/{what}"), |b| {
                b.iter(|| {
                    a.modify_host().unwrap();
                    a.sync_device().unwrap();
                    a.modify_device().unwrap();
                    a.sync_host().unwrap();
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, flags, sync_path, create, create_touch, resize, checked);
criterion_main!(benches);
