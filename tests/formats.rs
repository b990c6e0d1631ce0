//! Every output format a program or a script can parse is pinned here, and
//! every pin is in CHANGELOG.md (issue 35, item 3): the `DV_TRACE` line, the
//! transfer report's columns, the C status numbers, the prefixes of C,
//! checked-mode and leak-report messages.
//!
//! The rule: **a format change needs its pin updated, and the new pin must
//! appear in CHANGELOG.md.** Each test below makes the library produce the
//! text live and compares it with its pin; then
//! `every_output_format_has_its_changelog_entry` fails, naming what to add,
//! while CHANGELOG.md lacks a pin written exactly, in backticks.
//!
//! A pin is the text itself where it is fixed, or a pattern in which each
//! `<name>` stands for a run of one or more characters of one line (the
//! shortest after which the rest of the pattern follows).

use dualview::ffi::{dv_last_error, dv_status_t, dv_sync_host};
use dualview::{Desc, Dims, DualView, DynRank, ElemSpec, ErrorKind, Layout, Mapping, RawDualView, Side, Slice, Space};
use std::process::{Command, Output};

/// A copying sync's `DV_TRACE` line without an MPI launcher.
const TRACE_PID: &str = "dualview[pid <pid>]: sync \"<label>\" <from>-><to> <bytes> B in <microseconds> us";
/// The same under an MPI launcher (the rank as the transfer report reads it).
const TRACE_RANK: &str = "dualview[rank <rank>]: sync \"<label>\" <from>-><to> <bytes> B in <microseconds> us";
/// Where `DV_TRACE_FILE=<prefix>` writes the lines.
const TRACE_FILE: &str = "<prefix>.<rank or pid>.log";
/// The transfer report's CSV header.
const REPORT_CSV: &str = "rank,label,device,direction,count,bytes,seconds,largest,resizes";
/// The first line of the report's table.
const REPORT_TITLE: &str = "dualview transfer report, <rank>, process <pid>: <count> DualView label(s), most time first";
/// The table's columns, in order (aligned for reading: their widths are not pinned).
const REPORT_COLUMNS: &str = "label | to dev | bytes | ms | GB/s | to host | bytes | ms | GB/s | largest | resizes \
                              | resize copies | deep copies | fills | raw GB/s (to dev, to host)";
/// A C call's `dv_last_error()`: the function's name first.
const C_MESSAGE: &str = "<function>: <message>";
/// A checked-mode error (the Rust form; C prefixes the function's name).
const CHECKED: &str = "DualView \"<label>\": checked mode: <what>. First changed index: (<index>); found at <call>; \
                       nothing was copied or marked";
/// The leak report (`DV_LEAK_REPORT=1`) at exit, when everything was freed.
const LEAK_NONE: &str = "dualview: leak report: every DualView and View was destroyed";
/// Its first line otherwise ...
const LEAK_SOME: &str = "dualview: leak report: <count> allocation(s), <bytes> bytes never freed:";
/// ... then one line per allocation.
const LEAK_ONE: &str = "dualview:   \"<label>\" <bytes> bytes in <space>";
/// The C status numbers (`dv_status_t`), pinned one by one.
const STATUS: [(&str, i32); 20] = [
    ("DV_OK", 0),
    ("DV_ERROR_NULL_ARGUMENT", 1),
    ("DV_ERROR_INVALID_ARGUMENT", 2),
    ("DV_ERROR_INVALID_HANDLE", 3),
    ("DV_ERROR_RANK", 4),
    ("DV_ERROR_OUT_OF_RANGE", 5),
    ("DV_ERROR_OVERFLOW", 6),
    ("DV_ERROR_OUT_OF_MEMORY", 7),
    ("DV_ERROR_CONCURRENT_MODIFICATION", 8),
    ("DV_ERROR_CONST_SYNC", 9),
    ("DV_ERROR_INCOMPATIBLE", 10),
    ("DV_ERROR_NO_DEVICE", 11),
    ("DV_ERROR_DEVICE", 12),
    ("DV_ERROR_INTERNAL", 13),
    ("DV_ERROR_RANK_MISMATCH", 14),
    ("DV_ERROR_STATIC_MISMATCH", 15),
    ("DV_ERROR_UNMANAGED", 16),
    ("DV_ERROR_STALE", 17),
    ("DV_ERROR_BUSY", 18),
    ("DV_ERROR_UNMARKED_CHANGE", 19),
];

/// A pattern's literal parts: the text before its first `<name>`, then the text after each.
fn literals(pattern: &str) -> Vec<&str> {
    let name = |n: &str| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == '_');
    let (mut out, mut start, mut from) = (Vec::new(), 0, 0);
    while let Some(i) = pattern[from..].find('<').map(|i| from + i) {
        match pattern[i + 1..].find('>').map(|j| i + 1 + j).filter(|&j| name(&pattern[i + 1..j])) {
            Some(j) => {
                out.push(&pattern[start..i]);
                (start, from) = (j + 1, j + 1);
            }
            None => from = i + 1, // a `<` of the text itself (`<-`)
        }
    }
    out.push(&pattern[start..]);
    out
}

/// Whether `text` has the shape of `pattern` (see the module's comment): each
/// `<name>` takes the shortest run of one line's characters after which its
/// literal follows (the last one, the run up to the pattern's end).
fn fits(pattern: &str, text: &str) -> bool {
    let parts = literals(pattern);
    let Some(mut rest) = text.strip_prefix(parts[0]) else { return false };
    for (k, lit) in parts.iter().enumerate().skip(1) {
        let at = if k + 1 == parts.len() {
            rest.strip_suffix(lit).map(str::len)
        } else {
            rest.char_indices().skip(1).map(|(i, _)| i).find(|&i| rest[i..].starts_with(lit))
        };
        let Some(i) = at.filter(|&i| i > 0 && !rest[..i].contains('\n')) else { return false };
        rest = &rest[i + lit.len()..];
    }
    rest.is_empty()
}

/// Whether a table header line holds exactly `columns` (split at ` | `), in order, apart by blanks.
fn has_columns(header: &str, columns: &str) -> bool {
    let names: Vec<&str> = columns.split(" | ").collect();
    let mut rest = header.trim_start();
    for (i, name) in names.iter().enumerate() {
        let Some(r) = rest.strip_prefix(name) else { return false };
        if i + 1 < names.len() && !r.starts_with(' ') {
            return false;
        }
        rest = r.trim_start();
    }
    rest.is_empty()
}

#[test]
fn the_pattern_matcher_is_not_blind() {
    assert!(fits(TRACE_PID, "dualview[pid 41207]: sync \"A\" host->device 8000 B in 12.345 us"));
    assert!(!fits(TRACE_PID, "dualview: sync \"A\" host->device 8000 B in 12.345 us"), "the form before 0.3");
    assert!(!fits(TRACE_PID, "dualview[pid ]: sync \"A\" host->device 8000 B in 12.345 us"), "a hole takes a character");
    assert!(!fits(TRACE_PID, "dualview[pid 1]: sync \"A\" host->device 8000 B in 12.345 us\nmore"), "one line");
    assert!(fits(C_MESSAGE, "dv_sync_host: argument `dv` is NULL") && !fits(C_MESSAGE, "dv_sync_host: "));
    assert!(fits(TRACE_FILE, "/tmp/t.2.log") && !fits(TRACE_FILE, "/tmp/t.2.txt"));
    assert!(has_columns("a   b c  d e", "a | b c | d e") && !has_columns("a b c d", "a | b c"));
}

/// The program the child-process tests run: what `DV_FORMATS_CHILD` names.
#[test]
#[ignore = "the child process of the trace and leak-report tests"]
fn formats_child_program() {
    let Ok(what) = std::env::var("DV_FORMATS_CHILD") else { return };
    let a = DualView::<f64, Dims<1>>::builder("A", Dims::new([1000]).unwrap()).device(Space::test_device(35)).build().unwrap();
    a.modify_host().unwrap();
    a.sync_device().unwrap(); // 8000 bytes to the device: one trace line
    if what == "leak" {
        std::mem::forget(a); // both sides never freed
    }
}

/// Run [`formats_child_program`] with `env` (and no MPI rank, trace or report
/// setting of this process): its pid and standard error.
fn child(what: &str, env: &[(&str, &str)]) -> (u32, String) {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "formats_child_program", "--ignored", "--test-threads", "1"]);
    for k in ["OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK", "SLURM_PROCID"] {
        cmd.env_remove(k);
    }
    for k in ["DV_TRACE", "DV_TRACE_FILE", "DV_REPORT", "DV_LEAK_REPORT", "DV_DEBUG_MEMORY"] {
        cmd.env_remove(k);
    }
    cmd.env("DV_FORMATS_CHILD", what).envs(env.iter().copied());
    let proc = cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let pid = proc.id();
    let out: Output = proc.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    (pid, err)
}

#[test]
#[cfg_attr(miri, ignore)] // runs a child process
fn trace_lines_carry_the_pid_or_the_rank() {
    let dir = std::env::temp_dir().join(format!("dualview-formats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let prefix = dir.join("trace");
    let prefix = prefix.to_str().unwrap();
    // Without MPI: the pid, on stderr.
    let (pid, err) = child("trace", &[("DV_TRACE", "1")]);
    let line = err.lines().find(|l| l.contains("]: sync ")).unwrap_or_else(|| panic!("no trace line in\n{err}"));
    assert!(fits(TRACE_PID, line) && line.starts_with(&format!("dualview[pid {pid}]: ")), "{line}\nis not\n{TRACE_PID}");
    // Under a launcher: the rank, in the file of that rank.
    let (_, err) = child("trace", &[("DV_TRACE", "1"), ("DV_TRACE_FILE", prefix), ("OMPI_COMM_WORLD_RANK", "2")]);
    let path = format!("{prefix}.2.log");
    let log = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}; stderr:\n{err}"));
    std::fs::remove_dir_all(&dir).ok();
    assert!(fits(TRACE_FILE, &path));
    let line = log.strip_suffix('\n').unwrap_or_else(|| panic!("one whole line: {log:?}"));
    assert!(
        fits(TRACE_RANK, line) && line.starts_with("dualview[rank 2]: sync \"A\" host->device 8000 B in "),
        "{line}\nis not\n{TRACE_RANK}"
    );
}

#[test]
fn report_columns_are_pinned() {
    // The header lines come without rows: nothing needs recording.
    let csv = dualview::report::csv();
    assert_eq!(csv.lines().next(), Some(REPORT_CSV), "{csv}");
    let text = dualview::report::text();
    let mut lines = text.lines();
    let title = lines.next().unwrap_or_default();
    assert!(fits(REPORT_TITLE, title), "{title}\nis not\n{REPORT_TITLE}");
    let header = lines.next().unwrap_or_default();
    assert!(has_columns(header, REPORT_COLUMNS), "{header}\nhas not the columns\n{REPORT_COLUMNS}");
}

#[test]
fn status_numbers_are_pinned() {
    let live: Vec<(String, i32)> = dv_status_t::ALL.iter().map(|s| (format!("{s:?}"), *s as i32)).collect();
    let pinned: Vec<(String, i32)> = STATUS.iter().map(|&(n, v)| (n.to_owned(), v)).collect();
    assert_eq!(live, pinned);
    assert!(ErrorKind::ALL.iter().all(|k| STATUS.contains(&(format!("{:?}", k.status()).as_str(), k.status() as i32))));
}

#[test]
fn c_messages_begin_with_the_function_name() {
    // SAFETY: NULL is a documented argument of every C entry point (DV_ERROR_NULL_ARGUMENT).
    let st = unsafe { dv_sync_host(std::ptr::null()) };
    assert_eq!(st, dv_status_t::DV_ERROR_NULL_ARGUMENT);
    // SAFETY: dv_last_error never returns NULL; the text lives until this thread's next failing call.
    let msg = unsafe { std::ffi::CStr::from_ptr(dv_last_error()) }.to_string_lossy().into_owned();
    assert!(fits(C_MESSAGE, &msg) && msg.starts_with("dv_sync_host: "), "{msg}\nis not\n{C_MESSAGE}");
}

#[test]
fn checked_mode_messages_are_pinned() {
    let m = Mapping::new(Layout::Right, DynRank::new(&[50, 4]).unwrap()).unwrap();
    let mut d = Desc::new(ElemSpec::of::<f64>(), m, Space::test_device(35));
    d.checked = true;
    let a = RawDualView::new("field", &d).unwrap();
    a.fill(Side::Host, &1.0f64.to_ne_bytes()).unwrap();
    a.sync(Side::Device).unwrap();
    // A kernel writes one element of the device side; modify_device is forgotten.
    let one = a.subview(&[Slice::Range(7, 8), Slice::Range(2, 3)]).unwrap();
    one.view_fill(Side::Device, &5.0f64.to_ne_bytes()).unwrap();
    let e = a.sync(Side::Host).expect_err("checked mode lets an unmarked write through");
    assert_eq!(e.kind(), ErrorKind::UnmarkedChange);
    let msg = e.to_string();
    assert!(fits(CHECKED, &msg) && msg.contains("First changed index: (7, 2)"), "{msg}\nis not\n{CHECKED}");
}

#[test]
#[cfg_attr(miri, ignore)] // runs a child process
fn leak_report_lines_are_pinned() {
    let (_, err) = child("clean", &[("DV_LEAK_REPORT", "1")]);
    let report: Vec<&str> = err.lines().filter(|l| l.starts_with("dualview:")).collect();
    assert_eq!(report, [LEAK_NONE], "{err}");
    let (_, err) = child("leak", &[("DV_LEAK_REPORT", "1")]);
    let report: Vec<&str> = err.lines().filter(|l| l.starts_with("dualview:")).collect();
    assert!(report.len() == 3 && fits(LEAK_SOME, report[0]), "{err}\nis not\n{LEAK_SOME}");
    assert!(report[1..].iter().all(|l| fits(LEAK_ONE, l) && l.contains(" 8000 bytes in ")), "{err}\nis not\n{LEAK_ONE}");
}

#[test]
fn every_output_format_has_its_changelog_entry() {
    // The source tree: CARGO_MANIFEST_DIR at run time (scripts/gpu-check.sh sets it to its copy), else where it was built.
    let root = std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| env!("CARGO_MANIFEST_DIR").into(), std::path::PathBuf::from);
    let path = root.join("CHANGELOG.md");
    let changelog = std::fs::read_to_string(&path).unwrap();
    let mut pins: Vec<(String, String)> = [
        ("the DV_TRACE line without MPI", TRACE_PID),
        ("the DV_TRACE line under MPI", TRACE_RANK),
        ("the DV_TRACE_FILE name", TRACE_FILE),
        ("the transfer report's CSV header", REPORT_CSV),
        ("the transfer report's title", REPORT_TITLE),
        ("the transfer report's columns", REPORT_COLUMNS),
        ("dv_last_error()'s messages", C_MESSAGE),
        ("checked mode's messages", CHECKED),
        ("the leak report, nothing leaked", LEAK_NONE),
        ("the leak report's first line", LEAK_SOME),
        ("the leak report's allocation lines", LEAK_ONE),
    ]
    .iter()
    .map(|&(what, pin)| (what.to_owned(), pin.to_owned()))
    .collect();
    pins.extend(STATUS.iter().map(|(name, v)| (format!("the status {name}"), format!("{name} = {v}"))));
    let missing: Vec<String> =
        pins.iter().filter(|(_, pin)| !changelog.contains(&format!("`{pin}`"))).map(|(what, pin)| format!("{what}: `{pin}`")).collect();
    assert!(
        missing.is_empty(),
        "CHANGELOG.md lacks these pinned output formats. A changed format needs a migration note in the \
         Unreleased section and its new pin, exactly and in backticks, in the \"Output formats\" list:\n{}",
        missing.join("\n")
    );
}
