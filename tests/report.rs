//! The transfer report (issue 23, item 2): a child process runs with
//! `DV_REPORT=<prefix>` and an MPI launcher's rank in its environment; at exit
//! it writes `<prefix>.<rank>.txt` and `.csv`, whose rows are checked here
//! against what the program moved. Without `DV_REPORT` nothing is recorded.

use dualview::{Dims, DualView, Space};
use std::process::Command;

const N: usize = 1 << 16; // 512 KiB of f64

/// The program whose report is checked (run by the test below, in a child).
#[test]
#[ignore = "the child process of the report's test"]
fn report_child_program() {
    if std::env::var_os("DV_REPORT").is_none() {
        return;
    }
    let dev = Space::test_device(51);
    let halo: DualView<f64, Dims<1>> = DualView::builder("halo", Dims::new([N]).unwrap()).device(dev).build().unwrap();
    let field: DualView<f64, Dims<1>> = DualView::builder("field", Dims::new([4 * N]).unwrap()).device(dev).build().unwrap();
    for step in 0..3 {
        halo.fill_device(step as f64).unwrap();
        halo.sync_host().unwrap(); // 3 x 512 KiB to the host
        halo.modify_host().unwrap();
        halo.sync_device().unwrap(); // 3 x 512 KiB to the device
    }
    field.fill_host(1.0).unwrap();
    field.sync_device().unwrap(); // 2 MiB to the device
    field.resize(Dims::new([8 * N]).unwrap()).unwrap();
    field.modify_host().unwrap();
    field.sync_device().unwrap(); // 4 MiB to the device
}

#[test]
#[cfg_attr(miri, ignore)] // runs a child process
fn the_report_at_exit_holds_each_labels_traffic_per_rank() {
    assert!(!dualview::report::enabled() || std::env::var_os("DV_REPORT").is_some());
    let dir = std::env::temp_dir().join(format!("dualview-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let prefix = dir.join("run");
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "report_child_program", "--ignored", "--test-threads", "1"])
        .env("DV_REPORT", &prefix)
        .env("OMPI_COMM_WORLD_RANK", "3")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let txt = std::fs::read_to_string(format!("{}.3.txt", prefix.display())).expect("the report of rank 3");
    let csv = std::fs::read_to_string(format!("{}.3.csv", prefix.display())).expect("its CSV form");
    plot(&dir, &format!("{}.3.csv", prefix.display()));
    std::fs::remove_dir_all(&dir).ok();
    assert!(txt.starts_with("dualview transfer report, rank 3,"), "{txt}");
    let row = |label: &str, dir: &str| -> Vec<String> {
        let line = csv
            .lines()
            .find(|l| l.starts_with(&format!("3,\"{label}\",")) && l.contains(&format!(",{dir},")))
            .unwrap_or_else(|| panic!("no {label} {dir} row in\n{csv}"));
        line.split(',').map(str::to_owned).collect()
    };
    let b = (N * 8) as u64;
    // rank,label,device,direction,count,bytes,seconds,largest,resizes
    let h = row("halo", "to_host");
    assert_eq!((h[4].as_str(), h[5].parse::<u64>().unwrap()), ("3", 3 * b), "{csv}");
    let d = row("halo", "to_device");
    assert_eq!((d[4].as_str(), d[5].parse::<u64>().unwrap(), d[8].as_str()), ("3", 3 * b, "0"), "{csv}");
    let f = row("field", "to_device");
    assert_eq!(
        (f[4].as_str(), f[5].parse::<u64>().unwrap(), f[7].parse::<u64>().unwrap(), f[8].as_str()),
        ("2", 12 * b, 8 * b, "1"),
        "the field moved 2 MiB, then 4 MiB after one resize: {csv}"
    );
    assert_eq!((row("field", "to_host")[4].as_str(), row("field", "to_host")[7].as_str()), ("0", "0"), "largest is per direction: {csv}");
    assert!(txt.contains("\"halo\"") && txt.contains("\"field\""), "{txt}");
}

/// `scripts/report-plot.py` draws the CSV form as a PNG (with Debian's
/// matplotlib, which scripts/test.sh installs; skipped, saying why, without it).
fn plot(dir: &std::path::Path, csv: &str) {
    let python = "/usr/bin/python3";
    let has = Command::new(python).args(["-c", "import matplotlib"]).output().is_ok_and(|o| o.status.success());
    if !has {
        eprintln!("SKIPPED report-plot.py: no matplotlib for {python} (Debian: python3-matplotlib)");
        return;
    }
    let png = dir.join("report.png");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/report-plot.py");
    let out = Command::new(python).arg(script).arg(&png).arg(csv).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG") && bytes.len() > 1000, "not a PNG");
}
