! Issue 20 from Fortran: checked mode (flags=DV_FLAG_CHECKED) catches a kernel's
! write with no modify_device (M02), a host write with no modify_host (M03) and
! both sides written (M04), with messages in Fortran terms; a write access keeps
! the device's newer interior (M01) and DV_ACCESS_OVERWRITE drops it; subview
! bounds are checked.
program checked
  use, intrinsic :: iso_c_binding, only: c_f_pointer
  use, intrinsic :: iso_fortran_env, only: real64
  use dualview
  implicit none
  type(dualview_t) :: a, b, s
  real(real64), pointer :: d(:, :), h(:, :)
  integer :: st
  character(len=:), allocatable :: msg

  call a%create("field", DV_DTYPE_FLOAT64, [10, 4], space=DV_SPACE_TEST_DEVICE, flags=DV_FLAG_CHECKED)
  call c_f_pointer(a%device_ptr(mode=DV_ACCESS_READ), d, [10, 4])  ! a pointer saved for reading
  ! M02: a kernel wrote the device through the saved pointer; modify_device() forgotten.
  d(8, 3) = 1
  call a%sync_host(stat=st, errmsg=msg)
  call expect(st == DV_ERROR_UNMARKED_CHANGE, "M02 caught: " // msg)
  call expect(index(msg, "dualview_t%sync_host: ") == 1, "named as in Fortran: " // msg)
  call expect(index(msg, "the device side changed without a%modify_device(): call a%modify_device() after writing " &
                    // "the device side") > 0, "M02 says what, in Fortran terms: " // msg)
  call expect(index(msg, "dv_") == 0, "no C name: " // msg)
  call expect(index(msg, "(8, 3) (Fortran indices, from 1)") > 0, "M02 says where, from 1: " // msg)
  call expect(.not. a%need_sync_host(), "M02: nothing marked")
  call a%modify_device()
  call a%sync_host()
  ! M03: the halo received into the host side; modify_host() forgotten.
  call a%host(h, mode=DV_ACCESS_READ)
  call expect(h(8, 3) == 1, "the kernel's value came back")
  h(1, 1) = -1
  call a%sync_device(stat=st, errmsg=msg)
  call expect(st == DV_ERROR_UNMARKED_CHANGE .and. index(msg, "host side changed without a%modify_host()") > 0, &
              "M03 caught: " // msg)
  call a%modify_host()
  call a%sync_device()
  ! M04: both sides written; the sync would overwrite one.
  call a%modify_host()
  h(2, 2) = 5
  d(3, 3) = 6
  call a%sync_device(stat=st, errmsg=msg)
  call expect(st == DV_ERROR_UNMARKED_CHANGE .and. index(msg, "both sides") > 0, "M04 caught: " // msg)
  call a%clear_sync_state()
  ! Subviews: bounds from 1, inclusive, one pair per dimension.
  call a%subview(s, [1, 5], [10, 5], stat=st, errmsg=msg)
  call expect(st == DV_ERROR_OUT_OF_RANGE, "a column past the end is refused: " // msg)
  call a%subview(s, [1, 3], [10, 1], stat=st, errmsg=msg)
  call expect(st == DV_ERROR_OUT_OF_RANGE, "a reversed range is refused: " // msg)
  call a%subview(s, [1], [10], stat=st, errmsg=msg)
  call expect(st == DV_ERROR_RANK_MISMATCH, "one pair per dimension: " // msg)
  call a%subview(s, [1, 4], [10, 4])
  call expect(s%extent(1) == 10 .and. s%extent(2) == 1, "the last column")
  call s%destroy()
  call a%destroy()

  ! M01: halos written through a write access keep the device's newer interior.
  call b%create("heat", DV_DTYPE_FLOAT64, [6, 6], space=DV_SPACE_TEST_DEVICE)
  call c_f_pointer(b%device_ptr(mode=DV_ACCESS_READ), d, [6, 6])
  d = 7
  call b%modify_device()
  call b%host(h, mode=DV_ACCESS_WRITE)
  h(1, :) = 0
  call b%sync_device()
  call expect(all(d(2:6, :) == 7) .and. all(d(1, :) == 0), "M01: the interior survives a write access")
  ! DV_ACCESS_OVERWRITE says it drops the device's change: nothing is copied.
  d = 9
  call b%modify_device()
  call b%host(h, mode=DV_ACCESS_OVERWRITE)
  call expect(h(3, 3) == 7, "overwrite: the device's 9 is not copied")
  call b%destroy()
  deallocate(msg)                     ! variables of the main program are never finalized
  print '(a)', "checked: M01 to M04 caught or fixed, in Fortran terms"

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
