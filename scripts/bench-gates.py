#!/usr/bin/env python3
"""The benchmark gates of issue 32: the rows that carry a target, checked
after scripts/gpu-bench.sh ran them. Prints a markdown table (gate, measured,
target, noise margin, verdict) and exits 1 when a gate is missed beyond its
margin. docs/BENCHMARKS.md "Gates" says why each margin is what it is.

    python3 scripts/bench-gates.py OUT_DIR [--ran GROUPS]
    python3 scripts/bench-gates.py --self-test

Reads OUT_DIR/kokkos-rows-dualview.txt and kokkos-rows-kokkos.txt
(benches/kokkos_rows.cu), OUT_DIR/lammps-bench.txt (benches/lammps_bench.cu) and
OUT_DIR/lammps-real.md (LAMMPS itself, scripts/lammps-check.sh: its loop time with
the DualView type switched, at most stock's).
--ran names the groups the run ran (comma-separated: kokkos, lammps, mirror,
lammps-real; scripts/gpu-bench.sh passes them): a gate of such a group whose
row is absent is MISSING, which fails the run like a miss (a crashed benchmark,
no Kokkos built). Without --ran every group counts as run. A gate of a group
not run is "not run". --self-test checks that an empty output fails every group."""
import importlib.util
import os
import re
import sys

_spec = importlib.util.spec_from_file_location("bench_ratio", os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-ratio.py"))
RATIO = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(RATIO)

# Rows of benches/kokkos_rows.cu with an absolute target (seconds), and their noise margin.
ABSOLUTE = {
    "flags: modify_host; clear_sync_state": (15e-9, 0.10),
    "mirror: first sync_host of a never-written 1 GiB": (40e-3, 0.10),
    "enqueue: sync_host(exec) of 4 KiB behind a 20 ms kernel, the call returns": (30e-6, 0.10),
}
# Every row both builds ran: Kokkos' time over dualview's at least 1.0, less this margin.
RATIO_MARGIN = 0.10
# benches/lammps_bench.cu: each grow of the default mirror at 32M atoms.
GROW_TARGET_MS, GROW_MARGIN = 20.0, 0.10
GROW_AT_ONCE_TARGET_MS = 30.0
# LAMMPS itself (issue 43): in.lj's loop time, switched over stock, at most 1.0 less this margin.
LAMMPS_MARGIN = 0.03


def lammps_real(path):
    """Gates from scripts/lammps-check.sh's summary: per input, the switched build's median loop
    time over stock's (the `full` row, else `switched`)."""
    try:
        text = open(path).read()
    except FileNotFoundError:
        return []
    out = []
    for block in re.split(r"^### ", text, flags=re.M)[1:]:
        title = block.splitlines()[0]
        loop = {}
        for line in block.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) > 3 and cells[0] in ("stock", "switched", "full") and numbers(cells[2]):
                loop[cells[0]] = numbers(cells[2])[0]
        new = loop.get("full", loop.get("switched"))
        if "stock" in loop and new:
            r = new / loop["stock"]
            out.append((f"LAMMPS itself, {title}: loop time switched / stock", f"{new:.3f} / {loop['stock']:.3f} s = {r:.3f}", "<= 1.00",
                        f"{LAMMPS_MARGIN:.0%}", "met" if r <= 1.0 else ("within noise" if r <= 1.0 + LAMMPS_MARGIN else "MISSED")))
    return out


def rows(path):
    """The rows of one kokkos_rows output: name -> seconds (scripts/bench-ratio.py reads them)."""
    return {k: v[0] for k, v in RATIO.rows(path).items()}


show = RATIO.show


def numbers(cell):
    return [float(x) for x in re.findall(r"[0-9]+(?:\.[0-9]+)?", cell)]


GROUPS = ("kokkos", "lammps", "mirror", "lammps-real")


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    ran = set(GROUPS)
    if len(argv) == 3 and argv[1] == "--ran":
        ran = {g for g in argv[2].split(",") if g}
        unknown = ran - set(GROUPS)
        if unknown:
            sys.exit(f"bench-gates: unknown group(s) {sorted(unknown)} (known: {', '.join(GROUPS)})")
    elif len(argv) != 1:
        sys.exit(__doc__)
    out = argv[0]
    dv = rows(os.path.join(out, "kokkos-rows-dualview.txt"))
    kk = rows(os.path.join(out, "kokkos-rows-kokkos.txt"))
    gates = []  # (gate, measured, target, margin, verdict)

    def verdict(ok_strict, ok_margin):
        return "met" if ok_strict else ("within noise" if ok_margin else "MISSED")

    for row, (target, margin) in ABSOLUTE.items():
        if row not in dv:
            gates.append((row, "-", f"<= {show(target)}", f"{margin:.0%}", "not run"))
            continue
        t = dv[row]
        gates.append((row, show(t), f"<= {show(target)}", f"{margin:.0%}", verdict(t <= target, t <= target * (1 + margin))))
    for row in dv:
        if row in kk and dv[row] > 0:
            r = kk[row] / dv[row]
            gates.append((f"ratio >= 1: {row}", f"{r:.2f}", ">= 1.00", f"{RATIO_MARGIN:.0%}", verdict(r >= 1.0, r >= 1.0 - RATIO_MARGIN)))

    try:
        lines = open(os.path.join(out, "lammps-bench.txt")).read().splitlines()
    except FileNotFoundError:
        lines = []
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        # The LAMMPS rows: | atoms | mirror | grows | host-newer grow | step | ghost sync | moved | ghost rows | only | locked | values |
        if len(cells) == 11 and cells[0].isdigit() and cells[1] in ("default", "pinned", "pageable opt-out"):
            gates.append((f"ghost sync moves the ghost rows only ({cells[0]} atoms, {cells[1]})", cells[8], "yes", "none", "met" if cells[8] == "yes" else "MISSED"))
            if cells[1] == "default" and cells[0] == "32000000":
                grows = numbers(cells[2]) + numbers(cells[3])
                worst = max(grows) if grows else float("inf")
                gates.append(("LAMMPS 32M, each grow x1.5 (3 device-newer, 1 host-newer), default mirror", f"{worst:.1f} ms (worst)",
                              f"<= {GROW_TARGET_MS:.0f} ms", f"{GROW_MARGIN:.0%}",
                              verdict(worst <= GROW_TARGET_MS, worst <= GROW_TARGET_MS * (1 + GROW_MARGIN))))
        # The mirror rows: | mirror | operation | value | reference | verdict |
        if len(cells) == 5 and cells[0] == "default" and cells[1] == "create 1 GiB, resize to 2 GiB at once":
            v = numbers(cells[2])
            t = v[0] if v else float("inf")
            gates.append(("create 1 GiB, resize to 2 GiB at once (default mirror)", cells[2], f"<= {GROW_AT_ONCE_TARGET_MS:.0f} ms", f"{GROW_MARGIN:.0%}",
                          verdict(t <= GROW_AT_ONCE_TARGET_MS, t <= GROW_AT_ONCE_TARGET_MS * (1 + GROW_MARGIN))))

    gates += lammps_real(os.path.join(out, "lammps-real.md"))
    # A group that ran must have given its rows.
    expected = {
        "kokkos": [r for r in ABSOLUTE] + (["ratio >= 1: (every row both builds ran)"] if not kk or not dv else []),
        "lammps": ["ghost sync moves the ghost rows only", "LAMMPS 32M, each grow"],
        "mirror": ["create 1 GiB, resize to 2 GiB at once"],
        "lammps-real": ["LAMMPS itself"],
    }
    for group, names in expected.items():
        for name in names:
            have = [g for g in gates if g[0].startswith(name) and g[4] != "not run"]
            if have:
                continue
            verdict_ = "MISSING" if group in ran else "not run"
            gates = [g for g in gates if not (g[0] == name and g[4] == "not run")]
            gates.append((name, "-", "a row", "-", verdict_))
    print("| gate | measured | target | noise margin | verdict |")
    print("| --- | --- | --- | --- | --- |")
    for g in gates:
        print("| " + " | ".join(g) + " |")
    missed = [g for g in gates if g[4] in ("MISSED", "MISSING")]
    for g in missed:
        print(f"GATE {g[4]}: {g[0]}")
    return 1 if missed else 0


def self_test():
    """An empty output fails every group that ran and passes when none ran; lammps_bench's
    LAMMPS rows do not stand in for LAMMPS itself."""
    import contextlib
    import io
    import tempfile

    def run(out, groups):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = main([out, "--ran", groups])
        return rc, buf.getvalue()

    with tempfile.TemporaryDirectory() as tmp:
        all_ran, text = run(tmp, ",".join(GROUPS))
        none_ran, _ = run(tmp, "")
        row = "| 32000000 | default | 1.0 / 2.0 / 3.0 ms | 4.0 ms | 5 | 6 | 7 | 8 | yes | no | PASS |\n"
        open(os.path.join(tmp, "lammps-bench.txt"), "w").write(row)
        real, real_text = run(tmp, "lammps,lammps-real")
    ok = (all_ran == 1 and text.count("GATE MISSING") >= 8 and none_ran == 0 and real == 1
          and "GATE MISSING: LAMMPS itself" in real_text and "GATE MISSING: ghost sync" not in real_text)
    print("bench-gates self-test: " + ("a missing row fails, a group not run passes" if ok else "FAILED\n" + text + real_text))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
