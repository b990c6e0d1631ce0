! wrap() of a non-contiguous section is refused: the dummy is assumed-shape without
! `contiguous`, so no copy-in temporary is made and wrapped by mistake.
program wrap_noncontiguous
  use, intrinsic :: iso_fortran_env, only: real64, int32
  use dualview
  implicit none
  real(real64), target :: u(10, 4)
  integer(int32), target :: v(9)
  real(real64), pointer :: p(:,:)
  integer(int32), pointer :: q(:)
  type(dualview_t) :: a, b
  integer :: stat
  character(len=:), allocatable :: msg

  u = 1
  ! Every other row: refused, with a message naming the problem; nothing wrapped.
  call a%wrap("strided", u(1:10:2, :), stat=stat, errmsg=msg)
  if (stat /= DV_ERROR_INVALID_ARGUMENT) error stop "wrap_noncontiguous: a strided section must be refused"
  if (index(msg, "not contiguous") == 0) error stop "wrap_noncontiguous: the message must say the array is not contiguous"
  if (a%is_valid()) error stop "wrap_noncontiguous: nothing may be wrapped"
  print '(a)', "caught: " // msg
  ! Every other column, and a strided rank-1 section: refused too.
  call a%wrap("columns", u(:, 1:4:2), stat=stat)
  if (stat /= DV_ERROR_INVALID_ARGUMENT .or. a%is_valid()) error stop "wrap_noncontiguous: u(:, 1:4:2) must be refused"
  call a%wrap("every other", v(1:9:2), stat=stat)
  if (stat /= DV_ERROR_INVALID_ARGUMENT .or. a%is_valid()) error stop "wrap_noncontiguous: v(1:9:2) must be refused"

  ! A refused wrap leaves a DualView that was already there untouched.
  call b%wrap("whole", u)
  call b%wrap("strided", u(2:10:2, :), stat=stat)
  if (stat /= DV_ERROR_INVALID_ARGUMENT) error stop "wrap_noncontiguous: refused"
  if (b%label() /= "whole") error stop "wrap_noncontiguous: a refused wrap must keep the old DualView"
  call b%host(p)
  if (.not. associated(p, u)) error stop "wrap_noncontiguous: b still wraps u"

  ! Contiguous sections are wrapped in place: the pointer is the section itself.
  call a%wrap("middle columns", u(:, 2:3), stat=stat)
  if (stat /= DV_OK) error stop "wrap_noncontiguous: u(:, 2:3) is contiguous"
  call a%host(p)
  if (.not. associated(p, u(:, 2:3))) error stop "wrap_noncontiguous: the pointer must be u(:, 2:3) itself"
  p(4, 1) = 42
  if (u(4, 2) /= 42) error stop "wrap_noncontiguous: writes must reach u"
  v = 0
  call a%wrap("tail", v(3:9))
  call a%host(q)
  q(1) = 7
  if (v(3) /= 7 .or. a%extent(1) /= 7) error stop "wrap_noncontiguous: v(3:9) wrapped in place"

  call a%destroy()
  call b%destroy()
  if (any(u(:, 1) /= 1)) error stop "wrap_noncontiguous: the array must survive the DualViews"
  deallocate(msg)
end program
