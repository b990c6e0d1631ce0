! 64-bit sizes: a rank-1 DualView of more than 2**31 int8 elements on the test device
! (host memory posing as a device: pages are only touched where written), created
! from an integer(int64) extent; extent() and the host pointer see the 64-bit size.
program big_extent
  use, intrinsic :: iso_fortran_env, only: int8, int32, int64
  use dualview
  implicit none
  integer(int64), parameter :: n = 2_int64**31 + 5
  type(dualview_t) :: a
  type(dv_info_t) :: info
  integer(int8), pointer :: p(:)
  integer(int32), pointer :: q(:,:)

  call a%create("big", DV_DTYPE_INT8, [n], space=DV_SPACE_TEST_DEVICE, flags=DV_FLAG_WITHOUT_INITIALIZING)
  if (a%extent(1) /= n) error stop "big_extent: extent(1) must be 2**31 + 5"
  if (a%extent(1_int64) /= n) error stop "big_extent: extent(1_int64) must be 2**31 + 5"
  info = a%info()
  if (info%elem_size /= 1 .or. info%rank /= 1) error stop "big_extent: one int8 axis"
  call a%host(p, mode=DV_ACCESS_WRITE)           ! no copy: only two pages are touched
  if (size(p, kind=int64) /= n .or. ubound(p, 1, kind=int64) /= n) error stop "big_extent: the pointer has 2**31 + 5 elements"
  p(1) = 7
  p(n) = -3
  if (p(1) /= 7 .or. p(n) /= -3) error stop "big_extent: first and last element"
  if (.not. a%need_sync_device()) error stop "big_extent: the host was written"
  call a%destroy()

  ! 64-bit extents everywhere a size goes: create, resize, realloc, extent.
  call a%create("small", DV_DTYPE_INT32, [3_int64, 2_int64], space=DV_SPACE_TEST_DEVICE)
  call a%host(q)
  q = 5
  call a%resize([4_int64, 2_int64])
  call a%host(q, mode=DV_ACCESS_READ)
  if (a%extent(1_int64) /= 4 .or. a%extent(2) /= 2 .or. q(3, 2) /= 5 .or. q(4, 2) /= 0) &
    error stop "big_extent: resize with 64-bit extents"
  call a%realloc([1_int64, 6_int64])
  if (a%extent(2_int64) /= 6) error stop "big_extent: realloc with 64-bit extents"
  call a%destroy()
  print '(a, i0, a)', "big_extent: ", n, " int8 elements, extent() and size() agree"
end program
