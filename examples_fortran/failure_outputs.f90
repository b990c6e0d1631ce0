! Every result and intent(out) argument is defined on failure (0, .false., "", null),
! never left as whatever was in memory.
program failure_outputs
  use, intrinsic :: iso_c_binding, only: c_ptr, c_associated, c_loc
  use, intrinsic :: iso_fortran_env, only: real64, int64
  use dualview
  implicit none
  type(dualview_t) :: a, never
  type(dv_info_t) :: info
  type(dv_space_info_t) :: si
  real(real64), pointer :: p(:,:)
  real(real64), target :: junk(2, 2)
  type(c_ptr) :: cp
  integer(int64) :: e
  integer :: r, stat, k
  logical :: l
  character(len=:), allocatable :: s

  junk = 0
  do k = 1, 2      ! a never-created object, then a destroyed one
    if (k == 2) then
      call a%create("A", DV_DTYPE_FLOAT64, [4, 3], space=DV_SPACE_TEST_DEVICE)
      call a%destroy()
      never = a
    end if
    e = -7
    e = never%extent(1, stat=stat)
    if (stat /= DV_ERROR_INVALID_HANDLE .or. e /= 0) error stop "failure_outputs: extent() must be 0"
    l = .true.
    l = never%need_sync_host(stat=stat)
    if (stat /= DV_ERROR_INVALID_HANDLE .or. l) error stop "failure_outputs: need_sync_host() must be .false."
    l = .true.
    l = never%need_sync_device(stat=stat)
    if (stat /= DV_ERROR_INVALID_HANDLE .or. l) error stop "failure_outputs: need_sync_device() must be .false."
    r = -7
    r = never%rank(stat=stat)
    if (stat /= DV_ERROR_INVALID_HANDLE .or. r /= 0) error stop "failure_outputs: rank() must be 0"
    s = "junk"
    s = never%label(stat=stat)
    if (stat /= DV_ERROR_INVALID_HANDLE .or. s /= "") error stop "failure_outputs: label() must be empty"
    s = "junk"
    s = never%view_label(DV_SIDE_HOST, stat=stat)
    if (stat /= DV_ERROR_INVALID_HANDLE .or. s /= "") error stop "failure_outputs: view_label() must be empty"
    cp = c_loc(junk)
    cp = never%device_ptr(stat=stat)
    if (stat /= DV_ERROR_INVALID_HANDLE .or. c_associated(cp)) error stop "failure_outputs: device_ptr() must be null"
    info%rank = 7
    info%use_count = 7
    info = never%info(stat=stat)
    if (stat /= DV_ERROR_INVALID_HANDLE .or. info%rank /= 0 .or. info%use_count /= 0 .or. info%bits /= 0) &
      error stop "failure_outputs: info() must be all 0"
    p => junk
    call never%host(p, stat=stat)
    if (stat /= DV_ERROR_INVALID_HANDLE .or. associated(p)) error stop "failure_outputs: host(p) must nullify p"
    call never%sync_device(stat=stat)
    if (stat /= DV_ERROR_INVALID_HANDLE) error stop "failure_outputs: sync_device() stat"
  end do

  ! A live DualView, arguments out of range.
  call a%create("A", DV_DTYPE_FLOAT64, [4, 3], space=DV_SPACE_TEST_DEVICE)
  e = -7
  e = a%extent(0, stat=stat)
  if (stat /= DV_ERROR_OUT_OF_RANGE .or. e /= 0) error stop "failure_outputs: extent(0) must be 0"
  e = -7
  e = a%extent(3, stat=stat)
  if (stat /= DV_ERROR_OUT_OF_RANGE .or. e /= 0) error stop "failure_outputs: extent(3) of a rank-2 must be 0"
  e = -7
  e = a%extent(2_int64**40, stat=stat)
  if (stat /= DV_ERROR_OUT_OF_RANGE .or. e /= 0) error stop "failure_outputs: extent(2**40) must be 0"
  s = "junk"
  s = a%view_label(5, stat=stat)
  if (stat == DV_OK .or. s /= "") error stop "failure_outputs: view_label(5) must be empty"
  cp = c_loc(junk)
  cp = a%device_ptr(mode=77, stat=stat)
  if (stat == DV_OK .or. c_associated(cp)) error stop "failure_outputs: device_ptr(mode=77) must be null"
  p => junk
  call a%host(p, mode=77, stat=stat)
  if (stat == DV_OK .or. associated(p)) error stop "failure_outputs: host(p, mode=77) must nullify p"
  ! A stale side: the device is newer, so modify_host fails and changes nothing.
  call a%modify_device()
  call a%modify_host(stat=stat)
  if (stat /= DV_ERROR_CONCURRENT_MODIFICATION .or. .not. a%need_sync_host()) error stop "failure_outputs: modify_host"
  ! Library-wide queries.
  si%needs_mirror = .true.
  si%default_layout = 7
  si = dv_space_info(77, stat=stat)
  if (stat /= DV_ERROR_INVALID_ARGUMENT .or. si%needs_mirror .or. si%default_layout /= 0) &
    error stop "failure_outputs: dv_space_info(77) must be all .false./0"
  call a%destroy()
  deallocate(s)
  print '(a)', "failure_outputs: every result is 0, .false., empty or null on failure"
end program
