// Kokkos names inside CUDA kernels (issue 21): Kokkos::complex arithmetic on a
// DualView of complex<double>, and team scratch Views made from a
// ScratchMemorySpace over a block's __shared__ memory (Kokkos::Cuda's
// scratch_memory_space, View(scratch, n), View::shmem_size). Every result is
// checked on the host after a sync.
#include <Kokkos_Core.hpp>
#include <complex>
#include <cstdio>

#include "cuda_ok.hpp"

using cplx = Kokkos::complex<double>;
using ZDV = Kokkos::DualView<cplx*, Kokkos::LayoutLeft, Kokkos::Cuda>;
using RDV = Kokkos::DualView<double*, Kokkos::LayoutLeft, Kokkos::Cuda>;
using scratch_1d = Kokkos::View<double*, Kokkos::Cuda::scratch_memory_space, Kokkos::MemoryUnmanaged>;

// z = z * i + conj(z) / 2 - |z|^2 (as a real), written in place on the device.
__global__ void rotate(ZDV::t_dev z, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z(i) = z(i) * cplx(0.0, 1.0) + Kokkos::conj(z(i)) / 2.0 - Kokkos::norm(z(i));
}

// The device math functions: |z| + arg(e^(0.5i)) + |sqrt(z)|^2 - |z| = |z| + 0.5 within rounding.
__global__ void magnitudes(ZDV::t_dev z, RDV::t_dev m, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const cplx r = Kokkos::sqrt(z(i));
  m(i) = Kokkos::abs(z(i)) + Kokkos::arg(Kokkos::exp(cplx(0.0, 0.5))) + Kokkos::norm(r) - Kokkos::abs(Kokkos::pow(z(i), 1.0));
}

// A device-only View of complex numbers: born (0, 0), then z += (i, 1).
__global__ void bump(Kokkos::View<cplx*, Kokkos::CudaSpace> w, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w(i) += cplx(i, 1.0);
}

// One block = one team: the block's values go through a scratch View, thread 0 sums them.
__global__ void block_sums(RDV::t_dev in, RDV::t_dev out, std::size_t team_bytes) {
  extern __shared__ char team_buffer[];
  Kokkos::Cuda::scratch_memory_space team(team_buffer, team_bytes);
  scratch_1d vals(team, blockDim.x);
  vals(threadIdx.x) = in(blockIdx.x * blockDim.x + threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0) {
    double s = 0;
    for (unsigned k = 0; k < blockDim.x; ++k) s += vals(k);
    out(blockIdx.x) = s;
  }
}

int main() {
  bool cuda = false;
  if (dv_cuda_available(&cuda) != DV_OK || !cuda) {
    std::printf("SKIPPED kokkos_device_names: no CUDA device\n");
    return 0;
  }
  int failures = 0;
  try {
    const int n = 1 << 20;
    ZDV z("z", n);
    for (int i = 0; i < n; ++i) z.h_view(i) = cplx(i % 7, -(i % 5));
    z.modify_host();
    z.sync_device();
    rotate<<<(n + 255) / 256, 256>>>(z.d_view, n);
    CUDA_OK(cudaGetLastError());
    z.modify_device();
    z.sync_host();
    for (int i = 0; i < n; ++i) {
      const double a = i % 7, b = -(i % 5);
      // (a + bi) i = -b + ai; conj / 2 = (a/2, -b/2); minus a^2 + b^2
      const cplx want(-b + a / 2 - (a * a + b * b), a - b / 2);
      if (z.h_view(i) != want && failures++ < 5) std::printf("FAIL complex z(%d) = (%g,%g), want (%g,%g)\n", i, z.h_view(i).real(), z.h_view(i).imag(), want.real(), want.imag());
    }

    RDV m("m", n);
    magnitudes<<<(n + 255) / 256, 256>>>(z.d_view, m.d_view, n);
    CUDA_OK(cudaGetLastError());
    m.modify_device();
    m.sync_host();
    for (int i = 0; i < n; ++i) {
      const double want = std::abs(std::complex<double>(z.h_view(i))) + 0.5;
      if (!(std::abs(m.h_view(i) - want) <= 1e-12 * (1 + want)) && failures++ < 10) std::printf("FAIL |z(%d)| + 0.5 = %.17g, want %.17g\n", i, m.h_view(i), want);
    }

    // Kokkos::View<Kokkos::complex<double>*> of a .cu program: CudaSpace memory,
    // zero-initialised without a host pass (the zero fill is (0, 0)).
    Kokkos::View<cplx*, Kokkos::CudaSpace> w("w", n);
    bump<<<(n + 255) / 256, 256>>>(w, n);
    CUDA_OK(cudaGetLastError());
    auto wh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), w);
    for (int i = 0; i < n; ++i)
      if (wh(i) != cplx(i, 1.0) && failures++ < 10) std::printf("FAIL device View w(%d) = (%g,%g)\n", i, wh(i).real(), wh(i).imag());

    const int team = 128, teams = 4096;
    const std::size_t bytes = scratch_1d::shmem_size(team);
    if (bytes != team * sizeof(double) + sizeof(double)) {
      std::printf("FAIL shmem_size(%d) = %zu\n", team, bytes);
      ++failures;
    }
    RDV in("in", team * teams), out("out", teams);
    for (int i = 0; i < team * teams; ++i) in.h_view(i) = i % 1000;
    in.modify_host();
    in.sync_device();
    block_sums<<<teams, team, bytes>>>(in.d_view, out.d_view, bytes);
    CUDA_OK(cudaGetLastError());
    out.modify_device();
    out.sync_host();
    for (int t = 0; t < teams; ++t) {
      double want = 0;
      for (int k = 0; k < team; ++k) want += (t * team + k) % 1000;
      if (out.h_view(t) != want && failures++ < 10) std::printf("FAIL block sum %d = %g, want %g\n", t, out.h_view(t), want);
    }
  } catch (const std::exception& e) {
    std::printf("FAIL kokkos_device_names: %s\n", e.what());
    return 1;
  }
  if (failures) return 1;
  std::printf("PASS kokkos_device_names: complex kernels over 1M elements (arithmetic exact, abs/arg/exp/sqrt/pow to 1e-12), a device-only complex View, 4096 scratch-View block sums\n");
  return 0;
}
