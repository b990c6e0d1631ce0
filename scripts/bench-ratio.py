#!/usr/bin/env python3
"""Join the outputs of benches/kokkos_rows.cu built against dualview and
against Kokkos (scripts/gpu-bench.sh) into one markdown table with a ratio
column: Kokkos' time over dualview's, so above 1.0 means dualview is faster.

    python3 scripts/bench-ratio.py DUALVIEW_OUT KOKKOS_OUT [KOKKOS_NAME]

A row either side lacks shows "-"; a row whose values were wrong shows its
check. Exits 1 when a row's check failed on either side."""
import sys


def rows(path):
    out = {}
    try:
        for line in open(path):
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 4 and parts[0] == "ROW":
                out[parts[1]] = (float(parts[2]), parts[3])
    except FileNotFoundError:
        pass
    return out


def show(seconds):
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    if seconds >= 1e-6:
        return f"{seconds * 1e6:.2f} us"
    return f"{seconds * 1e9:.2f} ns"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    dv, kk = rows(sys.argv[1]), rows(sys.argv[2])
    name = sys.argv[3] if len(sys.argv) > 3 else "Kokkos"
    print(f"| row | {name} | dualview | ratio | values |")
    print("| --- | --- | --- | --- | --- |")
    bad = False
    for row in list(dv) + [r for r in kk if r not in dv]:
        d, k = dv.get(row), kk.get(row)
        checks = [c for c in (d and d[1], k and k[1]) if c and c != "ok"]
        bad |= bool(checks)
        ratio = f"{k[0] / d[0]:.2f}" if d and k and d[0] > 0 else "-"
        print(f"| {row} | {show(k[0]) if k else '-'} | {show(d[0]) if d else '-'} | {ratio} | {'; '.join(checks) or 'ok'} |")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
