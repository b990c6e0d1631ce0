! Submodule dualview_object of module dualview (fortran/dualview.f90), whose interfaces
! document each procedure written here: dualview_t's life cycle (create, destroy, the
! assignment, as_result, the finalizer), its shape, labels, info, device pointer, statistics.
submodule (dualview:dualview_support) dualview_object
  implicit none

contains

  module procedure dv_f_create_i64
    character(len=:), allocatable :: m_
    character(kind=c_char), allocatable, target :: lab(:)
    type(dv_desc_t) :: d
    type(c_ptr) :: h
    integer(c_int) :: st
    if (shape_ok("dualview_t%create", shape_, stat, m_)) then
      d%dtype = dtype
      d%layout = DV_LAYOUT_LEFT
      if (present(layout)) d%layout = layout
      d%space = DV_SPACE_HOST
      if (present(space)) d%space = space
      if (present(ordinal)) d%ordinal = ordinal
      if (present(flags)) d%flags = flags
      d%extents = to_extents(shape_)
      call to_c(label, lab)
      h = c_null_ptr
      st = c_dv_create(c_loc(lab), d, h)
      if (st == DV_OK) call adopt(self, h, addr_of(self))
      call report(st, stat, m_)
    end if
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_create_i64

  module procedure dv_f_create_i32
    character(len=:), allocatable :: m_
    call dv_f_create_i64(self, label, dtype, int(shape_, int64), layout, space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_create_i32

  module procedure dv_f_destroy
    character(len=:), allocatable :: m_
    integer(c_int) :: st
    call note_use(self)  ! a compiler's temporary never calls destroy: self holds the handle
    call release(self, st)
    call report(st, stat, m_)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_destroy

  module procedure dv_f_final
    call release(self)
  end procedure dv_f_final

  module procedure dv_f_assign
    type(c_ptr) :: h, owner
    integer(c_int) :: st
    integer :: state
    logical(c_bool) :: taken
    character(len=:), allocatable :: text
    h = c_null_ptr
    taken = .false.
    state = rhs%state
    if (c_associated(rhs%h)) then
      ! A function's result (as_result) is taken over, anything else cloned.
      st = c_dv_take(rhs%h, h, taken)
      if (st /= DV_OK) then
        call c_message(st, text, rhs)
        call die("dualview_t assignment: " // text)
      end if
    end if
    owner = c_null_ptr
    if (c_associated(lhs%h)) then
      if (c_associated(lhs%h, rhs%h) .and. (taken .or. (borrowed(lhs) .and. .not. borrowed(rhs)))) then
        ! x = a on a raw copy of a (allocate(x, source=a)): a keeps its handle;
        ! or x = x on a result: x takes what it holds. (Both sides copies of one
        ! element, gfortran's temporaries of arr(1:3:2) = arr(3): the old value goes.)
        lhs%h = c_null_ptr
      else
        ! The old handle goes; its owner stays (a compiler temporary of the left side
        ! is copied back there).
        owner = known_owner(lhs)
        st = drop_handle(lhs)
        lhs%h = c_null_ptr
      end if
    end if
    if (c_associated(h)) then
      call adopt(lhs, h, owner)
      lhs%took = logical(taken)
    else
      call release(lhs)
      lhs%state = state
    end if
  end procedure dv_f_assign

  module procedure dv_f_as_result
    integer(c_int) :: st
    character(len=:), allocatable :: text
    if (.not. c_associated(self%h)) return
    st = c_dv_mark_result(self%h)
    if (st /= DV_OK) then
      call c_message(st, text)
      call die("dualview_t%as_result: " // text)
    end if
    ! Any holder of a result releases it (the compiler copies it elsewhere), unless taken.
    self%owner = c_null_ptr
    self%took = .false.
  end procedure dv_f_as_result

  module procedure dv_f_is_valid
    dv_f_is_valid = c_associated(self%h)
  end procedure dv_f_is_valid
  ! ---- Shape ------------------------------------------------------------------------------------

  module procedure dv_f_extent_i64
    character(len=:), allocatable :: m_
    integer(c_int32_t) :: r
    integer(c_int64_t) :: e
    integer(c_int) :: st
    n = 0
    body: block
      if (.not. live(self, "dualview_t%extent", stat, m_)) exit body
      r = 0
      st = c_dv_rank(self%h, r)
      if (st /= DV_OK) then
        call report(st, stat, m_, self)
        exit body
      end if
      if (dim < 1 .or. dim > r) then
        if (r == 0) then
          call fail(DV_ERROR_OUT_OF_RANGE, "dualview_t%extent: dim " // str(dim) &
                    // " is out of range: this DualView has rank 0 (no dims)", stat, m_)
        else
          call fail(DV_ERROR_OUT_OF_RANGE, "dualview_t%extent: dim " // str(dim) // " is out of range: this DualView has rank " &
                    // str(r) // ", so dim is 1 to " // str(r), stat, m_)
        end if
        exit body
      end if
      e = 0
      st = c_dv_extent(self%h, int(dim - 1, c_int32_t), e)
      if (st == DV_OK) n = e
      call report(st, stat, m_, self)
    end block body
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_extent_i64

  module procedure dv_f_extent_i32
    character(len=:), allocatable :: m_
    n = dv_f_extent_i64(self, int(dim, int64), stat, m_)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_extent_i32

  module procedure dv_f_rank
    character(len=:), allocatable :: m_
    integer(c_int32_t) :: cr
    integer(c_int) :: st
    r = 0
    if (live(self, "dualview_t%rank", stat, m_)) then
      cr = 0
      st = c_dv_rank(self%h, cr)
      if (st == DV_OK) r = int(cr)
      call report(st, stat, m_, self)
    end if
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_rank

  module procedure dv_f_info
    character(len=:), allocatable :: m_
    type(dv_info_t) :: out
    integer(c_int) :: st
    if (live(self, "dualview_t%info", stat, m_)) then
      st = c_dv_info(self%h, out)
      if (st == DV_OK) info = out
      call report(st, stat, m_, self)
    end if
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_info

  module procedure dv_f_label
    character(len=:), allocatable :: m_
    call labelled(self, "label", .false., -1_c_int32_t, label, stat, m_)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_label

  module procedure dv_f_get_label
    character(len=:), allocatable :: m_
    call labelled(self, "get_label", .false., -1_c_int32_t, label, stat, m_)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_get_label

  module procedure dv_f_view_label
    character(len=:), allocatable :: m_
    call labelled(self, "view_label", .true., side, label, stat, m_)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_view_label

  module procedure dv_f_get_view_label
    character(len=:), allocatable :: m_
    call labelled(self, "get_view_label", .true., side, label, stat, m_)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_get_view_label

  module procedure dv_f_device_ptr
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(c_int32_t) :: m
    integer(c_int) :: st
    p = c_null_ptr
    if (live(self, "dualview_t%device_ptr", stat, m_)) then
      m = DV_ACCESS_READ_WRITE
      if (present(mode)) m = mode
      cp = c_null_ptr
      st = c_dv_device_access(self%h, m, cp)
      if (st == DV_OK) p = cp
      call report(st, stat, m_, self)
    end if
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_device_ptr

  module procedure dv_f_stats
    character(len=:), allocatable :: m_
    type(dv_stats_t) :: out
    integer(c_int) :: st
    if (live(self, "dualview_t%stats", stat, m_)) then
      st = c_dv_stats(self%h, out)
      if (st == DV_OK) s = out
      call report(st, stat, m_, self)
    end if
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_stats

  module procedure dv_f_stats_reset
    character(len=:), allocatable :: m_
    if (live(self, "dualview_t%stats_reset", stat, m_)) call report(c_dv_stats_reset(self%h), stat, m_, self)
    if (present(errmsg)) errmsg = m_
  end procedure dv_f_stats_reset

end submodule dualview_object
