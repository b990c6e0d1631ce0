! Submodule dualview_access of module dualview (fortran/dualview.f90), whose interfaces
! document each procedure written here: dualview_t's flags and syncs, subviews, resize and
! realloc, and the untyped part of host and wrap.
submodule (dualview:dualview_support) dualview_access
  implicit none

contains

  ! ---- Flags and sync ---------------------------------------------------------------------------

  module procedure dv_f_modify_host
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%modify_host", stat, m_)) call report(c_dv_modify_host(self%h), stat, m_, self)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_modify_host

  module procedure dv_f_modify_device
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%modify_device", stat, m_)) call report(c_dv_modify_device(self%h), stat, m_, self)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_modify_device

  module procedure dv_f_sync_host
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%sync_host", stat, m_)) call report(c_dv_sync_host(self%h), stat, m_, self)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_sync_host

  module procedure dv_f_push_host
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%push_host", stat, m_)) call report(c_dv_push_host(self%h), stat, m_, self)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_push_host

  module procedure dv_f_push_device
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%push_device", stat, m_)) call report(c_dv_push_device(self%h), stat, m_, self)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_push_device

  module procedure dv_f_subview_i64
    character(len=:), allocatable :: m_
    call subview_of(self, sub, lo, hi, stat, m_)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_subview_i64

  module procedure dv_f_subview_i32
    character(len=:), allocatable :: m_
    call subview_of(self, sub, int(lo, int64), int(hi, int64), stat, m_)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_subview_i32

  module procedure dv_f_sync_device
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%sync_device", stat, m_)) call report(c_dv_sync_device(self%h), stat, m_, self)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_sync_device

  module procedure dv_f_clear_sync_state
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%clear_sync_state", stat, m_)) call report(c_dv_clear_sync_state(self%h), stat, m_, self)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_clear_sync_state

  module procedure dv_f_need_sync_host
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
  end procedure dv_f_need_sync_host

  module procedure dv_f_need_sync_device
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
  end procedure dv_f_need_sync_device

  module procedure dv_f_resize_i64
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%resize", stat, m_)) then
      if (shape_ok("dualview_t%resize", shape_, stat, m_)) call report(c_dv_resize(self%h, to_extents(shape_)), stat, m_, self)
    end if
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_resize_i64

  module procedure dv_f_resize_i32
    character(len=:), allocatable :: m_
    call dv_f_resize_i64(self, int(shape_, int64), stat, m_)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_resize_i32

  module procedure dv_f_realloc_i64
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%realloc", stat, m_)) then
      if (shape_ok("dualview_t%realloc", shape_, stat, m_)) call report(c_dv_realloc(self%h, to_extents(shape_)), stat, m_, self)
    end if
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_realloc_i64

  module procedure dv_f_realloc_i32
    character(len=:), allocatable :: m_
    call dv_f_realloc_i64(self, int(shape_, int64), stat, m_)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_realloc_i32

  module procedure dv_f_host_untyped
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
  end procedure dv_f_host_untyped

  module procedure dv_f_wrap_untyped
    if (.not. contig) then
      call fail(DV_ERROR_INVALID_ARGUMENT, "dualview_t%wrap: the array is not contiguous (a strided section such as " &
                // "u(1:n:2,:)?): a DualView needs contiguous column-major memory; wrap the whole array, or a " &
                // "contiguous copy", stat, msg)
    else
      call report(wrap_any(self, label, dtype, addr, shp, space, ordinal, flags), stat, msg)
    end if
  end procedure dv_f_wrap_untyped

end submodule dualview_access
