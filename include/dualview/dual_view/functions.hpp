/*
 * dualview/dual_view/functions.hpp: the free functions of dv::DualView, as
 * Kokkos names them: deep_copy between DualViews (the newer side of the
 * source into the destination, marked), resize and realloc, is_dual_view.
 * Included at the end of dual_view.hpp.
 */
#ifndef DUALVIEW_DUAL_VIEW_FUNCTIONS_HPP
#define DUALVIEW_DUAL_VIEW_FUNCTIONS_HPP

#include <type_traits>

namespace dv {

// ============================================================================
// Free functions
// ============================================================================

/// Kokkos deep_copy(DualView, DualView): the newer side of src into dst, dst marked.
template <class DT, class DA1, class DA2, class DA3, class ST, class SA1, class SA2, class SA3>
void deep_copy(DualView<DT, DA1, DA2, DA3>& dst, const DualView<ST, SA1, SA2, SA3>& src) {
  if (!dst.impl_handle() && !src.impl_handle()) return;
  if (!dst.impl_handle() || !src.impl_handle())
    detail::raise(DV_ERROR_INVALID_ARGUMENT, "dv::deep_copy: one of the DualViews is not allocated");
  detail::check(dv_deep_copy(dst.impl_handle(), src.impl_handle()));
}
template <class E, class DT, class DA1, class DA2, class DA3, class ST, class SA1, class SA2, class SA3,
          class = std::enable_if_t<detail::is_execution_space<E>::value>>
void deep_copy(const E& exec, DualView<DT, DA1, DA2, DA3>& dst, const DualView<ST, SA1, SA2, SA3>& src) {
  void* s = detail::stream_of(exec);
  if (!s || (!dst.impl_handle() && !src.impl_handle())) return deep_copy(dst, src);
  if (!dst.impl_handle() || !src.impl_handle())
    detail::raise(DV_ERROR_INVALID_ARGUMENT, "dv::deep_copy: one of the DualViews is not allocated");
  detail::check(dv_deep_copy_async(dst.impl_handle(), src.impl_handle(), s));
}

/// Kokkos resize / realloc of a DualView; extents of any arithmetic type (converted to size_t).
template <class DT, class A1, class A2, class A3, class... N, class = std::enable_if_t<detail::extent_args_v<N...>>>
void resize(DualView<DT, A1, A2, A3>& dv, N... n) {
  dv.resize(static_cast<std::size_t>(n)...);
}
template <class DT, class A1, class A2, class A3, class... N, class = std::enable_if_t<detail::extent_args_v<N...>>>
void resize(WithoutInitializing_t w, DualView<DT, A1, A2, A3>& dv, N... n) {
  dv.resize(w, static_cast<std::size_t>(n)...);
}
template <class DT, class A1, class A2, class A3, class... N, class = std::enable_if_t<detail::extent_args_v<N...>>>
void resize(const ViewAllocProp& p, DualView<DT, A1, A2, A3>& dv, N... n) {
  dv.resize(p, static_cast<std::size_t>(n)...);
}
template <class DT, class A1, class A2, class A3, class... N, class = std::enable_if_t<detail::extent_args_v<N...>>>
void realloc(DualView<DT, A1, A2, A3>& dv, N... n) {
  dv.realloc(static_cast<std::size_t>(n)...);
}
template <class DT, class A1, class A2, class A3, class... N, class = std::enable_if_t<detail::extent_args_v<N...>>>
void realloc(WithoutInitializing_t w, DualView<DT, A1, A2, A3>& dv, N... n) {
  dv.realloc(w, static_cast<std::size_t>(n)...);
}
template <class DT, class A1, class A2, class A3, class... N, class = std::enable_if_t<detail::extent_args_v<N...>>>
void realloc(const ViewAllocProp& p, DualView<DT, A1, A2, A3>& dv, N... n) {
  dv.realloc(p, static_cast<std::size_t>(n)...);
}

/// is_dual_view<T>
template <class T>
struct is_dual_view : std::false_type {};
template <class DT, class A1, class A2, class A3>
struct is_dual_view<DualView<DT, A1, A2, A3>> : std::true_type {};
template <class DT, class A1, class A2, class A3>
struct is_dual_view<const DualView<DT, A1, A2, A3>> : std::true_type {};
template <class T>
inline constexpr bool is_dual_view_v = is_dual_view<T>::value;

}  // namespace dv

#endif  // DUALVIEW_DUAL_VIEW_FUNCTIONS_HPP
