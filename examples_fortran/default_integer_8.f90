! Built with -fdefault-integer-8 against DualView::dualview_fortran_i8: the module's
! default integers and logicals (stat, extents, dims, rank(), results) are the program's.
program default_integer_8
  use, intrinsic :: iso_fortran_env, only: real64, int64
  use dualview
  implicit none
  type(dualview_t) :: a
  type(dv_stats_t) :: s
  real(real64), pointer :: u(:,:)
  integer :: stat, n, r
  logical :: stale
  character(len=:), allocatable :: msg

  if (kind(stat) /= int64) error stop "default_integer_8: not built with -fdefault-integer-8"
  n = 30
  call a%create("I8", DV_DTYPE_FLOAT64, [n, 4], space=DV_SPACE_TEST_DEVICE, stat=stat, errmsg=msg)
  if (stat /= DV_OK) error stop "default_integer_8: create"
  call a%host(u)
  u = 2
  stale = a%need_sync_device(stat=stat)
  if (.not. stale .or. stat /= DV_OK) error stop "default_integer_8: the device is stale"
  call a%sync_device(stat=stat)
  s = a%stats()
  if (stat /= DV_OK .or. s%to_device_bytes /= 30 * 4 * 8) error stop "default_integer_8: one copy of 960 bytes"
  r = a%rank()
  if (r /= 2 .or. a%extent(1) /= n .or. size(u) /= 120) error stop "default_integer_8: shape"
  n = a%extent(3, stat=stat, errmsg=msg)
  if (stat /= DV_ERROR_OUT_OF_RANGE .or. n /= 0 .or. index(msg, "dim 3 is out of range") == 0) &
    error stop "default_integer_8: a bad dim is refused"
  call a%resize([n + 1, 2], stat=stat)
  if (stat /= DV_OK .or. a%extent(1) /= 1) error stop "default_integer_8: resize"
  call a%destroy(stat=stat)
  if (stat /= DV_OK .or. dv_handle_count() /= 0) error stop "default_integer_8: destroy"
  print '(a, i0, a)', "default_integer_8: stat has kind ", kind(stat), "; create, sync, stats, extent, resize work"
  deallocate(msg)
end program
