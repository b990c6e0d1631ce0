! Copies of a dualview_t: `arr = a` (elemental defined assignment) gives every element
! its own handle; copies made without assignment (allocate(x, source=a)) are borrowed,
! and destroying or deallocating one leaves the original usable.
module copies_types
  use dualview, only: dualview_t
  implicit none
  type :: field_t
    type(dualview_t) :: data
    integer :: id = 0
  end type
end module

program copies
  use, intrinsic :: iso_fortran_env, only: int32, int64
  use dualview
  use copies_types
  implicit none
  type(dualview_t) :: a
  type(dualview_t), allocatable :: arr(:), x
  type(field_t) :: f1, f2
  integer(int32), pointer :: p(:)
  integer(int64) :: n0
  integer :: i, stat
  character(len=:), allocatable :: msg

  n0 = dv_handle_count()
  call a%create("A", DV_DTYPE_INT32, [8], space=DV_SPACE_TEST_DEVICE)
  call a%host(p)
  p = [(10 * i, i = 1, 8)]

  ! arr = a: elemental, one new handle per element.
  allocate(arr(3))
  arr = a
  if (dv_handle_count() /= n0 + 4) error stop "copies: arr = a must give each element its own handle"
  call arr(2)%destroy()
  if (arr(2)%is_valid()) error stop "copies: arr(2) destroyed"
  call arr(1)%host(p, mode=DV_ACCESS_READ)
  if (p(3) /= 30) error stop "copies: arr(1) must survive arr(2)%destroy()"
  call a%host(p, mode=DV_ACCESS_READ)
  if (p(8) /= 80) error stop "copies: a must survive arr(2)%destroy()"
  arr(1) = arr(3)                  ! an element from another element: arr(1)'s old handle is released
  if (dv_handle_count() /= n0 + 3) error stop "copies: arr(1) = arr(3) keeps one handle per element"
  arr(1:3:2) = arr(3)              ! the right side is part of the left: gfortran assigns through a temporary
  if (dv_handle_count() /= n0 + 3) error stop "copies: arr(1:3:2) = arr(3) keeps one handle per element"
  arr(2) = arr(2)                  ! a destroyed element assigned to itself stays empty
  if (arr(2)%is_valid() .or. dv_handle_count() /= n0 + 3) error stop "copies: arr(2) = arr(2)"
  arr(3) = arr(3)
  if (.not. arr(3)%is_valid() .or. dv_handle_count() /= n0 + 3) error stop "copies: arr(3) = arr(3)"
  deallocate(arr)                  ! the elemental finalizer releases every element
  if (dv_handle_count() /= n0 + 1) error stop "copies: deallocate(arr) must release every element's handle"

  ! allocate(x, source=a) copies the raw handle: x borrows it; destroying x only detaches x.
  allocate(x, source=a)
  call x%host(p, mode=DV_ACCESS_READ)
  if (p(5) /= 50) error stop "copies: a sourced copy reads the original's data"
  call x%destroy()
  if (x%is_valid()) error stop "copies: x%destroy() detaches x"
  if (dv_handle_count() /= n0 + 1) error stop "copies: destroying a sourced copy must not release a's handle"
  call a%host(p, mode=DV_ACCESS_READ, stat=stat)
  if (stat /= DV_OK .or. p(1) /= 10) error stop "copies: a must stay usable after its copy is destroyed"
  deallocate(x)

  ! ... and deallocating x (the finalizer) only detaches it too.
  allocate(x, source=a)
  deallocate(x)
  if (dv_handle_count() /= n0 + 1) error stop "copies: deallocating a sourced copy must not release a's handle"
  call a%host(p, stat=stat)
  if (stat /= DV_OK .or. p(2) /= 20) error stop "copies: a must stay usable after its copy is deallocated"

  ! x = a on an allocated x: a handle of x's own, released with x.
  allocate(x)
  x = a
  if (dv_handle_count() /= n0 + 2) error stop "copies: x = a gives x its own handle"
  deallocate(x)
  if (dv_handle_count() /= n0 + 1) error stop "copies: deallocate(x) releases x's own handle"

  ! x = a on a sourced copy of a: x gets a handle of its own, a keeps its own.
  allocate(x, source=a)
  x = a
  if (dv_handle_count() /= n0 + 2) error stop "copies: x = a on a sourced copy clones"
  deallocate(x)
  call a%host(p, stat=stat)
  if (stat /= DV_OK .or. dv_handle_count() /= n0 + 1) error stop "copies: a keeps its handle after x = a, deallocate(x)"

  ! A component: intrinsic assignment of the parent uses the defined assignment (gfortran
  ! calls it on a temporary copy of the left side), into an empty and into a created field.
  call f1%data%create("F", DV_DTYPE_INT32, [4])
  f1%id = 1
  do i = 1, 3
    f2 = f1
    if (dv_handle_count() /= n0 + 3) error stop "copies: f2 = f1 must replace f2%data's handle"
  end do
  call f1%data%destroy()
  call f2%data%host(p, stat=stat)
  if (stat /= DV_OK .or. f2%id /= 1 .or. size(p) /= 4) error stop "copies: f2 = f1 must give f2%data its own handle"
  call f2%data%destroy()
  if (dv_handle_count() /= n0 + 1) error stop "copies: field handles left"
  call f2%data%create("G", DV_DTYPE_INT32, [2])
  call f1%data%create("F", DV_DTYPE_INT32, [4])
  f2 = f1
  allocate(x, source=f2%data)      ! f2%data still owns its handle where it lives
  deallocate(x)
  call f2%data%host(p, stat=stat)
  if (stat /= DV_OK .or. size(p) /= 4) error stop "copies: a sourced copy of f2%data must not release it"
  call f1%data%destroy()
  call f2%data%destroy()
  if (dv_handle_count() /= n0 + 1) error stop "copies: field handles left"

  ! A sourced copy that outlives its original says so.
  allocate(x, source=a)
  call a%destroy()
  call x%host(p, stat=stat, errmsg=msg)
  if (stat /= DV_ERROR_INVALID_HANDLE .or. index(msg, "copy made without assignment") == 0) &
    error stop "copies: a dead borrowed handle must be explained"
  print '(a)', "caught: " // msg
  deallocate(x)
  if (dv_handle_count() /= n0) error stop "copies: handles left"
  deallocate(msg)
end program
