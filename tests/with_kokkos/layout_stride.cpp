// An allocating dv::with_kokkos::DualView of LayoutStride must not compile, and must say why
// (DECISIONS K8): checked by tests/c/header_check.cmake (MODE=fails) against Debian's Kokkos.
// A LayoutStride DualView as the result of Kokkos::subview compiles (tests/with_kokkos/gaps.cpp).
#include <Kokkos_Core.hpp>
#include <dualview/with_kokkos.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  dv::with_kokkos::DualView<double**, Kokkos::LayoutStride, Kokkos::DefaultExecutionSpace> a("strided", 4, 4);
  return a.extent(0) == 4 ? 0 : 1;
}
