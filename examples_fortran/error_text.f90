! Error messages name what went wrong in the caller's terms: the object's state, the
! 1-based dim and its valid range, a negative extent, both types of a kind mismatch.
program error_text
  use, intrinsic :: iso_fortran_env, only: real32, real64, int8, int32, int64
  use dualview
  implicit none
  type(dualview_t) :: a, never
  type(dualview_t), allocatable :: copy
  real(real32), pointer :: p32(:,:)
  real(real64), pointer :: p64(:)
  integer(int8), pointer :: q8(:,:)
  integer(int64) :: e
  integer :: stat
  logical :: l
  character(len=:), allocatable :: msg

  ! Never created: say so (not "argument dv is NULL").
  call never%sync_device(stat=stat, errmsg=msg)
  call expect("never created", stat, DV_ERROR_INVALID_HANDLE, msg, ["has not been created", "sync_device         "])
  if (index(msg, "NULL") /= 0) error stop "error_text: the message must not talk about NULL"
  e = never%extent(1, stat=stat, errmsg=msg)
  call expect("never created extent", stat, DV_ERROR_INVALID_HANDLE, msg, ["has not been created"])

  ! Destroyed: say so.
  call a%create("A", DV_DTYPE_FLOAT64, [4, 3], space=DV_SPACE_TEST_DEVICE)
  call a%destroy()
  l = a%need_sync_host(stat=stat, errmsg=msg)
  call expect("destroyed", stat, DV_ERROR_INVALID_HANDLE, msg, ["has been destroyed"])
  if (index(msg, "NULL") /= 0) error stop "error_text: the message must not talk about NULL"

  ! extent(dim): the dim the caller gave (1-based) and the valid range.
  call a%create("A", DV_DTYPE_FLOAT64, [4, 3], space=DV_SPACE_TEST_DEVICE)
  e = a%extent(0, stat=stat, errmsg=msg)
  call expect("extent(0)", stat, DV_ERROR_OUT_OF_RANGE, msg, ["dim 0     ", "rank 2    ", "1 to 2    "])
  e = a%extent(3, stat=stat, errmsg=msg)
  call expect("extent(3)", stat, DV_ERROR_OUT_OF_RANGE, msg, ["dim 3 ", "1 to 2"])
  e = a%extent(-1_int64, stat=stat, errmsg=msg)
  call expect("extent(-1)", stat, DV_ERROR_OUT_OF_RANGE, msg, ["dim -1", "1 to 2"])

  ! Negative extents: reported as negative, with the dim, before C sees them.
  call a%create("B", DV_DTYPE_FLOAT64, [4, -3], stat=stat, errmsg=msg)
  call expect("create([4, -3])", stat, DV_ERROR_INVALID_ARGUMENT, msg, ["extent -3", "dim 2    ", "negative "])
  if (a%label() /= "A") error stop "error_text: a refused create leaves the DualView as it was"
  call a%resize([-1_int64, 3_int64], stat=stat, errmsg=msg)
  call expect("resize([-1, 3])", stat, DV_ERROR_INVALID_ARGUMENT, msg, ["resize   ", "extent -1", "dim 1    ", "negative "])
  call a%realloc([4, -2], stat=stat, errmsg=msg)
  call expect("realloc([4, -2])", stat, DV_ERROR_INVALID_ARGUMENT, msg, ["realloc  ", "extent -2", "negative "])
  if (a%extent(1) /= 4 .or. a%extent(2) /= 3) error stop "error_text: a refused resize changes nothing"

  ! host(p) of the wrong kind: both types.
  call a%host(p32, stat=stat, errmsg=msg)
  call expect("real32 pointer on float64", stat, DV_ERROR_INCOMPATIBLE, msg, ["real(real32)", "float64     "])
  call a%host(q8, stat=stat, errmsg=msg)
  call expect("int8 pointer on float64", stat, DV_ERROR_INCOMPATIBLE, msg, ["integer(int8)", "float64      "])
  ! ... and of the wrong rank: both ranks.
  call a%host(p64, stat=stat, errmsg=msg)
  call expect("rank-1 pointer on rank 2", stat, DV_ERROR_RANK_MISMATCH, msg, ["rank 1", "rank 2"])
  call a%create("I", DV_DTYPE_INT32, [2, 2])
  call a%host(p32, stat=stat, errmsg=msg)
  call expect("real32 pointer on int32", stat, DV_ERROR_INCOMPATIBLE, msg, ["real(real32)", "int32       "])

  ! The C library's words become the caller's: a shape too large names `shape`, not the
  ! descriptor's field; a dead handle is this dualview_t's, not an address.
  call a%create("H", DV_DTYPE_FLOAT64, [huge(1_int64) / 2, 3_int64], stat=stat, errmsg=msg)
  if (stat == DV_OK) error stop "error_text: a shape of 2**62 x 3 elements is refused"
  call expect("create([2**62, 3])", stat, stat, msg, ["dualview_t%create", "`shape`          "])
  if (index(msg, "desc") /= 0) error stop "error_text: no C descriptor in a Fortran message"
  call a%create("A", DV_DTYPE_FLOAT64, [4], space=DV_SPACE_TEST_DEVICE)
  allocate(copy, source=a)          ! a raw copy: borrows a's handle
  call a%destroy()
  call copy%sync_host(stat=stat, errmsg=msg)
  call expect("a raw copy of a destroyed DualView", stat, DV_ERROR_INVALID_HANDLE, msg, &
              ["this dualview_t's handle", "allocate(x, source=a)   "])
  if (index(msg, "0x") /= 0) error stop "error_text: no address in a Fortran message"
  deallocate(copy)

  call a%destroy()
  deallocate(msg)

contains

  !> stat must be `code` and msg must contain every one of `parts` (trimmed).
  subroutine expect(what, stat, code, msg, parts)
    character(len=*), intent(in) :: what
    integer, intent(in) :: stat, code
    character(len=*), intent(in) :: msg
    character(len=*), intent(in) :: parts(:)
    integer :: i
    if (stat /= code) then
      print '(a)', what // ": " // msg
      error stop "error_text: wrong status"
    end if
    do i = 1, size(parts)
      if (index(msg, trim(parts(i))) == 0) then
        print '(a)', what // ": """ // msg // """ lacks """ // trim(parts(i)) // """"
        error stop "error_text: the message lacks a detail"
      end if
    end do
    print '(a)', what // ": " // msg
  end subroutine
end program
