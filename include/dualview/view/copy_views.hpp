/*
 * dualview/view/copy_views.hpp: what Kokkos' Kokkos_CopyViews.hpp holds for
 * dv::View: deep_copy between Views and scalars (no flags, synchronous),
 * mirrors (create_mirror, create_mirror_view, ..._and_copy) and the free
 * resize and realloc of Views. Included at the end of view.hpp, after View.
 */
#ifndef DUALVIEW_VIEW_COPY_VIEWS_HPP
#define DUALVIEW_VIEW_COPY_VIEWS_HPP

#include <type_traits>
#include <utility>

namespace dv {

// ============================================================================
// deep_copy between Views and scalars (no flags; synchronous)
// ============================================================================

namespace detail {
/// A rank-0 unmanaged host View over one scalar, for deep_copy(scalar&, View).
template <class T>
View<T, HostSpace, MemoryUnmanaged> scalar_view(T& x) {
  return View<T, HostSpace, MemoryUnmanaged>(&x);
}
}  // namespace detail

/// deep_copy(view, scalar): every element of the view; no flags.
template <class DT, class... P>
void deep_copy(const View<DT, P...>& v, const typename View<DT, P...>::const_value_type& value) {
  using V = View<DT, P...>;
  using T = typename V::non_const_value_type;
  if (v.size() == 0) return;
  if (!v.impl_handle()) detail::raise(DV_ERROR_INVALID_ARGUMENT, "dv::deep_copy: the view is not allocated");
  if constexpr (std::is_trivially_copyable_v<T>) {
    detail::check(dv_view_fill(v.impl_handle(), v.impl_side(), &value));
  } else {
    static_assert(V::memory_space::host_accessible, "dv::deep_copy(view, value): a non-trivially-copyable element type is assigned on the host");
    for (std::size_t k = 0; k < v.span(); ++k) const_cast<T*>(v.data())[k] = value;
  }
}
/// deep_copy(exec, view, scalar): as deep_copy(view, scalar), complete on return.
template <class E, class DT, class... P, class = std::enable_if_t<detail::is_execution_space<E>::value>>
void deep_copy(const E&, const View<DT, P...>& v, const typename View<DT, P...>::const_value_type& value) {
  deep_copy(v, value);
}

/// deep_copy(view, view): across spaces and layouts (extents must match); no flags.
template <class DT, class... P, class ST, class... SP>
void deep_copy(const View<DT, P...>& dst, const View<ST, SP...>& src) {
  static_assert(!std::is_const_v<typename View<DT, P...>::value_type>, "dv::deep_copy: the destination has const data");
  if (dst.size() == 0 && src.size() == 0) return;
  if (!dst.impl_handle() || !src.impl_handle())
    detail::raise(DV_ERROR_INVALID_ARGUMENT, "dv::deep_copy: one of the views is not allocated");
  detail::check(dv_view_copy(dst.impl_handle(), dst.impl_side(), src.impl_handle(), src.impl_side()));
}
template <class E, class DT, class... P, class ST, class... SP, class = std::enable_if_t<detail::is_execution_space<E>::value>>
void deep_copy(const E& exec, const View<DT, P...>& dst, const View<ST, SP...>& src) {
  // On an instance over a stream: queued there, returning at once (dv_view_copy_async).
  void* s = detail::stream_of(exec);
  if (!s || (dst.size() == 0 && src.size() == 0) || !dst.impl_handle() || !src.impl_handle()) return deep_copy(dst, src);
  static_assert(!std::is_const_v<typename View<DT, P...>::value_type>, "dv::deep_copy: the destination has const data");
  detail::check(dv_view_copy_async(dst.impl_handle(), dst.impl_side(), src.impl_handle(), src.impl_side(), s));
}

/// deep_copy(scalar&, view): the element of a rank-0 view.
template <class T, class DT, class... P, class = std::enable_if_t<!is_view_v<T> && View<DT, P...>::rank == 0>>
void deep_copy(T& dst, const View<DT, P...>& src) {
  using V = typename View<DT, P...>::non_const_value_type;
  static_assert(std::is_same_v<std::remove_cv_t<T>, V>, "dv::deep_copy(scalar&, view): the scalar must have the view's value type");
  if (!src.impl_handle()) detail::raise(DV_ERROR_INVALID_ARGUMENT, "dv::deep_copy: the view is not allocated");
  auto d = detail::scalar_view(dst);
  deep_copy(d, src);
}
/// deep_copy(exec, scalar&, view).
template <class E, class T, class DT, class... P,
          class = std::enable_if_t<detail::is_execution_space<E>::value && !is_view_v<T> && View<DT, P...>::rank == 0>>
void deep_copy(const E&, T& dst, const View<DT, P...>& src) {
  deep_copy(dst, src);
}

// ============================================================================
// Mirrors
// ============================================================================

namespace detail {
template <class V, class Mirror>
Mirror new_mirror(const V& v, const ViewAllocProp& p) {
  ViewAllocProp q = p;
  if (!q.has_label) q.label = v.label() + "_mirror";
  typename Mirror::array_layout l;
  for (unsigned r = 0; r < V::rank; ++r) l.dimension[r] = v.extent(r);
  if constexpr (std::is_same_v<typename Mirror::array_layout, LayoutStride>) {
    std::size_t acc = 1;
    for (unsigned r = V::rank; r-- > 0;) {
      l.stride[r] = acc;
      acc *= v.extent(r) ? v.extent(r) : 1;
    }
  }
  return Mirror(q, l);
}
template <class V, class Space>
using mirror_in = View<typename V::non_const_data_type, typename V::array_layout,
                       Device<typename Space::execution_space, typename Space::memory_space>>;
}  // namespace detail

/// create_mirror(view): always a new host view of the same shape (not copied).
template <class DT, class... P>
typename View<DT, P...>::HostMirror create_mirror(const View<DT, P...>& v) {
  return detail::new_mirror<View<DT, P...>, typename View<DT, P...>::HostMirror>(v, view_alloc());
}
template <class DT, class... P>
typename View<DT, P...>::HostMirror create_mirror(WithoutInitializing_t w, const View<DT, P...>& v) {
  return detail::new_mirror<View<DT, P...>, typename View<DT, P...>::HostMirror>(v, view_alloc(w));
}
/// create_mirror(space, view): a new view in `space`.
template <class S, class DT, class... P, class = std::enable_if_t<detail::is_space<S>::value>>
auto create_mirror(const S&, const View<DT, P...>& v) {
  return detail::new_mirror<View<DT, P...>, detail::mirror_in<View<DT, P...>, S>>(v, view_alloc());
}
template <class S, class DT, class... P, class = std::enable_if_t<detail::is_space<S>::value>>
auto create_mirror(WithoutInitializing_t w, const S&, const View<DT, P...>& v) {
  return detail::new_mirror<View<DT, P...>, detail::mirror_in<View<DT, P...>, S>>(v, view_alloc(w));
}
template <class DT, class... P>
typename View<DT, P...>::HostMirror create_mirror(const ViewAllocProp& p, const View<DT, P...>& v) {
  return detail::new_mirror<View<DT, P...>, typename View<DT, P...>::HostMirror>(v, p);
}

/// create_mirror_view(view): the view itself when its memory needs no mirror, else a new host view.
template <class DT, class... P>
typename View<DT, P...>::HostMirror create_mirror_view(const View<DT, P...>& v) {
  using M = typename View<DT, P...>::HostMirror;
  if constexpr (std::is_same_v<typename M::memory_space, typename View<DT, P...>::memory_space>) {
    return M(v);
  } else {
    return create_mirror(v);
  }
}
template <class DT, class... P>
typename View<DT, P...>::HostMirror create_mirror_view(WithoutInitializing_t w, const View<DT, P...>& v) {
  using M = typename View<DT, P...>::HostMirror;
  if constexpr (std::is_same_v<typename M::memory_space, typename View<DT, P...>::memory_space>) {
    return M(v);
  } else {
    return create_mirror(w, v);
  }
}
template <class DT, class... P>
typename View<DT, P...>::HostMirror create_mirror_view(const ViewAllocProp& p, const View<DT, P...>& v) {
  using M = typename View<DT, P...>::HostMirror;
  if constexpr (std::is_same_v<typename M::memory_space, typename View<DT, P...>::memory_space>) {
    return M(v);
  } else {
    return create_mirror(p, v);
  }
}
/// create_mirror_view(space, view): the view itself when it already lives in `space`'s memory.
template <class S, class DT, class... P, class = std::enable_if_t<detail::is_space<S>::value>>
auto create_mirror_view(const S& s, const View<DT, P...>& v) {
  using M = detail::mirror_in<View<DT, P...>, S>;
  if constexpr (std::is_same_v<typename M::memory_space, typename View<DT, P...>::memory_space>) {
    return M(v);
  } else {
    return create_mirror(s, v);
  }
}
template <class S, class DT, class... P, class = std::enable_if_t<detail::is_space<S>::value>>
auto create_mirror_view(WithoutInitializing_t w, const S& s, const View<DT, P...>& v) {
  using M = detail::mirror_in<View<DT, P...>, S>;
  if constexpr (std::is_same_v<typename M::memory_space, typename View<DT, P...>::memory_space>) {
    return M(v);
  } else {
    return create_mirror(w, s, v);
  }
}

/// create_mirror_view_and_copy(space, view): a view in `space` holding the
/// contents (the view itself when it already lives there).
template <class S, class DT, class... P, class = std::enable_if_t<detail::is_space<S>::value>>
auto create_mirror_view_and_copy(const S& s, const View<DT, P...>& v) {
  using M = detail::mirror_in<View<DT, P...>, S>;
  if constexpr (std::is_same_v<typename M::memory_space, typename View<DT, P...>::memory_space>) {
    return M(v);
  } else {
    auto m = create_mirror(WithoutInitializing, s, v);
    deep_copy(m, v);
    return m;
  }
}

// ============================================================================
// Resize and realloc of Views (Kokkos free functions)
// ============================================================================

namespace detail {
template <class V>
V reshaped(const V& v, const ViewAllocProp& p, const std::size_t (&n)[8], bool keep) {
  ViewAllocProp q = p;
  if (!q.has_label) q.label = v.label();
  V out(q, n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7]);
  if (keep && v.impl_handle() && out.size() > 0 && v.size() > 0) {
    dv_range_t r[DV_MAX_RANK];
    for (unsigned k = 0; k < V::rank; ++k) r[k] = {DV_RANGE, 0, 0, std::min<uint64_t>(v.extent(k), out.extent(k))};
    dv_dualview_t *a = nullptr, *b = nullptr;
    check(dv_subview(out.impl_handle(), r, V::rank, &a));
    dv_status_t s = dv_subview(v.impl_handle(), r, V::rank, &b);
    if (s == DV_OK) s = dv_view_copy(a, out.impl_side(), b, v.impl_side());
    std::string m = s == DV_OK ? std::string() : dv_last_error();
    (void)dv_destroy(a);
    (void)dv_destroy(b);
    if (s != DV_OK) raise(s, m);
  }
  return out;
}
}  // namespace detail

namespace detail {
/// Kokkos' extent arguments: any arithmetic type, converted to size_t
/// (miniMD resizes with a double); the axes not given keep ctor_default.
template <class... N>
inline constexpr bool extent_args_v = (std::is_arithmetic_v<N> && ...);
template <class... N>
void full_extents(std::size_t (&full)[8], N... n) {
  static_assert(sizeof...(N) <= 8, "dv::resize / realloc: at most 8 extents");
  const std::size_t e[sizeof...(N) + 1] = {static_cast<std::size_t>(n)..., 0};
  for (std::size_t k = 0; k < 8; ++k) full[k] = k < sizeof...(N) ? e[k] : ctor_default;
}
}  // namespace detail

/// Kokkos resize(view, n...): a new allocation keeping the overlapping contents.
/// The extents may be of any arithmetic type (converted to size_t, as Kokkos does).
template <class DT, class... P, class... N, class = std::enable_if_t<detail::extent_args_v<N...>>>
void resize(View<DT, P...>& v, N... n) {
  std::size_t full[8];
  detail::full_extents(full, n...);
  v = detail::reshaped(v, view_alloc(), full, true);
}
template <class DT, class... P, class... N, class = std::enable_if_t<detail::extent_args_v<N...>>>
void resize(WithoutInitializing_t w, View<DT, P...>& v, N... n) {
  std::size_t full[8];
  detail::full_extents(full, n...);
  v = detail::reshaped(v, view_alloc(w), full, true);
}
/// Kokkos resize(view_alloc(...), view, n...).
template <class DT, class... P, class... N, class = std::enable_if_t<detail::extent_args_v<N...>>>
void resize(const ViewAllocProp& p, View<DT, P...>& v, N... n) {
  std::size_t full[8];
  detail::full_extents(full, n...);
  v = detail::reshaped(v, p, full, true);
}
/// Kokkos realloc(view, n...): a new allocation, contents dropped.
template <class DT, class... P, class... N, class = std::enable_if_t<detail::extent_args_v<N...>>>
void realloc(View<DT, P...>& v, N... n) {
  std::size_t full[8];
  detail::full_extents(full, n...);
  v = detail::reshaped(v, view_alloc(), full, false);
}
template <class DT, class... P, class... N, class = std::enable_if_t<detail::extent_args_v<N...>>>
void realloc(WithoutInitializing_t w, View<DT, P...>& v, N... n) {
  std::size_t full[8];
  detail::full_extents(full, n...);
  v = detail::reshaped(v, view_alloc(w), full, false);
}
/// Kokkos realloc(view_alloc(...), view, n...).
template <class DT, class... P, class... N, class = std::enable_if_t<detail::extent_args_v<N...>>>
void realloc(const ViewAllocProp& p, View<DT, P...>& v, N... n) {
  std::size_t full[8];
  detail::full_extents(full, n...);
  v = detail::reshaped(v, p, full, false);
}

}  // namespace dv

#endif  // DUALVIEW_VIEW_COPY_VIEWS_HPP
