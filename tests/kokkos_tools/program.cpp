// A small Kokkos-style program for real kokkos-tools profilers (run.sh): a
// DualView on the test device and one on the host, a region, a sync, a fill, a
// resize, a fence. It checks its own values; the profilers' outputs are
// checked by run.sh.
#include <Kokkos_Core.hpp>
#include <Kokkos_DualView.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  int bad = 0;
  {
    using Dev = Kokkos::Device<Kokkos::TestDevice, Kokkos::TestDeviceSpace>;
    Kokkos::DualView<double*, Dev> field("field", 1000);
    Kokkos::DualView<double*, Kokkos::HostSpace> host_only("host_only", 10);
    Kokkos::Profiling::pushRegion("step");
    for (int i = 0; i < 1000; ++i) field.h_view(i) = i;
    field.modify_host();
    field.sync_device();
    Kokkos::deep_copy(host_only.d_view, 2.0);
    Kokkos::Profiling::popRegion();
    field.resize(2000);
    Kokkos::fence("after resize");
    field.sync_host();
    for (int i = 0; i < 1000; ++i) bad += field.h_view(i) != i;
    for (int i = 0; i < 10; ++i) bad += host_only.h_view(i) != 2.0;
  }
  Kokkos::finalize();
  std::printf("tools program: %s\n", bad ? "WRONG VALUES" : "values right");
  return bad ? 1 : 0;
}
