! Constructor functions that do not leak: a function returns a dualview_t after
! `call f%as_result()`, and the assignment that receives it takes that handle over.
! Checked by counting live handles (dv_handle_count), not only by valgrind (the handle
! table keeps a leaked DualView reachable), and by the exit leak report (ctest
! fortran.leak.function_result_taken). Built also with -fdefault-integer-8 (the
! functions are internal, so the two builds share no .mod file).
program function_result
  use, intrinsic :: iso_fortran_env, only: int64
  use dualview
  implicit none
  type(dualview_t) :: u, arr(3), fixed(4)
  type(dualview_t), allocatable :: t
  integer(int64) :: n0
  integer :: i, step

  n0 = dv_handle_count()

  ! 1. u = make_field(n) in a loop: one live handle, whatever the step.
  do step = 1, 50
    u = make_field(1000 + step, "u")
    if (dv_handle_count() /= n0 + 1) then
      print '(a, i0, a, i0)', "step ", step, ": live handles ", dv_handle_count() - n0
      error stop "function_result: u = make_field(n) must leave one handle"
    end if
    if (u%extent(1) /= 1000 + step) error stop "function_result: the result's extent"
  end do
  if (round_trip(u, 7) /= 7.0d0) error stop "function_result: the result's values reach the device and back"
  call u%destroy()
  if (dv_handle_count() /= n0) error stop "function_result: destroy releases the taken handle"

  ! 2. Arrays: element by element, and an array-valued function.
  do i = 1, 3
    arr(i) = make_field(10 * i, "arr")
  end do
  if (dv_handle_count() /= n0 + 3) error stop "function_result: arr(i) = make_field(n)"
  if (arr(3)%extent(1) /= 30) error stop "function_result: arr(3)"
  do step = 1, 5
    fixed(1:3) = make_fields(3, 8)
  end do
  if (dv_handle_count() /= n0 + 6) error stop "function_result: fixed(1:3) = make_fields(3, n)"
  if (fixed(2)%extent(1) /= 16) error stop "function_result: fixed(2) of make_fields"
  ! One result into many elements: the first takes it, the others get handles of their own.
  arr = make_field(5, "shared")
  if (dv_handle_count() /= n0 + 6) error stop "function_result: arr = make_field(n) (broadcast)"
  call arr(1)%destroy()
  if (round_trip(arr(3), 5) /= 5.0d0) error stop "function_result: arr(3) outlives arr(1)"

  ! 3. A result handed on by another function.
  u = wrap_field(12)
  if (dv_handle_count() /= n0 + 6) error stop "function_result: u = wrap_field(n)"
  if (round_trip(u, 12) /= 12.0d0) error stop "function_result: the wrapped result's values"

  ! 4. What a compiler that finalizes function results does (gfortran 13 and later, ifx):
  !    the result lives in a copy made without assignment, which is finalized after the
  !    statement. allocate(source=) makes that copy and deallocate finalizes it.
  !    a) assigned, then the copy finalized: it only detaches (no double release).
  allocate(t, source=make_field(9, "finalized copy"))
  u = t
  deallocate(t)
  if (dv_handle_count() /= n0 + 6) error stop "function_result: the finalized copy released nothing"
  if (round_trip(u, 9) /= 9.0d0) error stop "function_result: u survives the finalized copy"
  !    b) never assigned, then finalized: released.
  allocate(t, source=make_field(9, "never assigned"))
  if (t%extent(1) /= 9 .or. dv_handle_count() /= n0 + 7) error stop "function_result: a result in use"
  deallocate(t)
  if (dv_handle_count() /= n0 + 6) error stop "function_result: a finalized result never assigned is released"

  call u%destroy()
  do i = 1, 3
    call arr(i)%destroy()
    call fixed(i)%destroy()
  end do
  if (dv_handle_count() /= n0) error stop "function_result: every handle released"
  print '(a)', "function_result: PASS (no handle left: loops, arrays, handed-on and finalized results)"
contains
  !> The way legacy codes write constructors.
  function make_field(n, label) result(f)
    integer, intent(in) :: n
    character(len=*), intent(in) :: label
    type(dualview_t) :: f
    real(8), pointer :: p(:)
    integer :: i
    call f%create(label, DV_DTYPE_FLOAT64, [n], space=DV_SPACE_TEST_DEVICE)
    call f%host(p)
    p = [(real(i, 8), i = 1, n)]
    call f%modify_host()
    call f%as_result()
  end function

  !> An array of DualViews built by one function.
  function make_fields(k, n) result(r)
    integer, intent(in) :: k, n
    type(dualview_t) :: r(k)
    integer :: i
    do i = 1, k
      call r(i)%create("fields", DV_DTYPE_FLOAT64, [n * i], space=DV_SPACE_TEST_DEVICE)
    end do
    call r%as_result()
  end function

  !> A function that returns what another one made (a taken result, marked again).
  function wrap_field(n) result(f)
    integer, intent(in) :: n
    type(dualview_t) :: f
    f = make_field(n, "wrapped")
    call f%as_result()
  end function

  !> The value at i after a round trip through the device side.
  real(8) function round_trip(a, i) result(x)
    type(dualview_t), intent(inout) :: a
    integer, intent(in) :: i
    real(8), pointer :: p(:)
    call a%sync_device()
    call a%modify_device()
    call a%sync_host()
    call a%host(p, mode=DV_ACCESS_READ)
    x = p(i)
  end function
end program
