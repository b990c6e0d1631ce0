//! The main job, end to end: a 2-D heat stencil whose "device" update runs on
//! the device side of a DualView, with the host reading results through sync.
//! Runs anywhere: the device is the test device (host memory with its own
//! allocation) until a CUDA space is available.
//!
//! `cargo run --release --example demo`

use dualview::{Dims, DualView, Layout, Space};

fn main() -> dualview::Result<()> {
    let (nx, ny, steps) = (64usize, 48usize, 50usize);
    let t = DualView::<f64, Dims<2>>::builder("temperature", Dims::new([nx, ny])?)
        .layout(Layout::Left)
        .device(Space::test_device(0))
        .build()?;
    println!("created {:?}: {} x {} f64, {} bytes per side", t.label(), nx, ny, t.span() * 8);

    // Initial condition on the host: a hot left edge. host_write marks the host.
    {
        let mut h = t.host_write()?;
        h.fill(0.0)?;
        for j in 0..ny {
            h.set([0, j], 100.0)?;
        }
    }
    println!("host modified: need_sync_device = {}", t.need_sync_device());

    // Time steps on the device side: device_mut syncs host -> device once, then marks the device.
    let scratch = DualView::<f64, Dims<2>>::builder("scratch", Dims::new([nx, ny])?)
        .layout(Layout::Left)
        .device(Space::test_device(0))
        .build()?;
    for _ in 0..steps {
        {
            let cur = t.device()?;
            let mut next = scratch.device_write()?;
            for j in 0..ny {
                for i in 0..nx {
                    let c = *cur.get([i, j])?;
                    let v = if i == 0 || j == 0 || i == nx - 1 || j == ny - 1 {
                        c
                    } else {
                        c + 0.2
                            * (cur.get([i - 1, j])? + cur.get([i + 1, j])? + cur.get([i, j - 1])?
                                + cur.get([i, j + 1])?
                                - 4.0 * c)
                    };
                    next.set([i, j], v)?;
                }
            }
        }
        t.clear_sync_state().unwrap(); // the host copy is stale by design; overwrite the device
        t.deep_copy_from(&scratch)?; // device -> device, marks t's device modified
    }
    println!("after {steps} device steps: need_sync_host = {}", t.need_sync_host());

    // Read on the host: host() syncs device -> host first.
    let h = t.host()?;
    let total: f64 = h.to_vec()?.iter().sum();
    let probe = *h.get([1, ny / 2])?;
    drop(h);
    println!("heat in the plate = {total:.3}, T(1, {}) = {probe:.3}", ny / 2);
    assert!(probe > 0.0 && probe < 100.0, "heat must have diffused one cell in");

    let s = t.stats();
    println!(
        "transfers: {} to device ({} B), {} to host ({} B); both clean: {}",
        s.to_device.count,
        s.to_device.bytes,
        s.to_host.count,
        s.to_host.bytes,
        !t.need_sync_host() && !t.need_sync_device()
    );

    // The Kokkos fix in one line: modifying the stale side is an error, not an abort.
    t.modify_device()?;
    match t.modify_host() {
        Err(e) => println!("caught, not aborted: {e}"),
        Ok(()) => unreachable!(),
    }
    t.sync_host()?;
    Ok(())
}
