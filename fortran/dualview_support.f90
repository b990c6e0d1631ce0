! Submodule dualview_support of module dualview (fortran/dualview.f90): the module's own
! helpers, not the API. Messages in Fortran's words (a C message's function names become the
! Fortran calls that reached them), status reports and error stop, C strings, the ownership
! of handles across the copies Fortran makes, shapes, labels and typed access. The submodules
! that write the API are its descendants and call these.
submodule (dualview) dualview_support
  implicit none

  !> Decimal text of an integer (for messages).
  interface str
    module procedure str_i32, str_i64
  end interface

contains

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
    case ("dv_space_info", "dv_fence", "dv_handle_count", "dv_pool_release")
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
      call note_use(self)
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
  ! ---- Ownership ------------------------------------------------------------------------------
  ! Fortran copies objects without asking (allocate(x, source=a), array constructors,
  ! function results, copy-in/copy-out, and gfortran's temporary for a component with a
  ! defined assignment, which it finalizes after copying it into the component), so a
  ! handle is released only by the object that holds it, named by its address (c_loc):
  ! - create, wrap and subview record the object's own address as the owner (here and in
  !   C): a raw copy (another address) is borrowed, and letting it go only detaches it;
  ! - an assignment keeps the owner the left side's old handle had; where none is known
  !   (an empty left side), C records the address the assignment wrote: the holder itself
  !   when off the stack, else a candidate (it may be gfortran's temporary);
  ! - each object that uses the handle becomes one of its holders (a used copy shares it),
  !   and letting go releases only where no other holder can remain (dv_hold, src/ffi/holder.rs).

  !> The address of x (its identity for ownership).
  function addr_of(x) result(p)
    type(dualview_t), target, intent(in) :: x
    type(c_ptr) :: p
    p = c_loc(x)
  end function

  !> x's address as the C side names holders.
  integer(c_size_t) function at_of(x)
    type(dualview_t), intent(in) :: x
    at_of = transfer(addr_of(x), 0_c_size_t)
  end function

  !> Whether self got its handle from create or wrap at its own address.
  logical function owns(self)
    type(dualview_t), intent(in) :: self
    owns = c_associated(self%h) .and. c_associated(self%owner, addr_of(self))
  end function

  !> Whether self is a raw copy of an object that holds the handle elsewhere.
  logical function borrowed(self)
    type(dualview_t), intent(in) :: self
    integer(c_size_t) :: o
    borrowed = .false.
    if (.not. c_associated(self%h)) return
    if (c_associated(self%owner)) then
      borrowed = .not. owns(self)
    else if (c_dv_hold_use(self%h, 0_c_size_t, o) == DV_OK) then
      borrowed = o /= 0 .and. o /= at_of(self)
    end if
  end function

  !> A use of self's handle: unless self made it, C notes self as one of its users
  !> (a used copy shares the handle with its original; dv_hold).
  subroutine note_use(self)
    type(dualview_t), intent(in) :: self
    integer(c_size_t) :: o
    integer(c_int) :: st
    if (c_associated(self%h) .and. .not. owns(self)) st = c_dv_hold_use(self%h, at_of(self), o)
  end subroutine

  !> The owner C knows for self's handle (c_null_ptr: none yet).
  function known_owner(self) result(p)
    type(dualview_t), intent(in) :: self
    type(c_ptr) :: p
    integer(c_size_t) :: o
    p = self%owner
    if (c_associated(p) .or. .not. c_associated(self%h)) return
    if (c_dv_hold_use(self%h, 0_c_size_t, o) == DV_OK .and. o /= 0) p = transfer(o, p)
  end function

  !> Give up self's handle: destroyed where self is its last holder (dv_let_go), else
  !> only detached.
  subroutine release(self, st)
    type(dualview_t), intent(inout) :: self
    integer(c_int), intent(out), optional :: st
    integer(c_int) :: s
    logical(c_bool) :: released
    s = DV_OK
    if (c_associated(self%h)) s = c_dv_let_go(self%h, at_of(self), released)
    if (present(st)) st = s
    if (c_associated(self%h)) self%state = 2
    self%h = c_null_ptr
    self%owner = c_null_ptr
    self%took = .false.
  end subroutine

  !> Release self%h whoever holds it (the old value an assignment replaces): the object
  !> that took a function result destroys it; any other holder releases it unless another
  !> object took it over (dv_release: then only detached, as a compiler's copy of a
  !> function result is).
  integer(c_int) function drop_handle(self) result(st)
    type(dualview_t), intent(in) :: self
    logical(c_bool) :: released
    if (self%took) then
      st = c_dv_destroy(self%h)
    else
      st = c_dv_release(self%h, released)
    end if
  end function

  !> Make h self's handle, owned at address owner (c_null_ptr: the assignment wrote self,
  !> C finds the owner at the first use), after releasing the old one.
  subroutine adopt(self, h, owner)
    type(dualview_t), intent(inout) :: self
    type(c_ptr), intent(in) :: h, owner
    integer(c_int) :: st
    call release(self)
    self%h = h
    self%owner = owner
    self%state = 1
    if (c_associated(owner)) then
      st = c_dv_hold(h, transfer(owner, 0_c_size_t), 0_c_size_t)
    else
      st = c_dv_hold(h, 0_c_size_t, at_of(self))
    end if
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

end submodule dualview_support
