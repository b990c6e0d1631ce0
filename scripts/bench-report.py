#!/usr/bin/env python3
"""Turn criterion results (target/criterion) into the table of docs/BENCHMARKS.md.

Usage: cargo bench --bench core && python3 scripts/bench-report.py --write
(--write rewrites docs/BENCHMARKS.md, keeping its GPU section; without it the page goes to stdout).
"""
import json
import os
import platform
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..", "target", "criterion")

# (what, dualview id, plain id, plain factor, aim)
PAIRS = [
    ("no-op modify+sync pair, two spaces", "flags/modify_sync_noop/dualview_two_space", "flags/modify_sync_noop/plain_bools", 1, "< 5 ns"),
    ("no-op modify+sync pair, two spaces, through the C ABI", "flags/modify_sync_noop/c_abi_two_space", "flags/modify_sync_noop/plain_bools", 1, "< 5 ns"),
    ("no-op modify+sync pair, one space", "flags/modify_sync_noop/dualview_one_space", "flags/modify_sync_noop/plain_bools", 1, "< 5 ns"),
    ("need_sync", "flags/need_sync/dualview", "flags/need_sync/plain_bool", 1, ""),
    ("create+destroy 1 MiB, one space", "create/1MiB/dualview_one_space", "create/1MiB/plain_alloc_memset", 1, "<= 1.2x"),
    ("create+destroy 1 MiB, two spaces", "create/1MiB/dualview_two_space", "create/1MiB/plain_alloc_memset_x2", 1, "<= 1.2x"),
    ("create+destroy 256 MiB, one space", "create/256MiB/dualview_one_space", "create/256MiB/plain_alloc_memset", 1, "<= 1.2x"),
    ("create+destroy 256 MiB, two spaces", "create/256MiB/dualview_two_space", "create/256MiB/plain_alloc_memset_x2", 1, "<= 1.2x"),
    ("create + write every element 1 MiB", "create_touch/1MiB/dualview_one_space", "create_touch/1MiB/plain_alloc_memset", 1, ""),
    ("create + write every element 256 MiB", "create_touch/256MiB/dualview_one_space", "create_touch/256MiB/plain_alloc_memset", 1, ""),
    ("resize 256 MiB to 2x, one space", "resize/256MiB_to_2x/dualview_one_space", "resize/256MiB_to_2x/plain_alloc_memcpy", 1, "<= 1.2x"),
    ("resize 256 MiB to 2x, two spaces", "resize/256MiB_to_2x/dualview_two_space", "resize/256MiB_to_2x/plain_alloc_memcpy", 2, "<= 1.2x"),
    ("resize 256 MiB 2-D to 2x along the slowest axis (in place), two spaces", "resize/256MiB_to_2x/slowest_axis_two_space", "resize/256MiB_to_2x/plain_alloc_memcpy", 2, "<= 1.2x"),
    ("resize 256 MiB 2-D to 2x along the other axis, two spaces", "resize/256MiB_to_2x/other_axis_two_space", "resize/256MiB_to_2x/plain_alloc_memcpy", 2, "<= 1.2x"),
]
EXTRA = ["create/1MiB/plain_alloc_zeroed", "create/256MiB/plain_alloc_zeroed"]


def load():
    out = {}
    for dirpath, _, files in os.walk(ROOT):
        if os.path.basename(dirpath) != "new" or "benchmark.json" not in files:
            continue
        with open(os.path.join(dirpath, "benchmark.json")) as f:
            full_id = json.load(f)["full_id"]
        with open(os.path.join(dirpath, "estimates.json")) as f:
            est = json.load(f)
        out[full_id] = (est["median"]["point_estimate"], est["median"]["confidence_interval"])
    return out


def fmt(ns):
    if ns < 1e3:
        return f"{ns:.2f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.2f} us"
    return f"{ns / 1e6:.2f} ms"


def main():
    r = load()
    missing = [p[1] for p in PAIRS if p[1] not in r] + [p[2] for p in PAIRS if p[2] not in r]
    if missing:
        sys.exit(f"missing results: {missing}; run `cargo bench --bench core` first")
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    print("# Benchmarks\n")
    print("Core benchmarks of the Rust library, each beside its plain equivalent measured in the same run")
    print("(`cargo bench --bench core`; this page is written by `scripts/bench-report.py`). Median of criterion's")
    print("samples. Two spaces = host + test device (host memory): the same work a GPU DualView does on the host side.\n")
    print(f"Machine: {cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; {rustc}.\n")
    print("| what | dualview | plain equivalent | plain | ratio | aim | met |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for what, dv, plain, factor, aim in PAIRS:
        a, b = r[dv][0], r[plain][0] * factor
        ratio = a / b
        met = ""
        if aim == "< 5 ns":
            met = "yes" if a < 5 else "no"
        elif aim == "<= 1.2x":
            met = "yes" if ratio <= 1.2 else "no"
        plain_name = plain.split("/")[-1] + (f" x{factor}" if factor != 1 else "")
        print(f"| {what} | {fmt(a)} | {plain_name} | {fmt(b)} | {ratio:.2f} | {aim} | {met} |")
    print("\nOther baselines:\n")
    print("| case | median |")
    print("| --- | --- |")
    for k in EXTRA:
        if k in r:
            print(f"| {k} | {fmt(r[k][0])} |")
    print("""
Notes:
- The no-op pair is `modify_device(); sync_device();` on a DualView whose device is already newer:
  one atomic load for the modify, one for the sync. The plain equivalent writes and tests two bools.
- Host memory from 256 KiB on is mapped from the kernel (fresh pages are zero and faulted in on first
  touch); freed blocks below 32 MiB are kept in a small cache (at most 64 MiB) and re-zeroed while hot
  when reused; 32 MiB and more go back to the kernel. Creation cost therefore does not depend on the
  system allocator's heap history. The `create + write every element` rows show the total a user pays
  (creation, zeroing and first write) against allocation + memset + the same write.
- `plain_alloc_memset_x2` keeps both arrays alive, as a hand-rolled mirror does; with 64-byte alignment
  glibc serves them from its heap and trims it on every free, so each round faults the pages in again.
  That is real behaviour of the plain equivalent on this machine, not a fault of the measurement.
- `plain_alloc_zeroed` is the system allocator's zeroed allocation (a memset when the alignment is 64).
- Resize grows in place when the old contents are a prefix of the new layout (1-D, or the slowest
  axis: the last of LayoutLeft, the first of LayoutRight): host blocks of 32 MiB and more reserve
  twice their size of address space, so growing maps more pages behind the data and copies nothing.
  Any other resize allocates and copies the overlap, with up to 8 threads from 32 MiB
  (`DV_COPY_THREADS`). The plain equivalent allocates and copies the old contents; two-space resize
  works on both sides, so its baseline is counted twice.
- Machines differ: read the ratios, and the plain two-bool baseline as a measure of the host (0.67 ns
  on the Intel Xeon of the 0.1 run, where the C ABI pair took 4.35 ns). On the H200's host one
  no-op C ABI call takes 3.4 to 4.7 ns (GPU section).""")


MARKER = "<!-- GPU section: kept as is by scripts/bench-report.py -->"


def kept_gpu_section():
    """The GPU part of docs/BENCHMARKS.md (from MARKER on), which this script keeps."""
    try:
        text = open("docs/BENCHMARKS.md").read()
    except OSError:
        return ""
    i = text.find(MARKER)
    return "" if i < 0 else "\n" + text[i:].rstrip("\n")


if __name__ == "__main__":
    import contextlib
    import io

    gpu = kept_gpu_section()
    page = io.StringIO()
    with contextlib.redirect_stdout(page):
        main()
        if gpu:
            print(gpu)
    if "--write" in sys.argv:
        with open("docs/BENCHMARKS.md", "w") as f:
            f.write(page.getvalue())
    else:
        sys.stdout.write(page.getvalue())
