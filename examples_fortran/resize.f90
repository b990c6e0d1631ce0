! resize keeps the data of both sides.
program resize_keep
  use, intrinsic :: iso_fortran_env, only: int32
  use dualview
  implicit none
  type(dualview_t) :: a
  integer(int32), pointer :: p(:,:)
  integer :: i, j

  call a%create("grow", DV_DTYPE_INT32, [4, 3], space=DV_SPACE_TEST_DEVICE)
  call a%host(p)
  do j = 1, 3
    do i = 1, 4
      p(i, j) = 10 * i + j
    end do
  end do
  call a%sync_device()
  call a%resize([6, 5])
  if (a%extent(1) /= 6 .or. a%extent(2) /= 5 .or. a%rank() /= 2) error stop "resize: wrong extents"
  if (a%need_sync_host() .or. a%need_sync_device()) error stop "resize: flags must not change"
  call a%host(p, mode=DV_ACCESS_READ)
  do j = 1, 5
    do i = 1, 6
      if (i <= 4 .and. j <= 3) then
        if (p(i, j) /= 10 * i + j) error stop "resize: data lost"
      else
        if (p(i, j) /= 0) error stop "resize: new elements must be zero"
      end if
    end do
  end do
  print '(a)', "resize: 4x3 -> 6x5 kept every value, label " // a%label()
  call a%destroy()
end program
