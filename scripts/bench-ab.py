#!/usr/bin/env python3
"""Old against new: join the runs scripts/gpu-ab.sh wrote (DIR/old-<n>.txt,
DIR/new-<n>.txt, each benches/gpu_bench.cu's Markdown table) into one table:
per row the median of each library, its spread (largest minus smallest) and
new over old in time (above 1.00 means new is slower). A row is "slower" when
the new median is worse than the old by more than the larger of the two
spreads (rows of raw CUDA alone are shown, not judged). The flags rows time two library paths: the C++ one (dualview column)
and the C ABI one (raw column), both compared.

    python3 scripts/bench-ab.py DIR
    python3 scripts/bench-ab.py --self-test   (a slower row fails; noise within the spread does not)

Exits 1 when a row is slower, when a run holds no table, or when the two
libraries ran a different number of times."""
import glob
import os
import re
import statistics
import sys

UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
VALUE = re.compile(r"^([0-9]+(?:\.[0-9]+)?) (ns|us|ms|s|GB/s)\b")


def value(cell):
    """(seconds or GB/s, higher_is_better) of a cell, or None."""
    m = VALUE.match(cell.strip())
    if not m:
        return None
    x, unit = float(m.group(1)), m.group(2)
    return (x, True) if unit == "GB/s" else (x * UNIT[unit], False)


def table(path):
    """{row name: (value, higher_is_better)} of one run's Markdown table."""
    out = {}
    for line in open(path, errors="replace"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("| ") or len(cells) != 9 or cells[0] in ("group", "---"):
            continue
        group, op, size, dv, raw = cells[:5]
        name = f"{group}: {op}" + (f", {size}" if size else "")
        for label, cell in ((name, dv), (name + " [C ABI]", raw if group == "flags" else "")):
            v = value(cell)
            if v:
                key, n = label, 2
                while key in out:  # a repeated row keeps its order
                    key, n = f"{label} #{n}", n + 1
                out[key] = v
    return out


def reference(name):
    """A row that times raw CUDA only (the machine's drift, not a library's)."""
    return name.startswith("probe:") or " raw cudaMemcpy " in name


def show(x, better_high):
    if better_high:
        return f"{x:.1f} GB/s"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if x >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x / 1e-9:.3g} ns"


def main(d):
    runs = {v: sorted(glob.glob(os.path.join(d, f"{v}-*.txt"))) for v in ("old", "new")}
    bad = 0
    if len(runs["old"]) != len(runs["new"]) or not runs["old"]:
        print(f"bench-ab: {len(runs['old'])} old runs, {len(runs['new'])} new: cannot compare")
        return 1
    tables = {v: [table(p) for p in runs[v]] for v in runs}
    for v in tables:
        for p, t in zip(runs[v], tables[v]):
            if not t:
                print(f"bench-ab: no table in {p}")
                bad = 1
    names = list(dict.fromkeys(k for v in ("old", "new") for t in tables[v] for k in t))
    print(f"{len(runs['old'])} runs each, alternating (old, new); spread = largest - smallest;"
          " new/old in time (above 1.00: new slower)\n")
    print("| row | old median (spread) | new median (spread) | new/old | verdict |")
    print("| --- | --- | --- | --- | --- |")
    slower = 0
    for k in names:
        o = [t[k][0] for t in tables["old"] if k in t]
        n = [t[k][0] for t in tables["new"] if k in t]
        if not o or not n:
            print(f"| {k} | {len(o)} values | {len(n)} values | - | missing |")
            bad = 1
            continue
        high = next(t[k][1] for t in tables["old"] if k in t)
        mo, mn = statistics.median(o), statistics.median(n)
        spread = max(max(o) - min(o), max(n) - min(n))
        ratio = (mo / mn) if high else (mn / mo)
        worse = (mo - mn) if high else (mn - mo)
        verdict = "slower" if worse > spread else "same" if abs(mn - mo) <= spread else "faster"
        if reference(k):
            verdict += " (raw CUDA, no dualview)"
        else:
            slower += verdict == "slower"
        print(f"| {k} | {show(mo, high)} ({show(max(o) - min(o), high)}) | {show(mn, high)} ({show(max(n) - min(n), high)})"
              f" | {ratio:.2f} | {verdict} |")
    print(f"\n{len(names)} rows: {slower} slower than old by more than the spread")
    return 1 if slower or bad else 0


def self_test():
    """Three runs each of a two-row table: equal runs pass, a new tiny row slower than
    the old by more than the spread fails, and a raw CUDA row never does."""
    import contextlib
    import io
    import tempfile

    def table_text(tiny, raw):
        return ("| group | operation | size | dualview | raw | ratio | vs Kokkos | target | met |\n| --- |\n"
                f"| tiny | 1 double | 8 B | {tiny} us | 5.7 us raw | | | | |\n"
                f"| sync | default mirror, later raw cudaMemcpy of the same buffers | 1 MiB | {raw} GB/s H2D | | | | | |\n")

    def verdict(old, new):
        with tempfile.TemporaryDirectory() as d:
            for i, (o, n) in enumerate(zip(old, new)):
                open(os.path.join(d, f"old-{i}.txt"), "w").write(table_text(*o))
                open(os.path.join(d, f"new-{i}.txt"), "w").write(table_text(*n))
            with contextlib.redirect_stdout(io.StringIO()):
                return main(d)

    same = [(6.5, 50), (6.7, 50), (6.6, 50)]
    ok = (verdict(same, [(6.6, 50), (6.5, 50), (6.8, 50)]) == 0
          and verdict(same, [(7.5, 50), (7.4, 50), (7.6, 50)]) == 1
          and verdict(same, [(6.6, 20), (6.6, 20), (6.6, 20)]) == 0)
    print("bench-ab self-test: " + ("a slower row fails, noise and raw rows do not" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
