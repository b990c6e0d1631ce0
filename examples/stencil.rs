//! A 2-D Jacobi stencil as a Rust HPC code writes it with dualview:
//! ndarray on the host (set-up and the check), a cudarc kernel on the GPU
//! when there is one, and the test device otherwise (the same sweep as a
//! CPU loop over the device guards). No `unsafe` but cudarc's kernel launch.
//!
//! Run: `cargo run --release --features ndarray,cudarc-interop --example stencil [N] [ITERS]`

// ndarray's `s![1..-1]` counts from the end: not an empty range.
#![allow(clippy::reversed_empty_ranges)]

use dualview::{DualView, Dims, Space};
use ndarray::{s, Array2, Zip};
use std::error::Error;
use std::time::Instant;

type Grid = DualView<f64, Dims<2>>;

/// One sweep, for any layout: the strides come from the guard.
const KERNEL: &str = r#"
extern "C" __global__ void jacobi(double* out, const double* in,
                                  unsigned long long nx, unsigned long long ny,
                                  unsigned long long si, unsigned long long sj) {
    unsigned long long i = blockIdx.y * (unsigned long long)blockDim.y + threadIdx.y;
    unsigned long long j = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i == 0 || j == 0 || i + 1 >= nx || j + 1 >= ny) return;
    unsigned long long c = i * si + j * sj;
    out[c] = 0.25 * (in[c - si] + in[c + si] + in[c - sj] + in[c + sj]);
}
"#;

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>());
    let n = args.next().transpose()?.unwrap_or(256);
    let iters = args.next().transpose()?.unwrap_or(200);
    let gpu = dualview::memory::cuda_device_count() > 0;
    let space = if gpu { Space::cuda(0) } else { Space::test_device(0) };
    let grid = |label| Grid::builder(label, Dims::from([n, n])).device(space).build();
    let (a, b) = (grid("u")?, grid("v")?);

    // Set-up on the host with ndarray: the top edge held at 1.
    for g in [&a, &b] {
        g.host_mut()?.array_mut()?.slice_mut(s![0, ..]).fill(1.0);
    }

    let t0 = Instant::now();
    let how = if gpu { sweep_cuda(&a, &b, n, iters)? } else { sweep_test_device(&a, &b, n, iters)? };
    let last = if iters % 2 == 0 { &a } else { &b };
    let result = last.host()?; // syncs the device result to the host
    let ms = t0.elapsed().as_secs_f64() * 1e3;

    // Check against the same sweeps done with ndarray on the host.
    let expect = reference(n, iters);
    let err = Zip::from(&result.array()?).and(&expect).fold(0.0f64, |m, &x, &y| m.max((x - y).abs()));
    println!("stencil {n}x{n}, {iters} sweeps on {space} ({how}): {ms:.1} ms, max |error| vs ndarray {err:.1e}");
    if err > 1e-12 {
        return Err(format!("the device result differs from the host reference by {err}").into());
    }
    Ok(())
}

/// The sweeps as a cudarc kernel on the device guards.
fn sweep_cuda(a: &Grid, b: &Grid, n: usize, iters: usize) -> Result<&'static str, Box<dyn Error>> {
    use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let ptx = cudarc::nvrtc::compile_ptx(KERNEL)?;
    let f = ctx.load_module(ptx)?.load_function("jacobi")?;
    let blocks = n.div_ceil(16) as u32;
    let cfg = LaunchConfig { grid_dim: (blocks, blocks, 1), block_dim: (16, 16, 1), shared_mem_bytes: 0 };
    let n64 = n as u64;
    for it in 0..iters {
        let (src, dst) = if it % 2 == 0 { (a, b) } else { (b, a) };
        let input = src.device()?;
        let mut output = dst.device_mut()?;
        let [si, sj] = input.strides().map(|s| s as u64);
        let (x, mut y) = (input.cuda(&stream)?, output.cuda_mut(&stream)?);
        let mut launch = stream.launch_builder(&f);
        launch.arg(&mut y).arg(&x).arg(&n64).arg(&n64).arg(&si).arg(&sj);
        // SAFETY: the kernel reads and writes n*n doubles at the guards' strides.
        unsafe { launch.launch(cfg) }?;
    }
    Ok("a cudarc kernel")
}

/// The same sweeps as a CPU loop over the test device's guards.
fn sweep_test_device(a: &Grid, b: &Grid, n: usize, iters: usize) -> Result<&'static str, Box<dyn Error>> {
    for it in 0..iters {
        let (src, dst) = if it % 2 == 0 { (a, b) } else { (b, a) };
        let (x, mut y) = (src.device()?, dst.device_mut()?);
        for j in 1..n - 1 {
            for i in 1..n - 1 {
                y[[i, j]] = 0.25 * (x[[i - 1, j]] + x[[i + 1, j]] + x[[i, j - 1]] + x[[i, j + 1]]);
            }
        }
    }
    Ok("no CUDA device: the test device")
}

/// The reference: the same sweeps with ndarray on the host.
fn reference(n: usize, iters: usize) -> Array2<f64> {
    let mut u = Array2::<f64>::zeros((n, n));
    u.slice_mut(s![0, ..]).fill(1.0);
    let mut v = u.clone();
    for _ in 0..iters {
        Zip::from(v.slice_mut(s![1..-1, 1..-1]))
            .and(u.slice(s![..-2, 1..-1]))
            .and(u.slice(s![2.., 1..-1]))
            .and(u.slice(s![1..-1, ..-2]))
            .and(u.slice(s![1..-1, 2..]))
            .for_each(|y, &n, &s, &w, &e| *y = 0.25 * (n + s + w + e));
        std::mem::swap(&mut u, &mut v);
    }
    u
}
