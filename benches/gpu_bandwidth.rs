//! GPU transfer benchmark (`cargo bench --bench gpu_bandwidth`, run by
//! scripts/gpu-check.sh): a 1 GiB DualView with a pinned host mirror,
//! sync_device / sync_host against raw cuMemcpyHtoD / cuMemcpyDtoH between
//! the same two buffers, in the same run. Prints a table; exits 0 with a
//! SKIPPED line without a GPU.

use cudarc::driver::sys;
use dualview::space::cuda_device_count;
use dualview::{Desc, DynRank, ElemSpec, Layout, Mapping, RawDualView, Side, Space};
use std::time::Instant;

const REPS: usize = 7;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    if cuda_device_count() == 0 {
        println!("SKIPPED gpu_bandwidth: no CUDA device on this machine");
        return;
    }
    let gib = 1usize << 30;
    let n = gib / 8;
    let m = Mapping::new(Layout::Left, DynRank::new(&[n]).unwrap()).unwrap();
    let mut results = Vec::new();
    for pinned in [true, false] {
        let mut desc = Desc::new(ElemSpec::of::<f64>(), m, Space::cuda(0));
        if pinned {
            desc.host = Space::host_pinned();
        }
        let a = RawDualView::new("bw", &desc).unwrap();
        a.fill(Side::Host, &1.0f64.to_ne_bytes()).unwrap();
        a.sync(Side::Device).unwrap(); // warm up both buffers
        let h = a.view(Side::Host).unwrap().data();
        let d = a.view(Side::Device).unwrap().data() as usize as sys::CUdeviceptr;
        let (mut dv_h2d, mut dv_d2h, mut raw_h2d, mut raw_d2h) = (vec![], vec![], vec![], vec![]);
        for _ in 0..REPS {
            a.modify(Side::Host).unwrap();
            let t = Instant::now();
            a.sync(Side::Device).unwrap();
            dv_h2d.push(t.elapsed().as_secs_f64());
            a.modify(Side::Device).unwrap();
            let t = Instant::now();
            a.sync(Side::Host).unwrap();
            dv_d2h.push(t.elapsed().as_secs_f64());
            // SAFETY: the same two live buffers of `gib` bytes; device 0's context is current.
            unsafe {
                let t = Instant::now();
                assert_eq!(sys::cuMemcpyHtoD_v2(d, h as *const _, gib), sys::CUresult::CUDA_SUCCESS);
                raw_h2d.push(t.elapsed().as_secs_f64());
                let t = Instant::now();
                assert_eq!(sys::cuMemcpyDtoH_v2(h as *mut _, d, gib), sys::CUresult::CUDA_SUCCESS);
                raw_d2h.push(t.elapsed().as_secs_f64());
            }
        }
        let gbs = |s: f64| gib as f64 / s / 1e9;
        let mirror = if pinned { "pinned" } else { "pageable" };
        for (dir, dvt, rawt) in [("host->device", &dv_h2d, &raw_h2d), ("device->host", &dv_d2h, &raw_d2h)] {
            let (x, y) = (gbs(median(dvt.clone())), gbs(median(rawt.clone())));
            results.push((mirror, dir, x, y));
        }
    }
    println!("| mirror | direction | dualview sync GB/s | raw cuMemcpy GB/s | ratio |");
    println!("| --- | --- | --- | --- | --- |");
    for (mirror, dir, x, y) in results {
        println!("| {mirror} | {dir} | {x:.1} | {y:.1} | {:.3} |", x / y);
    }
    println!("(1 GiB, median of {REPS}; sync includes its fences and flag handling)");
}
