/*
 * dualview/dual_view.hpp: dv::DualView, Kokkos' DualView over one C handle.
 *
 * Value semantics follow Kokkos: copies share data and flags; resize and
 * realloc to new extents give the object a new allocation, and copies or
 * views taken before keep the old one (valid, never dangling). A same-size
 * realloc keeps the allocation, as Kokkos does.
 *
 * need_sync_*, and modify_* / sync_* when they have nothing to do, read the
 * shared flag byte inline (dv_sync_state_word): one load, no call. The
 * transitions they apply are the C header's dv_sync_state_* functions, which
 * the core writes and checks against its own (src/dual_view/flags.rs).
 *
 * dual_view/subview.hpp holds the subview rule (and dv::subview of Views and
 * DualViews), dual_view/functions.hpp the free functions (deep_copy, resize,
 * realloc, is_dual_view); this file includes both.
 */
#ifndef DUALVIEW_DUAL_VIEW_HPP
#define DUALVIEW_DUAL_VIEW_HPP

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>

#include "view.hpp"

namespace dv {

template <class DataType, class Arg1 = void, class Arg2 = void, class Arg3 = void>
class DualView;

namespace detail {

/// View<D, non-void Ps...>: the DualView's t_dev without Kokkos' void placeholders.
template <class D, class Done, class... Ps>
struct view_without_void;
template <class D, class... Done>
struct view_without_void<D, View<D, Done...>> {
  using type = View<D, Done...>;
};
template <class D, class... Done, class P, class... Ps>
struct view_without_void<D, View<D, Done...>, P, Ps...> {
  using type = typename std::conditional_t<std::is_void_v<P>, view_without_void<D, View<D, Done...>, Ps...>,
                                           view_without_void<D, View<D, Done..., P>, Ps...>>::type;
};

#if defined(DV_SYNC_STATE_ATOMICS)
#define DUALVIEW_INLINE_FLAG_WRITES 1
/// 1 while a DualView sync/modify tool hook is set (dv_tools_dual_view_hooks_word).
inline const uint8_t* hooks_word() {
  static const uint8_t* w = [] {
    const uint8_t* p = nullptr;
    static const uint8_t one = 1;  // no answer: always take the ABI
    return dv_tools_dual_view_hooks_word(&p) == DV_OK && p ? p : &one;
  }();
  return w;
}
/// Whether no tool waits for DualView modify events: only then may a modify
/// be written inline (docs/DECISIONS.md D22; the ABI reports it otherwise).
inline bool no_modify_hooks() { return dv_word_load(hooks_word()) == 0; }
#endif

/// Tag for DualView's constructor that adopts a C handle.
struct adopt_t {};

}  // namespace detail
}  // namespace dv

#include "dual_view/subview.hpp"

namespace dv {
namespace detail {

template <class Traits>
void right_strides(const dv_extents_t& e, std::size_t* s) {
  std::size_t acc = 1;
  for (std::size_t r = e.rank; r-- > 0;) {
    s[r] = acc;
    acc *= e.extent[r] ? std::size_t{e.extent[r]} : std::size_t{1};
  }
}

}  // namespace detail

/// Kokkos DualView: a device view and its host mirror with shared modified flags.
template <class DataType, class Arg1, class Arg2, class Arg3>
class DualView : public ViewTraits<DataType, Arg1, Arg2, Arg3> {
  template <class, class, class, class>
  friend class DualView;

 public:
  using traits = ViewTraits<DataType, Arg1, Arg2, Arg3>;
  using typename traits::array_layout;
  using typename traits::const_data_type;
  using typename traits::data_type;
  using typename traits::device_type;
  using typename traits::execution_space;
  using typename traits::memory_space;
  using typename traits::non_const_data_type;
  using typename traits::non_const_value_type;
  using typename traits::value_type;
  using host_mirror_space = typename traits::host_mirror_space;

  using t_dev = typename detail::view_without_void<DataType, View<DataType>, Arg1, Arg2, Arg3>::type;
  using t_host = typename t_dev::HostMirror;
  using t_dev_const = View<const_data_type, array_layout, device_type>;
  using t_host_const = typename t_dev_const::HostMirror;
  using t_dev_const_randomread = View<const_data_type, array_layout, device_type, MemoryTraits<RandomAccess>>;
  using t_host_const_randomread = typename t_dev_const_randomread::HostMirror;
  using t_dev_um = View<data_type, array_layout, device_type, MemoryUnmanaged>;
  using t_host_um = View<typename t_host::data_type, typename t_host::array_layout, typename t_host::device_type, MemoryUnmanaged>;
  using t_dev_const_um = View<const_data_type, array_layout, device_type, MemoryUnmanaged>;
  using t_host_const_um = View<typename t_host::const_data_type, typename t_host::array_layout, typename t_host::device_type, MemoryUnmanaged>;
  /// Kokkos quirk kept: built from t_host's types despite its name.
  using t_dev_const_randomread_um = View<typename t_host::const_data_type, typename t_host::array_layout, typename t_host::device_type,
                                         MemoryTraits<Unmanaged | RandomAccess>>;
  using t_host_const_randomread_um = typename t_dev_const_randomread_um::HostMirror;
  using HostMirror = DualView;
  static constexpr unsigned rank = traits::rank;
  static constexpr bool impl_dualview_is_single_device = std::is_same_v<typename t_dev::device_type, typename t_host::device_type>;

  /// The device view and the host mirror (public, as LAMMPS uses them).
  t_dev d_view;
  t_host h_view;

  /// Not allocated; every flag call is a no-op, need_sync is false.
  DualView() = default;

  /// Allocate both sides (one allocation when they share a space), zero-filled.
  explicit DualView(const std::string& label, std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default,
                    std::size_t n2 = detail::ctor_default, std::size_t n3 = detail::ctor_default,
                    std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
                    std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default)
      : DualView(view_alloc(label), n0, n1, n2, n3, n4, n5, n6, n7) {}

  /// Allocate with view_alloc(label, WithoutInitializing, SequentialHostInit, PinnedHostMirror, ...).
  explicit DualView(const ViewAllocProp& prop, std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default,
                    std::size_t n2 = detail::ctor_default, std::size_t n3 = detail::ctor_default,
                    std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
                    std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default) {
    const std::size_t n[8] = {n0, n1, n2, n3, n4, n5, n6, n7};
    create(prop, detail::extents_from_args<typename traits::analysis>(n));
  }

  /// Allocate from an extents object (dv::extents, dv::dims, dv::dyn_extents).
  template <class E, class = std::enable_if_t<detail::is_extents<E>::value>>
  DualView(const std::string& label, const E& e) {
    dv_extents_t c = e.to_c();
    std::size_t n[8];
    for (std::size_t r = 0; r < 8; ++r) {
      n[r] = detail::ctor_default;
      if (r < c.rank) n[r] = c.extent[r];
    }
    if (c.rank != rank)
      detail::raise(DV_ERROR_RANK_MISMATCH, "dv::DualView: extents of rank " + std::to_string(c.rank) + " for a rank-" + std::to_string(rank) + " type");
    create(view_alloc(label), detail::extents_from_args<typename traits::analysis>(n));
  }

  /// Shallow, converting copy: shares data and flags. To const data: a sync
  /// through the copy that would copy throws, as Kokkos. To another layout
  /// or static extents: checked.
  template <class DT, class A1, class A2, class A3,
            class = std::enable_if_t<!std::is_same_v<DualView<DT, A1, A2, A3>, DualView> &&
                                     std::is_same_v<typename DualView<DT, A1, A2, A3>::non_const_value_type, non_const_value_type>>>
  DualView(const DualView<DT, A1, A2, A3>& src)  // NOLINT: implicit, as Kokkos
  {
    static_assert(DualView<DT, A1, A2, A3>::rank == rank, "dv::DualView: converting between different ranks");
    static_assert(std::is_const_v<value_type> || !std::is_const_v<typename DualView<DT, A1, A2, A3>::value_type>,
                  "dv::DualView: cannot drop const");
    if (!src.track_.get()) return;
    if (std::is_const_v<value_type> && !std::is_const_v<typename DualView<DT, A1, A2, A3>::value_type>) {
      dv_dualview_t* h = nullptr;
      detail::check(dv_clone_const(src.track_.get()->handle, &h));
      attach(detail::adopt(h, src.track_.get()));
    } else {
      attach(src.track_);
    }
    keep_dev_ = src.keep_dev_;
    keep_host_ = src.keep_host_;
  }

  /// Subview constructor: both views subviewed, flags shared with src.
  template <class DT, class A1, class A2, class A3, class Arg0, class... Args>
  DualView(const DualView<DT, A1, A2, A3>& src, const Arg0& arg0, Args... args) {
    attach(detail::adopt(detail::subview_handle(src.impl_handle(), arg0, args...), src.track_.get()));
  }

  /// From two existing views, assumed in sync: a DualView over their memory
  /// (the views keep it alive) with new flags. When both sides are one space
  /// the two views must be the same (Kokkos aborts otherwise; dualview throws,
  /// or aborts with DUALVIEW_ABORT_ON_ERROR).
  DualView(const t_dev& d, const t_host& h) {
    if (impl_dualview_is_single_device && static_cast<const void*>(d.data()) != static_cast<const void*>(h.data()))
      detail::raise(DV_ERROR_INVALID_ARGUMENT, "DualView storing one View constructed from two different Views");
    for (unsigned r = 0; r < rank; ++r)
      if (d.extent(r) != h.extent(r) || (d.extent(r) > 1 && d.stride(r) != h.stride(r)))
        detail::raise(DV_ERROR_INCOMPATIBLE, "DualView constructed with incompatible views");
    if (!d.impl_handle()) detail::raise(DV_ERROR_INVALID_ARGUMENT, "dv::DualView: a view is not allocated");
    wrap_views(&d, h);
  }

  /// Adopt an existing host View (beyond Kokkos; issue 20), such as an
  /// unmanaged `t_host(ptr, n0, ...)` over a legacy array: its memory becomes
  /// the host side (the View keeps it alive), the device side is allocated by
  /// dualview, and the host is marked modified, so the first sync_device()
  /// copies it over. Over one space the View is both sides.
  explicit DualView(const t_host& h) { wrap_views(nullptr, h); }

  /// Adopt a C handle (ownership passes to the DualView).
  DualView(detail::adopt_t, dv_dualview_t* adopted, detail::record* parent = nullptr) { attach(detail::adopt(adopted, parent)); }

  // ---- side matching (reference section 2.5) ---------------------------------

  /// 1 = device, 0 = host, -1 = ambiguous (both sides match: the call does nothing).
  template <class D>
  static constexpr int get_device_side() {
    using dev_mem = typename t_dev::memory_space;
    using host_mem = typename t_host::memory_space;
    using dev_exec = typename t_dev::execution_space;
    using host_exec = typename t_host::execution_space;
    if constexpr (detail::is_memory_space<D>::value) {
      constexpr bool d = std::is_same_v<D, dev_mem>, h = std::is_same_v<D, host_mem>;
      static_assert(d || h, "Template parameter to .sync() must exactly match one of the DualView's device types or one of the execution or memory spaces");
      return d && h ? -1 : (d ? 1 : 0);
    } else if constexpr (detail::is_execution_space<D>::value) {
      constexpr bool d = std::is_same_v<D, dev_exec>, h = std::is_same_v<D, host_exec>;
      static_assert(d || h, "Template parameter to .sync() must exactly match one of the DualView's device types or one of the execution or memory spaces");
      return d && h ? -1 : (d ? 1 : 0);
    } else {
      using M = typename D::memory_space;
      using E = typename D::execution_space;
      constexpr bool md = std::is_same_v<M, dev_mem>, mh = std::is_same_v<M, host_mem>;
      constexpr bool ed = std::is_same_v<E, dev_exec>, eh = std::is_same_v<E, host_exec>;
      static_assert(md || mh || ed || eh, "Template parameter to .sync() must exactly match one of the DualView's device types or one of the execution or memory spaces");
      constexpr int mem = md && mh ? -1 : (md ? 1 : (mh ? 0 : -1));
      return ed && eh ? -1 : (ed ? 1 : (eh ? 0 : mem));
    }
  }

  /// Mark the side of `Space` modified. On a single-device DualView every
  /// Space is accepted and nothing happens (as Kokkos).
  template <class Space>
  void modify() {
    if constexpr (!impl_dualview_is_single_device) {
      constexpr int side = get_device_side<Space>();
      if constexpr (side == 1) modify_device();
      else if constexpr (side == 0) modify_host();
    }
  }
  /// Bring the side of `Space` up to date (nothing on a single-device DualView).
  template <class Space>
  void sync() {
    if constexpr (!impl_dualview_is_single_device) {
      constexpr int side = get_device_side<Space>();
      if constexpr (side == 1) sync_device();
      else if constexpr (side == 0) sync_host();
    }
  }
  /// Bring the side of `Space` up to date on `exec`'s stream (Kokkos
  /// `sync<Space>(exec)`): queued there, returning at once (see sync_host(exec)).
  template <class Space, class Exec>
  void sync(const Exec& exec) {
    if constexpr (!impl_dualview_is_single_device) {
      constexpr int side = get_device_side<Space>();
      if constexpr (side == 1) sync_device(exec);
      else if constexpr (side == 0) sync_host(exec);
    }
  }
  template <class Space>
  bool need_sync() const {
    if constexpr (impl_dualview_is_single_device) {
      return false;
    } else {
      constexpr int side = get_device_side<Space>();
      if constexpr (side == 1) return need_sync_device();
      else if constexpr (side == 0) return need_sync_host();
      else return false;
    }
  }

  /// view<Space>(): d_view for the device's memory space, execution space or
  /// device type (checked first), otherwise h_view.
  template <class Space>
  DV_INLINE_FUNCTION auto view() const {
    if constexpr (detail::is_memory_space<Space>::value) {
      if constexpr (std::is_same_v<Space, typename t_dev::memory_space>) return d_view;
      else {
        static_assert(std::is_same_v<Space, typename t_host::memory_space>,
                      "The template argument is a memory space but doesn't match either of DualView's memory spaces!");
        return h_view;
      }
    } else if constexpr (detail::is_execution_space<Space>::value) {
      if constexpr (std::is_same_v<Space, typename t_dev::execution_space>) return d_view;
      else {
        static_assert(std::is_same_v<Space, typename t_host::execution_space>,
                      "The template argument is an execution space but doesn't match either of DualView's execution spaces!");
        return h_view;
      }
    } else {
      using Dev = typename Space::device_type;
      if constexpr (std::is_same_v<Dev, typename t_dev::device_type>) return d_view;
      else {
        static_assert(std::is_same_v<Dev, typename t_host::device_type>,
                      "The template argument is a device but doesn't match either of DualView's devices!");
        return h_view;
      }
    }
  }
  DV_INLINE_FUNCTION const t_host& view_host() const { return h_view; }
  DV_INLINE_FUNCTION const t_dev& view_device() const { return d_view; }

  // ---- flags (inline fast paths; the C ABI otherwise) ---------------------------

  void modify_host() {
    if (fast_ && dv_sync_state_modify_is_noop(state(), DV_SIDE_HOST)) return;
#ifdef DUALVIEW_INLINE_FLAG_WRITES
    if (writable_ && detail::no_modify_hooks() && dv_sync_state_modify_ordered(word_, DV_SIDE_HOST)) return;
#endif
    call(dv_modify_host);
  }
  void modify_device() {
    if (fast_ && dv_sync_state_modify_is_noop(state(), DV_SIDE_DEVICE)) return;
#ifdef DUALVIEW_INLINE_FLAG_WRITES
    if (writable_ && detail::no_modify_hooks() && dv_sync_state_modify_ordered(word_, DV_SIDE_DEVICE)) return;
#endif
    call(dv_modify_device);
  }
  void sync_host() {
    if (fast_ && dv_sync_state_sync_is_noop(state(), DV_SIDE_HOST)) return;
    call(dv_sync_host);
  }
  void sync_device() {
    if (fast_ && dv_sync_state_sync_is_noop(state(), DV_SIDE_DEVICE)) return;
    call(dv_sync_device);
  }
  /// The host side of this DualView's region was just written (an MPI receive
  /// into a halo subview): modify_host() then sync_device() through it, in one
  /// call (dv_push_host; beyond Kokkos). push_device() is the other way.
  void push_host() { call(dv_push_host); }
  void push_device() { call(dv_push_device); }
  /// Queue the copy on a stream (cudaStream_t / CUstream, or a test-device
  /// stream); flags reset at once; never waits for device work. A later
  /// blocking sync, host_access() or fence waits for the copy (dv_sync_host_async).
  void sync_host_async(void* stream) {
    if (auto* h = impl_handle()) detail::check(dv_sync_host_async(h, stream));
  }
  void sync_device_async(void* stream) {
    if (auto* h = impl_handle()) detail::check(dv_sync_device_async(h, stream));
  }
  /// Kokkos sync_host(exec): on an instance over a stream, queued there
  /// (sync_host_async); on a default instance, the blocking sync_host().
  template <class Exec, class = std::enable_if_t<detail::is_execution_space<Exec>::value>>
  void sync_host(const Exec& exec) {
    if (void* s = detail::stream_of(exec)) sync_host_async(s);
    else sync_host();
  }
  /// Kokkos sync_device(exec): as sync_host(exec), towards the device.
  template <class Exec, class = std::enable_if_t<detail::is_execution_space<Exec>::value>>
  void sync_device(const Exec& exec) {
    if (void* s = detail::stream_of(exec)) sync_device_async(s);
    else sync_device();
  }
  bool need_sync_host() const {
    if (fast_) return dv_sync_state_is_stale(state(), DV_SIDE_HOST);
    return query(dv_need_sync_host);
  }
  bool need_sync_device() const {
    if (fast_) return dv_sync_state_is_stale(state(), DV_SIDE_DEVICE);
    return query(dv_need_sync_device);
  }
  void clear_sync_state() {
#ifdef DUALVIEW_INLINE_FLAG_WRITES
    if (writable_) {
      dv_sync_state_clear_ordered(word_);
      return;
    }
#endif
    call(dv_clear_sync_state);
  }

  // ---- access with a mode (beyond Kokkos: no silent stale data) -----------------

  /// Sync the host side if stale and mark it modified for a write mode, in one
  /// call; returns h_view. `dv::write` keeps the device's pending change (synced
  /// first); `dv::overwrite` drops it.
  t_host host_access(access mode) {
    void* p = nullptr;
    if (auto* h = impl_handle()) detail::check(dv_host_access(h, static_cast<uint32_t>(mode), &p));
    return h_view;
  }
  /// Sync the device side if stale and mark it modified for a write mode; returns d_view.
  t_dev device_access(access mode) {
    void* p = nullptr;
    if (auto* h = impl_handle()) detail::check(dv_device_access(h, static_cast<uint32_t>(mode), &p));
    return d_view;
  }

  // ---- reallocation ---------------------------------------------------------------

  void realloc(std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default, std::size_t n2 = detail::ctor_default,
               std::size_t n3 = detail::ctor_default, std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
               std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default) {
    realloc(view_alloc(), n0, n1, n2, n3, n4, n5, n6, n7);
  }
  void realloc(WithoutInitializing_t w, std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default,
               std::size_t n2 = detail::ctor_default, std::size_t n3 = detail::ctor_default,
               std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
               std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default) {
    realloc(view_alloc(w), n0, n1, n2, n3, n4, n5, n6, n7);
  }
  /// Kokkos realloc: contents dropped. Same extents: the allocation is kept
  /// (zeroed unless WithoutInitializing), so copies see it too; flags clean.
  /// New extents: a new allocation for this object; copies keep the old.
  void realloc(const ViewAllocProp& prop, std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default,
               std::size_t n2 = detail::ctor_default, std::size_t n3 = detail::ctor_default,
               std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
               std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default) {
    const std::size_t n[8] = {n0, n1, n2, n3, n4, n5, n6, n7};
    dv_extents_t e = detail::extents_from_args<typename traits::analysis>(n);
    ViewAllocProp p = prop;
    if (!p.has_label) p.label = d_view.label();
    if (track_.get() && !same_extents(e) && alone() && detail::bitwise_v<non_const_value_type>) {
      // Nobody else sees this allocation: reallocating it in place is the same to everyone.
      detail::check(p.initialize ? dv_realloc(impl_handle(), &e) : dv_realloc_without_initializing(impl_handle(), &e));
      attach(track_);
      return;
    }
    if (!track_.get() || !same_extents(e)) {
      const detail::tracker old = track_;
      create(p, e);
      carry_stats(old);
      return;
    }
    constexpr bool constructs = detail::needs_construction_v<non_const_value_type>;
    detail::record* r = track_.get();
    if (r->destroy) r->destroy(r->constructed, r->constructed_n);
    r->destroy = nullptr;
    detail::check(p.initialize && !constructs ? dv_realloc(r->handle, &e) : dv_realloc_without_initializing(r->handle, &e));
    if constexpr (constructs) {
      if (p.initialize || p.sequential_host_init) construct_host();
    }
  }

  /// Kokkos resize, keeping the contents of *both* sides (Kokkos keeps only
  /// the newer one) and the flags. Same extents: nothing happens.
  void resize(std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default, std::size_t n2 = detail::ctor_default,
              std::size_t n3 = detail::ctor_default, std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
              std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default) {
    resize(view_alloc(), n0, n1, n2, n3, n4, n5, n6, n7);
  }
  void resize(WithoutInitializing_t w, std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default,
              std::size_t n2 = detail::ctor_default, std::size_t n3 = detail::ctor_default,
              std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
              std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default) {
    resize(view_alloc(w), n0, n1, n2, n3, n4, n5, n6, n7);
  }
  void resize(const ViewAllocProp& prop, std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default,
              std::size_t n2 = detail::ctor_default, std::size_t n3 = detail::ctor_default,
              std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
              std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default) {
    const std::size_t n[8] = {n0, n1, n2, n3, n4, n5, n6, n7};
    dv_extents_t e = detail::extents_from_args<typename traits::analysis>(n);
    if (!track_.get()) {
      create(prop, e);
      return;
    }
    if (same_extents(e)) return;
    if constexpr (!detail::bitwise_v<non_const_value_type>) {
      DualView old = *this;
      ViewAllocProp p = prop;
      p.label = d_view.label();
      p.initialize = true;
      create(p, e);
      carry_stats(old.track_);
      std::size_t n_old[DV_MAX_RANK + 1] = {}, n_new[DV_MAX_RANK + 1] = {};
      for (unsigned r = 0; r < rank; ++r) {
        n_old[r] = old.extent(r);
        n_new[r] = extent(r);
      }
      copy_overlap_host(old.h_view, h_view, n_old, n_new);
      refresh_device();
    } else if (alone()) {
      // Nobody else sees this allocation, so resizing it in place is what
      // Kokkos value semantics allow: growing the slowest axis keeps the data
      // where it is (docs/GPU.md).
      detail::check(dv_resize(impl_handle(), &e));
      attach(track_);
    } else {
      dv_dualview_t* h = nullptr;
      detail::check(dv_resized(impl_handle(), &e, &h));
      const detail::tracker old = track_;
      attach(detail::adopt(h));
      carry_stats(old);
    }
  }

  // ---- shape ---------------------------------------------------------------------

  DV_INLINE_FUNCTION std::size_t span() const { return d_view.span(); }
  DV_INLINE_FUNCTION bool span_is_contiguous() const { return d_view.span_is_contiguous(); }
  template <class iType>
  void stride(iType* s) const {
    d_view.stride(s);
  }
  template <class iType>
  DV_INLINE_FUNCTION std::size_t extent(const iType& r) const {
    return d_view.extent(r);
  }
  template <class iType>
  DV_INLINE_FUNCTION int extent_int(const iType& r) const {
    return d_view.extent_int(r);
  }
  DV_INLINE_FUNCTION bool is_allocated() const { return d_view.is_allocated() && h_view.is_allocated(); }

  /// The C handle (nullptr when default-constructed).
  dv_dualview_t* impl_handle() const { return track_.get() ? track_.get()->handle : nullptr; }
  /// Transfer statistics of this DualView. A resize or realloc that gives
  /// this object a new allocation carries them over (dv_stats_add).
  dv_stats_t stats() const {
    dv_stats_t s{};
    if (auto* h = impl_handle()) detail::check(dv_stats(h, &s));
    return s;
  }
  /// Zero the transfer statistics of this DualView (and of its copies, which
  /// share them): dv_stats_reset.
  void stats_reset() const {
    if (auto* h = impl_handle()) detail::check(dv_stats_reset(h));
  }

 private:
  /// Whether this object is the only user of its allocation: its record is
  /// held by itself and its two views only, and its C handle is the only one.
  bool alone() const {
    detail::record* r = track_.get();
    if (!r || r->count.load(std::memory_order_acquire) != 3 || (r->bits & DV_INFO_OWNED) == 0) return false;
    dv_info_t info{};
    return dv_info(r->handle, &info) == DV_OK && info.use_count == 1;
  }

  /// The shared sync-state byte (read only where fast_).
  uint8_t state() const { return dv_word_load(word_); }

  /// After a resize or realloc gave this object a new DualView: count on from
  /// where the one it replaced stood (the process-wide counters are unchanged).
  void carry_stats(const detail::tracker& old) {
    if (old.get() && track_.get() && old.get() != track_.get()) detail::check(dv_stats_add(impl_handle(), old.get()->handle));
  }

  bool same_extents(const dv_extents_t& e) const {
    for (unsigned r = 0; r < rank; ++r)
      if (d_view.extent(r) != e.extent[r]) return false;
    return true;
  }

  void create(const ViewAllocProp& prop, const dv_extents_t& e) {
    constexpr bool constructs = detail::needs_construction_v<non_const_value_type>;
    std::size_t s[DV_MAX_RANK] = {};
    const bool strided = std::is_same_v<array_layout, LayoutStride>;
    if (strided) detail::right_strides<traits>(e, s);
    ViewAllocProp q = prop;
    // PinnedHostMirror is a speed hint: the test device has no page-locked
    // memory of its own, so its mirror stays ordinary host memory (docs/CPP.md).
    if constexpr (traits::memory_space::code == DV_SPACE_TEST_DEVICE) q.pinned_host = false;
    dv_desc_t d = detail::desc_for<traits>(e, strided ? s : nullptr, detail::alloc_flags(q, constructs));
    dv_dualview_t* h = nullptr;
    detail::check(dv_create(prop.label.c_str(), &d, &h));
    attach(detail::adopt(h));
    keep_dev_ = keep_host_ = detail::tracker();
    if constexpr (constructs) {
      if (prop.initialize || prop.sequential_host_init) construct_host();
    }
  }

  /// Construct the elements in the host mirror, then give the device side their image.
  void construct_host() {
    detail::construct_n<non_const_value_type>(track_.get(), const_cast<non_const_value_type*>(h_view.data()), h_view.span());
    refresh_device();
  }

  /// A DualView over `h` and `*d` (assumed in sync), or over `h` with a
  /// device side of its own when `d` is null (dv_wrap with a NULL device).
  void wrap_views(const t_dev* d, const t_host& h) {
    if (!h.impl_handle()) detail::raise(DV_ERROR_INVALID_ARGUMENT, "dv::DualView: a view is not allocated");
    dv_extents_t e{};
    e.rank = rank;
    std::size_t s[DV_MAX_RANK] = {};
    for (unsigned r = 0; r < 8; ++r) e.extent[r] = r < rank ? h.extent(r) : 1;
    for (unsigned r = 0; r < rank; ++r) s[r] = h.stride(r);
    constexpr bool pinned_host = t_host::memory_space::page_locked;
    dv_desc_t desc = detail::desc_for<traits>(e, s, detail::desc_flags(impl_dualview_is_single_device, true, pinned_host));
    desc.layout = DV_LAYOUT_STRIDE;
    dv_dualview_t* out = nullptr;
    void* hp = const_cast<non_const_value_type*>(h.data());
    void* dp = d && !impl_dualview_is_single_device ? const_cast<non_const_value_type*>(d->data()) : nullptr;
    const std::string label = d ? d->label() : h.label();
    detail::check(dv_wrap(label.c_str(), &desc, hp, dp, &out));
    attach(detail::adopt(out));
    if (d) {
      detail::retain(d->impl_record());
      keep_dev_ = detail::tracker(d->impl_record());
    }
    detail::retain(h.impl_record());
    keep_host_ = detail::tracker(h.impl_record());
  }

  /// Called where the flags are clean (a new or reallocated DualView).
  void refresh_device() {
    if (!impl_dualview_is_single_device && h_view.data() != static_cast<const void*>(d_view.data())) {
      detail::check(dv_view_copy(impl_handle(), DV_SIDE_DEVICE, impl_handle(), DV_SIDE_HOST));
      // Checked mode: construction wrote both sides alike; accept them as they are.
      if (track_.get()->bits & DV_INFO_CHECKED) detail::check(dv_clear_sync_state(impl_handle()));
    }
  }

  /// resize of elements that need their assignment run: the core copies bytes
  /// (bitwise types go through dv_resize / dv_resized), so this copy is C++'s
  /// (docs/DECISIONS.md D23).
  template <class V>
  static void copy_overlap_host(const V& from, const V& to, const std::size_t* n_old, const std::size_t* n_new) {
    std::size_t idx[DV_MAX_RANK] = {};
    std::size_t m[DV_MAX_RANK] = {};
    std::size_t total = 1;
    for (unsigned r = 0; r < rank; ++r) {
      m[r] = std::min(n_old[r], n_new[r]);
      total *= m[r];
    }
    auto* src = const_cast<non_const_value_type*>(from.data());
    auto* dst = const_cast<non_const_value_type*>(to.data());
    for (std::size_t k = 0; k < total; ++k) {
      std::size_t os = 0, od = 0;
      for (unsigned r = 0; r < rank; ++r) {
        os += idx[r] * from.stride(r);
        od += idx[r] * to.stride(r);
      }
      dst[od] = src[os];
      for (unsigned r = 0; r < rank; ++r) {
        if (++idx[r] < m[r]) break;
        idx[r] = 0;
      }
    }
  }

  void attach(const detail::tracker& t) {
    track_ = t;
    d_view = t_dev(t, DV_SIDE_DEVICE);
    h_view = t_host(t, DV_SIDE_HOST);
    word_ = t.get()->sync_word;
    fast_ = t.get()->inline_flags();
    writable_ = fast_ && (t.get()->bits & DV_INFO_CONST) == 0;
  }
  void call(dv_status_t (*f)(const dv_dualview_t*)) {
    if (auto* h = impl_handle()) detail::check(f(h));
  }
  bool query(dv_status_t (*f)(const dv_dualview_t*, bool*)) const {
    bool b = false;
    if (auto* h = impl_handle()) detail::check(f(h, &b));
    return b;
  }

  detail::tracker track_;
  const uint8_t* word_ = nullptr;
  bool fast_ = false;
  /// fast_, and the data is not const: modify and clear may write the byte inline.
  bool writable_ = false;
  /// The records of views a DualView was built from, kept alive with it.
  detail::tracker keep_dev_, keep_host_;
};

}  // namespace dv

#include "dual_view/functions.hpp"

#endif  // DUALVIEW_DUAL_VIEW_HPP
