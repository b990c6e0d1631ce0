! A Fortran consumer built with -fdefault-integer-8 (module set dualview_fortran_i8).
program consumer
  use, intrinsic :: iso_fortran_env, only: real64, int64
  use dualview
  implicit none
  type(dualview_t) :: a
  real(real64), pointer :: p(:)
  integer :: stat, n
  if (kind(stat) /= int64) error stop "consumer: not built with -fdefault-integer-8"
  n = 10
  call a%create("consumer", DV_DTYPE_FLOAT64, [n], space=DV_SPACE_TEST_DEVICE, stat=stat)
  if (stat /= DV_OK) error stop "consumer: create failed"
  call a%host(p)
  p = 2
  call a%sync_device(stat=stat)
  if (stat /= DV_OK .or. a%need_sync_device()) error stop "consumer: sync failed"
  print '(a)', "consumer (Fortran, -fdefault-integer-8): dualview module found and working"
  call a%destroy()
end program
