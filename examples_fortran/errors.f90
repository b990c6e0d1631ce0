! Errors come back through stat / errmsg; without stat the program would stop with the message.
program errors
  use, intrinsic :: iso_fortran_env, only: real64
  use dualview
  implicit none
  type(dualview_t) :: a, r
  real(real64), pointer :: p(:,:), q(:)
  integer :: stat
  character(len=:), allocatable :: msg

  call a%create("A", DV_DTYPE_FLOAT64, [4, 4], space=DV_SPACE_TEST_DEVICE)
  call a%modify_host()
  call a%modify_device(stat=stat, errmsg=msg)
  if (stat /= DV_ERROR_CONCURRENT_MODIFICATION) error stop "errors: expected a concurrent modification"
  ! The advice in Fortran terms (issue 35).
  if (index(msg, "call a%sync_device() before writing the device side") == 0 .or. &
      index(msg, "or a%clear_sync_state() to drop that change") == 0) error stop "errors: advice in Fortran terms"
  print '(a)', "caught: " // msg
  call a%host(q, stat=stat, errmsg=msg)
  if (stat /= DV_ERROR_RANK_MISMATCH .or. associated(q)) error stop "errors: expected a rank mismatch"
  print '(a)', "caught: " // msg
  call r%create("R", DV_DTYPE_FLOAT64, [4, 4], layout=DV_LAYOUT_RIGHT)
  call r%host(p, stat=stat, errmsg=msg)
  if (stat /= DV_ERROR_INCOMPATIBLE) error stop "errors: LayoutRight must be refused"
  print '(a)', "caught: " // msg
  call a%create("B", DV_DTYPE_FLOAT64, [2, 2, 2, 2, 2, 2, 2, 2, 2], stat=stat, errmsg=msg)
  if (stat /= DV_ERROR_RANK) error stop "errors: expected a rank error"
  print '(a)', "caught: " // msg
  call a%create("C", DV_DTYPE_FLOAT64, [4], space=DV_SPACE_CUDA, ordinal=99, stat=stat, errmsg=msg)
  if (stat /= DV_ERROR_NO_DEVICE) error stop "errors: expected no device"
  print '(a)', "caught: " // msg
  if (a%label() /= "A") error stop "errors: a failed create must leave the DualView unchanged"
  call a%destroy()
  call r%destroy()
  deallocate(msg)   ! main-program allocatables are not freed at the end
end program
