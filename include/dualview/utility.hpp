/*
 * Small device-callable utilities that ported programs use beside their
 * DualViews, under dv:: (Kokkos' names in dualview/kokkos.hpp): a fixed-size
 * array, min / max / clamp / minmax, printf and abort (issue 34, docs/CPP.md).
 */
#ifndef DUALVIEW_UTILITY_HPP
#define DUALVIEW_UTILITY_HPP

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <type_traits>

#include "config.hpp"
#include "traits.hpp"

namespace dv {

/// A fixed-size array usable in device code (Kokkos::Array): `size()`,
/// `data()`, `operator[]` with any integral index, aggregate initialisation.
template <class T, std::size_t N>
struct Array {
  T m_internal_implementation_private_member_data[N > 0 ? N : 1];

  using value_type = T;
  using size_type = std::size_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;

  DV_INLINE_FUNCTION static constexpr size_type size() { return N; }
  DV_INLINE_FUNCTION static constexpr bool empty() { return N == 0; }
  DV_INLINE_FUNCTION constexpr size_type max_size() const { return N; }
  template <class I, class = std::enable_if_t<std::is_integral_v<I>>>
  DV_INLINE_FUNCTION constexpr T& operator[](I i) {
    return m_internal_implementation_private_member_data[i];
  }
  template <class I, class = std::enable_if_t<std::is_integral_v<I>>>
  DV_INLINE_FUNCTION constexpr const T& operator[](I i) const {
    return m_internal_implementation_private_member_data[i];
  }
  DV_INLINE_FUNCTION constexpr T* data() { return m_internal_implementation_private_member_data; }
  DV_INLINE_FUNCTION constexpr const T* data() const { return m_internal_implementation_private_member_data; }
  DV_INLINE_FUNCTION constexpr T* begin() { return data(); }
  DV_INLINE_FUNCTION constexpr const T* begin() const { return data(); }
  DV_INLINE_FUNCTION constexpr T* end() { return data() + N; }
  DV_INLINE_FUNCTION constexpr const T* end() const { return data() + N; }
};

template <class T, std::size_t N>
DV_INLINE_FUNCTION constexpr bool operator==(const Array<T, N>& a, const Array<T, N>& b) {
  for (std::size_t i = 0; i < N; ++i)
    if (!(a[i] == b[i])) return false;
  return true;
}
template <class T, std::size_t N>
DV_INLINE_FUNCTION constexpr bool operator!=(const Array<T, N>& a, const Array<T, N>& b) {
  return !(a == b);
}

/// The smaller of two values (the first when equal), in device code too.
template <class T>
DV_INLINE_FUNCTION constexpr const T& min(const T& a, const T& b) {
  return b < a ? b : a;
}
/// The larger of two values (the first when equal).
template <class T>
DV_INLINE_FUNCTION constexpr const T& max(const T& a, const T& b) {
  return a < b ? b : a;
}
/// The smallest value of a list.
template <class T>
DV_INLINE_FUNCTION constexpr T min(std::initializer_list<T> l) {
  const T* m = l.begin();
  for (const T* p = l.begin(); p != l.end(); ++p)
    if (*p < *m) m = p;
  return *m;
}
/// The largest value of a list.
template <class T>
DV_INLINE_FUNCTION constexpr T max(std::initializer_list<T> l) {
  const T* m = l.begin();
  for (const T* p = l.begin(); p != l.end(); ++p)
    if (*m < *p) m = p;
  return *m;
}
/// `v` limited to `[lo, hi]`.
template <class T>
DV_INLINE_FUNCTION constexpr const T& clamp(const T& v, const T& lo, const T& hi) {
  return v < lo ? lo : (hi < v ? hi : v);
}
/// The pair (smaller, larger).
template <class T>
DV_INLINE_FUNCTION constexpr pair<const T&, const T&> minmax(const T& a, const T& b) {
  return b < a ? pair<const T&, const T&>(b, a) : pair<const T&, const T&>(a, b);
}

/// printf that returns nothing, in host and device code (Kokkos::printf).
template <class... Args>
DV_INLINE_FUNCTION void printf(const char* format, Args... args) {
  if constexpr (sizeof...(Args) == 0) {
    ::printf("%s", format);
  } else {
    ::printf(format, args...);
  }
}

/// Print `message` and stop the program (host) or the kernel (device), as Kokkos::abort.
DV_INLINE_FUNCTION void abort(const char* message) {
#if defined(__CUDA_ARCH__)
  ::printf("%s", message);
  __trap();
#else
  std::fprintf(stderr, "%s\n", message);
  std::fflush(stderr);
  std::abort();
#endif
}

}  // namespace dv

#endif  // DUALVIEW_UTILITY_HPP
