! Without stat, a failure stops the program with the message (error stop): the test
! passes when the output has it (registered with PASS_REGULAR_EXPRESSION).
program error_stop
  use, intrinsic :: iso_fortran_env, only: int64
  use dualview
  implicit none
  type(dualview_t) :: a
  integer(int64) :: e
  call a%create("A", DV_DTYPE_FLOAT64, [4, 3])
  e = a%extent(0)
  print '(a, i0)', "error_stop: not reached, extent ", e
  call a%destroy()
end program
