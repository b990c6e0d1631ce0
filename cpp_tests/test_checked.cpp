// Issue 20 (1, 2) in C++: checked mode (DV_CHECK=1) throws dv::unmarked_change
// for the Kokkos protocol mistakes no peer catches; dv::write keeps the other
// side's change and dv::overwrite drops it. The CheckedMode tests need the
// environment variable (read once per process): ctest cpp.checked_mode runs
// them with DV_CHECK=1; in the plain run they skip and say why.
#include <Kokkos_Core.hpp>
#include <Kokkos_DualView.hpp>

#include <cstdlib>
#include <vector>
#include <string>

#include "common.hpp"

namespace {

using DV = Kokkos::DualView<double**, Kokkos::LayoutLeft, TestDev>;

bool checked_run() {
  const char* v = std::getenv("DV_CHECK");
  return v && *v && std::string(v) != "0";
}

#define SKIP_UNLESS_CHECKED() \
  if (!checked_run()) GTEST_SKIP() << "checked mode needs DV_CHECK=1 (ctest cpp.checked_mode runs these)"

/// The message of the dv::unmarked_change that `f` throws ("" when none).
template <class F>
std::string unmarked(F f) {
  try {
    f();
  } catch (const dv::unmarked_change& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(CheckedMode, AMissingModifyAfterAKernelThrowsAtTheNextSync) {
  SKIP_UNLESS_CHECKED();
  DV a("x", 10, 3);
  dv_info_t info{};
  ASSERT_EQ(dv_info(a.impl_handle(), &info), DV_OK);
  EXPECT_NE(info.bits & DV_INFO_CHECKED, 0u) << "the inline fast paths step aside";
  Kokkos::deep_copy(a.d_view, 2.0);  // a kernel; a.modify_device() forgotten (LAMMPS' classic)
  const std::string msg = unmarked([&] { a.sync_host(); });
  // In C++ terms: the calls it advises are the methods (issue 35).
  EXPECT_NE(msg.find("device side changed without a.modify_device(): call a.modify_device() after writing the device side"),
            std::string::npos) << msg;
  EXPECT_NE(msg.find("found at a.sync_host()"), std::string::npos) << msg;
  EXPECT_EQ(msg.rfind("dv::DualView::sync_host: ", 0), 0u) << "the C++ call first, no C name: " << msg;
  EXPECT_EQ(msg.find("dv_"), std::string::npos) << msg;
  a.modify_device();
  a.sync_host();
  EXPECT_EQ(a.h_view(9, 2), 2.0);
}

TEST(CheckedMode, AHostWriteWithoutModifyHostThrows) {
  SKIP_UNLESS_CHECKED();
  DV a("halo", 8, 2);
  a.h_view(0, 1) = -1.0;  // an MPI receive into the host side; modify_host() forgotten
  const std::string msg = unmarked([&] { a.sync_device(); });
  EXPECT_NE(msg.find("host side changed without a.modify_host()"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(0, 1)"), std::string::npos) << msg;
}

TEST(CheckedMode, BothSidesWrittenThrowsBeforeTheSyncOverwritesOne) {
  SKIP_UNLESS_CHECKED();
  DV a("both", 4, 4);
  a.h_view(1, 1) = 1.0;
  a.modify_host();
  a.d_view(2, 2) = 2.0;  // through a saved device pointer
  const std::string msg = unmarked([&] { a.sync_device(); });
  EXPECT_NE(msg.find("both sides"), std::string::npos) << msg;
  EXPECT_TRUE(a.need_sync_device()) << "nothing copied or marked";
}

TEST(CheckedMode, KokkosStyleCorrectCodeRunsWithoutAlarm) {
  SKIP_UNLESS_CHECKED();
  DV a("ok", 16, 2);
  for (int step = 0; step < 4; ++step) {
    a.sync_host();
    a.h_view(step, 0) = step;
    a.modify_host();
    a.sync_device();
    a.d_view(step, 1) = 10 + step;
    a.modify_device();
    a.sync_host();
    EXPECT_EQ(a.h_view(step, 1), 10 + step);
  }
  a.resize(32, 2);
  a.h_view(31, 1) = 7;
  a.modify_host();
  a.sync_device();
  EXPECT_EQ(a.d_view(31, 1), 7);
}

TEST(AccessModes, WriteKeepsTheOtherSidesChangeAndOverwriteDropsIt) {
  DV a("modes", 4, 2);
  Kokkos::deep_copy(a.d_view, 3.0);
  a.modify_device();
  auto h = a.host_access(dv::write);  // synced first: nothing is lost (SYCL 2020)
  EXPECT_EQ(h(3, 1), 3.0);
  EXPECT_TRUE(a.need_sync_device());
  a.sync_device();
  Kokkos::deep_copy(a.d_view, 5.0);
  a.modify_device();
  auto o = a.host_access(dv::overwrite);  // the device's 5.0 is discarded, nothing copied
  EXPECT_EQ(o(3, 1), 3.0);
  EXPECT_TRUE(a.need_sync_device());
}

TEST(Adopt, ALegacyHostArrayGetsADeviceSide) {
  std::vector<double> legacy(20 * 3);
  for (std::size_t k = 0; k < legacy.size(); ++k) legacy[k] = static_cast<double>(k);
  DV::t_host h(legacy.data(), 20, 3);  // unmanaged: the legacy array itself
  DV a(h);
  EXPECT_EQ(a.h_view.data(), legacy.data()) << "the array is the host side";
  EXPECT_NE(static_cast<const void*>(a.d_view.data()), static_cast<const void*>(legacy.data()));
  EXPECT_TRUE(a.need_sync_device()) << "the host holds the data";
  a.sync_device();
  EXPECT_EQ(a.d_view(19, 2), legacy[19 + 20 * 2]);
  Kokkos::deep_copy(a.d_view, 4.0);
  a.modify_device();
  a.sync_host();
  EXPECT_EQ(legacy[7], 4.0) << "results come back into the legacy array";
  // A resize gives the DualView memory of its own (C++ value semantics), with the data.
  a.resize(40, 3);
  EXPECT_NE(a.h_view.data(), legacy.data());
  EXPECT_EQ(a.h_view(7, 0), 4.0);
}
