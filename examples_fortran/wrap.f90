! A legacy Fortran array joins without a copy (unmanaged: never freed, never resized).
program wrap_legacy
  use, intrinsic :: iso_fortran_env, only: real32
  use dualview
  implicit none
  real(real32), target :: legacy(5, 4)
  real(real32), pointer :: p(:,:)
  type(dualview_t) :: a
  integer :: stat
  character(len=:), allocatable :: msg

  legacy = 1.5
  call a%wrap("legacy", legacy)
  call a%host(p)
  if (.not. associated(p, legacy)) error stop "wrap: the pointer must be the legacy array itself"
  p(2, 3) = 7
  if (legacy(2, 3) /= 7) error stop "wrap: writes must reach the legacy array"
  call a%resize([10, 4], stat=stat, errmsg=msg)
  if (stat /= DV_ERROR_UNMANAGED) error stop "wrap: resize of caller memory must be refused"
  print '(a)', "wrap: legacy array used in place; resize refused: " // msg
  call a%destroy()
  if (legacy(1, 1) /= 1.5) error stop "wrap: the array must survive the DualView"
  deallocate(msg)
end program
