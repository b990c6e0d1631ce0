// Issue 22, items 1 to 3 on the test device: execution-space instances over
// streams (partition_space, TestDevice(stream)), sync(exec) and
// deep_copy(exec, ...) queued there and returning at once, a blocking sync or
// host_access after them seeing every value, and chunked pipelines copying
// each chunk on its own stream. The test device runs a stream's copies on a
// worker thread after a delay (dv_test_device_set_stream_delay), as copies
// behind a kernel do; each test uses its own test-device ordinal.
#include <Kokkos_Core.hpp>
#include <Kokkos_DualView.hpp>

#include <numeric>
#include <vector>

#include "common.hpp"

namespace {

/// Make the DualViews of a test on test device `ordinal` with `delay_us` per queued copy.
struct OnDevice {
  explicit OnDevice(uint32_t ordinal, uint64_t delay_us) : saved(dv::device_id()), ordinal(ordinal) {
    dv::set_device_id(ordinal);
    EXPECT_EQ(dv_test_device_set_stream_delay(ordinal, delay_us), DV_OK);
  }
  ~OnDevice() {
    (void)dv_test_device_set_stream_delay(ordinal, 0);
    dv::set_device_id(saved);
  }
  uint32_t saved, ordinal;
};

uint8_t word_of(const void* handle_word) { return dv_word_load(static_cast<const uint8_t*>(handle_word)); }

template <class DV>
uint8_t state_of(const DV& a) {
  const uint8_t* w = nullptr;
  EXPECT_EQ(dv_sync_state_word(a.impl_handle(), &w), DV_OK);
  return word_of(w);
}

}  // namespace

using DevDV = Kokkos::DualView<double*, TestDev>;

TEST(Streams, PartitionSpaceGivesInstancesOnDistinctStreamsThatFence) {
  OnDevice dev(30, 0);
  dv::TestDevice base;
  EXPECT_EQ(base.impl_stream(), nullptr);
  auto two = Kokkos::Experimental::partition_space(base, 1, 1);
  static_assert(std::is_same_v<decltype(two), std::array<dv::TestDevice, 2>>);
  EXPECT_NE(two[0].impl_stream(), nullptr);
  EXPECT_NE(two[0].impl_stream(), two[1].impl_stream());
  EXPECT_NE(two[0], two[1]);
  EXPECT_EQ(two[0], dv::TestDevice(two[0]));
  EXPECT_EQ(two[0].device_id(), 30);
  auto many = Kokkos::Experimental::partition_space(base, std::vector<int>{1, 2, 3});
  EXPECT_EQ(many.size(), 3u);
  for (auto& e : many) e.fence();
  base.fence("named");
  // Host spaces: copies of the instance.
  auto host = Kokkos::Experimental::partition_space(Kokkos::Serial(), 1, 1);
  EXPECT_EQ(host[0].impl_stream(), nullptr);
}

TEST(Streams, SyncOnAnInstanceReturnsAtOnceAndABlockingSyncSeesEveryValue) {
  OnDevice dev(31, 30000);
  auto exec = Kokkos::Experimental::partition_space(dv::TestDevice(), 1)[0];
  const std::size_t n = 1 << 20;
  DevDV a("a", n);
  for (std::size_t i = 0; i < n; ++i) a.d_view(i) = double(i) + 0.5;
  a.modify_device();
  a.sync_host(exec);
  EXPECT_FALSE(a.need_sync_host()) << "flags reset at once, as Kokkos";
  EXPECT_NE(state_of(a) & DV_SYNC_IN_FLIGHT, 0) << "the copy is in flight and the word says so";
  a.sync_host();  // the inline fast path leaves an in-flight word to the library, which waits
  std::size_t missing = 0;
  for (std::size_t i = 0; i < n; ++i) missing += a.h_view(i) != double(i) + 0.5;
  EXPECT_EQ(missing, 0u) << missing << " values read before their copy ran";
  EXPECT_EQ(state_of(a) & DV_SYNC_IN_FLIGHT, 0);
}

TEST(Streams, HostAccessAfterSyncDeviceAsyncThenBackWaits) {
  OnDevice dev(32, 20000);
  auto exec = Kokkos::Experimental::partition_space(dv::TestDevice(), 1)[0];
  DevDV a("a", 4096);
  auto h = a.host_access(dv::write);
  for (std::size_t i = 0; i < 4096; ++i) h(i) = 2.0;
  a.sync_device(exec);  // queued
  // The device side is written by "a kernel" on the same stream after the copy: emulate it
  // by fencing the stream, then write, then queue the copy back.
  exec.fence();
  for (std::size_t i = 0; i < 4096; ++i) a.d_view(i) *= 3.0;
  a.modify_device();
  a.sync<Kokkos::HostSpace>(exec);
  auto r = a.host_access(dv::read);  // waits for the copy
  EXPECT_DOUBLE_EQ(host_sum(a), 4096 * 6.0);
  EXPECT_DOUBLE_EQ(r(17), 6.0);
}

TEST(Streams, DeepCopyOnAnInstanceOfViewsAndDualViewsIsOrderedAndWaitedFor) {
  OnDevice dev(33, 20000);
  auto execs = Kokkos::Experimental::partition_space(dv::TestDevice(), 1, 1);
  const std::size_t n = 1 << 16;
  DevDV a("a", n), b("b", n);
  for (std::size_t i = 0; i < n; ++i) a.d_view(i) = 1.0;
  a.modify_device();
  a.sync_host(execs[0]);                         // device to host on stream 0
  Kokkos::deep_copy(execs[1], b.d_view, a.h_view);  // host to device on stream 1: ordered after stream 0
  b.modify_device();
  b.sync_host();  // b's host: its device copy is in flight, then the sync copies it back
  EXPECT_DOUBLE_EQ(host_sum(b), double(n));
  // deep_copy(exec, DualView, DualView): marks at once, the target waits.
  DevDV c("c", n);
  Kokkos::deep_copy(execs[0], c, a);
  EXPECT_TRUE(c.need_sync_device() || c.need_sync_host());
  c.sync_host();
  c.sync_device();
  EXPECT_DOUBLE_EQ(device_sum(c), double(n));
  EXPECT_DOUBLE_EQ(host_sum(c), double(n));
}

TEST(Streams, ChunksOfAWholeParentMarkCopyTheirOwnRegionOnTheirOwnStream) {
  OnDevice dev(34, 5000);
  const std::size_t chunks = 4, per = 1 << 14, n = chunks * per;
  auto execs = Kokkos::Experimental::partition_space(dv::TestDevice(), 1, 1, 1, 1);
  DevDV a("a", n);
  for (std::size_t i = 0; i < n; ++i) a.h_view(i) = double(i);
  a.modify_host();
  a.stats_reset();
  for (std::size_t c = 0; c < chunks; ++c) {
    auto sub = Kokkos::subview(a, std::make_pair(c * per, (c + 1) * per));
    sub.sync_device(execs[c]);
    EXPECT_EQ(a.stats().to_device_bytes, (c + 1) * per * sizeof(double)) << "chunk " << c << " copied its own bytes only";
  }
  a.sync_device();  // nothing left to copy; waits for the four streams
  EXPECT_EQ(a.stats().to_device_bytes, n * sizeof(double));
  EXPECT_DOUBLE_EQ(device_sum(a), double(n) * double(n - 1) / 2);
}

TEST(Streams, ACudaInstanceOverACallersStreamKeepsItAndNamesIt) {
  // Compiles without the CUDA headers: cudaStream_t is `CUstream_st*`.
  CUstream_st* s = nullptr;
  Kokkos::Cuda exec(s);
  EXPECT_EQ(exec.cuda_stream(), nullptr);
  EXPECT_EQ(exec, Kokkos::Cuda());
  SKIP_WITHOUT_GPU();
  exec.fence();
}
