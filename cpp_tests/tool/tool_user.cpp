// A Kokkos-style program that knows nothing of tools: run with
// KOKKOS_TOOLS_LIBS naming a tool library, then check what the tool logged.
#include <dualview/kokkos.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

static int fail(const char* what) {
  std::fprintf(stderr, "tool_user: %s\n", what);
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 2) return fail("usage: tool_user LOG");
  Kokkos::initialize(argc, argv);
  {
    Kokkos::DualView<double*, Kokkos::Device<Kokkos::TestDevice, Kokkos::TestDeviceSpace>> a("field", 32);
    Kokkos::Profiling::pushRegion("step");
    a.modify_host();
    a.sync_device();
    Kokkos::Profiling::popRegion();
    Kokkos::TestDevice().fence("after step");
  }
  Kokkos::finalize();
  std::ifstream in(argv[1]);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const std::vector<std::string> want = {
      "init 0 20211015 1 0",
      "allocate CudaTestDevice field 256 1",
      "allocate Host field_mirror 256 1",
      "push step",
      "dual_view_modify field_mirror host",
      "begin_deep_copy CudaTestDevice:field <- Host:field_mirror 256",
      "end_deep_copy",
      "dual_view_sync field device",
      "pop",
      "begin_fence after step 0",
      "end_fence 42",
      "deallocate Host field_mirror 256",
      "deallocate CudaTestDevice field 256",
      "finalize",
  };
  if (lines != want) {
    std::fprintf(stderr, "tool_user: the tool saw:\n");
    for (auto& l : lines) std::fprintf(stderr, "  %s\n", l.c_str());
    return fail("events differ from the expected sequence");
  }
  std::printf("tool_user: %zu events as expected\n", lines.size());
  return 0;
}
