! complete program
program quickstart
  use, intrinsic :: iso_fortran_env, only: real64
  use dualview
  implicit none
  type(dualview_t) :: t
  real(real64), pointer :: u(:,:)
  integer :: space

  ! The device side: CUDA memory on a GPU node, otherwise one host allocation.
  space = DV_SPACE_HOST
  if (cuda_available()) space = DV_SPACE_CUDA

  ! 100 x 80 doubles, column-major (LayoutLeft): u(i, j) is element (i-1) + 100*(j-1)
  call t%create("T", DV_DTYPE_FLOAT64, [100, 80], space=space)

  call t%host(u)          ! syncs the host if the device is newer, marks the host modified
  u = 0
  u(1, :) = 100
  call t%sync_device()    ! host -> device, only when the host is newer

  ! ... a kernel works on the device side (t%device_ptr() for OpenACC deviceptr / CUDA Fortran) ...
  call t%modify_device()
  call t%host(u, mode=DV_ACCESS_READ)   ! device -> host when the device is newer, then read
  if (abs(sum(u) - 8000) > 0) error stop "quickstart: wrong sum"
  print '(a, f0.1, a, l1)', "quickstart: sum ", sum(u), ", on a GPU: ", space == DV_SPACE_CUDA
  call t%destroy()        ! variables of the main program are never finalized: destroy them
end program
