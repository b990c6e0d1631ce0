! Submodule dualview_queries of module dualview (fortran/dualview.f90), whose interfaces
! document each procedure written here: the library-wide API (messages, status and type
! names, the version, spaces, fences, the transfer report, global statistics, initialize).
submodule (dualview:dualview_support) dualview_queries
  implicit none

contains

  ! ---- Messages ---------------------------------------------------------------------------

  module procedure dv_last_error_message
    call dv_get_last_error_message(msg)
  end procedure dv_last_error_message

  module procedure dv_get_last_error_message
    call last_error(msg)
  end procedure dv_get_last_error_message
  ! ---- Library-wide queries -------------------------------------------------------------------
  ! The functions that return text (dv_status_str, dv_dtype_str, dv_version,
  ! dv_last_error_message, label, view_label) each have a subroutine form (dv_get_*,
  ! get_label, get_view_label) for threads: docs/FORTRAN.md "Threads".

  module procedure dv_status_str
    call dv_get_status_str(code, s)
  end procedure dv_status_str

  module procedure dv_get_status_str
    call from_c(c_dv_status_str(int(code, c_int32_t)), s)
  end procedure dv_get_status_str

  module procedure dv_dtype_str
    call dv_get_dtype_str(dtype, s)
  end procedure dv_dtype_str

  module procedure dv_get_dtype_str
    call from_c(c_dv_dtype_str(dtype), s)
  end procedure dv_get_dtype_str

  module procedure dv_version
    call dv_get_version(s)
  end procedure dv_version

  module procedure dv_get_version
    call from_c(c_dv_version(), s)
  end procedure dv_get_version

  module procedure dv_space_info
    character(len=:), allocatable :: m_
    type(dv_space_info_t) :: out
    integer(c_int) :: st
    st = c_dv_space_info(space, out)
    if (st == DV_OK) info = out
    call report(st, stat, m_)
    if (present(errmsg)) errmsg = m_
  end procedure dv_space_info

  module procedure space_available
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
  end procedure space_available

  module procedure space_device_count
    character(len=:), allocatable :: m_
    integer(c_size_t) :: c
    integer(c_int) :: st
    n = 0
    c = 0
    st = c_dv_space_device_count(space, c)
    if (st == DV_OK) n = int(c, int64)
    call report(st, stat, m_)
    if (present(errmsg)) errmsg = m_
  end procedure space_device_count

  module procedure cuda_available
    character(len=:), allocatable :: m_
    logical(c_bool) :: b
    integer(c_int) :: st
    cuda_available = .false.
    b = .false.
    st = c_dv_cuda_available(b)
    if (st == DV_OK) cuda_available = logical(b)
    call report(st, stat, m_)
    if (present(errmsg)) errmsg = m_
  end procedure cuda_available

  module procedure dv_fence
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
  end procedure dv_fence

  module procedure dv_transfer_report_start
    character(len=:), allocatable :: m_
    call report(c_dv_report_start(), stat, m_)
    if (present(errmsg)) errmsg = m_
  end procedure dv_transfer_report_start

  module procedure dv_transfer_report
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
  end procedure dv_transfer_report

  module procedure dv_handle_count
    integer(c_size_t) :: c
    integer(c_int) :: st
    c = 0
    st = c_dv_handle_count(c)
    n = counted(st, c, stat, errmsg)
  end procedure dv_handle_count

  module procedure dv_pool_release
    integer(c_int64_t) :: c
    integer(c_int) :: st
    c = 0
    st = c_dv_pool_release(c)
    n = counted(st, int(c, c_size_t), stat, errmsg)
  end procedure dv_pool_release

  !> The count c a C call wrote (0 when its status st is a failure), st reported in stat and errmsg.
  function counted(st, c, stat, errmsg) result(n)
    integer(c_int), intent(in) :: st
    integer(c_size_t), intent(in) :: c
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    integer(int64) :: n
    character(len=:), allocatable :: m_
    n = 0
    if (st == DV_OK) n = int(c, int64)
    call report(st, stat, m_)
    if (present(errmsg)) errmsg = m_
  end function

  module procedure dualview_stats
    character(len=:), allocatable :: m_
    type(dv_stats_t) :: out
    integer(c_int) :: st
    st = c_dv_stats_global(out)
    if (st == DV_OK) s = out
    call report(st, stat, m_)
    if (present(errmsg)) errmsg = m_
  end procedure dualview_stats

  module procedure dualview_initialize
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
  end procedure dualview_initialize

  module procedure dualview_stats_reset
    character(len=:), allocatable :: m_
    call report(c_dv_stats_global_reset(), stat, m_)
    if (present(errmsg)) errmsg = m_
  end procedure dualview_stats_reset

end submodule dualview_queries
