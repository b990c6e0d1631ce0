! Generated from include/dualview.h by scripts/gen-fortran.py. Do not edit: change the
! header (through src/) or the generator and run: python3 scripts/gen-fortran.py
! Every constant, status code, bind(c) type and C interface below is read from dualview.h.
!
!> Module dualview_abi: the generated part of the Fortran binding, under module dualview
!> (fortran/dualview.f90, written by hand), which uses it and re-exports its constants,
!> status codes, dv_info_t, dv_space_info_t and dv_stats_t. Programs `use dualview`, not this module.
!
! The typed accessors. a%host(p) and a%wrap(label, array) are type-bound generics over
! one specific procedure per element type and rank (8 x 8). A specific binding takes
! the type that declares it (or an extension) as its passed object, so they cannot be
! bound to dualview_t, which is declared later, in module dualview; and a generic
! interface of this module would not give the a%host(p) form. So they are bound to
! dualview_typed_t, the abstract parent of dualview_t (no components):
! each does the typed part (c_f_pointer; is_contiguous, c_loc) and calls dualview_t's
! untyped part through the deferred bindings host_untyped and wrap_untyped, which
! dualview_t overrides. Those two are public because a private deferred binding cannot
! be overridden in another module (Fortran 2018, 7.5.7.3: only an accessible binding is
! overridden); they are internal all the same. Fortran 2008 (checked: gfortran 12
! -std=f2008 -Wall -Wextra).
module dualview_abi
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: real32, real64, int8, int16, int32, int64
  implicit none
  private

  public :: dualview_typed_t
  public :: dv_extents_t, dv_desc_t, dv_range_t, dv_init_t, dv_info_t, dv_space_info_t, &
      dv_stats_t
  public :: c_dv_last_error_copy, c_dv_create, c_dv_wrap, c_dv_clone, c_dv_destroy, &
      c_dv_mark_result, c_dv_take, c_dv_release, c_dv_hold, c_dv_hold_use, c_dv_let_go, &
      c_dv_initialize, c_dv_modify_host, c_dv_modify_device, c_dv_sync_host, c_dv_sync_device, &
      c_dv_clear_sync_state, c_dv_need_sync_host, c_dv_need_sync_device, c_dv_host_access, &
      c_dv_device_access, c_dv_rank, c_dv_extent, c_dv_info, c_dv_label, c_dv_view_label, &
      c_dv_desc_of, c_dv_resize, c_dv_realloc, c_dv_handle_count, c_dv_space_info, &
      c_dv_space_available, c_dv_space_device_count, c_dv_fence, c_dv_cuda_available, &
      c_dv_dtype_str, c_dv_version, c_dv_status_str, c_dv_report_start, c_dv_report_write, &
      c_dv_stats, c_dv_stats_reset, c_dv_stats_global, c_dv_stats_global_reset, &
      c_dv_last_error_set, c_dv_subview, c_dv_push_host, c_dv_push_device, c_dv_pool_release

  ! ---- Constants: every numeric #define DV_* and every dv_status_t code of dualview.h ----
  integer(c_int32_t), parameter, public :: DV_VERSION_MAJOR = 0
  integer(c_int32_t), parameter, public :: DV_VERSION_MINOR = 4
  integer(c_int32_t), parameter, public :: DV_VERSION_PATCH = 0
  !> The highest rank.
  integer(c_int32_t), parameter, public :: DV_MAX_RANK = 8
  !> Element type: raw bytes of `elem_size` (aligned to `elem_align`).
  integer(c_int32_t), parameter, public :: DV_DTYPE_BYTES = 0
  !> Element type: `int8_t`.
  integer(c_int32_t), parameter, public :: DV_DTYPE_INT8 = 1
  !> Element type: `int16_t`.
  integer(c_int32_t), parameter, public :: DV_DTYPE_INT16 = 2
  !> Element type: `int32_t`.
  integer(c_int32_t), parameter, public :: DV_DTYPE_INT32 = 3
  !> Element type: `int64_t`.
  integer(c_int32_t), parameter, public :: DV_DTYPE_INT64 = 4
  !> Element type: `uint8_t`.
  integer(c_int32_t), parameter, public :: DV_DTYPE_UINT8 = 5
  !> Element type: `uint16_t`.
  integer(c_int32_t), parameter, public :: DV_DTYPE_UINT16 = 6
  !> Element type: `uint32_t`.
  integer(c_int32_t), parameter, public :: DV_DTYPE_UINT32 = 7
  !> Element type: `uint64_t`.
  integer(c_int32_t), parameter, public :: DV_DTYPE_UINT64 = 8
  !> Element type: `float`.
  integer(c_int32_t), parameter, public :: DV_DTYPE_FLOAT32 = 9
  !> Element type: `double`.
  integer(c_int32_t), parameter, public :: DV_DTYPE_FLOAT64 = 10
  !> Element type: `float _Complex` (two floats).
  integer(c_int32_t), parameter, public :: DV_DTYPE_COMPLEX64 = 11
  !> Element type: `double _Complex` (two doubles).
  integer(c_int32_t), parameter, public :: DV_DTYPE_COMPLEX128 = 12
  !> Column-major (Kokkos `LayoutLeft`, Fortran order).
  integer(c_int32_t), parameter, public :: DV_LAYOUT_LEFT = 0
  !> Row-major (Kokkos `LayoutRight`, C order).
  integer(c_int32_t), parameter, public :: DV_LAYOUT_RIGHT = 1
  !> Explicit strides (`dv_desc_t.strides`, in elements).
  integer(c_int32_t), parameter, public :: DV_LAYOUT_STRIDE = 2
  !> Host memory.
  integer(c_int32_t), parameter, public :: DV_SPACE_HOST = 0
  !> Page-locked host memory (needs CUDA).
  integer(c_int32_t), parameter, public :: DV_SPACE_HOST_PINNED = 1
  !> CUDA device memory.
  integer(c_int32_t), parameter, public :: DV_SPACE_CUDA = 2
  !> CUDA managed (UVM) memory.
  integer(c_int32_t), parameter, public :: DV_SPACE_CUDA_UVM = 3
  !> Host memory posing as a device with its own allocation, for tests without a GPU.
  integer(c_int32_t), parameter, public :: DV_SPACE_TEST_DEVICE = 4
  !> `dv_desc_t.flags`: do not zero-fill (Kokkos `WithoutInitializing`).
  integer(c_int32_t), parameter, public :: DV_FLAG_WITHOUT_INITIALIZING = 1
  !> `dv_desc_t.flags`: put the host mirror in pinned memory (needs CUDA).
  integer(c_int32_t), parameter, public :: DV_FLAG_PINNED_HOST = 2
  !> `dv_desc_t.flags`: one allocation in `space` and no mirror (a Kokkos `View`): the host and
  !> device views of the handle are the same memory.
  integer(c_int32_t), parameter, public :: DV_FLAG_SINGLE_SPACE = 4
  !> `dv_desc_t.flags`: keep the host mirror pageable (never registered with the device's driver, as
  !> a CUDA DualView's is).
  integer(c_int32_t), parameter, public :: DV_FLAG_PAGEABLE_HOST = 8
  !> `dv_desc_t.flags`: checked mode for this DualView (as `DV_CHECK=1` does for all): every flag
  !> call verifies that no side changed where it was not marked modified
  !> (`DV_ERROR_UNMARKED_CHANGE`; docs/SEMANTICS.md "Checked mode").
  integer(c_int32_t), parameter, public :: DV_FLAG_CHECKED = 16
  !> Access mode: read (sync first if stale).
  integer(c_int32_t), parameter, public :: DV_ACCESS_READ = 1
  !> Access mode: write (sync first if stale, then mark modified: nothing is lost, as a SYCL 2020
  !> `write` accessor; until 0.3 it dropped the other side's change, which is `DV_ACCESS_OVERWRITE`
  !> now).
  integer(c_int32_t), parameter, public :: DV_ACCESS_WRITE = 2
  !> Access mode: read and write (sync first if stale, then mark modified).
  integer(c_int32_t), parameter, public :: DV_ACCESS_READ_WRITE = 3
  !> Access mode: overwrite everything without reading (no copy: the other side's pending change is
  !> discarded; SYCL's `no_init`). Through a subview, which overwrites only part, the stale side is
  !> synced first.
  integer(c_int32_t), parameter, public :: DV_ACCESS_OVERWRITE = 4
  !> A side of a DualView: the host mirror.
  integer(c_int32_t), parameter, public :: DV_SIDE_HOST = 0
  !> A side of a DualView: the device view.
  integer(c_int32_t), parameter, public :: DV_SIDE_DEVICE = 1
  !> Subview argument: the whole axis (`Kokkos::ALL`).
  integer(c_int32_t), parameter, public :: DV_ALL = 0
  !> Subview argument: the range `[begin, end)`; keeps the axis.
  integer(c_int32_t), parameter, public :: DV_RANGE = 1
  !> Subview argument: the index `begin`; removes the axis.
  integer(c_int32_t), parameter, public :: DV_INDEX = 2
  !> Squeeze mode: drop every extent of 1 (numpy).
  integer(c_int32_t), parameter, public :: DV_SQUEEZE_NUMPY = 0
  !> Squeeze mode: GNU Octave / uBLAS rule (keep at least two axes).
  integer(c_int32_t), parameter, public :: DV_SQUEEZE_OCTAVE = 1
  !> Sync state (`dv_sync_state_word`): every element clean (both sides hold its newest value) and
  !> Kokkos' two modified counters zero.
  integer(c_int32_t), parameter, public :: DV_SYNC_CLEAN = 0
  !> Sync state bit: Kokkos' host counter is non-zero (a host modify not yet followed by a sync):
  !> `need_sync_device()` answers true, and a device modify is a concurrent modification, as in
  !> Kokkos.
  integer(c_int32_t), parameter, public :: DV_SYNC_HOST_MODIFIED = 1
  !> Sync state bit: Kokkos' device counter is non-zero.
  integer(c_int32_t), parameter, public :: DV_SYNC_DEVICE_MODIFIED = 2
  !> Sync state bit: some element is newer on the host (the coherence map).
  integer(c_int32_t), parameter, public :: DV_SYNC_HOST_NEWER = 4
  !> Sync state bit: some element is newer on the device.
  integer(c_int32_t), parameter, public :: DV_SYNC_DEVICE_NEWER = 8
  !> Sync state bit: the elements are not all in one state; the library holds which are where.
  !> Without it, every element is host-newer (`DV_SYNC_HOST_NEWER`), device-newer
  !> (`DV_SYNC_DEVICE_NEWER`) or clean.
  integer(c_int32_t), parameter, public :: DV_SYNC_PARTIAL = 16
  !> Sync state bit: copies queued on a stream (`dv_sync_*_async`) may still be running. Blocking
  !> syncs, access calls and fences wait for them first; the C++ inline fast paths leave such a byte
  !> to the library.
  integer(c_int32_t), parameter, public :: DV_SYNC_IN_FLIGHT = 32
  !> Sync state: one memory space; modify and sync do nothing (the whole byte).
  integer(c_int32_t), parameter, public :: DV_SYNC_ONE_SPACE = 64
  !> `dv_info_t.bits`: host and device are one space (modify and sync do nothing).
  integer(c_int32_t), parameter, public :: DV_INFO_SINGLE_SPACE = 1
  !> `dv_info_t.bits`: host and device views are one allocation (single space or managed memory).
  integer(c_int32_t), parameter, public :: DV_INFO_ONE_ALLOCATION = 2
  !> `dv_info_t.bits`: the handle's data is const (`dv_clone_const`).
  integer(c_int32_t), parameter, public :: DV_INFO_CONST = 4
  !> `dv_info_t.bits`: the handle is a subview.
  integer(c_int32_t), parameter, public :: DV_INFO_SUBVIEW = 8
  !> `dv_info_t.bits`: dualview owns the memory (not `dv_wrap`).
  integer(c_int32_t), parameter, public :: DV_INFO_OWNED = 16
  !> `dv_info_t.bits`: a subview made before its parent was resized or reallocated.
  integer(c_int32_t), parameter, public :: DV_INFO_STALE = 32
  !> `dv_info_t.bits`: the host mirror is page-locked now (a pinned space, or a mirror registered
  !> with the device's driver, CUDA's, by its first copying sync at the latest; after a resize, from
  !> 64 MiB, by its second when the first was one large copy), so copies run at pinned speed.
  integer(c_int32_t), parameter, public :: DV_INFO_MIRROR_PINNED = 64
  !> `dv_info_t.bits`: checked mode (`DV_FLAG_CHECKED` or `DV_CHECK=1`): every modify and sync goes
  !> through the library, which verifies the sides.
  integer(c_int32_t), parameter, public :: DV_INFO_CHECKED = 128
  !> Kokkos Tools event (`dv_tools_set_callback`): `kokkosp_init_library`.
  integer(c_int32_t), parameter, public :: DV_TOOLS_INIT = 0
  !> Kokkos Tools event: `kokkosp_finalize_library`.
  integer(c_int32_t), parameter, public :: DV_TOOLS_FINALIZE = 1
  !> Kokkos Tools event: `kokkosp_allocate_data`.
  integer(c_int32_t), parameter, public :: DV_TOOLS_ALLOCATE_DATA = 2
  !> Kokkos Tools event: `kokkosp_deallocate_data`.
  integer(c_int32_t), parameter, public :: DV_TOOLS_DEALLOCATE_DATA = 3
  !> Kokkos Tools event: `kokkosp_begin_deep_copy`.
  integer(c_int32_t), parameter, public :: DV_TOOLS_BEGIN_DEEP_COPY = 4
  !> Kokkos Tools event: `kokkosp_end_deep_copy`.
  integer(c_int32_t), parameter, public :: DV_TOOLS_END_DEEP_COPY = 5
  !> Kokkos Tools event: `kokkosp_push_profile_region`.
  integer(c_int32_t), parameter, public :: DV_TOOLS_PUSH_REGION = 6
  !> Kokkos Tools event: `kokkosp_pop_profile_region`.
  integer(c_int32_t), parameter, public :: DV_TOOLS_POP_REGION = 7
  !> Kokkos Tools event: `kokkosp_create_profile_section`.
  integer(c_int32_t), parameter, public :: DV_TOOLS_CREATE_SECTION = 8
  !> Kokkos Tools event: `kokkosp_start_profile_section`.
  integer(c_int32_t), parameter, public :: DV_TOOLS_START_SECTION = 9
  !> Kokkos Tools event: `kokkosp_stop_profile_section`.
  integer(c_int32_t), parameter, public :: DV_TOOLS_STOP_SECTION = 10
  !> Kokkos Tools event: `kokkosp_destroy_profile_section`.
  integer(c_int32_t), parameter, public :: DV_TOOLS_DESTROY_SECTION = 11
  !> Kokkos Tools event: `kokkosp_profile_event`.
  integer(c_int32_t), parameter, public :: DV_TOOLS_PROFILE_EVENT = 12
  !> Kokkos Tools event: `kokkosp_begin_fence`.
  integer(c_int32_t), parameter, public :: DV_TOOLS_BEGIN_FENCE = 13
  !> Kokkos Tools event: `kokkosp_end_fence`.
  integer(c_int32_t), parameter, public :: DV_TOOLS_END_FENCE = 14
  !> Kokkos Tools event: `kokkosp_declare_metadata`.
  integer(c_int32_t), parameter, public :: DV_TOOLS_DECLARE_METADATA = 15
  !> Kokkos Tools event: `kokkosp_dual_view_sync`.
  integer(c_int32_t), parameter, public :: DV_TOOLS_DUAL_VIEW_SYNC = 16
  !> Kokkos Tools event: `kokkosp_dual_view_modify`.
  integer(c_int32_t), parameter, public :: DV_TOOLS_DUAL_VIEW_MODIFY = 17

  !> The result of every fallible C call. `DV_OK` is 0; each error has its own code; the message of
  !> the last error on the calling thread is `dv_last_error()`.
  enum, bind(c)
    !> Success.
    enumerator :: DV_OK = 0
    !> A required pointer argument was NULL.
    enumerator :: DV_ERROR_NULL_ARGUMENT = 1
    !> A malformed argument: unknown enum value, bad strides, element size, a write through a const
    !> handle...
    enumerator :: DV_ERROR_INVALID_ARGUMENT = 2
    !> A destroyed, never-created or foreign handle.
    enumerator :: DV_ERROR_INVALID_HANDLE = 3
    !> A rank above `DV_MAX_RANK` (8).
    enumerator :: DV_ERROR_RANK = 4
    !> An axis, index or range outside the extents.
    enumerator :: DV_ERROR_OUT_OF_RANGE = 5
    !> An extents product or byte size that overflows.
    enumerator :: DV_ERROR_OVERFLOW = 6
    !> An allocation failed (host or device); nothing was changed.
    enumerator :: DV_ERROR_OUT_OF_MEMORY = 7
    !> A modify of one side while the other side holds unsynced changes.
    enumerator :: DV_ERROR_CONCURRENT_MODIFICATION = 8
    !> A sync through a const handle that would have to copy.
    enumerator :: DV_ERROR_CONST_SYNC = 9
    !> Shapes, element sizes or spaces that do not fit together.
    enumerator :: DV_ERROR_INCOMPATIBLE = 10
    !> A space this machine or build cannot serve: no driver (CUDA's, for the CUDA spaces) or no
    !> such device; the message names the space and the reason.
    enumerator :: DV_ERROR_NO_DEVICE = 11
    !> A device driver call failed; the message has the driver's error name and text.
    enumerator :: DV_ERROR_DEVICE = 12
    !> A bug in dualview (including a caught panic).
    enumerator :: DV_ERROR_INTERNAL = 13
    !> A wrong number of values, or a resize/realloc to another rank.
    enumerator :: DV_ERROR_RANK_MISMATCH = 14
    !> A value that contradicts a static extent.
    enumerator :: DV_ERROR_STATIC_MISMATCH = 15
    !> resize/realloc of caller-owned memory (`dv_wrap`).
    enumerator :: DV_ERROR_UNMANAGED = 16
    !> A subview made before its parent was resized or reallocated.
    enumerator :: DV_ERROR_STALE = 17
    !> The data is borrowed by a Rust access guard.
    enumerator :: DV_ERROR_BUSY = 18
    !> Checked mode: a side changed where it was not marked modified (a missing modify, or both
    !> sides written); nothing was copied or marked.
    enumerator :: DV_ERROR_UNMARKED_CHANGE = 19
  end enum
  public :: DV_OK, DV_ERROR_NULL_ARGUMENT, DV_ERROR_INVALID_ARGUMENT, DV_ERROR_INVALID_HANDLE, &
      DV_ERROR_RANK, DV_ERROR_OUT_OF_RANGE, DV_ERROR_OVERFLOW, DV_ERROR_OUT_OF_MEMORY, &
      DV_ERROR_CONCURRENT_MODIFICATION, DV_ERROR_CONST_SYNC, DV_ERROR_INCOMPATIBLE, &
      DV_ERROR_NO_DEVICE, DV_ERROR_DEVICE, DV_ERROR_INTERNAL, DV_ERROR_RANK_MISMATCH, &
      DV_ERROR_STATIC_MISMATCH, DV_ERROR_UNMANAGED, DV_ERROR_STALE, DV_ERROR_BUSY, &
      DV_ERROR_UNMARKED_CHANGE

  ! ---- The structs of dualview.h the binding passes (bind(c), field by field) ----
  !> Extents as a value: the rank and the sizes. Entries past `rank` are ignored on input and
  !> written as 1 on output. `reserved` must be 0.
  type, bind(c) :: dv_extents_t
    !> Number of axes, 0 to 8.
    integer(c_int32_t) :: rank = 0
    !> Must be 0.
    integer(c_int32_t) :: reserved = 0
    !> Size of each axis.
    integer(c_int64_t) :: extent(8) = 0
  end type

  !> How to create a DualView (`dv_create`, `dv_wrap`).
  type, bind(c) :: dv_desc_t
    !> `DV_DTYPE_*`.
    integer(c_int32_t) :: dtype = 0
    !> Element size in bytes; used with `DV_DTYPE_BYTES`, otherwise 0 or the type's size.
    integer(c_int32_t) :: elem_size = 0
    !> Element alignment (power of two, at most 64); 0 means the type's, or for bytes the largest
    !> power of two dividing `elem_size` up to 16.
    integer(c_int32_t) :: elem_align = 0
    !> `DV_LAYOUT_*`, shared by both sides.
    integer(c_int32_t) :: layout = 0
    !> `DV_SPACE_*` of the device side (`DV_SPACE_HOST`: one space, one allocation).
    integer(c_int32_t) :: space = 0
    !> Device ordinal for CUDA and test-device spaces.
    integer(c_int32_t) :: ordinal = 0
    !> `DV_FLAG_*` bits.
    integer(c_int32_t) :: flags = 0
    !> Must be 0.
    integer(c_int32_t) :: reserved = 0
    !> The extents.
    type(dv_extents_t) :: extents
    !> Strides in elements, one per axis, for `DV_LAYOUT_STRIDE` only.
    integer(c_int64_t) :: strides(8) = 0
  end type

  !> One subview argument per axis.
  type, bind(c) :: dv_range_t
    !> `DV_ALL`, `DV_RANGE` or `DV_INDEX`.
    integer(c_int32_t) :: kind = 0
    !> Must be 0.
    integer(c_int32_t) :: reserved = 0
    !> Range start, or the index for `DV_INDEX`.
    integer(c_int64_t) :: begin = 0
    !> Range end (exclusive) for `DV_RANGE`.
    integer(c_int64_t) :: end = 0
  end type

  !> Device settings given in code (Kokkos' `InitializationSettings`); they win over the arguments
  !> and the environment. `{ DV_SPACE_CUDA, -1, NULL }` sets nothing.
  type, bind(c) :: dv_init_t
    !> `DV_SPACE_*` whose devices are mapped (`DV_SPACE_CUDA` for a GPU code).
    integer(c_int32_t) :: space = 0
    !> An explicit device id, an index into the visible devices; -1: none.
    integer(c_int32_t) :: device_id = 0
    !> `"mpi_rank"` or `"random"`; NULL: none (round robin over the node-local MPI rank when a
    !> launcher set one).
    type(c_ptr) :: map_device_id_by = c_null_ptr
  end type

  !> What a handle is (`dv_info`).
  type, bind(c) :: dv_info_t
    !> `DV_INFO_*` bits: single space, one allocation, const, subview, owned, stale.
    integer(c_int32_t) :: bits = 0
    !> `DV_DTYPE_*` the handle was made with.
    integer(c_int32_t) :: dtype = 0
    !> `DV_SPACE_*` of the host side.
    integer(c_int32_t) :: host_space = 0
    !> `DV_SPACE_*` of the device side.
    integer(c_int32_t) :: device_space = 0
    !> Device ordinal of the device side.
    integer(c_int32_t) :: ordinal = 0
    !> Rank of this handle.
    integer(c_int32_t) :: rank = 0
    !> Element size in bytes.
    integer(c_int64_t) :: elem_size = 0
    !> How many handles (clones, subviews, C++ views) share the DualView.
    integer(c_int64_t) :: use_count = 0
  end type

  !> What a memory space means for DualViews (`dv_space_info`): the core's policy table, which the
  !> C++ space tags and the Fortran module follow.
  type, bind(c) :: dv_space_info_t
    !> Host code may dereference this memory.
    logical(c_bool) :: host_accessible = .false.
    !> A DualView over this space keeps a separate host mirror.
    logical(c_bool) :: needs_mirror = .false.
    !> Managed memory: one allocation, one address on host and device.
    logical(c_bool) :: unified = .false.
    !> Work in this space runs on a (real or test) device.
    logical(c_bool) :: is_device = .false.
    !> `DV_LAYOUT_*` a DualView gets when none is named.
    integer(c_int32_t) :: default_layout = 0
    !> `DV_SPACE_*` of the host side of a DualView over this space.
    integer(c_int32_t) :: host_side = 0
  end type

  !> Transfer counters: syncs that copied data, bytes moved, time spent.
  type, bind(c) :: dv_stats_t
    !> Host-to-device syncs.
    integer(c_int64_t) :: to_device_count = 0
    !> Bytes copied host to device.
    integer(c_int64_t) :: to_device_bytes = 0
    !> Nanoseconds spent copying host to device.
    integer(c_int64_t) :: to_device_ns = 0
    !> Device-to-host syncs.
    integer(c_int64_t) :: to_host_count = 0
    !> Bytes copied device to host.
    integer(c_int64_t) :: to_host_bytes = 0
    !> Nanoseconds spent copying device to host.
    integer(c_int64_t) :: to_host_ns = 0
    !> Resizes that copied (on each side, the kept elements it holds newest or clean, in its own
    !> space; none for a block grown in place).
    integer(c_int64_t) :: resize_count = 0
    !> Bytes resizes copied.
    integer(c_int64_t) :: resize_bytes = 0
    !> Nanoseconds resizes spent copying.
    integer(c_int64_t) :: resize_ns = 0
    !> Deep copies and view copies into the DualView (`dv_deep_copy`, `dv_view_copy`).
    integer(c_int64_t) :: copy_count = 0
    !> Bytes they copied.
    integer(c_int64_t) :: copy_bytes = 0
    !> Nanoseconds they took (for a copy queued on a stream: its enqueue).
    integer(c_int64_t) :: copy_ns = 0
    !> Fills of a side (`dv_fill_and_modify_*`, `dv_view_fill`).
    integer(c_int64_t) :: fill_count = 0
    !> Bytes they wrote.
    integer(c_int64_t) :: fill_bytes = 0
    !> Nanoseconds they took.
    integer(c_int64_t) :: fill_ns = 0
  end type

  !> The typed accessors of dualview_t (its abstract parent; see the top of this file).
  type, abstract :: dualview_typed_t
  contains
    procedure(host_untyped_i), deferred :: host_untyped
    procedure(wrap_untyped_i), deferred :: wrap_untyped
    procedure, private :: host_r32_1, host_r32_2, host_r32_3, host_r32_4, host_r32_5, &
        host_r32_6, host_r32_7, host_r32_8, host_r64_1, host_r64_2, host_r64_3, host_r64_4, &
        host_r64_5, host_r64_6, host_r64_7, host_r64_8, host_c64_1, host_c64_2, host_c64_3, &
        host_c64_4, host_c64_5, host_c64_6, host_c64_7, host_c64_8, host_c128_1, host_c128_2, &
        host_c128_3, host_c128_4, host_c128_5, host_c128_6, host_c128_7, host_c128_8, &
        host_i8_1, host_i8_2, host_i8_3, host_i8_4, host_i8_5, host_i8_6, host_i8_7, host_i8_8, &
        host_i16_1, host_i16_2, host_i16_3, host_i16_4, host_i16_5, host_i16_6, host_i16_7, &
        host_i16_8, host_i32_1, host_i32_2, host_i32_3, host_i32_4, host_i32_5, host_i32_6, &
        host_i32_7, host_i32_8, host_i64_1, host_i64_2, host_i64_3, host_i64_4, host_i64_5, &
        host_i64_6, host_i64_7, host_i64_8
    generic :: host => host_r32_1, host_r32_2, host_r32_3, host_r32_4, host_r32_5, host_r32_6, &
        host_r32_7, host_r32_8, host_r64_1, host_r64_2, host_r64_3, host_r64_4, host_r64_5, &
        host_r64_6, host_r64_7, host_r64_8, host_c64_1, host_c64_2, host_c64_3, host_c64_4, &
        host_c64_5, host_c64_6, host_c64_7, host_c64_8, host_c128_1, host_c128_2, host_c128_3, &
        host_c128_4, host_c128_5, host_c128_6, host_c128_7, host_c128_8, host_i8_1, host_i8_2, &
        host_i8_3, host_i8_4, host_i8_5, host_i8_6, host_i8_7, host_i8_8, host_i16_1, &
        host_i16_2, host_i16_3, host_i16_4, host_i16_5, host_i16_6, host_i16_7, host_i16_8, &
        host_i32_1, host_i32_2, host_i32_3, host_i32_4, host_i32_5, host_i32_6, host_i32_7, &
        host_i32_8, host_i64_1, host_i64_2, host_i64_3, host_i64_4, host_i64_5, host_i64_6, &
        host_i64_7, host_i64_8
    procedure, private :: wrap_r32_1, wrap_r32_2, wrap_r32_3, wrap_r32_4, wrap_r32_5, &
        wrap_r32_6, wrap_r32_7, wrap_r32_8, wrap_r64_1, wrap_r64_2, wrap_r64_3, wrap_r64_4, &
        wrap_r64_5, wrap_r64_6, wrap_r64_7, wrap_r64_8, wrap_c64_1, wrap_c64_2, wrap_c64_3, &
        wrap_c64_4, wrap_c64_5, wrap_c64_6, wrap_c64_7, wrap_c64_8, wrap_c128_1, wrap_c128_2, &
        wrap_c128_3, wrap_c128_4, wrap_c128_5, wrap_c128_6, wrap_c128_7, wrap_c128_8, &
        wrap_i8_1, wrap_i8_2, wrap_i8_3, wrap_i8_4, wrap_i8_5, wrap_i8_6, wrap_i8_7, wrap_i8_8, &
        wrap_i16_1, wrap_i16_2, wrap_i16_3, wrap_i16_4, wrap_i16_5, wrap_i16_6, wrap_i16_7, &
        wrap_i16_8, wrap_i32_1, wrap_i32_2, wrap_i32_3, wrap_i32_4, wrap_i32_5, wrap_i32_6, &
        wrap_i32_7, wrap_i32_8, wrap_i64_1, wrap_i64_2, wrap_i64_3, wrap_i64_4, wrap_i64_5, &
        wrap_i64_6, wrap_i64_7, wrap_i64_8
    generic :: wrap => wrap_r32_1, wrap_r32_2, wrap_r32_3, wrap_r32_4, wrap_r32_5, wrap_r32_6, &
        wrap_r32_7, wrap_r32_8, wrap_r64_1, wrap_r64_2, wrap_r64_3, wrap_r64_4, wrap_r64_5, &
        wrap_r64_6, wrap_r64_7, wrap_r64_8, wrap_c64_1, wrap_c64_2, wrap_c64_3, wrap_c64_4, &
        wrap_c64_5, wrap_c64_6, wrap_c64_7, wrap_c64_8, wrap_c128_1, wrap_c128_2, wrap_c128_3, &
        wrap_c128_4, wrap_c128_5, wrap_c128_6, wrap_c128_7, wrap_c128_8, wrap_i8_1, wrap_i8_2, &
        wrap_i8_3, wrap_i8_4, wrap_i8_5, wrap_i8_6, wrap_i8_7, wrap_i8_8, wrap_i16_1, &
        wrap_i16_2, wrap_i16_3, wrap_i16_4, wrap_i16_5, wrap_i16_6, wrap_i16_7, wrap_i16_8, &
        wrap_i32_1, wrap_i32_2, wrap_i32_3, wrap_i32_4, wrap_i32_5, wrap_i32_6, wrap_i32_7, &
        wrap_i32_8, wrap_i64_1, wrap_i64_2, wrap_i64_3, wrap_i64_4, wrap_i64_5, wrap_i64_6, &
        wrap_i64_7, wrap_i64_8
  end type

  abstract interface
    !> The untyped part of host(p): check that self can be seen as a Fortran array of
    !> dtype (Fortran type tname) and rank_, then get its host pointer p and shape shp
    !> (mode as for host). ok is .false. after a failure, reported into stat and msg.
    subroutine host_untyped_i(self, dtype, tname, rank_, mode, p, shp, ok, stat, msg)
      import
      class(dualview_typed_t), intent(in) :: self
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

    !> The untyped part of wrap: a DualView of dtype over the caller's memory at addr of
    !> shape shp, or (contig .false.) the refusal of a non-contiguous array; reports into
    !> stat and msg.
    subroutine wrap_untyped_i(self, label, dtype, contig, addr, shp, space, ordinal, flags, stat, msg)
      import
      class(dualview_typed_t), intent(inout) :: self
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

  ! ---- The C functions (prototypes of dualview.h) ----
  interface
    function c_dv_last_error_copy(buf, buf_len, len) bind(c, name="dv_last_error_copy") result(res_)
      import
      type(c_ptr), value :: buf
      integer(c_size_t), value :: buf_len
      integer(c_size_t), intent(inout) :: len
      integer(c_size_t) :: res_
    end function
    function c_dv_create(label, desc, out) bind(c, name="dv_create") result(res_)
      import
      type(c_ptr), value :: label
      type(dv_desc_t), intent(in) :: desc
      type(c_ptr), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_wrap(label, desc, host, device, out) bind(c, name="dv_wrap") result(res_)
      import
      type(c_ptr), value :: label
      type(dv_desc_t), intent(in) :: desc
      type(c_ptr), value :: host
      type(c_ptr), value :: device
      type(c_ptr), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_clone(src, out) bind(c, name="dv_clone") result(res_)
      import
      type(c_ptr), value :: src
      type(c_ptr), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_destroy(dv) bind(c, name="dv_destroy") result(res_)
      import
      type(c_ptr), value :: dv
      integer(c_int) :: res_
    end function
    function c_dv_mark_result(dv) bind(c, name="dv_mark_result") result(res_)
      import
      type(c_ptr), value :: dv
      integer(c_int) :: res_
    end function
    function c_dv_take(src, out, taken) bind(c, name="dv_take") result(res_)
      import
      type(c_ptr), value :: src
      type(c_ptr), intent(inout) :: out
      logical(c_bool), intent(inout) :: taken
      integer(c_int) :: res_
    end function
    function c_dv_release(dv, released) bind(c, name="dv_release") result(res_)
      import
      type(c_ptr), value :: dv
      logical(c_bool), intent(inout) :: released
      integer(c_int) :: res_
    end function
    function c_dv_hold(dv, owner, assigned_at) bind(c, name="dv_hold") result(res_)
      import
      type(c_ptr), value :: dv
      integer(c_size_t), value :: owner
      integer(c_size_t), value :: assigned_at
      integer(c_int) :: res_
    end function
    function c_dv_hold_use(dv, at, owner) bind(c, name="dv_hold_use") result(res_)
      import
      type(c_ptr), value :: dv
      integer(c_size_t), value :: at
      integer(c_size_t), intent(inout) :: owner
      integer(c_int) :: res_
    end function
    function c_dv_let_go(dv, at, released) bind(c, name="dv_let_go") result(res_)
      import
      type(c_ptr), value :: dv
      integer(c_size_t), value :: at
      logical(c_bool), intent(inout) :: released
      integer(c_int) :: res_
    end function
    function c_dv_initialize(argc, argv, settings, ordinal, mapped) bind(c, name="dv_initialize") result(res_)
      import
      integer(c_int), intent(inout) :: argc
      type(c_ptr), intent(inout) :: argv
      type(dv_init_t), intent(in) :: settings
      integer(c_int32_t), intent(inout) :: ordinal
      logical(c_bool), intent(inout) :: mapped
      integer(c_int) :: res_
    end function
    function c_dv_modify_host(dv) bind(c, name="dv_modify_host") result(res_)
      import
      type(c_ptr), value :: dv
      integer(c_int) :: res_
    end function
    function c_dv_modify_device(dv) bind(c, name="dv_modify_device") result(res_)
      import
      type(c_ptr), value :: dv
      integer(c_int) :: res_
    end function
    function c_dv_sync_host(dv) bind(c, name="dv_sync_host") result(res_)
      import
      type(c_ptr), value :: dv
      integer(c_int) :: res_
    end function
    function c_dv_sync_device(dv) bind(c, name="dv_sync_device") result(res_)
      import
      type(c_ptr), value :: dv
      integer(c_int) :: res_
    end function
    function c_dv_clear_sync_state(dv) bind(c, name="dv_clear_sync_state") result(res_)
      import
      type(c_ptr), value :: dv
      integer(c_int) :: res_
    end function
    function c_dv_need_sync_host(dv, out) bind(c, name="dv_need_sync_host") result(res_)
      import
      type(c_ptr), value :: dv
      logical(c_bool), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_need_sync_device(dv, out) bind(c, name="dv_need_sync_device") result(res_)
      import
      type(c_ptr), value :: dv
      logical(c_bool), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_host_access(dv, mode, out) bind(c, name="dv_host_access") result(res_)
      import
      type(c_ptr), value :: dv
      integer(c_int32_t), value :: mode
      type(c_ptr), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_device_access(dv, mode, out) bind(c, name="dv_device_access") result(res_)
      import
      type(c_ptr), value :: dv
      integer(c_int32_t), value :: mode
      type(c_ptr), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_rank(dv, out) bind(c, name="dv_rank") result(res_)
      import
      type(c_ptr), value :: dv
      integer(c_int32_t), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_extent(dv, axis, out) bind(c, name="dv_extent") result(res_)
      import
      type(c_ptr), value :: dv
      integer(c_int32_t), value :: axis
      integer(c_int64_t), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_info(dv, out) bind(c, name="dv_info") result(res_)
      import
      type(c_ptr), value :: dv
      type(dv_info_t), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_label(dv, buf, buf_len, len) bind(c, name="dv_label") result(res_)
      import
      type(c_ptr), value :: dv
      type(c_ptr), value :: buf
      integer(c_size_t), value :: buf_len
      integer(c_size_t), intent(inout) :: len
      integer(c_int) :: res_
    end function
    function c_dv_view_label(dv, side, buf, buf_len, len) bind(c, name="dv_view_label") result(res_)
      import
      type(c_ptr), value :: dv
      integer(c_int32_t), value :: side
      type(c_ptr), value :: buf
      integer(c_size_t), value :: buf_len
      integer(c_size_t), intent(inout) :: len
      integer(c_int) :: res_
    end function
    function c_dv_desc_of(dv, out) bind(c, name="dv_desc_of") result(res_)
      import
      type(c_ptr), value :: dv
      type(dv_desc_t), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_resize(dv, extents) bind(c, name="dv_resize") result(res_)
      import
      type(c_ptr), value :: dv
      type(dv_extents_t), intent(in) :: extents
      integer(c_int) :: res_
    end function
    function c_dv_realloc(dv, extents) bind(c, name="dv_realloc") result(res_)
      import
      type(c_ptr), value :: dv
      type(dv_extents_t), intent(in) :: extents
      integer(c_int) :: res_
    end function
    function c_dv_handle_count(out) bind(c, name="dv_handle_count") result(res_)
      import
      integer(c_size_t), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_space_info(space, out) bind(c, name="dv_space_info") result(res_)
      import
      integer(c_int32_t), value :: space
      type(dv_space_info_t), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_space_available(space, ordinal, out) bind(c, name="dv_space_available") result(res_)
      import
      integer(c_int32_t), value :: space
      integer(c_int32_t), value :: ordinal
      logical(c_bool), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_space_device_count(space, out) bind(c, name="dv_space_device_count") result(res_)
      import
      integer(c_int32_t), value :: space
      integer(c_size_t), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_fence(space, ordinal, name) bind(c, name="dv_fence") result(res_)
      import
      integer(c_int32_t), value :: space
      integer(c_int32_t), value :: ordinal
      type(c_ptr), value :: name
      integer(c_int) :: res_
    end function
    function c_dv_cuda_available(out) bind(c, name="dv_cuda_available") result(res_)
      import
      logical(c_bool), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_dtype_str(dtype) bind(c, name="dv_dtype_str") result(res_)
      import
      integer(c_int32_t), value :: dtype
      type(c_ptr) :: res_
    end function
    function c_dv_version() bind(c, name="dv_version") result(res_)
      import
      type(c_ptr) :: res_
    end function
    function c_dv_status_str(status) bind(c, name="dv_status_str") result(res_)
      import
      integer(c_int32_t), value :: status
      type(c_ptr) :: res_
    end function
    function c_dv_report_start() bind(c, name="dv_report_start") result(res_)
      import
      integer(c_int) :: res_
    end function
    function c_dv_report_write(prefix) bind(c, name="dv_report_write") result(res_)
      import
      type(c_ptr), value :: prefix
      integer(c_int) :: res_
    end function
    function c_dv_stats(dv, out) bind(c, name="dv_stats") result(res_)
      import
      type(c_ptr), value :: dv
      type(dv_stats_t), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_stats_reset(dv) bind(c, name="dv_stats_reset") result(res_)
      import
      type(c_ptr), value :: dv
      integer(c_int) :: res_
    end function
    function c_dv_stats_global(out) bind(c, name="dv_stats_global") result(res_)
      import
      type(dv_stats_t), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_stats_global_reset() bind(c, name="dv_stats_global_reset") result(res_)
      import
      integer(c_int) :: res_
    end function
    function c_dv_last_error_set(code, message) bind(c, name="dv_last_error_set") result(res_)
      import
      integer(c_int32_t), value :: code
      type(c_ptr), value :: message
      integer(c_int) :: res_
    end function
    function c_dv_subview(src, ranges, n, out) bind(c, name="dv_subview") result(res_)
      import
      type(c_ptr), value :: src
      type(dv_range_t), intent(in) :: ranges
      integer(c_size_t), value :: n
      type(c_ptr), intent(inout) :: out
      integer(c_int) :: res_
    end function
    function c_dv_push_host(dv) bind(c, name="dv_push_host") result(res_)
      import
      type(c_ptr), value :: dv
      integer(c_int) :: res_
    end function
    function c_dv_push_device(dv) bind(c, name="dv_push_device") result(res_)
      import
      type(c_ptr), value :: dv
      integer(c_int) :: res_
    end function
    function c_dv_pool_release(released_bytes) bind(c, name="dv_pool_release") result(res_)
      import
      integer(c_int64_t), intent(inout) :: released_bytes
      integer(c_int) :: res_
    end function
  end interface

contains

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_r32_1(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    real(real32), pointer, intent(out) :: p(:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(1)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_FLOAT32, "real(real32)", 1, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_r32_1(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    real(real32), target, intent(inout) :: array(:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_FLOAT32, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_r32_2(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    real(real32), pointer, intent(out) :: p(:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(2)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_FLOAT32, "real(real32)", 2, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_r32_2(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    real(real32), target, intent(inout) :: array(:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_FLOAT32, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_r32_3(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    real(real32), pointer, intent(out) :: p(:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(3)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_FLOAT32, "real(real32)", 3, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_r32_3(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    real(real32), target, intent(inout) :: array(:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_FLOAT32, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_r32_4(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    real(real32), pointer, intent(out) :: p(:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(4)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_FLOAT32, "real(real32)", 4, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_r32_4(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    real(real32), target, intent(inout) :: array(:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_FLOAT32, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_r32_5(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    real(real32), pointer, intent(out) :: p(:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(5)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_FLOAT32, "real(real32)", 5, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_r32_5(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    real(real32), target, intent(inout) :: array(:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_FLOAT32, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_r32_6(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    real(real32), pointer, intent(out) :: p(:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(6)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_FLOAT32, "real(real32)", 6, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_r32_6(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    real(real32), target, intent(inout) :: array(:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_FLOAT32, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_r32_7(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    real(real32), pointer, intent(out) :: p(:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(7)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_FLOAT32, "real(real32)", 7, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_r32_7(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    real(real32), target, intent(inout) :: array(:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_FLOAT32, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_r32_8(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    real(real32), pointer, intent(out) :: p(:,:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(8)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_FLOAT32, "real(real32)", 8, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_r32_8(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    real(real32), target, intent(inout) :: array(:,:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_FLOAT32, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_r64_1(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    real(real64), pointer, intent(out) :: p(:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(1)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_FLOAT64, "real(real64)", 1, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_r64_1(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    real(real64), target, intent(inout) :: array(:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_FLOAT64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_r64_2(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    real(real64), pointer, intent(out) :: p(:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(2)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_FLOAT64, "real(real64)", 2, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_r64_2(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    real(real64), target, intent(inout) :: array(:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_FLOAT64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_r64_3(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    real(real64), pointer, intent(out) :: p(:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(3)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_FLOAT64, "real(real64)", 3, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_r64_3(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    real(real64), target, intent(inout) :: array(:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_FLOAT64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_r64_4(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    real(real64), pointer, intent(out) :: p(:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(4)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_FLOAT64, "real(real64)", 4, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_r64_4(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    real(real64), target, intent(inout) :: array(:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_FLOAT64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_r64_5(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    real(real64), pointer, intent(out) :: p(:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(5)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_FLOAT64, "real(real64)", 5, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_r64_5(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    real(real64), target, intent(inout) :: array(:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_FLOAT64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_r64_6(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    real(real64), pointer, intent(out) :: p(:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(6)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_FLOAT64, "real(real64)", 6, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_r64_6(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    real(real64), target, intent(inout) :: array(:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_FLOAT64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_r64_7(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    real(real64), pointer, intent(out) :: p(:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(7)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_FLOAT64, "real(real64)", 7, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_r64_7(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    real(real64), target, intent(inout) :: array(:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_FLOAT64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_r64_8(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    real(real64), pointer, intent(out) :: p(:,:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(8)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_FLOAT64, "real(real64)", 8, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_r64_8(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    real(real64), target, intent(inout) :: array(:,:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_FLOAT64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_c64_1(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    complex(real32), pointer, intent(out) :: p(:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(1)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_COMPLEX64, "complex(real32)", 1, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_c64_1(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    complex(real32), target, intent(inout) :: array(:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_COMPLEX64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_c64_2(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    complex(real32), pointer, intent(out) :: p(:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(2)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_COMPLEX64, "complex(real32)", 2, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_c64_2(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    complex(real32), target, intent(inout) :: array(:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_COMPLEX64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_c64_3(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    complex(real32), pointer, intent(out) :: p(:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(3)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_COMPLEX64, "complex(real32)", 3, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_c64_3(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    complex(real32), target, intent(inout) :: array(:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_COMPLEX64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_c64_4(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    complex(real32), pointer, intent(out) :: p(:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(4)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_COMPLEX64, "complex(real32)", 4, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_c64_4(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    complex(real32), target, intent(inout) :: array(:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_COMPLEX64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_c64_5(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    complex(real32), pointer, intent(out) :: p(:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(5)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_COMPLEX64, "complex(real32)", 5, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_c64_5(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    complex(real32), target, intent(inout) :: array(:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_COMPLEX64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_c64_6(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    complex(real32), pointer, intent(out) :: p(:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(6)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_COMPLEX64, "complex(real32)", 6, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_c64_6(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    complex(real32), target, intent(inout) :: array(:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_COMPLEX64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_c64_7(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    complex(real32), pointer, intent(out) :: p(:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(7)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_COMPLEX64, "complex(real32)", 7, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_c64_7(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    complex(real32), target, intent(inout) :: array(:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_COMPLEX64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_c64_8(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    complex(real32), pointer, intent(out) :: p(:,:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(8)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_COMPLEX64, "complex(real32)", 8, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_c64_8(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    complex(real32), target, intent(inout) :: array(:,:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_COMPLEX64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_c128_1(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    complex(real64), pointer, intent(out) :: p(:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(1)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_COMPLEX128, "complex(real64)", 1, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_c128_1(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    complex(real64), target, intent(inout) :: array(:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_COMPLEX128, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_c128_2(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    complex(real64), pointer, intent(out) :: p(:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(2)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_COMPLEX128, "complex(real64)", 2, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_c128_2(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    complex(real64), target, intent(inout) :: array(:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_COMPLEX128, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_c128_3(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    complex(real64), pointer, intent(out) :: p(:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(3)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_COMPLEX128, "complex(real64)", 3, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_c128_3(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    complex(real64), target, intent(inout) :: array(:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_COMPLEX128, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_c128_4(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    complex(real64), pointer, intent(out) :: p(:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(4)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_COMPLEX128, "complex(real64)", 4, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_c128_4(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    complex(real64), target, intent(inout) :: array(:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_COMPLEX128, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_c128_5(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    complex(real64), pointer, intent(out) :: p(:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(5)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_COMPLEX128, "complex(real64)", 5, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_c128_5(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    complex(real64), target, intent(inout) :: array(:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_COMPLEX128, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_c128_6(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    complex(real64), pointer, intent(out) :: p(:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(6)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_COMPLEX128, "complex(real64)", 6, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_c128_6(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    complex(real64), target, intent(inout) :: array(:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_COMPLEX128, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_c128_7(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    complex(real64), pointer, intent(out) :: p(:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(7)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_COMPLEX128, "complex(real64)", 7, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_c128_7(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    complex(real64), target, intent(inout) :: array(:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_COMPLEX128, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_c128_8(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    complex(real64), pointer, intent(out) :: p(:,:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(8)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_COMPLEX128, "complex(real64)", 8, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_c128_8(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    complex(real64), target, intent(inout) :: array(:,:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_COMPLEX128, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i8_1(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int8), pointer, intent(out) :: p(:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(1)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT8, "integer(int8)", 1, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i8_1(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int8), target, intent(inout) :: array(:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT8, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i8_2(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int8), pointer, intent(out) :: p(:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(2)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT8, "integer(int8)", 2, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i8_2(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int8), target, intent(inout) :: array(:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT8, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i8_3(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int8), pointer, intent(out) :: p(:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(3)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT8, "integer(int8)", 3, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i8_3(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int8), target, intent(inout) :: array(:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT8, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i8_4(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int8), pointer, intent(out) :: p(:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(4)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT8, "integer(int8)", 4, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i8_4(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int8), target, intent(inout) :: array(:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT8, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i8_5(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int8), pointer, intent(out) :: p(:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(5)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT8, "integer(int8)", 5, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i8_5(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int8), target, intent(inout) :: array(:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT8, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i8_6(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int8), pointer, intent(out) :: p(:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(6)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT8, "integer(int8)", 6, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i8_6(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int8), target, intent(inout) :: array(:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT8, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i8_7(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int8), pointer, intent(out) :: p(:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(7)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT8, "integer(int8)", 7, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i8_7(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int8), target, intent(inout) :: array(:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT8, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i8_8(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int8), pointer, intent(out) :: p(:,:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(8)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT8, "integer(int8)", 8, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i8_8(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int8), target, intent(inout) :: array(:,:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT8, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i16_1(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int16), pointer, intent(out) :: p(:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(1)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT16, "integer(int16)", 1, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i16_1(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int16), target, intent(inout) :: array(:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT16, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i16_2(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int16), pointer, intent(out) :: p(:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(2)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT16, "integer(int16)", 2, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i16_2(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int16), target, intent(inout) :: array(:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT16, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i16_3(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int16), pointer, intent(out) :: p(:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(3)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT16, "integer(int16)", 3, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i16_3(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int16), target, intent(inout) :: array(:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT16, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i16_4(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int16), pointer, intent(out) :: p(:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(4)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT16, "integer(int16)", 4, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i16_4(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int16), target, intent(inout) :: array(:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT16, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i16_5(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int16), pointer, intent(out) :: p(:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(5)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT16, "integer(int16)", 5, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i16_5(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int16), target, intent(inout) :: array(:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT16, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i16_6(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int16), pointer, intent(out) :: p(:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(6)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT16, "integer(int16)", 6, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i16_6(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int16), target, intent(inout) :: array(:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT16, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i16_7(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int16), pointer, intent(out) :: p(:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(7)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT16, "integer(int16)", 7, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i16_7(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int16), target, intent(inout) :: array(:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT16, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i16_8(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int16), pointer, intent(out) :: p(:,:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(8)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT16, "integer(int16)", 8, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i16_8(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int16), target, intent(inout) :: array(:,:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT16, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i32_1(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int32), pointer, intent(out) :: p(:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(1)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT32, "integer(int32)", 1, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i32_1(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int32), target, intent(inout) :: array(:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT32, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i32_2(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int32), pointer, intent(out) :: p(:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(2)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT32, "integer(int32)", 2, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i32_2(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int32), target, intent(inout) :: array(:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT32, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i32_3(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int32), pointer, intent(out) :: p(:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(3)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT32, "integer(int32)", 3, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i32_3(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int32), target, intent(inout) :: array(:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT32, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i32_4(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int32), pointer, intent(out) :: p(:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(4)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT32, "integer(int32)", 4, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i32_4(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int32), target, intent(inout) :: array(:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT32, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i32_5(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int32), pointer, intent(out) :: p(:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(5)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT32, "integer(int32)", 5, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i32_5(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int32), target, intent(inout) :: array(:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT32, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i32_6(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int32), pointer, intent(out) :: p(:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(6)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT32, "integer(int32)", 6, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i32_6(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int32), target, intent(inout) :: array(:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT32, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i32_7(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int32), pointer, intent(out) :: p(:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(7)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT32, "integer(int32)", 7, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i32_7(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int32), target, intent(inout) :: array(:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT32, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i32_8(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int32), pointer, intent(out) :: p(:,:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(8)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT32, "integer(int32)", 8, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i32_8(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int32), target, intent(inout) :: array(:,:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT32, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i64_1(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int64), pointer, intent(out) :: p(:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(1)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT64, "integer(int64)", 1, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i64_1(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int64), target, intent(inout) :: array(:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i64_2(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int64), pointer, intent(out) :: p(:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(2)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT64, "integer(int64)", 2, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i64_2(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int64), target, intent(inout) :: array(:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i64_3(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int64), pointer, intent(out) :: p(:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(3)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT64, "integer(int64)", 3, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i64_3(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int64), target, intent(inout) :: array(:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i64_4(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int64), pointer, intent(out) :: p(:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(4)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT64, "integer(int64)", 4, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i64_4(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int64), target, intent(inout) :: array(:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i64_5(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int64), pointer, intent(out) :: p(:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(5)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT64, "integer(int64)", 5, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i64_5(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int64), target, intent(inout) :: array(:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i64_6(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int64), pointer, intent(out) :: p(:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(6)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT64, "integer(int64)", 6, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i64_6(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int64), target, intent(inout) :: array(:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i64_7(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int64), pointer, intent(out) :: p(:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(7)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT64, "integer(int64)", 7, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i64_7(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int64), target, intent(inout) :: array(:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> Host array pointer (column-major, LayoutLeft only): syncs the host if stale and, for
  !> write modes (default DV_ACCESS_READ_WRITE), marks it modified. p is null on failure.
  subroutine host_i64_8(self, p, mode, stat, errmsg)
    class(dualview_typed_t), intent(in) :: self
    integer(int64), pointer, intent(out) :: p(:,:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: mode
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: cp
    integer(int64) :: shp(8)
    logical :: ok
    nullify(p)
    call self%host_untyped(DV_DTYPE_INT64, "integer(int64)", 8, mode, cp, shp, ok, stat, m_)
    if (ok) call c_f_pointer(cp, p, shp)
    if (present(errmsg)) errmsg = m_
  end subroutine

  !> A DualView over this existing contiguous array, without copying it (never freed or
  !> resized by dualview). Without space, one host space. With a device space (space=
  !> DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE), the array is the host side, the device side is
  !> allocated by dualview, and the host is marked modified (the first sync_device copies).
  !> A non-contiguous section (u(1:n:2,:)) is refused: nothing is wrapped.
  subroutine wrap_i64_8(self, label, array, space, ordinal, flags, stat, errmsg)
    class(dualview_typed_t), intent(inout) :: self
    character(len=*), intent(in) :: label
    integer(int64), target, intent(inout) :: array(:,:,:,:,:,:,:,:)
    integer(c_int32_t), intent(in), optional :: space, ordinal, flags
    integer, intent(out), optional :: stat
    character(len=:), allocatable, intent(out), optional :: errmsg
    character(len=:), allocatable :: m_
    type(c_ptr) :: addr
    logical :: contig
    contig = is_contiguous(array)
    addr = c_null_ptr
    if (contig) addr = c_loc(array)
    call self%wrap_untyped(label, DV_DTYPE_INT64, contig, addr, shape(array, kind=int64), space, ordinal, flags, stat, m_)
    if (present(errmsg)) errmsg = m_
  end subroutine

end module dualview_abi
