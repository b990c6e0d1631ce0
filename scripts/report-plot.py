#!/usr/bin/env python3
"""Draw the transfer report (DV_REPORT=<prefix>, docs/GPU.md "The transfer
report") as a PNG: one bar per DualView label and rank, its time split by
direction (to the device, to the host), most time on top. Reads the CSV form
(<prefix>.<rank>.csv; several files: one per rank). Needs matplotlib (Debian:
python3-matplotlib).

usage: scripts/report-plot.py out.png run.0.csv [run.1.csv ...]
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, files = sys.argv[1], sys.argv[2:]
    rows = {}  # (rank, label) -> {direction: seconds}
    for path in files:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                key = (r["rank"] or "-", r["label"])
                rows.setdefault(key, {})[r["direction"]] = float(r["seconds"])
    if not rows:
        sys.exit(f"report-plot: no rows in {', '.join(files)}")
    keys = sorted(rows, key=lambda k: sum(rows[k].values()))
    names = [f"rank {rank}: {label}" if rank != "-" else label for rank, label in keys]
    to_dev = [rows[k].get("to_device", 0.0) * 1e3 for k in keys]
    to_host = [rows[k].get("to_host", 0.0) * 1e3 for k in keys]
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(keys) + 1.5))
    ax.barh(names, to_dev, label="to the device", color="tab:blue")
    ax.barh(names, to_host, left=to_dev, label="to the host", color="tab:orange")
    ax.set_xlabel("time in syncs (ms)")
    ax.set_title("dualview transfer report")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"report-plot: {len(keys)} bars from {len(files)} file(s) -> {out}")


if __name__ == "__main__":
    main()
