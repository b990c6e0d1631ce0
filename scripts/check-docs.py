#!/usr/bin/env python3
"""Compile and run every complete program in README.md and docs/*.md, after
checking the facts of scripts/doc_facts.py (paths that exist, every exported
function in docs/C_API.md, speed numbers sourced from docs/BENCHMARKS.md, the
layers of docs/ARCHITECTURE.md against the imports (scripts/layers.py), stated
thresholds against the code's constants, tests named with their files).

A fenced code block is a complete program when its first line is exactly
`// complete program` (C, C++) or `! complete program` (Fortran). Each one is
compiled with warnings as errors and linked against the built library:

  C        gcc -std=c11 -Wall -Wextra -Wpedantic -Werror
  C++      g++ and clang++ -std=c++17 -Wall -Wextra -Werror
           (include/ and include/dualview/kokkos/ on the include path), and
           where nvcc is present (NVCC or PATH) compiled as CUDA with it too
  Fortran  gfortran -Wall -Werror, against the built module

then run under valgrind (--error-exitcode=99 --leak-check=full
--errors-for-leak-kinds=definite,indirect). A program whose second line is
`! mpi ranks: 1 2 4` (or `// mpi ranks: ...`) is an MPI program: compiled
with the MPI wrapper (mpif90, mpicxx) and run with `mpirun -np N` for each N
(not under valgrind: Open MPI's own allocations would drown it). Any failure
fails the script.
Registered as the ctest `docs.complete_programs`; by hand, after
`cmake --workflow --preset default`:

  python3 scripts/check-docs.py --lib-dir build/default/cargo/release \\
      --fortran-mod-dir build/default/fortran-mod --fortran-lib-dir build/default

Rust blocks are doctests (cargo test --doc) and are not handled here.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

LANGS = {
    "c": "c",
    "h": "c",
    "cpp": "cpp",
    "c++": "cpp",
    "cxx": "cpp",
    "cc": "cpp",
    "fortran": "fortran",
    "f90": "fortran",
    "f": "fortran",
}
VALGRIND = [
    "valgrind",
    "-q",
    "--error-exitcode=99",
    "--leak-check=full",
    "--errors-for-leak-kinds=definite,indirect",
    "--show-leak-kinds=definite,indirect",
]
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([^\s`]*)")


def blocks(path):
    """Yield (first line number, info-string language, lines) of each fenced block."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m.group(1), m.group(2), m.group(3).lower()
        start = i + 1
        j = start
        while j < len(lines) and not lines[j].strip().startswith(fence[0] * len(fence)):
            j += 1
        body = [l[len(indent):] if l.startswith(indent) else l for l in lines[start:j]]
        yield start + 1, info, body
        i = j + 1


def marked(lang, body):
    if not body:
        return False
    first = body[0].rstrip()
    return (lang in ("c", "cpp") and first == "// complete program") or (
        lang == "fortran" and first.lower() == "! complete program"
    )


def looks_like_program(lang, body):
    text = "\n".join(body)
    if lang in ("c", "cpp"):
        return re.search(r"\bint\s+main\s*\(", text) is not None
    if lang == "fortran":
        return re.search(r"^\s*program\s+\w+", text, re.I | re.M) is not None
    return False


def run(cmd, log):
    shown = " ".join(cmd)
    print(f"    $ {shown}", flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = p.stdout.rstrip()
    if out:
        print("\n".join("      " + l for l in out.split("\n")), flush=True)
    if p.returncode != 0:
        log.append(f"{shown} (exit {p.returncode})")
    return p.returncode == 0


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib-dir", default=os.path.join(root, "build/default/cargo/release"),
                    help="folder of libdualview.so (default: %(default)s)")
    ap.add_argument("--fortran-mod-dir", default=os.path.join(root, "build/default/fortran-mod"),
                    help="folder of dualview.mod and dualview_abi.mod (default: %(default)s)")
    ap.add_argument("--fortran-lib-dir", default=os.path.join(root, "build/default"),
                    help="folder of libdualview_fortran.a (default: %(default)s)")
    ap.add_argument("--work", default=os.path.join(root, "build/check-docs"), help="scratch folder")
    ap.add_argument("--no-valgrind", action="store_true", help="run the programs directly")
    ap.add_argument("files", nargs="*", help="markdown files (default: README.md docs/*.md)")
    args = ap.parse_args()

    files = args.files or [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    inc = os.path.join(root, "include")
    lib = os.path.abspath(args.lib_dir)
    link = [f"-L{lib}", "-ldualview", f"-Wl,-rpath,{lib}"]
    compilers = {
        "c": [["gcc", "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", f"-I{inc}"]],
        "cpp": [[cxx, "-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{inc}", f"-I{inc}/dualview/kokkos"]
                for cxx in ("g++", "clang++")],
        "fortran": [["gfortran", "-Wall", "-Werror", f"-I{os.path.abspath(args.fortran_mod_dir)}"]],
    }
    suffix = {"c": ".c", "cpp": ".cpp", "fortran": ".f90"}
    # nvcc where present (NVCC, as scripts/test.sh exports it, or on PATH): C++ programs compile as CUDA too.
    nvcc = os.environ.get("NVCC") or shutil.which("nvcc")
    print(f"check-docs: C++ programs also compiled with {nvcc}" if nvcc else "check-docs: no nvcc: C++ programs not compiled as CUDA")

    os.makedirs(args.work, exist_ok=True)

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import doc_facts

    facts = doc_facts.check(root)
    for f in facts:
        print(f"FAILED fact: {f}")
    print(f"check-docs: doc facts ({len(facts)} wrong)")

    failures, checked, unmarked = [f"fact: {f}" for f in facts], 0, []
    for path in files:
        rel = os.path.relpath(path, root)
        for line, info, body in blocks(path):
            lang = LANGS.get(info)
            if lang is None:
                continue
            if not marked(lang, body):
                if looks_like_program(lang, body):
                    unmarked.append(f"{rel}:{line} [{info}]")
                continue
            checked += 1
            name = re.sub(r"[^A-Za-z0-9]+", "_", f"{rel}_{line}").strip("_")
            src = os.path.join(args.work, name + suffix[lang])
            with open(src, "w", encoding="utf-8") as f:
                f.write("\n".join(body) + "\n")
            print(f"== {rel}:{line} [{info}] complete program", flush=True)
            log = []
            mpi = re.match(r"^\s*(?:!|//)\s*mpi ranks:\s*([\d ]+)$", body[1]) if len(body) > 1 else None
            for cc in compilers[lang]:
                if mpi:
                    if cc[0] not in ("gfortran", "g++"):
                        continue
                    cc = [{"gfortran": "mpif90", "g++": "mpicxx"}[cc[0]]] + cc[1:]
                if shutil.which(cc[0]) is None:
                    log.append(f"{cc[0]} not found")
                    continue
                exe = os.path.join(args.work, f"{name}_{os.path.basename(cc[0])}")
                if lang == "fortran":
                    libs = [f"-L{os.path.abspath(args.fortran_lib_dir)}", "-ldualview_fortran"] + link
                else:
                    libs = link
                if not run(cc + [src, "-o", exe] + libs, log):
                    continue
                if mpi:
                    for n in mpi.group(1).split():
                        run(["mpirun", "-np", n, "--oversubscribe", "--allow-run-as-root", exe], log)
                    continue
                runner = [] if args.no_valgrind else VALGRIND
                if runner and shutil.which("valgrind") is None:
                    log.append("valgrind not found")
                    continue
                run(runner + [exe], log)
            if lang == "cpp" and nvcc:
                # Compiled as CUDA too (Kokkos' default execution space is then Cuda); no GPU to run it.
                run([nvcc, "-std=c++17", "-arch=sm_90", "-x", "cu", "-Werror", "all-warnings", f"-I{inc}",
                     f"-I{inc}/dualview/kokkos", "-c", src, "-o", os.path.join(args.work, f"{name}_nvcc.o")], log)
            if log:
                failures.append(f"{rel}:{line}: " + "; ".join(log))
                print(f"   FAILED {rel}:{line}", flush=True)
            else:
                print(f"   ok {rel}:{line}", flush=True)

    for u in unmarked:
        print(f"note: {u} looks like a program but has no 'complete program' first line; not checked")
    print(f"check-docs: {checked} complete programs in {len(files)} files, {len(failures)} failed")
    for f in failures:
        print(f"  FAILED {f}")
    if checked == 0:
        print("check-docs: no complete program found (README.md must have some)")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
