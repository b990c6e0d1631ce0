/*
 * dualview/view.hpp: dv::View, Kokkos' View interface over one memory space.
 *
 * A View is a pointer, a layout mapping (only the dynamic extents, plus
 * strides for LayoutStride) and a host-side reference to a record that owns
 * a C handle. A View allocated on its own is a single-space handle: one
 * allocation (DV_FLAG_SINGLE_SPACE). A DualView's d_view / h_view share the
 * DualView's record. Copies on the device copy the pointer only.
 *
 * Element types that need construction (Kokkos constructs every element)
 * are built and destroyed on the host, in host-accessible memory; asking to
 * construct them in device-only memory is refused with a dv::error that
 * says so (a DualView builds them in its host mirror instead).
 *
 * Split as Kokkos splits it: view/record.hpp (the handle record and its
 * tracker), this file (View), view/copy_views.hpp (deep_copy, mirrors,
 * resize and realloc of Views), which it includes after View.
 */
#ifndef DUALVIEW_VIEW_HPP
#define DUALVIEW_VIEW_HPP

#include <atomic>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

#include "error.hpp"
#include "extents.hpp"
#include "layout.hpp"
#include "space.hpp"
#include "traits.hpp"
#include "view/record.hpp"

namespace dv {

template <class DataType, class... Props>
class View;
template <class DataType, class Arg1, class Arg2, class Arg3>
class DualView;

/// An access mode for DualView::host_access / device_access (the C DV_ACCESS_* values):
/// read, write and read_write sync a stale side first; overwrite discards the other
/// side's pending change (SYCL's no_init).
enum class access : uint32_t {
  read = DV_ACCESS_READ,
  write = DV_ACCESS_WRITE,
  read_write = DV_ACCESS_READ_WRITE,
  overwrite = DV_ACCESS_OVERWRITE
};
inline constexpr access read = access::read;
inline constexpr access write = access::write;
inline constexpr access read_write = access::read_write;
inline constexpr access overwrite = access::overwrite;

namespace detail {

/// The sentinel of an unused constructor extent n0..n7.
inline constexpr std::size_t ctor_default = static_cast<std::size_t>(-1);

/// Extents from constructor arguments n0..n7 (the unused ones are the
/// sentinel), by the one extents rule (extents::from_values).
template <class Analysis>
dv_extents_t extents_from_args(const std::size_t (&n)[8]) {
  std::size_t given = 0;
  while (given < 8 && n[given] != ctor_default) ++given;
  return Analysis::extents_type::from_values(n, given).to_c();
}

/// Extents (and strides, for LayoutStride) from a Kokkos layout object.
template <class Analysis, class L>
dv_extents_t extents_from_layout(const L& l) {
  std::size_t n[8];
  for (std::size_t r = 0; r < 8; ++r) n[r] = r < Analysis::rank ? l.dimension[r] : ctor_default;
  return extents_from_args<Analysis>(n);
}

/// A creation description for a View or DualView of `Traits`.
template <class Traits>
dv_desc_t desc_for(const dv_extents_t& e, const std::size_t* strides, uint32_t flags) {
  dv_desc_t d{};
  using V = typename Traits::non_const_value_type;
  d.dtype = dtype_of<V>();
  if (d.dtype == DV_DTYPE_BYTES) {
    d.elem_size = static_cast<uint32_t>(sizeof(V));
    d.elem_align = static_cast<uint32_t>(alignof(V));
  }
  d.layout = Traits::array_layout::code;
  d.space = Traits::memory_space::code;
  d.ordinal = device_id();  // host spaces ignore it
  d.flags = flags;
  d.extents = e;
  if (strides)
    for (std::size_t r = 0; r < e.rank; ++r) d.strides[r] = strides[r];
  return d;
}

/// dv_desc_t.flags (DV_FLAG_*, decoded by the core's host_of_flags in
/// src/ffi/types.rs), encoded in this one place for C++: one allocation (a
/// View, a single-device DualView: DV_FLAG_SINGLE_SPACE, no mirror to pin or
/// keep pageable), else the mirror's properties; and whether to zero-fill.
inline uint32_t desc_flags(bool one_allocation, bool zero_fill, bool pinned_host = false, bool pageable_host = false) {
  const uint32_t init = zero_fill ? 0u : DV_FLAG_WITHOUT_INITIALIZING;
  if (one_allocation) return init | DV_FLAG_SINGLE_SPACE;
  return init | (pinned_host ? DV_FLAG_PINNED_HOST : 0u) | (pageable_host ? DV_FLAG_PAGEABLE_HOST : 0u);
}

/// The flags of an allocation with view_alloc properties `p` (elements that
/// need construction are built by C++, so the core does not zero-fill them).
inline uint32_t alloc_flags(const ViewAllocProp& p, bool constructs, bool one_allocation = false) {
  return desc_flags(one_allocation, p.initialize && !constructs, p.pinned_host, p.pageable_host);
}

/// Destroy `n` elements of `T` at `data` (host memory).
template <class T>
void destroy_n(void* data, std::size_t n) {
  T* p = static_cast<T*>(data);
  for (std::size_t i = 0; i < n; ++i) p[i].~T();
}

/// Construct the `n` elements at `data` (host memory) one by one, and
/// arrange for their destruction with the record.
template <class T>
void construct_n(record* r, void* data, std::size_t n) {
  if constexpr (!std::is_default_constructible_v<T>) {
    raise(DV_ERROR_INVALID_ARGUMENT, "dv: the element type has no default constructor: allocate with view_alloc(WithoutInitializing)");
  } else {
    T* p = static_cast<T*>(data);
    std::size_t i = 0;
    try {
      for (; i < n; ++i) new (p + i) T();
    } catch (...) {
      destroy_n<T>(data, i);
      throw;
    }
    if constexpr (!std::is_trivially_destructible_v<T>) {
      r->destroy = &destroy_n<T>;
      r->constructed = data;
      r->constructed_n = n;
    }
  }
}

inline std::string label_of(dv_dualview_t* h, uint32_t side) {
  std::size_t n = 0;
  check(dv_view_label(h, side, nullptr, 0, &n));
  std::string s(n + 1, '\0');
  check(dv_view_label(h, side, &s[0], s.size(), &n));
  s.resize(n);
  return s;
}

/// A rank usable both as a value (`View::rank == 2`) and a call (`View::rank()`), as Kokkos 4.
template <unsigned N>
struct rank_constant {
  static constexpr unsigned value = N;
  DV_INLINE_FUNCTION constexpr operator unsigned() const noexcept { return N; }  // NOLINT
  DV_INLINE_FUNCTION constexpr unsigned operator()() const noexcept { return N; }
};

/// Whether `S` offers Kokkos' scratch interface: `s.get_shmem(bytes)` giving a pointer.
template <class S, class = void>
struct is_scratch_space : std::false_type {};
template <class S>
struct is_scratch_space<S, std::enable_if_t<std::is_pointer_v<decltype(std::declval<const S&>().get_shmem(std::size_t{}))>>>
    : std::true_type {};
/// Whether `S` also offers `get_shmem_aligned(bytes, alignment)` (Kokkos::ScratchMemorySpace does).
template <class S, class = void>
struct has_shmem_aligned : std::false_type {};
template <class S>
struct has_shmem_aligned<
    S, std::enable_if_t<std::is_pointer_v<decltype(std::declval<const S&>().get_shmem_aligned(std::size_t{}, std::size_t{}))>>>
    : std::true_type {};

/// `bytes` bytes of scratch space `s` aligned for `T`, within the View's
/// shmem_size (`bytes + sizeof(T)`): get_shmem_aligned(bytes, alignof(T)) when
/// `s` has it, else get_shmem(bytes + sizeof(T)) with the start rounded up to
/// alignof(T) (<= sizeof(T), so the rounding stays within the request).
template <class T, class S>
DV_INLINE_FUNCTION void* scratch_chunk(const S& s, std::size_t bytes) {
  if constexpr (has_shmem_aligned<S>::value) {
    return static_cast<void*>(s.get_shmem_aligned(bytes, alignof(T)));
  } else {
    void* raw = static_cast<void*>(s.get_shmem(bytes + sizeof(T)));
    if (!raw) return nullptr;
    const std::uintptr_t a = alignof(T);
    return reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(raw) + a - 1) & ~(a - 1));
  }
}

}  // namespace detail

/// A single-space array with Kokkos' View interface. Copies share the data.
template <class DataType, class... Props>
class View : public ViewTraits<DataType, Props...> {
  template <class, class...>
  friend class View;
  template <class, class, class, class>
  friend class DualView;

 public:
  using traits = ViewTraits<DataType, Props...>;
  using typename traits::array_layout;
  using typename traits::const_data_type;
  using typename traits::const_value_type;
  using typename traits::data_type;
  using typename traits::device_type;
  using typename traits::execution_space;
  using typename traits::extents_type;
  using typename traits::memory_space;
  using typename traits::memory_traits;
  using typename traits::non_const_data_type;
  using typename traits::non_const_value_type;
  using typename traits::value_type;
  using reference_type = value_type&;
  using pointer_type = value_type*;
  using element_type = value_type;
  using mapping_type = detail::mapping<array_layout, extents_type>;
  /// The host mirror type: same layout, host-reachable memory, non-const data, no memory traits.
  /// Kokkos' HostMirror keeps the execution space when the host runs it (Serial, and
  /// Kokkos::OpenMP / Threads / HPX) and the memory needs no mirror; otherwise the default host space.
  using HostMirror = View<non_const_data_type, array_layout,
                          Device<std::conditional_t<std::is_same_v<typename traits::execution_space::memory_space, HostSpace> &&
                                                        std::is_same_v<typename traits::host_mirror_space, memory_space>,
                                                    typename traits::execution_space, DefaultHostExecutionSpace>,
                                 typename traits::host_mirror_space>>;
  using host_mirror_type = HostMirror;
  using type = View<data_type, array_layout, device_type, memory_traits>;
  using const_type = View<const_data_type, array_layout, device_type, memory_traits>;
  using non_const_type = View<non_const_data_type, array_layout, device_type, memory_traits>;
  using uniform_type = type;
  static constexpr detail::rank_constant<traits::rank> rank{};
  static constexpr detail::rank_constant<traits::rank_dynamic> rank_dynamic{};

  DV_INLINE_FUNCTION View() {}

  /// Allocate: label and extents (the run-time ones, or all), zero-filled.
  explicit View(const std::string& label, std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default,
                std::size_t n2 = detail::ctor_default, std::size_t n3 = detail::ctor_default,
                std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
                std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default)
      : View(view_alloc(label), n0, n1, n2, n3, n4, n5, n6, n7) {}
  explicit View(const char* label, std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default,
                std::size_t n2 = detail::ctor_default, std::size_t n3 = detail::ctor_default,
                std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
                std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default)
      : View(view_alloc(std::string(label)), n0, n1, n2, n3, n4, n5, n6, n7) {}

  /// Allocate with view_alloc(label, WithoutInitializing, SequentialHostInit, ...).
  explicit View(const ViewAllocProp& prop, std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default,
                std::size_t n2 = detail::ctor_default, std::size_t n3 = detail::ctor_default,
                std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
                std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default) {
    const std::size_t n[8] = {n0, n1, n2, n3, n4, n5, n6, n7};
    allocate(prop, detail::extents_from_args<typename traits::analysis>(n), nullptr);
  }

  /// Allocate from a layout object: `View(label, LayoutLeft(n0, n1))`, `LayoutStride(n0, s0, ...)`.
  template <class L, class = std::enable_if_t<detail::is_layout<L>::value>>
  View(const std::string& label, const L& layout) : View(view_alloc(label), layout) {}
  template <class L, class = std::enable_if_t<detail::is_layout<L>::value>>
  View(const ViewAllocProp& prop, const L& layout) {
    static_assert(std::is_same_v<L, array_layout>, "dv::View: the layout argument must be the View's array_layout");
    if constexpr (std::is_same_v<L, LayoutStride>) {
      allocate(prop, detail::extents_from_layout<typename traits::analysis>(layout), layout.stride);
    } else {
      allocate(prop, detail::extents_from_layout<typename traits::analysis>(layout), nullptr);
    }
  }

  /// An unmanaged View over `ptr` (memory the caller owns, in this View's
  /// memory space): Kokkos `View<T*, MemoryTraits<Unmanaged>>(ptr, n)`.
  template <class P, class = std::enable_if_t<std::is_convertible_v<P, pointer_type> && !std::is_same_v<std::decay_t<P>, std::string> &&
                                              !std::is_same_v<std::decay_t<P>, const char*> && !std::is_same_v<std::decay_t<P>, char*>>>
  View(P ptr, std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default, std::size_t n2 = detail::ctor_default,
       std::size_t n3 = detail::ctor_default, std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
       std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default) {
    static_assert(!std::is_same_v<array_layout, LayoutStride>, "dv::View: an unmanaged LayoutStride View needs a LayoutStride argument");
    const std::size_t n[8] = {n0, n1, n2, n3, n4, n5, n6, n7};
    wrap(static_cast<pointer_type>(ptr), detail::extents_from_args<typename traits::analysis>(n), nullptr);
  }
  /// An unmanaged View over `ptr` with a layout object.
  template <class L, class = std::enable_if_t<detail::is_layout<L>::value>>
  View(pointer_type ptr, const L& layout) {
    static_assert(std::is_same_v<L, array_layout>, "dv::View: the layout argument must be the View's array_layout");
    const std::size_t* s = nullptr;
    if constexpr (std::is_same_v<L, LayoutStride>) s = layout.stride;
    wrap(ptr, detail::extents_from_layout<typename traits::analysis>(layout), s);
  }

  /// A View over team scratch memory: `View(team.team_scratch(0), n0, ...)`,
  /// from any object with Kokkos' scratch interface (`get_shmem(bytes)`, e.g.
  /// Kokkos::ScratchMemorySpace). It takes shmem_size(n0, ...) bytes of that
  /// space and is unmanaged: no handle, no label, no reference count
  /// (deep_copy refuses it; copy its elements in the kernel). Extents by the
  /// constructors' rule (all rank() sizes or the run-time ones). On the host a
  /// space that cannot give the bytes raises dv::error.
  template <class S, class = std::enable_if_t<detail::is_scratch_space<S>::value>>
  DV_INLINE_FUNCTION View(const S& space, std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default,
                          std::size_t n2 = detail::ctor_default, std::size_t n3 = detail::ctor_default,
                          std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
                          std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default) {
    static_assert(!std::is_same_v<array_layout, LayoutStride>, "dv::View: a scratch View has LayoutLeft or LayoutRight");
    const std::size_t n[8] = {n0, n1, n2, n3, n4, n5, n6, n7};
    map_ = mapping_type(scratch_extents(n));
    scratch_take(space);
  }
  /// A View over team scratch memory with a layout object (LayoutLeft or LayoutRight).
  template <class S, class L, class = std::enable_if_t<detail::is_scratch_space<S>::value && detail::is_layout<L>::value>>
  DV_INLINE_FUNCTION View(const S& space, const L& layout) {
    static_assert(std::is_same_v<L, array_layout> && !std::is_same_v<L, LayoutStride>,
                  "dv::View: the layout argument of a scratch View must be its array_layout, LayoutLeft or LayoutRight");
    std::size_t n[8];
    for (std::size_t r = 0; r < 8; ++r) n[r] = r < rank ? layout.dimension[r] : detail::ctor_default;
    map_ = mapping_type(scratch_extents(n));
    scratch_take(space);
  }

  /// Kokkos View::shmem_size(n0, ...): the bytes a scratch View of these
  /// extents takes: its span in bytes plus sizeof(value_type) for alignment.
  /// The extents are all rank() sizes or the run-time ones, as the constructors'.
  DV_INLINE_FUNCTION static std::size_t shmem_size(std::size_t n0 = detail::ctor_default, std::size_t n1 = detail::ctor_default,
                                                   std::size_t n2 = detail::ctor_default, std::size_t n3 = detail::ctor_default,
                                                   std::size_t n4 = detail::ctor_default, std::size_t n5 = detail::ctor_default,
                                                   std::size_t n6 = detail::ctor_default, std::size_t n7 = detail::ctor_default) {
    static_assert(!std::is_same_v<array_layout, LayoutStride>, "dv::View::shmem_size: LayoutLeft or LayoutRight");
    const std::size_t n[8] = {n0, n1, n2, n3, n4, n5, n6, n7};
    return mapping_type(scratch_extents(n)).required_span_size() * sizeof(value_type) + sizeof(value_type);
  }
  /// shmem_size of a layout object.
  template <class L, class = std::enable_if_t<detail::is_layout<L>::value>>
  DV_INLINE_FUNCTION static std::size_t shmem_size(const L& layout) {
    static_assert(std::is_same_v<L, array_layout> && !std::is_same_v<L, LayoutStride>,
                  "dv::View::shmem_size: the layout argument must be the View's array_layout, LayoutLeft or LayoutRight");
    std::size_t n[8];
    for (std::size_t r = 0; r < 8; ++r) n[r] = r < rank ? layout.dimension[r] : detail::ctor_default;
    return shmem_size(n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7]);
  }

  /// Converting copy: to const data, between static and dynamic extents, to
  /// another layout with the same addressing (checked), to unmanaged traits.
  template <class DT, class... P,
            class = std::enable_if_t<!std::is_same_v<View<DT, P...>, View> &&
                                     std::is_same_v<typename View<DT, P...>::non_const_value_type, non_const_value_type> &&
                                     (std::is_const_v<value_type> || !std::is_const_v<typename View<DT, P...>::value_type>)>>
  View(const View<DT, P...>& o)  // NOLINT: implicit, as Kokkos
      : data_(o.data_), track_(o.track_), side_(o.side_) {
    using O = View<DT, P...>;
    static_assert(O::rank == rank, "dv::View: converting between different ranks");
    static_assert(std::is_same_v<typename O::memory_space, memory_space> || std::is_same_v<memory_space, AnonymousSpace>,
                  "dv::View: converting between memory spaces (AnonymousSpace takes any)");
    std::size_t s[DV_MAX_RANK + 1] = {};
    std::size_t e[DV_MAX_RANK + 1] = {};
    for (std::size_t r = 0; detail::below(r, rank); ++r) {
      s[r] = o.map_.stride(r);
      e[r] = o.map_.extent(r);
    }
    set_mapping(e, s);
  }

  // ---- element access (host and device) ------------------------------------

  template <class... I>
  DV_INLINE_FUNCTION reference_type operator()(I... i) const {
    static_assert(sizeof...(I) == rank, "dv::View::operator(): the number of indices must equal the rank");
    return data_[map_(i...)];
  }
  /// Rank-1 access by [].
  template <class I>
  DV_INLINE_FUNCTION reference_type operator[](I i) const {
    static_assert(rank == 1, "dv::View::operator[]: rank-1 views only");
    return data_[map_(i)];
  }
  /// Kokkos access(): operator() that tolerates extra trailing zero indices.
  template <class... I>
  DV_INLINE_FUNCTION reference_type access(I... i) const {
    static_assert(sizeof...(I) >= rank, "dv::View::access: too few indices");
    return data_[map_(i...)];
  }

  DV_INLINE_FUNCTION pointer_type data() const { return data_; }
  template <class iType>
  DV_INLINE_FUNCTION constexpr std::size_t extent(const iType& r) const {
    return detail::below(static_cast<std::size_t>(r), rank) ? map_.extent(static_cast<std::size_t>(r)) : 1;
  }
  template <class iType>
  DV_INLINE_FUNCTION constexpr int extent_int(const iType& r) const {
    return static_cast<int>(extent(r));
  }
  DV_INLINE_FUNCTION static constexpr std::size_t static_extent(unsigned r) { return extents_type::static_extent(r); }
  template <class iType>
  DV_INLINE_FUNCTION std::size_t stride(const iType& r) const {
    return static_cast<std::size_t>(r) < rank ? map_.stride(static_cast<std::size_t>(r)) : 0;
  }
  /// Kokkos stride(s): the rank strides, then the span.
  template <class iType>
  DV_INLINE_FUNCTION void stride(iType* s) const {
    for (unsigned r = 0; r < rank; ++r) s[r] = static_cast<iType>(map_.stride(r));
    s[rank] = static_cast<iType>(span());
  }
  DV_INLINE_FUNCTION std::size_t stride_0() const { return stride(0); }
  DV_INLINE_FUNCTION std::size_t stride_1() const { return stride(1); }
  DV_INLINE_FUNCTION std::size_t stride_2() const { return stride(2); }
  DV_INLINE_FUNCTION std::size_t stride_3() const { return stride(3); }
  DV_INLINE_FUNCTION std::size_t span() const { return map_.required_span_size(); }
  DV_INLINE_FUNCTION std::size_t size() const { return map_.size(); }
  DV_INLINE_FUNCTION bool span_is_contiguous() const { return span() == size(); }
  DV_INLINE_FUNCTION bool is_allocated() const { return data_ != nullptr; }
  /// The extents object (only its dynamic sizes are stored).
  DV_INLINE_FUNCTION const extents_type& extents() const { return map_.extents(); }
  DV_INLINE_FUNCTION const mapping_type& impl_map() const { return map_; }
  /// Kokkos layout(): the layout object with the extents (and strides).
  array_layout layout() const {
    array_layout l;
    for (unsigned r = 0; r < rank; ++r) l.dimension[r] = extent(r);
    if constexpr (std::is_same_v<array_layout, LayoutStride>)
      for (unsigned r = 0; r < rank; ++r) l.stride[r] = stride(r);
    return l;
  }
  /// The label ("A", or "A_mirror" for the host side of a two-space DualView).
  std::string label() const { return track_.get() ? detail::label_of(track_.get()->handle, side_) : std::string(); }
  long use_count() const { return track_.use_count(); }

  /// The C handle behind this view (nullptr when default-constructed).
  dv_dualview_t* impl_handle() const { return track_.get() ? track_.get()->handle : nullptr; }
  /// Which side of that handle this view is (DV_SIDE_HOST or DV_SIDE_DEVICE).
  uint32_t impl_side() const { return side_; }
  /// The record (host-side owner) behind this view.
  detail::record* impl_record() const { return track_.get(); }
  /// A view of `side` of C handle `h`, which the view adopts (`parent`: the
  /// record `h` was made from, kept alive with it).
  static View impl_adopt(dv_dualview_t* h, uint32_t side, detail::record* parent = nullptr) {
    return View(detail::adopt(h, parent), side);
  }

  /// Kokkos View equality: same data, extents and strides.
  template <class DT, class... P>
  friend bool operator==(const View& a, const View<DT, P...>& b) {
    if (static_cast<const void*>(a.data()) != static_cast<const void*>(b.data()) || a.rank != View<DT, P...>::rank) return false;
    for (unsigned r = 0; r < a.rank; ++r)
      if (a.extent(r) != b.extent(r) || (a.extent(r) > 1 && a.stride(r) != b.stride(r))) return false;
    return true;
  }
  template <class DT, class... P>
  friend bool operator!=(const View& a, const View<DT, P...>& b) {
    return !(a == b);
  }

 private:
  /// The view of one side of a handle.
  View(detail::tracker t, uint32_t side) : track_(std::move(t)), side_(static_cast<uint8_t>(side)) { refresh(); }

  /// Read pointer, extents and strides of this side from the C handle.
  void refresh() {
    dv_view_info_t info;
    dv_dualview_t* h = track_.get()->handle;
    detail::check(side_ == DV_SIDE_HOST ? dv_host_view(h, &info) : dv_device_view(h, &info));
    if (info.rank != rank)
      detail::raise(DV_ERROR_RANK_MISMATCH, "dv::View: the DualView has rank " + std::to_string(info.rank) + ", the type " + std::to_string(rank));
    data_ = static_cast<pointer_type>(info.data);
    std::size_t e[DV_MAX_RANK + 1] = {}, s[DV_MAX_RANK + 1] = {};
    for (std::size_t r = 0; detail::below(r, rank); ++r) {
      e[r] = info.extent[r];
      s[r] = info.stride[r];
    }
    set_mapping(e, s);
  }

  /// Adopt extents `e` and strides `s`, checking the static extents and that
  /// the strides address elements as this View's layout does.
  void set_mapping(const std::size_t* e, const std::size_t* s) {
    const auto ext = extents_type::from_values(e, rank);  // the static extents checked by the extents rule
    if constexpr (std::is_same_v<array_layout, LayoutStride>) {
      map_ = mapping_type(ext, s);
    } else {
      map_ = mapping_type(ext);
      if (!detail::addresses_like(map_, s))
        detail::raise(DV_ERROR_INCOMPATIBLE, "View assignment must have compatible layouts: the strides do not fit " +
                                                 std::string(std::is_same_v<array_layout, LayoutLeft> ? "LayoutLeft" : "LayoutRight"));
    }
  }

  /// The extents of constructor arguments n0..n7 for a scratch View: checked
  /// by the extents rule on the host, taken as given in device code.
  DV_INLINE_FUNCTION static extents_type scratch_extents(const std::size_t (&n)[8]) {
#if !DV_DEVICE_CODE
    const dv_extents_t e = detail::extents_from_args<typename traits::analysis>(n);
    std::size_t full[DV_MAX_RANK + 1] = {};
    for (std::size_t r = 0; r < rank; ++r) full[r] = e.extent[r];
    return extents_type::from_values_unchecked(full);
#else
    std::size_t given = 0;
    while (given < 8 && n[given] != detail::ctor_default) ++given;
    std::size_t full[DV_MAX_RANK + 1] = {};
    for (std::size_t r = 0, k = 0; r < rank; ++r) {
      const std::size_t st = extents_type::static_extent(r);
      full[r] = (given == rank || st == dynamic_extent) ? n[given == rank ? r : k++] : st;
    }
    return extents_type::from_values_unchecked(full);
#endif
  }
  /// Point this (already mapped) View at its bytes of scratch space `space`.
  template <class S>
  DV_INLINE_FUNCTION void scratch_take(const S& space) {
    const std::size_t bytes = map_.required_span_size() * sizeof(value_type);
    data_ = static_cast<pointer_type>(detail::scratch_chunk<value_type>(space, bytes));
#if !DV_DEVICE_CODE
    if (!data_)
      detail::raise(DV_ERROR_INVALID_ARGUMENT, "dv::View: the scratch space cannot give the " + std::to_string(bytes + sizeof(value_type)) +
                                                   " bytes of shmem_size (a larger team scratch size is needed)");
#endif
  }

  void allocate(const ViewAllocProp& prop, const dv_extents_t& e, const std::size_t* strides) {
    static_assert(!std::is_same_v<memory_space, AnonymousSpace>, "dv::View: an AnonymousSpace View views memory, it allocates none");
    constexpr bool constructs = detail::needs_construction_v<non_const_value_type>;
    const bool construct = constructs && (prop.initialize || prop.sequential_host_init);
    if (construct && !memory_space::host_accessible)
      detail::raise(DV_ERROR_INVALID_ARGUMENT,
                    "dv::View: this element type needs its constructor run, which dualview does on the host, and " +
                        std::string(memory_space::name()) +
                        " memory cannot be reached from the host: use a DualView (elements are built in the host mirror), a "
                        "host-accessible space, or view_alloc(WithoutInitializing)");
    dv_desc_t d = detail::desc_for<traits>(e, strides, detail::alloc_flags(prop, constructs, true));
    dv_dualview_t* h = nullptr;
    detail::check(dv_create(prop.label.c_str(), &d, &h), "dv::View");
    *this = View(detail::adopt(h), DV_SIDE_DEVICE);
    if constexpr (constructs && memory_space::host_accessible) {
      if (construct) detail::construct_n<non_const_value_type>(track_.get(), const_cast<non_const_value_type*>(data_), span());
    }
  }

  void wrap(pointer_type ptr, const dv_extents_t& e, const std::size_t* strides) {
    std::size_t ext[DV_MAX_RANK + 1] = {}, s[DV_MAX_RANK + 1] = {};
    for (std::size_t r = 0; r < rank; ++r) ext[r] = e.extent[r];
    if (!ptr) {
      // Kokkos allows View(nullptr, n): an empty, unallocated view of those extents.
      auto st = dv::strides(extents_type::from_values_unchecked(ext), std::is_same_v<array_layout, LayoutLeft>);
      for (std::size_t r = 0; r < rank; ++r) s[r] = strides ? strides[r] : st[r];
      set_mapping(ext, s);
      return;
    }
    dv_desc_t d = detail::desc_for<traits>(e, strides, detail::desc_flags(true, true));
    dv_dualview_t* h = nullptr;
    detail::check(dv_wrap("", &d, const_cast<non_const_value_type*>(ptr), nullptr, &h), "dv::View");
    *this = View(detail::adopt(h), DV_SIDE_DEVICE);
  }

  pointer_type data_ = nullptr;
  mapping_type map_{};
  detail::tracker track_;
  uint8_t side_ = DV_SIDE_DEVICE;
};

/// Kokkos::is_view
template <class T>
struct is_view : std::false_type {};
template <class DT, class... P>
struct is_view<View<DT, P...>> : std::true_type {};
template <class DT, class... P>
struct is_view<const View<DT, P...>> : std::true_type {};
template <class T>
inline constexpr bool is_view_v = is_view<T>::value;

}  // namespace dv

#include "view/copy_views.hpp"

#endif  // DUALVIEW_VIEW_HPP
