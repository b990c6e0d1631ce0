use dualview::{Desc, DynRank, ElemSpec, Layout, Mapping, RawDualView, Side, Space};
use std::time::Instant;
fn main() {
    let sp = Space::test_device(0);
    let m = Mapping::new(Layout::Right, DynRank::new(&[512]).unwrap()).unwrap();
    let a = RawDualView::new("enq", &Desc::new(ElemSpec::of::<f64>(), m, sp)).unwrap();
    let s = dualview::memory::stream::create(sp).unwrap();
    let mut t = vec![];
    for r in 0..2000 {
        a.fill(Side::Device, &(r as f64).to_ne_bytes()).unwrap();
        a.modify(Side::Device).unwrap();
        let t0 = Instant::now();
        a.sync_on(Side::Host, s).unwrap();
        t.push(t0.elapsed().as_secs_f64() * 1e6);
        dualview::memory::stream::fence(sp, s).unwrap();
    }
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!("sync_on 4 KiB (test device): median {:.2} us, p10 {:.2}, p90 {:.2}", t[1000], t[200], t[1800]);
}
