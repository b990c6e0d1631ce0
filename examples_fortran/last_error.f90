! dv_last_error_message() is the message of the last failure, whether the C library
! or the module itself caught it (a wrong rank in host, a bad shape, a destroyed object).
program last_error
  use, intrinsic :: iso_fortran_env, only: real64
  use dualview
  implicit none
  type(dualview_t) :: a
  real(real64), pointer :: q(:)
  integer :: stat
  character(len=:), allocatable :: msg, last

  call a%create("A", DV_DTYPE_FLOAT64, [4, 4], space=DV_SPACE_TEST_DEVICE)
  call a%modify_host()
  call a%modify_device(stat=stat)                 ! caught by the C library
  if (stat /= DV_ERROR_CONCURRENT_MODIFICATION) error stop "last_error: expected a concurrent modification"
  last = dv_last_error_message()
  if (index(last, "dv_modify_device") == 0) error stop "last_error: the C failure is the last error"

  call a%host(q, stat=stat, errmsg=msg)           ! caught by the module: wrong rank
  if (stat /= DV_ERROR_RANK_MISMATCH) error stop "last_error: expected a rank mismatch"
  last = dv_last_error_message()
  if (last /= msg) error stop "last_error: the module's failure is the last error (wrong rank)"
  if (index(last, "dualview_t%host: the pointer has rank 1") /= 1) error stop "last_error: the host message"

  call a%resize([4, -3], stat=stat, errmsg=msg)   ! caught by the module: bad shape
  last = dv_last_error_message()
  if (stat /= DV_ERROR_INVALID_ARGUMENT .or. last /= msg .or. index(last, "extent -3 of dim 2") == 0) &
    error stop "last_error: the bad shape is the last error"
  if (a%extent(2) /= 4) error stop "last_error: a refused resize changes nothing"

  call a%destroy()
  call a%sync_device(stat=stat, errmsg=msg)       ! caught by the module: destroyed
  last = dv_last_error_message()
  if (stat /= DV_ERROR_INVALID_HANDLE .or. last /= msg .or. index(last, "has been destroyed") == 0) &
    error stop "last_error: the destroyed object is the last error"

  print '(a)', "last_error: " // last
  deallocate(msg, last)
end program
