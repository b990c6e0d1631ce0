! A function result that is never assigned (`call show(make_field(n))`): released
! where the compiler finalizes function results (gfortran 13 and later, ifx), since
! as_result lets any holder release an untaken result. gfortran 12 never finalizes
! them, so there the handle stays: the program says which case it saw, and checks the
! count for it (docs/FORTRAN.md: assign the result first under gfortran 12).
module unassigned_probe
  use dualview
  implicit none
  type :: probe_t
    integer :: x = 0
  contains
    final :: probe_final
  end type
  integer :: finalized = 0
contains
  subroutine probe_final(p)
    type(probe_t), intent(inout) :: p
    finalized = finalized + 1 + 0 * p%x
  end subroutine
  function make_probe() result(p)
    type(probe_t) :: p
    p%x = 1
  end function
  integer function probe_x(p)
    type(probe_t), intent(in) :: p
    probe_x = p%x
  end function

  function make_field(n) result(f)
    integer, intent(in) :: n
    type(dualview_t) :: f
    call f%create("unassigned", DV_DTYPE_FLOAT64, [n], space=DV_SPACE_TEST_DEVICE)
    call f%as_result()
  end function
  integer function extent_of(a)
    type(dualview_t), intent(in) :: a
    extent_of = int(a%extent(1))
  end function
end module

program function_result_unassigned
  use, intrinsic :: iso_fortran_env, only: int64
  use dualview
  use unassigned_probe
  implicit none
  integer(int64) :: n0
  logical :: finalizes
  integer :: k

  k = probe_x(make_probe())
  finalizes = finalized > 0
  n0 = dv_handle_count()
  if (extent_of(make_field(7)) /= 7) error stop "function_result_unassigned: the result works"
  if (finalizes) then
    if (dv_handle_count() /= n0) error stop "function_result_unassigned: a finalized result must be released"
    print '(a)', "function_result_unassigned: PASS (this compiler finalizes function results: released)"
  else
    if (dv_handle_count() /= n0 + 1) error stop "function_result_unassigned: exactly the one result stays"
    print '(a)', "function_result_unassigned: PASS (this compiler does not finalize function results, " // &
                 "as gfortran 12: the unassigned result's handle stays, docs/FORTRAN.md)"
  end if
end program
