//! The `ndarray` and `cudarc-interop` features: guards as ndarray views with
//! the right strides, and CUDA device guards lent to a real cudarc kernel
//! (on a GPU; skipped with the reason elsewhere).

use dualview::{s, DualView, Dims, ErrorKind, Layout, Space, Stream};
use ndarray::{array, Array2, Zip};

fn grid(layout: Layout) -> DualView<f64, Dims<2>> {
    let a = DualView::<f64, Dims<2>>::builder("g", Dims::from([3, 4])).layout(layout).device(Space::test_device(0)).build().unwrap();
    for ([i, j], x) in a.host_mut().unwrap().indexed_mut() {
        *x = (10 * i + j) as f64;
    }
    a
}

#[test]
fn ndarray_views_index_like_the_guard_for_both_layouts() {
    let expect = Array2::from_shape_fn((3, 4), |(i, j)| (10 * i + j) as f64);
    for (layout, strides) in [(Layout::Left, [1isize, 3]), (Layout::Right, [4, 1])] {
        let a = grid(layout);
        let h = a.host().unwrap();
        let v = h.array().unwrap();
        assert_eq!(v, expect, "{layout:?}");
        assert_eq!(v.strides(), &strides);
        assert_eq!(h.array_dyn().unwrap().into_dimensionality::<ndarray::Ix2>().unwrap(), expect);
    }
}

#[test]
fn ndarray_views_of_strided_subviews() {
    let a = grid(Layout::Right);
    let block = a.slice(s![1.., 1..3]).unwrap();
    assert_eq!(block.host().unwrap().array().unwrap(), array![[11.0, 12.0], [21.0, 22.0]]);
    let col = a.slice(s![.., 3]).unwrap();
    col.host_mut().unwrap().array_mut().unwrap().fill(-1.0);
    assert_eq!(a.host().unwrap().array().unwrap().column(3).to_vec(), vec![-1.0; 3]);
    assert!(a.need_sync_device(), "writing through the view marked the host modified");
    assert_eq!(a.device().unwrap()[[2, 3]], -1.0);
}

#[test]
fn ndarray_zip_across_two_dualviews() {
    let (x, y) = (grid(Layout::Left), grid(Layout::Right));
    {
        let (xh, mut yh) = (x.host().unwrap(), y.host_mut().unwrap());
        Zip::from(yh.array_mut().unwrap()).and(xh.array().unwrap()).for_each(|y, &x| *y += 2.0 * x);
    }
    assert_eq!(y.host().unwrap()[[2, 3]], 3.0 * 23.0);
}

#[test]
fn a_guard_that_is_not_cuda_memory_is_not_lent_to_cudarc() {
    if dualview::memory::cuda_device_count() == 0 {
        skipped("a_guard_that_is_not_cuda_memory_is_not_lent_to_cudarc", "no CUDA device for its cudarc half");
        return;
    }
    let ctx = cudarc::driver::CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let a = grid(Layout::Left);
    let h = a.host().unwrap();
    assert_eq!(h.cuda(&stream).unwrap_err().kind(), ErrorKind::Incompatible);
    assert_eq!(Stream::from(&stream).as_raw(), 0);
}

/// Say on stderr, past the test harness's capture, that a GPU part was skipped.
fn skipped(test: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}

const AXPY: &str = r#"
extern "C" __global__ void axpy(double* y, const double* x, double a, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}
"#;

#[test]
fn a_cudarc_kernel_runs_on_device_guards() {
    use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
    if dualview::memory::cuda_device_count() == 0 {
        skipped("a_cudarc_kernel_runs_on_device_guards", "no CUDA device on this machine (runs on the H200 in scripts/gpu-check.sh)");
        return;
    }
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    let ptx = cudarc::nvrtc::compile_ptx(AXPY).expect("NVRTC (libnvrtc.so) compiles the kernel");
    let f = ctx.load_module(ptx).unwrap().load_function("axpy").unwrap();
    let n = 1 << 20;
    let (n64, two, minus_two) = (n as u64, 2.0f64, -2.0f64);
    let mk = |l: &str| DualView::<f64, Dims<1>>::builder(l, Dims::from([n])).device(Space::cuda(0)).build().unwrap();
    let (x, y) = (mk("x"), mk("y"));
    x.host_mut().unwrap().iter_mut().enumerate().for_each(|(i, v)| *v = i as f64);
    y.fill_host(1.0).unwrap();
    {
        let xd = x.device().unwrap(); // syncs x to the device
        let mut yd = y.device_mut().unwrap(); // syncs y, marks the device modified
        let (xs, mut ys) = (xd.cuda(&stream).unwrap(), yd.cuda_mut(&stream).unwrap());
        assert_eq!(ys.len(), n);
        let mut b = stream.launch_builder(&f);
        b.arg(&mut ys).arg(&xs).arg(&two).arg(&n64);
        // SAFETY: the kernel reads n doubles of x and writes n doubles of y.
        unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }.unwrap();
    }
    assert!(y.need_sync_host());
    // A blocking sync after the lent slices dropped: ordered after the kernel.
    let h = y.host().unwrap();
    assert!(h.indexed().all(|([i], &v)| v == 1.0 + 2.0 * i as f64));
    drop(h);
    // The stream form: queue the copy on the kernel's own stream.
    {
        let xd = x.device().unwrap();
        let mut yd = y.device_mut().unwrap();
        let (xs, mut ys) = (xd.cuda(&stream).unwrap(), yd.cuda_mut(&stream).unwrap());
        let mut b = stream.launch_builder(&f);
        b.arg(&mut ys).arg(&xs).arg(&minus_two).arg(&n64);
        // SAFETY: as above.
        unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }.unwrap();
    }
    y.sync_host_on(&stream).unwrap();
    stream.synchronize().unwrap();
    assert!(y.host().unwrap().iter().all(|&v| v == 1.0));
    // Strided views and another device's stream are refused, with the reason.
    let col = DualView::<f64, Dims<2>>::builder("c", Dims::from([4, 4])).device(Space::cuda(0)).build().unwrap();
    let sub = col.slice(s![1, ..]).unwrap();
    let d = sub.device().unwrap();
    let e = d.cuda(&stream).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
}
