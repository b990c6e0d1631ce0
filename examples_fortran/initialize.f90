! Kokkos 4's device mapping from Fortran (dualview_initialize): the launcher's node-local
! rank picks the device, modulo the visible devices; an explicit id wins; a bad value is
! an error naming its option. The test device's 64 ordinals stand in for GPUs; the
! launcher variable comes from the ctest's environment (OMPI_COMM_WORLD_LOCAL_RANK=5,
! KOKKOS_VISIBLE_DEVICES=2,4,6).
program initialize
  use, intrinsic :: iso_c_binding, only: c_int32_t
  use dualview
  implicit none
  integer(c_int32_t) :: d
  type(dualview_t) :: a
  type(dv_info_t) :: info
  logical :: mapped
  integer :: stat
  character(len=:), allocatable :: msg

  call dualview_initialize(d, space=DV_SPACE_TEST_DEVICE, mapped=mapped)
  if (.not. mapped .or. d /= 6) error stop "initialize: local rank 5 of visible devices 2,4,6 is device 6"
  call a%create("u", DV_DTYPE_FLOAT64, [8], space=DV_SPACE_TEST_DEVICE, ordinal=d)
  info = a%info()
  if (info%ordinal /= 6) error stop "initialize: the DualView is on the mapped device"
  call dualview_initialize(d, space=DV_SPACE_TEST_DEVICE, device_id=0)
  if (d /= 2) error stop "initialize: an explicit id indexes the visible devices"
  call dualview_initialize(d, space=DV_SPACE_TEST_DEVICE, map_device_id_by="random")
  if (d /= 2 .and. d /= 4 .and. d /= 6) error stop "initialize: random stays among the visible devices"
  call dualview_initialize(d, space=DV_SPACE_TEST_DEVICE, map_device_id_by="node", stat=stat, errmsg=msg)
  if (stat /= DV_ERROR_INVALID_ARGUMENT .or. index(msg, "map_device_id_by: 'node' is not recognized") == 0) &
    error stop "initialize: an unknown map_device_id_by names its option: " // msg
  call dualview_initialize(d, space=DV_SPACE_TEST_DEVICE, device_id=3, stat=stat, errmsg=msg)
  if (stat /= DV_ERROR_INVALID_ARGUMENT .or. index(msg, "device id 3: 3 visible device(s)") == 0) &
    error stop "initialize: an id past the visible devices: " // msg
  call a%destroy()
  deallocate(msg)   ! a main program's allocatable is not freed at its end by gfortran
  print '(a)', "initialize: PASS (rank 5 -> device 6; id 0 -> 2; random; bad values named)"
end program
