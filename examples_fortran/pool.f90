! The pool of registered host blocks (DECISIONS S11): a DualView whose mirror registered
! leaves its block kept for the next one; dv_pool_release() gives the bytes back.
program pool
  use, intrinsic :: iso_fortran_env, only: real64, int64
  use dualview
  implicit none
  type(dualview_t) :: a
  real(real64), pointer :: u(:)
  integer(int64) :: n
  integer :: stat
  integer :: round

  n = dv_pool_release()               ! start empty
  do round = 1, 2                     ! a size is kept once it churns (made again after it went)
    call a%create("P", DV_DTYPE_FLOAT64, [262144], space=DV_SPACE_TEST_DEVICE)   ! 2 MiB
    call a%host(u)
    u = 1
    call a%sync_device()              ! registers the mirror at the latest
    call a%destroy()                  ! the second time, the registered block is kept
  end do
  n = dv_pool_release(stat=stat)
  if (stat /= DV_OK .or. n /= 2097152_int64) error stop "pool: the kept 2 MiB comes back"
  if (dv_pool_release() /= 0) error stop "pool: nothing is left"
  print '(a, i0, a)', "pool: released ", n, " bytes"
end program
