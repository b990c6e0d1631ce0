! Issue 20 (3): wrap(label, u, space=...) adopts a legacy allocatable: u stays the
! host side, dualview allocates the device side, the host is marked modified.
! Then u is deallocated before the DualView is destroyed: allowed (destroy reads and
! frees nothing of it), run under valgrind by ctest.
program adopt
  use, intrinsic :: iso_c_binding, only: c_f_pointer, c_int64_t
  use, intrinsic :: iso_fortran_env, only: real64
  use dualview
  implicit none
  real(real64), allocatable, target :: u(:, :)
  real(real64), pointer :: d(:, :)
  type(dualview_t) :: a
  type(dv_stats_t) :: s
  integer :: st

  allocate(u(100, 50))
  u = 1.5
  call a%wrap("legacy", u, space=DV_SPACE_TEST_DEVICE)
  call expect(a%need_sync_device(), "the array holds the data: the host is marked modified")
  call a%sync_device()
  call c_f_pointer(a%device_ptr(mode=DV_ACCESS_READ), d, [100, 50])
  call expect(all(d == 1.5), "the legacy values reached the device side")
  d = 2.5                              ! a kernel
  call a%modify_device()
  call a%sync_host()
  call expect(all(u == 2.5), "the result came back into the legacy array")
  s = a%stats()
  call expect(s%to_device_bytes == 100_c_int64_t * 50 * 8 .and. s%to_host_bytes == 100_c_int64_t * 50 * 8, "one copy each way")
  call a%resize([200, 50], stat=st)
  call expect(st == DV_ERROR_UNMANAGED, "the legacy array is never reallocated")
  deallocate(u)                        ! the array goes first ...
  call a%destroy()                     ! ... then the DualView: nothing of u is read or freed
  call expect(dv_handle_count() == 0, "no handle left")
  print '(a)', "adopt: the legacy array was the host side; deallocated first, destroyed cleanly"

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a)', "FAILED: " // what
      error stop 1
    end if
  end subroutine
end program
