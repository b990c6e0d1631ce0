#!/usr/bin/env python3
"""Draw docs/gpu-bandwidth.png from the CSV of scripts/gpu-bench.sh:
bandwidth against size for the default (first and later syncs), pinned and
pageable opt-out mirrors, and raw pinned and pageable copies; one panel per
direction. Needs matplotlib (pip install matplotlib).

usage: scripts/bench-plot.py gpu-bench.csv [out.png]
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

src = sys.argv[1]
out = sys.argv[2] if len(sys.argv) > 2 else "docs/gpu-bandwidth.png"
series = defaultdict(list)
with open(src) as f:
    for row in csv.DictReader(f):
        series[(row["series"], row["direction"])].append((int(row["bytes"]), float(row["gbps"])))

style = {
    "raw pinned": dict(color="black", linestyle="--", marker="s"),
    "raw pageable": dict(color="gray", linestyle=":", marker="s"),
    "default (first sync)": dict(color="tab:orange", marker="o"),
    "default (later syncs)": dict(color="tab:blue", marker="o", linewidth=2),
    "pinned (later syncs)": dict(color="tab:green", marker="^"),
    "pageable opt-out (later syncs)": dict(color="tab:red", marker="v"),
}
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
for ax, direction, title in [(axes[0], "H2D", "host -> device (sync_device)"), (axes[1], "D2H", "device -> host (sync_host)")]:
    for name, st in style.items():
        pts = sorted(series.get((name, direction), []))
        if pts:
            ax.plot([b / 2**20 for b, _ in pts], [g for _, g in pts], label=name, **st)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("DualView size (MiB)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
axes[0].set_ylabel("GB/s")
axes[1].legend(loc="lower right", fontsize=8)
fig.suptitle("dualview sync bandwidth on one H200 (scripts/gpu-bench.sh)")
fig.tight_layout()
fig.savefig(out, dpi=110)
print(f"wrote {out}")
