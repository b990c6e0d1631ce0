// Issue 22, items 4, 6 and 7 on the CPU: one exception class per C status,
// statistics carried over a resize, PinnedHostMirror on the test device.
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "common.hpp"

namespace {

// Every `DV_ERROR_<NAME> = <n>,` of the C header's dv_status_t (made from src/abi.rs).
std::map<int, std::string> header_statuses() {
  std::ifstream in(DUALVIEW_C_HEADER);
  EXPECT_TRUE(in.good()) << DUALVIEW_C_HEADER;
  std::map<int, std::string> out;
  const std::string pre = "DV_ERROR_";
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find_first_not_of(' ');
    if (at == std::string::npos || line.compare(at, pre.size(), pre) != 0) continue;
    std::istringstream words(line.substr(at));
    std::string name, eq;
    int value = 0;
    if (words >> name >> eq >> value && eq == "=") out[value] = name;
  }
  return out;
}

// Throw status S through the one throw site and check what comes out.
template <int S>
void check_status(std::map<int, std::string>& seen_types) {
  constexpr auto s = static_cast<dv_status_t>(S);
  using E = typename dv::error_for<s>::type;
  static_assert(std::is_base_of_v<dv::error, E> && !std::is_same_v<E, dv::error>, "a DV_ERROR_* status without its own class");
  try {
    dv::detail::raise(s, "probe");
    ADD_FAILURE() << "raise returned";
  } catch (const dv::error& e) {
    EXPECT_EQ(typeid(e), typeid(E)) << "status " << S << " threw " << typeid(e).name();
    EXPECT_NE(dynamic_cast<const E*>(&e), nullptr);
    EXPECT_EQ(e.status(), s);
    EXPECT_STREQ(e.what(), "probe");
    EXPECT_TRUE(seen_types.insert({S, typeid(e).name()}).second);
  }
}

template <int... S>
void check_all(std::integer_sequence<int, S...>, std::map<int, std::string>& seen) {
  (check_status<S + 1>(seen), ...);
}

// An element whose copy is not bitwise: a C++ resize builds a new DualView and
// copies with the assignment (DECISIONS D23).
struct Assigned {
  double v = 1.0;
  Assigned() = default;
  Assigned(const Assigned& o) : v(o.v) {}
  Assigned& operator=(const Assigned& o) {
    v = o.v;
    return *this;
  }
};

}  // namespace

// The header's codes run 1..DV_ERROR_UNMARKED_CHANGE; a new one must get a class (and
// dv::last_status moved) before this compiles and passes again.
static_assert(dv::last_status == DV_ERROR_UNMARKED_CHANGE, "dualview.h has a status error.hpp does not list");

TEST(Errors, EveryStatusThrowsItsOwnClass) {
  const auto statuses = header_statuses();
  ASSERT_FALSE(statuses.empty());
  EXPECT_EQ(statuses.rbegin()->first, static_cast<int>(dv::last_status)) << "a new DV_ERROR_* in dualview.h needs its class in error.hpp";
  EXPECT_EQ(statuses.begin()->first, 1);
  EXPECT_EQ(statuses.size(), static_cast<std::size_t>(dv::last_status)) << "the codes are 1..last";
  std::map<int, std::string> seen;
  check_all(std::make_integer_sequence<int, static_cast<int>(dv::last_status)>{}, seen);
  EXPECT_EQ(seen.size(), statuses.size());
  std::map<std::string, int> distinct;
  for (auto& [s, t] : seen) EXPECT_TRUE(distinct.emplace(t, s).second) << "two statuses share the class " << t;
  // A code the header does not know (a newer library's) still throws the base
  // class. The next free value: it lies in the enum's range (a value outside
  // it would be undefined behaviour, which UBSan reports).
  const int unknown = static_cast<int>(dv::last_status) + 1;
  try {
    dv::detail::raise(static_cast<dv_status_t>(unknown), "x");
  } catch (const dv::error& e) {
    EXPECT_EQ(typeid(e), typeid(dv::error));
    EXPECT_EQ(static_cast<int>(e.status()), unknown);
  }
}

TEST(Errors, RealCallsThrowTheMatchingClass) {
  dv::DualView<double*, dv::LayoutLeft, TestDev> a("E", 4);
  a.modify_device();
  EXPECT_THROW(a.modify_host(), dv::concurrent_modification);
  if (!cuda_present()) {
    EXPECT_THROW((dv::DualView<double*, dv::Device<dv::Cuda, dv::CudaSpace>>("nodev", 4)), dv::no_device);
    try {
      dv::DualView<double*, dv::Device<dv::Cuda, dv::CudaSpace>> b("nodev", 4);
    } catch (const dv::error& e) {
      EXPECT_EQ(e.status(), DV_ERROR_NO_DEVICE);  // still a dv::error
    }
  }
}

TEST(DualViewStats, CarriedOverAResizeWhileACopyLives) {
  using D = dv::DualView<double*, dv::LayoutLeft, TestDev>;
  D a("S", 100);
  a.modify_host();
  a.sync_device();  // 800 B to the device
  const auto keep_host = a.h_view;  // a copy alive: resize makes a new DualView (dv_resized)
  a.resize(200);
  ASSERT_NE(a.h_view.data(), keep_host.data());
  EXPECT_EQ(keep_host.extent(0), 100u);
  a.modify_device();
  a.sync_host();  // 1600 B to the host
  a.modify_host();
  a.sync_device();  // 1600 B to the device
  dv_stats_t s = a.stats();
  EXPECT_EQ(s.to_device_count, 2u);
  EXPECT_EQ(s.to_device_bytes, 800u + 1600u);
  EXPECT_EQ(s.to_host_count, 1u);
  EXPECT_EQ(s.to_host_bytes, 1600u);

  // realloc to new extents while a copy of d_view lives: a new DualView too.
  const auto keep_dev = a.d_view;
  a.realloc(50);
  ASSERT_NE(a.d_view.data(), keep_dev.data());
  a.modify_host();
  a.sync_device();  // 400 B
  s = a.stats();
  EXPECT_EQ(s.to_device_count, 3u);
  EXPECT_EQ(s.to_device_bytes, 800u + 1600u + 400u);
  EXPECT_EQ(s.to_host_count, 1u);

  // In place (nobody else sees the allocation): the same family, the same counts.
  D b("T", 10);
  b.modify_host();
  b.sync_device();
  b.resize(20);
  EXPECT_EQ(b.stats().to_device_count, 1u);

  // Elements resized by C++ (not bitwise): a new DualView as well.
  dv::DualView<Assigned*, dv::LayoutLeft, TestDev> c("C", 10);
  c.modify_host();
  c.sync_device();
  c.resize(20);
  c.modify_host();
  c.sync_device();
  EXPECT_EQ(c.stats().to_device_count, 2u);
  EXPECT_EQ(c.stats().to_device_bytes, (10u + 20u) * sizeof(Assigned));

  a.stats_reset();
  s = a.stats();
  EXPECT_EQ(s.to_device_count + s.to_device_bytes + s.to_device_ns + s.to_host_count + s.to_host_bytes + s.to_host_ns, 0u);
  D empty;
  empty.stats_reset();  // no handle: nothing to do
  EXPECT_EQ(empty.stats().to_host_count, 0u);
}

TEST(DualView, PinnedHostMirrorOnTheTestDevice) {
  using D = dv::DualView<double*, dv::LayoutLeft, TestDev>;
  D a(dv::view_alloc("pinned", dv::PinnedHostMirror), 16);
  ASSERT_TRUE(a.is_allocated());
  EXPECT_NE(static_cast<const void*>(a.h_view.data()), static_cast<const void*>(a.d_view.data()));
  dv_view_info_t hv;
  ASSERT_EQ(dv_host_view(a.impl_handle(), &hv), DV_OK);
  EXPECT_EQ(hv.space, DV_SPACE_HOST);  // ordinary host memory: pinned is a speed hint
  for (std::size_t k = 0; k < 16; ++k) a.h_view.data()[k] = double(k);
  a.modify_host();
  a.sync_device();
  EXPECT_EQ(device_sum(a), 120.0);
  for (std::size_t k = 0; k < 16; ++k) a.d_view.data()[k] = 2.0;
  a.modify_device();
  a.sync_host();
  EXPECT_EQ(host_sum(a), 32.0);
  a.realloc(dv::view_alloc(dv::PinnedHostMirror), 8);
  EXPECT_EQ(a.extent(0), 8u);
  dv::DualView<double**, dv::LayoutLeft, TestDev> b;
  b.resize(dv::view_alloc("p2", dv::PinnedHostMirror), 3, 2);
  EXPECT_EQ(b.span(), 6u);
}

// The pool of registered host blocks (DECISIONS S11): a DualView whose mirror registered
// leaves its block kept; dv::pool_release gives the bytes back, then nothing.
TEST(Pool, ReleaseGivesAKeptMirrorBack) {
  (void)dv::pool_release();
  for (int round = 0; round < 2; ++round) {  // kept once the size churns (made again after it went)
    dv::DualView<double*, dv::LayoutRight, TestDev> a("pooled", (2u << 20) / 8);
    for (std::size_t k = 0; k < a.extent(0); ++k) a.h_view.data()[k] = 1.0;
    a.modify_host();
    a.sync_device();  // registers the mirror at the latest
  }
  EXPECT_EQ(dv::pool_release(), 2u << 20);
  EXPECT_EQ(dv::pool_release(), 0u);
}
