/*
 * dualview/layout.hpp: the layout tags (Kokkos names, usable as allocation
 * arguments) and their mappings from a multi-index to an offset, as mdspan:
 *
 *   layout         stored                            offset of (i0, i1, ...)
 *   LayoutLeft     the dynamic extents only          i0 + e0*(i1 + e1*(i2 + ...))
 *   LayoutRight    the dynamic extents only          ((i0*e1 + i1)*e2 + i2)...
 *   LayoutStride   the dynamic extents + a stride    i0*s0 + i1*s1 + ...
 *                  per axis
 *
 * So LayoutLeft / LayoutRight views with static extents carry nothing but a
 * pointer into a kernel, and a LayoutStride view stays LayoutStride.
 */
#ifndef DUALVIEW_LAYOUT_HPP
#define DUALVIEW_LAYOUT_HPP

#include <cstddef>
#include <type_traits>

#include "config.hpp"
#include "extents.hpp"

namespace dv {

namespace detail {
/// Kokkos layouts carry up to 8 sizes, so that `View(label, LayoutLeft(n0, n1))` works.
struct layout_dims {
  std::size_t dimension[DV_MAX_RANK] = {0, 0, 0, 0, 0, 0, 0, 0};
  constexpr layout_dims() = default;
  template <class... I, class = std::enable_if_t<(std::is_integral_v<I> && ...)>>
  constexpr explicit layout_dims(I... n) : dimension{static_cast<std::size_t>(n)...} {
    static_assert(sizeof...(I) <= DV_MAX_RANK, "dv: a layout holds at most 8 extents");
  }
};
}  // namespace detail

/// Column-major (Fortran order, the Kokkos default on GPUs).
struct LayoutLeft : detail::layout_dims {
  static constexpr uint32_t code = DV_LAYOUT_LEFT;
  using array_layout = LayoutLeft;
  using detail::layout_dims::layout_dims;
};

/// Row-major (C order, the Kokkos default on the host).
struct LayoutRight : detail::layout_dims {
  static constexpr uint32_t code = DV_LAYOUT_RIGHT;
  using array_layout = LayoutRight;
  using detail::layout_dims::layout_dims;
};

/// Explicit strides (subviews, strided allocations). `LayoutStride(n0, s0, n1, s1, ...)`.
struct LayoutStride {
  static constexpr uint32_t code = DV_LAYOUT_STRIDE;
  using array_layout = LayoutStride;
  std::size_t dimension[DV_MAX_RANK] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t stride[DV_MAX_RANK] = {0, 0, 0, 0, 0, 0, 0, 0};
  constexpr LayoutStride() = default;
  template <class... I, class = std::enable_if_t<(std::is_integral_v<I> && ...)>>
  constexpr explicit LayoutStride(I... n_s) {
    static_assert(sizeof...(I) % 2 == 0 && sizeof...(I) <= 2 * DV_MAX_RANK, "dv::LayoutStride(n0, s0, n1, s1, ...): pairs of extent and stride");
    const std::size_t v[] = {static_cast<std::size_t>(n_s)..., 0};
    for (std::size_t r = 0; r < sizeof...(I) / 2; ++r) {
      dimension[r] = v[2 * r];
      stride[r] = v[2 * r + 1];
    }
  }
};

namespace detail {

template <class T>
struct is_layout : std::bool_constant<std::is_same_v<T, LayoutLeft> || std::is_same_v<T, LayoutRight> || std::is_same_v<T, LayoutStride>> {};

template <class Layout, class E>
class mapping;

/// Shared by the three mappings: the extents (only their dynamic values are stored).
template <class E>
class mapping_base : private E {
 public:
  using extents_type = E;
  static constexpr std::size_t rank = E::rank();
  constexpr mapping_base() = default;
  DV_INLINE_FUNCTION constexpr explicit mapping_base(const E& e) : E(e) {}
  DV_INLINE_FUNCTION constexpr const E& extents() const noexcept { return *this; }
  DV_INLINE_FUNCTION constexpr std::size_t extent(std::size_t r) const noexcept { return E::extent(r); }
  DV_INLINE_FUNCTION constexpr std::size_t size() const noexcept { return E::size(); }
};

template <class E>
class mapping<LayoutLeft, E> : public mapping_base<E> {
 public:
  using layout_type = LayoutLeft;
  using mapping_base<E>::mapping_base;
  using mapping_base<E>::extent;
  using mapping_base<E>::rank;
  DV_INLINE_FUNCTION constexpr std::size_t stride(std::size_t r) const noexcept {
    std::size_t s = 1;
    for (std::size_t a = 0; a < r && detail::below(a, rank); ++a) s *= extent(a);
    return s;
  }
  template <class... I>
  DV_INLINE_FUNCTION constexpr std::size_t operator()(I... i) const noexcept {
    const std::size_t idx[] = {static_cast<std::size_t>(i)..., 0};
    std::size_t off = 0;
    for (std::size_t k = sizeof...(I); k-- > 0;) off = off * (k < rank ? extent(k) : 1) + idx[k];
    return off;
  }
  DV_INLINE_FUNCTION constexpr std::size_t required_span_size() const noexcept { return this->size(); }
  static constexpr bool is_always_contiguous = true;
};

template <class E>
class mapping<LayoutRight, E> : public mapping_base<E> {
 public:
  using layout_type = LayoutRight;
  using mapping_base<E>::mapping_base;
  using mapping_base<E>::extent;
  using mapping_base<E>::rank;
  DV_INLINE_FUNCTION constexpr std::size_t stride(std::size_t r) const noexcept {
    std::size_t s = 1;
    for (std::size_t a = r + 1; a < rank; ++a) s *= extent(a);
    return r < rank ? s : 0;
  }
  template <class... I>
  DV_INLINE_FUNCTION constexpr std::size_t operator()(I... i) const noexcept {
    const std::size_t idx[] = {static_cast<std::size_t>(i)..., 0};
    std::size_t off = 0;
    for (std::size_t k = 0; k < rank; ++k) off = off * extent(k) + idx[k];
    return off;
  }
  DV_INLINE_FUNCTION constexpr std::size_t required_span_size() const noexcept { return this->size(); }
  static constexpr bool is_always_contiguous = true;
};

template <class E>
class mapping<LayoutStride, E> : public mapping_base<E> {
 public:
  using layout_type = LayoutStride;
  using mapping_base<E>::extent;
  using mapping_base<E>::rank;
  constexpr mapping() = default;
  DV_INLINE_FUNCTION constexpr mapping(const E& e, const std::size_t* s) : mapping_base<E>(e) {
    for (std::size_t r = 0; r < rank; ++r) str_[r] = s[r];
  }
  DV_INLINE_FUNCTION constexpr std::size_t stride(std::size_t r) const noexcept { return r < rank ? str_[r] : 0; }
  template <class... I>
  DV_INLINE_FUNCTION constexpr std::size_t operator()(I... i) const noexcept {
    const std::size_t idx[] = {static_cast<std::size_t>(i)..., 0};
    std::size_t off = 0;
    for (std::size_t k = 0; k < rank; ++k) off += idx[k] * str_[k];
    return off;
  }
  DV_INLINE_FUNCTION constexpr std::size_t required_span_size() const noexcept {
    std::size_t span = 1;
    for (std::size_t r = 0; r < rank; ++r) {
      if (extent(r) == 0) return 0;
      span += (extent(r) - 1) * str_[r];
    }
    return span;
  }
  static constexpr bool is_always_contiguous = false;

 private:
  std::size_t str_[rank > 0 ? rank : 1] = {};
};

/// Whether `strides` address every element of `m`'s extents as `m` does
/// (axes of extent 0 or 1 never multiply a non-zero index, so any stride fits).
template <class M>
constexpr bool addresses_like(const M& m, const std::size_t* strides) {
  for (std::size_t r = 0; detail::below(r, M::rank); ++r)
    if (m.extent(r) > 1 && m.stride(r) != strides[r]) return false;
  return true;
}

}  // namespace detail
}  // namespace dv

#endif  // DUALVIEW_LAYOUT_HPP
