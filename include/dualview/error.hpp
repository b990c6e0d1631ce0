/*
 * dualview/error.hpp: every failing call throws dv::error (or a subclass
 * named after the C status). Define DUALVIEW_ABORT_ON_ERROR to print the
 * message and abort instead, as Kokkos does (docs/CPP.md).
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
/// A subview of a DualView resized in place (through the C ABI) since it was made.
class stale_subview : public error {
 public:
  using error::error;
};

namespace detail {

[[noreturn]] inline void raise(dv_status_t s, const std::string& message) {
#if defined(DUALVIEW_ABORT_ON_ERROR)
  (void)s;
  std::fprintf(stderr, "dualview: %s\n", message.c_str());
  std::fflush(stderr);
  std::abort();
#else
  switch (s) {
    case DV_ERROR_CONCURRENT_MODIFICATION: throw concurrent_modification(s, message);
    case DV_ERROR_RANK: throw rank_error(s, message);
    case DV_ERROR_RANK_MISMATCH: throw rank_mismatch(s, message);
    case DV_ERROR_STATIC_MISMATCH: throw static_mismatch(s, message);
    case DV_ERROR_OVERFLOW: throw overflow_error(s, message);
    case DV_ERROR_OUT_OF_RANGE: throw out_of_range(s, message);
    case DV_ERROR_STALE: throw stale_subview(s, message);
    default: throw error(s, message);
  }
#endif
}

/// Throw for a failed status, with the thread's last error message.
inline void check(dv_status_t s) {
  if (s != DV_OK) raise(s, dv_last_error());
}

}  // namespace detail
}  // namespace dv

#endif  // DUALVIEW_ERROR_HPP
