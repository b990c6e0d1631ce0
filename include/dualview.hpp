/*
 * dualview.hpp: the typed C++17 wrapper over the dualview C ABI.
 *
 * dv::View<DataType, Props...> and dv::DualView<DataType, Props...> with
 * Kokkos' data-type syntax (T, T*, T**, T*[3], T[2][3]), layouts, memory and
 * execution spaces, the DualView typedefs and members, and free functions
 * (deep_copy, subview, resize, realloc, create_mirror_view, fence).
 * Views copy by value into CUDA kernels: operator() and the accessors are
 * __host__ __device__ under nvcc, and reference counting happens on the host
 * only. Every failing C call throws dv::error (or a subclass).
 *
 * Value semantics follow Kokkos: a copy of a DualView shares data and flags;
 * resize and realloc give the object a new allocation, and copies or views
 * taken before keep the old one (valid, never dangling).
 */
#ifndef DUALVIEW_HPP
#define DUALVIEW_HPP

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "dualview.h"

#if defined(__CUDACC__) || defined(__HIPCC__)
#define DV_INLINE_FUNCTION __host__ __device__ inline
#define DV_FUNCTION __host__ __device__
#else
#define DV_INLINE_FUNCTION inline
#define DV_FUNCTION
#endif

namespace dv {

// ============================================================================
// Errors
// ============================================================================

/// A failed dualview call: the status code and the library's message.
class error : public std::runtime_error {
 public:
  error(dv_status_t status, const std::string& message) : std::runtime_error(message), status_(status) {}
  /// The C status code.
  dv_status_t status() const noexcept { return status_; }

 private:
  dv_status_t status_;
};

/// A modify of one side while the other holds unsynced changes (Kokkos aborts).
class concurrent_modification : public error {
 public:
  using error::error;
};
/// A rank above 8.
class rank_error : public error {
 public:
  using error::error;
};
/// A wrong number of values, or a resize to another rank.
class rank_mismatch : public error {
 public:
  using error::error;
};
/// A value that contradicts a static extent.
class static_mismatch : public error {
 public:
  using error::error;
};
/// A size that overflows.
class overflow_error : public error {
 public:
  using error::error;
};
/// An axis, index or range out of range.
class out_of_range : public error {
 public:
  using error::error;
};

namespace detail {

[[noreturn]] inline void raise(dv_status_t s, const std::string& message) {
  switch (s) {
    case DV_ERROR_CONCURRENT_MODIFICATION: throw concurrent_modification(s, message);
    case DV_ERROR_RANK: throw rank_error(s, message);
    case DV_ERROR_RANK_MISMATCH: throw rank_mismatch(s, message);
    case DV_ERROR_STATIC_MISMATCH: throw static_mismatch(s, message);
    case DV_ERROR_OVERFLOW: throw overflow_error(s, message);
    case DV_ERROR_OUT_OF_RANGE: throw out_of_range(s, message);
    default: throw error(s, message);
  }
}

/// Throw for a failed status, with the thread's last error message.
inline void check(dv_status_t s) {
  if (s != DV_OK) raise(s, dv_last_error());
}

}  // namespace detail

// ============================================================================
// Extents (DESIGN.md section 2): extents<...>, dims<R>, dyn_extents
// ============================================================================

inline constexpr std::size_t dynamic_extent = static_cast<std::size_t>(-1);
inline constexpr std::size_t max_rank = DV_MAX_RANK;

namespace detail {
[[noreturn]] inline void extents_fail(dv_status_t s, const std::string& m) { raise(s, "dv::extents: " + m); }
}  // namespace detail

/// Static or mixed extents: each entry a size or dynamic_extent.
/// extents<4> is a static rank-1 extents of size 4; rank 4 at run time is dims<4>.
template <std::size_t... Es>
class extents {
  static_assert(sizeof...(Es) <= DV_MAX_RANK, "dv::extents: the rank exceeds 8");
  static constexpr std::size_t R = sizeof...(Es);
  static constexpr std::size_t RD = ((Es == dynamic_extent ? 1u : 0u) + ... + 0u);

 public:
  static constexpr std::size_t rank() noexcept { return R; }
  static constexpr std::size_t rank_dynamic() noexcept { return RD; }
  /// The static size of axis r, or dynamic_extent.
  static constexpr std::size_t static_extent(std::size_t r) noexcept {
    constexpr std::size_t s[] = {Es..., 0};
    return r < R ? s[r] : 0;
  }

  /// Dynamic entries are 0.
  constexpr extents() noexcept = default;

  /// rank_dynamic() values, or rank() values (static ones must match).
  template <class... I, class = std::enable_if_t<(sizeof...(I) > 0) && (std::is_integral_v<I> && ...)>>
  explicit extents(I... n) {
    const std::size_t v[] = {static_cast<std::size_t>(n)...};
    assign(v, sizeof...(I));
  }

  /// Checked conversion from any other extents kind.
  template <class Other, class = decltype(std::declval<const Other&>().to_c())>
  explicit extents(const Other& o) {
    *this = from_c(o.to_c());
  }

  /// The size of axis r.
  constexpr std::size_t extent(std::size_t r) const noexcept {
    if (r >= R) return 0;
    if (static_extent(r) != dynamic_extent) return static_extent(r);
    if constexpr (RD == 0) {
      return 0;
    } else {
      std::size_t k = 0;
      for (std::size_t a = 0; a < r; ++a) k += static_extent(a) == dynamic_extent ? 1 : 0;
      return k < RD ? dyn_[k] : 0;
    }
  }

  /// The C value.
  dv_extents_t to_c() const noexcept {
    dv_extents_t e{};
    e.rank = static_cast<uint32_t>(R);
    for (std::size_t r = 0; r < DV_MAX_RANK; ++r) e.extent[r] = r < R ? extent(r) : 1;
    return e;
  }

  /// From the C value, checked against the type (rank, static entries).
  static extents from_c(const dv_extents_t& e) {
    if (e.rank != R)
      detail::extents_fail(DV_ERROR_RANK_MISMATCH, "expected rank " + std::to_string(R) + ", got " + std::to_string(e.rank));
    extents out;
    std::size_t v[DV_MAX_RANK + 1] = {};
    for (std::size_t r = 0; r < R; ++r) v[r] = static_cast<std::size_t>(e.extent[r]);
    out.assign(v, R);
    return out;
  }

  /// The C description of this type: DV_MAX_RANK+1 entries is not needed; see static_extent.
 private:
  void assign(const std::size_t* v, std::size_t n) {
    if (n != R && n != RD)
      detail::extents_fail(DV_ERROR_RANK_MISMATCH, "expected " + std::to_string(R) + " extents (or " + std::to_string(RD) +
                                                       " dynamic ones), got " + std::to_string(n));
    std::size_t k = 0, j = 0;
    for (std::size_t r = 0; r < R; ++r) {
      if (static_extent(r) == dynamic_extent) {
        dyn_[k++] = v[n == R ? r : j++];
      } else if (n == R && v[r] != static_extent(r)) {
        detail::extents_fail(DV_ERROR_STATIC_MISMATCH, "extent " + std::to_string(v[r]) + " of axis " + std::to_string(r) +
                                                           " does not match the static extent " + std::to_string(static_extent(r)));
      }
    }
    dv_extents_t c = to_c();
    uint64_t size = 0;
    detail::check(dv_extents_size(&c, &size));
  }
  std::array<std::size_t, RD> dyn_{};
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
  dyn_extents() = default;
  /// The rank is the number of values.
  template <class... I, class = std::enable_if_t<(std::is_integral_v<I> && ...)>>
  explicit dyn_extents(I... n) {
    static_assert(sizeof...(I) <= DV_MAX_RANK, "dv::dyn_extents: the rank exceeds 8");
    const uint64_t v[] = {static_cast<uint64_t>(n)..., 0};
    detail::check(dv_extents_make(v, static_cast<uint32_t>(sizeof...(I)), &e_));
  }
  /// From the C value (checked).
  static dyn_extents from_c(const dv_extents_t& e) {
    dyn_extents d;
    detail::check(dv_extents_make(e.extent, e.rank, &d.e_));
    return d;
  }
  /// Widening from any extents kind.
  template <std::size_t... Es>
  dyn_extents(const extents<Es...>& o) : e_(o.to_c()) {}  // NOLINT: implicit, as mdspan
  std::size_t rank() const noexcept { return e_.rank; }
  std::size_t rank_dynamic() const noexcept { return e_.rank; }
  /// The size of axis r; throws dv::out_of_range past the rank.
  std::size_t extent(std::size_t r) const {
    if (r >= e_.rank) detail::raise(DV_ERROR_OUT_OF_RANGE, "dv::dyn_extents: axis " + std::to_string(r) + " >= rank " + std::to_string(e_.rank));
    return static_cast<std::size_t>(e_.extent[r]);
  }
  dv_extents_t to_c() const noexcept { return e_; }

 private:
  dv_extents_t e_{0, 0, {1, 1, 1, 1, 1, 1, 1, 1}};
};

/// Equality across kinds: same rank and sizes.
template <class A, class B, class = decltype(std::declval<const A&>().to_c()), class = decltype(std::declval<const B&>().to_c())>
bool operator==(const A& a, const B& b) {
  dv_extents_t x = a.to_c(), y = b.to_c();
  bool eq = false;
  detail::check(dv_extents_equal(&x, &y, &eq));
  return eq;
}
template <class A, class B, class = decltype(std::declval<const A&>().to_c()), class = decltype(std::declval<const B&>().to_c())>
bool operator!=(const A& a, const B& b) {
  return !(a == b);
}

// ============================================================================
// Layouts, spaces, memory traits
// ============================================================================

struct LayoutLeft {
  static constexpr uint32_t code = DV_LAYOUT_LEFT;
};
struct LayoutRight {
  static constexpr uint32_t code = DV_LAYOUT_RIGHT;
};
struct LayoutStride {
  static constexpr uint32_t code = DV_LAYOUT_STRIDE;
};

template <class ExecutionSpace, class MemorySpace>
struct Device {
  using execution_space = ExecutionSpace;
  using memory_space = MemorySpace;
  using device_type = Device;
};

struct HostSpace;
struct CudaSpace;
struct CudaUVMSpace;
struct CudaHostPinnedSpace;
struct TestDeviceSpace;

namespace detail {
/// What every execution space tag says: itself, its memory space, its default layout.
template <class Self, class Memory, class Layout>
struct execution_space_tag {
  using execution_space = Self;
  using memory_space = Memory;
  using array_layout = Layout;
  using device_type = Device<Self, Memory>;
  static constexpr bool is_execution_space = true;
  /// dualview's syncs wait for device work themselves; this is for Kokkos-style code.
  void fence(const std::string& = "") const {}
};

/// What every memory space tag says: its C code, whether the host reads it, its execution space.
template <class Self, uint32_t Code, bool HostAccessible, class Execution>
struct memory_space_tag {
  static constexpr uint32_t code = Code;
  static constexpr bool is_memory_space = true;
  static constexpr bool host_accessible = HostAccessible;
  using memory_space = Self;
  using execution_space = Execution;
  using device_type = Device<Execution, Self>;
};
}  // namespace detail

/// Serial host execution (the host side of every DualView); default layout LayoutRight.
struct Serial : detail::execution_space_tag<Serial, HostSpace, LayoutRight> {};
/// CUDA execution; its default layout is LayoutLeft, as in Kokkos.
struct Cuda : detail::execution_space_tag<Cuda, CudaSpace, LayoutLeft> {};
/// The test device: host code standing in for a device, so that two-space
/// semantics run on machines without a GPU. Never a default.
struct TestDevice : detail::execution_space_tag<TestDevice, TestDeviceSpace, LayoutLeft> {};

/// Host memory.
struct HostSpace : detail::memory_space_tag<HostSpace, DV_SPACE_HOST, true, Serial> {};
/// CUDA device memory.
struct CudaSpace : detail::memory_space_tag<CudaSpace, DV_SPACE_CUDA, false, Cuda> {};
/// CUDA managed memory: one allocation both sides can read.
struct CudaUVMSpace : detail::memory_space_tag<CudaUVMSpace, DV_SPACE_CUDA_UVM, true, Cuda> {};
/// Page-locked host memory.
struct CudaHostPinnedSpace : detail::memory_space_tag<CudaHostPinnedSpace, DV_SPACE_HOST_PINNED, true, Serial> {};
/// Host memory with its own allocation, playing a device (tests only): it is
/// mirrored in HostSpace like CudaSpace, yet the host may read it.
struct TestDeviceSpace : detail::memory_space_tag<TestDeviceSpace, DV_SPACE_TEST_DEVICE, false, TestDevice> {};

#if defined(__CUDACC__)
using DefaultExecutionSpace = Cuda;
#else
using DefaultExecutionSpace = Serial;
#endif
using DefaultHostExecutionSpace = Serial;

/// Memory traits (accepted for Kokkos compatibility; they change no behaviour here).
template <unsigned Flags>
struct MemoryTraits {
  static constexpr unsigned value = Flags;
  static constexpr bool is_memory_traits = true;
};
enum MemoryTraitsFlags : unsigned { Unmanaged = 0x01, RandomAccess = 0x02, Atomic = 0x04, Restrict = 0x08 };
using MemoryManaged = MemoryTraits<0>;
using MemoryUnmanaged = MemoryTraits<Unmanaged>;
using MemoryRandomAccess = MemoryTraits<RandomAccess>;

/// The argument of view_alloc(WithoutInitializing, label).
struct WithoutInitializing_t {};
inline constexpr WithoutInitializing_t WithoutInitializing{};

/// view_alloc(PinnedHostMirror, ...): the DualView's host mirror in page-locked memory (full-bandwidth transfers).
struct PinnedHostMirror_t {};
inline constexpr PinnedHostMirror_t PinnedHostMirror{};

/// Properties of an allocation: label, whether to zero-fill, pinned host mirror.
struct ViewAllocProp {
  std::string label;
  bool initialize = true;
  bool pinned_host = false;
};

namespace detail {
inline void apply_prop(ViewAllocProp& p, WithoutInitializing_t) { p.initialize = false; }
inline void apply_prop(ViewAllocProp& p, PinnedHostMirror_t) { p.pinned_host = true; }
inline void apply_prop(ViewAllocProp& p, const std::string& l) { p.label = l; }
inline void apply_prop(ViewAllocProp& p, const char* l) { p.label = l; }
template <class E, class = std::enable_if_t<E::is_execution_space>>
inline void apply_prop(ViewAllocProp&, const E&) {}
}  // namespace detail

/// Kokkos view_alloc: a label, WithoutInitializing, an execution space instance.
template <class... P>
ViewAllocProp view_alloc(const P&... p) {
  ViewAllocProp out;
  (detail::apply_prop(out, p), ...);
  return out;
}

/// Subview argument: the whole axis.
struct ALL_t {};
inline constexpr ALL_t ALL{};

// ============================================================================
// Traits
// ============================================================================

namespace detail {

template <class T, class = void>
struct is_memory_space : std::false_type {};
template <class T>
struct is_memory_space<T, std::enable_if_t<T::is_memory_space>> : std::true_type {};
template <class T, class = void>
struct is_execution_space : std::false_type {};
template <class T>
struct is_execution_space<T, std::enable_if_t<T::is_execution_space>> : std::true_type {};
template <class T>
struct is_device : std::false_type {};
template <class E, class M>
struct is_device<Device<E, M>> : std::true_type {};
template <class T, class = void>
struct is_memory_traits : std::false_type {};
template <class T>
struct is_memory_traits<T, std::enable_if_t<T::is_memory_traits>> : std::true_type {};
/// One-parameter form, for first_of (template template arguments match exactly in C++17).
template <class T>
struct is_traits : is_memory_traits<T> {};
template <class T>
struct is_layout : std::bool_constant<std::is_same_v<T, LayoutLeft> || std::is_same_v<T, LayoutRight> || std::is_same_v<T, LayoutStride>> {};
template <class T>
inline constexpr bool is_space_v = is_memory_space<T>::value || is_execution_space<T>::value || is_device<T>::value;

/// The first of Ps satisfying Pred, or Default.
template <template <class> class Pred, class Default, class... Ps>
struct first_of {
  using type = Default;
};
template <template <class> class Pred, class Default, class P, class... Ps>
struct first_of<Pred, Default, P, Ps...> {
  using type = std::conditional_t<Pred<P>::value, P, typename first_of<Pred, Default, Ps...>::type>;
};
template <class T>
struct is_space : std::bool_constant<is_space_v<T>> {};

template <class S, class = void>
struct device_of {
  using type = Device<typename S::execution_space, typename S::memory_space>;
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

/// Kokkos data types: the stars are the run-time axes (first), the brackets the static ones.
template <class DataType>
struct data_analysis {
  using base = std::remove_all_extents_t<DataType>;
  static constexpr std::size_t rank_dynamic = pointers<base>::value;
  static constexpr std::size_t rank = rank_dynamic + std::rank_v<DataType>;
  using value_type = typename pointers<base>::type;
  static_assert(rank <= DV_MAX_RANK, "dv::View: the rank of the data type exceeds 8");
  static constexpr std::size_t static_extent(std::size_t r) {
    constexpr std::size_t statics[] = {std::extent_v<DataType, 0>, std::extent_v<DataType, 1>, std::extent_v<DataType, 2>,
                                       std::extent_v<DataType, 3>, std::extent_v<DataType, 4>, std::extent_v<DataType, 5>,
                                       std::extent_v<DataType, 6>, std::extent_v<DataType, 7>};
    return r < rank_dynamic ? dynamic_extent : (r < rank ? statics[r - rank_dynamic] : 0);
  }
};

template <class T>
constexpr uint32_t dtype_of() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, double>) return DV_DTYPE_FLOAT64;
  else if constexpr (std::is_same_v<U, float>) return DV_DTYPE_FLOAT32;
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

}  // namespace detail

/// Kokkos ViewTraits: what a data type and properties mean.
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
  using specified_space = typename detail::first_of<detail::is_space, DefaultExecutionSpace, Props...>::type;
  using execution_space = typename specified_space::execution_space;
  using memory_space = typename specified_space::memory_space;
  using device_type = Device<execution_space, memory_space>;
  using array_layout = typename detail::first_of<detail::is_layout, typename execution_space::array_layout, Props...>::type;
  using memory_traits = typename detail::first_of<detail::is_traits, MemoryManaged, Props...>::type;
  /// Host-accessible memory mirrors itself; device memory is mirrored in HostSpace.
  using host_mirror_space = std::conditional_t<memory_space::host_accessible, memory_space, HostSpace>;
  using size_type = std::size_t;
  static constexpr unsigned rank = static_cast<unsigned>(analysis::rank);
  static constexpr unsigned rank_dynamic = static_cast<unsigned>(analysis::rank_dynamic);
  static constexpr bool is_hostspace = std::is_same_v<memory_space, HostSpace>;
  static constexpr bool is_managed = (memory_traits::value & Unmanaged) == 0;
  static constexpr bool is_random_access = (memory_traits::value & RandomAccess) != 0;
};

template <class DataType, class... Props>
class View;
template <class DataType, class... Props>
class DualView;

namespace detail {

/// One C handle, shared (reference counted on the host) by every View and
/// DualView copy made from it.
struct record {
  std::atomic<long> count{1};
  dv_dualview_t* handle = nullptr;
  bool single = false;
  std::string label;
  ~record() {
    if (handle) {
      dv_status_t s = dv_destroy(handle);  // cannot fail for a live handle; destructors do not throw
      (void)s;
    }
  }
};

/// Host-side reference counting; copies on the device only copy the pointer.
class tracker {
 public:
  tracker() = default;
  explicit tracker(record* r) : rec_(r) {}
  DV_INLINE_FUNCTION tracker(const tracker& o) : rec_(o.rec_) { retain(); }
  DV_INLINE_FUNCTION tracker(tracker&& o) noexcept : rec_(o.rec_) { o.rec_ = nullptr; }
  DV_INLINE_FUNCTION tracker& operator=(const tracker& o) {
    if (this != &o) {
      o.retain();
      release();
      rec_ = o.rec_;
    }
    return *this;
  }
  DV_INLINE_FUNCTION tracker& operator=(tracker&& o) noexcept {
    if (this != &o) {
      release();
      rec_ = o.rec_;
      o.rec_ = nullptr;
    }
    return *this;
  }
  DV_INLINE_FUNCTION ~tracker() { release(); }
  DV_INLINE_FUNCTION record* get() const noexcept { return rec_; }
  long use_count() const noexcept { return rec_ ? rec_->count.load() : 0; }

 private:
  DV_INLINE_FUNCTION void retain() const {
#if !defined(__CUDA_ARCH__)
    if (rec_) rec_->count.fetch_add(1, std::memory_order_relaxed);
#endif
  }
  DV_INLINE_FUNCTION void release() {
#if !defined(__CUDA_ARCH__)
    if (rec_ && rec_->count.fetch_sub(1, std::memory_order_acq_rel) == 1) delete rec_;
    rec_ = nullptr;
#endif
  }
  record* rec_ = nullptr;
};

inline tracker adopt(dv_dualview_t* h, const std::string& label) {
  auto* r = new record;
  r->handle = h;
  r->label = label;
  dv_desc_t d;
  check(dv_desc_of(h, &d));
  dv_view_info_t hv, dvi;
  check(dv_host_view(h, &hv));
  check(dv_device_view(h, &dvi));
  r->single = hv.data == dvi.data && hv.space == dvi.space;
  return tracker(r);
}

inline std::string label_of(dv_dualview_t* h) {
  std::size_t n = 0;
  check(dv_label(h, nullptr, 0, &n));
  std::string s(n + 1, '\0');
  check(dv_label(h, &s[0], s.size(), &n));
  s.resize(n);
  return s;
}

/// Extents from constructor arguments n0..n7 (the unused ones are the sentinel).
inline constexpr std::size_t ctor_default = static_cast<std::size_t>(-1);

template <class Analysis>
dv_extents_t extents_from_args(const std::size_t (&n)[8]) {
  constexpr std::size_t R = Analysis::rank, RD = Analysis::rank_dynamic;
  std::size_t given = 0;
  while (given < 8 && n[given] != ctor_default) ++given;
  if (given != R && given != RD)
    raise(DV_ERROR_RANK_MISMATCH, "dv: expected " + std::to_string(RD) + " run-time extents (or all " + std::to_string(R) +
                                      "), got " + std::to_string(given));
  dv_extents_t e{};
  e.rank = static_cast<uint32_t>(R);
  for (std::size_t r = 0; r < 8; ++r) e.extent[r] = 1;
  for (std::size_t r = 0; r < R; ++r) {
    std::size_t s = Analysis::static_extent(r);
    std::size_t v = (r < RD || given == R) ? n[r] : s;
    if (s != dynamic_extent && v != s)
      raise(DV_ERROR_STATIC_MISMATCH, "dv: extent " + std::to_string(v) + " of axis " + std::to_string(r) +
                                          " does not match the static extent " + std::to_string(s));
    e.extent[r] = v;
  }
  return e;
}

template <class Traits>
dv_desc_t desc_for(const dv_extents_t& e, uint32_t space, bool init, bool pinned_host = false) {
  dv_desc_t d{};
  using V = typename Traits::non_const_value_type;
  d.dtype = dtype_of<V>();
  if (d.dtype == DV_DTYPE_BYTES) {
    d.elem_size = static_cast<uint32_t>(sizeof(V));
    d.elem_align = static_cast<uint32_t>(alignof(V));
  }
  d.layout = Traits::array_layout::code == DV_LAYOUT_STRIDE ? DV_LAYOUT_RIGHT : Traits::array_layout::code;
  d.space = space;
  d.flags = (init ? 0u : DV_FLAG_WITHOUT_INITIALIZING) | (pinned_host ? DV_FLAG_PINNED_HOST : 0u);
  d.extents = e;
  return d;
}

}  // namespace detail

// ============================================================================
// View
// ============================================================================

/// A single-space array with Kokkos' View interface. Copies share the data.
template <class DataType, class... Props>
class View : public ViewTraits<DataType, Props...> {
  template <class, class...>
  friend class View;
  template <class, class...>
  friend class DualView;

 public:
  using traits = ViewTraits<DataType, Props...>;
  using typename traits::array_layout;
  using typename traits::const_data_type;
  using typename traits::const_value_type;
  using typename traits::data_type;
  using typename traits::device_type;
  using typename traits::execution_space;
  using typename traits::memory_space;
  using typename traits::non_const_data_type;
  using typename traits::non_const_value_type;
  using typename traits::value_type;
  using reference_type = value_type&;
  using pointer_type = value_type*;
  /// The host mirror type: same layout, host memory, non-const data, no memory traits.
  using HostMirror = View<non_const_data_type, array_layout, Device<DefaultHostExecutionSpace, typename traits::host_mirror_space>>;
  using host_mirror_type = HostMirror;
  static constexpr unsigned rank = traits::rank;
  static constexpr unsigned rank_dynamic = traits::rank_dynamic;

  DV_INLINE_FUNCTION View() {}

  /// Allocate: label and extents (the run-time ones, or all), zero-filled.
  explicit View(const std::string& label, std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default,
                std::size_t n2 = detail::ctor_default, std::size_t n3 = detail::ctor_default,
                std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
                std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default)
      : View(view_alloc(label), n0, n1, n2, n3, n4, n5, n6, n7) {}

  /// Allocate with view_alloc(label, WithoutInitializing, ...).
  explicit View(const ViewAllocProp& prop, std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default,
                std::size_t n2 = detail::ctor_default, std::size_t n3 = detail::ctor_default,
                std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
                std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default) {
    const std::size_t n[8] = {n0, n1, n2, n3, n4, n5, n6, n7};
    dv_extents_t e = detail::extents_from_args<typename traits::analysis>(n);
    dv_desc_t d = detail::desc_for<traits>(e, memory_space::code, prop.initialize);
    dv_dualview_t* h = nullptr;
    detail::check(dv_create(prop.label.c_str(), &d, &h));
    *this = View(detail::adopt(h, prop.label), memory_space::code == DV_SPACE_HOST || memory_space::host_accessible);
  }

  /// Converting copy (to const data, or between static and dynamic extents; checked).
  template <class DT, class... P,
            class = std::enable_if_t<std::is_same_v<std::remove_const_t<typename View<DT, P...>::value_type>, non_const_value_type> &&
                                     (std::is_const_v<value_type> || !std::is_const_v<typename View<DT, P...>::value_type>)>>
  View(const View<DT, P...>& o)  // NOLINT: implicit, as Kokkos
      : data_(o.data_), span_(o.span_), host_side_(o.host_side_), track_(o.track_) {
    static_assert(View<DT, P...>::rank == rank, "dv::View: converting between different ranks");
    for (std::size_t r = 0; r < 8; ++r) {
      extent_[r] = o.extent_[r];
      stride_[r] = o.stride_[r];
    }
    check_statics();
  }

  // ---- element access (host and device) ------------------------------------

  template <class... I>
  DV_INLINE_FUNCTION reference_type operator()(I... i) const {
    static_assert(sizeof...(I) == rank, "dv::View::operator(): the number of indices must equal the rank");
    return data_[offset(std::index_sequence_for<I...>{}, i...)];
  }
  /// Kokkos access(): operator() that tolerates extra trailing zero indices.
  template <class... I>
  DV_INLINE_FUNCTION reference_type access(I... i) const {
    static_assert(sizeof...(I) >= rank, "dv::View::access: too few indices");
    return data_[offset(std::index_sequence_for<I...>{}, i...)];
  }

  DV_INLINE_FUNCTION pointer_type data() const { return data_; }
  template <class iType>
  DV_INLINE_FUNCTION constexpr std::size_t extent(const iType& r) const {
    return static_cast<std::size_t>(r) < rank ? extent_[r] : 1;
  }
  template <class iType>
  DV_INLINE_FUNCTION constexpr int extent_int(const iType& r) const {
    return static_cast<int>(extent(r));
  }
  template <class iType>
  DV_INLINE_FUNCTION std::size_t stride(const iType& r) const {
    return static_cast<std::size_t>(r) < rank ? stride_[r] : 0;
  }
  /// Kokkos stride(s): the rank strides, then the span.
  template <class iType>
  void stride(iType* s) const {
    for (unsigned r = 0; r < rank; ++r) s[r] = static_cast<iType>(stride_[r]);
    s[rank] = static_cast<iType>(span_);
  }
  DV_INLINE_FUNCTION std::size_t stride_0() const { return stride(0); }
  DV_INLINE_FUNCTION std::size_t stride_1() const { return stride(1); }
  DV_INLINE_FUNCTION std::size_t stride_2() const { return stride(2); }
  DV_INLINE_FUNCTION std::size_t span() const { return span_; }
  DV_INLINE_FUNCTION std::size_t size() const {
    std::size_t n = 1;
    for (unsigned r = 0; r < rank; ++r) n *= extent_[r];
    return n;
  }
  DV_INLINE_FUNCTION bool span_is_contiguous() const { return span_ == size(); }
  DV_INLINE_FUNCTION bool is_allocated() const { return data_ != nullptr; }
  /// The label ("A", or "A_mirror" for the host side of a two-space DualView).
  std::string label() const {
    if (!track_.get()) return std::string();
    const auto* r = track_.get();
    return (host_side_ && !r->single) ? r->label + "_mirror" : r->label;
  }
  long use_count() const { return track_.use_count(); }

  /// The C handle of the DualView behind this view (nullptr when default-constructed).
  dv_dualview_t* impl_handle() const { return track_.get() ? track_.get()->handle : nullptr; }
  /// Which side of that DualView this view is (DV_SIDE_HOST or DV_SIDE_DEVICE).
  uint32_t impl_side() const { return host_side_ ? DV_SIDE_HOST : DV_SIDE_DEVICE; }

 private:
  View(detail::tracker t, bool host_side) : host_side_(host_side), track_(std::move(t)) { refresh(); }

  /// Read pointer, extents and strides of this side from the C handle.
  void refresh() {
    dv_view_info_t info;
    dv_dualview_t* h = track_.get()->handle;
    detail::check(host_side_ ? dv_host_view(h, &info) : dv_device_view(h, &info));
    if (info.rank != rank)
      detail::raise(DV_ERROR_RANK_MISMATCH, "dv::View: the DualView has rank " + std::to_string(info.rank) + ", the type " + std::to_string(rank));
    data_ = static_cast<pointer_type>(info.data);
    span_ = static_cast<std::size_t>(info.span);
    for (std::size_t r = 0; r < 8; ++r) {
      extent_[r] = static_cast<std::size_t>(info.extent[r]);
      stride_[r] = static_cast<std::size_t>(info.stride[r]);
    }
    check_statics();
  }

  void check_statics() const {
    for (unsigned r = 0; r < rank; ++r) {
      std::size_t s = traits::analysis::static_extent(r);
      if (s != dynamic_extent && s != extent_[r])
        detail::raise(DV_ERROR_STATIC_MISMATCH, "dv::View: extent " + std::to_string(extent_[r]) + " of axis " + std::to_string(r) +
                                                    " does not match the static extent " + std::to_string(s));
    }
  }

  template <std::size_t... K, class... I>
  DV_INLINE_FUNCTION std::size_t offset(std::index_sequence<K...>, I... i) const {
    return ((static_cast<std::size_t>(i) * (K < rank ? stride_[K] : 0)) + ... + std::size_t(0));
  }

  pointer_type data_ = nullptr;
  std::size_t extent_[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  std::size_t stride_[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t span_ = 0;
  bool host_side_ = true;
  detail::tracker track_;
};

/// A half-open range [first, second), as std::pair / Kokkos::pair.
template <class T>
struct pair {
  T first, second;
};

namespace detail {
inline dv_range_t range_of(ALL_t) { return {DV_ALL, 0, 0, 0}; }
template <class T, class U>
dv_range_t range_of(const std::pair<T, U>& p) {
  return {DV_RANGE, 0, static_cast<uint64_t>(p.first), static_cast<uint64_t>(p.second)};
}
template <class T>
dv_range_t range_of(const pair<T>& p) {
  return {DV_RANGE, 0, static_cast<uint64_t>(p.first), static_cast<uint64_t>(p.second)};
}
template <class I, class = std::enable_if_t<std::is_integral_v<I>>>
dv_range_t range_of(I i) {
  return {DV_INDEX, 0, static_cast<uint64_t>(i), 0};
}

template <class... Args>
dv_dualview_t* subview_handle(dv_dualview_t* src, const Args&... args) {
  if (!src) raise(DV_ERROR_INVALID_ARGUMENT, "dv::subview of an unallocated DualView");
  const dv_range_t r[] = {range_of(args)...};
  dv_dualview_t* out = nullptr;
  check(dv_subview(src, r, sizeof...(Args), &out));
  return out;
}
}  // namespace detail

// ============================================================================
// DualView
// ============================================================================

/// Kokkos DualView: a device view and its host mirror with shared modified flags.
template <class DataType, class... Props>
class DualView : public ViewTraits<DataType, Props...> {
  template <class, class...>
  friend class DualView;

 public:
  using traits = ViewTraits<DataType, Props...>;
  using typename traits::array_layout;
  using typename traits::const_data_type;
  using typename traits::data_type;
  using typename traits::device_type;
  using typename traits::execution_space;
  using typename traits::memory_space;
  using typename traits::non_const_data_type;
  using typename traits::value_type;
  using host_mirror_space = typename traits::host_mirror_space;

  using t_dev = View<DataType, Props...>;
  using t_host = typename t_dev::HostMirror;
  using t_dev_const = View<const_data_type, Props...>;
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

  /// Allocate with view_alloc(WithoutInitializing, label).
  explicit DualView(const ViewAllocProp& prop, std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default,
                    std::size_t n2 = detail::ctor_default, std::size_t n3 = detail::ctor_default,
                    std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
                    std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default) {
    const std::size_t n[8] = {n0, n1, n2, n3, n4, n5, n6, n7};
    create(prop, detail::extents_from_args<typename traits::analysis>(n));
  }

  /// Allocate from an extents object (dv::extents, dv::dims, dv::dyn_extents).
  template <class E, class = decltype(std::declval<const E&>().to_c())>
  DualView(const std::string& label, const E& e) {
    create(view_alloc(label), e.to_c());
  }

  /// Shallow, converting copy: shares data and flags (to const data: sync
  /// through the copy that would copy throws, as Kokkos).
  template <class DT, class... P,
            class = std::enable_if_t<!std::is_same_v<DualView<DT, P...>, DualView> &&
                                     std::is_same_v<std::remove_const_t<typename DualView<DT, P...>::value_type>, typename traits::non_const_value_type>>>
  DualView(const DualView<DT, P...>& src)  // NOLINT: implicit, as Kokkos
  {
    static_assert(DualView<DT, P...>::rank == rank, "dv::DualView: converting between different ranks");
    static_assert(std::is_const_v<value_type> || !std::is_const_v<typename DualView<DT, P...>::value_type>,
                  "dv::DualView: cannot drop const");
    if (!src.track_.get()) return;
    if (std::is_const_v<value_type> && !std::is_const_v<typename DualView<DT, P...>::value_type>) {
      dv_dualview_t* h = nullptr;
      detail::check(dv_clone_const(src.track_.get()->handle, &h));
      attach(detail::adopt(h, src.track_.get()->label));
    } else {
      attach(src.track_);
    }
  }

  /// Subview constructor: both views subviewed, flags shared with src.
  template <class DT, class... P, class Arg0, class... Args>
  DualView(const DualView<DT, P...>& src, const Arg0& arg0, Args... args) {
    *this = DualView(detail::subview_handle(src.impl_handle(), arg0, args...));
  }

  /// From two existing views, assumed in sync: a DualView over their memory
  /// (unmanaged; the views keep it alive), with new flags.
  DualView(const t_dev& d, const t_host& h) {
    for (unsigned r = 0; r < rank; ++r)
      if (d.extent(r) != h.extent(r) || d.stride(r) != h.stride(r))
        detail::raise(DV_ERROR_INCOMPATIBLE, "DualView constructed with incompatible views");
    dv_dualview_t* src = d.impl_handle();
    if (!src) detail::raise(DV_ERROR_INVALID_ARGUMENT, "dv::DualView: the device view is not allocated");
    dv_desc_t desc;
    detail::check(dv_desc_of(src, &desc));
    for (unsigned r = 0; r < rank; ++r) desc.strides[r] = d.stride(r);
    desc.layout = DV_LAYOUT_STRIDE;
    desc.flags = 0;
    dv_dualview_t* out = nullptr;
    detail::check(dv_wrap(d.label().c_str(), &desc, h.data(), d.data(), &out));
    attach(detail::adopt(out, d.label()));
    keep_dev_ = d;
    keep_host_ = h;
  }

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

  template <class Space>
  void modify() {
    constexpr int side = get_device_side<Space>();
    if constexpr (side == 1) modify_device();
    else if constexpr (side == 0) modify_host();
  }
  template <class Space>
  void sync() {
    constexpr int side = get_device_side<Space>();
    if constexpr (side == 1) sync_device();
    else if constexpr (side == 0) sync_host();
  }
  template <class Space, class Exec>
  void sync(const Exec&) {
    sync<Space>();
  }
  template <class Space>
  bool need_sync() const {
    constexpr int side = get_device_side<Space>();
    if constexpr (side == 1) return need_sync_device();
    else if constexpr (side == 0) return need_sync_host();
    else return false;
  }

  /// view<Space>(): d_view for the device's memory space, execution space or
  /// device type (checked first), otherwise h_view.
  template <class Space>
  auto view() const {
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

  // ---- flags -------------------------------------------------------------------

  void modify_host() { call(dv_modify_host); }
  void modify_device() { call(dv_modify_device); }
  void sync_host() { call(dv_sync_host); }
  void sync_device() { call(dv_sync_device); }
  /// Queue the copy on a CUDA stream (cudaStream_t / CUstream); flags reset at once.
  void sync_host_async(void* stream) {
    if (auto* h = impl_handle()) detail::check(dv_sync_host_async(h, stream));
  }
  void sync_device_async(void* stream) {
    if (auto* h = impl_handle()) detail::check(dv_sync_device_async(h, stream));
  }
  template <class Exec>
  void sync_host(const Exec&) {
    sync_host();
  }
  template <class Exec>
  void sync_device(const Exec&) {
    sync_device();
  }
  bool need_sync_host() const { return query(dv_need_sync_host); }
  bool need_sync_device() const { return query(dv_need_sync_device); }
  void clear_sync_state() { call(dv_clear_sync_state); }

  // ---- reallocation (a new allocation for this object; copies keep the old) ------

  void realloc(std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default, std::size_t n2 = detail::ctor_default,
               std::size_t n3 = detail::ctor_default, std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
               std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default) {
    realloc(view_alloc(), n0, n1, n2, n3, n4, n5, n6, n7);
  }
  void realloc(const ViewAllocProp& prop, std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default,
               std::size_t n2 = detail::ctor_default, std::size_t n3 = detail::ctor_default,
               std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
               std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default) {
    const std::size_t n[8] = {n0, n1, n2, n3, n4, n5, n6, n7};
    ViewAllocProp p = prop;
    if (p.label.empty() && track_.get()) p.label = track_.get()->label;
    create(p, detail::extents_from_args<typename traits::analysis>(n));
  }
  void realloc(WithoutInitializing_t, std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default,
               std::size_t n2 = detail::ctor_default, std::size_t n3 = detail::ctor_default,
               std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
               std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default) {
    realloc(view_alloc(WithoutInitializing), n0, n1, n2, n3, n4, n5, n6, n7);
  }

  /// Keep the contents of both sides (Kokkos keeps only the newer side) and the flags.
  void resize(std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default, std::size_t n2 = detail::ctor_default,
              std::size_t n3 = detail::ctor_default, std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
              std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default) {
    const std::size_t n[8] = {n0, n1, n2, n3, n4, n5, n6, n7};
    dv_extents_t e = detail::extents_from_args<typename traits::analysis>(n);
    if (!track_.get()) {
      create(view_alloc(), e);
      return;
    }
    dv_extents_t now;
    detail::check(dv_extents(impl_handle(), &now));
    bool same = false;
    detail::check(dv_extents_equal(&now, &e, &same));
    if (same) return;
    dv_dualview_t* h = nullptr;
    detail::check(dv_resized(impl_handle(), &e, &h));
    attach(detail::adopt(h, track_.get()->label));
  }
  template <class Prop, class = std::enable_if_t<std::is_same_v<Prop, ViewAllocProp> || std::is_same_v<Prop, WithoutInitializing_t>>>
  void resize(const Prop&, std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default,
              std::size_t n2 = detail::ctor_default, std::size_t n3 = detail::ctor_default,
              std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
              std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default) {
    resize(n0, n1, n2, n3, n4, n5, n6, n7);
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
  /// Transfer statistics of this DualView.
  dv_stats_t stats() const {
    dv_stats_t s{};
    if (auto* h = impl_handle()) detail::check(dv_stats(h, &s));
    return s;
  }

  /// Adopt a C handle (used by subview and the free functions).
  explicit DualView(dv_dualview_t* adopted) { attach(detail::adopt(adopted, detail::label_of(adopted))); }

 private:
  void create(const ViewAllocProp& prop, const dv_extents_t& e) {
    dv_desc_t d = detail::desc_for<traits>(e, memory_space::code, prop.initialize, prop.pinned_host);
    dv_dualview_t* h = nullptr;
    detail::check(dv_create(prop.label.c_str(), &d, &h));
    attach(detail::adopt(h, prop.label));
  }
  void attach(const detail::tracker& t) {
    track_ = t;
    d_view = t_dev(t, false);
    h_view = t_host(t, true);
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
  // Views a DualView was built from, kept alive with it.
  t_dev keep_dev_;
  t_host keep_host_;
};

// ============================================================================
// Subviews
// ============================================================================

namespace detail {
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
}  // namespace detail

/// subview(dual_view, ALL / pair / index ...): shares memory and flags.
template <class DT, class... P, class... Args>
auto subview(const DualView<DT, P...>& src, const Args&... args) {
  using T = ViewTraits<DT, P...>;
  static_assert(sizeof...(Args) == T::rank, "dv::subview: one argument per axis");
  constexpr std::size_t kept = (detail::keeps_axis<Args> + ... + 0);
  using D = typename detail::stars<typename T::value_type, kept>::type;
  return DualView<D, LayoutStride, typename T::device_type>(detail::subview_handle(src.impl_handle(), args...));
}

/// subview(view, ...): the same axes of one side.
template <class DT, class... P, class... Args>
auto subview(const View<DT, P...>& src, const Args&... args) {
  using T = ViewTraits<DT, P...>;
  static_assert(sizeof...(Args) == T::rank, "dv::subview: one argument per axis");
  constexpr std::size_t kept = (detail::keeps_axis<Args> + ... + 0);
  using D = typename detail::stars<typename T::value_type, kept>::type;
  DualView<std::remove_const_t<D>, LayoutStride, typename T::device_type> sub(detail::subview_handle(src.impl_handle(), args...));
  View<D, LayoutStride, typename T::device_type> out;
  if (src.impl_side() == DV_SIDE_HOST) {
    auto h = sub.h_view;
    out = View<D, LayoutStride, typename T::device_type>(h);
  } else {
    out = sub.d_view;
  }
  return out;
}

// ============================================================================
// Free functions
// ============================================================================

/// deep_copy(view, scalar): every element of the view (no flags).
template <class DT, class... P>
void deep_copy(const View<DT, P...>& v, const typename View<DT, P...>::const_value_type& value) {
  if (!v.impl_handle()) return;
  detail::check(dv_view_fill(v.impl_handle(), v.impl_side(), &value));
}

/// deep_copy(view, view): across spaces and layouts (no flags).
template <class DT, class... P, class ST, class... SP>
void deep_copy(const View<DT, P...>& dst, const View<ST, SP...>& src) {
  if (!dst.impl_handle() && !src.impl_handle()) return;
  if (!dst.impl_handle() || !src.impl_handle())
    detail::raise(DV_ERROR_INVALID_ARGUMENT, "dv::deep_copy: one of the views is not allocated");
  detail::check(dv_view_copy(dst.impl_handle(), dst.impl_side(), src.impl_handle(), src.impl_side()));
}

/// Kokkos deep_copy(DualView, DualView): the newer side of src into dst, dst marked.
template <class DT, class... DP, class ST, class... SP>
void deep_copy(DualView<DT, DP...>& dst, const DualView<ST, SP...>& src) {
  if (!dst.impl_handle() && !src.impl_handle()) return;
  if (!dst.impl_handle() || !src.impl_handle())
    detail::raise(DV_ERROR_INVALID_ARGUMENT, "dv::deep_copy: one of the DualViews is not allocated");
  detail::check(dv_deep_copy(dst.impl_handle(), src.impl_handle()));
}
template <class E, class DT, class... DP, class ST, class... SP>
void deep_copy(const E&, DualView<DT, DP...>& dst, const DualView<ST, SP...>& src) {
  deep_copy(dst, src);
}

template <class DT, class... P, class... N>
void resize(DualView<DT, P...>& dv, N... n) {
  dv.resize(static_cast<std::size_t>(n)...);
}
template <class DT, class... P, class... N>
void resize(WithoutInitializing_t w, DualView<DT, P...>& dv, N... n) {
  dv.resize(w, static_cast<std::size_t>(n)...);
}
template <class DT, class... P, class... N>
void realloc(DualView<DT, P...>& dv, N... n) {
  dv.realloc(static_cast<std::size_t>(n)...);
}
template <class DT, class... P, class... N>
void realloc(WithoutInitializing_t w, DualView<DT, P...>& dv, N... n) {
  dv.realloc(w, static_cast<std::size_t>(n)...);
}

/// create_mirror_view: the view itself when the host can read it, else a new host view.
template <class DT, class... P>
typename View<DT, P...>::HostMirror create_mirror_view(const View<DT, P...>& v) {
  using M = typename View<DT, P...>::HostMirror;
  if constexpr (View<DT, P...>::memory_space::host_accessible) {
    return M(v);
  } else {
    std::size_t n[8];
    for (unsigned r = 0; r < 8; ++r) n[r] = r < View<DT, P...>::rank ? v.extent(r) : detail::ctor_default;
    return M(view_alloc(v.label() + "_mirror"), n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7]);
  }
}

/// Wait for all device work (dualview's syncs already do).
inline void fence(const std::string& = "") {}

/// is_dual_view<T>
template <class T>
struct is_dual_view : std::false_type {};
template <class DT, class... P>
struct is_dual_view<DualView<DT, P...>> : std::true_type {};
template <class DT, class... P>
struct is_dual_view<const DualView<DT, P...>> : std::true_type {};
template <class T>
inline constexpr bool is_dual_view_v = is_dual_view<T>::value;

}  // namespace dv

#endif  // DUALVIEW_HPP
