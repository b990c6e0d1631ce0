// A C++ consumer of the installed package: dualview.hpp through
// DualView::dualview_cxx (CMake) or `pkg-config dualview` with -std=c++17.
#include <dualview.hpp>

#include <cstdio>

int main() {
  try {
    dv::DualView<double**, dv::LayoutLeft, dv::TestDevice> a("consumer", 10, 3);
    dv::deep_copy(a.d_view, 42.0);
    a.modify_device();
    a.sync_host();
    for (std::size_t i = 0; i < a.extent(0); ++i)
      for (std::size_t j = 0; j < a.extent(1); ++j)
        if (a.h_view(i, j) != 42.0) return 1;
    a.h_view(9, 2) = 1.0;
    a.modify_host();
    a.sync_device();
    if (a.d_view(9, 2) != 1.0 || a.need_sync_device()) return 1;
  } catch (const dv::error& e) {
    std::fprintf(stderr, "consumer (C++): %s\n", e.what());
    return 1;
  }
  std::printf("consumer (C++): dualview.hpp found and working\n");
  return 0;
}
