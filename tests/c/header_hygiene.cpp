// Header hygiene: dualview.hpp and dualview/kokkos.hpp compile warning-free
// under -std=c++17 -Wall -Wextra -Wpedantic -Wshadow -Wconversion
// -Wsign-conversion -Werror (g++ also -Wuseless-cast, clang++ too), with the
// templates a user instantiates most: typed DualViews of several ranks,
// layouts and element types, Views, deep_copy, subview, resize/realloc,
// mirrors, and the same through the Kokkos names. Built and run by ctest
// (c++.header_hygiene.<compiler>).
#include "dualview.hpp"
#include "dualview/kokkos.hpp"

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

using Dev = dv::Device<dv::TestDevice, dv::TestDeviceSpace>;

template <class DV>
int exercise_dual_view(DV& a) {
  using value_type = typename DV::value_type;
  dv::deep_copy(a.d_view, value_type(1));
  a.modify_device();
  a.sync_host();
  a.template modify<typename DV::host_mirror_space>();
  a.template sync<typename DV::execution_space>();
  int bad = a.need_sync_host() || a.need_sync_device() ? 1 : 0;
  bad += a.extent(0) == 0 ? 1 : 0;
  bad += a.extent_int(0) <= 0 ? 1 : 0;
  bad += a.span() == 0 ? 1 : 0;
  bad += a.is_allocated() ? 0 : 1;
  auto h = a.view_host();
  auto d = a.view_device();
  bad += h.size() == d.size() ? 0 : 1;
  return bad;
}

int plain_dv() {
  int bad = 0;
  dv::DualView<double**, dv::LayoutLeft, Dev> a("a", 4, 3);
  bad += exercise_dual_view(a);
  a.h_view(1, 2) = 2.5;
  a.modify_host();
  a.sync_device();
  bad += a.d_view(1, 2) == 2.5 ? 0 : 1;
  dv::resize(a, 8, 3);
  bad += a.h_view(1, 2) == 2.5 ? 0 : 1;
  dv::realloc(a, 2, 2);
  bad += a.extent(0) == 2 ? 0 : 1;

  dv::DualView<float*, dv::LayoutRight, Dev> b("b", 10);
  bad += exercise_dual_view(b);
  dv::DualView<std::int32_t* [3], dv::LayoutRight, Dev> c("c", 5);
  bad += exercise_dual_view(c);
  dv::DualView<const std::int32_t* [3], dv::LayoutRight, Dev> cc(c);
  bad += cc.extent(1) == 3 ? 0 : 1;
  dv::DualView<std::int64_t***, dv::LayoutLeft, Dev> e("e", 2, 3, 4);
  bad += exercise_dual_view(e);

  auto sub = dv::subview(a, dv::ALL, 1);
  bad += sub.extent(0) == a.extent(0) ? 0 : 1;

  dv::View<int*> v("v", 7);
  dv::deep_copy(v, 3);
  auto m = dv::create_mirror_view(v);
  dv::deep_copy(m, v);
  bad += m(6) == 3 ? 0 : 1;
  dv::View<double[2][3]> s("s");
  s(1, 2) = 1.0;
  bad += s.extent(1) == 3 ? 0 : 1;
  return bad;
}

int kokkos_names() {
  int bad = 0;
  using view_type = Kokkos::DualView<double**, Kokkos::LayoutLeft, Kokkos::TestDevice>;
  view_type a("A", 10, 3);
  Kokkos::deep_copy(a.d_view, 1);
  a.modify<view_type::execution_space>();
  a.sync<view_type::host_mirror_space>();
  Kokkos::deep_copy(a.h_view, 2);
  a.modify<view_type::host_mirror_space>();
  a.sync<view_type::execution_space>();
  bad += a.h_view(9, 2) == 2.0 ? 0 : 1;
  Kokkos::View<double*> x("x", 4);
  auto hx = Kokkos::create_mirror_view(x);
  Kokkos::deep_copy(hx, x);
  Kokkos::resize(x, 8);
  bad += x.extent(0) == 8 ? 0 : 1;
  Kokkos::DualView<double* [3], Kokkos::LayoutRight> p("p", 4);
  p.h_view(3, 2) = 1.25;
  p.modify_host();
  p.sync_device();
  bad += p.extent(1) == 3 ? 0 : 1;

  // Subviews with pairs and ALL, strided and unmanaged views, access modes, mirrors.
  auto rows = Kokkos::subview(p, Kokkos::make_pair(0, 2), Kokkos::ALL);
  bad += rows.extent(0) == 2 ? 0 : 1;
  Kokkos::View<double**, Kokkos::LayoutStride> st("st", Kokkos::LayoutStride(3, 1, 4, 5));
  st(2, 3) = 4.0;
  bad += st.stride(1) == 5 ? 0 : 1;
  std::vector<double> buf(12, 1.0);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> um(buf.data(), 3, 4);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::TestDeviceSpace> dev("dev", 3, 4);
  Kokkos::deep_copy(dev, um);
  auto back = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dev);
  bad += back(2, 3) == 1.0 ? 0 : 1;
  using DevDV = Kokkos::DualView<double**, Kokkos::LayoutLeft, Kokkos::TestDevice>;
  DevDV q("q", 3, 2);
  auto w = q.device_access(dv::write);
  w(2, 1) = 4.0;
  auto r = q.host_access(dv::read);
  bad += r(2, 1) == 4.0 ? 0 : 1;
  DevDV::t_host_um hum(buf.data(), 3, 4);
  bad += hum.extent(1) == 4 ? 0 : 1;
  Kokkos::realloc(q, 5, 5);
  bad += q.extent_int(0) == 5 ? 0 : 1;
  {
    Kokkos::Profiling::ScopedRegion region("hygiene");
    Kokkos::Timer timer;
    bad += timer.seconds() >= 0.0 ? 0 : 1;
  }
  return bad;
}

}  // namespace

int main() {
  int bad = plain_dv() + kokkos_names();
  std::printf("header hygiene: %s\n", bad == 0 ? "ok" : "FAILED");
  return bad == 0 ? 0 : 1;
}
