/*
 * Kokkos_Core.hpp under Kokkos' name, for code written against Kokkos: the Kokkos
 * names mapped onto dualview (see dualview/kokkos.hpp). This folder is on the
 * include path only through the DualView::kokkos target or
 * `pkg-config dualview-kokkos`, so a project that also has real Kokkos does
 * not pick it up by accident.
 *
 * Programs rely on what Kokkos' umbrella header brings in: the standard
 * headers that Kokkos 4.6.01's Kokkos_Core.hpp includes, transitively, in a
 * Serial build (derived from its sources; docs/CPP.md lists them), are
 * included here too.
 */
#ifndef DUALVIEW_COMPAT_KOKKOS_CORE_HPP
#define DUALVIEW_COMPAT_KOKKOS_CORE_HPP
#include <algorithm>
#include <array>
#include <cassert>
#include <cfloat>
#include <chrono>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>
#if defined(__has_include)
#if __has_include(<version>)
#include <version>
#endif
#endif
#if __cplusplus > 201703L
#include <concepts>
#include <span>
#endif
#include "../kokkos.hpp"
#endif  // DUALVIEW_COMPAT_KOKKOS_CORE_HPP
