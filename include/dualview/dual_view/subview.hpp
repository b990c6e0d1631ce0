/*
 * dualview/dual_view/subview.hpp: the subview rule of Views and DualViews
 * (one dv_range_t per argument, the kept axes' data type, the layout a
 * subview keeps or LayoutStride) and dv::subview of either. A subview shares
 * memory and, for a DualView, flags. Included by dual_view.hpp.
 */
#ifndef DUALVIEW_DUAL_VIEW_SUBVIEW_HPP
#define DUALVIEW_DUAL_VIEW_SUBVIEW_HPP

#include <type_traits>
#include <utility>

namespace dv {
namespace detail {

/// A subview handle of `src` (one dv_range_t per argument).
inline dv_range_t range_of(ALL_t) { return {DV_ALL, 0, 0, 0}; }
template <class T, class U>
dv_range_t range_of(const std::pair<T, U>& p) {
  return {DV_RANGE, 0, static_cast<uint64_t>(p.first), static_cast<uint64_t>(p.second)};
}
template <class T, class U>
dv_range_t range_of(const pair<T, U>& p) {
  return {DV_RANGE, 0, static_cast<uint64_t>(p.first), static_cast<uint64_t>(p.second)};
}
template <class I, class = std::enable_if_t<std::is_integral_v<I>>>
dv_range_t range_of(I i) {
  return {DV_INDEX, 0, static_cast<uint64_t>(i), 0};
}

template <class... Args>
dv_dualview_t* subview_handle(dv_dualview_t* src, const Args&... args) {
  if (!src) raise(DV_ERROR_INVALID_ARGUMENT, "dv::subview of an unallocated view");
  const dv_range_t r[] = {range_of(args)..., dv_range_t{}};
  dv_dualview_t* out = nullptr;
  check(dv_subview(src, r, sizeof...(Args), &out));
  return out;
}

/// Data type of a subview: one star per kept axis.
template <class V, std::size_t N>
struct stars {
  using type = typename stars<V*, N - 1>::type;
};
template <class V>
struct stars<V, 0> {
  using type = V;
};
template <class A>
inline constexpr std::size_t keeps_axis = std::is_integral_v<A> ? 0 : 1;

/// Whether subview arguments `Args` keep a LayoutLeft source's packed
/// LayoutLeft strides (`Right`: mirrored for LayoutRight). LayoutLeft: `ALL`
/// on the leading axes, then at most one range (`ALL` or a pair), then only
/// indices; LayoutRight: indices, then at most one range, then only `ALL`.
/// The kept axes are then a prefix (suffix) of the source's whose every axis
/// but the last (first) is whole, so the strides are the packed ones of the
/// result's extents. Kokkos also keeps LayoutLeft (Right) for a padded result
/// (`subview(a, pair, ALL)`, or rank <= 2 with the first (last) axis a range,
/// `subview(a, ALL, 3, ALL)`); dualview's LayoutLeft/Right hold no padding,
/// so those stay LayoutStride (docs/CPP.md, docs/DECISIONS.md).
template <bool Right, class... Args>
constexpr bool packed_subview() {
  constexpr std::size_t n = sizeof...(Args);
  constexpr bool keep[] = {(keeps_axis<Args> != 0)..., false};
  constexpr bool all[] = {std::is_same_v<Args, ALL_t>..., false};
  // Visit the axes from the contiguous end: ALL*, at most one kept axis, indices.
  std::size_t k = 0;
  while (k < n && all[Right ? n - 1 - k : k]) ++k;
  if (k < n && keep[Right ? n - 1 - k : k]) ++k;
  for (; k < n; ++k)
    if (keep[Right ? n - 1 - k : k]) return false;
  return true;
}

/// The layout of `subview(v, Args...)` for a source of layout `L`: `L` when
/// the result is packed in `L` (packed_subview), LayoutStride otherwise.
/// Rank-0 results keep `L` (Kokkos does the same). The one rule every
/// subview type (View, DualView, Kokkos::Subview) is formed with.
template <class L, class... Args>
struct subview_layout {
  using type = LayoutStride;
};
template <class... Args>
struct subview_layout<LayoutLeft, Args...> {
  using type = std::conditional_t<packed_subview<false, Args...>(), LayoutLeft, LayoutStride>;
};
template <class... Args>
struct subview_layout<LayoutRight, Args...> {
  using type = std::conditional_t<packed_subview<true, Args...>(), LayoutRight, LayoutStride>;
};
template <class L, class... Args>
using subview_layout_t = typename subview_layout<L, std::remove_cv_t<std::remove_reference_t<Args>>...>::type;

}  // namespace detail

// ============================================================================
// Subviews
// ============================================================================

/// subview(dual_view, ALL / pair / index ...): shares memory and flags.
template <class DT, class A1, class A2, class A3, class... Args>
auto subview(const DualView<DT, A1, A2, A3>& src, const Args&... args) {
  using T = ViewTraits<DT, A1, A2, A3>;
  static_assert(sizeof...(Args) == T::rank, "dv::subview: one argument per axis");
  constexpr std::size_t kept = (detail::keeps_axis<Args> + ... + 0);
  using D = typename detail::stars<typename T::value_type, kept>::type;
  using L = detail::subview_layout_t<typename T::array_layout, Args...>;
  // The source's own type when the data type and layout are kept (a rank-1
  // range): `f(V, V)` deduces for a DualView and its subview however V is spelt.
  using R = std::conditional_t<std::is_same_v<D, typename T::data_type> && std::is_same_v<L, typename T::array_layout>,
                               DualView<DT, A1, A2, A3>, DualView<D, L, typename T::device_type>>;
  return R(detail::adopt_t{}, detail::subview_handle(src.impl_handle(), args...), src.d_view.impl_record());
}

/// subview(view, ...): the same axes of one view.
template <class DT, class... P, class... Args>
auto subview(const View<DT, P...>& src, const Args&... args) {
  using V = View<DT, P...>;
  static_assert(sizeof...(Args) == V::rank, "dv::subview: one argument per axis");
  constexpr std::size_t kept = (detail::keeps_axis<Args> + ... + 0);
  using D = typename detail::stars<typename V::value_type, kept>::type;
  using L = detail::subview_layout_t<typename V::array_layout, Args...>;
  using R = std::conditional_t<std::is_same_v<D, typename V::data_type> && std::is_same_v<L, typename V::array_layout>, V,
                               View<D, L, typename V::device_type, typename V::memory_traits>>;
  return R::impl_adopt(detail::subview_handle(src.impl_handle(), args...), src.impl_side(), src.impl_record());
}

}  // namespace dv

#endif  // DUALVIEW_DUAL_VIEW_SUBVIEW_HPP
