! The module's constants are dualview.h's (scripts/gen-fortran.py reads them from the
! header): each group is checked against the C library at run time.
program abi_constants
  use, intrinsic :: iso_fortran_env, only: real64
  use dualview
  implicit none
  integer, parameter :: nstatus = 20
  character(len=*), parameter :: names(nstatus) = [character(len=32) :: "DV_OK", "DV_ERROR_NULL_ARGUMENT", &
    "DV_ERROR_INVALID_ARGUMENT", "DV_ERROR_INVALID_HANDLE", "DV_ERROR_RANK", "DV_ERROR_OUT_OF_RANGE", &
    "DV_ERROR_OVERFLOW", "DV_ERROR_OUT_OF_MEMORY", "DV_ERROR_CONCURRENT_MODIFICATION", "DV_ERROR_CONST_SYNC", &
    "DV_ERROR_INCOMPATIBLE", "DV_ERROR_NO_DEVICE", "DV_ERROR_DEVICE", "DV_ERROR_INTERNAL", "DV_ERROR_RANK_MISMATCH", &
    "DV_ERROR_STATIC_MISMATCH", "DV_ERROR_UNMANAGED", "DV_ERROR_STALE", "DV_ERROR_BUSY", "DV_ERROR_UNMARKED_CHANGE"]
  integer, parameter :: codes(nstatus) = [DV_OK, DV_ERROR_NULL_ARGUMENT, &
    DV_ERROR_INVALID_ARGUMENT, DV_ERROR_INVALID_HANDLE, DV_ERROR_RANK, DV_ERROR_OUT_OF_RANGE, &
    DV_ERROR_OVERFLOW, DV_ERROR_OUT_OF_MEMORY, DV_ERROR_CONCURRENT_MODIFICATION, DV_ERROR_CONST_SYNC, &
    DV_ERROR_INCOMPATIBLE, DV_ERROR_NO_DEVICE, DV_ERROR_DEVICE, DV_ERROR_INTERNAL, DV_ERROR_RANK_MISMATCH, &
    DV_ERROR_STATIC_MISMATCH, DV_ERROR_UNMANAGED, DV_ERROR_STALE, DV_ERROR_BUSY, DV_ERROR_UNMARKED_CHANGE]
  type(dualview_t) :: a, b, c
  type(dv_space_info_t) :: si
  type(dv_info_t) :: info
  real(real64), pointer :: p(:,:)
  real(real64), target :: legacy(3)
  integer :: i, stat
  character(len=:), allocatable :: s

  ! Every status code: C's text for the Fortran constant starts with the constant's name.
  do i = 1, nstatus
    s = dv_status_str(codes(i))
    if (index(s, trim(names(i)) // ": ") /= 1) then
      print '(a)', trim(names(i)) // " is C's " // s
      error stop "abi_constants: a status code differs from dualview.h"
    end if
  end do
  if (dv_status_str(1000) /= "unknown status") error stop "abi_constants: 1000 is no status"

  ! Spaces: the C policy table (dv_space_info) for each DV_SPACE_* constant.
  si = dv_space_info(DV_SPACE_TEST_DEVICE)
  if (.not. (si%needs_mirror .and. si%is_device .and. si%host_accessible) .or. si%unified) &
    error stop "abi_constants: DV_SPACE_TEST_DEVICE is host memory posing as a device with a mirror"
  if (si%host_side /= DV_SPACE_HOST .or. si%default_layout /= DV_LAYOUT_LEFT) &
    error stop "abi_constants: DV_SPACE_TEST_DEVICE has a HostSpace mirror and LayoutLeft"
  si = dv_space_info(DV_SPACE_HOST)
  if (si%needs_mirror .or. si%is_device .or. .not. si%host_accessible .or. si%default_layout /= DV_LAYOUT_RIGHT) &
    error stop "abi_constants: DV_SPACE_HOST is one host space"
  si = dv_space_info(DV_SPACE_HOST_PINNED)
  if (si%needs_mirror .or. si%is_device .or. .not. si%host_accessible) error stop "abi_constants: DV_SPACE_HOST_PINNED"
  si = dv_space_info(DV_SPACE_CUDA)
  if (si%host_accessible .or. .not. (si%needs_mirror .and. si%is_device)) error stop "abi_constants: DV_SPACE_CUDA"
  si = dv_space_info(DV_SPACE_CUDA_UVM)
  if (.not. (si%unified .and. si%is_device .and. si%host_accessible) .or. si%needs_mirror) &
    error stop "abi_constants: DV_SPACE_CUDA_UVM is managed memory"
  si = dv_space_info(99, stat=stat)
  if (stat /= DV_ERROR_INVALID_ARGUMENT .or. si%host_accessible .or. si%needs_mirror) &
    error stop "abi_constants: space 99 must be refused"

  ! Whether a space is usable here, and on how many devices: one question for every space.
  if (.not. space_available(DV_SPACE_HOST) .or. space_device_count(DV_SPACE_HOST) /= 1) &
    error stop "abi_constants: HostSpace is always usable"
  if (.not. space_available(DV_SPACE_TEST_DEVICE, 63) .or. space_available(DV_SPACE_TEST_DEVICE, 64)) &
    error stop "abi_constants: test devices 0 to 63"
  if (space_device_count(DV_SPACE_TEST_DEVICE) /= 64) error stop "abi_constants: 64 test devices"
  if (space_available(DV_SPACE_CUDA) .neqv. cuda_available()) error stop "abi_constants: space_available(DV_SPACE_CUDA)"
  if ((space_device_count(DV_SPACE_CUDA) > 0) .neqv. cuda_available()) &
    error stop "abi_constants: space_device_count(DV_SPACE_CUDA)"
  if (space_available(99, stat=stat) .or. stat /= DV_ERROR_INVALID_ARGUMENT) &
    error stop "abi_constants: space_available(99) must be refused"
  if (space_device_count(99, stat=stat) /= 0 .or. stat /= DV_ERROR_INVALID_ARGUMENT) &
    error stop "abi_constants: space_device_count(99) must be refused"

  ! Element types and the version.
  if (index(dv_dtype_str(DV_DTYPE_FLOAT64), "float64") /= 1 .or. index(dv_dtype_str(DV_DTYPE_FLOAT64), "real64") == 0) &
    error stop "abi_constants: DV_DTYPE_FLOAT64"
  if (index(dv_dtype_str(DV_DTYPE_FLOAT32), "float32") /= 1) error stop "abi_constants: DV_DTYPE_FLOAT32"
  if (index(dv_dtype_str(DV_DTYPE_INT8), "int8") /= 1) error stop "abi_constants: DV_DTYPE_INT8"
  if (index(dv_dtype_str(DV_DTYPE_INT64), "int64") /= 1) error stop "abi_constants: DV_DTYPE_INT64"
  if (index(dv_dtype_str(DV_DTYPE_COMPLEX128), "complex128") /= 1) error stop "abi_constants: DV_DTYPE_COMPLEX128"
  if (dv_dtype_str(999) /= "unknown dtype") error stop "abi_constants: 999 is no dtype"
  if (dv_version() /= num(DV_VERSION_MAJOR) // "." // num(DV_VERSION_MINOR) // "." // num(DV_VERSION_PATCH)) &
    error stop "abi_constants: DV_VERSION_* differ from dv_version()"

  ! What a DualView is (dv_info): DV_INFO_* bits, spaces, dtype; DV_SIDE_* labels.
  call a%create("T", DV_DTYPE_FLOAT64, [3, 2], space=DV_SPACE_TEST_DEVICE)
  info = a%info()
  if (info%dtype /= DV_DTYPE_FLOAT64 .or. info%device_space /= DV_SPACE_TEST_DEVICE .or. info%host_space /= DV_SPACE_HOST &
      .or. info%rank /= 2 .or. info%elem_size /= 8 .or. info%use_count /= 1) error stop "abi_constants: dv_info of T"
  if (iand(info%bits, DV_INFO_OWNED) == 0 .or. iand(info%bits, DV_INFO_SINGLE_SPACE) /= 0 &
      .or. iand(info%bits, DV_INFO_ONE_ALLOCATION) /= 0) error stop "abi_constants: DV_INFO_* bits of T"
  if (a%view_label(DV_SIDE_HOST) /= "T_mirror" .or. a%view_label(DV_SIDE_DEVICE) /= "T") &
    error stop "abi_constants: DV_SIDE_HOST is the mirror, DV_SIDE_DEVICE the view"
  b = a
  info = a%info()
  if (info%use_count /= 2) error stop "abi_constants: b = a is a second handle"
  ! DV_ACCESS_*: write marks the host modified, read leaves the flags.
  call a%host(p, mode=DV_ACCESS_WRITE)
  if (.not. b%need_sync_device()) error stop "abi_constants: DV_ACCESS_WRITE marks the host modified"
  call b%sync_device()
  call a%host(p, mode=DV_ACCESS_READ)
  if (a%need_sync_device() .or. a%need_sync_host()) error stop "abi_constants: DV_ACCESS_READ marks nothing"
  call b%destroy()

  ! DV_FLAG_SINGLE_SPACE: one allocation in the device space, no mirror.
  call c%create("S", DV_DTYPE_FLOAT64, [4], space=DV_SPACE_TEST_DEVICE, flags=DV_FLAG_SINGLE_SPACE)
  info = c%info()
  if (iand(info%bits, DV_INFO_SINGLE_SPACE) == 0 .or. iand(info%bits, DV_INFO_ONE_ALLOCATION) == 0) &
    error stop "abi_constants: DV_FLAG_SINGLE_SPACE gives DV_INFO_SINGLE_SPACE"
  call c%create("W", DV_DTYPE_FLOAT64, [2, 2], flags=DV_FLAG_WITHOUT_INITIALIZING)
  if (c%rank() /= 2) error stop "abi_constants: DV_FLAG_WITHOUT_INITIALIZING"
  call c%wrap("legacy", legacy)
  info = c%info()
  if (iand(info%bits, DV_INFO_OWNED) /= 0) error stop "abi_constants: wrapped memory is not DV_INFO_OWNED"

  ! DV_LAYOUT_RIGHT is refused by host(); DV_MAX_RANK is the highest rank.
  call c%create("R", DV_DTYPE_FLOAT64, [2, 2], layout=DV_LAYOUT_RIGHT)
  call c%host(p, stat=stat)
  if (stat /= DV_ERROR_INCOMPATIBLE) error stop "abi_constants: DV_LAYOUT_RIGHT"
  call c%create("M", DV_DTYPE_FLOAT64, [(1, i = 1, DV_MAX_RANK)])
  if (c%rank() /= DV_MAX_RANK) error stop "abi_constants: DV_MAX_RANK"
  call c%create("M", DV_DTYPE_FLOAT64, [(1, i = 1, DV_MAX_RANK + 1)], stat=stat)
  if (stat /= DV_ERROR_RANK) error stop "abi_constants: above DV_MAX_RANK"

  ! A CUDA space works exactly when C says CUDA is available; fences of host spaces return at once.
  call c%create("G", DV_DTYPE_FLOAT64, [4], space=DV_SPACE_CUDA, stat=stat)
  if ((stat == DV_OK) .neqv. cuda_available()) error stop "abi_constants: cuda_available() and DV_SPACE_CUDA disagree"
  if (.not. cuda_available() .and. stat /= DV_ERROR_NO_DEVICE) error stop "abi_constants: DV_ERROR_NO_DEVICE"
  call dv_fence(DV_SPACE_TEST_DEVICE)
  call dv_fence(DV_SPACE_HOST, name="abi_constants")
  call dv_fence(99, stat=stat)
  if (stat /= DV_ERROR_INVALID_ARGUMENT) error stop "abi_constants: fence of space 99"

  call a%destroy()
  call c%destroy()
  if (dv_handle_count() /= 0) error stop "abi_constants: handles left"
  s = "abi_constants: " // num(nstatus) // " status codes, spaces, dtypes, flags and bits agree with the C library " &
      // dv_version()
  print '(a)', s
  deallocate(s)

contains

  function num(i) result(t)
    integer, intent(in) :: i
    character(len=:), allocatable :: t
    character(len=12) :: buf
    write(buf, '(i0)') i
    t = trim(buf)
  end function
end program
