// A 2-D Jacobi solver, domain-decomposed by rows over MPI ranks. Each rank's
// block and its two halo rows live in a DualView. Each step: the update on
// the device side (a CUDA kernel when built with nvcc on a GPU; otherwise the
// test device, host memory playing the device), the rows to send synced to
// the host through subviews, the halo exchange through MPI on host buffers (or
// device pointers with CUDA-aware MPI), the received halo rows pushed back:
// halo bytes move, not the block. After K steps rank 0 gathers the grid and checks
// it bit for bit against a single-rank run.
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "dualview.hpp"

#if defined(__CUDACC__)
using Dev = dv::Device<dv::Cuda, dv::CudaSpace>;
#else
using Dev = dv::Device<dv::TestDevice, dv::TestDeviceSpace>;
#endif
using Grid = dv::DualView<double**, dv::LayoutRight, Dev>;

/// One Jacobi sweep over rows [1, rows-1) of a (rows x ny) array, given by pointers.
DV_INLINE_FUNCTION void sweep_point(const double* u, double* v, int i, int j, int ny) {
  v[i * ny + j] = 0.25 * (u[(i - 1) * ny + j] + u[(i + 1) * ny + j] + u[i * ny + j - 1] + u[i * ny + j + 1]);
}

#if defined(__CUDACC__)
__global__ void sweep_kernel(Grid::t_dev u, Grid::t_dev v, int first, int last, int ny) {
  int i = first + blockIdx.y;
  int j = 1 + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < last && j < ny - 1) v(i, j) = 0.25 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1));
}
#endif

/// The reference: the whole grid on one process, same arithmetic.
static std::vector<double> serial(int nx, int ny, int steps) {
  std::vector<double> u(nx * ny, 0.0), v;
  for (int j = 0; j < ny; ++j) u[j] = 1.0;  // hot top edge
  v = u;
  for (int s = 0; s < steps; ++s) {
    for (int i = 1; i < nx - 1; ++i)
      for (int j = 1; j < ny - 1; ++j) sweep_point(u.data(), v.data(), i, j, ny);
    std::swap(u, v);
  }
  return u;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int nx = 64, ny = 48, steps = 50;
  // The device as Kokkos maps it: one per node-local rank (docs/CPP.md, "Which GPU a process uses").
  dv::DeviceSettings where;
  where.space = Dev::memory_space::code;
  const unsigned device = dv::initialize(argc, argv, where);
  std::vector<unsigned> devices(size);
  MPI_Gather(&device, 1, MPI_UNSIGNED, devices.data(), 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("jacobi: devices by rank:");
    for (unsigned d : devices) std::printf(" %u", d);
    std::printf("\n");
  }

  bool cuda_aware = false;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  cuda_aware = MPIX_Query_cuda_support() == 1;
#endif
#if defined(__CUDACC__)
  const bool device_halos = cuda_aware;
  const char* update = "CUDA kernel";
#else
  const bool device_halos = false;
  const char* update = "test device (no CUDA build)";
#endif

  // Rows owned by this rank: [r0, r1) of the global grid, plus a halo row on each side.
  const int base = nx / size, extra = nx % size;
  const int r0 = rank * base + (rank < extra ? rank : extra);
  const int own = base + (rank < extra ? 1 : 0);
  const int rows = own + 2;
  int failures = 0;
  try {
    Grid u("u", rows, ny), v("v", rows, ny);
    // Initial condition on the host: global row 0 is the hot edge.
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < ny; ++j) u.h_view(i, j) = (r0 + i - 1 == 0) ? 1.0 : 0.0;
    u.modify_host();
    u.sync_device();
    dv::deep_copy(v, u);  // v = u on the device side, v's device marked
    const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    // Interior rows of this block that are interior rows of the global grid.
    const int first = (r0 == 0) ? 2 : 1;
    const int last = (r0 + own == nx) ? own : own + 1;

    for (int s = 0; s < steps; ++s) {
      // 1. Update on the device side.
#if defined(__CUDACC__)
      dim3 grid((ny + 127) / 128, last - first);
      sweep_kernel<<<grid, 128>>>(u.d_view, v.d_view, first, last, ny);
      cudaDeviceSynchronize();
#else
      for (int i = first; i < last; ++i)
        for (int j = 1; j < ny - 1; ++j) sweep_point(u.d_view.data(), v.d_view.data(), i, j, ny);
#endif
      v.modify_device();
      // 2. Halo exchange: with CUDA-aware MPI straight from the device, otherwise through the host,
      //    moving only the rows MPI reads (rows 1 and own, through subviews) and writes (rows 0 and own + 1).
      double* base_ptr;
      if (device_halos) {
        base_ptr = v.d_view.data();
      } else {
        if (up != MPI_PROC_NULL) dv::subview(v, 1, dv::ALL).sync_host();
        if (down != MPI_PROC_NULL) dv::subview(v, own, dv::ALL).sync_host();
        base_ptr = v.h_view.data();
      }
      MPI_Sendrecv(base_ptr + 1 * ny, ny, MPI_DOUBLE, up, 0, base_ptr + (own + 1) * ny, ny, MPI_DOUBLE, down, 0,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Sendrecv(base_ptr + own * ny, ny, MPI_DOUBLE, down, 1, base_ptr + 0 * ny, ny, MPI_DOUBLE, up, 1,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      // 3. The halo rows were written on the host: push them (alone) to the device. The rest of the
      //    block stays the device's (push_host does not pull it to the host, as modify_host would).
      if (!device_halos) {
        if (up != MPI_PROC_NULL) dv::subview(v, 0, dv::ALL).push_host();
        if (down != MPI_PROC_NULL) dv::subview(v, own + 1, dv::ALL).push_host();
      }
      std::swap(u, v);
    }
    u.sync_host();

    // Gather the owned rows on rank 0 and compare with the serial run, bit for bit.
    std::vector<int> counts(size), displs(size);
    int mine = own * ny;
    MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int k = 1; k < size; ++k) displs[k] = displs[k - 1] + counts[k - 1];
    std::vector<double> all(rank == 0 ? nx * ny : 0);
    MPI_Gatherv(u.h_view.data() + ny, mine, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
    if (rank == 0) {
      std::vector<double> ref = serial(nx, ny, steps);
      bool same = std::memcmp(ref.data(), all.data(), ref.size() * sizeof(double)) == 0;
      failures += same ? 0 : 1;
      dv_stats_t st = u.stats();
      std::printf("jacobi: %d rank(s), %dx%d, %d steps; update: %s; halos: %s; CUDA-aware MPI: %s; "
                  "bitwise equal to the single-rank run: %s (%llu syncs to host on rank 0's grid)\n",
                  size, nx, ny, steps, update, device_halos ? "device pointers" : "host buffers",
                  cuda_aware ? "yes" : "no", same ? "yes" : "NO", (unsigned long long)st.to_host_count);
    }
  } catch (const dv::error& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    failures += 1;
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
