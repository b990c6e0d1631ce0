// A Kokkos-style consumer of the installed package: the Kokkos-named headers
// through DualView::kokkos (CMake) or `pkg-config dualview-kokkos`.
#include <Kokkos_Core.hpp>
#include <Kokkos_DualView.hpp>

#include <cstdio>

#ifndef DUALVIEW_KOKKOS_COMPAT
#error "Kokkos_Core.hpp is not dualview's"
#endif

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  using view_type = Kokkos::DualView<double**, Kokkos::LayoutLeft, Kokkos::TestDevice>;
  view_type a("A", 10, 3);
  Kokkos::deep_copy(a.d_view, 1);
  a.modify<view_type::execution_space>();
  a.sync<view_type::host_mirror_space>();
  Kokkos::deep_copy(a.h_view, 2);
  a.modify<view_type::host_mirror_space>();
  a.sync<view_type::execution_space>();
  int bad = 0;
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 3; ++j) bad += a.d_view(i, j) != 2.0;
  if (bad != 0 || a.need_sync_host() || a.need_sync_device()) return 1;
  std::printf("consumer (Kokkos names): Kokkos_Core.hpp found and working\n");
  return 0;
}
