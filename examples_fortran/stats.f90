! Transfer statistics: a%stats() counts this DualView's copying syncs and bytes,
! dualview_stats() those of every DualView; both reset. Test device: every sync copies.
program stats
  use, intrinsic :: iso_fortran_env, only: real64, int64
  use dualview
  implicit none
  type(dualview_t) :: a, b, dead
  type(dv_stats_t) :: s, g
  real(real64), pointer :: u(:,:)
  integer :: stat
  character(len=:), allocatable :: msg

  call dualview_stats_reset()
  call a%create("T", DV_DTYPE_FLOAT64, [100, 80], space=DV_SPACE_TEST_DEVICE)
  s = a%stats()
  if (s%to_device_count /= 0 .or. s%to_host_count /= 0) error stop "stats: a new DualView has copied nothing"

  call a%host(u)              ! marks the host modified
  u = 1
  call a%sync_device()        ! one copy of 100 * 80 * 8 bytes to the device
  call a%sync_device()        ! up to date: no copy
  s = a%stats()
  if (s%to_device_count /= 1 .or. s%to_device_bytes /= 64000_int64) error stop "stats: one copy of 64000 bytes to device"
  if (s%to_host_count /= 0 .or. s%to_host_bytes /= 0) error stop "stats: nothing copied to the host"

  call a%modify_device()
  call a%sync_host()          ! one copy back
  s = a%stats()
  if (s%to_host_count /= 1 .or. s%to_host_bytes /= 64000_int64) error stop "stats: one copy of 64000 bytes to host"

  ! A second DualView counts in the global counters, not in a's.
  call b%create("B", DV_DTYPE_FLOAT64, [10], space=DV_SPACE_TEST_DEVICE)
  call b%modify_host()
  call b%sync_device()
  g = dualview_stats()
  if (g%to_device_count /= 2 .or. g%to_device_bytes /= 64080_int64) error stop "stats: global counts both DualViews"
  if (g%to_host_count /= 1 .or. g%to_host_bytes /= 64000_int64) error stop "stats: global counts the copy back"
  s = a%stats()
  if (s%to_device_count /= 1) error stop "stats: b's copy is not a's"

  ! Copies share the counters of their DualView.
  b = a
  s = b%stats()
  if (s%to_device_bytes /= 64000_int64) error stop "stats: a copy sees its DualView's counters"

  call a%stats_reset()
  s = a%stats()
  if (s%to_device_count /= 0 .or. s%to_host_count /= 0 .or. s%to_device_bytes /= 0) error stop "stats: reset zeroes a"
  g = dualview_stats()
  if (g%to_device_count /= 2) error stop "stats: a%stats_reset keeps the global counters"
  call dualview_stats_reset(stat=stat)
  if (stat /= DV_OK) error stop "stats: global reset"
  g = dualview_stats()
  if (g%to_device_count /= 0 .or. g%to_host_bytes /= 0) error stop "stats: global reset zeroes"

  ! On failure: stat, message, all-zero result.
  call a%host(u)
  call a%sync_device()
  s = dead%stats(stat=stat, errmsg=msg)
  if (stat /= DV_ERROR_INVALID_HANDLE .or. s%to_device_count /= 0) error stop "stats: a DualView never created"
  if (index(msg, "dualview_t%stats") /= 1) error stop "stats: the message names the procedure"
  call dead%stats_reset(stat=stat)
  if (stat /= DV_ERROR_INVALID_HANDLE) error stop "stats: stats_reset of a DualView never created"
  s = a%stats()
  if (s%to_device_count /= 1) error stop "stats: a failed call changes nothing"

  print '(a, i0, a, i0, a)', "stats: ", s%to_device_count, " copy of ", s%to_device_bytes, " bytes to device"
  call a%destroy()
  call b%destroy()
  deallocate(msg)
end program
