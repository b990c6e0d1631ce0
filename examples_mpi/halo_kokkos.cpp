// The Kokkos halo idiom (issue 30, finding 2), written with Kokkos' names and
// compiled unchanged against dualview's Kokkos-named headers: a Jacobi sweep
// over rows decomposed across MPI ranks, each rank's block and its two ghost
// rows in a Kokkos::DualView<double**, LayoutRight>. Each step, as a Kokkos
// program writes it:
//   kernel on the device; modify_device();
//   sync_host() on the subview of each row to send;
//   MPI_Sendrecv into both ghost rows of the host mirror;
//   then modify_host(); sync_device() on each ghost row's subview, one after the other.
// Under 0.3 the first ghost row's modify_host copied the device's stale copy
// of the second over what MPI had written (and pulled the block to the host).
//
// Rank 0 gathers the grid and compares it bit for bit with a one-process run;
// every rank checks that each step moved its halo rows and nothing else.
//
//   halo_kokkos [rows-per-rank-with-ghosts cols steps] [--bench]
// Defaults: 18 x 48 per rank, 50 steps (the test); the GPU check runs
// 2050 x 4096 per rank, 40 steps; the benchmark 4098 x 4096 per rank.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <Kokkos_DualView.hpp>

#if defined(__CUDACC__)
using Device = Kokkos::Cuda;
#else
using Device = Kokkos::TestDevice;  // a second allocation in host memory: syncs copy, as on a GPU
#endif
using Grid = Kokkos::DualView<double**, Kokkos::LayoutRight, Device>;

/// u -> v over rows [first, last), columns [1, ny - 1), by pointers.
KOKKOS_INLINE_FUNCTION void sweep_point(const double* u, double* v, int i, int j, int ny) {
  v[i * ny + j] = 0.25 * (u[(i - 1) * ny + j] + u[(i + 1) * ny + j] + u[i * ny + j - 1] + u[i * ny + j + 1]);
}

#if defined(__CUDACC__)
__global__ void sweep_kernel(Grid::t_dev u, Grid::t_dev v, int first, int last, int ny) {
  const int i = first + blockIdx.y;
  const int j = 1 + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < last && j < ny - 1) v(i, j) = 0.25 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1));
}
#endif

/// The kernel: on the GPU a CUDA kernel, on the test device a loop over its memory.
static void sweep(const Grid& u, const Grid& v, int first, int last, int ny) {
  if (last <= first) return;
#if defined(__CUDACC__)
  dim3 grid((ny + 127) / 128, last - first);
  sweep_kernel<<<grid, 128>>>(u.d_view, v.d_view, first, last, ny);
  cudaDeviceSynchronize();
#else
  for (int i = first; i < last; ++i)
    for (int j = 1; j < ny - 1; ++j) sweep_point(u.d_view.data(), v.d_view.data(), i, j, ny);
#endif
}

/// The whole grid on one process, same arithmetic: the reference.
static std::vector<double> reference(int nx, int ny, int steps) {
  std::vector<double> u(size_t(nx) * ny, 0.0);
  for (int j = 0; j < ny; ++j) u[j] = 1.0;  // the hot top edge
  std::vector<double> v = u;
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
  bool bench = false;
  std::vector<int> nums;
  for (int k = 1; k < argc; ++k) {
    if (std::string(argv[k]) == "--bench") bench = true;
    else nums.push_back(std::atoi(argv[k]));
  }
  const int rows = nums.size() > 0 ? nums[0] : 18, ny = nums.size() > 1 ? nums[1] : 48;
  const int steps = nums.size() > 2 ? nums[2] : 50;
  const int own = rows - 2, nx = own * size;  // global rows: each rank owns rows - 2
  int failures = 0;
  {
    Kokkos::ScopeGuard guard(argc, argv);  // one device per node-local rank, as Kokkos maps it
    const unsigned device = dv::device_id();
    std::vector<unsigned> devices(size);
    MPI_Gather(&device, 1, MPI_UNSIGNED, devices.data(), 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      std::printf("halo_kokkos: devices by rank:");
      for (unsigned d : devices) std::printf(" %u", d);
      std::printf("\n");
    }
    try {
      Grid u("u", rows, ny), v("v", rows, ny);
      // Global row r0 + i - 1 sits at local row i; global row 0 is the hot edge.
      const int r0 = rank * own;
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < ny; ++j) u.h_view(i, j) = (r0 + i - 1 == 0) ? 1.0 : 0.0;
      u.modify_host();
      u.sync_device();
      Kokkos::deep_copy(v, u);  // v = u on the device, v's device marked
      const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
      const int neighbours = (up != MPI_PROC_NULL) + (down != MPI_PROC_NULL);
      // Local rows that are interior rows of the global grid.
      const int first = rank == 0 ? 2 : 1, last = rank == size - 1 ? own : own + 1;
      const unsigned long long halo = (unsigned long long)neighbours * ny * sizeof(double);
      double seconds = 0;
      for (int s = 0; s < steps; ++s) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        const dv_stats_t before = v.stats();
        sweep(u, v, first, last, ny);
        v.modify_device();
        if (up != MPI_PROC_NULL) Kokkos::subview(v, 1, Kokkos::ALL).sync_host();
        if (down != MPI_PROC_NULL) Kokkos::subview(v, own, Kokkos::ALL).sync_host();
        double* h = v.h_view.data();
        MPI_Sendrecv(h + 1 * ny, ny, MPI_DOUBLE, up, 0, h + size_t(own + 1) * ny, ny, MPI_DOUBLE, down, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(h + size_t(own) * ny, ny, MPI_DOUBLE, down, 1, h + 0, ny, MPI_DOUBLE, up, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        // Both ghost rows are written; now each is marked and synced on its own (Kokkos' idiom).
        if (up != MPI_PROC_NULL) {
          auto g = Kokkos::subview(v, 0, Kokkos::ALL);
          g.modify_host();
          g.sync_device();
        }
        if (down != MPI_PROC_NULL) {
          auto g = Kokkos::subview(v, own + 1, Kokkos::ALL);
          g.modify_host();
          g.sync_device();
        }
        seconds += MPI_Wtime() - t0;
        const dv_stats_t after = v.stats();
        const unsigned long long to_host = after.to_host_bytes - before.to_host_bytes;
        const unsigned long long to_dev = after.to_device_bytes - before.to_device_bytes;
        const unsigned long long other = (after.resize_bytes - before.resize_bytes) + (after.copy_bytes - before.copy_bytes) +
                                         (after.fill_bytes - before.fill_bytes);
        if (to_host != halo || to_dev != halo || other != 0) {
          std::fprintf(stderr, "rank %d step %d: moved %llu B to the host, %llu B to the device, %llu B otherwise; "
                       "the halo rows are %llu B each way\n", rank, s, to_host, to_dev, other, halo);
          failures += 1;
        }
        std::swap(u, v);
      }
      u.sync_host();
      std::vector<int> counts(size), displs(size);
      int mine = own * ny;
      MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
      for (int k = 1; k < size; ++k) displs[k] = displs[k - 1] + counts[k - 1];
      std::vector<double> all(rank == 0 ? size_t(nx) * ny : 0);
      MPI_Gatherv(u.h_view.data() + ny, mine, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                  MPI_COMM_WORLD);
      double worst = 0;
      MPI_Reduce(&seconds, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      int bad = failures;
      MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      if (rank == 0) {
        const std::vector<double> ref = reference(nx, ny, steps);
        const bool same = std::memcmp(ref.data(), all.data(), ref.size() * sizeof(double)) == 0;
        failures += same ? 0 : 1;
        std::printf("halo_kokkos: %d rank(s), %d x %d per rank, %d steps, device %s: bitwise equal to the one-process "
                    "reference: %s; bytes per step: the halo rows only (%llu B each way on an inner rank): %s\n",
                    size, rows, ny, steps, Device::name(), same ? "yes" : "NO",
                    (unsigned long long)2 * ny * sizeof(double), bad == 0 ? "yes" : "NO");
        if (bench)
          std::printf("BENCH halo_kokkos ranks=%d rows=%d cols=%d ms_per_step=%.3f bytes_per_step_each_way=%llu\n", size,
                      rows, ny, 1e3 * worst / steps, (unsigned long long)2 * ny * sizeof(double));
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
      failures += 1;
    }
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
