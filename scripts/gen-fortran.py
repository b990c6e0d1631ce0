#!/usr/bin/env python3
"""Write fortran/dualview_abi.f90, the generated part of the Fortran binding, from include/dualview.h.

The Fortran binding is two modules: `dualview` (fortran/dualview.f90, written
by hand: dualview_t, its procedures, errors, ownership), which programs use, over
`dualview_abi` (fortran/dualview_abi.f90, written by this script), which holds
what follows from the header and from the element types. One source of truth:
everything the binding shares with C is read from the header, never restated:

- every numeric `#define DV_* value` becomes a named constant with that value;
- every code of `enum dv_status_t` becomes an enumerator, by name and value;
- the `bind(c)` derived types are the header's structs, field by field;
- the `bind(c)` interfaces are the header's prototypes of the C functions the
  binding calls (argument types mapped from C, see `dummy`).

A name the module uses that the header lacks (a constant, a struct, a C
function) stops the generator with an error, so a change of the C ABI breaks
generation instead of the link or, worse, the run.

The typed accessors (`host` pointers and `wrap`, for the element kinds of KINDS
at ranks 1 to 8) come from one template each: the type-bound procedures of
dualview_typed_t, the abstract parent of dualview_t (the top of the generated
module says why).

`dualview` is public by default, so that it re-exports every constant of this
module; the check below makes sure it names the internal ABI entities private.

Usage:
  python3 scripts/gen-fortran.py                 # write fortran/dualview_abi.f90
  python3 scripts/gen-fortran.py -o -            # the module on stdout
  python3 scripts/gen-fortran.py --check         # exit 1 when fortran/dualview_abi.f90 is stale
"""

import argparse
import pathlib
import re
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent
HEADER = ROOT / "include" / "dualview.h"
MODULE = ROOT / "fortran" / "dualview_abi.f90"
USER_MODULE = ROOT / "fortran" / "dualview.f90"

# Fortran element kinds with a host pointer / wrap: (suffix, Fortran type, C dtype constant).
KINDS = [("r32", "real(real32)", "DV_DTYPE_FLOAT32"), ("r64", "real(real64)", "DV_DTYPE_FLOAT64"),
         ("c64", "complex(real32)", "DV_DTYPE_COMPLEX64"), ("c128", "complex(real64)", "DV_DTYPE_COMPLEX128"),
         ("i8", "integer(int8)", "DV_DTYPE_INT8"), ("i16", "integer(int16)", "DV_DTYPE_INT16"),
         ("i32", "integer(int32)", "DV_DTYPE_INT32"), ("i64", "integer(int64)", "DV_DTYPE_INT64")]
# Ranks with a host pointer / wrap: 1 to DV_MAX_RANK (generate checks it).
RANKS = [1, 2, 3, 4, 5, 6, 7, 8]

# The C functions module dualview calls; each gets an interface c_<name> from its prototype.
C_FUNCTIONS = ["dv_last_error_copy", "dv_create", "dv_wrap", "dv_clone", "dv_destroy",
               "dv_mark_result", "dv_take", "dv_release", "dv_hold", "dv_hold_use", "dv_let_go", "dv_initialize",
               "dv_modify_host", "dv_modify_device", "dv_sync_host", "dv_sync_device", "dv_clear_sync_state",
               "dv_need_sync_host", "dv_need_sync_device", "dv_host_access", "dv_device_access",
               "dv_rank", "dv_extent", "dv_info", "dv_label", "dv_view_label", "dv_desc_of",
               "dv_resize", "dv_realloc", "dv_handle_count", "dv_space_info", "dv_space_available",
               "dv_space_device_count", "dv_fence", "dv_cuda_available", "dv_dtype_str", "dv_version", "dv_status_str",
               "dv_report_start", "dv_report_write", "dv_stats", "dv_stats_reset", "dv_stats_global",
               "dv_stats_global_reset", "dv_last_error_set", "dv_subview", "dv_push_host", "dv_push_device",
               "dv_pool_release"]
# Structs that module dualview re-exports (the others are internal to the binding).
PUBLIC_STRUCTS = ["dv_info_t", "dv_space_info_t", "dv_stats_t"]
# The abstract parent of dualview_t, which carries the typed accessors.
TYPED = "dualview_typed_t"


def read_doc(lines, i):
    """The /** ... */ comment that opens at lines[i], on one line, and the index of its last line."""
    block = []
    while True:
        block.append(lines[i])
        if "*/" in lines[i]:
            return clean_doc(block), i
        i += 1


# ---- reading the header ----------------------------------------------------------------------

class Header:
    def __init__(self, path):
        self.path = path
        text = path.read_text()
        self.defines = []      # (name, value, doc) of every numeric #define DV_*
        self.status = []       # (name, value, doc) of enum dv_status_t
        self.status_doc = ""
        self.structs = {}      # name -> (doc, [(ctype, field, dim or None, doc)]), in header order
        self.functions = {}    # name -> (return type, [(ctype, param)])
        self._scan(text.splitlines())
        self._prototypes(text)
        if not self.defines or not self.status or not self.functions:
            sys.exit(f"gen-fortran: {path} has no DV_* defines, dv_status_t enum or dv_* functions")
        self.values = {n: v for n, v, _ in self.defines + self.status}

    def _scan(self, lines):
        doc, i = None, 0
        while i < len(lines):
            s = lines[i].strip()
            if s.startswith("/**"):
                doc, i = read_doc(lines, i)
            elif m := re.match(r"#define\s+(DV_\w+)\s+(-?(?:0[xX][0-9a-fA-F]+|\d+))[uUlL]*\s*$", s):
                self.defines.append((m[1], int(m[2], 0), doc or ""))
                doc = None
            elif s.startswith("typedef enum dv_status_t"):
                self.status_doc, doc = doc or "", None
                i += 1
                while not lines[i].strip().startswith("}"):
                    t = lines[i].strip()
                    if t.startswith("/**"):
                        doc, i = read_doc(lines, i)
                    elif m := re.match(r"(DV_\w+)\s*=\s*(-?\d+)\s*,?$", t):
                        self.status.append((m[1], int(m[2]), doc or ""))
                        doc = None
                    elif t:
                        sys.exit(f"gen-fortran: cannot read dv_status_t entry: {t!r}")
                    i += 1
            elif m := re.match(r"typedef struct (dv_\w+) \{$", s):
                name, sdoc, fields, doc = m[1], doc or "", [], None
                i += 1
                while not lines[i].strip().startswith("}"):
                    t = lines[i].strip()
                    if t.startswith("/**"):
                        doc, i = read_doc(lines, i)
                    elif m := re.match(r"(.+?)\s*(\**)\s*(\w+)(?:\[(\w+)\])?;$", t):
                        dim = m[4]
                        if dim is not None and not dim.isdigit():
                            dim = str(dict((n, v) for n, v, _ in self.defines)[dim])
                        fields.append((" ".join((m[1] + " " + m[2]).split()), m[3], dim, doc or ""))
                        doc = None
                    elif t:
                        sys.exit(f"gen-fortran: cannot read a field of {name}: {t!r}")
                    i += 1
                self.structs[name] = (sdoc, fields)
            elif s:
                doc = None
            i += 1

    def _prototypes(self, text):
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
        text = text.replace("DV_NODISCARD", " ")
        text = strip_inline_bodies(text)
        for m in re.finditer(r"((?:const\s+)?(?:enum\s+|struct\s+)?\w+[\s*]*?)\s*\b(dv_\w+)\s*\((.*?)\)\s*;", text, re.S):
            ret, name, args = " ".join(m[1].split()), m[2], " ".join(m[3].split())
            params = []
            if args != "void":
                for a in args.split(","):
                    a = a.strip()
                    if f := re.match(r".*\(\s*\*\s*(\w+)\s*\)\s*\(.*\)$", a):
                        params.append(("funptr", f[1]))
                        continue
                    p = re.match(r"(.*?)\s*(\w+)$", a)
                    params.append((" ".join(p[1].replace("*", " * ").split()).replace(" *", "*"), p[2]))
            self.functions[name] = (ret.replace(" *", "*"), params)

    def value(self, name):
        if name not in self.values:
            sys.exit(f"gen-fortran: {name} is not in {self.path.name}")
        return self.values[name]


def strip_inline_bodies(text):
    """`text` without its `static inline` function definitions (C, not ABI: no interface)."""
    out, i = [], 0
    while (j := text.find("static inline", i)) >= 0:
        out.append(text[i:j])
        k = text.index("{", j)
        depth = 0
        while True:
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            k += 1
            if depth == 0:
                break
        i = k
    out.append(text[i:])
    return "".join(out)


def clean_doc(block):
    """The text of a /** ... */ comment on one line."""
    out = []
    for ln in block:
        ln = ln.strip()
        ln = re.sub(r"^/\*\*", "", ln)
        ln = re.sub(r"\*/$", "", ln)
        ln = re.sub(r"^\*\s?", "", ln)
        if ln.strip():
            out.append(ln.strip())
    return " ".join(out)


def doc_lines(doc, indent, width=100):
    if not doc:
        return ""
    return "".join(f"{indent}!> {ln}\n" for ln in textwrap.wrap(doc, width - len(indent) - 3))


# ---- C types as Fortran ------------------------------------------------------------------------

SCALARS = {"uint8_t": "integer(c_int8_t)", "int8_t": "integer(c_int8_t)", "uint32_t": "integer(c_int32_t)",
           "int32_t": "integer(c_int32_t)", "uint64_t": "integer(c_int64_t)", "int64_t": "integer(c_int64_t)",
           "size_t": "integer(c_size_t)", "bool": "logical(c_bool)", "int": "integer(c_int)"}
DEFAULTS = {"integer": "0", "logical": ".false."}


def base_of(ctype):
    return " ".join(ctype.replace("*", " ").replace("const", " ").split())


def dummy(hdr, ctype, where):
    """The Fortran declaration of a dummy argument of C type `ctype` in an interface.

    Handles and C strings travel as type(c_ptr) by value; pointers to numbers and
    to structs are passed by reference; pointers the callee writes are intent(inout),
    because the C functions write outputs only on success (an intent(out) dummy
    would let the compiler drop the caller's default value).
    """
    stars, const, base = ctype.count("*"), ctype.startswith("const"), base_of(ctype)
    if ctype == "funptr":
        return "type(c_funptr), value"
    if stars == 2:
        return "type(c_ptr), intent(inout)"
    if stars == 1 and base in ("struct dv_dualview_t", "char", "void"):
        return "type(c_ptr), value"
    if base in SCALARS:
        if stars == 0:
            return SCALARS[base] + ", value"
        return SCALARS[base] + (", intent(in)" if const else ", intent(inout)")
    if stars == 1 and base.startswith("struct ") and base[7:] in hdr.structs:
        return f"type({base[7:]})" + (", intent(in)" if const else ", intent(inout)")
    sys.exit(f"gen-fortran: no Fortran binding for C type {ctype!r} in {where}")


def result_type(ret, where):
    table = {"enum dv_status_t": "integer(c_int)", "const char*": "type(c_ptr)", "size_t": "integer(c_size_t)"}
    if ret not in table:
        sys.exit(f"gen-fortran: no Fortran binding for the C result type {ret!r} of {where}")
    return table[ret]


def interfaces(hdr):
    out = []
    for name in C_FUNCTIONS:
        if name not in hdr.functions:
            sys.exit(f"gen-fortran: {name} is not declared in {hdr.path.name}")
        ret, params = hdr.functions[name]
        args = ", ".join(p for _, p in params)
        lines = [f"    function c_{name}({args}) bind(c, name=\"{name}\") result(res_)", "      import"]
        lines += [f"      {dummy(hdr, t, name)} :: {p}" for t, p in params]
        lines += [f"      {result_type(ret, name)} :: res_", "    end function"]
        out.append("\n".join(lines))
    return "\n".join(out)


def structs_used(hdr):
    """The structs the interfaces pass and the public ones, with what they contain, in header order."""
    want = set(PUBLIC_STRUCTS)
    for name in C_FUNCTIONS:
        for t, _ in hdr.functions[name][1]:
            b = base_of(t)
            if b.startswith("struct ") and b[7:] in hdr.structs:
                want.add(b[7:])
    for s in PUBLIC_STRUCTS:
        if s not in hdr.structs:
            sys.exit(f"gen-fortran: struct {s} is not in {hdr.path.name}")
    changed = True
    while changed:
        changed = False
        for s in list(want):
            for t, _, _, _ in hdr.structs[s][1]:
                b = base_of(t)
                if b.startswith("struct ") and b[7:] not in want:
                    want.add(b[7:])
                    changed = True
    return [s for s in hdr.structs if s in want]


def derived_types(hdr):
    out = []
    for name in structs_used(hdr):
        sdoc, fields = hdr.structs[name]
        text = doc_lines(sdoc, "  ") + f"  type, bind(c) :: {name}\n"
        for ctype, field, dim, fdoc in fields:
            base = base_of(ctype)
            if ctype.count("*") == 1:
                decl, init = "type(c_ptr)", "c_null_ptr"
            elif base in SCALARS:
                decl = SCALARS[base]
                init = DEFAULTS[decl.split("(")[0]]
            elif base.startswith("struct ") and base[7:] in hdr.structs:
                decl, init = f"type({base[7:]})", None
            else:
                sys.exit(f"gen-fortran: no Fortran type for field {field} ({ctype}) of {name}")
            shape = f"({dim})" if dim else ""
            text += doc_lines(fdoc, "    ")
            text += f"    {decl} :: {field}{shape}" + (f" = {init}" if init else "") + "\n"
        out.append(text + "  end type\n")
    return "\n".join(out)


def constants(hdr):
    text = ""
    for name, value, doc in hdr.defines:
        text += doc_lines(doc, "  ")
        text += f"  integer(c_int32_t), parameter, public :: {name} = {value}\n"
    text += "\n" + doc_lines(hdr.status_doc, "  ") + "  enum, bind(c)\n"
    for name, value, doc in hdr.status:
        text += doc_lines(doc, "    ") + f"    enumerator :: {name} = {value}\n"
    text += "  end enum\n"
    text += listing("public :: ", [n for n, _, _ in hdr.status]) + "\n"
    return text


# ---- Fortran text ------------------------------------------------------------------------------

def dims(r):
    return ",".join([":"] * r)


def names(prefix):
    return [f"{prefix}_{k}_{r}" for k, _, _ in KINDS for r in RANKS]


def listing(lead, items, indent="  "):
    """`lead item, item, ...` wrapped below 100 columns with Fortran continuations."""
    lines, cur = [], indent + lead
    for i, it in enumerate(items):
        piece = it + (", " if i + 1 < len(items) else "")
        if len(cur) + len(piece) > 96:
            lines.append(cur.rstrip() + " &")
            cur = indent + "    "
        cur += piece
    lines.append(cur)
    return "\n".join(lines)


HEAD = '''\
! Generated from include/dualview.h by scripts/gen-fortran.py. Do not edit: change the
! header (through src/) or the generator and run: python3 scripts/gen-fortran.py
! Every constant, status code, bind(c) type and C interface below is read from dualview.h.
!
!> Module dualview_abi: the generated part of the Fortran binding, under module dualview
!> (fortran/dualview.f90, written by hand), which uses it and re-exports its constants,
!> status codes, dv_info_t, dv_space_info_t and dv_stats_t. Programs `use dualview`, not this module.
!
! The typed accessors. a%host(p) and a%wrap(label, array) are type-bound generics over
! one specific procedure per element type and rank ({nspecific}). A specific binding takes
! the type that declares it (or an extension) as its passed object, so they cannot be
! bound to dualview_t, which is declared later, in module dualview; and a generic
! interface of this module would not give the a%host(p) form. So they are bound to
! {typed}, the abstract parent of dualview_t (no components):
! each does the typed part (c_f_pointer; is_contiguous, c_loc) and calls dualview_t's
! untyped part through the deferred bindings host_untyped and wrap_untyped, which
! dualview_t overrides. Those two are public because a private deferred binding cannot
! be overridden in another module (Fortran 2018, 7.5.7.3: only an accessible binding is
! overridden); they are internal all the same. Fortran 2008 (checked: gfortran 12
! -std=f2008 -Wall -Wextra).
module dualview_abi
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: real32, real64, int8, int16, int32, int64
  implicit none
  private

  public :: {typed}
{public_structs}
{public_interfaces}

  ! ---- Constants: every numeric #define DV_* and every dv_status_t code of dualview.h ----
{constants}
  ! ---- The structs of dualview.h the binding passes (bind(c), field by field) ----
{types}
  !> The typed accessors of dualview_t (its abstract parent; see the top of this file).
  type, abstract :: {typed}
  contains
    procedure(host_untyped_i), deferred :: host_untyped
    procedure(wrap_untyped_i), deferred :: wrap_untyped
{host_procs}
{host_generic}
{wrap_procs}
{wrap_generic}
  end type

  abstract interface
    !> The untyped part of host(p): check that self can be seen as a Fortran array of
    !> dtype (Fortran type tname) and rank_, then get its host pointer p and shape shp
    !> (mode as for host). ok is .false. after a failure, reported into stat and msg.
    subroutine host_untyped_i(self, dtype, tname, rank_, mode, p, shp, ok, stat, msg)
      import
      class({typed}), intent(in) :: self
      integer(c_int32_t), intent(in) :: dtype
      character(len=*), intent(in) :: tname
      integer, intent(in) :: rank_
      integer(c_int32_t), intent(in), optional :: mode
      type(c_ptr), intent(out) :: p
      integer(int64), intent(out) :: shp(:)
      logical, intent(out) :: ok
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out) :: msg
    end subroutine

    !> The untyped part of wrap: a DualView of dtype over the caller's memory at addr of
    !> shape shp, or (contig .false.) the refusal of a non-contiguous array; reports into
    !> stat and msg.
    subroutine wrap_untyped_i(self, label, dtype, contig, addr, shp, space, ordinal, flags, stat, msg)
      import
      class({typed}), intent(inout) :: self
      character(len=*), intent(in) :: label
      integer(c_int32_t), intent(in) :: dtype
      logical, intent(in) :: contig
      type(c_ptr), intent(in) :: addr
      integer(int64), intent(in) :: shp(:)
      integer(c_int32_t), intent(in), optional :: space, ordinal, flags
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out) :: msg
    end subroutine
  end interface

  ! ---- The C functions (prototypes of dualview.h) ----
  interface
{interfaces}
  end interface

contains
'''

host_tpl = '''
  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_{k}_{r}(self, p, mode, stat, errmsg)
    class({typed}), intent(in) :: self
    {t}, pointer, intent(out) :: p({d})
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp({r})
    logical :: ok
    nullify(p)
    call self%host_untyped({dt}, "{t}", {r}, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine
'''

wrap_tpl = '''
  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_{k}_{r}(self, label, array, space, ordinal, flags, stat, errmsg)
    class({typed}), intent(inout) :: self
    character(len=*), intent(in) :: label
    {t}, target, intent(inout) :: array({d})
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, {dt}, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine
'''


def generate(hdr):
    for _, _, dt in KINDS:
        hdr.value(dt)
    if RANKS[-1] != hdr.value("DV_MAX_RANK"):
        sys.exit(f"gen-fortran: RANKS stop at {RANKS[-1]}, DV_MAX_RANK is {hdr.value('DV_MAX_RANK')}")
    missing = [f for f in C_FUNCTIONS if f not in hdr.functions]
    if missing:
        sys.exit(f"gen-fortran: {hdr.path.name} does not declare {', '.join(missing)}")
    body = ""
    for k, t, dt in KINDS:
        for r in RANKS:
            body += host_tpl.format(k=k, r=r, t=t, d=dims(r), dt=dt, typed=TYPED)
            body += wrap_tpl.format(k=k, r=r, t=t, d=dims(r), dt=dt, typed=TYPED)
    text = HEAD.format(
        typed=TYPED,
        nspecific=f"{len(KINDS)} x {len(RANKS)}",
        public_structs=listing("public :: ", structs_used(hdr)),
        public_interfaces=listing("public :: ", [f"c_{f}" for f in C_FUNCTIONS]),
        constants=constants(hdr),
        types=derived_types(hdr),
        interfaces=interfaces(hdr),
        host_procs=listing("procedure, private :: ", names("host"), "    "),
        host_generic=listing("generic :: host => ", names("host"), "    "),
        wrap_procs=listing("procedure, private :: ", names("wrap"), "    "),
        wrap_generic=listing("generic :: wrap => ", names("wrap"), "    "))
    text += body + "\nend module dualview_abi\n"
    check(hdr, text)
    return text


def check(hdr, text):
    """Every DV_* name and every bound dv_* function the module mentions is in the header."""
    code = "\n".join(line.split("!", 1)[0] for line in text.splitlines())  # comments may name environment variables
    missing = sorted({m for m in re.findall(r"\bDV_\w+", code) if not m.endswith("_") and m not in hdr.values})
    if missing:
        sys.exit(f"gen-fortran: the module uses names that {hdr.path.name} lacks: {', '.join(missing)}")
    long_lines = [i + 1 for i, ln in enumerate(text.splitlines()) if len(ln) > 132]
    if long_lines:
        sys.exit(f"gen-fortran: lines over 132 columns: {long_lines[:10]}")


def internal_names(hdr):
    """What dualview_abi makes public for module dualview only: dualview must name these private."""
    return ([f"c_{f}" for f in C_FUNCTIONS] + [s for s in structs_used(hdr) if s not in PUBLIC_STRUCTS]
            + [TYPED])


def check_user_module(hdr):
    """Module dualview is public by default (so that it re-exports every constant of dualview_abi):
    each name it declares or imports at module level, and each internal name of dualview_abi,
    must be in one of its public or private statements. Returns the problems (the problems of
    fortran/dualview.f90, which the generator does not write, never stop the generation)."""
    text = re.sub(r"!.*", "", USER_MODULE.read_text())
    text = re.sub(r"&\s*\n\s*&?", " ", text)
    spec, _, procs = text.partition("\ncontains\n")
    def named(kind):
        return {n.lower() for m in re.finditer(rf"^\s*{kind}\s*::(.*)$", spec, re.M) for n in re.findall(r"\w+", m[1])}
    public, private = named("public"), named("private")
    imported = {n for m in re.finditer(r"^\s*use\b.*?\bonly\s*:(.*)$", spec, re.M) for n in re.findall(r"\w+", m[1])}
    proc = r"(?:\w[\w(), ]* )?(?:subroutine|function)"
    declared = set(re.findall(rf"^  {proc}[ \t]+(\w+)", procs, re.M))
    declared |= set(re.findall(rf"^ {{2,4}}(?:interface|{proc})[ \t]+(\w+)", spec, re.M))
    declared |= set(re.findall(r"^  type(?:, [\w(), ]+)? :: (\w+)", spec, re.M))
    problems = [f"{n} is internal to the binding: name it in a private statement"
                for n in internal_names(hdr) if n.lower() not in private]
    problems += [f"{n} (module level) is in no public or private statement"
                 for n in sorted(imported | declared) if n.lower() not in public | private]
    problems += [f"{n} is both public and private" for n in sorted(public & private)]
    if re.search(r"^  private\s*$", spec, re.M):
        problems.append("the module must stay public by default (it re-exports the constants of dualview_abi)")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--header", type=pathlib.Path, default=HEADER, help="the C header (default: include/dualview.h)")
    ap.add_argument("-o", "--output", default=str(MODULE),
                    help=f"write the module here, - for stdout (default: {MODULE.relative_to(ROOT)})")
    ap.add_argument("--check", action="store_true", help=f"exit 1 when {MODULE.relative_to(ROOT)} differs from "
                    f"the output, or {USER_MODULE.relative_to(ROOT)} leaves an internal name public")
    args = ap.parse_args()
    hdr = Header(args.header)
    text = generate(hdr)
    problems = check_user_module(hdr)
    if args.check:
        if not MODULE.exists() or MODULE.read_text() != text:
            problems.insert(0, f"{MODULE.relative_to(ROOT)} is stale: run python3 scripts/gen-fortran.py")
    elif args.output == "-":
        sys.stdout.write(text)
    else:
        pathlib.Path(args.output).write_text(text)
    if problems:
        sys.exit("\n".join(f"gen-fortran: {p}" for p in problems))


if __name__ == "__main__":
    main()
