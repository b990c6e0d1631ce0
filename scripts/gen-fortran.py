#!/usr/bin/env python3
"""Write fortran/dualview.f90, the Fortran module over the C ABI, from include/dualview.h.

One source of truth: everything the module shares with C is read from the
header, never restated here:

- every numeric `#define DV_* value` becomes a named constant with that value;
- every code of `enum dv_status_t` becomes an enumerator, by name and value;
- the `bind(c)` derived types are the header's structs, field by field;
- the `bind(c)` interfaces are the header's prototypes of the C functions the
  module calls (argument types mapped from C, see `dummy`).

A name the module uses that the header lacks (a constant, a struct, a C
function) stops the generator with an error, so a change of the C ABI breaks
generation instead of the link or, worse, the run.

The typed accessors (host pointers and wrap, for the element kinds of KINDS at
ranks 1 to 4) come from one template each; the rest of the Fortran layer is
written out below.

Usage:
  python3 scripts/gen-fortran.py                 # the module on stdout
  python3 scripts/gen-fortran.py -o fortran/dualview.f90
  python3 scripts/gen-fortran.py --check         # exit 1 when fortran/dualview.f90 is stale
"""

import argparse
import pathlib
import re
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent
HEADER = ROOT / "include" / "dualview.h"
MODULE = ROOT / "fortran" / "dualview.f90"

# Fortran element kinds with a host pointer / wrap: (suffix, Fortran type, C dtype constant).
KINDS = [("r32", "real(real32)", "DV_DTYPE_FLOAT32"), ("r64", "real(real64)", "DV_DTYPE_FLOAT64"),
         ("c64", "complex(real32)", "DV_DTYPE_COMPLEX64"), ("c128", "complex(real64)", "DV_DTYPE_COMPLEX128"),
         ("i8", "integer(int8)", "DV_DTYPE_INT8"), ("i16", "integer(int16)", "DV_DTYPE_INT16"),
         ("i32", "integer(int32)", "DV_DTYPE_INT32"), ("i64", "integer(int64)", "DV_DTYPE_INT64")]
RANKS = [1, 2, 3, 4]

# The C functions the module calls; each gets an interface c_<name> from its prototype.
C_FUNCTIONS = ["dv_last_error_copy", "dv_create", "dv_wrap", "dv_clone", "dv_destroy",
               "dv_modify_host", "dv_modify_device", "dv_sync_host", "dv_sync_device", "dv_clear_sync_state",
               "dv_need_sync_host", "dv_need_sync_device", "dv_host_access", "dv_device_access",
               "dv_rank", "dv_extent", "dv_info", "dv_label", "dv_view_label", "dv_desc_of",
               "dv_resize", "dv_realloc", "dv_handle_count", "dv_space_info", "dv_fence",
               "dv_cuda_available", "dv_dtype_str", "dv_version", "dv_status_str"]
# Structs made public (the others are internal to the module).
PUBLIC_STRUCTS = ["dv_info_t", "dv_space_info_t"]


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
                block = []
                while True:
                    block.append(lines[i])
                    if "*/" in lines[i]:
                        break
                    i += 1
                doc = clean_doc(block)
            elif m := re.match(r"#define\s+(DV_\w+)\s+(-?(?:0[xX][0-9a-fA-F]+|\d+))[uUlL]*\s*$", s):
                self.defines.append((m[1], int(m[2], 0), doc or ""))
                doc = None
            elif s.startswith("typedef enum dv_status_t"):
                self.status_doc, doc = doc or "", None
                i += 1
                while not lines[i].strip().startswith("}"):
                    t = lines[i].strip()
                    if t.startswith("/**"):
                        block = []
                        while True:
                            block.append(lines[i])
                            if "*/" in lines[i]:
                                break
                            i += 1
                        doc = clean_doc(block)
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
                        block = []
                        while True:
                            block.append(lines[i])
                            if "*/" in lines[i]:
                                break
                            i += 1
                        doc = clean_doc(block)
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
           "size_t": "integer(c_size_t)", "bool": "logical(c_bool)"}
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
! header (through src/) or the generator and run: python3 scripts/gen-fortran.py -o fortran/dualview.f90
! Every constant, status code, bind(c) type and C interface below is read from dualview.h.
!> Module dualview: DualViews (host mirror + device view, modified flags, sync)
!> for Fortran, over the C ABI with iso_c_binding.
!>
!>   type(dualview_t) :: a
!>   real(real64), pointer :: p(:,:)
!>   call a%create("T", DV_DTYPE_FLOAT64, [nx, ny])      ! LayoutLeft, host space by default
!>   call a%host(p)                                      ! sync if stale, mark the host modified
!>   p(1, :) = 100
!>   call a%sync_device()
!>   call a%destroy()
!>
!> Every procedure takes optional stat and errmsg; without stat a failure
!> stops the program with the library's message (error stop). On failure every
!> result and intent(out) argument is still defined: 0, .false., "", a null pointer.
module dualview
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: real32, real64, int8, int16, int32, int64
  implicit none
  private

  public :: dualview_t, {public_structs}
  public :: dv_last_error_message, dv_status_str, dv_dtype_str, dv_space_info, cuda_available, &
            dv_fence, dv_version, dv_handle_count

  ! ---- Constants: every numeric #define DV_* and every dv_status_t code of dualview.h ----
{constants}
  ! ---- The structs of dualview.h the module passes (bind(c), field by field) ----
{types}
  !> A DualView handle. `b = a` gives b its own handle on a's DualView (like a
  !> Kokkos copy; elemental, so `arr = a` works too). destroy is idempotent and
  !> also runs from the (elemental) finalizer.
  !>
  !> Copies the language makes without calling the assignment (allocate(x, source=a),
  !> copy-in of a dummy argument) share the handle: create and wrap record the object's
  !> address, and destroy or finalization of a copy at another address only detaches the
  !> copy (its handle becomes null) without releasing the original's handle.
  type :: dualview_t
    private
    type(c_ptr) :: h = c_null_ptr       ! the C handle; c_null_ptr when none
    type(c_ptr) :: owner = c_null_ptr   ! c_loc of the object that owns h (c_null_ptr: not recorded)
    integer :: state = 0                ! 0 never created, 1 holds a handle, 2 destroyed
  contains
    procedure, private :: dv_f_create_i32, dv_f_create_i64
    generic :: create => dv_f_create_i32, dv_f_create_i64
    procedure :: destroy => dv_f_destroy
    procedure :: is_valid => dv_f_is_valid
    procedure :: modify_host => dv_f_modify_host
    procedure :: modify_device => dv_f_modify_device
    procedure :: sync_host => dv_f_sync_host
    procedure :: sync_device => dv_f_sync_device
    procedure :: need_sync_host => dv_f_need_sync_host
    procedure :: need_sync_device => dv_f_need_sync_device
    procedure :: clear_sync_state => dv_f_clear_sync_state
    procedure, private :: dv_f_resize_i32, dv_f_resize_i64
    generic :: resize => dv_f_resize_i32, dv_f_resize_i64
    procedure, private :: dv_f_realloc_i32, dv_f_realloc_i64
    generic :: realloc => dv_f_realloc_i32, dv_f_realloc_i64
    procedure, private :: dv_f_extent_i32, dv_f_extent_i64
    generic :: extent => dv_f_extent_i32, dv_f_extent_i64
    procedure :: rank => dv_f_rank
    procedure :: label => dv_f_label
    procedure :: view_label => dv_f_view_label
    procedure :: info => dv_f_info
    procedure :: device_ptr => dv_f_device_ptr
{host_procs}
{host_generic}
{wrap_procs}
{wrap_generic}
    procedure, private :: dv_f_assign
    generic :: assignment(=) => dv_f_assign
    final :: dv_f_final
  end type

  ! ---- The C functions (prototypes of dualview.h) ----
  interface
{interfaces}
    function c_strlen(s) bind(c, name="strlen") result(n)
      import
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function
  end interface

  !> Decimal text of an integer (for messages).
  interface str
    module procedure str_i32, str_i64
  end interface

contains
'''

COMMON = r'''
  ! ---- Messages ---------------------------------------------------------------------------

  !> The message of the last failed call on this thread.
  function dv_last_error_message() result(msg)
    character(len=:), allocatable :: msg
    call last_error(msg)
  end function

  subroutine last_error(msg)
    character(len=:), allocatable, intent(out) :: msg
    character(kind=c_char), allocatable, target :: buf(:)
    integer(c_size_t) :: n, full, i
    allocate(buf(1024))
    full = 0
    n = c_dv_last_error_copy(c_loc(buf), size(buf, kind=c_size_t), full)
    if (full >= size(buf, kind=c_size_t)) then
      deallocate(buf)
      allocate(buf(full + 1))
      n = c_dv_last_error_copy(c_loc(buf), size(buf, kind=c_size_t), full)
    end if
    allocate(character(len=n) :: msg)
    do i = 1, n
      msg(i:i) = buf(i)
    end do
  end subroutine

  !> The library's message for status st of a call on self (when given); explains a
  !> dead handle held by a raw copy.
  function c_message(st, self) result(msg)
    integer(c_int), intent(in) :: st
    type(dualview_t), intent(in), optional :: self
    character(len=:), allocatable :: msg
    call last_error(msg)
    if (present(self)) then
      if (st == DV_ERROR_INVALID_HANDLE .and. borrowed(self)) &
        msg = msg // " (this dualview_t is a copy made without assignment, e.g. by allocate(x, source=a)," &
              // " and its original has been destroyed; x = a gives x a handle of its own)"
    end if
  end function

  !> Report a C status into stat, or error stop with the library's message when
  !> stat is absent. Returns the message ("" for DV_OK) for errmsg, which each
  !> public procedure assigns itself (gfortran 12 loses the length of an
  !> optional deferred-length dummy passed on to another procedure).
  subroutine report(st, stat, msg, self)
    integer(c_int), intent(in) :: st
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out) :: msg
    type(dualview_t), intent(in), optional :: self
    if (present(stat)) stat = int(st)
    if (st == DV_OK) then
      msg = ""
      return
    end if
    msg = c_message(st, self)
    if (.not. present(stat)) error stop "dualview: " // msg
  end subroutine

  !> Report a status with its own message (Fortran-side checks); returns the message.
  subroutine fail(code, message, stat, msg)
    integer(c_int), intent(in) :: code
    character(len=*), intent(in) :: message
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out) :: msg
    if (present(stat)) stat = int(code)
    msg = message
    if (code /= DV_OK .and. .not. present(stat)) error stop "dualview: " // message
  end subroutine

  !> Whether self holds a handle; otherwise reports DV_ERROR_INVALID_HANDLE saying why.
  logical function live(self, where, stat, msg)
    type(dualview_t), intent(in) :: self
    character(len=*), intent(in) :: where
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out) :: msg
    live = c_associated(self%h)
    if (live) then
      msg = ""
      if (present(stat)) stat = DV_OK
    else if (self%state == 0) then
      call fail(DV_ERROR_INVALID_HANDLE, where // ": this dualview_t has not been created (call create or wrap first)", &
                stat, msg)
    else
      call fail(DV_ERROR_INVALID_HANDLE, where // ": this dualview_t has been destroyed", stat, msg)
    end if
  end function

  function str_i64(i) result(s)
    integer(int64), intent(in) :: i
    character(len=:), allocatable :: s
    character(len=20) :: buf
    integer(int64) :: v
    integer :: k
    v = abs(i)
    k = len(buf) + 1
    do
      k = k - 1
      buf(k:k) = achar(iachar("0") + int(mod(v, 10_int64)))
      v = v / 10
      if (v == 0) exit
    end do
    s = buf(k:)
    if (i < 0) s = "-" // s
  end function

  function str_i32(i) result(s)
    integer(int32), intent(in) :: i
    character(len=:), allocatable :: s
    s = str_i64(int(i, int64))
  end function

  ! ---- C strings ----------------------------------------------------------------------------

  !> s without trailing blanks, NUL-terminated, in a C char array.
  subroutine to_c(s, c)
    character(len=*), intent(in) :: s
    character(kind=c_char), allocatable, target, intent(out) :: c(:)
    integer :: i
    allocate(c(len_trim(s) + 1))
    do i = 1, len_trim(s)
      c(i) = s(i:i)
    end do
    c(len_trim(s) + 1) = c_null_char
  end subroutine

  !> The NUL-terminated C string at p ("" for a null pointer).
  function from_c(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: a(:)
    integer(c_size_t) :: n, i
    if (.not. c_associated(p)) then
      s = ""
      return
    end if
    n = c_strlen(p)
    call c_f_pointer(p, a, [n])
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = a(i)
    end do
  end function

  ! ---- Library-wide queries -------------------------------------------------------------------

  !> The text of a status code, "DV_ERROR_STALE: ..." ("unknown status" for other values).
  function dv_status_str(code) result(s)
    integer, intent(in) :: code
    character(len=:), allocatable :: s
    s = from_c(c_dv_status_str(int(code, c_int32_t)))
  end function

  !> The name of element type dtype (DV_DTYPE_*) with its C and Fortran spellings,
  !> e.g. "float64 (double, real64)"; "unknown dtype" for other values.
  function dv_dtype_str(dtype) result(s)
    integer(c_int32_t), intent(in) :: dtype
    character(len=:), allocatable :: s
    s = from_c(c_dv_dtype_str(dtype))
  end function

  !> The library version, "MAJOR.MINOR.PATCH".
  function dv_version() result(s)
    character(len=:), allocatable :: s
    s = from_c(c_dv_version())
  end function

  !> What memory space `space` (DV_SPACE_*) means for DualViews: host_accessible,
  !> needs_mirror, unified, is_device, default_layout, host_side. All .false./0 on failure.
  function dv_space_info(space, stat, errmsg) result(info)
    integer(c_int32_t), intent(in) :: space
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    type(dv_space_info_t) :: info
    character(len=:), allocatable :: m_
    type(dv_space_info_t) :: out
    integer(c_int) :: st
    st = c_dv_space_info(space, out)
    if (st == DV_OK) info = out
    call report(st, stat, m_)
    if (present(errmsg)) errmsg = m_
  end function

  !> Whether a CUDA driver with at least one device is usable (.false. on failure).
  logical function cuda_available(stat, errmsg)
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    logical(c_bool) :: b
    integer(c_int) :: st
    cuda_available = .false.
    b = .false.
    st = c_dv_cuda_available(b)
    if (st == DV_OK) cuda_available = logical(b)
    call report(st, stat, m_)
    if (present(errmsg)) errmsg = m_
  end function

  !> Wait for all outstanding work of device `ordinal` (default 0) in `space` (host
  !> spaces return at once): Kokkos fence(), for the caller's own kernels.
  subroutine dv_fence(space, ordinal, name, stat, errmsg)
    integer(c_int32_t), intent(in) :: space
    integer(c_int32_t), intent(in), optional :: ordinal
    character(len=*), intent(in), optional :: name
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    character(kind=c_char), allocatable, target :: cname(:)
    type(c_ptr) :: pname
    integer(c_int32_t) :: o
    o = 0
    if (present(ordinal)) o = ordinal
    pname = c_null_ptr
    if (present(name)) then
      call to_c(name, cname)
      pname = c_loc(cname)
    end if
    call report(c_dv_fence(space, o, pname), stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> How many DualView handles are live in the process (for leak checks; 0 on failure).
  function dv_handle_count(stat, errmsg) result(n)
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    integer(int64) :: n
    character(len=:), allocatable :: m_
    integer(c_size_t) :: c
    integer(c_int) :: st
    n = 0
    c = 0
    st = c_dv_handle_count(c)
    if (st == DV_OK) n = int(c, int64)
    call report(st, stat, m_)
    if (present(errmsg)) errmsg = m_
  end function

  ! ---- Ownership ------------------------------------------------------------------------------
  ! Fortran copies objects without asking (allocate(x, source=a), copy-in/copy-out,
  ! temporaries), so a handle is released only by the object that owns it:
  ! - create and wrap record the object's own address (c_loc) as the owner: a raw copy
  !   (another address) is borrowed, and destroy or finalization of it only detaches it;
  ! - assignment into an empty object leaves the owner unrecorded (c_null_ptr): the
  !   compiler may assign through a temporary copy of the left side (gfortran does for a
  !   derived type with a dualview_t component) whose address means nothing afterwards,
  !   so any holder of such a handle releases it;
  ! - assignment into an object that holds a handle keeps the recorded owner (the place
  !   a temporary copy of the left side is copied back to).

  !> The address of x (its identity for ownership).
  function addr_of(x) result(p)
    type(dualview_t), target, intent(in) :: x
    type(c_ptr) :: p
    p = c_loc(x)
  end function

  !> Whether self got its handle from create or wrap at its own address.
  logical function owns(self)
    type(dualview_t), intent(in) :: self
    owns = c_associated(self%h) .and. c_associated(self%owner, addr_of(self))
  end function

  !> Whether self is a raw copy of an object that owns the handle elsewhere.
  logical function borrowed(self)
    type(dualview_t), intent(in) :: self
    borrowed = c_associated(self%h) .and. c_associated(self%owner) .and. .not. owns(self)
  end function

  !> Give up self's handle: dv_destroy unless self is borrowed, which is only detached.
  subroutine release(self, st)
    type(dualview_t), intent(inout) :: self
    integer(c_int), intent(out), optional :: st
    integer(c_int) :: s
    s = DV_OK
    if (c_associated(self%h) .and. .not. borrowed(self)) s = c_dv_destroy(self%h)
    if (present(st)) st = s
    if (c_associated(self%h)) self%state = 2
    self%h = c_null_ptr
    self%owner = c_null_ptr
  end subroutine

  !> Make h self's handle, owned at address owner (c_null_ptr: unrecorded), after
  !> releasing the old one.
  subroutine adopt(self, h, owner)
    type(dualview_t), intent(inout) :: self
    type(c_ptr), intent(in) :: h, owner
    call release(self)
    self%h = h
    self%owner = owner
    self%state = 1
  end subroutine

  ! ---- Life cycle -----------------------------------------------------------------------------

  !> Check extents given by the caller (before C sees them as unsigned).
  logical function shape_ok(where, shape_, stat, msg) result(ok)
    character(len=*), intent(in) :: where
    integer(int64), intent(in) :: shape_(:)
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out) :: msg
    integer :: i
    ok = .false.
    if (size(shape_) > DV_MAX_RANK) then
      call fail(DV_ERROR_RANK, where // ": " // str(size(shape_)) // " extents given, but the rank is at most " &
                // str(DV_MAX_RANK) // " (DV_MAX_RANK)", stat, msg)
      return
    end if
    do i = 1, size(shape_)
      if (shape_(i) < 0) then
        call fail(DV_ERROR_INVALID_ARGUMENT, where // ": extent " // str(shape_(i)) // " of dim " // str(i) &
                  // " is negative (extents are sizes: 0 or more)", stat, msg)
        return
      end if
    end do
    ok = .true.
    msg = ""
  end function

  function to_extents(shape_) result(e)
    integer(int64), intent(in) :: shape_(:)
    type(dv_extents_t) :: e
    e%rank = int(size(shape_), c_int32_t)
    e%extent = 1
    e%extent(1:size(shape_)) = int(shape_, c_int64_t)
  end function

  !> Allocate a DualView: dtype DV_DTYPE_*, extents in Fortran order (default or
  !> 64-bit integers), layout (default DV_LAYOUT_LEFT), device space (default
  !> DV_SPACE_HOST: one allocation), ordinal, flags (DV_FLAG_*). On failure self is unchanged.
  subroutine dv_f_create_i64(self, label, dtype, shape_, layout, space, ordinal, flags, stat, errmsg)
    class(dualview_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(c_int32_t), intent(in) :: dtype
    integer(int64), intent(in) :: shape_(:)
    integer(c_int32_t), intent(in), optional :: layout, space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    character(kind=c_char), allocatable, target :: lab(:)
    type(dv_desc_t) :: d
    type(c_ptr) :: h
    integer(c_int) :: st
    if (shape_ok("dualview_t%create", shape_, stat, m_)) then
      d%dtype = dtype
      d%layout = DV_LAYOUT_LEFT
      if (present(layout)) d%layout = layout
      d%space = DV_SPACE_HOST
      if (present(space)) d%space = space
      if (present(ordinal)) d%ordinal = ordinal
      if (present(flags)) d%flags = flags
      d%extents = to_extents(shape_)
      call to_c(label, lab)
      h = c_null_ptr
      st = c_dv_create(c_loc(lab), d, h)
      if (st == DV_OK) call adopt(self, h, addr_of(self))
      call report(st, stat, m_)
    end if
    if (present(errmsg)) errmsg = m_
  end subroutine

  subroutine dv_f_create_i32(self, label, dtype, shape_, layout, space, ordinal, flags, stat, errmsg)
    class(dualview_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(c_int32_t), intent(in) :: dtype
    integer(int32), intent(in) :: shape_(:)
    integer(c_int32_t), intent(in), optional :: layout, space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    call dv_f_create_i64(self, label, dtype, int(shape_, int64), layout, space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Release this handle (idempotent; the memory goes with the last handle). A raw
  !> copy (allocate(source=)) is only detached.
  subroutine dv_f_destroy(self, stat, errmsg)
    class(dualview_t), intent(inout) :: self
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    integer(c_int) :: st
    call release(self, st)
    call report(st, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  impure elemental subroutine dv_f_final(self)
    type(dualview_t), intent(inout) :: self
    call release(self)
  end subroutine

  !> a = b: a gets its own handle on b's DualView (dv_clone); a's old handle is
  !> released. Elemental: arr = b gives every element its own handle.
  impure elemental subroutine dv_f_assign(lhs, rhs)
    class(dualview_t), intent(inout) :: lhs
    class(dualview_t), intent(in) :: rhs
    type(c_ptr) :: h, owner
    integer(c_int) :: st
    integer :: state
    h = c_null_ptr
    state = rhs%state
    if (c_associated(rhs%h)) then
      st = c_dv_clone(rhs%h, h)
      if (st /= DV_OK) error stop "dualview: dualview_t assignment: " // c_message(st, rhs)
    end if
    owner = c_null_ptr
    if (c_associated(lhs%h)) then
      if (c_associated(lhs%h, rhs%h) .and. borrowed(lhs)) then
        ! x = a on a raw copy of a (allocate(x, source=a)): a keeps its handle.
        lhs%h = c_null_ptr
      else
        ! The old handle goes; the recorded owner stays (a compiler temporary of the
        ! left side is copied back there).
        owner = lhs%owner
        st = c_dv_destroy(lhs%h)
        lhs%h = c_null_ptr
      end if
    end if
    if (c_associated(h)) then
      call adopt(lhs, h, owner)
    else
      call release(lhs)
      lhs%state = state
    end if
  end subroutine

  !> Whether this object holds a handle (created, wrapped or assigned, and not destroyed).
  logical function dv_f_is_valid(self)
    class(dualview_t), intent(in) :: self
    dv_f_is_valid = c_associated(self%h)
  end function

  ! ---- Shape ------------------------------------------------------------------------------------

  !> The size of dimension dim (1-based, Fortran order); 0 on failure.
  function dv_f_extent_i64(self, dim, stat, errmsg) result(n)
    class(dualview_t), intent(in) :: self
    integer(int64), intent(in) :: dim
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    integer(int64) :: n
    character(len=:), allocatable :: m_
    integer(c_int32_t) :: r
    integer(c_int64_t) :: e
    integer(c_int) :: st
    n = 0
    body: block
      if (.not. live(self, "dualview_t%extent", stat, m_)) exit body
      r = 0
      st = c_dv_rank(self%h, r)
      if (st /= DV_OK) then
        call report(st, stat, m_, self)
        exit body
      end if
      if (dim < 1 .or. dim > r) then
        if (r == 0) then
          call fail(DV_ERROR_OUT_OF_RANGE, "dualview_t%extent: dim " // str(dim) &
                    // " is out of range: this DualView has rank 0 (no dims)", stat, m_)
        else
          call fail(DV_ERROR_OUT_OF_RANGE, "dualview_t%extent: dim " // str(dim) // " is out of range: this DualView has rank " &
                    // str(r) // ", so dim is 1 to " // str(r), stat, m_)
        end if
        exit body
      end if
      e = 0
      st = c_dv_extent(self%h, int(dim - 1, c_int32_t), e)
      if (st == DV_OK) n = e
      call report(st, stat, m_, self)
    end block body
    if (present(errmsg)) errmsg = m_
  end function

  function dv_f_extent_i32(self, dim, stat, errmsg) result(n)
    class(dualview_t), intent(in) :: self
    integer(int32), intent(in) :: dim
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    integer(int64) :: n
    character(len=:), allocatable :: m_
    n = dv_f_extent_i64(self, int(dim, int64), stat, m_)
    if (present(errmsg)) errmsg = m_
  end function

  !> The rank (number of dims); 0 on failure.
  integer function dv_f_rank(self, stat, errmsg) result(r)
    class(dualview_t), intent(in) :: self
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    integer(c_int32_t) :: cr
    integer(c_int) :: st
    r = 0
    if (live(self, "dualview_t%rank", stat, m_)) then
      cr = 0
      st = c_dv_rank(self%h, cr)
      if (st == DV_OK) r = int(cr)
      call report(st, stat, m_, self)
    end if
    if (present(errmsg)) errmsg = m_
  end function

  !> What the handle is (dv_info_t: bits DV_INFO_*, dtype, host_space, device_space,
  !> ordinal, rank, elem_size, use_count); all 0 on failure.
  function dv_f_info(self, stat, errmsg) result(info)
    class(dualview_t), intent(in) :: self
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    type(dv_info_t) :: info
    character(len=:), allocatable :: m_
    type(dv_info_t) :: out
    integer(c_int) :: st
    if (live(self, "dualview_t%info", stat, m_)) then
      st = c_dv_info(self%h, out)
      if (st == DV_OK) info = out
      call report(st, stat, m_, self)
    end if
    if (present(errmsg)) errmsg = m_
  end function

  !> The label given to create or wrap ("" on failure).
  function dv_f_label(self, stat, errmsg) result(label)
    class(dualview_t), intent(in) :: self
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: label
    character(len=:), allocatable :: m_
    integer(c_int) :: st
    label = ""
    if (live(self, "dualview_t%label", stat, m_)) then
      call get_label(self, -1_c_int32_t, label, st)
      call report(st, stat, m_, self)
    end if
    if (present(errmsg)) errmsg = m_
  end function

  !> The label of one side's view (DV_SIDE_HOST or DV_SIDE_DEVICE): label // "_mirror"
  !> for a separate host mirror, as Kokkos names it ("" on failure).
  function dv_f_view_label(self, side, stat, errmsg) result(label)
    class(dualview_t), intent(in) :: self
    integer(c_int32_t), intent(in) :: side
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: label
    character(len=:), allocatable :: m_
    integer(c_int) :: st
    label = ""
    if (side < 0) then
      call fail(DV_ERROR_INVALID_ARGUMENT, "dualview_t%view_label: side " // str(side) &
                // " is neither DV_SIDE_HOST nor DV_SIDE_DEVICE", stat, m_)
    else if (live(self, "dualview_t%view_label", stat, m_)) then
      call get_label(self, side, label, st)
      call report(st, stat, m_, self)
    end if
    if (present(errmsg)) errmsg = m_
  end function

  !> The label (side < 0) or one side's view label: asks C for the length, then the text.
  subroutine get_label(self, side, s, st)
    type(dualview_t), intent(in) :: self
    integer(c_int32_t), intent(in) :: side
    character(len=:), allocatable, intent(out) :: s
    integer(c_int), intent(out) :: st
    character(kind=c_char), allocatable, target :: buf(:)
    integer(c_size_t) :: n, i
    n = 0
    if (side < 0) then
      st = c_dv_label(self%h, c_null_ptr, 0_c_size_t, n)
    else
      st = c_dv_view_label(self%h, side, c_null_ptr, 0_c_size_t, n)
    end if
    if (st == DV_OK) then
      allocate(buf(n + 1))
      if (side < 0) then
        st = c_dv_label(self%h, c_loc(buf), size(buf, kind=c_size_t), n)
      else
        st = c_dv_view_label(self%h, side, c_loc(buf), size(buf, kind=c_size_t), n)
      end if
    end if
    if (st /= DV_OK) then
      s = ""
      return
    end if
    n = min(n, size(buf, kind=c_size_t) - 1)
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = buf(i)
    end do
  end subroutine

  !> The device data pointer, for OpenACC deviceptr or CUDA Fortran (c_null_ptr on failure).
  !> mode: DV_ACCESS_READ, _WRITE or _READ_WRITE (default): syncs and marks like dv_device_access.
  function dv_f_device_ptr(self, mode, stat, errmsg) result(p)
    class(dualview_t), intent(in) :: self
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    type(c_ptr) :: p
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(c_int32_t) :: m
    integer(c_int) :: st
    p = c_null_ptr
    if (live(self, "dualview_t%device_ptr", stat, m_)) then
      m = DV_ACCESS_READ_WRITE
      if (present(mode)) m = mode
      cp = c_null_ptr
      st = c_dv_device_access(self%h, m, cp)
      if (st == DV_OK) p = cp
      call report(st, stat, m_, self)
    end if
    if (present(errmsg)) errmsg = m_
  end function

  ! ---- Typed access ---------------------------------------------------------------------------

  !> Check that the DualView can be seen as a Fortran array of `dtype` (Fortran type
  !> tname) and `rank_`, and get its host pointer: code DV_OK, or the status and
  !> message of the refusal.
  subroutine host_access(self, dtype, tname, rank_, mode, p, shp, code, message)
    type(dualview_t), intent(in) :: self
    integer(c_int32_t), intent(in) :: dtype
    character(len=*), intent(in) :: tname
    integer, intent(in) :: rank_
    integer(c_int32_t), intent(in), optional :: mode
    type(c_ptr), intent(out) :: p
    integer(int64), intent(out) :: shp(:)
    integer(c_int), intent(out) :: code
    character(len=:), allocatable, intent(out) :: message
    type(dv_desc_t) :: d
    integer(c_int32_t) :: m
    p = c_null_ptr
    shp = 0
    message = ""
    code = c_dv_desc_of(self%h, d)
    if (code /= DV_OK) then
      message = c_message(code, self)
      return
    end if
    if (d%layout /= DV_LAYOUT_LEFT) then
      code = DV_ERROR_INCOMPATIBLE
      message = "dualview_t%host: only LayoutLeft DualViews map onto Fortran arrays (this one is LayoutRight or strided)"
      return
    end if
    if (d%dtype /= dtype) then
      code = DV_ERROR_INCOMPATIBLE
      message = "dualview_t%host: the pointer is " // tname // " but the DualView holds " // dv_dtype_str(d%dtype) &
                // ": use a pointer of that type"
      return
    end if
    if (d%extents%rank /= rank_) then
      code = DV_ERROR_RANK_MISMATCH
      message = "dualview_t%host: the pointer has rank " // str(rank_) // " but the DualView has rank " &
                // str(d%extents%rank)
      return
    end if
    m = DV_ACCESS_READ_WRITE
    if (present(mode)) m = mode
    code = c_dv_host_access(self%h, m, p)
    if (code /= DV_OK) then
      p = c_null_ptr
      message = c_message(code, self)
      return
    end if
    shp = int(d%extents%extent(1:rank_), int64)
  end subroutine

  !> Wrap caller-owned contiguous memory (never freed by dualview, never resized); returns the status.
  function wrap_any(self, label, dtype, addr, shp) result(st)
    type(dualview_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(c_int32_t), intent(in) :: dtype
    type(c_ptr), intent(in) :: addr
    integer(int64), intent(in) :: shp(:)
    integer(c_int) :: st
    character(kind=c_char), allocatable, target :: lab(:)
    type(dv_desc_t) :: d
    type(c_ptr) :: h
    d%dtype = dtype
    d%layout = DV_LAYOUT_LEFT
    d%space = DV_SPACE_HOST
    d%extents = to_extents(shp)
    call to_c(label, lab)
    h = c_null_ptr
    st = c_dv_wrap(c_loc(lab), d, addr, c_null_ptr, h)
    if (st == DV_OK) call adopt(self, h, addr_of(self))
  end function
'''

# Procedures of one shape: (Fortran name, C function, doc).
FLAG_OPS = [("modify_host", "dv_modify_host", "Mark the host side modified (refused while the device holds unsynced changes)."),
            ("modify_device", "dv_modify_device", "Mark the device side modified (refused while the host holds unsynced changes)."),
            ("sync_host", "dv_sync_host", "Bring the host up to date: copy from the device when the device is newer."),
            ("sync_device", "dv_sync_device", "Bring the device up to date: copy from the host when the host is newer."),
            ("clear_sync_state", "dv_clear_sync_state", "Forget both sides' pending changes, without copying.")]
QUERIES = [("need_sync_host", "dv_need_sync_host", "Whether the host is stale (the device is newer); .false. on failure."),
           ("need_sync_device", "dv_need_sync_device", "Whether the device is stale (the host is newer); .false. on failure.")]
RESHAPES = [("resize", "dv_resize", "New extents keeping the contents of both sides (Fortran order, default or 64-bit integers)."),
            ("realloc", "dv_realloc", "New zero-filled extents (default or 64-bit integers); contents dropped, flags clean.")]

flag_tpl = '''
  !> {doc}
  subroutine dv_f_{name}(self, stat, errmsg)
    class(dualview_t), intent(in) :: self
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%{name}", stat, m_)) call report(c_{cname}(self%h), stat, m_, self)
    if (present(errmsg)) errmsg = m_
  end subroutine
'''

query_tpl = '''
  !> {doc}
  logical function dv_f_{name}(self, stat, errmsg) result(r)
    class(dualview_t), intent(in) :: self
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    logical(c_bool) :: b
    integer(c_int) :: st
    r = .false.
    if (live(self, "dualview_t%{name}", stat, m_)) then
      b = .false.
      st = c_{cname}(self%h, b)
      if (st == DV_OK) r = logical(b)
      call report(st, stat, m_, self)
    end if
    if (present(errmsg)) errmsg = m_
  end function
'''

reshape_tpl = '''
  !> {doc}
  subroutine dv_f_{name}_i64(self, shape_, stat, errmsg)
    class(dualview_t), intent(in) :: self
    integer(int64), intent(in) :: shape_(:)
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%{name}", stat, m_)) then
      if (shape_ok("dualview_t%{name}", shape_, stat, m_)) call report(c_{cname}(self%h, to_extents(shape_)), stat, m_, self)
    end if
    if (present(errmsg)) errmsg = m_
  end subroutine

  subroutine dv_f_{name}_i32(self, shape_, stat, errmsg)
    class(dualview_t), intent(in) :: self
    integer(int32), intent(in) :: shape_(:)
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    call dv_f_{name}_i64(self, int(shape_, int64), stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine
'''

host_tpl = '''
  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_{k}_{r}(self, p, mode, stat, errmsg)
    class(dualview_t), intent(in) :: self
    {t}, pointer, intent(out) :: p({d})
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp({r})
    integer(c_int) :: code
    character(len=:), allocatable :: message
    nullify(p)
    if (live(self, "dualview_t%host", stat, m_)) then
      call host_access(self, {dt}, "{t}", {r}, mode, cp, shp, code, message)
      if (code == DV_OK) call c_f_pointer(cp, p, shp)
      call fail(code, message, stat, m_)
    end if
    if (present(errmsg)) errmsg = m_
  end subroutine
'''

wrap_tpl = '''
  !> A DualView over this existing contiguous array, without copying (unmanaged, one
  !> host space). A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_{k}_{r}(self, label, array, stat, errmsg)
    class(dualview_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    {t}, target, intent(inout) :: array({d})
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    if (.not. is_contiguous(array)) then
      call fail(DV_ERROR_INVALID_ARGUMENT, "dualview_t%wrap: the array is not contiguous (a strided section such as " &
                // "u(1:n:2,:)?): a DualView needs contiguous column-major memory; wrap the whole array, or a " &
                // "contiguous copy", stat, m_)
    else
      call report(wrap_any(self, label, {dt}, c_loc(array), shape(array, kind=int64)), stat, m_)
    end if
    if (present(errmsg)) errmsg = m_
  end subroutine
'''


def generate(hdr):
    for _, _, dt in KINDS:
        hdr.value(dt)
    missing = [f for f in C_FUNCTIONS if f not in hdr.functions]
    if missing:
        sys.exit(f"gen-fortran: {hdr.path.name} does not declare {', '.join(missing)}")
    body = COMMON
    for name, cname, doc in FLAG_OPS:
        body += flag_tpl.format(name=name, cname=cname, doc=doc)
    for name, cname, doc in QUERIES:
        body += query_tpl.format(name=name, cname=cname, doc=doc)
    for name, cname, doc in RESHAPES:
        body += reshape_tpl.format(name=name, cname=cname, doc=doc)
    for k, t, dt in KINDS:
        for r in RANKS:
            body += host_tpl.format(k=k, r=r, t=t, d=dims(r), dt=dt)
            body += wrap_tpl.format(k=k, r=r, t=t, d=dims(r), dt=dt)
    head = HEAD.format(
        public_structs=", ".join(PUBLIC_STRUCTS),
        constants=constants(hdr),
        types=derived_types(hdr),
        interfaces=interfaces(hdr),
        host_procs=listing("procedure, private :: ", names("host"), "    "),
        host_generic=listing("generic :: host => ", names("host"), "    "),
        wrap_procs=listing("procedure, private :: ", names("wrap"), "    "),
        wrap_generic=listing("generic :: wrap => ", names("wrap"), "    "))
    text = head + body + "\nend module dualview\n"
    check(hdr, text)
    return text


def check(hdr, text):
    """Every DV_* name and every bound dv_* function the module mentions is in the header."""
    missing = sorted({m for m in re.findall(r"\bDV_\w+", text) if not m.endswith("_") and m not in hdr.values})
    if missing:
        sys.exit(f"gen-fortran: the module uses names that {hdr.path.name} lacks: {', '.join(missing)}")
    unbound = sorted({m for m in re.findall(r'bind\(c, name="(\w+)"\)', text)
                      if m.startswith("dv_") and m not in hdr.functions})
    if unbound:
        sys.exit(f"gen-fortran: the module binds C functions that {hdr.path.name} lacks: {', '.join(unbound)}")
    long_lines = [i + 1 for i, ln in enumerate(text.splitlines()) if len(ln) > 132]
    if long_lines:
        sys.exit(f"gen-fortran: lines over 132 columns: {long_lines[:10]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--header", type=pathlib.Path, default=HEADER, help="the C header (default: include/dualview.h)")
    ap.add_argument("-o", "--output", type=pathlib.Path, help="write the module here instead of stdout")
    ap.add_argument("--check", action="store_true", help=f"exit 1 when {MODULE.relative_to(ROOT)} differs from the output")
    args = ap.parse_args()
    text = generate(Header(args.header))
    if args.check:
        if not MODULE.exists() or MODULE.read_text() != text:
            sys.exit(f"gen-fortran: {MODULE.relative_to(ROOT)} is stale: run python3 scripts/gen-fortran.py -o "
                     f"{MODULE.relative_to(ROOT)}")
        return
    if args.output:
        args.output.write_text(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
