! The pattern that leaks under gfortran 12: a function returning type(dualview_t)
! without `call f%as_result()` (function_result.f90 is the same with it: no leak).
! gfortran 12 never finalizes the function result, so `a = new_field(n)` clones the
! result's handle into a and the result's own handle is never released. The ctest
! fortran.leak.function_result runs this with DV_LEAK_REPORT=1 and expects the exit
! report to name "field"; docs/FORTRAN.md gives the safe pattern (leak_safe.f90).
module leaky_fields
  use dualview
  implicit none
contains
  function new_field(n) result(f)
    integer, intent(in) :: n
    type(dualview_t) :: f
    call f%create("field", DV_DTYPE_FLOAT64, [n], space=DV_SPACE_TEST_DEVICE)
  end function
end module

program function_result_leak
  use leaky_fields
  implicit none
  type(dualview_t) :: a
  a = new_field(10)
  if (a%extent(1) /= 10) error stop "function_result_leak: the result works"
  call a%destroy()
  print '(a, i0)', "function_result_leak: live handles after destroy: ", dv_handle_count()
end program
