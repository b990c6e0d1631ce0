// A program of LAMMPS' shape on the real Kokkos with dualview's DualView
// (issue 34): its `tdual_*` aliases changed to dv::with_kokkos::DualView, the
// rest as a Kokkos code writes it: AtomVecKokkos-style grows while views are
// held, pack and unpack kernels with Kokkos::parallel_for on d_view and
// h_view, a border exchange through the host, and a sync. Values are checked
// against what the program wrote. Built against Debian's Kokkos (3.4, Serial)
// in the test command, with DUALVIEW_WITH_KOKKOS_TEST_DEVICE so that the two
// sides are two allocations; against Kokkos 4 for CUDA on a GPU.
#include <Kokkos_Core.hpp>
#include <dualview/with_kokkos.hpp>

#include <cstdio>
#include <cstdlib>

using tdual_x_array = dv::with_kokkos::DualView<double* [3], Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace>;
using tdual_int_1d = dv::with_kokkos::DualView<int*, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace>;
using t_x_array = tdual_x_array::t_dev;

namespace {
int failures = 0;
void check(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what);
    ++failures;
  }
}
KOKKOS_INLINE_FUNCTION double value(long i, int k) { return 3.0 * static_cast<double>(i) + k; }
}  // namespace

// One element of a view, read where the view lives (a device view on CUDA).
template <class V>
double read_where_it_lives(const V& v, long i, int k) {
  double out = 0;
  Kokkos::parallel_reduce(
      "read", Kokkos::RangePolicy<typename V::execution_space>(0, 1), KOKKOS_LAMBDA(long, double& acc) { acc += v(i, k); },
      out);
  return out;
}

struct AtomVec {
  tdual_x_array k_x;
  t_x_array d_x;  // held across grows, as AtomVecKokkos holds d_x
  long nmax = 0;

  void grow(long n) {
    nmax = n;
    if (k_x.d_view.data() == nullptr) k_x = tdual_x_array("atom:x", nmax);
    else Kokkos::resize(k_x, nmax);  // dualview's resize: grows in place where it can, keeps each element's newest value
    d_x = k_x.d_view;
  }
};

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  {
    AtomVec atoms;
    long nlocal = 1000;
    atoms.grow(nlocal);
    auto d_x = atoms.d_x;
    // Device kernel writes the owned atoms.
    Kokkos::parallel_for(
        "init", Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, nlocal), KOKKOS_LAMBDA(long i) {
          for (int k = 0; k < 3; ++k) d_x(i, k) = value(i, k);
        });
    Kokkos::fence();
    atoms.k_x.modify_device();

    // Three grows x1.5 while the device is newer, views held.
    t_x_array held = atoms.k_x.d_view;
    for (int g = 0; g < 3; ++g) atoms.grow(atoms.nmax * 3 / 2);
    check(atoms.k_x.extent(0) == 3375, "grown to 3375");
    check(held.data() != nullptr && read_where_it_lives(held, 999, 2) == value(999, 2), "a view held across the grows still reads its values");
    atoms.k_x.sync_host();
    auto h_x = atoms.k_x.h_view;
    long wrong = 0;
    for (long i = 0; i < nlocal; ++i)
      for (int k = 0; k < 3; ++k) wrong += h_x(i, k) != value(i, k);
    check(wrong == 0, "the grows kept every owned value");

    // Border exchange: pack the first 100 atoms on the device, "send" them
    // through the host, unpack them as ghosts after the owned ones.
    const long nsend = 100, first_ghost = nlocal;
    tdual_int_1d k_sendlist("sendlist", nsend);
    auto h_list = k_sendlist.h_view;
    for (long j = 0; j < nsend; ++j) h_list(j) = static_cast<int>(nsend - 1 - j);
    k_sendlist.modify_host();
    k_sendlist.sync_device();
    tdual_x_array k_buf("buf", nsend);
    auto d_buf = k_buf.d_view;
    auto d_list = k_sendlist.d_view;
    auto d_x2 = atoms.k_x.d_view;
    Kokkos::parallel_for(
        "pack", Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, nsend), KOKKOS_LAMBDA(long j) {
          for (int k = 0; k < 3; ++k) d_buf(j, k) = d_x2(d_list(j), k);
        });
    Kokkos::fence();
    k_buf.modify_device();
    // The "MPI send" reads the host buffer: synced on Kokkos' execution-space
    // instance (its stream on CUDA), then that instance fenced, as LAMMPS does.
    const Kokkos::DefaultExecutionSpace exec;
    k_buf.sync_host(exec);
    check(!k_buf.need_sync_host(), "sync_host(exec) resets the flags at once");
    exec.fence();
    auto h_buf = k_buf.h_view;
    // Unpack on the host into the ghost rows, a Kokkos kernel on the ghost
    // region's DualView (Kokkos::subview of the DualView), then mark and sync
    // only that region: the sync moves the ghost rows and nothing else.
    auto k_ghost = Kokkos::subview(atoms.k_x, std::make_pair(first_ghost, first_ghost + nsend), Kokkos::ALL);
    auto h_ghost = k_ghost.h_view;  // Kokkos' own subview of the host view
    check(h_ghost.extent(0) == static_cast<std::size_t>(nsend) && h_ghost.data() == &atoms.k_x.h_view(first_ghost, 0),
          "the ghost region's host view is Kokkos' subview of the host view");
    Kokkos::parallel_for(
        "unpack", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, nsend), [=](long j) {
          for (int k = 0; k < 3; ++k) h_ghost(j, k) = h_buf(j, k);
        });
    Kokkos::fence();
    const auto moved_before = atoms.k_x.dualview().stats().to_device_bytes;
    // One space (Serial without the test device): one allocation, nothing to sync or move.
    constexpr bool two = !tdual_x_array::dualview_type::impl_dualview_is_single_device;
    k_ghost.modify_host();
    check(k_ghost.need_sync_device() == two && atoms.k_x.need_sync_device() == two, "the region and the whole need a device sync");
    k_ghost.sync_device();
    check(atoms.k_x.dualview().stats().to_device_bytes - moved_before == (two ? static_cast<uint64_t>(nsend * 3 * sizeof(double)) : 0u),
          "the ghost sync moved the ghost rows only");
    auto d_x3 = atoms.k_x.d_view;
    long bad = 0;
    Kokkos::parallel_reduce(
        "check", Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, nsend),
        KOKKOS_LAMBDA(long j, long& acc) {
          for (int k = 0; k < 3; ++k) acc += d_x3(first_ghost + j, k) != value(nsend - 1 - j, k);
        },
        bad);
    check(bad == 0, "the ghosts arrived on the device");
    check(!atoms.k_x.need_sync_device() && !atoms.k_x.need_sync_host(), "clean after the border sync");
    // The first block: held by `held` and `d_x` alone once the grows moved it, as Kokkos holds it.
    const bool moved = atoms.k_x.d_view.data() != held.data();
    check(!moved || atoms.k_x.old_view_bytes() >= held.span() * sizeof(double), "a replaced block stays while Views hold it");
    tdual_int_1d k_r("realloc", 10);
    k_r.h_view(3) = 7;
    k_r.modify_host();
    Kokkos::realloc(k_r, 20);
    check(k_r.extent(0) == 20 && k_r.h_view(3) == 0 && !k_r.need_sync_device() && !k_r.need_sync_host(),
          "Kokkos::realloc gives zeroed, clean storage of the new extent");
    k_r.h_view(5) = 9;
    k_r.modify_host();
    Kokkos::resize(Kokkos::WithoutInitializing, k_r, 30);
    Kokkos::realloc(Kokkos::WithoutInitializing, k_r, 40);
    Kokkos::resize(k_r, 50);
    check(k_r.extent(0) == 50, "Kokkos::resize / realloc with WithoutInitializing");
    held = t_x_array();
    d_x = t_x_array();
    check(atoms.k_x.old_view_bytes() == 0, "a replaced block goes with its last View");
    std::printf("with_kokkos: Kokkos %d, %s, %ld atoms, ghosts %ld\n", KOKKOS_VERSION, Kokkos::DefaultExecutionSpace::name(), nlocal, nsend);
  }
  Kokkos::finalize();
  if (failures == 0) std::printf("with_kokkos: every check passed\n");
  return failures == 0 ? 0 : 1;
}
