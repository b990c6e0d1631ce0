"""Facts of README.md and docs/*.md that can drift from the code, checked
without building anything (imported by scripts/check-docs.py):

1. every repository path written in them exists (a backticked path whose first
   part is a top-level entry of the repository, or a relative markdown link);
   paths of an installed tree (a line or section heading that says "install"),
   of a build or target folder, and of a file marked "(new)" are not repository paths;
2. every function the C header exports appears in docs/C_API.md
   (`dv_sync_host/_device` counts for both);
3. a speed number in prose (ns, us, ms, GB/s, or a ratio such as "6.2x faster") either
   quotes docs/BENCHMARKS.md or sits in a paragraph or table (row or header) that points to it;
4. the layers of docs/ARCHITECTURE.md are those of the imports: the block after the marker
   of scripts/layers.py is what `python3 scripts/layers.py --write` writes, the table after it
   names the units in the block's order, no cycle is left (layers.KNOWN_CYCLES is empty), and
   no path outside src/memory/ names memory's inner modules (layers.door_breaches);
5. the thresholds and counts the documents state (CONSTANTS below: "256 KiB or more", "8 kinds
   x 4 ranks", ...) equal the constants of the code they describe;
6. a test named with its file (`tests/model.rs: dual_views_follow_the_model`,
   `cpp_tests/test_dualview.cpp: DualView.K10_...`) is in that file;
7. the code's comments cannot drift either: in src/, include/, fortran/, tests/ and
   scripts/, every DECISIONS id cited (`DECISIONS T5`, `DECISIONS D9, D30`) is a row of
   docs/DECISIONS.md, and every backticked repository path (first part a top-level entry,
   or a folder beside the file) exists;
8. the paths named in Cargo.toml and in the CMake files (`${PROJECT_SOURCE_DIR}/...`,
   `${CMAKE_CURRENT_SOURCE_DIR}/...`, the sources of `add_executable` / `add_library`) exist;
9. every row of docs/SEMANTICS.md's table of calls (the one the header's doc comments cite)
   names in its last column a test that checks it (`tests/x.rs: name`, which fact 6 finds);
10. docs/ARCHITECTURE.md's units table names every `.rs` file under each unit's folder, and
   only files that are there;
11. docs/C_API_REFERENCE.md is what scripts/gen-capi.py writes from include/dualview.h, and
   every function the header declares has a doc comment.
"""

import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # layers.py

FENCE = re.compile(r"^\s*(```+|~~~+)")
PATHLIKE = re.compile(r"`([^`\s]+)`|\]\(([^)\s]+)\)")
SPEED = re.compile(
    r"(?<![\w.])\d+(?:\.\d+)?\s?(?:ns|us|µs|ms|GB/s|MB/s|GiB/s)(?!\w)"
    r"|(?<![\w.])\d+(?:\.\d+)?x(?= (?:faster|slower|Kokkos|the raw|of Kokkos))"
)
GENERATED = ("build", "target", ".gpu", ".lammps")


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


def layer_drift(root):
    import layers

    lines, unknown = layers.render(root)
    doc = layers.documented(root)
    bad = [f"scripts/layers.py: cycle {c} has no reason in KNOWN_CYCLES (break it, or explain it there)" for c in unknown]
    bad += [f"{f}: names `{w}`: outside src/memory/, use what src/memory/mod.rs exports (scripts/layers.py)"
            for f, w in layers.door_breaches(root)]
    if doc is None:
        return bad + [f"{layers.DOC}: no layers block after the marker line of scripts/layers.py"]
    if doc != lines:
        first = next((i for i, (a, b) in enumerate(zip(doc, lines)) if a != b), min(len(doc), len(lines)))
        have = doc[first] if first < len(doc) else "(nothing)"
        want = lines[first] if first < len(lines) else "(nothing)"
        bad.append(f"{layers.DOC}: the layers block differs from the imports of src/ (has {have.strip()!r}, "
                   f"the imports give {want.strip()!r}): run python3 scripts/layers.py --write")
    text = open(os.path.join(root, layers.DOC), encoding="utf-8").read().split("\n")
    i = text.index(layers.MARKER)
    while i < len(text) and not re.match(r"\|\s*unit\s*\|", text[i]):
        i += 1
    table = []
    for line in text[i + 2 :]:
        if not line.startswith("|"):
            break
        m = re.match(r"\|\s*`([^`]+)`", line)
        table.append(m.group(1) if m else line.split("|")[1].strip())
    order = layers.units_in_order(lines)
    if table != order:
        bad.append(f"{layers.DOC}: the table of units reads {', '.join(table) or '(none)'}; "
                   f"the layers, top first: {', '.join(order)}")
    return bad


# (document, pattern whose groups are the stated values, name of the constant, file it is in).
# A name in CONST_SOURCES gives the value itself; others are `const NAME: ... = <expression>;`
# searched in the file first, then anywhere under src/.
CONSTANTS = [
    ("docs/GPU.md", r"allocated by a create or realloc, (\d+ [KMG]iB) or more", "PIN_MIN", "src/memory/registration.rs"),
    ("docs/GPU.md", r"from (\d+ [KMG]iB) it first faults the pages in", "POPULATE_MIN", "src/memory/registration.rs"),
    ("docs/GPU.md", r"chunks of (\d+ [KMG]iB)", "CHUNK", "src/memory/registration.rs"),
    ("docs/GPU.md", r"(\d+ [KMG]iB) per call\)", "STEP", "src/memory/host/mod.rs"),
    ("docs/GPU.md", r"Copies of (\d+ [KMG]iB) or less", "TINY_BYTES", "src/memory/device/copy.rs"),
    ("docs/GPU.md", r"not page-locked, above (\d+ [KMG]iB)\s+through a pinned buffer", "STAGED_TO_DEVICE", "src/memory/device/copy.rs"),
    ("docs/DECISIONS.md", r"to the device, above (\d+ [KMG]iB) the host packs", "STAGED_TO_DEVICE", "src/memory/device/copy.rs"),
    ("docs/DECISIONS.md", r"from (\d+ [KMG]iB), in the background", "PIN_MIN", "src/memory/registration.rs"),
    ("docs/DECISIONS.md", r"\(from (\d+ [KMG]iB), its pages first faulted in", "POPULATE_MIN", "src/memory/registration.rs"),
    ("docs/DECISIONS.md", r"Contiguous copies of (\d+ [KMG]iB) or less", "TINY_BYTES", "src/memory/device/copy.rs"),
    ("docs/DECISIONS.md", r"faulted in by (\d+ [KMG]iB) chunks", "CHUNK", "src/memory/registration.rs"),
    ("docs/DECISIONS.md", r"and (\d+ [KMG]iB) per cancellable chunk", "CHUNK", "src/memory/registration.rs"),
    ("docs/DECISIONS.md", r"(\d+ [KMG]iB) per `madvise` call", "STEP", "src/memory/host/mod.rs"),
    ("docs/DECISIONS.md", r"start on a (\d+ [KMG]iB) boundary", "HUGE", "src/memory/host/mod.rs"),
    ("docs/DECISIONS.md", r"below (\d+ [KMG]iB) comes from the system allocator", "MEDIUM", "src/memory/host/mod.rs"),
    ("docs/DECISIONS.md", r"blocks under (\d+ [KMG]iB) recycled", "LARGE", "src/memory/host/mod.rs"),
    ("docs/DECISIONS.md", r"recycled through a (\d+ [KMG]iB) cache", "CACHE_BYTES", "src/memory/host/mod.rs"),
    ("docs/DECISIONS.md", r"Every allocation is (\d+)-byte aligned", "ALIGNMENT", "src/space/mod.rs"),
    ("docs/DECISIONS.md", r"the first (\d+) slots are static", "SEG_LEN", "src/ffi/handle.rs"),
    ("docs/DECISIONS.md", r"a base state and up to (\d+) boxes", "MAX_BOXES", "src/dual_view/coherence/boxes.rs"),
    ("docs/DECISIONS.md", r"at most (\d+) elements of a gap", "JOIN_GAP", "src/dual_view/coherence/mod.rs"),
    ("docs/DECISIONS.md", r"\| (\d+) \(Kokkos' limit\)", "MAX_RANK", "src/extents/mod.rs"),
    ("docs/DECISIONS.md", r"procedures for (\d+) kinds x", "len(KINDS)", "scripts/gen-fortran.py"),
    ("docs/DECISIONS.md", r"kinds x (\d+) ranks", "len(RANKS)", "scripts/gen-fortran.py"),
    ("docs/DECISIONS.md", r"(\d+) near-identical procedures", "2*len(KINDS)*len(RANKS)", "scripts/gen-fortran.py"),
    ("docs/ARCHITECTURE.md", r"\(from (\d+ [KMG]iB)\) a reservation", "LARGE", "src/memory/host/mod.rs"),
    ("docs/ARCHITECTURE.md", r"contiguous copies of (\d+ [KMG]iB) or less", "TINY_BYTES", "src/memory/device/copy.rs"),
]
UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def const_value(root, name, hint, depth=0):
    """The value of `const NAME` (hint file first, then src/); None when not found."""
    if name.startswith(("len(", "2*")) and hint.endswith(".py"):
        text = open(os.path.join(root, hint), encoding="utf-8").read()
        lists = {}
        for var in ("KINDS", "RANKS"):
            m = re.search(r"^" + var + r"\s*=\s*\[(.*?)\]\s*$", text, re.M | re.S)
            if m:
                lists[var] = re.findall(r"\(\s*\"[^\"]*\"" if var == "KINDS" else r"\d+", m.group(1))
        try:
            return eval(name, {"len": len}, lists)
        except (NameError, KeyError):
            return None
    paths = [os.path.join(root, hint)] + sorted(glob.glob(os.path.join(root, "src", "**", "*.rs"), recursive=True))
    for path in paths:
        if not os.path.exists(path):
            continue
        m = re.search(r"\bconst\s+" + name + r"\s*:\s*\w+\s*=\s*([^;]+);", open(path, encoding="utf-8").read())
        if not m:
            continue
        expr = m.group(1)
        for other in set(re.findall(r"\b[A-Z_][A-Z0-9_]*\b", expr)):
            v = const_value(root, other, os.path.relpath(path, root), depth + 1) if depth < 4 else None
            if v is None:
                return None
            expr = re.sub(r"\b" + other + r"\b", str(v), expr)
        if not re.fullmatch(r"[\d\s<>*+()-]+", expr.replace("_", "")):
            return None
        return eval(expr.replace("_", ""))
    return None


def wrong_constants(root):
    bad = []
    for doc, pattern, name, hint in CONSTANTS:
        path = os.path.join(root, doc)
        text = " ".join(line for _, line in prose(path))
        found = [m.group(1) for m in re.finditer(pattern, text)]
        if not found:
            bad.append(f"{doc}: no longer says /{pattern}/ (the {name} of {hint}): "
                       f"update CONSTANTS in scripts/doc_facts.py with the new wording")
            continue
        value = const_value(root, name, hint)
        if value is None:
            bad.append(f"scripts/doc_facts.py: {name} not found in {hint} nor src/ (renamed? update CONSTANTS)")
            continue
        for said in found:
            n, _, unit = said.partition(" ")
            if int(n) * UNITS.get(unit, 1) != value:
                shown = f"{value >> 20} MiB" if unit == "MiB" else f"{value >> 10} KiB" if unit == "KiB" else str(value)
                bad.append(f"{doc}: says {said} where {hint} has {name} = {shown}")
    return bad


NAMED_TEST = re.compile(r"`([\w./-]+\.(?:rs|cpp|c|f90|cu|py|sh)):\s*([A-Za-z_][\w.]*\*?)`")


def missing_tests(root, files):
    bad = []
    for doc in files:
        rel_doc = os.path.relpath(doc, root)
        for n, line in prose(doc):
            for m in NAMED_TEST.finditer(line):
                path, name = m.groups()
                full = os.path.join(root, path)
                if not os.path.exists(full):
                    continue  # missing_paths reports it when it is a repository path
                text = open(full, encoding="utf-8", errors="replace").read()
                prefix = name.endswith("*")
                parts = [p for p in name.rstrip("*").split(".") if p]
                for k, part in enumerate(parts):
                    tail = "" if prefix and k == len(parts) - 1 else r"\b"
                    if not re.search(r"\b" + re.escape(part) + tail, text):
                        bad.append(f"{rel_doc}:{n}: `{path}: {name}` names no test of {path} ({part!r} is not in it)")
                        break
    return bad


CITED = re.compile(r"DECISIONS(?:\.md)?[ ,:(]+((?:[A-Z]{1,2}\d+(?:(?:, | and | or |/| ?\+ ?)(?=[A-Z]{1,2}\d))?)+)")
COMMENT = re.compile(r"^\s*(//|/\*|\*|!|#)|\s(//|!|#)\s")
CODE_PATH = re.compile(r"`([\w.-]+(?:/[\w.*-]+)+\.(?:rs|md|h|hpp|cu|f90|py|sh|cpp|c|toml|txt|cmake|json))`")


def code_files(root):
    """The source files whose comments are checked."""
    out = []
    for pattern in ("src/**/*.rs", "include/**/*.h", "include/**/*.hpp", "fortran/*.f90", "tests/**/*.rs",
                    "scripts/*.py", "scripts/*.sh", "examples*/**/*.*", "cpp_tests/*.cpp", "benches/*.*"):
        out += [f for f in glob.glob(os.path.join(root, pattern), recursive=True) if os.path.isfile(f)]
    return sorted(set(out))


def stale_comments(root):
    ids = set(re.findall(r"^\| ([A-Z]+\d+) \|", open(os.path.join(root, "docs", "DECISIONS.md"), encoding="utf-8").read(), re.M))
    top = set(os.listdir(root))
    bad = []
    for path in code_files(root):
        rel = os.path.relpath(path, root)
        here = os.path.dirname(path)
        for n, line in enumerate(open(path, encoding="utf-8", errors="replace").read().split("\n"), 1):
            for m in CITED.finditer(line):
                for cited in re.findall(r"[A-Z]{1,2}\d+", m.group(1)):
                    if cited not in ids:
                        bad.append(f"{rel}:{n}: cites DECISIONS {cited}, which docs/DECISIONS.md does not have")
            if not COMMENT.search(line):
                continue
            for m in CODE_PATH.finditer(line):
                token = m.group(1)
                first = token.split("/")[0]
                if first in top and first not in GENERATED:
                    full = os.path.join(root, token)
                elif os.path.isdir(os.path.join(here, first)):
                    full = os.path.join(here, token)
                else:
                    continue  # another project's path (a Kokkos source, an installed tree)
                if not glob.glob(full):
                    bad.append(f"{rel}:{n}: `{token}` names no file of the repository")
    return bad


CMAKE_DIRS = {"PROJECT_SOURCE_DIR": None, "CMAKE_SOURCE_DIR": None, "CMAKE_CURRENT_SOURCE_DIR": "here"}
SOURCE_FILE = re.compile(r"^[\w./-]+\.(?:c|cpp|cu|f90|F90|h|hpp)$")


def build_file_paths(root):
    top = set(os.listdir(root))
    bad = []
    cargo = os.path.join(root, "Cargo.toml")
    for n, line in enumerate(open(cargo, encoding="utf-8").read().split("\n"), 1):
        for m in re.finditer(r"[\w.-]+(?:/[\w.*-]+)+\.(?:rs|md|h|toml|sh|py)", line):
            if m.group(0).split("/")[0] in top and not glob.glob(os.path.join(root, m.group(0))):
                bad.append(f"Cargo.toml:{n}: `{m.group(0)}` names no file of the repository")
    cmakes = glob.glob(os.path.join(root, "**", "CMakeLists.txt"), recursive=True)
    cmakes += glob.glob(os.path.join(root, "**", "*.cmake"), recursive=True)
    for cm in sorted(cmakes):
        rel = os.path.relpath(cm, root)
        if rel.split(os.sep)[0] in GENERATED:
            continue
        here = os.path.dirname(cm)
        for n, line in enumerate(open(cm, encoding="utf-8").read().split("\n"), 1):
            for m in re.finditer(r"\$\{(PROJECT_SOURCE_DIR|CMAKE_SOURCE_DIR|CMAKE_CURRENT_SOURCE_DIR)\}/([\w./*-]+)", line):
                base = here if CMAKE_DIRS[m.group(1)] else root
                if not glob.glob(os.path.join(base, m.group(2))):
                    bad.append(f"{rel}:{n}: `{m.group(0)}` names no file of the repository")
            m = re.match(r"\s*add_(?:executable|library)\(\s*[\w-]+\s+([^)$]+)\)", line)
            for src in (m.group(1).split() if m else []):
                if SOURCE_FILE.match(src) and not os.path.exists(os.path.join(here, src)):
                    bad.append(f"{rel}:{n}: source `{src}` names no file beside it")
    return bad


SEMANTICS_TABLE = "| call through a handle with box `B` |"


def untested_semantics(root, rel="docs/SEMANTICS.md"):
    """Fact 9: each row of the table of calls names a test in its last column."""
    path = os.path.join(root, rel)
    if not os.path.exists(path):
        return [f"{rel}: missing (fact 9 checks its table of calls)"]
    bad, rows, inside = [], 0, False
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.startswith(SEMANTICS_TABLE):
            inside = "checked by" in line.split("|")[-2]
            if not inside:
                bad.append(f"{rel}:{n}: the table of calls has no last column 'checked by'")
            continue
        if not inside or line.startswith("| ---"):
            continue
        if not line.startswith("|"):
            break
        rows += 1
        last = line.rstrip().rstrip("|").rsplit("|", 1)[-1]
        if not NAMED_TEST.search(last):
            bad.append(f"{rel}:{n}: the row {line.split('|')[1].strip()} names no test (`tests/x.rs: name`)")
    if inside and rows == 0:
        bad.append(f"{rel}: the table of calls has no rows")
    return bad


def blind_checks():
    """Facts 7, 8 and 10 run on a small tree that breaks each rule once; a rule whose break goes
    unseen is itself a finding (a checker that cannot fail proves nothing)."""
    import tempfile

    files = {
        "docs/DECISIONS.md": "| # | Decision |\n| --- | --- |\n| D1 | one |\n",
        "src/a.rs": "//! DECISIONS D1 and DECISIONS D2.\n/// See `src/b/none.rs`.\nfn f() {}\n",
        "Cargo.toml": "# tests/gone.rs does it\n",
        "tests/kept.rs": "",
        "x/CMakeLists.txt": "add_executable(t t.cpp)\nadd_test(NAME t COMMAND ${PROJECT_SOURCE_DIR}/scripts/gone.sh)\n",
        # The units table: a file the row leaves out, a file it names that is not there.
        "docs/ARCHITECTURE.md": "| unit | files | what |\n| `u` | `src/u/` | a.rs (one), ghost.rs (none) |\n",
        "src/u/a.rs": "",
        "src/u/b.rs": "",
    }
    want = ["cites DECISIONS D2", "`src/b/none.rs`", "`tests/gone.rs`", "source `t.cpp`", "scripts/gone.sh",
            "does not name src/u/b.rs", "names ghost.rs"]
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            open(os.path.join(tmp, rel), "w", encoding="utf-8").write(text)
        found = "\n".join(stale_comments(tmp) + build_file_paths(tmp) + architecture_files(tmp))
        # Fact 9: a row without a test.
        sem = SEMANTICS_TABLE + " checked by |\n| --- | --- |\n| `a` | `tests/kept.rs: t` |\n| `untested` | - |\n"
        open(os.path.join(tmp, "docs/SEMANTICS.md"), "w", encoding="utf-8").write(sem)
        found += "\n".join(untested_semantics(tmp))
    want.append("the row `untested` names no test")
    return [f"scripts/doc_facts.py: a break of {w!r} went unseen by its own check" for w in want if w not in found]


def architecture_files(root):
    """docs/ARCHITECTURE.md's units table against the tree: every `.rs` file under a unit's
    folder is named in its row (its file name, or a folder of it as `name/`), and every file
    name a row gives exists there."""
    doc = open(os.path.join(root, "docs", "ARCHITECTURE.md"), encoding="utf-8").read()
    bad = []
    for row in doc.split("\n"):
        m = re.match(r"^\| `([a-z_/]+)` \| `(src/[^`]+)` \|(.*)\|\s*$", row)
        if not m or m.group(2).endswith(".rs"):
            continue
        unit, base, what = m.group(1), m.group(2), m.group(3)
        files = [os.path.relpath(p, os.path.join(root, base)) for p in glob.glob(os.path.join(root, base, "**", "*.rs"), recursive=True)]
        for f in sorted(files):
            name = os.path.basename(f)
            if name in ("mod.rs", "tests.rs"):
                continue
            folders = [d + "/" for d in f.split(os.sep)[:-1]]
            if not re.search(r"(?<![\w.])" + re.escape(name), what) and not any(d in what for d in folders):
                bad.append(f"docs/ARCHITECTURE.md: the row of `{unit}` does not name {base}{f}")
        for name in re.findall(r"(?<![\w/.])([a-z_]+\.rs)\b", what):
            if not any(os.path.basename(f) == name for f in files):
                bad.append(f"docs/ARCHITECTURE.md: the row of `{unit}` names {name}, which is not under {base}")
    return bad

def capi_reference(root):
    """docs/C_API_REFERENCE.md is what scripts/gen-capi.py writes from include/dualview.h, and
    every function of the header has a doc comment."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("gen_capi", os.path.join(root, "scripts", "gen-capi.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    funcs = gen.functions(open(os.path.join(root, "include", "dualview.h"), encoding="utf-8").read())
    bad = [f"include/dualview.h: {n} has no doc comment (document it in src/ffi/)" for n, _, d in funcs if not d]
    # Not blind: a doc comment followed by a #define documents no function after it.
    probe = gen.functions("/** A macro. */\n#define X 1\nDV_NODISCARD\nenum dv_status_t dv_probe(void);\n")
    if probe != [("dv_probe", "enum dv_status_t dv_probe(void);", None)]:
        bad.append(f"scripts/gen-capi.py: a function without a doc comment went unseen ({probe})")
    path = os.path.join(root, "docs", "C_API_REFERENCE.md")
    have = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    if have != gen.render(funcs):
        bad.append("docs/C_API_REFERENCE.md differs from include/dualview.h: run python3 scripts/gen-capi.py")
    return bad

def check(root, files=None):
    """Every finding, as one line each (empty: all facts hold)."""
    files = files or doc_files(root)
    return blind_checks() + (missing_paths(root, files) + undocumented_functions(root) + unsourced_numbers(root, files)
            + layer_drift(root) + wrong_constants(root) + missing_tests(root, files)
            + stale_comments(root) + build_file_paths(root) + untested_semantics(root)
            + architecture_files(root) + capi_reference(root))


if __name__ == "__main__":
    found = check(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    print("\n".join(found) or "doc facts: all hold")
    sys.exit(1 if found else 0)
