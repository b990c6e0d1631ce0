/*
 * dualview/extents.hpp: tensor extents with mdspan semantics (DESIGN.md
 * section 2), entirely constexpr: no call into the C library, usable in
 * device code (the accessors), and only the dynamic sizes are stored.
 *
 *   dv::extents<4>                  static rank 1 of size 4 (never rank 4)
 *   dv::extents<dynamic_extent, 3>  rank 2, first size at run time
 *   dv::dims<4>                     rank 4, every size at run time (C++26 std::dims)
 *   dv::dyn_extents                 rank 0..8 at run time
 *
 * Sizes follow the core's rule: the product of the non-zero extents fits in
 * ptrdiff_t (dv::overflow_error otherwise). Free functions give strides,
 * the uBLAS predicates and squeeze with the same formulas as the C ABI.
 */
#ifndef DUALVIEW_EXTENTS_HPP
#define DUALVIEW_EXTENTS_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "config.hpp"
#include "error.hpp"

namespace dv {

inline constexpr std::size_t dynamic_extent = static_cast<std::size_t>(-1);
inline constexpr std::size_t max_rank = DV_MAX_RANK;

namespace detail {

/// The largest element count any extents may describe (the core's isize rule).
inline constexpr std::size_t size_limit = static_cast<std::size_t>(PTRDIFF_MAX);

/// Whether the product of the non-zero values fits (so no stride overflows either).
DV_INLINE_FUNCTION constexpr bool size_fits(const std::size_t* v, std::size_t n) {
  std::size_t p = 1;
  for (std::size_t i = 0; i < n; ++i) {
    if (v[i] == 0) continue;
    if (p > size_limit / v[i]) return false;
    p *= v[i];
  }
  return true;
}

[[noreturn]] inline void extents_fail(dv_status_t s, const std::string& what) { raise(s, "dv::extents: " + what); }

template <class I>
constexpr std::size_t to_size(I n, std::size_t axis) {
  if constexpr (std::is_signed_v<I>) {
    if (n < 0)
      extents_fail(DV_ERROR_INVALID_ARGUMENT,
                   "extent " + std::to_string(static_cast<long long>(n)) + " of axis " + std::to_string(axis) + " is negative");
  }
  return static_cast<std::size_t>(n);
}

/// The dynamic sizes of an extents type; empty when there are none.
template <std::size_t N>
struct dyn_storage {
  std::size_t v[N] = {};
  DV_INLINE_FUNCTION constexpr std::size_t get(std::size_t i) const { return v[i]; }
  DV_INLINE_FUNCTION constexpr void set(std::size_t i, std::size_t x) { v[i] = x; }
};
template <>
struct dyn_storage<0> {
  DV_INLINE_FUNCTION constexpr std::size_t get(std::size_t) const { return 0; }
  DV_INLINE_FUNCTION constexpr void set(std::size_t, std::size_t) {}
};

template <class T, class = void>
struct is_extents : std::false_type {};
template <class T>
struct is_extents<T, std::void_t<decltype(T::is_dv_extents)>> : std::true_type {};

}  // namespace detail

/// Static or mixed extents: each entry a size or dynamic_extent.
template <std::size_t... Es>
class extents : private detail::dyn_storage<((Es == dynamic_extent ? 1u : 0u) + ... + 0u)> {
  static_assert(sizeof...(Es) <= DV_MAX_RANK, "dv::extents: the rank exceeds 8");
  static constexpr std::size_t R = sizeof...(Es);
  static constexpr std::size_t RD = ((Es == dynamic_extent ? 1u : 0u) + ... + 0u);
  using storage = detail::dyn_storage<RD>;
  /// The static entry of axis r (a fold, not an array: usable in device code).
  DV_INLINE_FUNCTION static constexpr std::size_t static_at(std::size_t r) {
    std::size_t i = 0, out = 0;
    ((out = (i++ == r ? Es : out)), ...);
    return out;
  }

  /// Index among the dynamic entries of axis r.
  DV_INLINE_FUNCTION static constexpr std::size_t dyn_index(std::size_t r) {
    std::size_t i = 0, k = 0;
    ((k += (i++ < r && Es == dynamic_extent) ? std::size_t(1) : std::size_t(0)), ...);
    return k;
  }

 public:
  static constexpr bool is_dv_extents = true;
  using index_type = std::size_t;
  using size_type = std::size_t;
  using rank_type = std::size_t;

  DV_INLINE_FUNCTION static constexpr std::size_t rank() noexcept { return R; }
  DV_INLINE_FUNCTION static constexpr std::size_t rank_dynamic() noexcept { return RD; }
  /// The static size of axis r, or dynamic_extent.
  DV_INLINE_FUNCTION static constexpr std::size_t static_extent(std::size_t r) noexcept { return r < R ? static_at(r) : 0; }

  /// Dynamic entries are 0.
  constexpr extents() noexcept = default;

  /// rank_dynamic() values, or rank() values (static ones must match): mdspan's rule.
  template <class... I, class = std::enable_if_t<(sizeof...(I) > 0) && (std::is_integral_v<I> && ...)>>
  constexpr explicit extents(I... n) {
    std::size_t values[sizeof...(I)] = {};
    std::size_t k = 0;
    ((values[k] = detail::to_size(n, k), ++k), ...);
    assign(values, sizeof...(I));
  }

  /// Checked conversion from any other extents kind (rank and static entries must agree).
  template <class Other, class = std::enable_if_t<detail::is_extents<Other>::value && !std::is_same_v<Other, extents>>>
  constexpr explicit extents(const Other& o) {
    if (o.rank() != R)
      detail::extents_fail(DV_ERROR_RANK_MISMATCH, "expected rank " + std::to_string(R) + ", got " + std::to_string(o.rank()));
    std::size_t values[R + 1] = {};
    for (std::size_t r = 0; r < R; ++r) values[r] = o.extent(r);
    assign(values, R);
  }

  /// The size of axis r (0 past the rank).
  DV_INLINE_FUNCTION constexpr std::size_t extent(std::size_t r) const noexcept {
    if (!detail::below(r, R)) return 0;
    if (static_at(r) != dynamic_extent) return static_at(r);
    return storage::get(dyn_index(r));
  }

  /// The number of elements (1 for rank 0).
  DV_INLINE_FUNCTION constexpr std::size_t size() const noexcept {
    std::size_t p = 1;
    for (std::size_t r = 0; r < R; ++r) p *= extent(r);
    return p;
  }

  /// The C value.
  constexpr dv_extents_t to_c() const noexcept {
    dv_extents_t e{};
    e.rank = static_cast<uint32_t>(R);
    for (std::size_t r = 0; r < DV_MAX_RANK; ++r) e.extent[r] = detail::below(r, R) ? extent(r) : 1;
    return e;
  }

  /// From the C value, checked against the type (rank, static entries, size).
  static constexpr extents from_c(const dv_extents_t& e) {
    if (e.rank > DV_MAX_RANK) detail::extents_fail(DV_ERROR_RANK, "rank " + std::to_string(e.rank) + " exceeds 8");
    if (e.rank != R)
      detail::extents_fail(DV_ERROR_RANK_MISMATCH, "expected rank " + std::to_string(R) + ", got " + std::to_string(e.rank));
    std::size_t values[R + 1] = {};
    for (std::size_t r = 0; r < R; ++r) values[r] = e.extent[r];
    return from_values(values, R);
  }

  /// The extents assignment rule (mdspan's), written once for C++: `n` values,
  /// either all rank() sizes (each static entry must match) or only the
  /// rank_dynamic() run-time ones, in axis order; the product must fit.
  /// dv::rank_mismatch, dv::static_mismatch or dv::overflow_error otherwise.
  /// The constructors above, and the View and DualView constructors, resize
  /// and realloc (detail::extents_from_args), all apply it.
  static constexpr extents from_values(const std::size_t* values, std::size_t n) {
    extents out;
    out.assign(values, n);
    return out;
  }

  /// Values for axes in order, unchecked (device code, internal use).
  DV_INLINE_FUNCTION static constexpr extents from_values_unchecked(const std::size_t* v) {
    extents out;
    std::size_t k = 0;
    for (std::size_t r = 0; r < R; ++r)
      if (static_at(r) == dynamic_extent) out.storage::set(k++, v[r]);
    return out;
  }

 private:
  constexpr void assign(const std::size_t* values, std::size_t n) {
    if (n != R && n != RD)
      detail::extents_fail(DV_ERROR_RANK_MISMATCH, "expected " + std::to_string(R) + " extents (or " + std::to_string(RD) +
                                                       " run-time extents), got " + std::to_string(n) +
                                                       (n < R ? " (an extent of SIZE_MAX, such as -1 converted to size_t, is "
                                                                "Kokkos' \"not given\")"
                                                              : ""));
    std::size_t full[R + 1] = {};
    std::size_t k = 0, j = 0;
    for (std::size_t r = 0; detail::below(r, R); ++r) {
      if (static_at(r) == dynamic_extent) {
        full[r] = values[n == R ? r : j++];
        storage::set(k++, full[r]);
      } else {
        full[r] = static_at(r);
        if (n == R && values[r] != static_at(r))
          detail::extents_fail(DV_ERROR_STATIC_MISMATCH, "extent " + std::to_string(values[r]) + " of axis " + std::to_string(r) +
                                                             " does not match the static extent " + std::to_string(static_at(r)));
      }
    }
    if (!detail::size_fits(full, R)) detail::extents_fail(DV_ERROR_OVERFLOW, "the product of the extents overflows");
  }
};

namespace detail {
template <std::size_t R, std::size_t... Es>
struct make_dims : make_dims<R - 1, dynamic_extent, Es...> {};
template <std::size_t... Es>
struct make_dims<0, Es...> {
  using type = extents<Es...>;
};
}  // namespace detail

/// Rank R with run-time sizes (C++26 std::dims<R>).
template <std::size_t R>
using dims = typename detail::make_dims<R>::type;

/// Run-time rank (0 to 8) and sizes.
class dyn_extents {
 public:
  static constexpr bool is_dv_extents = true;
  using index_type = std::size_t;

  constexpr dyn_extents() noexcept = default;
  /// The rank is the number of values.
  template <class... I, class = std::enable_if_t<(std::is_integral_v<I> && ...)>>
  constexpr explicit dyn_extents(I... n) : rank_(static_cast<uint32_t>(sizeof...(I))) {
    static_assert(sizeof...(I) <= DV_MAX_RANK, "dv::dyn_extents: the rank exceeds 8");
    std::size_t k = 0;
    ((e_[k] = detail::to_size(n, k), ++k), ...);
    if (!detail::size_fits(e_, rank_)) detail::extents_fail(DV_ERROR_OVERFLOW, "the product of the extents overflows");
  }
  /// From the C value (checked).
  static constexpr dyn_extents from_c(const dv_extents_t& e) {
    if (e.rank > DV_MAX_RANK) detail::extents_fail(DV_ERROR_RANK, "rank " + std::to_string(e.rank) + " exceeds 8");
    dyn_extents d;
    d.rank_ = e.rank;
    for (std::size_t r = 0; r < e.rank; ++r) d.e_[r] = e.extent[r];
    if (!detail::size_fits(d.e_, d.rank_)) detail::extents_fail(DV_ERROR_OVERFLOW, "the product of the extents overflows");
    return d;
  }
  /// Widening from any extents kind (implicit, as mdspan).
  template <std::size_t... Es>
  constexpr dyn_extents(const extents<Es...>& o) noexcept : rank_(static_cast<uint32_t>(sizeof...(Es))) {  // NOLINT
    for (std::size_t r = 0; r < sizeof...(Es); ++r) e_[r] = o.extent(r);
  }
  DV_INLINE_FUNCTION constexpr std::size_t rank() const noexcept { return rank_; }
  DV_INLINE_FUNCTION constexpr std::size_t rank_dynamic() const noexcept { return rank_; }
  /// The size of axis r; 0 past the rank, as extents<...> and dims<R> answer (DECISIONS E10).
  DV_INLINE_FUNCTION constexpr std::size_t extent(std::size_t r) const noexcept { return r < rank_ ? e_[r] : 0; }
  /// The size of axis r, unchecked (device code).
  DV_INLINE_FUNCTION constexpr std::size_t operator[](std::size_t r) const noexcept { return e_[r]; }
  DV_INLINE_FUNCTION constexpr std::size_t size() const noexcept {
    std::size_t p = 1;
    for (std::size_t r = 0; r < rank_; ++r) p *= e_[r];
    return p;
  }
  constexpr dv_extents_t to_c() const noexcept {
    dv_extents_t c{};
    c.rank = rank_;
    for (std::size_t r = 0; r < DV_MAX_RANK; ++r) c.extent[r] = r < rank_ ? e_[r] : 1;
    return c;
  }

 private:
  [[noreturn]] static void raise(dv_status_t s, const std::string& m) { detail::raise(s, m); }
  uint32_t rank_ = 0;
  std::size_t e_[DV_MAX_RANK] = {};
};

namespace detail {
template <class E>
DV_INLINE_FUNCTION constexpr std::size_t ext_at(const E& e, std::size_t r) {
  if constexpr (std::is_same_v<E, dyn_extents>) {
    return e[r];
  } else {
    return e.extent(r);
  }
}
}  // namespace detail

/// Equality across kinds: same rank and same sizes.
template <class A, class B, class = std::enable_if_t<detail::is_extents<A>::value && detail::is_extents<B>::value>>
DV_INLINE_FUNCTION constexpr bool operator==(const A& a, const B& b) noexcept {
  if (a.rank() != b.rank()) return false;
  for (std::size_t r = 0; r < a.rank(); ++r)
    if (detail::ext_at(a, r) != detail::ext_at(b, r)) return false;
  return true;
}
template <class A, class B, class = std::enable_if_t<detail::is_extents<A>::value && detail::is_extents<B>::value>>
DV_INLINE_FUNCTION constexpr bool operator!=(const A& a, const B& b) noexcept {
  return !(a == b);
}

/// Per-axis strides (in elements), as returned by dv::strides.
struct stride_array {
  std::size_t rank = 0;
  std::size_t value[DV_MAX_RANK] = {};
  DV_INLINE_FUNCTION constexpr std::size_t operator[](std::size_t r) const noexcept { return value[r]; }
};

/// Canonical strides for column-major (left, first order) or row-major order.
template <class E, class = std::enable_if_t<detail::is_extents<E>::value>>
DV_INLINE_FUNCTION constexpr stride_array strides(const E& e, bool column_major) noexcept {
  stride_array s;
  s.rank = e.rank();
  std::size_t acc = 1;
  for (std::size_t k = 0; k < s.rank; ++k) {
    std::size_t r = column_major ? k : s.rank - 1 - k;
    s.value[r] = acc;
    acc *= detail::ext_at(e, r);
  }
  return s;
}

/// uBLAS is_scalar: rank > 0 and every extent 1. Rank 0 has size 1 yet is
/// not a scalar: uBLAS' formula asks for at least one extent (DECISIONS E11).
template <class E, class = std::enable_if_t<detail::is_extents<E>::value>>
DV_INLINE_FUNCTION constexpr bool is_scalar(const E& e) noexcept {
  if (e.rank() == 0) return false;
  for (std::size_t r = 0; r < e.rank(); ++r)
    if (detail::ext_at(e, r) != 1) return false;
  return true;
}

namespace detail {
template <class E>
DV_INLINE_FUNCTION constexpr bool trailing_ones(const E& e) {
  for (std::size_t r = 2; r < e.rank(); ++r)
    if (ext_at(e, r) != 1) return false;
  return true;
}
}  // namespace detail

/// uBLAS is_vector (develop formula; {1,1} is also a scalar and a matrix):
/// false at rank 0; n[0] >= 1 at rank 1; otherwise (n[0] >= 1 || n[1] >= 1)
/// && (n[0] == 1 || n[1] == 1) && n[k] == 1 for k >= 2. {4} is also a matrix.
template <class E, class = std::enable_if_t<detail::is_extents<E>::value>>
DV_INLINE_FUNCTION constexpr bool is_vector(const E& e) noexcept {
  if (e.rank() == 0) return false;
  if (e.rank() == 1) return detail::ext_at(e, 0) >= 1;
  const std::size_t a = detail::ext_at(e, 0), b = detail::ext_at(e, 1);
  return (a >= 1 || b >= 1) && (a == 1 || b == 1) && detail::trailing_ones(e);
}

/// uBLAS is_matrix (develop formula): false at rank 0; n[0] >= 1 at rank 1
/// (so {4} is a vector and a one-column matrix); otherwise
/// (n[0] >= 1 || n[1] >= 1) && n[k] == 1 for k >= 2.
template <class E, class = std::enable_if_t<detail::is_extents<E>::value>>
DV_INLINE_FUNCTION constexpr bool is_matrix(const E& e) noexcept {
  if (e.rank() == 0) return false;
  if (e.rank() == 1) return detail::ext_at(e, 0) >= 1;
  return (detail::ext_at(e, 0) >= 1 || detail::ext_at(e, 1) >= 1) && detail::trailing_ones(e);
}

/// uBLAS is_tensor: rank > 2 with the first two extents at least 1 and a trailing extent above 1.
template <class E, class = std::enable_if_t<detail::is_extents<E>::value>>
DV_INLINE_FUNCTION constexpr bool is_tensor(const E& e) noexcept {
  if (e.rank() <= 2 || detail::ext_at(e, 0) < 1 || detail::ext_at(e, 1) < 1) return false;
  for (std::size_t r = 2; r < e.rank(); ++r)
    if (detail::ext_at(e, r) > 1) return true;
  return false;  // trailing extents of 0 and 1 only: {1, 1, 0} is not a tensor
}

/// numpy squeeze: every extent of 1 dropped (the result may be rank 0).
template <class E, class = std::enable_if_t<detail::is_extents<E>::value>>
constexpr dyn_extents squeeze(const E& e) {
  dv_extents_t c{};
  for (std::size_t r = 0; r < e.rank(); ++r)
    if (detail::ext_at(e, r) != 1) c.extent[c.rank++] = detail::ext_at(e, r);
  return dyn_extents::from_c(c);
}

/// GNU Octave / uBLAS 2020 squeeze: ranks up to 2 unchanged; otherwise ones
/// dropped, keeping at least two axes.
template <class E, class = std::enable_if_t<detail::is_extents<E>::value>>
constexpr dyn_extents squeeze_octave(const E& e) {
  if (e.rank() <= 2) return dyn_extents::from_c(e.to_c());
  dyn_extents k = squeeze(e);
  dv_extents_t c{};
  c.rank = 2;
  if (k.rank() == 0) {
    c.extent[0] = c.extent[1] = 1;
  } else if (k.rank() == 1) {
    bool second = detail::ext_at(e, 1) != 1;
    c.extent[0] = second ? 1 : k[0];
    c.extent[1] = second ? k[0] : 1;
  } else {
    return k;
  }
  return dyn_extents::from_c(c);
}

}  // namespace dv

#endif  // DUALVIEW_EXTENTS_HPP
