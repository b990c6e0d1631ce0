! A heat-equation step on a 2-D array held in a DualView: host update through
! a Fortran pointer, sync to the device side, and a round trip checked.
program heat
  use, intrinsic :: iso_fortran_env, only: real64
  use dualview
  implicit none
  integer, parameter :: nx = 40, ny = 30, steps = 20
  type(dualview_t) :: t, tn, copy
  real(real64), pointer :: u(:,:), v(:,:)
  integer :: i, j, k, stat
  real(real64) :: total

  call t%create("T", DV_DTYPE_FLOAT64, [nx, ny], space=DV_SPACE_TEST_DEVICE)
  call tn%create("Tnew", DV_DTYPE_FLOAT64, [nx, ny], space=DV_SPACE_TEST_DEVICE)
  call t%host(u)
  u = 0
  u(1, :) = 100
  do k = 1, steps
    call t%host(u, mode=DV_ACCESS_READ)
    call tn%host(v, mode=DV_ACCESS_WRITE)
    v = u
    do j = 2, ny - 1
      do i = 2, nx - 1
        v(i, j) = u(i, j) + 0.2_real64 * (u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1) - 4 * u(i, j))
      end do
    end do
    call t%host(u, mode=DV_ACCESS_WRITE)
    u = v
  end do
  if (.not. t%need_sync_device()) error stop "heat: the host should be newer"
  call t%sync_device()

  ! Round trip: forget the host copy, take the device's back.
  copy = t                      ! shares the DualView (defined assignment)
  call copy%host(u, mode=DV_ACCESS_WRITE)
  u = -1
  call t%clear_sync_state()
  call t%modify_device()
  call t%host(u, mode=DV_ACCESS_READ)
  total = sum(u)
  if (abs(u(1, 5) - 100) > 0 .or. u(2, 5) <= 0 .or. u(2, 5) >= 100) error stop "heat: wrong values"
  print '(a, i0, a, f12.4)', "heat: ", steps, " steps, total heat ", total
  call copy%destroy()
  call t%destroy()
  call t%destroy(stat=stat)     ! idempotent
  if (stat /= DV_OK) error stop "heat: a second destroy must be a no-op"
  call tn%destroy()
end program
