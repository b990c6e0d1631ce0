/*
 * <dualview/with_kokkos/record.hpp>: managed Kokkos::Views over dualview's
 * blocks (part of <dualview/with_kokkos.hpp>; docs/DECISIONS.md K7).
 *
 * A View made here is an ordinary managed Kokkos::View whose allocation
 * record is ours: it holds one side's block by token (`dv_block_hold`) and
 * releases it (`dv_block_release`) when Kokkos drops its last reference, so a
 * replaced block lives exactly as long as some View of it, as in Kokkos.
 * Kokkos' `Impl` names used, all present from 3.4 to 4.6 and in the
 * mdspan-based View of Kokkos' development branch:
 *
 * | name | what for |
 * | --- | --- |
 * | `SharedAllocationRecord<void, void>` | the base: its protected constructor (with a root record under `KOKKOS_ENABLE_DEBUG`; with a label from 3.5), its `function_type` deallocation hook, virtual `get_label` |
 * | `SharedAllocationRecord<Tag, void>` | ours is its specialization for a tag of ours, so Kokkos' friend declarations give it the header's fields |
 * | `SharedAllocationHeader` | the label Kokkos' debug listing and error messages print |
 * | `SharedAllocationTracker::assign_allocated_record_to_uninitialized` | hands the record to a tracker |
 * | `View(track, map)`; `View(data_handle_type(track, ptr), mapping)` | a View from tracker and mapping (legacy View; mdspan-based View) |
 */
#ifndef DUALVIEW_WITH_KOKKOS_RECORD_HPP
#define DUALVIEW_WITH_KOKKOS_RECORD_HPP

#include <Kokkos_Core.hpp>
#include <dualview.hpp>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace dv {
namespace with_kokkos {
namespace detail {
/// The tag of Kokkos' allocation record over a dualview block.
struct block_tag {};
}  // namespace detail
}  // namespace with_kokkos
}  // namespace dv

namespace Kokkos {
namespace Impl {
/// Kokkos' allocation record over one side's block of a dualview DualView:
/// holds the block by token and releases it with the record.
template <>
class SharedAllocationRecord<dv::with_kokkos::detail::block_tag, void> : public SharedAllocationRecord<void, void> {
  using base = SharedAllocationRecord<void, void>;

 public:
  /// Bytes of replaced blocks that Views still hold, shared by a DualView's records.
  using ledger = std::atomic<std::size_t>;

  /// A record over `bytes` bytes holding `token` (released with it), use count 0.
  static SharedAllocationRecord* make(std::uint64_t token, std::size_t bytes, const std::string& label,
                                      std::shared_ptr<ledger> book) {
    return new SharedAllocationRecord(token, bytes, label, std::move(book));
  }
  std::string get_label() const override { return label_; }
  /// Our record behind a View, or nullptr (a View of another allocation).
  template <class V>
  static SharedAllocationRecord* of(const V& v) {
    // The base type, not the View's space's record type: ours derives from the base alone.
    base* r = v.impl_track().template get_record<void>();
    return r ? dynamic_cast<SharedAllocationRecord*>(r) : nullptr;
  }
  /// The DualView moved on to another block: this one now counts in its ledger while Views hold it.
  void retire() {
    if (!retired_.exchange(true)) *book_ += bytes_;
  }

 private:
  SharedAllocationRecord(std::uint64_t token, std::size_t bytes, const std::string& label, std::shared_ptr<ledger> book)
      : base(
#ifdef KOKKOS_ENABLE_DEBUG
            root(),
#endif
            &header_, sizeof(SharedAllocationHeader) + bytes, &release
#if KOKKOS_VERSION >= 30500
            ,
            label
#endif
            ),
        token_(token),
        bytes_(bytes),
        label_(label),
        book_(std::move(book)) {
    header_.m_record = this;
    std::strncpy(header_.m_label, label.c_str(), SharedAllocationHeader::maximum_label_length - 1);
  }
  ~SharedAllocationRecord() override {
    if (retired_) *book_ -= bytes_;
    const dv_status_t s = dv_block_release(token_);  // cannot fail for our own live token; destructors do not throw
    (void)s;
  }
  /// Kokkos' deallocation hook: called once, when the use count drops to 0.
  static void release(base* r) { delete static_cast<SharedAllocationRecord*>(r); }
#ifdef KOKKOS_ENABLE_DEBUG
  /// The root of these records' list (a debug build links every record into one); never freed,
  /// so that a View destroyed during static destruction still finds it.
  static base* root() {
    static base* r = new base();
    return r;
  }
#endif

  /// Where Kokkos reads the label (the block itself lives in dualview's memory).
  SharedAllocationHeader header_{};
  std::uint64_t token_;
  std::size_t bytes_;
  std::string label_;
  std::shared_ptr<ledger> book_;
  std::atomic<bool> retired_{false};
};
}  // namespace Impl
}  // namespace Kokkos

namespace dv {
namespace with_kokkos {
namespace detail {

/// Whether View type `V` is Kokkos' mdspan-based View (a data handle that carries the tracker).
template <class V, class = void>
struct has_data_handle : std::false_type {};
template <class V>
struct has_data_handle<V, std::void_t<typename V::data_handle_type>>
    : std::is_constructible<typename V::data_handle_type, const Kokkos::Impl::SharedAllocationTracker&,
                            typename V::pointer_type> {};

/// The unmanaged View type with `V`'s data type, layout and device.
template <class V>
using unmanaged_t = Kokkos::View<typename V::data_type, typename V::array_layout, typename V::device_type, Kokkos::MemoryUnmanaged>;

/// An unmanaged Kokkos View of type `U` over `ptr` with the extents of the dualview view `side`.
template <class U, class P, class S, std::size_t... I>
U unmanaged(P* ptr, const S& side, std::index_sequence<I...>) {
  // The run-time extents only (they come first); Kokkos 3 refuses the static ones.
  return U(ptr, (I < U::traits::rank_dynamic ? side.extent(I) : KOKKOS_IMPL_CTOR_DEFAULT_ARG)...);
}

/// A managed Kokkos View of type `V` over side `which` (DV_SIDE_*) of the DualView `h`,
/// whose current view there is `side`: the View holds that block until its last copy goes
/// (counted in `book` once it is retired).
template <class V, class S>
V held_view(dv_dualview_t* h, std::uint32_t which, const S& side, std::shared_ptr<std::atomic<std::size_t>> book) {
  using U = unmanaged_t<V>;
  using record = Kokkos::Impl::SharedAllocationRecord<block_tag, void>;
  const U um = unmanaged<U>(side.data(), side, std::make_index_sequence<8>());
  std::uint64_t token = 0;
  dv::detail::check(dv_block_hold(h, which, &token));
  record* r = nullptr;
  try {
    r = record::make(token, um.span() * sizeof(typename V::value_type), side.label(), std::move(book));
  } catch (...) {
    const dv_status_t s = dv_block_release(token);
    (void)s;
    throw;
  }
  Kokkos::Impl::SharedAllocationTracker track;
  track.assign_allocated_record_to_uninitialized(r);
  if constexpr (has_data_handle<V>::value) return V(typename V::data_handle_type(track, um.data()), um.mapping());
  else return V(track, um.impl_map());
}

}  // namespace detail
}  // namespace with_kokkos
}  // namespace dv

#endif  // DUALVIEW_WITH_KOKKOS_RECORD_HPP
