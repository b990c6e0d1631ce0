// A program written as a Kokkos user writes it, against the compat header only.
// The usage block of the Kokkos DualView documentation (seed 000) appears
// verbatim below, between the BEGIN/END markers; the two lines before it give
// the names it uses (the seed writes both `view_type` and `ViewType`, and
// leaves out one semicolon; see docs/DECISIONS.md).
#include <dualview/kokkos_compat.hpp>

#include <cstdio>
#include <vector>

// LAMMPS-style typedef factory: an execution space as the third argument.
using LMPDeviceType = Kokkos::DefaultExecutionSpace;
using LMPHostType = Kokkos::DefaultHostExecutionSpace;
typedef Kokkos::DualView<double*[3], Kokkos::LayoutRight, LMPDeviceType> tdual_x_array;
typedef tdual_x_array::t_dev t_x_array;
typedef tdual_x_array::t_dev_const t_x_array_const;
typedef tdual_x_array::t_dev_um t_x_array_um;
typedef tdual_x_array::t_dev_const_randomread t_x_array_randomread;
typedef Kokkos::DualView<double**, Kokkos::LayoutRight, LMPDeviceType> tdual_ffloat_2d;

template <class Scalar, class Device>
int seed_usage(int n, int m) {
  using view_type = Kokkos::DualView<Scalar**, Kokkos::LayoutLeft, Device>;
  using ViewType = view_type;
  // BEGIN seed 000 usage block
    view_type a("A", n, m);

    Kokkos::deep_copy(a.d_view, 1);
    a.template modify<typename view_type::execution_space>();
    a.template sync<typename view_type::host_mirror_space>();

    Kokkos::deep_copy(a.h_view, 2);
    a.template modify<typename ViewType::host_mirror_space>();
    a.template sync<typename ViewType::execution_space>();
  // END seed 000 usage block
  int bad = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) bad += a.h_view(i, j) != Scalar(2);
  return bad + (a.need_sync_host() || a.need_sync_device() ? 1 : 0);
}

// A pair style's coefficient table, templated on the device type as in LAMMPS.
template <class DeviceType>
struct PairLJ {
  tdual_ffloat_2d k_cutsq;
  typename tdual_ffloat_2d::t_dev d_cutsq;
  explicit PairLJ(int ntypes) : k_cutsq("pair:cutsq", ntypes + 1, ntypes + 1) {}
  void init_one(int i, int j, double cut) {
    k_cutsq.h_view(i, j) = k_cutsq.h_view(j, i) = cut * cut;
    k_cutsq.template modify<LMPHostType>();
  }
  double compute(int i, int j) {
    k_cutsq.template sync<DeviceType>();
    d_cutsq = k_cutsq.template view<DeviceType>();
    return d_cutsq(i, j);
  }
};

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  int failures = seed_usage<double, Kokkos::DefaultExecutionSpace>(10, 3);

  // Atom positions with legacy row pointers, rebuilt after every grow.
  tdual_x_array k_x("atom:x", 4);
  std::vector<double*> x(4);
  for (int i = 0; i < 4; ++i) x[i] = &k_x.h_view(i, 0);
  x[3][2] = 1.25;
  k_x.modify_host();
  Kokkos::resize(k_x, 16);  // grow: both sides keep their atoms
  x.resize(16);
  for (int i = 0; i < 16; ++i) x[i] = &k_x.h_view(i, 0);
  failures += x[3][2] != 1.25;
  k_x.template sync<LMPDeviceType>();
  t_x_array d_x = k_x.template view<LMPDeviceType>();
  t_x_array_const c_x = d_x;
  failures += c_x(3, 2) != 1.25;

  PairLJ<LMPDeviceType> pair(2);
  pair.init_one(1, 2, 2.5);
  failures += pair.compute(2, 1) != 6.25;

  // Per-atom energies: modify on the device type, sync to the host type.
  Kokkos::DualView<double*, LMPDeviceType> k_eatom("eatom", 8);
  Kokkos::deep_copy(k_eatom.d_view, 0.5);
  k_eatom.template modify<LMPDeviceType>();
  k_eatom.template sync<LMPHostType>();
  failures += k_eatom.h_view(7) != 0.5;

  auto sub = Kokkos::subview(k_x, Kokkos::make_pair(0, 2), Kokkos::ALL);
  failures += sub.extent(0) != 2;

  Kokkos::finalize();
  std::printf("kokkos_usage: %s\n", failures ? "FAILED" : "seed usage block and LAMMPS patterns ran unchanged");
  return failures ? 1 : 0;
}
