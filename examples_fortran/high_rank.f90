! host(p) and wrap for ranks 5 to 8: values written through a rank-5 and a rank-8
! host pointer reach the test device in column-major order (read back through
! device_ptr), and come back to the host after a device-side change.
program high_rank
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use, intrinsic :: iso_fortran_env, only: real64, int32
  use dualview
  implicit none
  type(dualview_t) :: a, b, w
  real(real64), pointer :: p5(:,:,:,:,:), d(:)
  integer(int32), pointer :: p8(:,:,:,:,:,:,:,:), e(:), q8(:,:,:,:,:,:,:,:)
  real(real64), pointer :: q4(:,:,:,:)
  integer(int32), allocatable, target :: arr(:,:,:,:,:,:,:,:)
  type(c_ptr) :: cp
  integer :: i1, i2, i3, i4, i5, k, stat
  character(len=:), allocatable :: msg

  ! Rank 5, real64: element (i1,...,i5) is at offset (i1-1) + 2*(i2-1) + 6*(i3-1) + 24*(i4-1) + 48*(i5-1).
  call a%create("r5", DV_DTYPE_FLOAT64, [2, 3, 4, 2, 3], space=DV_SPACE_TEST_DEVICE)
  call a%host(p5)
  if (any(shape(p5) /= [2, 3, 4, 2, 3])) error stop "high_rank: rank-5 shape"
  do i5 = 1, 3
    do i4 = 1, 2
      do i3 = 1, 4
        do i2 = 1, 3
          do i1 = 1, 2
            p5(i1, i2, i3, i4, i5) = i1 + 10 * i2 + 100 * i3 + 1000 * i4 + 10000 * i5
          end do
        end do
      end do
    end do
  end do
  call a%sync_device()
  cp = a%device_ptr(mode=DV_ACCESS_READ_WRITE)
  call c_f_pointer(cp, d, [144])
  if (d(1) /= 11111 .or. d(144) /= 2 + 30 + 400 + 2000 + 30000) error stop "high_rank: rank-5 device copy ends"
  if (d(1 + 1 + 6*2 + 24*1) /= 12312) error stop "high_rank: rank-5 column-major, element (2, 1, 3, 2, 1)"
  d(1 + 1 + 2*1 + 6*2 + 24*0 + 48*1) = -5      ! element (2, 2, 3, 1, 2), on the device
  call a%host(p5, mode=DV_ACCESS_READ)          ! device -> host
  if (p5(2, 2, 3, 1, 2) /= -5 .or. p5(1, 1, 1, 1, 1) /= 11111) error stop "high_rank: rank-5 round trip"

  ! Rank 8, int32, 2 x 1 x 3 x 1 x 2 x 1 x 1 x 2 = 24 elements.
  call b%create("r8", DV_DTYPE_INT32, [2, 1, 3, 1, 2, 1, 1, 2], space=DV_SPACE_TEST_DEVICE)
  call b%host(p8)
  if (any(shape(p8) /= [2, 1, 3, 1, 2, 1, 1, 2])) error stop "high_rank: rank-8 shape"
  p8 = reshape([(k, k = 1, 24)], shape(p8))
  call b%sync_device()
  call c_f_pointer(b%device_ptr(), e, [24])     ! marks the device modified
  if (any(e /= [(k, k = 1, 24)])) error stop "high_rank: rank-8 device copy"
  e(24) = 240
  call b%host(p8, mode=DV_ACCESS_READ)
  if (p8(2, 1, 3, 1, 2, 1, 1, 2) /= 240 .or. p8(1, 1, 2, 1, 1, 1, 1, 1) /= 3) error stop "high_rank: rank-8 round trip"

  ! A wrong rank or type is refused at every rank.
  call b%host(q4, stat=stat, errmsg=msg)
  if (stat /= DV_ERROR_INCOMPATIBLE .or. associated(q4)) error stop "high_rank: real64 pointer on int32"
  call a%host(q8, stat=stat, errmsg=msg)
  if (stat /= DV_ERROR_INCOMPATIBLE .or. associated(q8)) error stop "high_rank: int32 pointer on real64"

  ! wrap of a rank-8 array: the DualView is the array.
  allocate(arr(1, 2, 1, 2, 1, 2, 1, 2))
  arr = 7
  call w%wrap("w8", arr)
  if (w%rank() /= 8 .or. w%extent(8) /= 2) error stop "high_rank: wrap rank 8"
  call w%host(q8)
  q8(1, 2, 1, 2, 1, 2, 1, 2) = 9
  if (arr(1, 2, 1, 2, 1, 2, 1, 2) /= 9 .or. sum(arr) /= 7 * 15 + 9) error stop "high_rank: wrap shares the memory"

  print '(a)', "high_rank: rank 5 and rank 8 host pointers and wrap round trip"
  call a%destroy()
  call b%destroy()
  call w%destroy()
  deallocate(arr, msg)
end program
