// Where the tiny round trip's time goes (issue 45, the tiny target): the row of
// benches/kokkos_rows.cu (write 1 double, modify_host, sync_device, Kokkos::fence)
// beside its parts and beside the driver calls the library makes for it, in
// interleaved batches in one process (the median of 15 batches of 1,000 each).
// Also the cost of the host's clock (the library reads it twice per copying sync) and of
// a locked read-modify-write (the library's locks, reference counts and counters).
// Build and run on the GPU machine, against .gpu/lib (scripts/gpu-prepare.sh):
//   nvcc -std=c++17 -O2 -arch=native -Iinclude -Iinclude/dualview/kokkos benches/tiny_parts.cu \
//     -o tiny_parts -L.gpu/lib -ldualview -lcuda && ./tiny_parts
#include <Kokkos_Core.hpp>
#include <Kokkos_DualView.hpp>
#include <cuda.h>
#include <cuda_runtime.h>

#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

namespace {
using DV1 = Kokkos::DualView<double*, Kokkos::LayoutRight, Kokkos::Cuda>;
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  DV1 a("tiny", 1);
  double* d = nullptr;
  cudaMalloc(&d, sizeof(double));
  double* h = a.h_view.data();
  const CUdeviceptr dv = reinterpret_cast<CUdeviceptr>(a.d_view.data());
  volatile double x = 0;
  timespec ts;
  CUcontext cur;
  std::atomic<long> counter{0};
  std::mutex lock;
  std::atomic<int> word{0};
  std::atomic<long> borrow[2] = {0, 0}, stats[6] = {0, 0, 0, 0, 0, 0};
  std::vector<std::pair<const char*, std::function<void(int)>>> v = {
      {"row: h(0)=x; modify_host; sync_device; Kokkos::fence", [&](int i) { a.h_view(0) = i + 0.5; a.modify_host(); a.sync_device(); Kokkos::fence(); }},
      {"row with the fence as cuCtxSynchronize", [&](int i) { a.h_view(0) = i + 0.5; a.modify_host(); a.sync_device(); cuCtxSynchronize(); }},
      {"modify_host; sync_device (no fence)", [&](int i) { a.h_view(0) = i + 0.5; a.modify_host(); a.sync_device(); }},
      {"Kokkos::fence alone", [&](int) { Kokkos::fence(); }},
      {"cuCtxSynchronize alone", [&](int) { cuCtxSynchronize(); }},
      {"the library's driver calls: cuCtxSync; cuMemcpyHtoDAsync(0) from h_view; cuStreamSync(0); cuCtxSync",
       [&](int i) { h[0] = i + 0.5; cuCtxSynchronize(); cuMemcpyHtoDAsync(dv, h, sizeof(double), 0); cuStreamSynchronize(0); cuCtxSynchronize(); }},
      {"the same with cuCtxGetCurrent before each sync (the library's binds)",
       [&](int i) { h[0] = i + 0.5; cuCtxGetCurrent(&cur); cuCtxSynchronize(); cuMemcpyHtoDAsync(dv, h, sizeof(double), 0); cuStreamSynchronize(0); cuCtxGetCurrent(&cur); cuCtxSynchronize(); }},
      // The driver calls with the least a thread-safe DualView sync does around them: the flag
      // word marked (modify), a lock, the two sides borrowed and given back, the copy timed (two
      // clock reads) and counted (three adds for the DualView, three for the process), the flag
      // word cleared, the lock released; then the fence.
      {"the driver calls with a lock, 4 flag and borrow CAS, 2 releases, 2 clock reads, 6 counter adds",
       [&](int i) {
         h[0] = i + 0.5;
         int e = 0;
         word.compare_exchange_strong(e, 1);
         {
           std::lock_guard<std::mutex> g(lock);
           long z = 0;
           borrow[0].compare_exchange_strong(z, -1);
           z = 0;
           borrow[1].compare_exchange_strong(z, 1);
           clock_gettime(CLOCK_MONOTONIC, &ts);
           cuCtxSynchronize(); cuMemcpyHtoDAsync(dv, h, sizeof(double), 0); cuStreamSynchronize(0);
           clock_gettime(CLOCK_MONOTONIC, &ts);
           borrow[0].store(0, std::memory_order_release);
           borrow[1].fetch_sub(1);
           e = 1;
           word.compare_exchange_strong(e, 0);
           for (auto& c : stats) c.fetch_add(8);
         }
         cuCtxSynchronize();
       }},
      {"floor: cudaMemcpy from the stack; cudaDeviceSynchronize", [&](int i) { x = i + 0.5; double y = x; cudaMemcpy(d, &y, sizeof y, cudaMemcpyHostToDevice); cudaDeviceSynchronize(); }},
      {"floor, fenced: sync; cudaMemcpy; sync; sync", [&](int i) { x = i + 0.5; double y = x; cudaDeviceSynchronize(); cudaMemcpy(d, &y, sizeof y, cudaMemcpyHostToDevice); cudaDeviceSynchronize(); cudaDeviceSynchronize(); }},
      {"two clock_gettime(CLOCK_MONOTONIC)", [&](int) { clock_gettime(CLOCK_MONOTONIC, &ts); clock_gettime(CLOCK_MONOTONIC, &ts); }},
      {"20 locked increments of one word", [&](int) { for (int k = 0; k < 20; ++k) counter.fetch_add(1); }},
  };
  // TINY_PARTS_BATCH: a smaller batch (a driver trace, DV_TRACE_DRIVER=1, of a few rounds).
  const int batch = std::getenv("TINY_PARTS_BATCH") ? std::atoi(std::getenv("TINY_PARTS_BATCH")) : 1000;
  std::vector<std::vector<double>> t(v.size());
  for (int r = 0; r < 16; ++r)
    for (std::size_t k = 0; k < v.size(); ++k) {
      double t0 = now();
      for (int i = 0; i < batch; ++i) v[k].second(i);
      if (r) t[k].push_back((now() - t0) / batch);
    }
  for (std::size_t k = 0; k < v.size(); ++k) std::printf("PART %8.3f us  %s\n", median(t[k]) * 1e6, v[k].first);
  // The library's row once more, with a value no other part writes: the device holds it.
  const double mark = 12345.25;
  a.h_view(0) = mark;
  a.modify_host();
  a.sync_device();
  Kokkos::fence();
  double got = 0;
  cudaMemcpy(&got, a.d_view.data(), sizeof got, cudaMemcpyDeviceToHost);
  std::printf("PART device value after the row %s\n", got == mark ? "ok" : "WRONG");
  cudaFree(d);
  return got == mark ? 0 : 1;
}
