//! Host memory a small DualView takes: `cargo run --release --example small_rss -- [N] [host]`
//! creates N (default 50,000) DualViews of 64 bytes on the test device (or host-only) and
//! prints the growth of the process' resident memory per DualView (Linux: /proc/self/statm).

use dualview::{Dims, DualView, Space};

fn resident() -> Option<usize> {
    let s = std::fs::read_to_string("/proc/self/statm").ok()?;
    Some(s.split_whitespace().nth(1)?.parse::<usize>().ok()? * 4096)
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(50_000);
    let space = if std::env::args().nth(2).as_deref() == Some("host") { Space::HOST } else { Space::test_device(0) };
    let Some(before) = resident() else {
        println!("SKIPPED small_rss: no /proc/self/statm on this system");
        return;
    };
    let all: Vec<_> = (0..n).map(|_| DualView::<u8, Dims<1>>::builder("small", Dims::new([64]).unwrap()).device(space).build().unwrap()).collect();
    let after = resident().unwrap_or(before);
    println!("{n} DualViews of 64 bytes on {space}: {:.0} bytes of resident host memory each", (after - before) as f64 / n as f64);
    drop(all);
}
