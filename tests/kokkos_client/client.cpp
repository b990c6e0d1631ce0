/*
 * A client-style program (miniMD / FLCL style) over dualview's Kokkos names:
 * typedefs of DualViews on one execution space, functors templated on the
 * execution space that take their Views with `dv.view<Space>()` and mark
 * them with `sync<Space>()` / `modify<Space>()`, a team kernel with team
 * scratch Views sized by `View::shmem_size`, and the results checked against
 * a serial reference (exit status 1 on a mismatch). The dispatch (policies,
 * parallel_for / reduce / scan) is this test's own shim, dispatch_shim.hpp.
 *
 * Built twice: with -DKOKKOS_CLIENT_TEST_DEVICE the execution space is the
 * test device (two allocations per DualView, real copies); without, Serial.
 */
#include <Kokkos_Core.hpp>
#include <Kokkos_DualView.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

#include "dispatch_shim.hpp"

#if defined(KOKKOS_CLIENT_TEST_DEVICE)
typedef Kokkos::TestDevice ExecSpace;
#else
typedef Kokkos::Serial ExecSpace;
#endif
typedef ExecSpace::memory_space MemSpace;
typedef Kokkos::Device<ExecSpace, MemSpace> DeviceType;
typedef Kokkos::HostSpace::execution_space HostExec;

// miniMD's types.h, in short.
typedef Kokkos::DualView<double* [3], Kokkos::LayoutRight, DeviceType> tdual_x_array;
typedef Kokkos::DualView<double*, DeviceType> tdual_double_1d;

namespace {

const std::size_t N = 1000;   // particles
const int TEAM_BLOCK = 64;    // particles per team
const double DT = 0.005;

double x0(std::size_t i, int d) { return 0.25 * static_cast<double>((i * 7 + static_cast<std::size_t>(d) * 13) % 97) - 3.0; }
double v0(std::size_t i, int d) { return 0.01 * static_cast<double>((i * 11 + static_cast<std::size_t>(d) * 5) % 31) - 0.15; }

/// x += dt * v, on the execution space `Exec` (miniMD's integrate, initialIntegrate).
template <class Exec>
struct Integrate {
  typedef Exec execution_space;
  typedef typename Exec::memory_space memory_space;
  Kokkos::View<double* [3], Kokkos::LayoutRight, typename Exec::device_type> x;
  Kokkos::View<const double* [3], Kokkos::LayoutRight, typename Exec::device_type> v;
  double dt;

  Integrate(tdual_x_array& dx, tdual_x_array& dv, double dt_) : dt(dt_) {
    dx.template sync<memory_space>();
    dv.template sync<memory_space>();
    x = dx.template view<memory_space>();
    v = dv.template view<typename Exec::device_type>();  // Kokkos' view<Device>()
    Kokkos::parallel_for("integrate", Kokkos::RangePolicy<Exec>(0, dx.extent(0)), *this);
    dx.template modify<memory_space>();
  }
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i) const {
    for (int d = 0; d < 3; ++d) x(i, d) += dt * v(i, d);
  }
};

/// The sum of x(i,0) * x(i,1) (a reduction, as miniMD's energy).
template <class Exec>
struct Energy {
  typedef Exec execution_space;
  Kokkos::View<const double* [3], Kokkos::LayoutRight, typename Exec::device_type> x;
  double result = 0;
  explicit Energy(tdual_x_array& dx) {
    dx.template sync<Exec>();  // an execution space as the template argument
    x = dx.template view<Exec>();
    Kokkos::parallel_reduce("energy", Kokkos::RangePolicy<Exec>(0, dx.extent(0)), *this, result);
  }
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i, double& e) const { e += x(i, 0) * x(i, 1); }
};

/// Per block of TEAM_BLOCK particles (one team each), as Kokkos' team_scan
/// example: the block's values staged in team scratch, an inclusive prefix
/// sum over the block, written to `out`. Scratch: a rank-1 View for the
/// values and a rank-2 one for the block's coordinates.
template <class Exec>
struct BlockScan {
  typedef Exec execution_space;
  typedef typename Exec::memory_space memory_space;
  typedef Kokkos::TeamPolicy<Exec> policy;
  typedef typename policy::member_type member_type;
  typedef Kokkos::View<double*, typename Exec::scratch_memory_space, Kokkos::MemoryUnmanaged> scratch_1d;
  typedef Kokkos::View<double* [3], typename Exec::scratch_memory_space, Kokkos::MemoryUnmanaged> scratch_x;

  Kokkos::View<const double* [3], Kokkos::LayoutRight, typename Exec::device_type> x;
  Kokkos::View<double*, typename Exec::device_type> out;
  int n;

  BlockScan(tdual_x_array& dx, tdual_double_1d& dout) : n(static_cast<int>(dx.extent(0))) {
    dx.template sync<DeviceType>();
    dout.template sync<memory_space>();
    x = dx.template view<memory_space>();
    out = dout.template view<memory_space>();
    const int league = (n + TEAM_BLOCK - 1) / TEAM_BLOCK;
    const std::size_t bytes = scratch_1d::shmem_size(TEAM_BLOCK) + scratch_x::shmem_size(TEAM_BLOCK);
    Kokkos::parallel_for("block_scan", policy(league, 1).set_scratch_size(0, Kokkos::PerTeam(bytes)), *this);
    dout.template modify<DeviceType>();
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int first = team.league_rank() * TEAM_BLOCK;
    const int count = first + TEAM_BLOCK <= n ? TEAM_BLOCK : n - first;
    scratch_1d vals(team.team_scratch(0), TEAM_BLOCK);
    scratch_x xs(team.team_scratch(0), TEAM_BLOCK);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](std::size_t k) {
      for (int d = 0; d < 3; ++d) xs(k, d) = x(first + k, d);
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](std::size_t k) { vals(k) = xs(k, 0) + 2.0 * xs(k, 2) - xs(k, 1); });
    team.team_barrier();
    Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, count), [&](std::size_t k, double& partial, bool final) {
      partial += vals(k);
      if (final) out(first + k) = partial;
    });
  }
};

int failures = 0;
void expect_near(const char* what, std::size_t i, double got, double want) {
  if (std::fabs(got - want) > 1e-12 * (1.0 + std::fabs(want))) {
    if (failures < 10) std::fprintf(stderr, "mismatch: %s[%zu] = %.17g, reference %.17g\n", what, i, got, want);
    ++failures;
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  {
    tdual_x_array x("x", N), v("v", N);
    tdual_double_1d out("out", N);

    // Set up on the host (miniMD's atom creation).
    auto h_x = x.view<Kokkos::HostSpace>();
    auto h_v = v.view<HostExec>();
    for (std::size_t i = 0; i < N; ++i)
      for (int d = 0; d < 3; ++d) {
        h_x(i, d) = x0(i, d);
        h_v(i, d) = v0(i, d);
      }
    x.modify<Kokkos::HostSpace>();
    v.modify<HostExec>();

    // The steps, on ExecSpace.
    for (int step = 0; step < 10; ++step) Integrate<ExecSpace>(x, v, DT);
    const double energy = Energy<ExecSpace>(x).result;
    BlockScan<ExecSpace> scan(x, out);
    // The same functor on the host: Energy<HostExec> syncs x back first.
    const double energy_host = Energy<HostExec>(x).result;

    // Back on the host.
    x.sync<Kokkos::HostSpace>();
    out.sync<Kokkos::HostSpace>();
    h_x = x.view<Kokkos::HostSpace>();
    auto h_out = out.view<Kokkos::HostSpace>();

    // The serial reference.
    std::vector<double> rx(3 * N);
    for (std::size_t i = 0; i < N; ++i)
      for (int d = 0; d < 3; ++d) {
        double xi = x0(i, d);
        for (int step = 0; step < 10; ++step) xi += DT * v0(i, d);
        rx[3 * i + d] = xi;
      }
    double re = 0;
    for (std::size_t i = 0; i < N; ++i) re += rx[3 * i] * rx[3 * i + 1];
    for (std::size_t i = 0; i < N; ++i)
      for (int d = 0; d < 3; ++d) expect_near("x", 3 * i + d, h_x(i, d), rx[3 * i + d]);
    expect_near("energy", 0, energy, re);
    expect_near("energy_host", 0, energy_host, re);
    for (std::size_t b = 0; b < N; b += TEAM_BLOCK) {
      double partial = 0;
      for (std::size_t i = b; i < N && i < b + TEAM_BLOCK; ++i) {
        partial += rx[3 * i] + 2.0 * rx[3 * i + 2] - rx[3 * i + 1];
        expect_near("out", i, h_out(i), partial);
      }
    }
    // On the test device the DualViews have two sides, and the host side was brought up to date by copies.
    const bool two_sides = x.d_view.data() != x.h_view.data();
#if defined(KOKKOS_CLIENT_TEST_DEVICE)
    if (!two_sides) {
      std::fprintf(stderr, "expected two-space DualViews on the test device\n");
      ++failures;
    }
#endif
    std::printf("kokkos_client on %s: %s DualViews, energy %.6f, %d mismatches\n", ExecSpace::name(),
                two_sides ? "two-space" : "one-space", energy, failures);
  }
  Kokkos::finalize();
  return failures == 0 ? 0 : 1;
}
