! Copies the compiler makes without calling the defined assignment (issue 46): each is
! followed by a use of both copies (their values read back) and their deallocation in
! both orders, and the handle count must be back where it started. Run under valgrind
! (no invalid access, no leak). Each case runs in a procedure of its own, where gfortran
! finalizes its temporaries at the return, as in a real program.
module compiler_copies_support
  use, intrinsic :: iso_fortran_env, only: int32, int64
  use dualview
  implicit none
  type :: field_t
    type(dualview_t) :: data
    integer :: id = 0
  end type
  integer(int64) :: n0
contains
  !> A DualView of n values k*1000 + i, made in place.
  subroutine fill(a, n, k)
    type(dualview_t), intent(inout) :: a
    integer, intent(in) :: n, k
    integer(int32), pointer :: p(:)
    integer :: i
    call a%create("field", DV_DTYPE_INT32, [n], space=DV_SPACE_TEST_DEVICE)
    call a%host(p)
    p = [(k * 1000 + i, i = 1, n)]
    call a%modify_host()
  end subroutine

  !> A constructor function (docs/FORTRAN.md): as_result hands the handle over.
  function make_field(n, k) result(f)
    integer, intent(in) :: n, k
    type(dualview_t) :: f
    call fill(f, n, k)
    call f%as_result()
  end function

  !> Whether a holds n values k*1000 + i, read on the host after a device round trip.
  subroutine expect(a, n, k, what)
    type(dualview_t), intent(inout) :: a
    integer, intent(in) :: n, k
    character(len=*), intent(in) :: what
    integer(int32), pointer :: p(:)
    integer :: i, stat
    call a%sync_device()
    call a%host(p, mode=DV_ACCESS_READ, stat=stat)
    if (stat /= DV_OK) then
      print '(a)', "FAIL " // what // ": the DualView is gone"
      error stop 1
    end if
    if (size(p) /= n .or. any(p /= [(k * 1000 + i, i = 1, n)])) then
      print '(a)', "FAIL " // what // ": wrong values"
      error stop 1
    end if
  end subroutine

  subroutine expect_count(extra, what)
    integer, intent(in) :: extra
    character(len=*), intent(in) :: what
    if (dv_handle_count() /= n0 + extra) then
      print '(a, i0, a, i0)', "FAIL " // what // ": live handles ", dv_handle_count() - n0, ", expected ", extra
      error stop 1
    end if
  end subroutine

  !> allocate(t, source=u), u made in place (how = 1), assigned from another DualView
  !> (2) or from a constructor function (3); u deallocated first or last.
  subroutine sourced(how, u_first)
    integer, intent(in) :: how
    logical, intent(in) :: u_first
    type(dualview_t), allocatable :: u, t, v
    character(len=40) :: what
    write (what, '(a, i0, a, l1)') "allocate(source=) how ", how, " u first ", u_first
    allocate(u)
    select case (how)
    case (1)
      call fill(u, 5, 1)
    case (2)
      allocate(v)
      call fill(v, 5, 1)
      u = v
      deallocate(v)
    case (3)
      u = make_field(5, 1)
    end select
    allocate(t, source=u)
    call expect(t, 5, 1, trim(what) // " (the copy)")
    call expect(u, 5, 1, trim(what) // " (the original)")
    if (u_first) then
      deallocate(u)
      call expect(t, 5, 1, trim(what) // " (the copy outlives it)")
      deallocate(t)
    else
      deallocate(t)
      call expect(u, 5, 1, trim(what) // " (the original outlives its copy)")
      deallocate(u)
    end if
    call expect_count(0, trim(what))
  end subroutine

  !> dst = src for a derived type holding a dualview_t (gfortran assigns the component
  !> through a temporary and finalizes that temporary when this procedure returns).
  subroutine set(dst, src)
    type(field_t), intent(inout) :: dst
    type(field_t), intent(in) :: src
    dst = src
  end subroutine

  !> Intrinsic assignment of a type with a dualview_t component: into an empty and into a
  !> created component, used after the assigning procedure returns; either deallocated first.
  subroutine component(into_created, c1_first)
    logical, intent(in) :: into_created, c1_first
    type(field_t), allocatable :: c1, c2
    character(len=40) :: what
    write (what, '(a, l1, a, l1)') "component into created ", into_created, " c1 first ", c1_first
    allocate(c1, c2)
    call fill(c1%data, 4, 2)
    c1%id = 7
    if (into_created) call fill(c2%data, 9, 3)
    call set(c2, c1)
    call expect_count(2, trim(what) // " (a handle each)")
    if (c2%id /= 7) error stop "component: id"
    call expect(c2%data, 4, 2, trim(what) // " (the copy)")
    call expect(c1%data, 4, 2, trim(what) // " (the original)")
    if (c1_first) then
      deallocate(c1)
      call expect(c2%data, 4, 2, trim(what) // " (the copy outlives it)")
      deallocate(c2)
    else
      deallocate(c2)
      call expect(c1%data, 4, 2, trim(what) // " (the original outlives its copy)")
      deallocate(c1)
    end if
    call expect_count(0, trim(what))
  end subroutine

  !> An array constructor: assigned into an array (arr = [u, v]) or as the source of one
  !> (allocate(arr, source=[u, v])), u made in place, v assigned; the array or the
  !> originals deallocated first.
  subroutine constructor(sourced_array, arr_first)
    logical, intent(in) :: sourced_array, arr_first
    type(dualview_t), allocatable :: u, v, w, arr(:)
    character(len=40) :: what
    write (what, '(a, l1, a, l1)') "constructor sourced ", sourced_array, " arr first ", arr_first
    allocate(u, v, w)
    call fill(u, 3, 4)
    call fill(w, 6, 5)
    v = w
    deallocate(w)
    if (sourced_array) then
      allocate(arr, source=[u, v])
    else
      allocate(arr(2))
      arr = [u, v]
    end if
    call expect(arr(1), 3, 4, trim(what) // " (arr(1))")
    call expect(arr(2), 6, 5, trim(what) // " (arr(2))")
    call expect(u, 3, 4, trim(what) // " (u)")
    call expect(v, 6, 5, trim(what) // " (v)")
    if (arr_first) then
      deallocate(arr)
      call expect(u, 3, 4, trim(what) // " (u outlives arr)")
      call expect(v, 6, 5, trim(what) // " (v outlives arr)")
      deallocate(u, v)
    else
      deallocate(u, v)
      call expect(arr(1), 3, 4, trim(what) // " (arr(1) outlives u)")
      call expect(arr(2), 6, 5, trim(what) // " (arr(2) outlives v)")
      deallocate(arr)
    end if
    call expect_count(0, trim(what))
  end subroutine

  !> A function result taken by assignment (as_result), copied by allocate(source=) of
  !> the result itself and of the variable that took it.
  subroutine result_copies(t_first)
    logical, intent(in) :: t_first
    type(dualview_t), allocatable :: u, t, r
    character(len=40) :: what
    write (what, '(a, l1)') "function result t first ", t_first
    allocate(u)
    u = make_field(8, 6)
    allocate(r, source=make_field(2, 7))   ! a result no assignment takes: r holds it
    allocate(t, source=u)
    call expect(t, 8, 6, trim(what) // " (the copy)")
    call expect(u, 8, 6, trim(what) // " (the result)")
    call expect(r, 2, 7, trim(what) // " (the sourced result)")
    if (t_first) then
      deallocate(t, r)
      call expect(u, 8, 6, trim(what) // " (u outlives its copy)")
      deallocate(u)
    else
      deallocate(u, r)
      call expect(t, 8, 6, trim(what) // " (the copy outlives u)")
      deallocate(t)
    end if
    call expect_count(0, trim(what))
  end subroutine
end module

program compiler_copies
  use compiler_copies_support
  implicit none
  integer :: how, k
  logical :: first
  n0 = dv_handle_count()
  do k = 0, 1
    first = k == 1
    do how = 1, 3
      call sourced(how, first)
    end do
    call component(.false., first)
    call component(.true., first)
    call constructor(.false., first)
    call constructor(.true., first)
    call result_copies(first)
  end do
  print '(a)', "compiler_copies: 16 cases passed"
end program
