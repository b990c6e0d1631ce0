! The safe pattern of docs/FORTRAN.md: make a DualView in a subroutine with an
! intent(inout) dummy, never as a function result (gfortran 12 does not finalize
! those). The ctest fortran.leak.subroutine runs this with DV_LEAK_REPORT=1 and
! expects "every DualView and View was destroyed".
module safe_fields
  use dualview
  implicit none
contains
  !> Make f a new field of n values (f's old DualView, if any, is released).
  subroutine new_field(f, n)
    type(dualview_t), intent(inout) :: f
    integer, intent(in) :: n
    call f%create("field", DV_DTYPE_FLOAT64, [n], space=DV_SPACE_TEST_DEVICE)
  end subroutine
end module

program leak_safe
  use safe_fields
  implicit none
  type(dualview_t) :: a, fields(3)
  integer :: i
  call new_field(a, 10)
  call new_field(a, 20)            ! again: the first field is released
  if (a%extent(1) /= 20) error stop "leak_safe: the second field"
  do i = 1, size(fields)
    call new_field(fields(i), i)
  end do
  if (dv_handle_count() /= 4) error stop "leak_safe: one handle per field"
  call a%destroy()
  do i = 1, size(fields)
    call fields(i)%destroy()
  end do
  if (dv_handle_count() /= 0) error stop "leak_safe: no handle left"
  print '(a)', "leak_safe: no handle left"
end program
