/*
 * dualview/error.hpp: every failing call throws a subclass of dv::error, one
 * per C status (dv::error_for<S>::type; docs/CPP.md has the table). Define
 * DUALVIEW_ABORT_ON_ERROR to print the message and abort instead, as Kokkos
 * does (docs/CPP.md).
 */
#ifndef DUALVIEW_ERROR_HPP
#define DUALVIEW_ERROR_HPP

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "config.hpp"

namespace dv {

/// A failed dualview call: the status code and the library's message.
class error : public std::runtime_error {
 public:
  error(dv_status_t status, const std::string& message) : std::runtime_error(message), status_(status) {}
  /// The C status code (a DV_ERROR_* value of dualview.h); each subclass
  /// below is thrown for exactly one code, so status() and the dynamic type agree.
  dv_status_t status() const noexcept { return status_; }

 private:
  dv_status_t status_;
};

/// DV_ERROR_NULL_ARGUMENT: A required pointer argument was NULL.
class null_argument : public error {
 public:
  using error::error;
};
/// DV_ERROR_INVALID_ARGUMENT: A malformed argument: an unknown enum value, bad strides or element size, a write through a const handle.
class invalid_argument : public error {
 public:
  using error::error;
};
/// DV_ERROR_INVALID_HANDLE: A destroyed, never-created or foreign C handle.
class invalid_handle : public error {
 public:
  using error::error;
};
/// DV_ERROR_RANK: A rank above 8.
class rank_error : public error {
 public:
  using error::error;
};
/// DV_ERROR_OUT_OF_RANGE: An axis, index or range out of range.
class out_of_range : public error {
 public:
  using error::error;
};
/// DV_ERROR_OVERFLOW: A size that overflows.
class overflow_error : public error {
 public:
  using error::error;
};
/// DV_ERROR_OUT_OF_MEMORY: An allocation failed (host or device); nothing was changed.
class out_of_memory : public error {
 public:
  using error::error;
};
/// DV_ERROR_CONCURRENT_MODIFICATION: A modify of one side while the other holds unsynced changes (Kokkos aborts).
class concurrent_modification : public error {
 public:
  using error::error;
};
/// DV_ERROR_CONST_SYNC: A sync through a const DualView that would have to copy.
class const_sync : public error {
 public:
  using error::error;
};
/// DV_ERROR_INCOMPATIBLE: Shapes, element sizes or spaces that do not fit together.
class incompatible : public error {
 public:
  using error::error;
};
/// DV_ERROR_NO_DEVICE: A space this machine or build cannot serve: no driver or no such device.
class no_device : public error {
 public:
  using error::error;
};
/// DV_ERROR_DEVICE: A device driver call failed; the message has the driver's error name and text.
class device_error : public error {
 public:
  using error::error;
};
/// DV_ERROR_INTERNAL: A bug in dualview (including a caught panic).
class internal_error : public error {
 public:
  using error::error;
};
/// DV_ERROR_RANK_MISMATCH: A wrong number of values, or a resize to another rank.
class rank_mismatch : public error {
 public:
  using error::error;
};
/// DV_ERROR_STATIC_MISMATCH: A value that contradicts a static extent.
class static_mismatch : public error {
 public:
  using error::error;
};
/// DV_ERROR_UNMANAGED: A resize or realloc of caller-owned memory (a wrapped allocation).
class unmanaged : public error {
 public:
  using error::error;
};
/// DV_ERROR_STALE: A subview of a DualView resized in place (through the C ABI) since it was made.
class stale_subview : public error {
 public:
  using error::error;
};
/// DV_ERROR_BUSY: The data is borrowed by a Rust access guard.
class busy : public error {
 public:
  using error::error;
};
/// DV_ERROR_UNMARKED_CHANGE: Checked mode (DV_CHECK=1): a side changed where it
/// was not marked modified (a missing modify_*(), or both sides written).
class unmarked_change : public error {
 public:
  using error::error;
};

/// The exception class thrown for status `S` (dv::error for DV_OK or a code
/// this header does not know): detail::raise throws exactly this type.
template <dv_status_t S>
struct error_for {
  using type = error;
};
template <>
struct error_for<DV_ERROR_NULL_ARGUMENT> {
  using type = null_argument;
};
template <>
struct error_for<DV_ERROR_INVALID_ARGUMENT> {
  using type = invalid_argument;
};
template <>
struct error_for<DV_ERROR_INVALID_HANDLE> {
  using type = invalid_handle;
};
template <>
struct error_for<DV_ERROR_RANK> {
  using type = rank_error;
};
template <>
struct error_for<DV_ERROR_OUT_OF_RANGE> {
  using type = out_of_range;
};
template <>
struct error_for<DV_ERROR_OVERFLOW> {
  using type = overflow_error;
};
template <>
struct error_for<DV_ERROR_OUT_OF_MEMORY> {
  using type = out_of_memory;
};
template <>
struct error_for<DV_ERROR_CONCURRENT_MODIFICATION> {
  using type = concurrent_modification;
};
template <>
struct error_for<DV_ERROR_CONST_SYNC> {
  using type = const_sync;
};
template <>
struct error_for<DV_ERROR_INCOMPATIBLE> {
  using type = incompatible;
};
template <>
struct error_for<DV_ERROR_NO_DEVICE> {
  using type = no_device;
};
template <>
struct error_for<DV_ERROR_DEVICE> {
  using type = device_error;
};
template <>
struct error_for<DV_ERROR_INTERNAL> {
  using type = internal_error;
};
template <>
struct error_for<DV_ERROR_RANK_MISMATCH> {
  using type = rank_mismatch;
};
template <>
struct error_for<DV_ERROR_STATIC_MISMATCH> {
  using type = static_mismatch;
};
template <>
struct error_for<DV_ERROR_UNMANAGED> {
  using type = unmanaged;
};
template <>
struct error_for<DV_ERROR_STALE> {
  using type = stale_subview;
};
template <>
struct error_for<DV_ERROR_BUSY> {
  using type = busy;
};
template <>
struct error_for<DV_ERROR_UNMARKED_CHANGE> {
  using type = unmarked_change;
};
/// The highest status this header has a class for; cpp_tests checks it
/// against the C header, so a new status cannot go without its class.
inline constexpr dv_status_t last_status = DV_ERROR_UNMARKED_CHANGE;

namespace detail {

[[noreturn]] inline void raise(dv_status_t s, const std::string& message) {
#if defined(DUALVIEW_ABORT_ON_ERROR)
  (void)s;
  std::fprintf(stderr, "dualview: %s\n", message.c_str());
  std::fflush(stderr);
  std::abort();
#else
  switch (s) {
    case DV_ERROR_NULL_ARGUMENT: throw null_argument(s, message);
    case DV_ERROR_INVALID_ARGUMENT: throw invalid_argument(s, message);
    case DV_ERROR_INVALID_HANDLE: throw invalid_handle(s, message);
    case DV_ERROR_RANK: throw rank_error(s, message);
    case DV_ERROR_OUT_OF_RANGE: throw out_of_range(s, message);
    case DV_ERROR_OVERFLOW: throw overflow_error(s, message);
    case DV_ERROR_OUT_OF_MEMORY: throw out_of_memory(s, message);
    case DV_ERROR_CONCURRENT_MODIFICATION: throw concurrent_modification(s, message);
    case DV_ERROR_CONST_SYNC: throw const_sync(s, message);
    case DV_ERROR_INCOMPATIBLE: throw incompatible(s, message);
    case DV_ERROR_NO_DEVICE: throw no_device(s, message);
    case DV_ERROR_DEVICE: throw device_error(s, message);
    case DV_ERROR_INTERNAL: throw internal_error(s, message);
    case DV_ERROR_RANK_MISMATCH: throw rank_mismatch(s, message);
    case DV_ERROR_STATIC_MISMATCH: throw static_mismatch(s, message);
    case DV_ERROR_UNMANAGED: throw unmanaged(s, message);
    case DV_ERROR_STALE: throw stale_subview(s, message);
    case DV_ERROR_BUSY: throw busy(s, message);
    case DV_ERROR_UNMARKED_CHANGE: throw unmarked_change(s, message);
    default: throw error(s, message);
  }
#endif
}

/// The C++ call that reached C function `c`, as a message names it:
/// `dv_sync_host` is `dv::DualView::sync_host`, `dv_view_fill` is
/// `dv::deep_copy`, any other `dv_x` is `dv::x` (docs/CPP.md "Errors").
inline std::string cpp_name(const std::string& c) {
  static const char* const methods[] = {"modify_host",      "modify_device",    "sync_host",     "sync_device",
                                        "sync_host_async",  "sync_device_async", "push_host",     "push_device",
                                        "clear_sync_state", "host_access",      "device_access", "stats",
                                        "stats_reset",      "resize",           "realloc"};
  static const char* const renamed[][2] = {
      {"dv_resized", "dv::DualView::resize"},    {"dv_realloc_without_initializing", "dv::DualView::realloc"},
      {"dv_stats_add", "dv::DualView::resize"},  {"dv_create", "dv::DualView"},
      {"dv_wrap", "dv::DualView"},               {"dv_clone_const", "dv::DualView"},
      {"dv_deep_copy_async", "dv::deep_copy"},   {"dv_view_copy", "dv::deep_copy"},
      {"dv_view_copy_async", "dv::deep_copy"},   {"dv_view_fill", "dv::deep_copy"},
      {"dv_host_view", "dv::View"},              {"dv_device_view", "dv::View"},
      {"dv_stream_fence", "dv::fence"},          {"dv_stream_create", "dv::Cuda::impl_new_instance"},
      {"dv_report_write", "dv::report"},         {"dv_view_label", "dv::View::label"},
      {"dv_block_hold", "Kokkos::DualView"},     {"dv_tools_init", "dv::tools::profile_library_loaded"},
      {"dv_tools_push_region", "dv::tools::push_region"}, {"dv_tools_pop_region", "dv::tools::pop_region"},
      {"dv_tools_mark_event", "dv::tools::mark_event"},   {"dv_tools_create_section", "dv::tools::create_section"},
      {"dv_tools_section", "dv::tools::start_section"},   {"dv_tools_declare_metadata", "dv::tools::declare_metadata"},
      {"dv_tools_finalize", "dv::tools::finalize"},       {"dv_tools_set_callback", "dv::tools::set_callbacks"}};
  if (c.compare(0, 3, "dv_") != 0) return c;
  for (const auto& r : renamed)
    if (c == r[0]) return r[1];
  for (const char* m : methods)
    if (c.compare(3, std::string::npos, m) == 0) return std::string("dv::DualView::") + m;
  return "dv::" + c.substr(3);
}

/// A C message in C++'s terms: the C function it starts with ("dv_sync_host: ...")
/// becomes the C++ call (`cpp_name`; `as` when the caller names it), and a call
/// it advises, `dv_sync_host()`, becomes `a.sync_host()` (the five calls of
/// DECISIONS C15).
inline std::string cpp_terms(std::string m, const char* as = nullptr) {
  const std::size_t colon = m.find(": ");
  if (m.compare(0, 3, "dv_") == 0 && colon != std::string::npos && m.find(' ') >= colon)
    m.replace(0, colon, as ? std::string(as) : cpp_name(m.substr(0, colon)));
  static const char* const calls[] = {"modify_host", "modify_device", "sync_host", "sync_device", "clear_sync_state"};
  auto ident = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; };
  for (std::size_t p = m.find("dv_"); p != std::string::npos; p = m.find("dv_", p + 1)) {
    std::size_t e = p + 3;
    while (e < m.size() && ident(m[e])) ++e;
    if (m.compare(e, 2, "()") != 0 || (p > 0 && ident(m[p - 1]))) continue;
    for (const char* c : calls)
      if (m.compare(p + 3, e - p - 3, c) == 0) {
        m.replace(p, 3, "a.");
        break;
      }
  }
  return m;
}

/// Throw for a failed status, with the thread's last error message in C++'s
/// terms; `as` names the C++ call where `cpp_name` cannot tell it (a View's).
inline void check(dv_status_t s, const char* as = nullptr) {
  if (s != DV_OK) raise(s, cpp_terms(dv_last_error(), as));
}

}  // namespace detail
}  // namespace dv

#endif  // DUALVIEW_ERROR_HPP
