// Two GPUs in one process (issue 33, item 2): DualViews on GPU 0 and GPU 1 with
// default mirrors, each mirror page-locked for its own GPU (no silent fall back to
// pageable copies), kernels on each, deep_copy between the two device sides next to
// cudaMemcpyPeer, and two threads driving the two GPUs at once. Every value is
// checked; rates are printed (MEASURED), and deep_copy between the GPUs must reach
// half of cudaMemcpyPeer's rate. With fewer than two GPUs it prints
// "SKIPPED multi_gpu: ..." and exits 0 (scripts/gpu-check.sh records the skip).
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "dualview.hpp"
#include "cuda_ok.hpp"

using DV = dv::DualView<double*, dv::LayoutLeft, dv::Cuda>;

__global__ void fill(DV::t_dev d, long n, double base) {
  long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i < n) d(i) = base + static_cast<double>(i);
}

__global__ void scale(DV::t_dev d, long n, double by) {
  long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i < n) d(i) *= by;
}

static double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

static uint32_t ordinal_of(const DV& a) {
  dv_info_t info{};
  return dv_info(a.impl_handle(), &info) == DV_OK ? info.ordinal : 999u;
}

static bool mirror_pinned(const DV& a) {
  dv_info_t info{};
  return dv_info(a.impl_handle(), &info) == DV_OK && (info.bits & DV_INFO_MIRROR_PINNED) != 0;
}

/// Count the elements of a's host side that differ from f(i).
template <class F>
static long wrong(const DV& a, long n, F f) {
  long bad = 0;
  for (long i = 0; i < n; ++i) bad += a.h_view(i) != f(i);
  return bad;
}

/// One GPU's part: a DualView on `dev`, its mirror page-locked there, a kernel, both syncs.
static int on_one_gpu(int dev, long n, DV& out) {
  dv::set_device_id(static_cast<uint32_t>(dev));
  DV a("gpu" + std::to_string(dev), n);
  if (ordinal_of(a) != static_cast<uint32_t>(dev)) {
    std::printf("FAIL: a DualView made with device_id %d is on device %u\n", dev, ordinal_of(a));
    return 1;
  }
  for (long i = 0; i < n; ++i) a.h_view(i) = static_cast<double>(i);
  a.modify_host();
  a.sync_device();  // the first sync registers the default mirror (background work may finish it)
  dv::fence();
  CUDA_OK(cudaSetDevice(dev));  // dualview binds its own context; a kernel needs the runtime's device
  fill<<<static_cast<unsigned>((n + 255) / 256), 256>>>(a.d_view, n, 1000.0 * dev);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  a.modify_device();
  auto t0 = std::chrono::steady_clock::now();
  a.sync_host();
  const double back = seconds_since(t0);
  if (long bad = wrong(a, n, [&](long i) { return 1000.0 * dev + static_cast<double>(i); })) {
    std::printf("FAIL: GPU %d: %ld values of the kernel's fill did not come back\n", dev, bad);
    return 1;
  }
  // The mirror must be page-locked for this GPU by now: a registration under the wrong
  // context would leave it pageable, and the syncs would silently run at pageable speed.
  for (int k = 0; k < 200 && !mirror_pinned(a); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!mirror_pinned(a)) {
    std::printf("FAIL: GPU %d: the default mirror is not page-locked after its syncs\n", dev);
    return 1;
  }
  a.modify_host();
  t0 = std::chrono::steady_clock::now();
  a.sync_device();
  dv::fence();
  const double there = seconds_since(t0);
  // The raw pinned rate of this GPU, same bytes.
  void* pinned = nullptr;
  void* d = nullptr;
  const size_t bytes = static_cast<size_t>(n) * sizeof(double);
  CUDA_OK(cudaSetDevice(dev));
  CUDA_OK(cudaMallocHost(&pinned, bytes));
  CUDA_OK(cudaMalloc(&d, bytes));
  CUDA_OK(cudaMemcpy(d, pinned, bytes, cudaMemcpyHostToDevice));
  t0 = std::chrono::steady_clock::now();
  CUDA_OK(cudaMemcpy(d, pinned, bytes, cudaMemcpyHostToDevice));
  const double raw = seconds_since(t0);
  CUDA_OK(cudaFree(d));
  CUDA_OK(cudaFreeHost(pinned));
  std::printf("MEASURED GPU %d: %.0f MB: sync_device %.1f GB/s, sync_host %.1f GB/s, raw pinned cudaMemcpy %.1f GB/s\n", dev,
              bytes / 1e6, bytes / there / 1e9, bytes / back / 1e9, bytes / raw / 1e9);
  out = a;
  return 0;
}

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2) {
    std::printf("SKIPPED multi_gpu: %d GPU(s) here; the test needs 2\n", count);
    return 0;
  }
  const long n = 32l << 20;  // 256 MiB of doubles per DualView
  try {
    // 1. A DualView on each GPU, default mirrors, a kernel on each.
    DV a, b;
    if (on_one_gpu(0, n, a) || on_one_gpu(1, n, b)) return 1;

    // 2. deep_copy between the two device sides, next to cudaMemcpyPeer.
    int can = 0;
    CUDA_OK(cudaDeviceCanAccessPeer(&can, 1, 0));
    dv::deep_copy(b, a);  // device 0 -> device 1 (a's device side is the newest)
    dv::fence();
    auto t0 = std::chrono::steady_clock::now();
    dv::deep_copy(b, a);
    dv::set_device_id(1);
    dv::fence();
    const double dc = seconds_since(t0);
    b.sync_host();
    if (long bad = wrong(b, n, [](long i) { return static_cast<double>(i); })) {
      std::printf("FAIL: deep_copy GPU 0 -> GPU 1: %ld values wrong\n", bad);
      return 1;
    }
    const size_t bytes = static_cast<size_t>(n) * sizeof(double);
    t0 = std::chrono::steady_clock::now();
    CUDA_OK(cudaMemcpyPeer(b.d_view.data(), 1, a.d_view.data(), 0, bytes));
    CUDA_OK(cudaSetDevice(1));
    CUDA_OK(cudaDeviceSynchronize());
    const double peer = seconds_since(t0);
    std::printf("MEASURED deep_copy GPU 0 -> GPU 1: %.1f GB/s; cudaMemcpyPeer %.1f GB/s (peer access %s)\n", bytes / dc / 1e9,
                bytes / peer / 1e9, can ? "possible" : "not possible");
    // The peer copy at least half the link's rate, as the raw peer copy of the same bytes measured it.
    if (dc > 2 * peer) {
      std::printf("FAIL: deep_copy GPU 0 -> GPU 1 ran at %.1f GB/s, under half of cudaMemcpyPeer's %.1f GB/s\n", bytes / dc / 1e9,
                  bytes / peer / 1e9);
      return 1;
    }

    // 3. Two threads driving the two GPUs at once: kernel, sync_host, check, write, sync_device.
    std::vector<int> failures(2, 0);
    auto drive = [&](int dev, DV& x) {
      for (int round = 1; round <= 8; ++round) {
        if (cudaSetDevice(dev) != cudaSuccess) { failures[dev] = 1; return; }
        scale<<<static_cast<unsigned>((n + 255) / 256), 256>>>(x.d_view, n, 2.0);
        if (cudaDeviceSynchronize() != cudaSuccess) { failures[dev] = 1; return; }
        x.modify_device();
        x.sync_host();
        const double f = static_cast<double>(1 << round);
        if (wrong(x, n, [&](long i) { return f * static_cast<double>(i); })) { failures[dev] = 1; return; }
        x.h_view(0) = 0.0;  // unchanged value, marked: the next sync_device copies the host side over
        x.modify_host();
        x.sync_device();
      }
    };
    // Both start from i on the device (b holds a's values since the deep copy).
    a.modify_host();
    for (long i = 0; i < n; ++i) a.h_view(i) = static_cast<double>(i);
    a.sync_device();
    b.modify_host();
    for (long i = 0; i < n; ++i) b.h_view(i) = static_cast<double>(i);
    b.sync_device();
    t0 = std::chrono::steady_clock::now();
    std::thread t1([&] { drive(0, a); }), t2([&] { drive(1, b); });
    t1.join();
    t2.join();
    if (failures[0] || failures[1]) {
      std::printf("FAIL: threads driving two GPUs: GPU 0 %s, GPU 1 %s\n", failures[0] ? "wrong" : "ok",
                  failures[1] ? "wrong" : "ok");
      return 1;
    }
    std::printf("MEASURED two threads, 8 rounds each on two GPUs: %.2f s\n", seconds_since(t0));
  } catch (const dv::error& e) {
    std::printf("FAIL: %s\n", e.what());
    return 1;
  }
  std::printf("PASS multi_gpu: DualViews on GPU 0 and GPU 1, mirrors page-locked for each, kernels, deep_copy across, two threads\n");
  return 0;
}
