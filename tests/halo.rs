//! Halo exchanges that move halo bytes (issue 20, item 4): the rows to send
//! are synced to the host through subviews, the received halo rows pushed
//! back (`push`), and the device's record of the other rows stays. Values are
//! checked against the same steps with whole-array syncs; bytes are counted.
//! On a CUDA machine the DualViews live on device 0, elsewhere on the test device.

use dualview::memory::cuda_device_count;
use dualview::{Desc, DynRank, ElemSpec, ErrorKind, Layout, Mapping, RawDualView, Side, Slice, Space};

const ROWS: usize = 18; // 16 owned + 2 halo rows
const NY: usize = 24;
const ROW_BYTES: u64 = (NY * 8) as u64;

fn space() -> Space {
    if cuda_device_count() > 0 { Space::cuda(0) } else { Space::test_device(0) }
}

fn grid(checked: bool) -> RawDualView {
    let m = Mapping::new(Layout::Right, DynRank::new(&[ROWS, NY]).unwrap()).unwrap();
    let mut d = Desc::new(ElemSpec::of::<f64>(), m, space());
    d.checked = checked;
    RawDualView::new("grid", &d).unwrap()
}

fn row(a: &RawDualView, i: usize) -> RawDualView {
    a.subview(&[Slice::Index(i), Slice::All]).unwrap()
}

/// Write `v` into row `i` of `side` (a kernel on the device, an MPI receive on the host).
fn write_row(a: &RawDualView, side: Side, i: usize, v: f64) {
    row(a, i).view_fill(side, &v.to_ne_bytes()).unwrap();
}

fn host(a: &RawDualView) -> Vec<f64> {
    let v = a.view(Side::Host).unwrap();
    // SAFETY: the host side holds ROWS * NY initialised f64; nothing writes it now.
    unsafe { std::slice::from_raw_parts(v.data() as *const f64, ROWS * NY) }.to_vec()
}

/// Ten steps: the device writes every owned row, rows 1 and 16 go to the
/// host, halo rows 0 and 17 come back from "MPI". With `halo`, through
/// subviews and push; otherwise whole-array syncs. Returns the final grid.
fn steps(a: &RawDualView, halo: bool) -> Vec<f64> {
    for s in 0..10 {
        for i in 1..ROWS - 1 {
            write_row(a, Side::Device, i, (s * 100 + i) as f64);
        }
        a.modify(Side::Device).unwrap();
        if halo {
            row(a, 1).sync(Side::Host).unwrap();
            row(a, ROWS - 2).sync(Side::Host).unwrap();
        } else {
            a.sync(Side::Host).unwrap();
        }
        let (sent_up, sent_down) = (host(a)[NY], host(a)[(ROWS - 2) * NY]);
        assert_eq!((sent_up, sent_down), ((s * 100 + 1) as f64, (s * 100 + ROWS - 2) as f64), "the rows to send are fresh");
        write_row(a, Side::Host, 0, -(s as f64)); // received halos
        write_row(a, Side::Host, ROWS - 1, -(s as f64) - 0.5);
        if halo {
            row(a, 0).push(Side::Host).unwrap();
            row(a, ROWS - 1).push(Side::Host).unwrap();
        } else {
            a.modify(Side::Host).unwrap();
            a.sync(Side::Device).unwrap();
        }
    }
    a.sync(Side::Host).unwrap();
    host(a)
}

#[test]
fn a_halo_exchange_moves_the_halo_rows_and_ends_with_the_same_grid() {
    for checked in [false, true] {
        let whole = grid(checked);
        let want = steps(&whole, false);
        let a = grid(checked);
        assert_eq!(steps(&a, true), want, "checked: {checked}");
        let (w, h) = (whole.stats(), a.stats());
        assert_eq!((w.to_host.bytes, w.to_device.bytes), (10 * ROWS as u64 * ROW_BYTES, 10 * ROWS as u64 * ROW_BYTES));
        // Two rows each way per step; the final whole sync brings the 16 rows the device kept (the 2 sent each step are there).
        assert_eq!(h.to_device.bytes, 10 * 2 * ROW_BYTES, "checked: {checked}");
        assert_eq!(h.to_host.bytes, 10 * 2 * ROW_BYTES + (ROWS as u64 - 2 - 2) * ROW_BYTES, "checked: {checked}");
    }
}

#[test]
fn push_keeps_the_other_sides_rest_and_refuses_a_real_conflict() {
    let a = grid(false);
    // Clean: a push copies its rows and leaves everything clean.
    write_row(&a, Side::Host, 3, 1.0);
    row(&a, 3).push(Side::Host).unwrap();
    assert!(!a.need_sync(Side::Device) && !a.need_sync(Side::Host));
    // The host newer everywhere: a push of one row leaves the rest of the host's change recorded.
    a.modify(Side::Host).unwrap();
    row(&a, 4).push(Side::Host).unwrap();
    assert!(a.need_sync(Side::Device));
    a.sync(Side::Device).unwrap();
    assert_eq!(a.stats().to_device.bytes, ROW_BYTES * (1 + 1 + ROWS as u64 - 1));
    // The device holds a change no sync started on: pushing host rows would drop it silently.
    a.modify(Side::Device).unwrap();
    let e = row(&a, 0).push(Side::Host).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ConcurrentModification, "{e}");
    assert!(a.need_sync(Side::Host), "nothing changed");
}
