#!/usr/bin/env python3
"""Read LAMMPS logs for scripts/lammps-check.sh (issue 43, docs/LAMMPS.md).

  lammps-log.py compare --backend B --input NAME RUN...
      RUN is a path prefix of one run (RUN.log, RUN.rss, RUN.gpumem), named
      <variant>.<round>.<n>. Prints a markdown table: loop time, the timing
      breakdown's sections (average seconds), peak RSS and peak GPU memory, per
      variant (median and spread over its runs), and whether thermo matches: on
      the CPU every thermo line of every run must equal stock's exactly; on CUDA
      each switched value must lie within stock's own spread (the stock runs'
      range, widened by that range) at every thermo step. Exit 1 on a mismatch.

  lammps-log.py run RSSFILE COMMAND...
      Run COMMAND; write its peak resident set size (KB) to RSSFILE; exit with its status.

  lammps-log.py syntax-command COMPILE_COMMANDS SOURCE SCRATCH
      The compile command of SOURCE as a -fsyntax-only command on SCRATCH's copy
      of it (SCRATCH holding a switched src/KOKKOS, placed first on the include path).
"""
import json
import os
import re
import shlex
import statistics
import sys

SECTIONS = ["Pair", "Bond", "Kspace", "Neigh", "Comm", "Output", "Modify", "Other"]


def parse(path):
    """Thermo lines, loop time and the breakdown's average seconds of one log."""
    text = open(path, errors="replace").read()
    thermo, loop, sections, atoms = [], None, {}, None
    in_thermo = False
    for line in text.splitlines():
        if re.match(r"^\s*Step\s", line) or line.startswith("------------ Step"):
            in_thermo = True
        m = re.match(r"^Loop time of ([\d.eE+-]+) on \d+ procs for \d+ steps with (\d+) atoms", line)
        if m:
            loop, atoms, in_thermo = float(m.group(1)), int(m.group(2)), False
            continue
        if in_thermo and line.strip() and not line.startswith("WARNING"):
            # thermo_style multi heads each block with the CPU time so far: not a result.
            thermo.append(re.sub(r"CPU =\s*[-+.\deE]+", "CPU = *", line.rstrip()))
        m = re.match(r"^(\w+)\s*\|\s*([\d.eE+-]*)\s*\|\s*([\d.eE+-]+)\s*\|", line)
        if m and m.group(1) in SECTIONS:
            sections[m.group(1)] = float(m.group(3))
    return {"thermo": thermo, "loop": loop, "sections": sections, "atoms": atoms}


def numbers(lines):
    """Every number of the thermo lines, in order."""
    out = []
    for line in lines:
        out += [float(x) for x in re.findall(r"-?\d+\.?\d*(?:[eE][-+]?\d+)?", line)]
    return out


def read_number(path):
    try:
        return float(open(path).read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def fmt(values, scale=1.0, digits=3):
    vals = [v * scale for v in values if v is not None]
    if not vals:
        return "-"
    med = statistics.median(vals)
    if len(vals) == 1:
        return f"{med:.{digits}f}"
    return f"{med:.{digits}f} ({min(vals):.{digits}f}-{max(vals):.{digits}f})"


def compare(args):
    backend, name, runs = None, None, []
    i = 0
    while i < len(args):
        if args[i] == "--backend":
            backend, i = args[i + 1], i + 2
        elif args[i] == "--input":
            name, i = args[i + 1], i + 2
        else:
            runs.append(args[i])
            i += 1
    by_variant = {}
    for r in runs:
        variant = os.path.basename(r).split(".")[0]
        p = parse(r + ".log")
        p["rss"] = read_number(r + ".rss")
        p["gpumem"] = read_number(r + ".gpumem")
        by_variant.setdefault(variant, []).append(p)
    stock = by_variant.get("stock", [])
    ok = True
    verdict = {}
    if not stock or not stock[0]["thermo"]:
        ok = False
        verdict = {v: "no stock thermo" for v in by_variant}
    else:
        ref = numbers(stock[0]["thermo"])
        lo = [min(vals) for vals in zip(*[numbers(s["thermo"]) for s in stock])]
        hi = [max(vals) for vals in zip(*[numbers(s["thermo"]) for s in stock])]
        for v, ps in by_variant.items():
            good = True
            for p in ps:
                got = numbers(p["thermo"])
                if len(got) != len(ref):
                    good = False
                elif backend != "cuda":
                    good = good and p["thermo"] == stock[0]["thermo"]
                else:
                    for g, a, b in zip(got, lo, hi):
                        spread = b - a
                        if not (a - spread - 1e-12 * abs(a) <= g <= b + spread + 1e-12 * abs(b)):
                            good = False
            verdict[v] = ("identical" if backend != "cuda" else "within stock's spread") if good else "DIFFERS"
            ok = ok and good
    atoms = next((p["atoms"] for ps in by_variant.values() for p in ps if p["atoms"]), "?")
    print()
    print(f"### {backend}: {name} ({atoms} atoms)")
    print()
    present = [s for s in SECTIONS if any(s in p["sections"] for ps in by_variant.values() for p in ps)]
    print("| build | runs | loop time (s) | " + " | ".join(present) + " | peak RSS (MB) | peak GPU memory (MiB) | thermo |")
    print("| --- | --- | --- | " + " | ".join("---" for _ in present) + " | --- | --- | --- |")
    for v, ps in by_variant.items():
        cells = [fmt([p["sections"].get(s) for p in ps]) for s in present]
        print(f"| {v} | {len(ps)} | {fmt([p['loop'] for p in ps])} | " + " | ".join(cells)
              + f" | {fmt([p['rss'] for p in ps], 1 / 1024, 1)} | {fmt([p['gpumem'] for p in ps], 1, 0)} | {verdict.get(v, '-')} |")
    return 0 if ok else 1


def syntax_command(db_path, source, scratch):
    db = json.load(open(db_path))
    entry = next((e for e in db if os.path.realpath(e["file"]) == os.path.realpath(source)), None)
    if entry is None:
        return 1
    words = entry.get("arguments") or shlex.split(entry["command"])
    kokkos_dir = os.path.dirname(os.path.realpath(source))
    out, skip = [], False
    for w in words:
        if skip:
            skip = False
            continue
        if w == "-o":
            skip = True
            continue
        if w == "-c":
            continue
        if os.path.realpath(w) == os.path.realpath(source):
            continue
        if w.startswith("-I") and os.path.realpath(w[2:]) == kokkos_dir:
            continue
        out.append(w)
    # The switched copy first, so that it wins over every other include directory.
    out = [out[0], "-I" + scratch] + out[1:] + ["-fsyntax-only", os.path.join(scratch, os.path.basename(source))]
    print(" ".join(shlex.quote(w) for w in out))
    return 0


def run(rss_file, command):
    import resource
    import subprocess
    rc = subprocess.call(command)
    with open(rss_file, "w") as f:
        f.write(f"{resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}\n")
    return rc


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    if sys.argv[1] == "compare":
        return compare(sys.argv[2:])
    if sys.argv[1] == "run" and len(sys.argv) >= 4:
        return run(sys.argv[2], sys.argv[3:])
    if sys.argv[1] == "syntax-command" and len(sys.argv) == 5:
        return syntax_command(*sys.argv[2:])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
