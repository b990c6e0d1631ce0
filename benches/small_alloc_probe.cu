// The driver's host memory per small device allocation, under the resident-memory
// row of benches/kokkos_rows.cu (issue 45): 50,000 cuMemAlloc of 64 bytes, then
// 50,000 cudaMalloc of 64 bytes, each with the growth of the process' resident
// memory per allocation (/proc/self/statm). Build and run on the GPU machine:
//   nvcc -O2 -std=c++17 -arch=native benches/small_alloc_probe.cu -o small_alloc_probe -lcuda && ./small_alloc_probe
#include <cuda.h>
#include <cuda_runtime.h>

#include "resident.hpp"
#include <unistd.h>

#include <cstdio>
#include <vector>

int main() {
  if (cudaFree(0) != cudaSuccess) {
    std::printf("SKIPPED small_alloc_probe: no CUDA device\n");
    return 0;
  }
  const int n = 50000;
  std::vector<CUdeviceptr> d(n);
  long before = resident_bytes();
  for (auto& p : d)
    if (cuMemAlloc(&p, 64) != CUDA_SUCCESS) return std::printf("FAIL cuMemAlloc\n"), 1;
  long after = resident_bytes();
  std::printf("PROBE cuMemAlloc of 64 B, %d alive: %.0f bytes of resident host memory each\n", n, double(after - before) / n);
  for (auto p : d) cuMemFree(p);
  std::vector<void*> r(n);
  before = resident_bytes();
  for (auto& p : r)
    if (cudaMalloc(&p, 64) != cudaSuccess) return std::printf("FAIL cudaMalloc\n"), 1;
  after = resident_bytes();
  std::printf("PROBE cudaMalloc of 64 B, %d alive: %.0f bytes of resident host memory each\n", n, double(after - before) / n);
  for (auto p : r) cudaFree(p);
  return 0;
}
