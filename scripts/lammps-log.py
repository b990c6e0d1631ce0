#!/usr/bin/env python3
"""Read LAMMPS logs for scripts/lammps-check.sh (issue 43, docs/LAMMPS.md).

  lammps-log.py compare --backend B --input NAME RUN...
      RUN is a path prefix of one run (RUN.log, RUN.rss, RUN.gpumem), named
      <variant>.<round>.<n>. Prints a markdown table: loop time, the timing
      breakdown's sections (average seconds), peak RSS and peak GPU memory, per
      variant (median and spread over its runs), and whether thermo matches: with
      Serial every thermo line of every run must equal stock's exactly; with OpenMP
      and CUDA (atomics: two stock runs differ in their last digits) the thermo
      must be identical or each quantity within stock's own spread (the largest
      difference between stock runs in units of the last printed digit, doubled).
      Exit 1 on a mismatch.

  lammps-log.py run RSSFILE COMMAND...
      Run COMMAND; write its peak resident set size (KB) to RSSFILE; exit with its status.

  lammps-log.py syntax-command COMPILE_COMMANDS SOURCE SCRATCH [compile]
      The compile command of SOURCE as a -fsyntax-only command on SCRATCH's copy
      of it (SCRATCH holding a switched src/KOKKOS, placed first on the include path);
      with `compile`, a compile to /dev/null instead (nvcc has no -fsyntax-only).
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


NUMBER = r"-?\d+\.?\d*(?:[eE][-+]?\d+)?"


def ulp(token):
    """The resolution LAMMPS printed a number with: one unit of its last digit."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 10.0 ** ((int(exponent) if exponent else 0) - decimals)


def keyed(lines):
    """The thermo quantities: (name, value, resolution) for each number of a column (one
    line per step: the names are the header's) or of `name = value` (thermo_style multi).
    Other lines in the thermo output (SHAKE's statistics) are diagnostics, not thermo."""
    out, names = [], []
    for line in lines:
        if re.match(r"^\s*Step\s", line):
            names = line.split()
            continue
        pairs = re.findall(r"(\w+)\s*=\s*(" + NUMBER + ")", line)
        if pairs:
            out += [(k, float(v), ulp(v)) for k, v in pairs]
            continue
        values = re.findall(NUMBER, line)
        if names and len(values) == len(names):
            out += [(n, float(v), ulp(v)) for n, v in zip(names, values)]
    return out


def within_spread(stocks, got):
    """Whether every thermo quantity of `got` lies within stock's own spread: the largest
    difference between the stock runs, counted in units of the last printed digit (at
    least 1), doubled, around the first stock run's value. Stock runs that never differ
    leave no spread: then only identical output passes."""
    base = keyed(stocks[0])
    others = [keyed(s) for s in stocks[1:]]
    mine = keyed(got)
    if not base or len(mine) != len(base) or any(len(o) != len(base) for o in others):
        return False
    spread = max((abs(o[i][1] - v) / u for o in others for i, (_, v, u) in enumerate(base)), default=0.0)
    if spread == 0:
        return False
    tolerance = 2 * max(1.0, spread)
    return all(abs(g - v) / u <= tolerance * (1 + 1e-9) for (_, v, u), (_, g, _) in zip(base, mine))


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
        # Serial is deterministic: every run must print stock's thermo exactly. OpenMP and
        # CUDA sum with atomics in a varying order, so two stock runs differ in their last
        # digits: there a switched run must be identical or within stock's own spread.
        exact = backend == "serial"
        stocks = [p["thermo"] for p in stock]
        for v, ps in by_variant.items():
            same = all(p["thermo"] == stocks[0] for p in ps)
            spread = not exact and len(stocks) > 1 and all(within_spread(stocks, p["thermo"]) for p in ps)
            verdict[v] = "identical" if same else ("within stock's spread" if spread else "DIFFERS")
            ok = ok and (same or spread)
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


def syntax_command(db_path, source, scratch, mode=""):
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
    copy = os.path.join(scratch, os.path.basename(source))
    tail = ["-c", copy, "-o", os.devnull] if mode == "compile" else ["-fsyntax-only", copy]
    out = [out[0], "-I" + scratch] + out[1:] + tail
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
    if sys.argv[1] == "syntax-command" and len(sys.argv) in (5, 6):
        return syntax_command(*sys.argv[2:])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
