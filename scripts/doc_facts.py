"""Facts of README.md and docs/*.md that can drift from the code, checked
without building anything (imported by scripts/check-docs.py):

1. every repository path written in them exists (a backticked path whose first
   part is a top-level entry of the repository, or a relative markdown link);
   paths of an installed tree (a line or section heading that says "install"),
   of a build or target folder, and of a file marked "(new)" are not repository paths;
2. every function the C header exports appears in docs/C_API.md
   (`dv_sync_host/_device` counts for both);
3. a speed number in prose (ns, us, ms, GB/s, or a ratio such as "6.2x faster") either
   quotes docs/BENCHMARKS.md or sits in a paragraph or table (row or header) that points to it.
"""

import glob
import os
import re

FENCE = re.compile(r"^\s*(```+|~~~+)")
PATHLIKE = re.compile(r"`([^`\s]+)`|\]\(([^)\s]+)\)")
SPEED = re.compile(
    r"(?<![\w.])\d+(?:\.\d+)?\s?(?:ns|us|µs|ms|GB/s|MB/s|GiB/s)(?!\w)"
    r"|(?<![\w.])\d+(?:\.\d+)?x(?= (?:faster|slower|Kokkos|the raw|of Kokkos))"
)
GENERATED = ("build", "target", ".gpu")


def doc_files(root):
    """README.md, CHANGELOG.md and docs/*.md."""
    files = [os.path.join(root, f) for f in ("README.md", "CHANGELOG.md")]
    return [f for f in files if os.path.exists(f)] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))


def prose(path):
    """(line number, text) of each line outside fenced code blocks."""
    inside = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f.read().split("\n"), 1):
            if FENCE.match(line):
                inside = not inside
            elif not inside:
                yield n, line


def missing_paths(root, files):
    top = set(os.listdir(root))
    bad = []
    for doc in files:
        rel_doc = os.path.relpath(doc, root)
        heading = ""
        for n, line in prose(doc):
            if line.startswith("#"):
                heading = line.lower()
            if "install" in line.lower() or "install" in heading:
                continue
            for m in PATHLIKE.finditer(line):
                link = m.group(2)
                token = (link or m.group(1)).split("#")[0].rstrip(".,;:)")
                token = re.sub(r":\d+(-\d+)?$", "", token)
                if not token or "/" not in token or token.startswith(("/", "http", "-")) or re.search(r"[<>$:]", token):
                    continue
                if line[m.end():].lstrip().startswith("(new)"):
                    continue
                path = os.path.normpath(os.path.join(os.path.dirname(rel_doc), token)) if link else token
                first = path.split("/")[0]
                if first not in top or first in GENERATED:
                    continue
                full = os.path.join(root, path)
                found = glob.glob(full) if any(c in path for c in "*?[") else os.path.exists(full)
                if not found:
                    bad.append(f"{rel_doc}:{n}: `{token}` names no file of the repository")
    return bad


def undocumented_functions(root):
    header = open(os.path.join(root, "include", "dualview.h"), encoding="utf-8").read()
    exported = sorted(set(re.findall(r"\b(dv_[a-z0-9_]+)\s*\(", header)))
    capi = open(os.path.join(root, "docs", "C_API.md"), encoding="utf-8").read()
    named = set(re.findall(r"\bdv_[a-z0-9_]+", capi))
    for m in re.finditer(r"(dv_[a-z0-9_]+)((?:/_[a-z0-9_]+)+)", capi):
        parts = m.group(1).split("_")
        for alt in m.group(2).split("/_")[1:]:
            named.add("_".join(parts[: len(parts) - alt.count("_") - 1] + [alt]))
    return [f"docs/C_API.md: `{f}` (exported by include/dualview.h) is not documented" for f in exported if f not in named]


def unsourced_numbers(root, files):
    bench = open(os.path.join(root, "docs", "BENCHMARKS.md"), encoding="utf-8").read()
    bad = []
    for doc in files:
        rel_doc = os.path.relpath(doc, root)
        if rel_doc == os.path.join("docs", "BENCHMARKS.md"):
            continue
        paras, para, start, header = [], [], 0, None
        for n, line in prose(doc):
            if line.startswith("|"):
                header = header or line  # a row points where its table's header does
                paras.append((n, line + " " + header))
            else:
                header = None
            if not line.strip() or line.startswith(("#", "|")):
                if para:
                    paras.append((start, " ".join(para)))
                para = []
                continue
            if not para:
                start = n
            para.append(line)
        if para:
            paras.append((start, " ".join(para)))
        for n, text in paras:
            if "BENCHMARKS" in text:
                continue
            for m in SPEED.finditer(text):
                if m.group(0) not in bench:
                    bad.append(f"{rel_doc}:{n}: {m.group(0)!r} neither quotes docs/BENCHMARKS.md nor points to it")
    return bad


def check(root, files=None):
    """Every finding, as one line each (empty: all facts hold)."""
    files = files or doc_files(root)
    return missing_paths(root, files) + undocumented_functions(root) + unsourced_numbers(root, files)


if __name__ == "__main__":
    import sys

    found = check(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    print("\n".join(found) or "doc facts: all hold")
    sys.exit(1 if found else 0)
