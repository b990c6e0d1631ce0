//! Resize along the slowest axis keeps the data where it is: host blocks
//! from 32 MiB grow in place (same address, no copy); a device block moves,
//! as CUDA's always do (the test device's default), or grows in place where
//! its driver can (`test_device::set_grows_in_place`, ordinal 10); every
//! other resize copies. Both sides are kept, as always.

use dualview::memory::test_device;
use dualview::{Dims, DualView, Layout, Side, Slice, Space};

const DEV: Space = Space::test_device(9);
/// A test device whose blocks grow in place (what no production driver does today).
const GROWS: u32 = 10;

fn pattern(a: &DualView<f64, Dims<2>>, side: Side, scale: f64) {
    let v = a.raw().view(side).unwrap();
    let n = v.span();
    // SAFETY: test-device memory is host memory of `span` elements; no guard is out.
    let s = unsafe { std::slice::from_raw_parts_mut(v.data() as *mut f64, n) };
    for (k, x) in s.iter_mut().enumerate() {
        *x = scale * k as f64;
    }
}

fn side(a: &DualView<f64, Dims<2>>, side: Side) -> (usize, Vec<f64>) {
    let v = a.raw().view(side).unwrap();
    // SAFETY: as above.
    (v.data() as usize, unsafe { std::slice::from_raw_parts(v.data() as *const f64, v.span()) }.to_vec())
}

fn grows_in_place(layout: Layout, from: [usize; 2], to: [usize; 2], device_grows: bool) {
    let dev = if device_grows { test_device::set_grows_in_place(GROWS, true).unwrap(); Space::test_device(GROWS) } else { DEV };
    let a = DualView::<f64, Dims<2>>::builder("g", Dims::new(from).unwrap()).layout(layout).device(dev).build().unwrap();
    pattern(&a, Side::Host, 1.0);
    pattern(&a, Side::Device, 2.0);
    a.modify_host().unwrap();
    let row = a.subview(&[Slice::Index(0), Slice::All]).unwrap();
    let (hp, h0) = side(&a, Side::Host);
    let (dp, d0) = side(&a, Side::Device);
    a.resize(Dims::new(to).unwrap()).unwrap();
    let (hp2, h1) = side(&a, Side::Host);
    let (dp2, d1) = side(&a, Side::Device);
    assert_eq!(hp2, hp, "the host block kept its address");
    assert_eq!(dp2 == dp, device_grows, "the device block grew in place only where its driver lets it");
    assert!(h1[..h0.len()] == h0[..], "host contents kept");
    if device_grows {
        assert!(d1[..d0.len()] == d0[..], "device contents kept in place");
    } // a moved device block gets the live elements only: here the host's are newer (sync_device below)
    assert!(h1[h0.len()..].iter().all(|&x| x == 0.0) && d1[d0.len()..].iter().all(|&x| x == 0.0), "new elements are zero");
    assert!(a.need_sync_device() && !a.need_sync_host(), "flags unchanged");
    assert_eq!(row.raw().try_need_sync(Side::Host).unwrap_err().kind(), dualview::ErrorKind::Stale);
    a.sync_device().unwrap();
    let (_, d2) = side(&a, Side::Device);
    assert!(d2[..h0.len()] == h0[..], "the device has the host's values after sync_device");
}

#[test]
fn layout_right_grows_its_first_axis_in_place() {
    grows_in_place(Layout::Right, [1 << 19, 8], [1 << 20, 8], false); // 32 MiB to 64 MiB
    grows_in_place(Layout::Right, [1 << 19, 8], [1 << 20, 8], true);
}

#[test]
fn layout_left_grows_its_last_axis_in_place() {
    grows_in_place(Layout::Left, [8, 1 << 19], [8, 2 << 19], false);
    grows_in_place(Layout::Left, [8, 1 << 19], [8, 2 << 19], true);
}

#[test]
fn growth_past_the_reservation_copies_once() {
    // A block reserves room to double; growing 4x at once moves it (contents kept).
    let a = DualView::<f64, Dims<2>>::builder("far", Dims::new([1 << 19, 8]).unwrap()).layout(Layout::Right).device(DEV).build().unwrap();
    pattern(&a, Side::Host, 1.0);
    let (hp, h0) = side(&a, Side::Host);
    a.resize(Dims::new([4 << 19, 8]).unwrap()).unwrap();
    let (hp2, h1) = side(&a, Side::Host);
    assert_ne!(hp, hp2);
    assert_eq!(&h1[..h0.len()], &h0[..]);
    assert!(h1[h0.len()..].iter().all(|&x| x == 0.0));
}

#[test]
fn other_axes_copy_and_keep_both_sides() {
    let a = DualView::<f64, Dims<2>>::builder("o", Dims::new([1 << 18, 16]).unwrap()).layout(Layout::Right).device(DEV).build().unwrap();
    pattern(&a, Side::Host, 1.0);
    pattern(&a, Side::Device, 3.0);
    let (hp, h0) = side(&a, Side::Host);
    a.resize(Dims::new([1 << 18, 32]).unwrap()).unwrap(); // not a prefix: a new block, copied in parallel
    let (hp2, h1) = side(&a, Side::Host);
    let (_, d1) = side(&a, Side::Device);
    assert_ne!(hp, hp2);
    for i in [0usize, 1, 1 << 17, (1 << 18) - 1] {
        for j in [0usize, 7, 15] {
            assert_eq!(h1[i * 32 + j], h0[i * 16 + j]);
            assert_eq!(d1[i * 32 + j], 3.0 * (i * 16 + j) as f64);
        }
        assert_eq!(h1[i * 32 + 16], 0.0);
    }
}

#[test]
fn small_and_one_space_dual_views_grow_too() {
    // Below 32 MiB the host block is copied; one-space DualViews grow their single block.
    let a = DualView::<u8, Dims<1>>::builder("s", Dims::new([100]).unwrap()).device(DEV).build().unwrap();
    a.fill_host(5).unwrap();
    a.resize(Dims::new([300]).unwrap()).unwrap();
    let h = a.host().unwrap().to_vec().unwrap();
    assert!(h[..100].iter().all(|&x| x == 5) && h[100..].iter().all(|&x| x == 0));
    let b = DualView::<f64, Dims<1>>::new("one", Dims::new([5 << 20]).unwrap()).unwrap(); // 40 MiB, host only
    let p = b.host().unwrap().as_ptr() as usize;
    b.resize(Dims::new([10 << 20]).unwrap()).unwrap();
    assert_eq!(b.host().unwrap().as_ptr() as usize, p);
}
