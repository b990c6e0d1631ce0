/*
 * <dualview/with_kokkos.hpp>: dualview's DualView inside a program that uses
 * the real Kokkos (its own <Kokkos_Core.hpp>, its kernels, its back ends).
 *
 *   #include <Kokkos_Core.hpp>
 *   #include <dualview/with_kokkos.hpp>
 *   using tdual_x = dv::with_kokkos::DualView<double*[3], Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace>;
 *
 * The type is a drop-in for Kokkos::DualView (docs/LAMMPS.md switches
 * LAMMPS with it): every typedef and member type is Kokkos' own, and
 * `d_view`, `h_view`, `view<Space>()` are managed Kokkos::Views over
 * dualview's blocks, so kernels, subviews, deep_copy and Views the program
 * allocates of these types work unchanged. A block replaced by a resize lives
 * as long as some View of it, as in Kokkos (with_kokkos/record.hpp). Flags,
 * syncs, resize and realloc are dualview's: region-exact syncs, grows in
 * place, the checked mode. `Kokkos::subview(dual_view, args...)` is a DualView
 * of the region, assignable to the declared DualView types, that shares the
 * parent's state. docs/CPP.md "dualview in a real Kokkos program".
 * Never include it with dualview's Kokkos-named headers (dualview/kokkos/).
 */
#ifndef DUALVIEW_WITH_KOKKOS_HPP
#define DUALVIEW_WITH_KOKKOS_HPP

#include <Kokkos_Core.hpp>
#include <Kokkos_DualView.hpp>

#ifdef DUALVIEW_COMPAT_KOKKOS_CORE_HPP
#error "<dualview/with_kokkos.hpp> needs the real Kokkos; dualview's Kokkos-named headers (dualview/kokkos/) are on the include path"
#endif

#include <dualview.hpp>
#include <dualview/with_kokkos/record.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace dv {
namespace with_kokkos {
template <class DataType, class... Properties>
class DualView;

namespace detail {

/// dualview's layout for a Kokkos layout. An allocating DualView holds LayoutLeft or
/// LayoutRight (DECISIONS K8); a LayoutStride one is a subview's.
template <class L>
struct layout {
  using type = dv::LayoutStride;
};
template <>
struct layout<Kokkos::LayoutLeft> {
  using type = dv::LayoutLeft;
};
template <>
struct layout<Kokkos::LayoutRight> {
  using type = dv::LayoutRight;
};

/// dualview's execution space for the device side of a Kokkos memory space.
/// Host memory is dualview's test device when DUALVIEW_WITH_KOKKOS_TEST_DEVICE
/// is defined (two sides on a CPU, for tests), otherwise one host space.
template <class M>
struct device_side;
template <>
struct device_side<Kokkos::HostSpace> {
#ifdef DUALVIEW_WITH_KOKKOS_TEST_DEVICE
  using type = dv::TestDevice;
#else
  using type = dv::Serial;
#endif
};
#ifdef KOKKOS_ENABLE_CUDA
template <>
struct device_side<Kokkos::CudaSpace> {
  using type = dv::Cuda;
};
template <>
struct device_side<Kokkos::CudaUVMSpace> {
  using type = dv::Device<dv::Cuda, dv::CudaUVMSpace>;
};
#endif

/// A Kokkos execution-space instance as dualview's: its stream (Cuda), or the default instance.
template <class Exec>
auto instance(const Exec& exec) {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) return dv::Cuda(exec.cuda_stream());
  else
#endif
  {
    (void)exec;
    return dv::Serial();
  }
}

/// A Kokkos subview argument as dualview's: an index, `Kokkos::ALL`, or a
/// half-open range (`Kokkos::pair`, `std::pair`).
template <class A>
auto dv_arg(const A& a) {
  if constexpr (std::is_integral_v<A>) return a;
  else if constexpr (std::is_same_v<A, std::remove_cv_t<decltype(Kokkos::ALL)>>) return dv::ALL;
  else return std::pair<std::size_t, std::size_t>(static_cast<std::size_t>(a.first), static_cast<std::size_t>(a.second));
}

/// The memory space a space argument names (a memory space, an execution space or a device type).
template <class S>
using memory_of = typename S::memory_space;

/// Whether a space argument (a memory space, an execution space or a device type) names
/// the device side of a DualView of traits `T` and host view type `THost`, by its role
/// (docs/CPP.md "Which side a space names"): the host mirror space is the host; the
/// execution space and device type are the device; then the memory space is the device
/// and THost's spaces are the host; else the side whose memory space it shares. The role
/// decides where both sides are one Kokkos memory space (a CPU build with
/// DUALVIEW_WITH_KOKKOS_TEST_DEVICE: there `host_mirror_space` and `memory_space` are
/// both HostSpace, and HostSpace names the host).
template <class T, class THost, class S>
KOKKOS_INLINE_FUNCTION constexpr bool names_device() {
  if constexpr (std::is_same_v<S, typename T::host_mirror_space>) return false;
  else if constexpr (std::is_same_v<S, typename T::execution_space> || std::is_same_v<S, typename T::device_type>) return true;
  else if constexpr (std::is_same_v<S, typename T::memory_space>) return true;
  else if constexpr (std::is_same_v<S, typename THost::device_type> || std::is_same_v<S, typename THost::memory_space> ||
                     std::is_same_v<S, typename THost::execution_space>)
    return false;
  else return std::is_same_v<memory_of<S>, typename T::memory_space>;
}

/// dualview's allocation properties for a Kokkos `view_alloc(...)`: its label, WithoutInitializing.
template <class... P>
dv::ViewAllocProp alloc_prop(const Kokkos::Impl::ViewCtorProp<P...>& prop) {
  using prop_t = Kokkos::Impl::ViewCtorProp<P...>;
  static_assert(!prop_t::has_pointer, "dv::with_kokkos::DualView allocates its own memory: view_alloc without a pointer");
  dv::ViewAllocProp p;
  if constexpr (prop_t::has_label) {
    p.label = static_cast<const Kokkos::Impl::ViewCtorProp<void, std::string>&>(prop).value;
    p.has_label = true;
  }
  p.initialize = prop_t::initialize;
  return p;
}

}  // namespace detail

/// Kokkos::DualView's interface over dualview's data movement (see the header's comment).
/// Copies share the state (flags, the blocks) and hold their own `d_view` / `h_view`.
template <class DataType, class... Properties>
class DualView : public Kokkos::DualView<DataType, Properties...>::traits {
  template <class, class...>
  friend class DualView;
  /// Kokkos' own DualView of these arguments: every typedef below is its.
  using kokkos_dual = Kokkos::DualView<DataType, Properties...>;

 public:
  using traits = typename kokkos_dual::traits;
  using host_mirror_space = typename traits::host_mirror_space;
  using t_dev = typename kokkos_dual::t_dev;
  using t_host = typename kokkos_dual::t_host;
  using t_dev_const = typename kokkos_dual::t_dev_const;
  using t_host_const = typename kokkos_dual::t_host_const;
  using t_dev_const_randomread = typename kokkos_dual::t_dev_const_randomread;
  using t_host_const_randomread = typename kokkos_dual::t_host_const_randomread;
  using t_dev_um = typename kokkos_dual::t_dev_um;
  using t_host_um = typename kokkos_dual::t_host_um;
  using t_dev_const_um = typename kokkos_dual::t_dev_const_um;
  using t_host_const_um = typename kokkos_dual::t_host_const_um;
  using t_dev_const_randomread_um = typename kokkos_dual::t_dev_const_randomread_um;
  using t_host_const_randomread_um = typename kokkos_dual::t_host_const_randomread_um;

  /// dualview's DualView underneath.
  using dualview_type = dv::DualView<typename traits::data_type, typename detail::layout<typename traits::array_layout>::type,
                                     typename detail::device_side<typename traits::memory_space>::type>;

  t_dev d_view;
  t_host h_view;

  /// Not allocated: flag calls do nothing, need_sync is false; resize and realloc allocate.
  DualView() = default;

  /// Allocate both sides, zero-filled (one allocation when they share a space).
  explicit DualView(const std::string& label, std::size_t n0 = dv::detail::ctor_default, std::size_t n1 = dv::detail::ctor_default,
                    std::size_t n2 = dv::detail::ctor_default, std::size_t n3 = dv::detail::ctor_default,
                    std::size_t n4 = dv::detail::ctor_default, std::size_t n5 = dv::detail::ctor_default,
                    std::size_t n6 = dv::detail::ctor_default, std::size_t n7 = dv::detail::ctor_default) {
    allocate(dv::view_alloc(label), {{n0, n1, n2, n3, n4, n5, n6, n7}});
  }

  /// Allocate with `Kokkos::view_alloc(label, WithoutInitializing, ...)` (LAMMPS' `NoInit(label)`).
  template <class... P>
  explicit DualView(const Kokkos::Impl::ViewCtorProp<P...>& prop, std::size_t n0 = dv::detail::ctor_default,
                    std::size_t n1 = dv::detail::ctor_default, std::size_t n2 = dv::detail::ctor_default,
                    std::size_t n3 = dv::detail::ctor_default, std::size_t n4 = dv::detail::ctor_default,
                    std::size_t n5 = dv::detail::ctor_default, std::size_t n6 = dv::detail::ctor_default,
                    std::size_t n7 = dv::detail::ctor_default) {
    allocate(detail::alloc_prop(prop), {{n0, n1, n2, n3, n4, n5, n6, n7}});
  }

  /// Shallow, converting copy (a subview's DualView into the declared type, to const data):
  /// the views converted as Kokkos converts them, the state shared.
  template <class SD, class... SP, class = std::enable_if_t<!std::is_same_v<DualView<SD, SP...>, DualView>>>
  DualView(const DualView<SD, SP...>& src)  // NOLINT: implicit, as Kokkos
      : d_view(src.d_view), h_view(src.h_view), book_(src.book_) {
    if constexpr (std::is_same_v<typename DualView<SD, SP...>::dualview_type, dualview_type>) inner_ = src.inner_;
    else if (src.inner_) inner_ = std::make_shared<dualview_type>(*src.inner_);
  }

  /// Subview constructor (what `Kokkos::subview(src, args...)` calls): Kokkos' own
  /// subviews of both views, and dualview's subview of the region, whose flags are
  /// the parent's (a modify through either is seen by the other; a sync copies the region).
  template <class SD, class... SP, class Arg0, class... Args>
  DualView(const DualView<SD, SP...>& src, const Arg0& arg0, Args... args)
      : d_view(Kokkos::subview(src.d_view, arg0, args...)), h_view(Kokkos::subview(src.h_view, arg0, args...)), book_(src.book_) {
    if (src.inner_) inner_ = std::make_shared<dualview_type>(dv::subview(*src.inner_, detail::dv_arg(arg0), detail::dv_arg(args)...));
  }

  // ---- views ---------------------------------------------------------------

  KOKKOS_INLINE_FUNCTION t_host view_host() const { return h_view; }
  KOKKOS_INLINE_FUNCTION t_dev view_device() const { return d_view; }
  /// The view of `Space`'s side (a memory space, execution space or device type; see `on_device`).
  template <class Space>
  KOKKOS_INLINE_FUNCTION std::conditional_t<detail::names_device<traits, t_host, Space>(), t_dev, t_host> view() const {
    if constexpr (detail::names_device<traits, t_host, Space>()) return d_view;
    else return h_view;
  }
  KOKKOS_INLINE_FUNCTION bool is_allocated() const { return d_view.is_allocated() && h_view.is_allocated(); }

  /// Whether `Space` names the device side (its role: detail::names_device, docs/CPP.md).
  template <class Space>
  KOKKOS_INLINE_FUNCTION static constexpr bool on_device() {
    return detail::names_device<traits, t_host, Space>();
  }

  // ---- flags and syncs -----------------------------------------------------

  void modify_host() {
    if (inner_) inner_->modify_host();
  }
  void modify_device() {
    if (inner_) inner_->modify_device();
  }
  template <class Space>
  void modify() {
    if constexpr (on_device<Space>()) modify_device();
    else modify_host();
  }
  void clear_sync_state() {
    if (inner_) inner_->clear_sync_state();
  }
  bool need_sync_host() const { return inner_ && inner_->need_sync_host(); }
  bool need_sync_device() const { return inner_ && inner_->need_sync_device(); }
  template <class Space>
  bool need_sync() const {
    return on_device<Space>() ? need_sync_device() : need_sync_host();
  }
  void sync_host() {
    if (inner_) inner_->sync_host();
  }
  void sync_device() {
    if (inner_) inner_->sync_device();
  }
  template <class Space>
  void sync() {
    if constexpr (on_device<Space>()) sync_device();
    else sync_host();
  }
  /// Queue the copy on a Kokkos execution-space instance (its CUDA stream); Serial copies at once.
  template <class Exec, class = std::enable_if_t<Kokkos::is_execution_space<Exec>::value>>
  void sync_host(const Exec& exec) {
    if (inner_) inner_->sync_host(detail::instance(exec));
  }
  template <class Exec, class = std::enable_if_t<Kokkos::is_execution_space<Exec>::value>>
  void sync_device(const Exec& exec) {
    if (inner_) inner_->sync_device(detail::instance(exec));
  }
  template <class Space, class Exec, class = std::enable_if_t<Kokkos::is_execution_space<Exec>::value>>
  void sync(const Exec& exec) {
    if constexpr (on_device<Space>()) sync_device(exec);
    else sync_host(exec);
  }

  // ---- resize and realloc --------------------------------------------------

  /// Keep each element's newest value: each side grows in place where its space can,
  /// also while Views of it are held (they see its first elements); a side that moves
  /// leaves its old block to the Views that hold it. Allocates when not allocated.
  template <class... N, class = std::enable_if_t<(std::is_integral_v<N> && ...)>>
  void resize(N... n) {
    reshape(true, dv::view_alloc(), extents(n...));
  }
  /// resize with `Kokkos::view_alloc(Kokkos::WithoutInitializing)` (no label: Kokkos refuses one).
  template <class... P, class... N, class = std::enable_if_t<(std::is_integral_v<N> && ...)>>
  void resize(const Kokkos::Impl::ViewCtorProp<P...>& prop, N... n) {
    reshape(true, detail::alloc_prop(prop), extents(n...));
  }
  /// resize with a property (`Kokkos::WithoutInitializing`).
  template <class I, class... N, class = std::enable_if_t<!std::is_integral_v<I> && (std::is_integral_v<N> && ...)>>
  void resize(const I& prop, N... n) {
    resize(Kokkos::view_alloc(prop), n...);
  }
  /// New zeroed storage of the new extents, flags clean (allocates when not allocated).
  template <class... N, class = std::enable_if_t<(std::is_integral_v<N> && ...)>>
  void realloc(N... n) {
    reshape(false, dv::view_alloc(), extents(n...));
  }
  /// realloc with `Kokkos::view_alloc(Kokkos::WithoutInitializing)`.
  template <class... P, class... N, class = std::enable_if_t<(std::is_integral_v<N> && ...)>>
  void realloc(const Kokkos::Impl::ViewCtorProp<P...>& prop, N... n) {
    reshape(false, detail::alloc_prop(prop), extents(n...));
  }
  /// realloc with a property (`Kokkos::WithoutInitializing`).
  template <class I, class... N, class = std::enable_if_t<!std::is_integral_v<I> && (std::is_integral_v<N> && ...)>>
  void realloc(const I& prop, N... n) {
    realloc(Kokkos::view_alloc(prop), n...);
  }
  /// Kept for 0.4's programs: replaced blocks are freed with their last View now (DECISIONS K7).
  void release_old_views() {}
  /// Bytes of blocks earlier resizes and reallocs replaced that Views of this DualView's
  /// family still hold (what Kokkos would hold too; 0 once those Views are gone).
  std::size_t old_view_bytes() const { return book_ ? book_->load() : 0; }

  // ---- shape ---------------------------------------------------------------

  template <class I>
  KOKKOS_INLINE_FUNCTION std::size_t extent(const I& r) const {
    return d_view.extent(r);
  }
  template <class I>
  KOKKOS_INLINE_FUNCTION int extent_int(const I& r) const {
    return static_cast<int>(d_view.extent(r));
  }
  KOKKOS_INLINE_FUNCTION std::size_t span() const { return d_view.span(); }
  KOKKOS_INLINE_FUNCTION bool span_is_contiguous() const { return d_view.span_is_contiguous(); }
  template <class I>
  void stride(I* s) const {
    d_view.stride(s);
  }
  std::string label() const { return inner_ ? inner_->d_view.label() : std::string(); }

  /// dualview's DualView underneath (its statistics, checked mode, subviews by region).
  dualview_type& dualview() const {
    if (!inner_) dv::detail::raise(DV_ERROR_INVALID_ARGUMENT, "dv::with_kokkos::DualView::dualview(): not allocated");
    return *inner_;
  }

 private:
  /// The state copies share: dualview's DualView.
  std::shared_ptr<dualview_type> inner_;
  /// Bytes of replaced blocks held by Views (shared by the family's records).
  std::shared_ptr<std::atomic<std::size_t>> book_;

  /// Up to 8 extents, the rest Kokkos' "not given".
  template <class... N>
  static std::array<std::size_t, 8> extents(N... n) {
    static_assert(sizeof...(N) <= 8, "at most 8 extents");
    std::array<std::size_t, 8> e;
    e.fill(dv::detail::ctor_default);
    std::size_t i = 0;
    ((e[i++] = static_cast<std::size_t>(n)), ...);
    return e;
  }

  void allocate(const dv::ViewAllocProp& prop, const std::array<std::size_t, 8>& n) {
    static_assert(!std::is_same_v<typename traits::array_layout, Kokkos::LayoutStride>,
                  "dv::with_kokkos::DualView allocates LayoutLeft or LayoutRight arrays; a LayoutStride DualView is a "
                  "Kokkos::subview of one (DECISIONS K8)");
    inner_ = std::make_shared<dualview_type>(prop, n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7]);
    book_ = std::make_shared<std::atomic<std::size_t>>(0);
    rebind();
  }

  void reshape(bool keep, dv::ViewAllocProp prop, const std::array<std::size_t, 8>& n) {
    if (!inner_) {
      prop.label = label();
      prop.has_label = true;
      return allocate(prop, n);
    }
    if (keep) inner_->resize(prop, n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7]);
    else inner_->realloc(prop, n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7]);
    rebind();
  }

  /// Point the Kokkos Views at dualview's current blocks; the records of blocks left behind retire.
  void rebind() {
    using record = Kokkos::Impl::SharedAllocationRecord<detail::block_tag, void>;
    auto& d = *inner_;
    record* old_dev = record::of(d_view);
    record* old_host = record::of(h_view);
    if (old_dev && d_view.data() != d.d_view.data()) old_dev->retire();
    if (old_host && h_view.data() != d.h_view.data()) old_host->retire();
    d_view = detail::held_view<t_dev>(d.impl_handle(), DV_SIDE_DEVICE, d.d_view, book_);
    if constexpr (std::is_same_v<typename t_host::memory_space, typename t_dev::memory_space>) {
      if (static_cast<const void*>(d.h_view.data()) == static_cast<const void*>(d.d_view.data())) {
        h_view = t_host(d_view);  // one block for both sides: one record, as Kokkos' mirror view of it
        return;
      }
    }
    h_view = detail::held_view<t_host>(d.impl_handle(), DV_SIDE_HOST, d.h_view, book_);
  }
};

/// `Kokkos::subview(dual_view, args...)` spelt in dualview's namespace.
template <class D, class... P, class... Args>
auto subview(const DualView<D, P...>& src, const Args&... args) {
  using sub = decltype(Kokkos::subview(src.d_view, args...));
  using R = DualView<typename sub::data_type, typename sub::array_layout, typename sub::device_type, typename sub::memory_traits>;
  return R(src, args...);
}

}  // namespace with_kokkos
}  // namespace dv

namespace Kokkos {
/// Kokkos::subview of dualview's DualView: a DualView of the region that shares the parent's state.
template <class D, class... P, class... Args>
auto subview(const dv::with_kokkos::DualView<D, P...>& src, const Args&... args) {
  return dv::with_kokkos::subview(src, args...);
}
/// Kokkos::resize of dualview's DualView: its member resize (each element's newest value kept; grows in place where it can).
template <class D, class... P, class... N>
std::enable_if_t<(std::is_integral_v<N> && ...)> resize(dv::with_kokkos::DualView<D, P...>& v, N... n) {
  v.resize(n...);
}
/// Kokkos::realloc of dualview's DualView: its member realloc (new zeroed storage).
template <class D, class... P, class... N>
std::enable_if_t<(std::is_integral_v<N> && ...)> realloc(dv::with_kokkos::DualView<D, P...>& v, N... n) {
  v.realloc(n...);
}
/// Kokkos::resize(property or view_alloc(...), dual_view, n...) (`Kokkos::WithoutInitializing`).
template <class I, class D, class... P, class... N, class = std::enable_if_t<!std::is_integral_v<I>>>
std::enable_if_t<(std::is_integral_v<N> && ...)> resize(const I& prop, dv::with_kokkos::DualView<D, P...>& v, N... n) {
  v.resize(prop, n...);
}
/// Kokkos::realloc(property or view_alloc(...), dual_view, n...).
template <class I, class D, class... P, class... N, class = std::enable_if_t<!std::is_integral_v<I>>>
std::enable_if_t<(std::is_integral_v<N> && ...)> realloc(const I& prop, dv::with_kokkos::DualView<D, P...>& v, N... n) {
  v.realloc(prop, n...);
}
}  // namespace Kokkos

#endif  // DUALVIEW_WITH_KOKKOS_HPP
