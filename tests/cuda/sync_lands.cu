// A blocking sync_device has landed when it returns (DECISIONS G5, G8), on a real GPU, as a
// Kokkos code with its own non-blocking stream would see it: each round writes a new value
// into every host element, marks, syncs, and at once launches a kernel on a non-blocking
// stream (not ordered after the legacy default stream) that counts the device elements that
// still differ. Small DualViews take the tiny path (one copy from pageable memory on the default stream,
// which CUDA may return from before its DMA lands, then a wait for it); larger ones queue and wait.
// The control is the same sequence with a raw cudaMemcpy from pageable memory and no wait:
// its stale count is printed (MEASURED, what this GPU does), never checked. dualview's must be 0.
// Exit status 0 when it is; prints SKIPPED without a device.
#include <Kokkos_Core.hpp>
#include <Kokkos_DualView.hpp>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "cuda_ok.hpp"

using DV = Kokkos::DualView<double*, Kokkos::LayoutLeft, Kokkos::Cuda>;

/// Add to `*bad` the elements of d[0, n) that are not `want`.
__global__ void count_stale(const double* d, long n, double want, unsigned long long* bad) {
  unsigned long long mine = 0;
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n; i += long(gridDim.x) * blockDim.x) mine += d[i] != want;
  if (mine) atomicAdd(bad, mine);
}

static int grid(long n) { return int(std::min<long>((n + 255) / 256, 1024)); }

/// Rounds of write, modify_host, sync_device, then the kernel on `s`; the stale elements (dualview, raw).
static int run(long n, int rounds, cudaStream_t s, unsigned long long* bad, unsigned long long out[2]) {
  DV a("lands", n);
  std::vector<double> h(n);
  double* d = nullptr;
  CUDA_OK(cudaMalloc(&d, n * sizeof(double)));
  CUDA_OK(cudaMemset(bad, 0, 2 * sizeof(unsigned long long)));
  CUDA_OK(cudaDeviceSynchronize());
  for (int r = 0; r < rounds; ++r) {
    const double v = r + 1.0;
    for (long i = 0; i < n; ++i) a.h_view(i) = v;
    a.modify_host();
    a.sync_device();
    count_stale<<<grid(n), 256, 0, s>>>(a.d_view.data(), n, v, bad);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaStreamSynchronize(s));
    // The control: a raw synchronous copy from pageable memory, read on `s` without a wait.
    for (long i = 0; i < n; ++i) h[i] = v;
    CUDA_OK(cudaMemcpy(d, h.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    count_stale<<<grid(n), 256, 0, s>>>(d, n, v, bad + 1);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
  }
  CUDA_OK(cudaMemcpy(out, bad, 2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaFree(d));
  return 0;
}

int main(int argc, char** argv) {
  bool cuda = false;
  if (dv_cuda_available(&cuda) != DV_OK || !cuda) {
    std::printf("SKIPPED sync_lands: no CUDA device\n");
    return 0;
  }
  Kokkos::initialize(argc, argv);
  int failures = 0;
  {
    cudaStream_t s;
    unsigned long long* bad = nullptr;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess || cudaMalloc(&bad, 2 * sizeof(unsigned long long)) != cudaSuccess) {
      std::printf("FAIL sync_lands: no stream or counter\n");
      return 1;
    }
    // 8 B, 256 B, 4 KiB and 64 KiB: the tiny path; 1 MiB: queued on the default stream and waited for.
    const long sizes[] = {1, 32, 512, 8192, 131072};
    for (long n : sizes) {
      const int rounds = n > 8192 ? 2000 : 20000;
      unsigned long long out[2] = {0, 0};
      if (run(n, rounds, s, bad, out)) {
        ++failures;
        continue;
      }
      std::printf("MEASURED sync_lands %ld bytes, %d rounds: raw cudaMemcpy then a kernel on a non-blocking stream read %llu stale elements\n",
                  n * 8, rounds, out[1]);
      if (out[0]) {
        std::printf("FAIL sync_lands %ld bytes: a kernel launched after sync_device returned read %llu stale elements\n", n * 8, out[0]);
        ++failures;
      }
    }
    cudaFree(bad);
    cudaStreamDestroy(s);
  }
  Kokkos::finalize();
  std::printf("%s sync_lands\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
