! Every procedure of the module, given bad input, answers in the caller's terms
! (issue 46, item 3): the message starts with the procedure as the caller wrote it
! (`dualview_t%sync_host`, `dv_fence`, `space_available`) and names no C function
! (`dv_...`, unless that is the Fortran name), no C descriptor field (`desc->`),
! no handle's address (`handle 0x...`) and no NULL.
program messages_walk
  use, intrinsic :: iso_c_binding, only: c_ptr
  use, intrinsic :: iso_fortran_env, only: real64, int32, int64
  use dualview
  implicit none
  type(dualview_t) :: never, gone, a, s
  type(dualview_t), allocatable :: copy
  type(dv_info_t) :: info
  type(dv_stats_t) :: st_
  type(dv_space_info_t) :: si
  type(c_ptr) :: p
  real(real64), pointer :: h2(:, :)
  real(real64), target :: arr(4)
  character(len=:), allocatable :: msg, text
  integer :: stat, checked
  integer(int32) :: o
  integer(int64) :: e
  logical :: l

  checked = 0
  call gone%create("G", DV_DTYPE_FLOAT64, [3], space=DV_SPACE_TEST_DEVICE)
  call gone%destroy()
  call a%create("A", DV_DTYPE_FLOAT64, [4, 3], space=DV_SPACE_TEST_DEVICE)

  ! Every type-bound procedure on an object never created and on a destroyed one.
  call walk_self(never, "has not been created")
  call walk_self(gone, "has been destroyed")

  ! Bad arguments, caught by the module or by the C library.
  call a%create("B", 999_int32, [2], stat=stat, errmsg=msg)
  call expect("dualview_t%create", "create with dtype 999", "dtype")
  call a%create("B", DV_DTYPE_FLOAT64, [2], layout=77_int32, stat=stat, errmsg=msg)
  call expect("dualview_t%create", "create with layout 77", "layout")
  call a%create("B", DV_DTYPE_FLOAT64, [2], space=1234_int32, stat=stat, errmsg=msg)
  call expect("dualview_t%create", "create with space 1234", "space")
  call a%create("B", DV_DTYPE_FLOAT64, [2], flags=int(z'40000000', int32), stat=stat, errmsg=msg)
  call expect("dualview_t%create", "create with unknown flags", "flags")
  call a%create("B", DV_DTYPE_FLOAT64, [huge(1_int64) / 2, 3_int64], stat=stat, errmsg=msg)
  call expect("dualview_t%create", "create of 2**62 x 3", "shape")
  call a%create("B", DV_DTYPE_FLOAT64, [1, 1, 1, 1, 1, 1, 1, 1, 1], stat=stat, errmsg=msg)
  call expect("dualview_t%create", "create of rank 9", "9 extents")
  call s%wrap("W", arr, space=1234_int32, stat=stat, errmsg=msg)
  call expect("dualview_t%wrap", "wrap with space 1234", "space")
  call a%subview(s, [1, 1], [9, 1], stat=stat, errmsg=msg)
  call expect("dualview_t%subview", "subview past the end", "")
  call a%subview(s, [1], [2], stat=stat, errmsg=msg)
  call expect("dualview_t%subview", "subview with one bound of two", "")
  call a%resize([4, 3, 2], stat=stat, errmsg=msg)
  call expect("dualview_t%resize", "resize to another rank", "")
  call a%realloc([-1, 3], stat=stat, errmsg=msg)
  call expect("dualview_t%realloc", "realloc to a negative extent", "extent -1")
  e = a%extent(7, stat=stat, errmsg=msg)
  call expect("dualview_t%extent", "extent(7)", "dim 7")
  text = a%view_label(9_int32, stat=stat, errmsg=msg)
  call expect("dualview_t%view_label", "view_label(9)", "9")
  call a%get_view_label(-2_int32, text, stat=stat, errmsg=msg)
  call expect("dualview_t%get_view_label", "get_view_label(-2)", "-2")
  p = a%device_ptr(mode=42_int32, stat=stat, errmsg=msg)
  call expect("dualview_t%device_ptr", "device_ptr(mode=42)", "42")
  call a%host(h2, mode=42_int32, stat=stat, errmsg=msg)
  call expect("dualview_t%host", "host(mode=42)", "42")
  call a%modify_host()
  call a%modify_device(stat=stat, errmsg=msg)
  call expect("dualview_t%modify_device", "modify_device after modify_host", "a%sync_device()")
  call a%sync_device()
  allocate(copy, source=a)
  call a%destroy()
  call copy%sync_host(stat=stat, errmsg=msg)
  call expect("dualview_t%sync_host", "a raw copy of a destroyed DualView", "this dualview_t's handle")
  deallocate(copy)

  ! The module's own procedures.
  si = dv_space_info(1234_int32, stat=stat, errmsg=msg)
  call expect("dv_space_info", "dv_space_info(1234)", "1234")
  l = space_available(1234_int32, stat=stat, errmsg=msg)
  call expect("space_available", "space_available(1234)", "1234")
  e = space_device_count(1234_int32, stat=stat, errmsg=msg)
  call expect("space_device_count", "space_device_count(1234)", "1234")
  call dv_fence(1234_int32, stat=stat, errmsg=msg)
  call expect("dv_fence", "dv_fence(1234)", "1234")
  call dv_fence(DV_SPACE_TEST_DEVICE, ordinal=99999_int32, stat=stat, errmsg=msg)
  call expect("dv_fence", "dv_fence(ordinal=99999)", "99999")
  call dualview_initialize(o, space=DV_SPACE_TEST_DEVICE, device_id=99999_int32, stat=stat, errmsg=msg)
  call expect("dualview_initialize", "dualview_initialize(device_id=99999)", "99999")
  call dualview_initialize(o, space=DV_SPACE_TEST_DEVICE, map_device_id_by="sideways", stat=stat, errmsg=msg)
  call expect("dualview_initialize", "dualview_initialize(map_device_id_by='sideways')", "sideways")
  call dv_transfer_report(prefix="/nonexistent-dir/x/report", stat=stat, errmsg=msg)
  if (stat /= DV_OK) call expect("dv_transfer_report", "dv_transfer_report into a missing folder", "")
  st_ = dualview_stats()
  if (checked < 40) error stop "messages_walk: fewer checks than procedures walked"
  print '(a, i0, a)', "messages_walk: ", checked, " refusals, each in the caller's terms"
  deallocate(msg, text)  ! a main program's allocatables live on gfortran's stack: free them

contains

  ! Every type-bound procedure with a self on `x`, which holds no live DualView.
  subroutine walk_self(x, why)
    type(dualview_t), intent(inout) :: x
    character(len=*), intent(in) :: why
    type(dualview_t) :: sub
    real(real64), pointer :: q(:, :)
    character(len=:), allocatable :: t
    call x%modify_host(stat=stat, errmsg=msg);      call expect("dualview_t%modify_host", why, why)
    call x%modify_device(stat=stat, errmsg=msg);    call expect("dualview_t%modify_device", why, why)
    call x%sync_host(stat=stat, errmsg=msg);        call expect("dualview_t%sync_host", why, why)
    call x%sync_device(stat=stat, errmsg=msg);      call expect("dualview_t%sync_device", why, why)
    l = x%need_sync_host(stat=stat, errmsg=msg);    call expect("dualview_t%need_sync_host", why, why)
    l = x%need_sync_device(stat=stat, errmsg=msg);  call expect("dualview_t%need_sync_device", why, why)
    call x%clear_sync_state(stat=stat, errmsg=msg); call expect("dualview_t%clear_sync_state", why, why)
    call x%push_host(stat=stat, errmsg=msg);        call expect("dualview_t%push_host", why, why)
    call x%push_device(stat=stat, errmsg=msg);      call expect("dualview_t%push_device", why, why)
    call x%subview(sub, [1], [1], stat=stat, errmsg=msg); call expect("dualview_t%subview", why, why)
    call x%resize([2], stat=stat, errmsg=msg);      call expect("dualview_t%resize", why, why)
    call x%realloc([2], stat=stat, errmsg=msg);     call expect("dualview_t%realloc", why, why)
    e = x%extent(1, stat=stat, errmsg=msg);         call expect("dualview_t%extent", why, why)
    o = x%rank(stat=stat, errmsg=msg);              call expect("dualview_t%rank", why, why)
    t = x%label(stat=stat, errmsg=msg);             call expect("dualview_t%label", why, why)
    t = x%view_label(DV_SIDE_HOST, stat=stat, errmsg=msg); call expect("dualview_t%view_label", why, why)
    call x%get_label(t, stat=stat, errmsg=msg);     call expect("dualview_t%get_label", why, why)
    call x%get_view_label(DV_SIDE_HOST, t, stat=stat, errmsg=msg); call expect("dualview_t%get_view_label", why, why)
    info = x%info(stat=stat, errmsg=msg);           call expect("dualview_t%info", why, why)
    p = x%device_ptr(stat=stat, errmsg=msg);        call expect("dualview_t%device_ptr", why, why)
    st_ = x%stats(stat=stat, errmsg=msg);           call expect("dualview_t%stats", why, why)
    call x%stats_reset(stat=stat, errmsg=msg);      call expect("dualview_t%stats_reset", why, why)
    call x%host(q, stat=stat, errmsg=msg);          call expect("dualview_t%host", why, why)
  end subroutine

  ! The last call failed; msg starts with `name: ` and contains `part`, and no C words.
  subroutine expect(name, what, part)
    character(len=*), intent(in) :: name, what, part
    checked = checked + 1
    if (stat == DV_OK) call bad(what, "was not refused")
    if (index(msg, name // ": ") /= 1) call bad(what, "does not start with """ // name // ": """)
    if (index(msg, part) == 0) call bad(what, "does not name """ // part // """")
    if (index(msg, "desc->") /= 0 .or. index(msg, "handle 0x") /= 0 .or. index(msg, "NULL") /= 0) &
      call bad(what, "speaks C (desc->, a handle's address or NULL)")
    if (index(msg, "dv_") /= 0 .and. index(msg, "dv_") /= index(msg, name)) call bad(what, "names a C function")
  end subroutine

  subroutine bad(what, why)
    character(len=*), intent(in) :: what, why
    print '(a)', "FAILED: " // what // ": the message " // why // ": " // msg
    error stop "messages_walk: a message does not speak the caller's language"
  end subroutine
end program
