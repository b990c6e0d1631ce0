/*
 * dualview/view/record.hpp: the handle record that Views and DualViews share
 * (one C handle, reference counted on the host) and its tracker, whose
 * copies on the device copy the pointer only (Kokkos' SharedAllocationRecord
 * and SharedAllocationTracker). Included by view.hpp.
 */
#ifndef DUALVIEW_VIEW_RECORD_HPP
#define DUALVIEW_VIEW_RECORD_HPP

#include <atomic>
#include <string>

#include "../error.hpp"

namespace dv {
namespace detail {

/// One C handle, shared (reference counted on the host) by every View and
/// DualView copy made from it.
struct record {
  std::atomic<long> count{1};
  dv_dualview_t* handle = nullptr;
  /// The family's sync-state byte (DV_SYNC_*), read inline by the fast paths.
  const uint8_t* sync_word = nullptr;
  /// dv_info_t.bits of the handle.
  uint32_t bits = 0;
  /// The record a subview was made from, kept alive (element destruction order).
  record* parent = nullptr;
  /// Host-side destruction of constructed elements.
  void (*destroy)(void* data, std::size_t n) = nullptr;
  void* constructed = nullptr;
  std::size_t constructed_n = 0;

  ~record();
  /// Fast paths may read the flags inline: a whole DualView, not a subview,
  /// and not checked (checked mode verifies the sides at every flag call).
  bool inline_flags() const { return (bits & (DV_INFO_SUBVIEW | DV_INFO_CHECKED)) == 0; }
};

inline void retain(record* r) {
  if (r) r->count.fetch_add(1, std::memory_order_relaxed);
}
inline void release(record* r) {
  if (r && r->count.fetch_sub(1, std::memory_order_acq_rel) == 1) delete r;
}
inline record::~record() {
  if (destroy) destroy(constructed, constructed_n);
  if (handle) {
    dv_status_t s = dv_destroy(handle);  // cannot fail for a live handle; destructors do not throw
    (void)s;
  }
  release(parent);
}

/// Host-side reference counting; copies on the device only copy the pointer.
class tracker {
 public:
  tracker() = default;
  explicit tracker(record* r) : rec_(r) {}
  DV_INLINE_FUNCTION tracker(const tracker& o) : rec_(o.rec_) { retain_here(); }
  DV_INLINE_FUNCTION tracker(tracker&& o) noexcept : rec_(o.rec_) { o.rec_ = nullptr; }
  DV_INLINE_FUNCTION tracker& operator=(const tracker& o) {
    if (this != &o) {
      o.retain_here();
      release_here();
      rec_ = o.rec_;
    }
    return *this;
  }
  DV_INLINE_FUNCTION tracker& operator=(tracker&& o) noexcept {
    if (this != &o) {
      release_here();
      rec_ = o.rec_;
      o.rec_ = nullptr;
    }
    return *this;
  }
  DV_INLINE_FUNCTION ~tracker() { release_here(); }
  DV_INLINE_FUNCTION record* get() const noexcept { return rec_; }
  long use_count() const noexcept { return rec_ ? rec_->count.load() : 0; }

 private:
  DV_INLINE_FUNCTION void retain_here() const {
#if !DV_DEVICE_CODE
    retain(rec_);
#endif
  }
  DV_INLINE_FUNCTION void release_here() {
#if !DV_DEVICE_CODE
    release(rec_);
    rec_ = nullptr;
#endif
  }
  record* rec_ = nullptr;
};

/// A record for a new handle (`parent`: the record it is a subview of).
inline tracker adopt(dv_dualview_t* h, record* parent = nullptr) {
  auto* r = new record;
  r->handle = h;
  dv_info_t info{};
  dv_status_t s = dv_info(h, &info);
  if (s == DV_OK) s = dv_sync_state_word(h, &r->sync_word);
  if (s != DV_OK) {
    std::string m = dv_last_error();
    delete r;
    raise(s, m);
  }
  r->bits = info.bits;
  r->parent = parent;
  retain(parent);
  return tracker(r);
}

}  // namespace detail
}  // namespace dv

#endif  // DUALVIEW_VIEW_RECORD_HPP
