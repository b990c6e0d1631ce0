// The tiny round trip of benches/gpu_bench.cu and benches/kokkos_rows.cu, one batch at a
// time: through a DualView of one double (write, modify_host, sync_device, fence), and the
// raw floor (the same double copied by cudaMemcpy from the stack, then synchronized).
// Include after Kokkos' headers (or dualview's Kokkos-named ones).
#pragma once
#include <cuda_runtime.h>

template <class DV>
void tiny_batch(DV& a, int batch) {
  for (int i = 0; i < batch; ++i) {
    a.h_view(0) = i + 0.5;
    a.modify_host();
    a.sync_device();
    Kokkos::fence();
  }
}

// The raw floor into `d` (one double on the device); the first error, if any.
inline cudaError_t raw_tiny_batch(double* d, int batch) {
  volatile double x = 0;
  for (int i = 0; i < batch; ++i) {
    x = i + 0.5;
    double y = x;
    cudaError_t e = cudaMemcpy(d, &y, sizeof y, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
