/*
 * dualview/traits.hpp: what a Kokkos data type and property list mean
 * (ViewTraits), memory traits, and the allocation properties of view_alloc.
 */
#ifndef DUALVIEW_TRAITS_HPP
#define DUALVIEW_TRAITS_HPP

#include <complex>
#include <string>
#include <type_traits>
#include <utility>

#include "complex.hpp"
#include "config.hpp"
#include "extents.hpp"
#include "layout.hpp"
#include "space.hpp"

namespace dv {

enum MemoryTraitsFlags : unsigned { Unmanaged = 0x01, RandomAccess = 0x02, Atomic = 0x04, Restrict = 0x08, Aligned = 0x10 };
/// Memory traits (accepted for Kokkos compatibility; Unmanaged and RandomAccess are reported by the traits).
template <unsigned Flags>
struct MemoryTraits {
  static constexpr unsigned value = Flags;
  static constexpr bool is_memory_traits = true;
  static constexpr bool is_unmanaged = (Flags & Unmanaged) != 0;
  static constexpr bool is_random_access = (Flags & RandomAccess) != 0;
  static constexpr bool is_atomic = (Flags & Atomic) != 0;
  static constexpr bool is_restrict = (Flags & Restrict) != 0;
  using memory_traits = MemoryTraits;
};
using MemoryManaged = MemoryTraits<0>;
using MemoryUnmanaged = MemoryTraits<Unmanaged>;
using MemoryRandomAccess = MemoryTraits<RandomAccess>;

/// view_alloc(WithoutInitializing): skip zero-filling and element construction.
struct WithoutInitializing_t {};
inline constexpr WithoutInitializing_t WithoutInitializing{};

/// view_alloc(SequentialHostInit): construct elements one by one on the host
/// (element types that cannot be built in device code, such as Views).
struct SequentialHostInit_t {};
inline constexpr SequentialHostInit_t SequentialHostInit{};

/// view_alloc(AllowPadding): accepted; dualview never pads.
struct AllowPadding_t {};
inline constexpr AllowPadding_t AllowPadding{};

/// view_alloc(PinnedHostMirror): the DualView's host mirror in page-locked memory.
struct PinnedHostMirror_t {};
inline constexpr PinnedHostMirror_t PinnedHostMirror{};

/// view_alloc(PageableHostMirror): keep a CUDA DualView's host mirror pageable (never registered).
struct PageableHostMirror_t {};
inline constexpr PageableHostMirror_t PageableHostMirror{};

/// Properties of an allocation (Kokkos `view_alloc(...)`): label, initialise
/// or not, construction on the host, host mirror kind. Execution space
/// instances are accepted (dualview's copies are synchronous).
struct ViewAllocProp {
  std::string label;
  bool has_label = false;
  bool initialize = true;
  bool sequential_host_init = false;
  bool pinned_host = false;
  bool pageable_host = false;
};

namespace detail {
inline void apply_prop(ViewAllocProp& p, WithoutInitializing_t) { p.initialize = false; }
inline void apply_prop(ViewAllocProp& p, SequentialHostInit_t) { p.sequential_host_init = true; }
inline void apply_prop(ViewAllocProp&, AllowPadding_t) {}
inline void apply_prop(ViewAllocProp& p, PinnedHostMirror_t) { p.pinned_host = true; }
inline void apply_prop(ViewAllocProp& p, PageableHostMirror_t) { p.pageable_host = true; }
inline void apply_prop(ViewAllocProp& p, const std::string& l) {
  p.label = l;
  p.has_label = true;
}
inline void apply_prop(ViewAllocProp& p, const char* l) { apply_prop(p, std::string(l)); }
template <class S, class = std::enable_if_t<is_space<S>::value>>
inline void apply_prop(ViewAllocProp&, const S&) {}
}  // namespace detail

/// Kokkos view_alloc: a label, WithoutInitializing, SequentialHostInit, an execution or memory space.
template <class... P>
ViewAllocProp view_alloc(const P&... p) {
  ViewAllocProp out;
  (detail::apply_prop(out, p), ...);
  return out;
}

/// Subview argument: the whole axis. `ALL` and `ALL()` both work.
struct ALL_t {
  constexpr const ALL_t& operator()() const noexcept { return *this; }
};
inline constexpr ALL_t ALL{};

/// Two values, as Kokkos::pair: a half-open range [first, second) as a
/// subview argument, and a device-callable std::pair (constructors from
/// values, from another pair and from std::pair, assignment, to_std_pair,
/// comparisons, structured bindings; `tie` makes a pair of references).
template <class T1, class T2 = T1>
struct pair {
  using first_type = T1;
  using second_type = T2;
  T1 first;
  T2 second;

  constexpr pair() = default;
  DV_INLINE_FUNCTION constexpr pair(const T1& f, const T2& s) : first(f), second(s) {}
  template <class U, class V>
  DV_INLINE_FUNCTION constexpr pair(const pair<U, V>& p) : first(p.first), second(p.second) {}
  template <class U, class V>
  pair(const std::pair<U, V>& p) : first(p.first), second(p.second) {}
  template <class U, class V>
  DV_INLINE_FUNCTION constexpr pair& operator=(const pair<U, V>& p) {
    first = p.first;
    second = p.second;
    return *this;
  }
  /// The std::pair of the same values (not a conversion operator: that would
  /// make the comparisons ambiguous, as in Kokkos).
  std::pair<T1, T2> to_std_pair() const { return std::pair<T1, T2>(first, second); }
};

template <class T1, class T2>
DV_INLINE_FUNCTION constexpr pair<T1, T2> make_pair(T1 a, T2 b) {
  return pair<T1, T2>(a, b);
}

/// A pair of references, to assign both from a returned pair (`tie(n, ok) = f();`).
template <class T1, class T2>
DV_INLINE_FUNCTION pair<T1&, T2&> tie(T1& a, T2& b) {
  return pair<T1&, T2&>(a, b);
}

template <class T1, class T2>
DV_INLINE_FUNCTION constexpr bool operator==(const pair<T1, T2>& a, const pair<T1, T2>& b) {
  return a.first == b.first && a.second == b.second;
}
template <class T1, class T2>
DV_INLINE_FUNCTION constexpr bool operator!=(const pair<T1, T2>& a, const pair<T1, T2>& b) {
  return !(a == b);
}
template <class T1, class T2>
DV_INLINE_FUNCTION constexpr bool operator<(const pair<T1, T2>& a, const pair<T1, T2>& b) {
  return a.first < b.first || (!(b.first < a.first) && a.second < b.second);
}
template <class T1, class T2>
DV_INLINE_FUNCTION constexpr bool operator<=(const pair<T1, T2>& a, const pair<T1, T2>& b) {
  return !(b < a);
}
template <class T1, class T2>
DV_INLINE_FUNCTION constexpr bool operator>(const pair<T1, T2>& a, const pair<T1, T2>& b) {
  return b < a;
}
template <class T1, class T2>
DV_INLINE_FUNCTION constexpr bool operator>=(const pair<T1, T2>& a, const pair<T1, T2>& b) {
  return !(a < b);
}

namespace detail {

template <class T, class = void>
struct is_memory_traits_impl : std::false_type {};
template <class T>
struct is_memory_traits_impl<T, std::enable_if_t<T::is_memory_traits>> : std::true_type {};
/// One template parameter, so that it binds to first_of's `template <class> class`.
template <class T>
struct is_memory_traits : is_memory_traits_impl<T> {};

/// The first of Ps satisfying Pred (void entries skipped), or Default.
template <template <class> class Pred, class Default, class... Ps>
struct first_of {
  using type = Default;
};
template <template <class> class Pred, class Default, class P, class... Ps>
struct first_of<Pred, Default, P, Ps...> {
  using type = std::conditional_t<Pred<P>::value, P, typename first_of<Pred, Default, Ps...>::type>;
};

/// Count the pointers of a type: double** -> 2, value double.
template <class T>
struct pointers {
  static constexpr std::size_t value = 0;
  using type = T;
};
template <class T>
struct pointers<T*> {
  static constexpr std::size_t value = 1 + pointers<T>::value;
  using type = typename pointers<T>::type;
};

/// Replace the value type inside a data type: rebind<double*[3], const double> = const double*[3].
template <class D, class V>
struct rebind {
  using type = V;
};
template <class D, class V>
struct rebind<D*, V> {
  using type = typename rebind<D, V>::type*;
};
template <class D, std::size_t N, class V>
struct rebind<D[N], V> {
  using type = typename rebind<D, V>::type[N];
};

/// The extents type of a data type: stars are dynamic, brackets static.
template <class Base, std::size_t Stars, class Tail>
struct extents_of_impl;
template <class Base, std::size_t Stars, std::size_t... Es>
struct extents_of_impl<Base, Stars, extents<Es...>> {
  using type = typename extents_of_impl<Base, Stars - 1, extents<dynamic_extent, Es...>>::type;
};
template <class Base, std::size_t... Es>
struct extents_of_impl<Base, 0, extents<Es...>> {
  using type = extents<Es...>;
};
template <class A, class Acc>
struct brackets;
template <class A, std::size_t... Es>
struct brackets<A, extents<Es...>> {
  using type = extents<Es...>;
};
template <class A, std::size_t N, std::size_t... Es>
struct brackets<A[N], extents<Es...>> {
  using type = typename brackets<A, extents<Es..., N>>::type;
};

/// Kokkos data types: the stars are the run-time axes (first), the brackets the static ones.
template <class DataType>
struct data_analysis {
  using base = std::remove_all_extents_t<DataType>;
  static constexpr std::size_t rank_dynamic = pointers<base>::value;
  static constexpr std::size_t rank = rank_dynamic + std::rank_v<DataType>;
  using value_type = typename pointers<base>::type;
  static_assert(rank <= DV_MAX_RANK, "dv::View: the rank of the data type exceeds 8");
  static_assert(!std::is_reference_v<value_type> && !std::is_void_v<value_type>, "dv::View: the value type must be an object type");
  using static_part = typename brackets<DataType, extents<>>::type;
  using extents_type = typename extents_of_impl<base, rank_dynamic, static_part>::type;
  static constexpr std::size_t static_extent(std::size_t r) { return extents_type::static_extent(r); }
};

template <class T>
constexpr uint32_t dtype_of() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, double>) return DV_DTYPE_FLOAT64;
  else if constexpr (std::is_same_v<U, float>) return DV_DTYPE_FLOAT32;
  else if constexpr (std::is_same_v<U, complex<double>> || std::is_same_v<U, std::complex<double>>) return DV_DTYPE_COMPLEX128;
  else if constexpr (std::is_same_v<U, complex<float>> || std::is_same_v<U, std::complex<float>>) return DV_DTYPE_COMPLEX64;
  else if constexpr (std::is_same_v<U, bool>) return DV_DTYPE_BYTES;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 1) return DV_DTYPE_INT8;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 2) return DV_DTYPE_INT16;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 4) return DV_DTYPE_INT32;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 8) return DV_DTYPE_INT64;
  else if constexpr (std::is_integral_v<U> && sizeof(U) == 1) return DV_DTYPE_UINT8;
  else if constexpr (std::is_integral_v<U> && sizeof(U) == 2) return DV_DTYPE_UINT16;
  else if constexpr (std::is_integral_v<U> && sizeof(U) == 4) return DV_DTYPE_UINT32;
  else if constexpr (std::is_integral_v<U> && sizeof(U) == 8) return DV_DTYPE_UINT64;
  else return DV_DTYPE_BYTES;
}

/// Element types whose default value is all zero bytes, so that the
/// allocation's zero fill constructs them: complex numbers, (0, 0).
template <class T>
inline constexpr bool zero_bytes_are_default_v = false;
template <class T>
inline constexpr bool zero_bytes_are_default_v<complex<T>> = true;
template <class T>
inline constexpr bool zero_bytes_are_default_v<std::complex<T>> = std::is_floating_point_v<T>;

/// Element types whose constructor must run when a View is initialised
/// (Kokkos constructs every element; for these dualview does so on the host,
/// so a device-only View of them needs WithoutInitializing).
template <class T>
inline constexpr bool needs_construction_v = !std::is_trivially_default_constructible_v<T> && !zero_bytes_are_default_v<T>;

/// Element types that may be copied and moved as bytes (resize, the device
/// image of a DualView); the others are copy-assigned element by element.
template <class T>
inline constexpr bool bitwise_v = std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>;

template <class P>
struct is_not_void : std::bool_constant<!std::is_void_v<P>> {};

}  // namespace detail

/// Kokkos ViewTraits: what a data type and properties mean. `void`
/// properties are ignored (Kokkos' four-parameter DualView).
template <class DataType, class... Props>
struct ViewTraits {
  using analysis = detail::data_analysis<DataType>;
  using data_type = DataType;
  using value_type = typename analysis::value_type;
  using const_value_type = std::add_const_t<value_type>;
  using non_const_value_type = std::remove_const_t<value_type>;
  using const_data_type = typename detail::rebind<DataType, const_value_type>::type;
  using non_const_data_type = typename detail::rebind<DataType, non_const_value_type>::type;
  using scalar_array_type = data_type;
  using const_scalar_array_type = const_data_type;
  using non_const_scalar_array_type = non_const_data_type;
  using extents_type = typename analysis::extents_type;
  using specified_space = typename detail::first_of<detail::is_space, DefaultExecutionSpace, Props...>::type;
  using execution_space = typename specified_space::execution_space;
  using memory_space = typename specified_space::memory_space;
  using device_type = Device<execution_space, memory_space>;
  using array_layout = typename detail::first_of<detail::is_layout, typename execution_space::array_layout, Props...>::type;
  using memory_traits = typename detail::first_of<detail::is_memory_traits, MemoryManaged, Props...>::type;
  /// Memory that needs no mirror mirrors itself; the rest is mirrored in HostSpace.
  using host_mirror_space = std::conditional_t<memory_space::needs_mirror, HostSpace, memory_space>;
  using size_type = std::size_t;
  static constexpr unsigned rank = static_cast<unsigned>(analysis::rank);
  static constexpr unsigned rank_dynamic = static_cast<unsigned>(analysis::rank_dynamic);
  static constexpr bool is_hostspace = std::is_same_v<memory_space, HostSpace>;
  static constexpr bool is_managed = !memory_traits::is_unmanaged;
  static constexpr bool is_random_access = memory_traits::is_random_access;
};

}  // namespace dv

#endif  // DUALVIEW_TRAITS_HPP
