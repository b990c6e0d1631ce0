/*
 * <dualview/with_kokkos.hpp>: dualview's DualView inside a program that uses
 * the real Kokkos (its own <Kokkos_Core.hpp>, its kernels, its back ends).
 *
 *   #include <Kokkos_Core.hpp>
 *   #include <dualview/with_kokkos.hpp>
 *   using tdual_x = dv::with_kokkos::DualView<double*[3], Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace>;
 *
 * The type has Kokkos::DualView's interface; `d_view`, `h_view`,
 * `view_device()`, `view_host()` and `view<Space>()` are real Kokkos::Views
 * (unmanaged, over dualview's allocations), so Kokkos kernels, subviews and
 * deep_copy use them unchanged. Flags, syncs, resize and realloc are
 * dualview's: region-exact syncs, grows in place, the checked mode. A View
 * taken before a resize stays valid: the blocks a resize replaces are kept
 * until the last copy of the DualView goes, or until `release_old_views()`
 * (docs/CPP.md "dualview in a real Kokkos program", DECISIONS K7).
 * `Kokkos::subview(dual_view, args...)` gives a DualView of the region: real
 * Kokkos subviews of both sides whose flags and syncs are the region's
 * (dualview's region-exact subview syncs).
 * Never include it with dualview's Kokkos-named headers (dualview/kokkos/).
 */
#ifndef DUALVIEW_WITH_KOKKOS_HPP
#define DUALVIEW_WITH_KOKKOS_HPP

#include <Kokkos_Core.hpp>

#ifdef DUALVIEW_COMPAT_KOKKOS_CORE_HPP
#error "<dualview/with_kokkos.hpp> needs the real Kokkos; dualview's Kokkos-named headers (dualview/kokkos/) are on the include path"
#endif

#include <dualview.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace dv {
namespace with_kokkos {
namespace detail {

/// dualview's layout for a Kokkos layout (LayoutLeft and LayoutRight; DECISIONS K8).
template <class L>
struct layout {
  static_assert(std::is_same_v<L, Kokkos::LayoutLeft> || std::is_same_v<L, Kokkos::LayoutRight>,
                "dv::with_kokkos::DualView holds LayoutLeft or LayoutRight arrays; a LayoutStride DualView stays "
                "Kokkos::DualView (take LayoutStride views of it with Kokkos::subview)");
  using type = void;
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
/// is defined (two spaces on a CPU, for tests), otherwise one host space.
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

/// Whether `Space` (a memory space, execution space or device type) names the memory `M`.
template <class Space, class M>
constexpr bool names_memory() {
  if constexpr (Kokkos::is_memory_space<Space>::value) return std::is_same_v<Space, M>;
  else return std::is_same_v<typename Space::memory_space, M>;
}

}  // namespace detail

/// What `Kokkos::subview(dual_view, args...)` gives: `d_view` and `h_view`
/// are Kokkos' own subviews of the parent's views; the flags, syncs and
/// statistics are those of dualview's subview of the region (a sync copies
/// what changed in the region only). Keeps the parent's replaced blocks alive
/// as long as it lives, as the parent's Views do.
template <class MemorySpace, class TDev, class THost, class Inner>
class SubDualView {
 public:
  using memory_space = MemorySpace;
  using t_dev = TDev;
  using t_host = THost;
  /// dualview's subview underneath.
  using dualview_type = Inner;

  t_dev d_view;
  t_host h_view;

  SubDualView(std::shared_ptr<void> keep, Inner inner, t_dev d, t_host h)
      : d_view(std::move(d)), h_view(std::move(h)), keep_(std::move(keep)), inner_(std::move(inner)) {}

  const t_host& view_host() const { return h_view; }
  const t_dev& view_device() const { return d_view; }
  template <class Space>
  auto view() const {
    if constexpr (detail::names_memory<Space, memory_space>()) return d_view;
    else return h_view;
  }
  void modify_host() { inner_.modify_host(); }
  void modify_device() { inner_.modify_device(); }
  template <class Space>
  void modify() {
    if constexpr (detail::names_memory<Space, memory_space>()) modify_device();
    else modify_host();
  }
  bool need_sync_host() const { return inner_.need_sync_host(); }
  bool need_sync_device() const { return inner_.need_sync_device(); }
  template <class Space>
  bool need_sync() const {
    return detail::names_memory<Space, memory_space>() ? need_sync_device() : need_sync_host();
  }
  void sync_host() { inner_.sync_host(); }
  void sync_device() { inner_.sync_device(); }
  template <class Space>
  void sync() {
    if constexpr (detail::names_memory<Space, memory_space>()) sync_device();
    else sync_host();
  }
  template <class Exec, class = std::enable_if_t<Kokkos::is_execution_space<Exec>::value>>
  void sync_host(const Exec& exec) {
    inner_.sync_host(detail::instance(exec));
  }
  template <class Exec, class = std::enable_if_t<Kokkos::is_execution_space<Exec>::value>>
  void sync_device(const Exec& exec) {
    inner_.sync_device(detail::instance(exec));
  }
  template <class I>
  std::size_t extent(const I& r) const {
    return d_view.extent(r);
  }
  std::size_t span() const { return d_view.span(); }
  /// dualview's subview underneath (its statistics: what the region's syncs moved).
  Inner& dualview() { return inner_; }

 private:
  std::shared_ptr<void> keep_;
  Inner inner_;
};

/// Kokkos::DualView's interface over dualview's data movement (see the header's comment).
template <class DataType, class Arg1 = void, class Arg2 = void, class Arg3 = void>
class DualView {
  using kokkos_view = Kokkos::View<DataType, Arg1, Arg2, Arg3>;

 public:
  using traits = typename kokkos_view::traits;
  using data_type = typename traits::data_type;
  using value_type = typename traits::value_type;
  using array_layout = typename traits::array_layout;
  using memory_space = typename traits::memory_space;
  using execution_space = typename traits::execution_space;
  using device_type = typename traits::device_type;
  using host_mirror_space = typename traits::host_mirror_space;

  /// The device view: a real Kokkos::View, unmanaged, over dualview's device block.
  using t_dev = Kokkos::View<data_type, array_layout, device_type, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  /// The host view: a real Kokkos::View, unmanaged, over dualview's host block.
  using t_host = Kokkos::View<data_type, array_layout, host_mirror_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using t_dev_const = Kokkos::View<typename traits::const_data_type, array_layout, device_type, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using t_host_const =
      Kokkos::View<typename traits::const_data_type, array_layout, host_mirror_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using t_dev_um = t_dev;
  using t_host_um = t_host;
  static constexpr unsigned rank = traits::rank;

  /// dualview's DualView underneath.
  using dualview_type =
      dv::DualView<data_type, typename detail::layout<array_layout>::type, typename detail::device_side<memory_space>::type>;

  t_dev d_view;
  t_host h_view;

  DualView() = default;

  /// Allocate both sides, zero-filled (one allocation when they share a space).
  explicit DualView(const std::string& label, std::size_t n0 = dv::detail::ctor_default, std::size_t n1 = dv::detail::ctor_default,
                    std::size_t n2 = dv::detail::ctor_default, std::size_t n3 = dv::detail::ctor_default,
                    std::size_t n4 = dv::detail::ctor_default, std::size_t n5 = dv::detail::ctor_default,
                    std::size_t n6 = dv::detail::ctor_default, std::size_t n7 = dv::detail::ctor_default)
      : inner_(std::make_shared<state>(dualview_type(label, n0, n1, n2, n3, n4, n5, n6, n7))) {
    rebind();
  }

  const t_host& view_host() const { return h_view; }
  const t_dev& view_device() const { return d_view; }
  /// The view of `Space`'s side (a memory space, execution space or device type).
  template <class Space>
  auto view() const {
    if constexpr (on_device<Space>()) return d_view;
    else return h_view;
  }

  void modify_host() { inner().modify_host(); }
  void modify_device() { inner().modify_device(); }
  template <class Space>
  void modify() {
    if constexpr (on_device<Space>()) modify_device();
    else modify_host();
  }
  void clear_sync_state() { inner().clear_sync_state(); }
  bool need_sync_host() const { return inner_ && inner_->dv.need_sync_host(); }
  bool need_sync_device() const { return inner_ && inner_->dv.need_sync_device(); }
  template <class Space>
  bool need_sync() const {
    return on_device<Space>() ? need_sync_device() : need_sync_host();
  }
  void sync_host() { inner().sync_host(); }
  void sync_device() { inner().sync_device(); }
  template <class Space>
  void sync() {
    if constexpr (on_device<Space>()) sync_device();
    else sync_host();
  }
  /// Queue the copy on a Kokkos execution-space instance (its CUDA stream); Serial copies at once.
  template <class Exec, class = std::enable_if_t<Kokkos::is_execution_space<Exec>::value>>
  void sync_host(const Exec& exec) {
    sync_on(exec, false);
  }
  template <class Exec, class = std::enable_if_t<Kokkos::is_execution_space<Exec>::value>>
  void sync_device(const Exec& exec) {
    sync_on(exec, true);
  }

  /// Keep each element's newest value (dualview's resize: each side grows in place when it can, and copies only what it holds newest or clean).
  void resize(std::size_t n0 = dv::detail::ctor_default, std::size_t n1 = dv::detail::ctor_default,
              std::size_t n2 = dv::detail::ctor_default, std::size_t n3 = dv::detail::ctor_default,
              std::size_t n4 = dv::detail::ctor_default, std::size_t n5 = dv::detail::ctor_default,
              std::size_t n6 = dv::detail::ctor_default, std::size_t n7 = dv::detail::ctor_default) {
    replace([&](dualview_type& d) { d.resize(n0, n1, n2, n3, n4, n5, n6, n7); });
  }
  /// New zeroed storage of the new extents.
  void realloc(std::size_t n0 = dv::detail::ctor_default, std::size_t n1 = dv::detail::ctor_default,
               std::size_t n2 = dv::detail::ctor_default, std::size_t n3 = dv::detail::ctor_default,
               std::size_t n4 = dv::detail::ctor_default, std::size_t n5 = dv::detail::ctor_default,
               std::size_t n6 = dv::detail::ctor_default, std::size_t n7 = dv::detail::ctor_default) {
    replace([&](dualview_type& d) { d.realloc(n0, n1, n2, n3, n4, n5, n6, n7); });
  }
  /// Free the blocks earlier resizes replaced (kept so that Views taken before stay valid).
  /// Afterwards such a View must not be used.
  void release_old_views() {
    if (inner_) {
      inner_->retired.clear();
      inner_->retired_host.clear();
    }
  }
  /// Bytes held by blocks earlier resizes replaced.
  std::size_t old_view_bytes() const {
    std::size_t n = 0;
    if (inner_) {
      for (const auto& r : inner_->retired) n += r.span() * sizeof(value_type);
      for (const auto& r : inner_->retired_host) n += r.span() * sizeof(value_type);
    }
    return n;
  }

  template <class I>
  std::size_t extent(const I& r) const {
    return d_view.extent(r);
  }
  template <class I>
  int extent_int(const I& r) const {
    return static_cast<int>(d_view.extent(r));
  }
  std::size_t span() const { return d_view.span(); }
  bool span_is_contiguous() const { return d_view.span_is_contiguous(); }
  template <class I>
  void stride(I* s) const {
    d_view.stride(s);
  }
  std::string label() const { return inner_ ? inner_->dv.d_view.label() : std::string(); }
  bool is_allocated() const { return inner_ != nullptr && d_view.data() != nullptr; }

  /// dualview's DualView underneath (its statistics, checked mode, subviews).
  dualview_type& dualview() { return inner(); }

  /// `Kokkos::subview(*this, args...)` (what that overload calls).
  template <class... Args>
  auto impl_subview(const Args&... args) const {
    auto d = Kokkos::subview(d_view, args...);
    auto h = Kokkos::subview(h_view, args...);
    auto sub = dv::subview(inner(), detail::dv_arg(args)...);
    return SubDualView<memory_space, decltype(d), decltype(h), decltype(sub)>(inner_, std::move(sub), std::move(d), std::move(h));
  }

 private:
  struct state {
    explicit state(dualview_type d) : dv(std::move(d)) {}
    dualview_type dv;
    /// The sides' views before a resize that moved them: what the unmanaged Kokkos Views taken then point into.
    std::vector<typename dualview_type::t_dev> retired;
    std::vector<typename dualview_type::t_host> retired_host;
  };
  std::shared_ptr<state> inner_;

  template <class Space>
  static constexpr bool on_device() {
    return detail::names_memory<Space, memory_space>();
  }

  dualview_type& inner() const {
    if (!inner_) dv::detail::raise(DV_ERROR_INVALID_ARGUMENT, "dv::with_kokkos::DualView: not allocated");
    return inner_->dv;
  }

  template <class Exec>
  void sync_on(const Exec& exec, bool to_device) {
    auto e = detail::instance(exec);
    if (to_device) inner().sync_device(e);
    else inner().sync_host(e);
  }

  template <class F>
  void replace(F&& change) {
    auto& d = inner();
    const auto old_dev = d.d_view;
    const auto old_host = d.h_view;
    change(d);
    if (d.d_view.data() != old_dev.data()) inner_->retired.push_back(old_dev);
    if (d.h_view.data() != old_host.data() && old_host.data() != old_dev.data())
      inner_->retired_host.push_back(old_host);
    rebind();
  }

  /// Point the Kokkos Views at dualview's current blocks.
  void rebind() {
    auto& d = inner_->dv;
    d_view = make<t_dev>(d.d_view.data(), d.d_view, std::make_index_sequence<8>());
    h_view = make<t_host>(d.h_view.data(), d.h_view, std::make_index_sequence<8>());
  }
  template <class V, class P, class S, std::size_t... I>
  static V make(P* ptr, const S& side, std::index_sequence<I...>) {
    // The runtime extents only (they come first); Kokkos 3 refuses the static ones.
    return V(ptr, (I < traits::rank_dynamic ? side.extent(I) : KOKKOS_IMPL_CTOR_DEFAULT_ARG)...);
  }
};

/// `Kokkos::subview(dual_view, args...)` spelt in dualview's namespace.
template <class D, class A1, class A2, class A3, class... Args>
auto subview(const DualView<D, A1, A2, A3>& src, const Args&... args) {
  return src.impl_subview(args...);
}

}  // namespace with_kokkos
}  // namespace dv

namespace Kokkos {
/// Kokkos::subview of dualview's DualView: a DualView of the region (dv::with_kokkos::SubDualView).
template <class D, class A1, class A2, class A3, class... Args>
auto subview(const dv::with_kokkos::DualView<D, A1, A2, A3>& src, const Args&... args) {
  return src.impl_subview(args...);
}
/// Kokkos::resize of dualview's DualView: its member resize (each element's newest value kept; grows in place where it can).
template <class D, class A1, class A2, class A3, class... N>
void resize(dv::with_kokkos::DualView<D, A1, A2, A3>& v, N... n) {
  v.resize(static_cast<std::size_t>(n)...);
}
/// Kokkos::realloc of dualview's DualView: its member realloc (new zeroed storage).
template <class D, class A1, class A2, class A3, class... N>
void realloc(dv::with_kokkos::DualView<D, A1, A2, A3>& v, N... n) {
  v.realloc(static_cast<std::size_t>(n)...);
}
/// Kokkos::resize(property, dual_view, n...) (`Kokkos::WithoutInitializing`, ...): as without
/// it; dualview's new elements are zero either way.
template <class I, class D, class A1, class A2, class A3, class... N, class = std::enable_if_t<!std::is_integral_v<I>>>
void resize(const I&, dv::with_kokkos::DualView<D, A1, A2, A3>& v, N... n) {
  v.resize(static_cast<std::size_t>(n)...);
}
/// Kokkos::realloc(property, dual_view, n...): as without it (zeroed storage either way).
template <class I, class D, class A1, class A2, class A3, class... N, class = std::enable_if_t<!std::is_integral_v<I>>>
void realloc(const I&, dv::with_kokkos::DualView<D, A1, A2, A3>& v, N... n) {
  v.realloc(static_cast<std::size_t>(n)...);
}
}  // namespace Kokkos

#endif  // DUALVIEW_WITH_KOKKOS_HPP
