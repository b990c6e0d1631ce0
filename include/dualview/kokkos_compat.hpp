/*
 * kokkos_compat.hpp: the Kokkos names mapped onto dualview, so that code
 * written against Kokkos::DualView compiles unchanged against dualview.
 * Include it instead of <Kokkos_Core.hpp> / <Kokkos_DualView.hpp>.
 */
#ifndef DUALVIEW_KOKKOS_COMPAT_HPP
#define DUALVIEW_KOKKOS_COMPAT_HPP

#include "../dualview.hpp"

#ifndef KOKKOS_INLINE_FUNCTION
#define KOKKOS_INLINE_FUNCTION DV_INLINE_FUNCTION
#endif
#ifndef KOKKOS_FUNCTION
#define KOKKOS_FUNCTION DV_FUNCTION
#endif

namespace Kokkos {

using dv::DualView;
using dv::View;
using dv::ViewTraits;

using dv::LayoutLeft;
using dv::LayoutRight;
using dv::LayoutStride;

using dv::Cuda;
using dv::CudaHostPinnedSpace;
using dv::CudaSpace;
using dv::CudaUVMSpace;
using dv::DefaultExecutionSpace;
using dv::DefaultHostExecutionSpace;
using dv::Device;
using dv::HostSpace;
using dv::Serial;

using dv::MemoryManaged;
using dv::MemoryRandomAccess;
using dv::MemoryTraits;
using dv::MemoryUnmanaged;
using dv::RandomAccess;
using dv::Unmanaged;

using dv::ALL;
using dv::create_mirror_view;
using dv::deep_copy;
using dv::fence;
using dv::is_dual_view;
using dv::is_dual_view_v;
using dv::pair;
using dv::realloc;
using dv::resize;
using dv::subview;
using dv::view_alloc;
using dv::WithoutInitializing;

/// Kokkos::make_pair for subview ranges.
template <class T>
dv::pair<T> make_pair(T a, T b) {
  return {a, b};
}

/// dualview needs no runtime set-up; these keep Kokkos programs unchanged.
inline void initialize() {}
inline void initialize(int&, char**) {}
inline void finalize() {}
inline bool is_initialized() { return true; }

/// RAII form of initialize/finalize.
class ScopeGuard {
 public:
  ScopeGuard() = default;
  ScopeGuard(int&, char**) {}
};

}  // namespace Kokkos

#endif  // DUALVIEW_KOKKOS_COMPAT_HPP
