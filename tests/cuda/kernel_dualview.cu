// dualview.hpp inside __global__ kernels: a View and a whole DualView copied
// by value into kernels, a.d_view(i, j) read and written on the device, then
// a sync to the host that checks every element.
#include <cstdio>

#include "dualview.hpp"

using DV = dv::DualView<double**, dv::LayoutLeft, dv::Cuda>;

__global__ void update_view(DV::t_dev d, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int j = 0; j < m; ++j) d(i, j) = 2.0 * d(i, j) + i + 1000.0 * j;
}

__global__ void update_dual_view(DV a, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int j = 0; j < m; ++j) a.d_view(i, j) += static_cast<double>(a.extent(0));
}

__global__ void strided(dv::DualView<float*[4], dv::LayoutRight, dv::Cuda>::t_dev v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int k = 0; k < 4; ++k) v(i, k) = static_cast<float>(10 * i + k);
}

#include "cuda_ok.hpp"

int main() {
  bool cuda = false;
  if (dv_cuda_available(&cuda) != DV_OK || !cuda) {
    std::printf("SKIPPED kernel_dualview: no CUDA device\n");
    return 0;
  }
  const int n = 1000, m = 7;
  try {
    DV a("A", n, m);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) a.h_view(i, j) = i - j;
    a.modify_host();
    a.sync_device();

    update_view<<<(n + 127) / 128, 128>>>(a.d_view, n, m);
    CUDA_OK(cudaGetLastError());
    update_dual_view<<<(n + 127) / 128, 128>>>(a, n, m);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    a.modify_device();
    a.sync_host();  // waits for the device, copies device -> host

    long bad = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) bad += a.h_view(i, j) != 2.0 * (i - j) + i + 1000.0 * j + n;

    dv::DualView<float*[4], dv::LayoutRight, dv::Cuda> b("B", 64);
    strided<<<1, 64>>>(b.d_view, 64);
    CUDA_OK(cudaDeviceSynchronize());
    b.modify_device();
    auto col = dv::subview(b, dv::ALL, 2);  // a strided column, synced with a 2D copy
    col.sync_host();
    for (int i = 0; i < 64; ++i) bad += b.h_view(i, 2) != 10.0f * i + 2;

    if (bad) {
      std::printf("kernel_dualview: %ld wrong elements\n", bad);
      return 1;
    }
    std::printf("kernel_dualview: %d x %d elements updated in kernels and checked on the host\n", n, m);
  } catch (const dv::error& e) {
    std::printf("kernel_dualview: %s\n", e.what());
    return 1;
  }
  return 0;
}
