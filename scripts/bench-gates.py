#!/usr/bin/env python3
"""The benchmark gates of issues 32 and 45: the rows that carry a target, and
every row dualview and Kokkos both ran, checked after scripts/gpu-bench.sh ran
them. No margin: a row's value is its median over the run's interleaved rounds
(dualview and Kokkos alternating), and a gate is met or MISSED. Prints a
markdown table (gate, measured, target, verdict) and exits 1 when a gate is
missed. docs/BENCHMARKS.md "Gates" lists them.

    python3 scripts/bench-gates.py OUT_DIR [--ran GROUPS]
    python3 scripts/bench-gates.py --self-test

Reads OUT_DIR/kokkos-rows-dualview.*.txt and kokkos-rows-kokkos.*.txt (one per
round of benches/kokkos_rows.cu), OUT_DIR/lammps-bench.txt (benches/lammps_bench.cu,
every round) and OUT_DIR/lammps-real.md (LAMMPS itself, scripts/lammps-check.sh: its
loop time with the DualView type switched, at most stock's).
--ran names the groups the run ran (comma-separated: kokkos, lammps, mirror,
lammps-real; scripts/gpu-bench.sh passes them): a gate of such a group whose
row is absent is MISSING, which fails the run like a miss (a crashed benchmark,
no Kokkos built). Without --ran every group counts as run. A gate of a group
not run is "not run". --self-test checks that an empty output fails every
group, and that a row behind Kokkos by any amount fails."""
import glob
import importlib.util
import os
import re
import sys

_spec = importlib.util.spec_from_file_location("bench_ratio", os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-ratio.py"))
RATIO = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(RATIO)
show, median = RATIO.show, RATIO.median

COLD = "mirror: first sync_host of a never-written 1 GiB, cold (empty pool)"
WARM = "mirror: first sync_host of a never-written 1 GiB, warm (a 1 GiB DualView went 1 s before)"
# Rows of benches/kokkos_rows.cu with an absolute target (seconds).
ABSOLUTE = {
    "flags: modify_host; clear_sync_state": 15e-9,
    COLD: 40e-3,
    WARM: 25e-3,
    "enqueue: sync_host(exec) of 4 KiB behind a 20 ms kernel, the call returns": 30e-6,
    "create: a 64-byte DualView (and destroy it)": 10e-6,
    "resize: create 1 GiB, resize to 2 GiB, back to back (the last one's release running)": 30e-3,
}
# Rows whose target is made from a "floor:" row of the same run: (row, floor row, limit from the floor, target's words).
FLOORED = [
    ("tiny: write 1 double; modify_host; sync_device; fence", "floor: tiny: cudaMemcpy of 1 double from the stack; cudaDeviceSynchronize",
     lambda f: f + 0.5e-6, "<= floor + 0.5 us"),
    ("sync: later modify_host; sync_device, 1 MiB", "floor: cudaMemcpy of 1 MiB, pinned host to device", lambda f: f / 0.9,
     "rate >= 0.9x the floor's"),
    ("sync: later modify_device; sync_host, 1 MiB", "floor: cudaMemcpy of 1 MiB, device to pinned host", lambda f: f / 0.9,
     "rate >= 0.9x the floor's"),
]
# benches/lammps_bench.cu: each device-newer grow of the default mirror at 32M atoms; the
# host-newer grow against the host's floor (its kept bytes copied into faulted-in pages).
GROW_TARGET_MS = 20.0
HOST_GROW_OVER_FLOOR = 1.25
GROW_AT_ONCE_TARGET_MS = 30.0
# LAMMPS itself (issue 43): in.lj's loop time, switched over stock, at most 1.0 (3 % noise: its own gate).
LAMMPS_MARGIN = 0.03
# lammps_bench's rows compared with Kokkos' row of the same run (the pinned mirror is a
# dualview extension Kokkos' DualView has not: shown, not compared; DECISIONS G16).
COMPARED = ("default", "pageable opt-out", "dualview in Kokkos")
LAMMPS_COLUMNS = ("grow 1 (device newer)", "grow 2 (device newer)", "grow 3 (device newer)", "grow (host newer)", "border step", "ghost sync_host")


def verdict(ok):
    return "met" if ok else "MISSED"


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
            ok = "met" if r <= 1.0 else ("within noise" if r <= 1.0 + LAMMPS_MARGIN else "MISSED")
            out.append((f"LAMMPS itself, {title}: loop time switched / stock", f"{new:.3f} / {loop['stock']:.3f} s = {r:.3f}",
                        f"<= 1.00 ({LAMMPS_MARGIN:.0%} noise)", ok))
    return out


def numbers(cell):
    return [float(x) for x in re.findall(r"[0-9]+(?:\.[0-9]+)?", cell)]


def rounds(out, side):
    """kokkos_rows' rows of one side over every round: name -> (median, the first check that is not "ok")."""
    return RATIO.rows(sorted(glob.glob(os.path.join(out, f"kokkos-rows-{side}*.txt"))))


def lammps_tables(lines):
    """lammps_bench's rows over every round: {(atoms, mirror): [[6 numbers] per round]}, the mirror
    rows {(mirror, operation): [ms per round]}, the floors {(atoms, mirror): [ms per round]} (the
    FRESH copies under ("fresh", atoms, mirror)) and the ghost-only verdicts [(atoms, mirror, verdict)]."""
    rows, mirror_rows, floors, ghost = {}, {}, {}, []
    for line in lines:
        m = re.match(r"FLOOR (\d+) atoms, (.*?): a host copy .*: ([0-9.]+) ms", line)
        if m:
            floors.setdefault((m.group(1), m.group(2)), []).append(float(m.group(3)))
            continue
        m = re.match(r"FRESH (\d+) atoms, (.*?): .*: ([0-9.]+) ms", line)
        if m:
            floors.setdefault(("fresh", m.group(1), m.group(2)), []).append(float(m.group(3)))
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        # | atoms | mirror | grows | host-newer grow | step | ghost sync | moved | ghost rows | only | locked | values |
        if len(cells) == 11 and cells[0].isdigit():
            if cells[1] in ("default", "pinned", "pageable opt-out"):
                ghost.append((cells[0], cells[1], cells[8]))
            vals = numbers(cells[2])[:3] + numbers(cells[3])[:1] + numbers(cells[4])[:1] + numbers(cells[5])[:1]
            if len(vals) == 6:
                rows.setdefault((cells[0], cells[1]), []).append(vals)
        # | mirror | operation | value | reference | verdict |
        elif len(cells) == 5 and cells[0] not in ("mirror", "---") and numbers(cells[2]):
            mirror_rows.setdefault((cells[0], cells[1]), []).append(numbers(cells[2])[0])
    return rows, mirror_rows, floors, ghost


def kind(mirror):
    """What a lammps_bench row is: "kokkos", a compared dualview mirror, or None."""
    if mirror.startswith("Kokkos ") and mirror.endswith("(this run)"):
        return "kokkos"  # not the recorded figures of --header's rows
    return mirror if any(mirror.startswith(c) for c in COMPARED) else None


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
    dv, kk = rounds(out, "dualview"), rounds(out, "kokkos")
    gates = []  # (gate, measured, target, verdict)

    def checked(row, verdict_):
        """A row whose values were wrong on either side misses its gate, whatever its time."""
        bad = [side[row][1] for side in (dv, kk) if row in side and side[row][1] != "ok"]
        return f"MISSED (values: {'; '.join(bad)})" if bad else verdict_

    for row, target in ABSOLUTE.items():
        if row in dv:
            gates.append((row, show(dv[row][0]), f"<= {show(target)}", checked(row, verdict(dv[row][0] <= target))))
    for row, floor, limit, words in FLOORED:
        if row in dv and floor in dv:
            t, f = dv[row][0], dv[floor][0]
            gates.append((row, f"{show(t)} (floor {show(f)})", f"{words}: <= {show(limit(f))}", checked(row, verdict(t <= limit(f)))))
    if dv and kk:
        for row in sorted(set(dv) | set(kk)):
            if row.startswith("floor:"):
                continue
            if row not in dv or row not in kk:
                gates.append((f"ratio >= 1: {row}", "-", f"a row from both builds (none from {'dualview' if row not in dv else 'Kokkos'})", "MISSING"))
                continue
            r = kk[row][0] / dv[row][0] if dv[row][0] > 0 else float("inf")
            gates.append((f"ratio >= 1: {row}", f"{r:.2f}", ">= 1.00", checked(row, verdict(r >= 1.0))))

    try:
        lines = open(os.path.join(out, "lammps-bench.txt")).read().splitlines()
    except FileNotFoundError:
        lines = []
    rows, mirror_rows, floors, ghost = lammps_tables(lines)
    for atoms, mirror, only in ghost:
        gates.append((f"ghost sync moves the ghost rows only ({atoms} atoms, {mirror})", only, "yes", verdict(only == "yes")))
    cell = {key: [median([r[c] for r in runs]) for c in range(6)] for key, runs in rows.items()}
    if ("32000000", "default") in cell:
        worst = max(cell[("32000000", "default")][:3])
        gates.append(("LAMMPS 32M, each grow x1.5 with the device newer (3 grows), default mirror", f"{worst:.2f} ms (the slowest)",
                      f"<= {GROW_TARGET_MS:.0f} ms", verdict(worst <= GROW_TARGET_MS)))
        if ("32000000", "default") in floors:
            g, f = cell[("32000000", "default")][3], median(floors[("32000000", "default")])
            into_fresh = floors.get(("fresh", "32000000", "default"))
            beside = f"; into fresh pages {median(into_fresh):.2f} ms" if into_fresh else ""
            gates.append(("LAMMPS 32M, the grow x1.5 with the host newer, default mirror", f"{g:.2f} ms (floor {f:.2f} ms{beside})",
                          f"<= {HOST_GROW_OVER_FLOOR}x the floor: {HOST_GROW_OVER_FLOOR * f:.2f} ms", verdict(g <= HOST_GROW_OVER_FLOOR * f)))
    for (atoms, mirror), v in cell.items():
        if kind(mirror) in (None, "kokkos"):
            continue
        ref = next((c for (a, m), c in cell.items() if a == atoms and kind(m) == "kokkos"), None)
        if ref is None:
            gates.append((f"ratio >= 1: LAMMPS {atoms} atoms, {mirror}", "-", "Kokkos' row of this run at this size", "MISSING"))
        else:
            for c, name in enumerate(LAMMPS_COLUMNS):
                r = ref[c] / v[c] if v[c] > 0 else float("inf")
                gates.append((f"ratio >= 1: LAMMPS {atoms} atoms, {mirror}, {name}", f"{r:.2f}", ">= 1.00", verdict(r >= 1.0)))
    mcell = {key: median(v) for key, v in mirror_rows.items()}
    if ("default", "create 1 GiB, resize to 2 GiB at once") in mcell:
        t = mcell[("default", "create 1 GiB, resize to 2 GiB at once")]
        gates.append(("create 1 GiB, resize to 2 GiB at once (default mirror)", f"{t:.2f} ms", f"<= {GROW_AT_ONCE_TARGET_MS:.0f} ms",
                      verdict(t <= GROW_AT_ONCE_TARGET_MS)))
    for (mirror, op), t in mcell.items():
        if kind(mirror) in (None, "kokkos"):
            continue
        ref = next((v for (m, o), v in mcell.items() if o == op and kind(m) == "kokkos"), None)
        if ref is None:
            gates.append((f"ratio >= 1: mirror rows, {mirror}, {op}", "-", "Kokkos' row of this run", "MISSING"))
        else:
            gates.append((f"ratio >= 1: mirror rows, {mirror}, {op}", f"{ref / t:.2f}", ">= 1.00", verdict(ref >= t)))

    gates += lammps_real(os.path.join(out, "lammps-real.md"))
    # A group that ran must have given its rows.
    expected = {
        "kokkos": list(ABSOLUTE) + [r for r, _, _, _ in FLOORED] + ["ratio >= 1: flags"],
        "lammps": ["ghost sync moves the ghost rows only", "LAMMPS 32M, each grow", "LAMMPS 32M, the grow x1.5 with the host newer",
                   "ratio >= 1: LAMMPS 32000000 atoms, default"],
        "mirror": ["create 1 GiB, resize to 2 GiB at once", "ratio >= 1: mirror rows, default"],
        "lammps-real": ["LAMMPS itself"],
    }
    for group, names in expected.items():
        for name in names:
            if not any(g[0].startswith(name) for g in gates):
                gates.append((name, "-", "a row", "MISSING" if group in ran else "not run"))
    print("| gate | measured | target | verdict |")
    print("| --- | --- | --- | --- |")
    for g in gates:
        print("| " + " | ".join(g) + " |")
    missed = [g for g in gates if g[3].startswith(("MISSED", "MISSING"))]
    for g in missed:
        print(f"GATE {g[3].split()[0]}: {g[0]}")
    return 1 if missed else 0


def self_test():
    """An empty output fails every group that ran and passes when none ran; lammps_bench's
    LAMMPS rows do not stand in for LAMMPS itself; a whole run that meets every gate passes
    (its rounds unequal: one outlier each side, so that only the median meets them); and the
    same run fails with any one of: a row 1 % behind Kokkos, the 64-byte create 1 % over its
    target, the tiny round trip 1 % over its floor's target, a LAMMPS cell 1 % behind Kokkos',
    a row whose values were wrong."""
    import contextlib
    import io
    import tempfile

    def run(out, groups):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = main([out, "--ran", groups])
        return rc, buf.getvalue()

    def write(path, text):
        with open(path, "w") as f:
            f.write(text)

    tiny, tiny_floor = FLOORED[0][0], FLOORED[0][1]

    def full_run(tmp, change=None):
        """Every group's output, each gate met by a wide margin, unless `change` (a key) says otherwise."""
        dv = {**{r: t / 2 for r, t in ABSOLUTE.items()}, "sync: later modify_host; sync_device, 1 GiB": 0.02}
        for row, floor, _, _ in FLOORED:
            dv[floor], dv[row] = 1e-4, 1e-4
        kk = {k: (v if k.startswith("floor:") else 2 * v) for k, v in dv.items()}
        check = "ok"
        if change == "behind":
            kk["sync: later modify_host; sync_device, 1 GiB"] = 0.02 / 1.01
        elif change == "create":
            dv["create: a 64-byte DualView (and destroy it)"] = 10e-6 * 1.01
        elif change == "tiny":
            dv[tiny_floor], dv[tiny] = 5e-6, 5e-6 + 0.5e-6 * 1.01 + 0.05e-6
        elif change == "values":
            check = "wrong value on the device"
        for r in (1, 2, 3):
            # Round 3 is an outlier each side: dualview 100x slower, Kokkos 1,000x faster.
            dvr = {k: v * (100 if r == 3 and not k.startswith("floor:") else 1) for k, v in dv.items()}
            kkr = {k: v / (1000 if r == 3 and not k.startswith("floor:") else 1) for k, v in kk.items()}
            write(os.path.join(tmp, f"kokkos-rows-dualview.{r}.txt"),
                  "".join(f"ROW\t{k}\t{v!r}\t{check if k == tiny else 'ok'}\n" for k, v in dvr.items()))
            write(os.path.join(tmp, f"kokkos-rows-kokkos.{r}.txt"), "".join(f"ROW\t{k}\t{v!r}\tok\n" for k, v in kkr.items()))
        step = "54.54" if change == "lammps" else "28.0"
        lam = ("| 32000000 | Kokkos 4.6 (same H200) | 1 / 1 / 1 | 1 | 1 | 1 | | | yes (by design) | | |\n"
               "| 32000000 | Kokkos 4.6.1 (this run) | 700 / 900 / 1400 | 3500 | 54.0 | 4.0 | | | yes (by design) | | |\n"
               f"| 32000000 | default | 1.0 / 12.0 / 2.0 | 50.0 | {step} (memcpy 21) | 2.1 | 109.71 MB | 109.71 MB | yes | yes | PASS |\n"
               "FLOOR 32000000 atoms, default: a host copy of 1.73 GB into pre-faulted pages (16 threads): 46.00 ms\n"
               "FRESH 32000000 atoms, default: the same copy into never-touched pages (huge pages advised): 71.25 ms\n"
               "| Kokkos 4.6.1 (this run) | create 1 GiB, resize to 2 GiB at once | 998 ms |  | PASS |\n"
               "| default | create 1 GiB, resize to 2 GiB at once | 2.53 ms |  | PASS |\n")
        write(os.path.join(tmp, "lammps-bench.txt"), lam)
        return run(tmp, "kokkos,lammps,mirror")

    with tempfile.TemporaryDirectory() as tmp:
        all_ran, text = run(tmp, ",".join(GROUPS))
        none_ran, _ = run(tmp, "")
        row = "| 32000000 | default | 1.0 / 2.0 / 3.0 ms | 4.0 ms | 5 | 6 | 7 | 8 | yes | no | PASS |\n"
        write(os.path.join(tmp, "lammps-bench.txt"), row)
        real, real_text = run(tmp, "lammps,lammps-real")
    outcomes = {}
    for change in (None, "behind", "create", "tiny", "lammps", "values"):
        with tempfile.TemporaryDirectory() as tmp:
            outcomes[change] = full_run(tmp, change)
    missed = {c: [line for line in t.splitlines() if line.startswith("GATE ")] for c, (_, t) in outcomes.items()}
    want = {
        "behind": "GATE MISSED: ratio >= 1: sync: later modify_host; sync_device, 1 GiB",
        "create": "GATE MISSED: create: a 64-byte DualView (and destroy it)",
        "tiny": f"GATE MISSED: {tiny}",
        "lammps": "GATE MISSED: ratio >= 1: LAMMPS 32000000 atoms, default, border step",
        "values": f"GATE MISSED: {tiny}",
    }
    ok = (all_ran == 1 and text.count("GATE MISSING") >= 8 and none_ran == 0 and real == 1
          and "GATE MISSING: LAMMPS itself" in real_text and "GATE MISSING: ghost sync" not in real_text
          and outcomes[None][0] == 0 and not missed[None] and "(floor 46.00 ms; into fresh pages 71.25 ms)" in outcomes[None][1]
          and all(outcomes[c][0] == 1 and want[c] in missed[c] and len(missed[c]) <= 2 for c in want))
    detail = "".join(f"\n--- {c}:\n{t}" for c, (_, t) in outcomes.items())
    print("bench-gates self-test: " + ("a missing row fails, a group not run passes, a whole run met passes (medians, outliers"
                                       " in one round), and each 1 % miss or wrong value fails" if ok else "FAILED\n" + text + real_text + detail))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
