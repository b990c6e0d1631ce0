// Checked mode on a real GPU (issue 20): a CUDA kernel writes the device side of
// a checked DualView (DV_FLAG_CHECKED) and modify_device() is forgotten (M02):
// the next sync_host answers DV_ERROR_UNMARKED_CHANGE with the first index the
// kernel changed, and copies nothing; after the modify the sync brings every
// value. Then a halo row is pushed alone (dv_push_host) and both sides agree.
// Last, the C++ API under DV_CHECK=1 (set before the first DualView): a
// Kokkos-style missing modify_device() after a kernel throws dv::unmarked_change.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "dualview.hpp"
#include "cuda_ok.hpp"

using CppDV = dv::DualView<double*, dv::LayoutLeft, dv::Cuda>;

__global__ void set_all(CppDV::t_dev d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d(i) = 3.0;
}

__global__ void write_from(double* d, int n, int first) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= first && i < n) d[i] = 2.0 * i;
}

#define EXPECT(c)                                                           \
  do {                                                                      \
    if (!(c)) {                                                             \
      std::printf("FAIL checked_dualview: %s (%s)\n", #c, dv_last_error()); \
      return 1;                                                             \
    }                                                                       \
  } while (0)

int main() {
  setenv("DV_CHECK", "1", 1);  // read once, at the first DualView
  bool cuda = false;
  if (dv_cuda_available(&cuda) != DV_OK || !cuda) {
    std::printf("SKIPPED checked_dualview: no CUDA device\n");
    return 0;
  }
  const int n = 1 << 20;  // 8 MiB
  dv_desc_t desc;
  std::memset(&desc, 0, sizeof desc);
  desc.dtype = DV_DTYPE_FLOAT64;
  desc.layout = DV_LAYOUT_LEFT;
  desc.space = DV_SPACE_CUDA;
  desc.flags = DV_FLAG_CHECKED;
  desc.extents.rank = 1;
  desc.extents.extent[0] = n;
  dv_dualview_t* a = nullptr;
  EXPECT(dv_create("checked_gpu", &desc, &a) == DV_OK);
  void* dp = nullptr;
  void* hp = nullptr;
  EXPECT(dv_device_ptr(a, &dp) == DV_OK && dv_host_ptr(a, &hp) == DV_OK);
  write_from<<<(n + 255) / 256, 256>>>(static_cast<double*>(dp), n, 12345);  // modify_device() forgotten
  CUDA_OK(cudaGetLastError());
  EXPECT(dv_sync_host(a) == DV_ERROR_UNMARKED_CHANGE);
  EXPECT(std::strstr(dv_last_error(), "device side changed without dv_modify_device()") != nullptr);
  EXPECT(std::strstr(dv_last_error(), "First changed index: (12345)") != nullptr);
  dv_stats_t s;
  EXPECT(dv_stats(a, &s) == DV_OK && s.to_host_count == 0);
  EXPECT(dv_modify_device(a) == DV_OK && dv_sync_host(a) == DV_OK);
  const double* h = static_cast<const double*>(hp);
  long wrong = 0;
  for (int i = 0; i < n; ++i) wrong += h[i] != (i >= 12345 ? 2.0 * i : 0.0);
  EXPECT(wrong == 0);
  // A halo row: the first 1000 elements written on the host, pushed alone.
  dv_range_t r = {DV_RANGE, 0, 0, 1000};
  dv_dualview_t* halo = nullptr;
  EXPECT(dv_subview(a, &r, 1, &halo) == DV_OK);
  for (int i = 0; i < 1000; ++i) static_cast<double*>(hp)[i] = -1.0;
  EXPECT(dv_push_host(halo) == DV_OK);
  std::vector<double> back(1000);
  CUDA_OK(cudaMemcpy(back.data(), dp, 1000 * sizeof(double), cudaMemcpyDeviceToHost));
  for (double v : back) wrong += v != -1.0;
  EXPECT(wrong == 0);
  EXPECT(dv_stats(a, &s) == DV_OK && s.to_device_bytes == 8000);
  EXPECT(dv_destroy(halo) == DV_OK && dv_destroy(a) == DV_OK);
  // The C++ API: a Kokkos-style kernel, then modify_device() forgotten.
  bool thrown = false;
  try {
    CppDV b("cpp_checked", 4096);
    set_all<<<16, 256>>>(b.d_view, 4096);
    CUDA_OK(cudaGetLastError());
    try {
      b.sync_host();
    } catch (const dv::unmarked_change& e) {
      thrown = std::strstr(e.what(), "device side changed without a.modify_device()") != nullptr;
    }
    b.modify_device();
    b.sync_host();
    EXPECT(b.h_view(4095) == 3.0);
  } catch (const dv::error& e) {
    std::printf("FAIL checked_dualview: %s\n", e.what());
    return 1;
  }
  EXPECT(thrown);
  std::printf("PASS checked_dualview: the kernel's unmarked write was caught at index 12345 (C) and in C++; "
              "the halo pushed alone\n");
  return 0;
}
