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
!
! Written by hand, over module dualview_abi (fortran/dualview_abi.f90), which
! scripts/gen-fortran.py generates from include/dualview.h: the DV_* constants, the
! dv_status_t codes, the bind(c) types, the interfaces c_dv_* of the C functions, and
! dualview_typed_t, the abstract parent of dualview_t that carries the typed accessors
! (the generics host and wrap over 8 element types x ranks 1-8, type-bound there because
! a specific binding needs its own type as passed object; the top of dualview_abi.f90
! says more). dualview_t overrides its two deferred bindings, host_untyped and
! wrap_untyped, with the untyped part of host and wrap written here.
!
! This module is public by default, so that it re-exports every constant, status code,
! dv_info_t, dv_space_info_t and dv_stats_t of dualview_abi as the header has them. Every other
! name at module level is named in a private statement below; scripts/gen-fortran.py
! --check (ctest fortran.module_up_to_date) fails when one is missing.
! Fortran 2008 (checked: gfortran 12 -std=f2008).
module dualview
  use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr, c_associated, c_loc, c_f_pointer, c_int, &
      c_int32_t, c_int64_t, c_size_t, c_bool, c_char, c_null_char
  use, intrinsic :: iso_fortran_env, only: int32, int64, error_unit
  use dualview_abi
  implicit none
  public

  ! The API (public by default; named here for the reader).
  public :: dualview_t, dv_info_t, dv_space_info_t, dv_stats_t
  public :: dv_last_error_message, dv_status_str, dv_dtype_str, dv_get_last_error_message, dv_get_status_str, &
            dv_get_dtype_str, dv_get_version, dv_space_info, space_available, &
            space_device_count, cuda_available, dv_fence, dv_version, dv_handle_count, &
            dv_transfer_report_start, dv_transfer_report, dualview_stats, dualview_stats_reset, &
            dualview_initialize

  ! Internal: the intrinsic modules' names, the binding's part of dualview_abi, and the
  ! procedures of this module that are not the API.
  private :: c_ptr, c_null_ptr, c_associated, c_loc, c_f_pointer, c_int, c_int32_t, c_int64_t, c_size_t, &
      c_bool, c_char, c_null_char, int32, int64, error_unit
  private :: dualview_typed_t, dv_extents_t, dv_desc_t, dv_range_t, dv_init_t
  private :: c_dv_last_error_copy, c_dv_create, c_dv_wrap, c_dv_clone, c_dv_destroy, c_dv_mark_result, c_dv_take, &
      c_dv_release, c_dv_initialize, c_dv_modify_host, &
      c_dv_modify_device, c_dv_sync_host, c_dv_sync_device, c_dv_clear_sync_state, c_dv_need_sync_host, &
      c_dv_need_sync_device, c_dv_host_access, c_dv_device_access, c_dv_rank, c_dv_extent, c_dv_info, &
      c_dv_label, c_dv_view_label, c_dv_desc_of, c_dv_resize, c_dv_realloc, c_dv_handle_count, &
      c_dv_space_info, c_dv_space_available, c_dv_space_device_count, c_dv_fence, c_dv_cuda_available, &
      c_dv_dtype_str, c_dv_version, c_dv_status_str, c_dv_report_start, c_dv_report_write, c_dv_stats, &
      c_dv_stats_reset, c_dv_stats_global, c_dv_stats_global_reset, c_dv_last_error_set, c_dv_subview, &
      c_dv_push_host, c_dv_push_device
  private :: c_strlen, str, str_i32, str_i64, str_len, labelled, last_error, c_message, fortran_names, c_words, &
      fortran_call, call_len, call_name, &
      report, fail, &
      die, live, to_c, &
      from_c
  private :: addr_of, owns, borrowed, release, drop_handle, adopt, shape_ok, to_extents, get_label, host_access, wrap_any, &
      advised_calls, advised, next_dv, ident_char, ident_before
  private :: dv_f_create_i32, dv_f_create_i64, dv_f_destroy, dv_f_final, dv_f_assign, dv_f_is_valid, dv_f_as_result, &
      dv_f_modify_host, dv_f_modify_device, dv_f_sync_host, dv_f_sync_device, dv_f_clear_sync_state, &
      dv_f_need_sync_host, dv_f_need_sync_device, dv_f_resize_i32, dv_f_resize_i64, dv_f_realloc_i32, &
      dv_f_realloc_i64, dv_f_extent_i32, dv_f_extent_i64, dv_f_rank, dv_f_label, dv_f_view_label, dv_f_get_label, &
      dv_f_get_view_label, &
      dv_f_info, dv_f_device_ptr, dv_f_host_untyped, dv_f_wrap_untyped, dv_f_stats, dv_f_stats_reset, &
      dv_f_push_host, dv_f_push_device, dv_f_subview_i32, dv_f_subview_i64, subview_of

  !> A DualView handle. `b = a` gives b its own handle on a's DualView (like a
  !> Kokkos copy; elemental, so `arr = a` works too). destroy is idempotent and
  !> also runs from the (elemental) finalizer.
  !>
  !> Copies the language makes without calling the assignment (allocate(x, source=a),
  !> copy-in of a dummy argument) share the handle: create and wrap record the object's
  !> address, and destroy or finalization of a copy at another address only detaches the
  !> copy (its handle becomes null) without releasing the original's handle.
  !>
  !> A function that returns a dualview_t calls as_result on its result last: the
  !> assignment that receives it takes that handle over (no leak, whether or not the
  !> compiler finalizes function results).
  !>
  !> host and wrap come from the parent, dualview_typed_t (dualview_abi).
  type, extends(dualview_typed_t) :: dualview_t
    private
    type(c_ptr) :: h = c_null_ptr       ! the C handle; c_null_ptr when none
    type(c_ptr) :: owner = c_null_ptr   ! c_loc of the object that owns h (c_null_ptr: not recorded)
    integer :: state = 0                ! 0 never created, 1 holds a handle, 2 destroyed
    logical :: took = .false.           ! h was handed over to this object by dv_take (a function result)
  contains
    procedure, private :: dv_f_create_i32, dv_f_create_i64
    generic :: create => dv_f_create_i32, dv_f_create_i64
    procedure :: destroy => dv_f_destroy
    procedure :: is_valid => dv_f_is_valid
    procedure :: as_result => dv_f_as_result
    procedure :: modify_host => dv_f_modify_host
    procedure :: modify_device => dv_f_modify_device
    procedure :: sync_host => dv_f_sync_host
    procedure :: sync_device => dv_f_sync_device
    procedure :: need_sync_host => dv_f_need_sync_host
    procedure :: need_sync_device => dv_f_need_sync_device
    procedure :: clear_sync_state => dv_f_clear_sync_state
    procedure :: push_host => dv_f_push_host
    procedure :: push_device => dv_f_push_device
    procedure, private :: dv_f_subview_i32, dv_f_subview_i64
    generic :: subview => dv_f_subview_i32, dv_f_subview_i64
    procedure, private :: dv_f_resize_i32, dv_f_resize_i64
    generic :: resize => dv_f_resize_i32, dv_f_resize_i64
    procedure, private :: dv_f_realloc_i32, dv_f_realloc_i64
    generic :: realloc => dv_f_realloc_i32, dv_f_realloc_i64
    procedure, private :: dv_f_extent_i32, dv_f_extent_i64
    generic :: extent => dv_f_extent_i32, dv_f_extent_i64
    procedure :: rank => dv_f_rank
    procedure :: label => dv_f_label
    procedure :: view_label => dv_f_view_label
    procedure :: get_label => dv_f_get_label
    procedure :: get_view_label => dv_f_get_view_label
    procedure :: info => dv_f_info
    procedure :: device_ptr => dv_f_device_ptr
    procedure :: stats => dv_f_stats
    procedure :: stats_reset => dv_f_stats_reset
    ! The untyped part of host and wrap (internal: called by the typed procedures).
    procedure :: host_untyped => dv_f_host_untyped
    procedure :: wrap_untyped => dv_f_wrap_untyped
    procedure, private :: dv_f_assign
    generic :: assignment(=) => dv_f_assign
    final :: dv_f_final
  end type

  interface
    function c_strlen(s) bind(c, name="strlen") result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function
  end interface

  !> Decimal text of an integer (for messages).
  interface str
    module procedure str_i32, str_i64
  end interface

contains

  ! ---- Messages ---------------------------------------------------------------------------

  !> The message of the last failed call on this thread.
  function dv_last_error_message() result(msg)
    character(len=:), allocatable :: msg
    call dv_get_last_error_message(msg)
  end function

  !> dv_last_error_message as a subroutine (safe in threads).
  subroutine dv_get_last_error_message(msg)
    character(len=:), allocatable, intent(out) :: msg
    call last_error(msg)
  end subroutine

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
  subroutine c_message(st, msg, self)
    integer(c_int), intent(in) :: st
    character(len=:), allocatable, intent(out) :: msg
    type(dualview_t), intent(in), optional :: self
    character(len=:), allocatable :: c
    call last_error(c)
    call fortran_names(c, msg)
    if (present(self)) then
      if (st == DV_ERROR_INVALID_HANDLE .and. borrowed(self)) &
        msg = msg // " (this dualview_t is a copy made without assignment, e.g. by allocate(x, source=a)," &
              // " and its original has been destroyed; x = a gives x a handle of its own)"
    end if
  end subroutine

  !> The calls a C message advises, as Fortran calls: "Call dv_sync_host()" becomes
  !> "call a%sync_host()", any other "dv_modify_host()" becomes "a%modify_host()".
  subroutine advised_calls(m, r)
    character(len=*), intent(in) :: m
    character(len=:), allocatable, intent(out) :: r
    integer :: p, e
    r = m
    p = index(r, "dv_")
    do while (p > 0)
      e = p + 3
      do while (e <= len(r))
        if (.not. ident_char(r(e:e))) exit
        e = e + 1
      end do
      if (e + 1 <= len(r) .and. .not. ident_before(r, p)) then
        if (r(e:e + 1) == "()" .and. advised(r(p + 3:e - 1))) then
          if (p > 5) then
            if (r(p - 5:p - 1) == "Call " .or. r(p - 5:p - 1) == "call ") then
              r = r(1:p - 6) // "call a%" // r(p + 3:)
              p = p - 5 + len("call a%")
              p = next_dv(r, p)
              cycle
            end if
          end if
          r = r(1:p - 1) // "a%" // r(p + 3:)
        end if
      end if
      p = next_dv(r, p + 1)
    end do
  end subroutine

  !> Whether name is one of the five calls messages advise (DECISIONS C15).
  logical function advised(name)
    character(len=*), intent(in) :: name
    advised = name == "modify_host" .or. name == "modify_device" .or. name == "sync_host" .or. &
              name == "sync_device" .or. name == "clear_sync_state"
  end function

  !> The position of the next "dv_" at or after p (0: none).
  integer function next_dv(r, p) result(q)
    character(len=*), intent(in) :: r
    integer, intent(in) :: p
    q = 0
    if (p > len(r)) return
    q = index(r(p:), "dv_")
    if (q > 0) q = q + p - 1
  end function

  logical function ident_char(c)
    character, intent(in) :: c
    ident_char = (c >= "a" .and. c <= "z") .or. (c >= "A" .and. c <= "Z") .or. (c >= "0" .and. c <= "9") .or. c == "_"
  end function

  !> Whether the character before position p continues an identifier.
  logical function ident_before(r, p)
    character(len=*), intent(in) :: r
    integer, intent(in) :: p
    ident_before = .false.
    if (p > 1) ident_before = ident_char(r(p - 1:p - 1))
  end function

  !> A message of the C library as a Fortran caller reads it: "dv_sync_host: ..." becomes
  !> "dualview_t%sync_host: ...", and checked mode's first changed index counts from 1.
  subroutine fortran_names(m, r)
    character(len=*), intent(in) :: m
    character(len=:), allocatable, intent(out) :: r
    character(len=*), parameter :: key = "First changed index: ("
    character(len=:), allocatable :: out, named
    integer :: a, b, c, k
    integer(int64) :: num
    named = m
    c = index(named, ": ")
    if (c > 4 .and. named(1:3) == "dv_") then
      if (index(named(1:c - 1), " ") == 0) named = fortran_call(named(1:c - 1)) // named(c:)
    end if
    call c_words(named)
    call advised_calls(named, r)
    a = index(r, key)
    if (a == 0) return
    a = a + len(key)
    b = a - 1 + index(r(a:), ")")
    if (b < a) return
    out = r(1:a - 1)
    num = -1
    do k = a, b
      if (r(k:k) >= "0" .and. r(k:k) <= "9") then
        num = max(num, 0_int64) * 10 + (ichar(r(k:k)) - ichar("0"))
      else
        if (num >= 0) out = out // str(num + 1)
        num = -1
        out = out // r(k:k)
      end if
    end do
    r = out // " (Fortran indices, from 1)" // r(b + 1:)
  end subroutine

  !> The Fortran procedure that reached C function `c` (a message's first word):
  !> "dv_sync_host" is "dualview_t%sync_host", "dv_device_access" is
  !> "dualview_t%device_ptr", "dv_space_available" is "space_available".
  pure function fortran_call(c) result(r)
    character(len=*), intent(in) :: c
    character(len=call_len(c)) :: r
    r = call_name(c)
  end function

  !> The length of fortran_call(c) (its result's length, computed by the caller:
  !> no deferred length, docs/FORTRAN.md "Threads").
  pure integer function call_len(c)
    character(len=*), intent(in) :: c
    call_len = len_trim(call_name(c))
  end function

  pure function call_name(c) result(r)
    character(len=*), intent(in) :: c
    character(len=64) :: r
    select case (c)
    case ("dv_device_access")
      r = "dualview_t%device_ptr"
    case ("dv_host_access", "dv_desc_of")
      r = "dualview_t%host"
    case ("dv_space_info", "dv_fence", "dv_handle_count")
      r = c
    case ("dv_space_available", "dv_space_device_count", "dv_cuda_available")
      r = c(4:)
    case ("dv_report_start")
      r = "dv_transfer_report_start"
    case ("dv_report_write")
      r = "dv_transfer_report"
    case ("dv_stats_global")
      r = "dualview_stats"
    case ("dv_stats_global_reset")
      r = "dualview_stats_reset"
    case ("dv_initialize")
      r = "dualview_initialize"
    case default
      r = "dualview_t%" // c(4:)
    end select
  end function

  !> The C library's words for what a Fortran caller wrote: its descriptor's fields
  !> ("argument `desc->extents`") are the arguments of create and wrap ("argument
  !> `shape`"), and a dead handle's address ("handle 0x100000001 is not a live
  !> DualView") is "this dualview_t's handle".
  subroutine c_words(r)
    character(len=:), allocatable, intent(inout) :: r
    integer :: p, e
    p = index(r, "`desc->extents`")
    if (p > 0) r = r(1:p - 1) // "`shape`" // r(p + len("`desc->extents`"):)
    p = index(r, "`desc->")
    do while (p > 0)
      r = r(1:p) // r(p + len("`desc->"):)
      p = index(r, "`desc->")
    end do
    p = index(r, "handle 0x")
    if (p > 0) then
      e = p + len("handle 0x")
      do while (e <= len(r))
        if (index("0123456789abcdefABCDEF", r(e:e)) == 0) exit
        e = e + 1
      end do
      r = r(1:p - 1) // "this dualview_t's handle" // r(e:)
    end if
  end subroutine

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
    call c_message(st, msg, self)
    if (.not. present(stat)) call die(msg)
  end subroutine

  !> Report a status with its own message (Fortran-side checks); returns the message.
  !> A failure also becomes the thread's last error (dv_last_error_set), so that
  !> dv_last_error_message() names it rather than an older failure of the C library.
  subroutine fail(code, message, stat, msg)
    integer(c_int), intent(in) :: code
    character(len=*), intent(in) :: message
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out) :: msg
    character(kind=c_char), allocatable, target :: cmsg(:)
    character(len=:), allocatable :: text
    integer(c_int) :: st
    if (present(stat)) stat = int(code)
    msg = message
    if (code == DV_OK) return
    call to_c(message, cmsg)
    st = c_dv_last_error_set(code, c_loc(cmsg))
    if (st /= DV_OK) then
      call from_c(c_dv_status_str(st), text)
      msg = message // " (and " // text // ")"
    end if
    if (.not. present(stat)) call die(msg)
  end subroutine

  !> Stop the program (error stop) after writing "dualview: " // msg to standard error. (A
  !> stop code that is not a constant, error stop "dualview: " // msg, is Fortran 2018.)
  subroutine die(msg)
    character(len=*), intent(in) :: msg
    write(error_unit, "(a)") "dualview: " // msg
    error stop
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

  ! Their results have a length computed by the caller (str_len), not a deferred
  ! one: gfortran keeps a deferred result length in a static of the calling
  ! procedure, which threads share (docs/FORTRAN.md "Threads").
  function str_i64(i) result(s)
    integer(int64), intent(in) :: i
    character(len=str_len(i)) :: s
    integer(int64) :: v
    integer :: k
    v = i
    k = len(s) + 1
    do
      k = k - 1
      ! mod of a negative value is negative or zero: abs digit by digit (huge negatives too)
      s(k:k) = achar(iachar("0") + int(abs(mod(v, 10_int64))))
      v = v / 10
      if (v == 0) exit
    end do
    if (i < 0) s(1:1) = "-"
  end function

  function str_i32(i) result(s)
    integer(int32), intent(in) :: i
    character(len=str_len(int(i, int64))) :: s
    s = str_i64(int(i, int64))
  end function

  !> The length of i's decimal text.
  pure integer function str_len(i)
    integer(int64), intent(in) :: i
    integer(int64) :: v
    str_len = 1
    v = i / 10
    do while (v /= 0)
      str_len = str_len + 1
      v = v / 10
    end do
    if (i < 0) str_len = str_len + 1
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
  subroutine from_c(p, s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable, intent(out) :: s
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
  end subroutine

  ! ---- Library-wide queries -------------------------------------------------------------------

  ! The functions that return text (dv_status_str, dv_dtype_str, dv_version,
  ! dv_last_error_message, label, view_label) each have a subroutine form (dv_get_*,
  ! get_label, get_view_label) for threads: docs/FORTRAN.md "Threads".

  !> The text of a status code, "DV_ERROR_STALE: ..." ("unknown status" for other values).
  function dv_status_str(code) result(s)
    integer, intent(in) :: code
    character(len=:), allocatable :: s
    call dv_get_status_str(code, s)
  end function

  !> dv_status_str as a subroutine (safe in threads).
  subroutine dv_get_status_str(code, s)
    integer, intent(in) :: code
    character(len=:), allocatable, intent(out) :: s
    call from_c(c_dv_status_str(int(code, c_int32_t)), s)
  end subroutine

  !> The name of element type dtype (DV_DTYPE_*) with its C and Fortran spellings,
  !> e.g. "float64 (double, real64)"; "unknown dtype" for other values.
  function dv_dtype_str(dtype) result(s)
    integer(c_int32_t), intent(in) :: dtype
    character(len=:), allocatable :: s
    call dv_get_dtype_str(dtype, s)
  end function

  !> dv_dtype_str as a subroutine (safe in threads).
  subroutine dv_get_dtype_str(dtype, s)
    integer(c_int32_t), intent(in) :: dtype
    character(len=:), allocatable, intent(out) :: s
    call from_c(c_dv_dtype_str(dtype), s)
  end subroutine

  !> The library version, "MAJOR.MINOR.PATCH".
  function dv_version() result(s)
    character(len=:), allocatable :: s
    call dv_get_version(s)
  end function

  !> dv_version as a subroutine (safe in threads).
  subroutine dv_get_version(s)
    character(len=:), allocatable, intent(out) :: s
    call from_c(c_dv_version(), s)
  end subroutine

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

  !> Whether memory space `space` (DV_SPACE_*) on device `ordinal` (default 0; host
  !> spaces ignore it) can be used here: what dv_create would find (.false. on failure).
  logical function space_available(space, ordinal, stat, errmsg)
    integer(c_int32_t), intent(in) :: space
    integer(c_int32_t), intent(in), optional :: ordinal
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    logical(c_bool) :: b
    integer(c_int32_t) :: o
    integer(c_int) :: st
    o = 0
    if (present(ordinal)) o = ordinal
    space_available = .false.
    b = .false.
    st = c_dv_space_available(space, o, b)
    if (st == DV_OK) space_available = logical(b)
    call report(st, stat, m_)
    if (present(errmsg)) errmsg = m_
  end function

  !> How many devices of memory space `space` (DV_SPACE_*) the process can use: ordinals
  !> 0 to n - 1; a host space counts 1 when usable (0 on failure).
  function space_device_count(space, stat, errmsg) result(n)
    integer(c_int32_t), intent(in) :: space
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    integer(int64) :: n
    character(len=:), allocatable :: m_
    integer(c_size_t) :: c
    integer(c_int) :: st
    n = 0
    c = 0
    st = c_dv_space_device_count(space, c)
    if (st == DV_OK) n = int(c, int64)
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

  !> The transfer report (docs/GPU.md): record every copying sync and resize from now on,
  !> as DV_REPORT does from the start.
  subroutine dv_transfer_report_start(stat, errmsg)
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    call report(c_dv_report_start(), stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Write the transfer report now: the table on stderr, or with `prefix` the files
  !> `<prefix>.<rank>.txt` and `<prefix>.<rank>.csv`.
  subroutine dv_transfer_report(prefix, stat, errmsg)
    character(len=*), intent(in), optional :: prefix
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    character(kind=c_char), allocatable, target :: cprefix(:)
    type(c_ptr) :: p
    p = c_null_ptr
    if (present(prefix)) then
      call to_c(prefix, cprefix)
      p = c_loc(cprefix)
    end if
    call report(c_dv_report_write(p), stat, m_)
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

  !> The process-wide transfer counters of every DualView (dv_stats_t: to_device_count,
  !> to_device_bytes, to_device_ns, and the same to_host_*); all 0 on failure.
  function dualview_stats(stat, errmsg) result(s)
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    type(dv_stats_t) :: s
    character(len=:), allocatable :: m_
    type(dv_stats_t) :: out
    integer(c_int) :: st
    st = c_dv_stats_global(out)
    if (st == DV_OK) s = out
    call report(st, stat, m_)
    if (present(errmsg)) errmsg = m_
  end function

  !> Choose this process's device as Kokkos 4's initialize does (docs/FORTRAN.md, "Which
  !> GPU a process uses"): device_id (an index into the visible devices), else
  !> KOKKOS_DEVICE_ID; else map_device_id_by ("mpi_rank" or "random") or
  !> KOKKOS_MAP_DEVICE_ID_BY; by default the launcher's node-local MPI rank modulo the
  !> visible devices (KOKKOS_VISIBLE_DEVICES, else every device of space, default
  !> DV_SPACE_CUDA). ordinal: the device, for create(ordinal=); 0 when nothing chose
  !> one (mapped = .false.). The command line is not read: pass what it says as arguments.
  subroutine dualview_initialize(ordinal, space, device_id, map_device_id_by, mapped, stat, errmsg)
    integer(c_int32_t), intent(out) :: ordinal
    integer(c_int32_t), intent(in), optional :: space, device_id
    character(len=*), intent(in), optional :: map_device_id_by
    logical, intent(out), optional :: mapped
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    character(kind=c_char), allocatable, target :: by(:)
    type(dv_init_t) :: s
    type(c_ptr) :: argv
    integer(c_int) :: argc, st
    integer(c_int32_t) :: o
    logical(c_bool) :: m
    s%space = DV_SPACE_CUDA
    if (present(space)) s%space = space
    s%device_id = -1
    if (present(device_id)) s%device_id = device_id
    s%map_device_id_by = c_null_ptr
    if (present(map_device_id_by)) then
      call to_c(map_device_id_by, by)
      s%map_device_id_by = c_loc(by)
    end if
    argc = 0
    argv = c_null_ptr
    o = 0
    m = .false.
    st = c_dv_initialize(argc, argv, s, o, m)
    ordinal = o
    if (present(mapped)) mapped = logical(m)
    call report(st, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Zero the process-wide transfer counters (each DualView's own are kept).
  subroutine dualview_stats_reset(stat, errmsg)
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    call report(c_dv_stats_global_reset(), stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

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

  !> Give up self's handle: released unless self is borrowed, which is only detached.
  subroutine release(self, st)
    type(dualview_t), intent(inout) :: self
    integer(c_int), intent(out), optional :: st
    integer(c_int) :: s
    s = DV_OK
    if (c_associated(self%h) .and. .not. borrowed(self)) s = drop_handle(self)
    if (present(st)) st = s
    if (c_associated(self%h)) self%state = 2
    self%h = c_null_ptr
    self%owner = c_null_ptr
    self%took = .false.
  end subroutine

  !> Release self%h: the object that took a function result destroys it; any other
  !> holder releases it unless another object took it over (dv_release: then only
  !> detached, as a compiler's copy of a function result is).
  integer(c_int) function drop_handle(self) result(st)
    type(dualview_t), intent(in) :: self
    logical(c_bool) :: released
    if (self%took) then
      st = c_dv_destroy(self%h)
    else
      st = c_dv_release(self%h, released)
    end if
  end function

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
    logical(c_bool) :: taken
    character(len=:), allocatable :: text
    h = c_null_ptr
    taken = .false.
    state = rhs%state
    if (c_associated(rhs%h)) then
      ! A function's result (as_result) is taken over, anything else cloned.
      st = c_dv_take(rhs%h, h, taken)
      if (st /= DV_OK) then
        call c_message(st, text, rhs)
        call die("dualview_t assignment: " // text)
      end if
    end if
    owner = c_null_ptr
    if (c_associated(lhs%h)) then
      if (c_associated(lhs%h, rhs%h) .and. (borrowed(lhs) .or. taken)) then
        ! x = a on a raw copy of a (allocate(x, source=a)): a keeps its handle;
        ! or x = x on a result: x takes what it holds.
        lhs%h = c_null_ptr
      else
        ! The old handle goes; the recorded owner stays (a compiler temporary of the
        ! left side is copied back there).
        owner = lhs%owner
        st = drop_handle(lhs)
        lhs%h = c_null_ptr
      end if
    end if
    if (c_associated(h)) then
      call adopt(lhs, h, owner)
      lhs%took = logical(taken)
    else
      call release(lhs)
      lhs%state = state
    end if
  end subroutine

  !> Mark this DualView as the result of the function that returns it; call it last
  !> in the function. The assignment that receives the result (u = make_field(n))
  !> takes this handle over instead of making a new one, and the compiler's copies of
  !> the result, finalized or not, release nothing more. A result that is never
  !> assigned is released when the compiler finalizes it (gfortran 13 and later,
  !> ifx); gfortran 12 never does (docs/FORTRAN.md). Elemental.
  impure elemental subroutine dv_f_as_result(self)
    class(dualview_t), intent(inout) :: self
    integer(c_int) :: st
    character(len=:), allocatable :: text
    if (.not. c_associated(self%h)) return
    st = c_dv_mark_result(self%h)
    if (st /= DV_OK) then
      call c_message(st, text)
      call die("dualview_t%as_result: " // text)
    end if
    ! Any holder of a result releases it (the compiler copies it elsewhere), unless taken.
    self%owner = c_null_ptr
    self%took = .false.
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
    call labelled(self, "label", .false., -1_c_int32_t, label, stat, m_)
    if (present(errmsg)) errmsg = m_
  end function

  !> label as a subroutine (safe in threads): call a%get_label(label).
  subroutine dv_f_get_label(self, label, stat, errmsg)
    class(dualview_t), intent(in) :: self
    character(len=:), allocatable, intent(out) :: label
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    call labelled(self, "get_label", .false., -1_c_int32_t, label, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> The label of one side's view (DV_SIDE_HOST or DV_SIDE_DEVICE): label // "_mirror"
  !> for a separate host mirror, as Kokkos names it ("" on failure).
  function dv_f_view_label(self, side, stat, errmsg) result(label)
    class(dualview_t), intent(in) :: self
    integer(c_int32_t), intent(in) :: side
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: label
    character(len=:), allocatable :: m_
    call labelled(self, "view_label", .true., side, label, stat, m_)
    if (present(errmsg)) errmsg = m_
  end function

  !> view_label as a subroutine (safe in threads): call a%get_view_label(side, label).
  subroutine dv_f_get_view_label(self, side, label, stat, errmsg)
    class(dualview_t), intent(in) :: self
    integer(c_int32_t), intent(in) :: side
    character(len=:), allocatable, intent(out) :: label
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    call labelled(self, "get_view_label", .true., side, label, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> The label, or with `view` side `side`'s view label, for the procedure named
  !> `name`: the label, the status in stat and its message in msg.
  subroutine labelled(self, name, view, side, label, stat, msg)
    class(dualview_t), intent(in) :: self
    character(len=*), intent(in) :: name
    logical, intent(in) :: view
    integer(c_int32_t), intent(in) :: side
    character(len=:), allocatable, intent(out) :: label
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out) :: msg
    integer(c_int) :: st
    label = ""
    if (view .and. side < 0) then
      call fail(DV_ERROR_INVALID_ARGUMENT, "dualview_t%" // name // ": side " // str(side) &
                // " is neither DV_SIDE_HOST nor DV_SIDE_DEVICE", stat, msg)
    else if (live(self, "dualview_t%" // name, stat, msg)) then
      call get_label(self, side, label, st)
      call report(st, stat, msg, self)
    end if
  end subroutine

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

  !> The transfer counters of this DualView, of all its handles (dv_stats_t: syncs that
  !> copied, bytes and nanoseconds, each way); all 0 on failure.
  function dv_f_stats(self, stat, errmsg) result(s)
    class(dualview_t), intent(in) :: self
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    type(dv_stats_t) :: s
    character(len=:), allocatable :: m_
    type(dv_stats_t) :: out
    integer(c_int) :: st
    if (live(self, "dualview_t%stats", stat, m_)) then
      st = c_dv_stats(self%h, out)
      if (st == DV_OK) s = out
      call report(st, stat, m_, self)
    end if
    if (present(errmsg)) errmsg = m_
  end function

  !> Zero the transfer counters of this DualView (the process-wide ones are kept).
  subroutine dv_f_stats_reset(self, stat, errmsg)
    class(dualview_t), intent(in) :: self
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%stats_reset", stat, m_)) call report(c_dv_stats_reset(self%h), stat, m_, self)
    if (present(errmsg)) errmsg = m_
  end subroutine

  ! ---- Flags and sync ---------------------------------------------------------------------------

  !> Mark the host side modified (refused while the device holds unsynced changes).
  subroutine dv_f_modify_host(self, stat, errmsg)
    class(dualview_t), intent(in) :: self
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%modify_host", stat, m_)) call report(c_dv_modify_host(self%h), stat, m_, self)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Mark the device side modified (refused while the host holds unsynced changes).
  subroutine dv_f_modify_device(self, stat, errmsg)
    class(dualview_t), intent(in) :: self
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%modify_device", stat, m_)) call report(c_dv_modify_device(self%h), stat, m_, self)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Bring the host up to date: copy from the device when the device is newer.
  subroutine dv_f_sync_host(self, stat, errmsg)
    class(dualview_t), intent(in) :: self
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%sync_host", stat, m_)) call report(c_dv_sync_host(self%h), stat, m_, self)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> The host side of this (sub)view was just written (an MPI receive into a halo):
  !> modify_host, then sync_device, through it, in one call.
  subroutine dv_f_push_host(self, stat, errmsg)
    class(dualview_t), intent(in) :: self
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%push_host", stat, m_)) call report(c_dv_push_host(self%h), stat, m_, self)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> The device side of this (sub)view was just written: copy it to the host now.
  subroutine dv_f_push_device(self, stat, errmsg)
    class(dualview_t), intent(in) :: self
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%push_device", stat, m_)) call report(c_dv_push_device(self%h), stat, m_, self)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> sub = the part lo(d):hi(d) of each dimension d (1-based and inclusive, as a Fortran
  !> section; every dimension kept), sharing memory and flags with self. Its syncs copy
  !> only its part (a halo row or column), and its modifies mark only that part.
  subroutine dv_f_subview_i64(self, sub, lo, hi, stat, errmsg)
    class(dualview_t), intent(in) :: self
    type(dualview_t), intent(inout) :: sub
    integer(int64), intent(in) :: lo(:), hi(:)
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    call subview_of(self, sub, lo, hi, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  subroutine dv_f_subview_i32(self, sub, lo, hi, stat, errmsg)
    class(dualview_t), intent(in) :: self
    type(dualview_t), intent(inout) :: sub
    integer(int32), intent(in) :: lo(:), hi(:)
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    call subview_of(self, sub, int(lo, int64), int(hi, int64), stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> The work of subview, reported into stat and msg.
  subroutine subview_of(self, sub, lo, hi, stat, msg)
    class(dualview_t), intent(in) :: self
    type(dualview_t), intent(inout) :: sub
    integer(int64), intent(in) :: lo(:), hi(:)
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out) :: msg
    type(dv_range_t), allocatable, target :: r(:)
    type(c_ptr) :: h
    integer(c_int) :: st
    integer :: k, rank_
    if (.not. live(self, "dualview_t%subview", stat, msg)) return
    rank_ = self%rank()
    if (size(lo) /= size(hi) .or. size(lo) /= rank_) then
      call fail(DV_ERROR_RANK_MISMATCH, "dualview_t%subview: lo and hi need one bound per dimension (" // &
                str(rank_) // "), got " // str(size(lo)) // " and " // str(size(hi)), stat, msg)
    else if (any(lo < 1) .or. any(hi < lo - 1)) then
      call fail(DV_ERROR_OUT_OF_RANGE, "dualview_t%subview: each dimension needs 1 <= lo and lo - 1 <= hi " // &
                "(Fortran bounds, from 1, inclusive)", stat, msg)
    else
      allocate(r(max(1, size(lo))))  ! r(1) is passed (by reference) even for rank 0
      do k = 1, size(lo)
        r(k)%kind = DV_RANGE
        r(k)%begin = int(lo(k) - 1, c_int64_t)
        r(k)%end = int(hi(k), c_int64_t)
      end do
      h = c_null_ptr
      st = c_dv_subview(self%h, r(1), int(size(lo), c_size_t), h)
      if (st == DV_OK) call adopt(sub, h, addr_of(sub))
      call report(st, stat, msg, self)
    end if
  end subroutine

  !> Bring the device up to date: copy from the host when the host is newer.
  subroutine dv_f_sync_device(self, stat, errmsg)
    class(dualview_t), intent(in) :: self
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%sync_device", stat, m_)) call report(c_dv_sync_device(self%h), stat, m_, self)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Forget both sides' pending changes, without copying.
  subroutine dv_f_clear_sync_state(self, stat, errmsg)
    class(dualview_t), intent(in) :: self
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%clear_sync_state", stat, m_)) call report(c_dv_clear_sync_state(self%h), stat, m_, self)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Whether the host is stale (the device is newer); .false. on failure.
  logical function dv_f_need_sync_host(self, stat, errmsg) result(r)
    class(dualview_t), intent(in) :: self
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    logical(c_bool) :: b
    integer(c_int) :: st
    r = .false.
    if (live(self, "dualview_t%need_sync_host", stat, m_)) then
      b = .false.
      st = c_dv_need_sync_host(self%h, b)
      if (st == DV_OK) r = logical(b)
      call report(st, stat, m_, self)
    end if
    if (present(errmsg)) errmsg = m_
  end function

  !> Whether the device is stale (the host is newer); .false. on failure.
  logical function dv_f_need_sync_device(self, stat, errmsg) result(r)
    class(dualview_t), intent(in) :: self
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    logical(c_bool) :: b
    integer(c_int) :: st
    r = .false.
    if (live(self, "dualview_t%need_sync_device", stat, m_)) then
      b = .false.
      st = c_dv_need_sync_device(self%h, b)
      if (st == DV_OK) r = logical(b)
      call report(st, stat, m_, self)
    end if
    if (present(errmsg)) errmsg = m_
  end function

  !> New extents keeping each element's newest value (Fortran order, default or 64-bit integers).
  subroutine dv_f_resize_i64(self, shape_, stat, errmsg)
    class(dualview_t), intent(in) :: self
    integer(int64), intent(in) :: shape_(:)
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%resize", stat, m_)) then
      if (shape_ok("dualview_t%resize", shape_, stat, m_)) call report(c_dv_resize(self%h, to_extents(shape_)), stat, m_, self)
    end if
    if (present(errmsg)) errmsg = m_
  end subroutine

  subroutine dv_f_resize_i32(self, shape_, stat, errmsg)
    class(dualview_t), intent(in) :: self
    integer(int32), intent(in) :: shape_(:)
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    call dv_f_resize_i64(self, int(shape_, int64), stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> New zero-filled extents (default or 64-bit integers); contents dropped, flags clean.
  subroutine dv_f_realloc_i64(self, shape_, stat, errmsg)
    class(dualview_t), intent(in) :: self
    integer(int64), intent(in) :: shape_(:)
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%realloc", stat, m_)) then
      if (shape_ok("dualview_t%realloc", shape_, stat, m_)) call report(c_dv_realloc(self%h, to_extents(shape_)), stat, m_, self)
    end if
    if (present(errmsg)) errmsg = m_
  end subroutine

  subroutine dv_f_realloc_i32(self, shape_, stat, errmsg)
    class(dualview_t), intent(in) :: self
    integer(int32), intent(in) :: shape_(:)
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    call dv_f_realloc_i64(self, int(shape_, int64), stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

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
    character(len=:), allocatable :: held
    p = c_null_ptr
    shp = 0
    message = ""
    code = c_dv_desc_of(self%h, d)
    if (code /= DV_OK) then
      call c_message(code, message, self)
      return
    end if
    if (d%layout /= DV_LAYOUT_LEFT) then
      code = DV_ERROR_INCOMPATIBLE
      message = "dualview_t%host: only LayoutLeft DualViews map onto Fortran arrays (this one is LayoutRight or strided)"
      return
    end if
    if (d%dtype /= dtype) then
      code = DV_ERROR_INCOMPATIBLE
      call dv_get_dtype_str(d%dtype, held)
      message = "dualview_t%host: the pointer is " // tname // " but the DualView holds " // held &
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
      call c_message(code, message, self)
      return
    end if
    shp = int(d%extents%extent(1:rank_), int64)
  end subroutine

  !> Wrap caller-owned contiguous memory (never freed by dualview, never resized); returns the status.
  function wrap_any(self, label, dtype, addr, shp, space, ordinal, flags) result(st)
    type(dualview_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(c_int32_t), intent(in) :: dtype
    type(c_ptr), intent(in) :: addr
    integer(int64), intent(in) :: shp(:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer(c_int) :: st
    character(kind=c_char), allocatable, target :: lab(:)
    type(dv_desc_t) :: d
    type(c_ptr) :: h
    d%dtype = dtype
    d%layout = DV_LAYOUT_LEFT
    d%space = DV_SPACE_HOST
    if (present(space)) d%space = space
    if (present(ordinal)) d%ordinal = ordinal
    if (present(flags)) d%flags = flags
    d%extents = to_extents(shp)
    call to_c(label, lab)
    h = c_null_ptr
    st = c_dv_wrap(c_loc(lab), d, addr, c_null_ptr, h)
    if (st == DV_OK) call adopt(self, h, addr_of(self))
  end function

  !> The untyped part of host(p) (dualview_typed_t's deferred host_untyped).
  subroutine dv_f_host_untyped(self, dtype, tname, rank_, mode, p, shp, ok, stat, msg)
    class(dualview_t), intent(in) :: self
    integer(c_int32_t), intent(in) :: dtype
    character(len=*), intent(in) :: tname
    integer, intent(in) :: rank_
    integer(c_int32_t), intent(in), optional :: mode
    type(c_ptr), intent(out) :: p
    integer(int64), intent(out) :: shp(:)
    logical, intent(out) :: ok
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out) :: msg
    integer(c_int) :: code
    character(len=:), allocatable :: message
    p = c_null_ptr
    shp = 0
    ok = .false.
    if (live(self, "dualview_t%host", stat, msg)) then
      call host_access(self, dtype, tname, rank_, mode, p, shp, code, message)
      ok = code == DV_OK
      call fail(code, message, stat, msg)
    end if
  end subroutine

  !> The untyped part of wrap (dualview_typed_t's deferred wrap_untyped).
  subroutine dv_f_wrap_untyped(self, label, dtype, contig, addr, shp, space, ordinal, flags, stat, msg)
    class(dualview_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(c_int32_t), intent(in) :: dtype
    logical, intent(in) :: contig
    type(c_ptr), intent(in) :: addr
    integer(int64), intent(in) :: shp(:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out) :: msg
    if (.not. contig) then
      call fail(DV_ERROR_INVALID_ARGUMENT, "dualview_t%wrap: the array is not contiguous (a strided section such as " &
                // "u(1:n:2,:)?): a DualView needs contiguous column-major memory; wrap the whole array, or a " &
                // "contiguous copy", stat, msg)
    else
      call report(wrap_any(self, label, dtype, addr, shp, space, ordinal, flags), stat, msg)
    end if
  end subroutine

end module dualview
