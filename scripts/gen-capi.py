#!/usr/bin/env python3
"""docs/C_API_REFERENCE.md: every function of include/dualview.h with its declaration and
its doc comment, in the header's order, generated from the header (whose doc comments
cbindgen writes from the Rust ones of src/ffi/, and tests/header.rs writes the inline ones).

  python3 scripts/gen-capi.py           write docs/C_API_REFERENCE.md
  python3 scripts/gen-capi.py --check   exit 1 when it differs from the header, or when a
                                        function of the header has no doc comment

scripts/doc_facts.py runs the check (ctest docs.complete_programs). docs/C_API.md keeps the
hand-written overview (conventions, groups, status codes); this file is the reference.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = os.path.join(ROOT, "include", "dualview.h")
OUT = os.path.join(ROOT, "docs", "C_API_REFERENCE.md")
DECL = re.compile(r"^(?:DV_NODISCARD\s+)?(?:static inline\s+)?[\w\s\*]*?\b(dv_[a-z0-9_]+)\s*\(")


def functions(text):
    """[(name, declaration, doc or None)] in the header's order."""
    lines = text.split("\n")
    out, doc, i = [], None, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("/**"):
            block = [line]
            while "*/" not in lines[i]:
                i += 1
                block.append(lines[i])
            body = "\n".join(block)
            body = re.sub(r"^/\*\*\s?", "", body)
            body = re.sub(r"\s*\*/\s*$", "", body)
            doc = "\n".join(re.sub(r"^\s*\*\s?", "", l) for l in body.split("\n")).strip()
            i += 1
            continue
        m = None if re.match(r"^\s*(\*|/\*|#|//)", line) else DECL.match(line)
        if m:
            decl = line
            while not re.search(r"[;{]\s*$", decl):
                i += 1
                decl += " " + lines[i].strip()
            decl = re.sub(r"\s*\{\s*$", ";", decl)
            decl = re.sub(r"^DV_NODISCARD\s+", "", decl)
            decl = re.sub(r"\s+", " ", decl).replace("( ", "(").replace(" )", ")")
            if m.group(1) not in {n for n, _, _ in out}:  # one entry per name (#if / #else variants)
                out.append((m.group(1), decl, doc))
            doc = None
        elif line.strip() and not line.startswith("DV_NODISCARD"):
            doc = None  # a doc comment belongs to the declaration right after it, nothing later
        i += 1
    return out


def render(funcs):
    out = [
        "# The C ABI, function by function",
        "",
        "Generated from `include/dualview.h` by `python3 scripts/gen-capi.py` (checked by",
        "`scripts/doc_facts.py`: a function without a doc comment, or this file out of date, fails).",
        "The conventions every function follows, the groups and the status codes: [C_API.md](C_API.md).",
        "",
    ]
    for name, decl, doc in funcs:
        out += [f"## `{name}`", "", "```c", decl, "```", ""]
        text, _, safety = (doc or "").partition("# Safety")
        for para in [p.strip() for p in text.strip().split("\n\n") if p.strip()]:
            out += [" ".join(l.strip() for l in para.split("\n")), ""]
        if safety.strip():
            out += ["Safety: " + " ".join(l.strip() for l in safety.strip().split("\n")), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def main():
    text = open(HEADER, encoding="utf-8").read()
    funcs = functions(text)
    problems = [f"include/dualview.h: {n} has no doc comment (document it in src/ffi/)" for n, _, d in funcs if not d]
    want = render(funcs)
    if "--check" in sys.argv:
        have = open(OUT, encoding="utf-8").read() if os.path.exists(OUT) else ""
        if have != want:
            problems.append(f"{os.path.relpath(OUT, ROOT)} differs from include/dualview.h: run python3 scripts/gen-capi.py")
        for p in problems:
            print(p)
        if not problems:
            print(f"gen-capi: {len(funcs)} functions, each documented; docs/C_API_REFERENCE.md is up to date")
        return 1 if problems else 0
    for p in problems:
        print(p)
    open(OUT, "w", encoding="utf-8").write(want)
    print(f"gen-capi: wrote {os.path.relpath(OUT, ROOT)} ({len(funcs)} functions)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
