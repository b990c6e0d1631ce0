!> Module dualview: DualViews (host mirror + device view, modified flags, sync)
!> for Fortran, over the C ABI with iso_c_binding.
!>
!>   type(dualview_t) :: a
!>   real(real64), pointer :: p(:,:)
!>   call a%create("T", DV_DTYPE_FLOAT64, [nx, ny])      ! LayoutLeft, host space by default
!>   call a%host(p)                                      ! sync if stale, mark the host modified
!>   p(1, :) = 100
!>   call a%sync_device()
!>   call a%destroy()
!>
!> Every procedure takes optional stat and errmsg; without stat a failure
!> stops the program with the library's message (error stop). On failure every
!> result and intent(out) argument is still defined: 0, .false., "", a null pointer.
!
! Written by hand, over module dualview_abi (fortran/dualview_abi.f90), which
! scripts/gen-fortran.py generates from include/dualview.h: the DV_* constants, the
! dv_status_t codes, the bind(c) types, the interfaces c_dv_* of the C functions, and
! dualview_typed_t, the abstract parent of dualview_t that carries the typed accessors
! (the generics host and wrap over 8 element types x ranks 1-8, type-bound there because
! a specific binding needs its own type as passed object; the top of dualview_abi.f90
! says more). dualview_t overrides its two deferred bindings, host_untyped and
! wrap_untyped, with the untyped part of host and wrap written here.
!
! This module is public by default, so that it re-exports every constant, status code,
! dv_info_t, dv_space_info_t and dv_stats_t of dualview_abi as the header has them. Every other
! name at module level is named in a private statement below; scripts/gen-fortran.py
! --check (ctest fortran.module_up_to_date) fails when one is missing.
! Fortran 2008 (checked: gfortran 12 -std=f2008).
module dualview
  use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr, c_associated, c_loc, c_f_pointer, c_int, &
      c_int32_t, c_int64_t, c_size_t, c_bool, c_char, c_null_char
  use, intrinsic :: iso_fortran_env, only: int32, int64, error_unit
  use dualview_abi
  implicit none
  public

  ! The API (public by default; named here for the reader).
  public :: dualview_t, dv_info_t, dv_space_info_t, dv_stats_t
  public :: dv_last_error_message, dv_status_str, dv_dtype_str, dv_get_last_error_message, dv_get_status_str, &
            dv_get_dtype_str, dv_get_version, dv_space_info, space_available, &
            space_device_count, cuda_available, dv_fence, dv_version, dv_handle_count, dv_pool_release, &
            dv_transfer_report_start, dv_transfer_report, dualview_stats, dualview_stats_reset, &
            dualview_initialize

  ! Internal: the intrinsic modules' names, the binding's part of dualview_abi, and the
  ! procedures of this module that are not the API.
  private :: c_ptr, c_null_ptr, c_associated, c_loc, c_f_pointer, c_int, c_int32_t, c_int64_t, c_size_t, &
      c_bool, c_char, c_null_char, int32, int64, error_unit
  private :: dualview_typed_t, dv_extents_t, dv_desc_t, dv_range_t, dv_init_t
  private :: c_dv_last_error_copy, c_dv_create, c_dv_wrap, c_dv_clone, c_dv_destroy, c_dv_mark_result, &
      c_dv_take, c_dv_release, c_dv_hold, c_dv_hold_use, c_dv_let_go, c_dv_initialize, c_dv_modify_host, &
      c_dv_modify_device, c_dv_sync_host, &
      c_dv_sync_device, c_dv_clear_sync_state, c_dv_need_sync_host, c_dv_need_sync_device, c_dv_host_access, &
      c_dv_device_access, c_dv_rank, c_dv_extent, c_dv_info, c_dv_label, c_dv_view_label, c_dv_desc_of, &
      c_dv_resize, c_dv_realloc, c_dv_handle_count, c_dv_space_info, c_dv_space_available, &
      c_dv_space_device_count, c_dv_fence, c_dv_cuda_available, c_dv_dtype_str, c_dv_version, &
      c_dv_status_str, c_dv_report_start, c_dv_report_write, c_dv_stats, c_dv_stats_reset, c_dv_stats_global, &
      c_dv_stats_global_reset, c_dv_last_error_set, c_dv_subview, c_dv_push_host, c_dv_push_device, c_dv_pool_release
  private :: c_strlen
  private :: dv_f_create_i32, dv_f_create_i64, dv_f_destroy, dv_f_final, dv_f_assign, dv_f_is_valid, &
      dv_f_as_result, dv_f_modify_host, dv_f_modify_device, dv_f_sync_host, dv_f_sync_device, &
      dv_f_clear_sync_state, dv_f_need_sync_host, dv_f_need_sync_device, dv_f_resize_i32, dv_f_resize_i64, &
      dv_f_realloc_i32, dv_f_realloc_i64, dv_f_extent_i32, dv_f_extent_i64, dv_f_rank, dv_f_label, &
      dv_f_view_label, dv_f_get_label, dv_f_get_view_label, dv_f_info, dv_f_device_ptr, dv_f_host_untyped, &
      dv_f_wrap_untyped, dv_f_stats, dv_f_stats_reset, dv_f_push_host, dv_f_push_device, dv_f_subview_i32, &
      dv_f_subview_i64

  !> A DualView handle. `b = a` gives b its own handle on a's DualView (like a
  !> Kokkos copy; elemental, so `arr = a` works too). destroy is idempotent and
  !> also runs from the (elemental) finalizer.
  !>
  !> Copies the language makes without calling the assignment (allocate(x, source=a),
  !> array constructors, copy-in of a dummy argument, gfortran's temporary for a
  !> component) share the handle: the library keeps which objects hold it, by address
  !> (the one that made or received it, and each copy once used), and destroy or
  !> finalization releases it only where no other holder remains; a copy never used
  !> only detaches (docs/FORTRAN.md "Copies and ownership").
  !>
  !> A function that returns a dualview_t calls as_result on its result last: the
  !> assignment that receives it takes that handle over (no leak, whether or not the
  !> compiler finalizes function results).
  !>
  !> host and wrap come from the parent, dualview_typed_t (dualview_abi).
  type, extends(dualview_typed_t) :: dualview_t
    private
    type(c_ptr) :: h = c_null_ptr       ! the C handle; c_null_ptr when none
    type(c_ptr) :: owner = c_null_ptr   ! c_loc of the object that owns h (c_null_ptr: not recorded)
    integer :: state = 0                ! 0 never created, 1 holds a handle, 2 destroyed
    logical :: took = .false.           ! h was handed over to this object by dv_take (a function result)
  contains
    procedure, private :: dv_f_create_i32, dv_f_create_i64
    generic :: create => dv_f_create_i32, dv_f_create_i64
    procedure :: destroy => dv_f_destroy
    procedure :: is_valid => dv_f_is_valid
    procedure :: as_result => dv_f_as_result
    procedure :: modify_host => dv_f_modify_host
    procedure :: modify_device => dv_f_modify_device
    procedure :: sync_host => dv_f_sync_host
    procedure :: sync_device => dv_f_sync_device
    procedure :: need_sync_host => dv_f_need_sync_host
    procedure :: need_sync_device => dv_f_need_sync_device
    procedure :: clear_sync_state => dv_f_clear_sync_state
    procedure :: push_host => dv_f_push_host
    procedure :: push_device => dv_f_push_device
    procedure, private :: dv_f_subview_i32, dv_f_subview_i64
    generic :: subview => dv_f_subview_i32, dv_f_subview_i64
    procedure, private :: dv_f_resize_i32, dv_f_resize_i64
    generic :: resize => dv_f_resize_i32, dv_f_resize_i64
    procedure, private :: dv_f_realloc_i32, dv_f_realloc_i64
    generic :: realloc => dv_f_realloc_i32, dv_f_realloc_i64
    procedure, private :: dv_f_extent_i32, dv_f_extent_i64
    generic :: extent => dv_f_extent_i32, dv_f_extent_i64
    procedure :: rank => dv_f_rank
    procedure :: label => dv_f_label
    procedure :: view_label => dv_f_view_label
    procedure :: get_label => dv_f_get_label
    procedure :: get_view_label => dv_f_get_view_label
    procedure :: info => dv_f_info
    procedure :: device_ptr => dv_f_device_ptr
    procedure :: stats => dv_f_stats
    procedure :: stats_reset => dv_f_stats_reset
    ! The untyped part of host and wrap (internal: called by the typed procedures).
    procedure :: host_untyped => dv_f_host_untyped
    procedure :: wrap_untyped => dv_f_wrap_untyped
    procedure, private :: dv_f_assign
    generic :: assignment(=) => dv_f_assign
    final :: dv_f_final
  end type

  interface
    function c_strlen(s) bind(c, name="strlen") result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function
  end interface

  ! The procedures of the API, each written in a submodule (fortran/dualview_*.f90).
  interface
    !> The message of the last failed call on this thread.
    module function dv_last_error_message() result(msg)
      character(len=:), allocatable :: msg
    end function

    !> dv_last_error_message as a subroutine (safe in threads).
    module subroutine dv_get_last_error_message(msg)
      character(len=:), allocatable, intent(out) :: msg
    end subroutine

    !> The text of a status code, "DV_ERROR_STALE: ..." ("unknown status" for other values).
    module function dv_status_str(code) result(s)
      integer, intent(in) :: code
      character(len=:), allocatable :: s
    end function

    !> dv_status_str as a subroutine (safe in threads).
    module subroutine dv_get_status_str(code, s)
      integer, intent(in) :: code
      character(len=:), allocatable, intent(out) :: s
    end subroutine

    !> The name of element type dtype (DV_DTYPE_*) with its C and Fortran spellings,
    !> e.g. "float64 (double, real64)"; "unknown dtype" for other values.
    module function dv_dtype_str(dtype) result(s)
      integer(c_int32_t), intent(in) :: dtype
      character(len=:), allocatable :: s
    end function

    !> dv_dtype_str as a subroutine (safe in threads).
    module subroutine dv_get_dtype_str(dtype, s)
      integer(c_int32_t), intent(in) :: dtype
      character(len=:), allocatable, intent(out) :: s
    end subroutine

    !> The library version, "MAJOR.MINOR.PATCH".
    module function dv_version() result(s)
      character(len=:), allocatable :: s
    end function

    !> dv_version as a subroutine (safe in threads).
    module subroutine dv_get_version(s)
      character(len=:), allocatable, intent(out) :: s
    end subroutine

    !> What memory space `space` (DV_SPACE_*) means for DualViews: host_accessible,
    !> needs_mirror, unified, is_device, default_layout, host_side. All .false./0 on failure.
    module function dv_space_info(space, stat, errmsg) result(info)
      integer(c_int32_t), intent(in) :: space
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
      type(dv_space_info_t) :: info
    end function

    !> Whether memory space `space` (DV_SPACE_*) on device `ordinal` (default 0; host
    !> spaces ignore it) can be used here: what dv_create would find (.false. on failure).
    module logical function space_available(space, ordinal, stat, errmsg)
      integer(c_int32_t), intent(in) :: space
      integer(c_int32_t), intent(in), optional :: ordinal
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end function

    !> How many devices of memory space `space` (DV_SPACE_*) the process can use: ordinals
    !> 0 to n - 1; a host space counts 1 when usable (0 on failure).
    module function space_device_count(space, stat, errmsg) result(n)
      integer(c_int32_t), intent(in) :: space
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
      integer(int64) :: n
    end function

    !> Whether a CUDA driver with at least one device is usable (.false. on failure).
    module logical function cuda_available(stat, errmsg)
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end function

    !> Wait for all outstanding work of device `ordinal` (default 0) in `space` (host
    !> spaces return at once): Kokkos fence(), for the caller's own kernels.
    module subroutine dv_fence(space, ordinal, name, stat, errmsg)
      integer(c_int32_t), intent(in) :: space
      integer(c_int32_t), intent(in), optional :: ordinal
      character(len=*), intent(in), optional :: name
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> The transfer report (docs/GPU.md): record every copying sync and resize from now on,
    !> as DV_REPORT does from the start.
    module subroutine dv_transfer_report_start(stat, errmsg)
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> Write the transfer report now: the table on stderr, or with `prefix` the files
    !> `<prefix>.<rank>.txt` and `<prefix>.<rank>.csv`.
    module subroutine dv_transfer_report(prefix, stat, errmsg)
      character(len=*), intent(in), optional :: prefix
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> How many DualView handles are live in the process (for leak checks; 0 on failure).
    module function dv_handle_count(stat, errmsg) result(n)
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
      integer(int64) :: n
    end function

    !> Unregister and free the registered host blocks kept for reuse (DV_POOL_BYTES,
    !> DECISIONS S11); the bytes given back (0 on failure).
    module function dv_pool_release(stat, errmsg) result(n)
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
      integer(int64) :: n
    end function

    !> The process-wide transfer counters of every DualView (dv_stats_t: to_device_count,
    !> to_device_bytes, to_device_ns, and the same to_host_*); all 0 on failure.
    module function dualview_stats(stat, errmsg) result(s)
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
      type(dv_stats_t) :: s
    end function

    !> Choose this process's device as Kokkos 4's initialize does (docs/FORTRAN.md, "Which
    !> GPU a process uses"): device_id (an index into the visible devices), else
    !> KOKKOS_DEVICE_ID; else map_device_id_by ("mpi_rank" or "random") or
    !> KOKKOS_MAP_DEVICE_ID_BY; by default the launcher's node-local MPI rank modulo the
    !> visible devices (KOKKOS_VISIBLE_DEVICES, else every device of space, default
    !> DV_SPACE_CUDA). ordinal: the device, for create(ordinal=); 0 when nothing chose
    !> one (mapped = .false.). The command line is not read: pass what it says as arguments.
    module subroutine dualview_initialize(ordinal, space, device_id, map_device_id_by, mapped, stat, errmsg)
      integer(c_int32_t), intent(out) :: ordinal
      integer(c_int32_t), intent(in), optional :: space, device_id
      character(len=*), intent(in), optional :: map_device_id_by
      logical, intent(out), optional :: mapped
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> Zero the process-wide transfer counters (each DualView's own are kept).
    module subroutine dualview_stats_reset(stat, errmsg)
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> Allocate a DualView: dtype DV_DTYPE_*, extents in Fortran order (default or
    !> 64-bit integers), layout (default DV_LAYOUT_LEFT), device space (default
    !> DV_SPACE_HOST: one allocation), ordinal, flags (DV_FLAG_*). On failure self is unchanged.
    module subroutine dv_f_create_i64(self, label, dtype, shape_, layout, space, ordinal, flags, stat, errmsg)
      class(dualview_t), intent(inout) :: self
      character(len=*), intent(in) :: label
      integer(c_int32_t), intent(in) :: dtype
      integer(int64), intent(in) :: shape_(:)
      integer(c_int32_t), intent(in), optional :: layout, space, ordinal, flags
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    module subroutine dv_f_create_i32(self, label, dtype, shape_, layout, space, ordinal, flags, stat, errmsg)
      class(dualview_t), intent(inout) :: self
      character(len=*), intent(in) :: label
      integer(c_int32_t), intent(in) :: dtype
      integer(int32), intent(in) :: shape_(:)
      integer(c_int32_t), intent(in), optional :: layout, space, ordinal, flags
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> Release this handle (idempotent; the memory goes with the last handle). A raw
    !> copy (allocate(source=)) is only detached.
    module subroutine dv_f_destroy(self, stat, errmsg)
      class(dualview_t), intent(inout) :: self
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    module impure elemental subroutine dv_f_final(self)
      type(dualview_t), intent(inout) :: self
    end subroutine

    !> a = b: a gets its own handle on b's DualView (dv_clone); a's old handle is
    !> released. Elemental: arr = b gives every element its own handle.
    module impure elemental subroutine dv_f_assign(lhs, rhs)
      class(dualview_t), intent(inout) :: lhs
      class(dualview_t), intent(in) :: rhs
    end subroutine

    !> Mark this DualView as the result of the function that returns it; call it last
    !> in the function. The assignment that receives the result (u = make_field(n))
    !> takes this handle over instead of making a new one, and the compiler's copies of
    !> the result, finalized or not, release nothing more. A result that is never
    !> assigned is released when the compiler finalizes it (gfortran 13 and later,
    !> ifx); gfortran 12 never does (docs/FORTRAN.md). Elemental.
    module impure elemental subroutine dv_f_as_result(self)
      class(dualview_t), intent(inout) :: self
    end subroutine

    !> Whether this object holds a handle (created, wrapped or assigned, and not destroyed).
    module logical function dv_f_is_valid(self)
      class(dualview_t), intent(in) :: self
    end function

    !> The size of dimension dim (1-based, Fortran order); 0 on failure.
    module function dv_f_extent_i64(self, dim, stat, errmsg) result(n)
      class(dualview_t), intent(in) :: self
      integer(int64), intent(in) :: dim
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
      integer(int64) :: n
    end function

    module function dv_f_extent_i32(self, dim, stat, errmsg) result(n)
      class(dualview_t), intent(in) :: self
      integer(int32), intent(in) :: dim
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
      integer(int64) :: n
    end function

    !> The rank (number of dims); 0 on failure.
    module integer function dv_f_rank(self, stat, errmsg) result(r)
      class(dualview_t), intent(in) :: self
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end function

    !> What the handle is (dv_info_t: bits DV_INFO_*, dtype, host_space, device_space,
    !> ordinal, rank, elem_size, use_count); all 0 on failure.
    module function dv_f_info(self, stat, errmsg) result(info)
      class(dualview_t), intent(in) :: self
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
      type(dv_info_t) :: info
    end function

    !> The label given to create or wrap ("" on failure).
    module function dv_f_label(self, stat, errmsg) result(label)
      class(dualview_t), intent(in) :: self
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
      character(len=:), allocatable :: label
    end function

    !> label as a subroutine (safe in threads): call a%get_label(label).
    module subroutine dv_f_get_label(self, label, stat, errmsg)
      class(dualview_t), intent(in) :: self
      character(len=:), allocatable, intent(out) :: label
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> The label of one side's view (DV_SIDE_HOST or DV_SIDE_DEVICE): label // "_mirror"
    !> for a separate host mirror, as Kokkos names it ("" on failure).
    module function dv_f_view_label(self, side, stat, errmsg) result(label)
      class(dualview_t), intent(in) :: self
      integer(c_int32_t), intent(in) :: side
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
      character(len=:), allocatable :: label
    end function

    !> view_label as a subroutine (safe in threads): call a%get_view_label(side, label).
    module subroutine dv_f_get_view_label(self, side, label, stat, errmsg)
      class(dualview_t), intent(in) :: self
      integer(c_int32_t), intent(in) :: side
      character(len=:), allocatable, intent(out) :: label
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> The device data pointer, for OpenACC deviceptr or CUDA Fortran (c_null_ptr on failure).
    !> mode: DV_ACCESS_READ, _WRITE or _READ_WRITE (default): syncs and marks like dv_device_access.
    module function dv_f_device_ptr(self, mode, stat, errmsg) result(p)
      class(dualview_t), intent(in) :: self
      integer(c_int32_t), intent(in), optional :: mode
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
      type(c_ptr) :: p
    end function

    !> The transfer counters of this DualView, of all its handles (dv_stats_t: syncs that
    !> copied, bytes and nanoseconds, each way); all 0 on failure.
    module function dv_f_stats(self, stat, errmsg) result(s)
      class(dualview_t), intent(in) :: self
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
      type(dv_stats_t) :: s
    end function

    !> Zero the transfer counters of this DualView (the process-wide ones are kept).
    module subroutine dv_f_stats_reset(self, stat, errmsg)
      class(dualview_t), intent(in) :: self
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> Mark the host side modified (refused while the device holds unsynced changes).
    module subroutine dv_f_modify_host(self, stat, errmsg)
      class(dualview_t), intent(in) :: self
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> Mark the device side modified (refused while the host holds unsynced changes).
    module subroutine dv_f_modify_device(self, stat, errmsg)
      class(dualview_t), intent(in) :: self
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> Bring the host up to date: copy from the device when the device is newer.
    module subroutine dv_f_sync_host(self, stat, errmsg)
      class(dualview_t), intent(in) :: self
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> The host side of this (sub)view was just written (an MPI receive into a halo):
    !> modify_host, then sync_device, through it, in one call.
    module subroutine dv_f_push_host(self, stat, errmsg)
      class(dualview_t), intent(in) :: self
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> The device side of this (sub)view was just written: copy it to the host now.
    module subroutine dv_f_push_device(self, stat, errmsg)
      class(dualview_t), intent(in) :: self
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> sub = the part lo(d):hi(d) of each dimension d (1-based and inclusive, as a Fortran
    !> section; every dimension kept), sharing memory and flags with self. Its syncs copy
    !> only its part (a halo row or column), and its modifies mark only that part.
    module subroutine dv_f_subview_i64(self, sub, lo, hi, stat, errmsg)
      class(dualview_t), intent(in) :: self
      type(dualview_t), intent(inout) :: sub
      integer(int64), intent(in) :: lo(:), hi(:)
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    module subroutine dv_f_subview_i32(self, sub, lo, hi, stat, errmsg)
      class(dualview_t), intent(in) :: self
      type(dualview_t), intent(inout) :: sub
      integer(int32), intent(in) :: lo(:), hi(:)
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> Bring the device up to date: copy from the host when the host is newer.
    module subroutine dv_f_sync_device(self, stat, errmsg)
      class(dualview_t), intent(in) :: self
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> Forget both sides' pending changes, without copying.
    module subroutine dv_f_clear_sync_state(self, stat, errmsg)
      class(dualview_t), intent(in) :: self
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> Whether the host is stale (the device is newer); .false. on failure.
    module logical function dv_f_need_sync_host(self, stat, errmsg) result(r)
      class(dualview_t), intent(in) :: self
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end function

    !> Whether the device is stale (the host is newer); .false. on failure.
    module logical function dv_f_need_sync_device(self, stat, errmsg) result(r)
      class(dualview_t), intent(in) :: self
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end function

    !> New extents keeping each element's newest value (Fortran order, default or 64-bit integers).
    module subroutine dv_f_resize_i64(self, shape_, stat, errmsg)
      class(dualview_t), intent(in) :: self
      integer(int64), intent(in) :: shape_(:)
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    module subroutine dv_f_resize_i32(self, shape_, stat, errmsg)
      class(dualview_t), intent(in) :: self
      integer(int32), intent(in) :: shape_(:)
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> New zero-filled extents (default or 64-bit integers); contents dropped, flags clean.
    module subroutine dv_f_realloc_i64(self, shape_, stat, errmsg)
      class(dualview_t), intent(in) :: self
      integer(int64), intent(in) :: shape_(:)
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    module subroutine dv_f_realloc_i32(self, shape_, stat, errmsg)
      class(dualview_t), intent(in) :: self
      integer(int32), intent(in) :: shape_(:)
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out), optional :: errmsg
    end subroutine

    !> The untyped part of host(p) (dualview_typed_t's deferred host_untyped).
    module subroutine dv_f_host_untyped(self, dtype, tname, rank_, mode, p, shp, ok, stat, msg)
      class(dualview_t), intent(in) :: self
      integer(c_int32_t), intent(in) :: dtype
      character(len=*), intent(in) :: tname
      integer, intent(in) :: rank_
      integer(c_int32_t), intent(in), optional :: mode
      type(c_ptr), intent(out) :: p
      integer(int64), intent(out) :: shp(:)
      logical, intent(out) :: ok
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out) :: msg
    end subroutine

    !> The untyped part of wrap (dualview_typed_t's deferred wrap_untyped).
    module subroutine dv_f_wrap_untyped(self, label, dtype, contig, addr, shp, space, ordinal, flags, stat, msg)
      class(dualview_t), intent(inout) :: self
      character(len=*), intent(in) :: label
      integer(c_int32_t), intent(in) :: dtype
      logical, intent(in) :: contig
      type(c_ptr), intent(in) :: addr
      integer(int64), intent(in) :: shp(:)
      integer(c_int32_t), intent(in), optional :: space, ordinal, flags
      integer, intent(out), optional :: stat
      character(len=:), allocatable, intent(out) :: msg
    end subroutine
  end interface

end module dualview
