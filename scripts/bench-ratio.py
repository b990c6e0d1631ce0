#!/usr/bin/env python3
"""Join the outputs of benches/kokkos_rows.cu built against dualview and
against Kokkos (scripts/gpu-bench.sh) into one markdown table with a ratio
column: Kokkos' median over dualview's, so above 1.0 means dualview is ahead.

    python3 scripts/bench-ratio.py DUALVIEW_OUTS KOKKOS_OUTS [KOKKOS_NAME]

Each side is a comma-separated list of outputs, one per interleaved round: a
row's value is its median over the rounds, and the spread (smallest to largest)
is shown beside it. Values are seconds, bytes for a "memory:" row. A "floor:"
row is raw CUDA (the same program in both builds), a target's reference and no
comparison: its ratio shows "floor". A row either side lacks shows "-"; a row
whose values were wrong shows its check. Exits 1 when a check failed on either side."""
import sys


def runs(paths):
    """name -> ([value per round], [checks]) over the outputs in `paths` (a list or a comma-separated string)."""
    if isinstance(paths, str):
        paths = [p for p in paths.split(",") if p]
    out = {}
    for path in paths:
        try:
            for line in open(path):
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 4 and parts[0] == "ROW":
                    values, checks = out.setdefault(parts[1], ([], []))
                    values.append(float(parts[2]))
                    checks.append(parts[3])
        except FileNotFoundError:
            pass
    return out


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def rows(paths):
    """name -> (median value, the first check that is not "ok", else "ok")."""
    return {k: (median(v), next((c for c in cs if c != "ok"), "ok")) for k, (v, cs) in runs(paths).items()}


def show(value, row=""):
    if row.startswith("memory:"):
        return f"{value / 1e3:.2f} KB" if value >= 1e3 else f"{value:.0f} B"
    if value >= 1e-3:
        return f"{value * 1e3:.2f} ms"
    if value >= 1e-6:
        return f"{value * 1e6:.2f} us"
    return f"{value * 1e9:.2f} ns"


def cell(row, values):
    """The median, and the spread when there are several rounds."""
    if not values:
        return "-"
    text = show(median(values), row)
    if len(values) > 1:
        text += f" ({show(min(values), row)} - {show(max(values), row)})"
    return text


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    dv, kk = runs(sys.argv[1]), runs(sys.argv[2])
    name = sys.argv[3] if len(sys.argv) > 3 else "Kokkos"
    rounds = max([len(v) for v, _ in list(dv.values()) + list(kk.values())] or [0])
    print(f"| row | {name} | dualview | ratio | values |")
    print("| --- | --- | --- | --- | --- |")
    bad = False
    for row in list(dv) + [r for r in kk if r not in dv]:
        d, k = dv.get(row, ([], [])), kk.get(row, ([], []))
        checks = sorted({c for c in d[1] + k[1] if c != "ok"})
        bad |= bool(checks)
        if row.startswith("floor:"):
            ratio = "floor"
        else:
            ratio = f"{median(k[0]) / median(d[0]):.2f}" if d[0] and k[0] and median(d[0]) > 0 else "-"
        print(f"| {row} | {cell(row, k[0])} | {cell(row, d[0])} | {ratio} | {'; '.join(checks) or 'ok'} |")
    print(f"\nMedians of {rounds} interleaved round(s) (dualview first in odd rounds, Kokkos first in even ones); in brackets the smallest and the largest.")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
