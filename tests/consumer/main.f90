! A Fortran consumer of the installed package.
program consumer
  use, intrinsic :: iso_fortran_env, only: real64
  use dualview
  implicit none
  type(dualview_t) :: a
  real(real64), pointer :: p(:)
  call a%create("consumer", DV_DTYPE_FLOAT64, [10], space=DV_SPACE_TEST_DEVICE)
  call a%host(p)
  p = 2
  call a%sync_device()
  if (a%need_sync_device()) error stop "consumer: sync failed"
  print '(a)', "consumer (Fortran): dualview module found and working"
  call a%destroy()
end program
