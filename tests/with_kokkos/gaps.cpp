// One test per gap that switching LAMMPS' DualView type to
// dv::with_kokkos::DualView found (issue 43), against the real Kokkos: each
// checks what the program wrote, what Kokkos' own DualView declares, or what
// dualview's block registry holds (dv_live_memory). Built against Debian's
// Kokkos 3.4 in the test command (ctests with_kokkos.gaps.*, both forms) and
// against every Kokkos of KOKKOS_SRC by tests/with_kokkos/run.sh. Prints
// "every check passed". The C++ standard gap is tests/c/header_check.cmake
// (MODE=with_kokkos_cxx14).
#include <Kokkos_Core.hpp>
#include <dualview/with_kokkos.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

namespace {
int failures = 0;
void check(bool ok, const char* gap, const char* what) {
  if (!ok) {
    std::printf("FAILED [%s]: %s\n", gap, what);
    ++failures;
  }
}

using Dev = Kokkos::DefaultExecutionSpace;
using tdual_int_1d = dv::with_kokkos::DualView<int*, Dev::array_layout, Dev>;
using tdual_int_2d = dv::with_kokkos::DualView<int**, Kokkos::LayoutRight, Dev>;
using tdual_x_array = dv::with_kokkos::DualView<double* [3], Kokkos::LayoutRight, Dev>;
using tdual_left = dv::with_kokkos::DualView<double**, Kokkos::LayoutLeft, Dev>;
/// Both sides are two blocks (the test-device form, or a GPU).
constexpr bool two_sides = !std::is_same_v<tdual_x_array::dualview_type::memory_space, dv::HostSpace>;

// ---- gap: every typedef and member type of Kokkos' DualView (compile time) ----
template <class A, class B>
constexpr bool same = std::is_same_v<A, B>;
template <class D, class... P>
constexpr bool types_are_kokkos() {
  using K = Kokkos::DualView<D, P...>;
  using W = dv::with_kokkos::DualView<D, P...>;
  return same<typename K::t_dev, typename W::t_dev> && same<typename K::t_host, typename W::t_host> &&
         same<typename K::t_dev_const, typename W::t_dev_const> && same<typename K::t_host_const, typename W::t_host_const> &&
         same<typename K::t_dev_const_randomread, typename W::t_dev_const_randomread> &&
         same<typename K::t_host_const_randomread, typename W::t_host_const_randomread> &&
         same<typename K::t_dev_um, typename W::t_dev_um> && same<typename K::t_host_um, typename W::t_host_um> &&
         same<typename K::t_dev_const_um, typename W::t_dev_const_um> && same<typename K::t_host_const_um, typename W::t_host_const_um> &&
         same<typename K::t_dev_const_randomread_um, typename W::t_dev_const_randomread_um> &&
         same<typename K::t_host_const_randomread_um, typename W::t_host_const_randomread_um> &&
         same<typename K::traits, typename W::traits> && same<typename K::data_type, typename W::data_type> &&
         same<typename K::const_data_type, typename W::const_data_type> &&
         same<typename K::non_const_data_type, typename W::non_const_data_type> &&
         same<typename K::scalar_array_type, typename W::scalar_array_type> &&
         same<typename K::const_scalar_array_type, typename W::const_scalar_array_type> &&
         same<typename K::non_const_scalar_array_type, typename W::non_const_scalar_array_type> &&
         same<typename K::value_type, typename W::value_type> && same<typename K::const_value_type, typename W::const_value_type> &&
         same<typename K::non_const_value_type, typename W::non_const_value_type> &&
         same<typename K::array_layout, typename W::array_layout> && same<typename K::execution_space, typename W::execution_space> &&
         same<typename K::memory_space, typename W::memory_space> && same<typename K::device_type, typename W::device_type> &&
         same<typename K::memory_traits, typename W::memory_traits> && same<typename K::host_mirror_space, typename W::host_mirror_space> &&
         same<typename K::size_type, typename W::size_type> && same<typename K::specialize, typename W::specialize> &&
         same<typename K::dimension, typename W::dimension> && unsigned(K::rank) == unsigned(W::rank) &&
         unsigned(K::rank_dynamic) == unsigned(W::rank_dynamic);
}
static_assert(types_are_kokkos<double* [3], Kokkos::LayoutRight, Dev>(), "typedefs: a LAMMPS per-atom array");
static_assert(types_are_kokkos<int, Dev::array_layout, Dev>(), "typedefs: a LAMMPS scalar");
static_assert(types_are_kokkos<int**, Kokkos::LayoutLeft, Dev>(), "typedefs: LayoutLeft");
static_assert(types_are_kokkos<double*>(), "typedefs: default arguments");
static_assert(types_are_kokkos<long* [6], Kokkos::LayoutRight, Dev::memory_space>(), "typedefs: a memory space argument");

// ---- gap: t_dev and t_host are managed Views: a program allocates Views of these types ----
void managed_views() {
  static_assert(tdual_x_array::t_dev::traits::is_managed && tdual_x_array::t_host::traits::is_managed, "t_dev, t_host are managed");
  tdual_x_array::t_dev f("lammps:f", 50);  // as verlet_kokkos.cpp allocates DAT::t_f_array
  check(f.extent(0) == 50 && f.label() == "lammps:f", "managed", "a t_dev View allocates");
  tdual_x_array k("atom:x", 20);
  check(k.d_view.use_count() >= 1 && k.d_view.label() == "atom:x", "managed", "d_view is a managed View of dualview's block");
  tdual_x_array::t_dev copy = k.d_view;
  check(copy.use_count() == k.d_view.use_count() && copy.data() == k.d_view.data(), "managed", "copies of d_view count references");
}

// ---- gap: constructors from Kokkos::view_alloc(...) and LAMMPS' NoInit(label) ----
void view_alloc_constructors() {
  auto NoInit = [](std::string const& label) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, label); };
  tdual_x_array a(NoInit("noinit"), 7);  // memory_kokkos.h's realloc_kokkos
  check(a.extent(0) == 7 && a.d_view.label() == "noinit", "view_alloc", "NoInit(label), n");
  tdual_int_2d b(Kokkos::view_alloc(std::string("labelled")), 3, 4);
  check(b.extent(0) == 3 && b.extent(1) == 4 && b.h_view.label().rfind("labelled", 0) == 0, "view_alloc", "view_alloc(label), n0, n1");
  b = tdual_int_2d();
  b = tdual_int_2d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("again")), 2, 2);
  check(b.extent(0) == 2, "view_alloc", "reassigned as memory_kokkos.h does");
}

// ---- gap: Kokkos::subview of a DualView, assignable to the declared type, sharing state ----
void subviews_share_state() {
  tdual_int_2d swap("comm:swap", 2, 8);
  tdual_int_1d firstrecv = Kokkos::subview(swap, 0, Kokkos::ALL);  // comm_kokkos.cpp:1285
  tdual_int_1d scan = Kokkos::subview(swap, 1, Kokkos::ALL);
  check(firstrecv.extent(0) == 8 && firstrecv.h_view.data() == &swap.h_view(0, 0) && scan.h_view.data() == &swap.h_view(1, 0), "subview",
        "the rows are Kokkos subviews of the parent's views");
  for (int i = 0; i < 8; ++i) {
    firstrecv.h_view[i] = 10 + i;
    scan.h_view[i] = 20 + i;
  }
  firstrecv.modify_host();
  scan.modify_host();
  check(swap.need_sync_device() == two_sides, "subview", "a modify through the subview is seen by the parent");
  swap.sync_device();
  check(!firstrecv.need_sync_device() && !scan.need_sync_device(), "subview", "the parent's sync is seen by the subviews");
  int wrong = 0;
  auto d = swap.d_view;
  Kokkos::parallel_reduce(
      "read", Kokkos::RangePolicy<Dev>(0, 8), KOKKOS_LAMBDA(int i, int& acc) { acc += (d(0, i) != 10 + i) + (d(1, i) != 20 + i); },
      wrong);
  check(wrong == 0, "subview", "the parent's device side holds what was written through the subviews");
  Kokkos::parallel_for(
      "write", Kokkos::RangePolicy<Dev>(0, 8), KOKKOS_LAMBDA(int i) { d(0, i) = -i; });
  Kokkos::fence();
  swap.modify_device();
  check(firstrecv.need_sync_host() == two_sides, "subview", "a modify of the parent is seen by the subview");
  firstrecv.sync_host();
  check(firstrecv.h_view[7] == -7 && swap.h_view(0, 7) == -7, "subview", "the subview's sync brings its region");
}

// ---- gap: resize and realloc of a default-constructed DualView allocate, as Kokkos ----
void default_constructed() {
  tdual_x_array a;
  a.modify_host();
  a.sync_device();
  check(!a.need_sync_host() && !a.need_sync_device() && !a.is_allocated(), "default", "flag calls on an empty DualView do nothing");
  a.resize(9);
  check(a.is_allocated() && a.extent(0) == 9 && a.h_view(8, 2) == 0.0, "default", "resize allocates, zeroed");
  tdual_int_1d b;
  b.realloc(4);
  check(b.extent(0) == 4, "default", "realloc allocates");
  tdual_int_1d c;
  Kokkos::resize(c, 3);
  Kokkos::realloc(Kokkos::WithoutInitializing, c, 5);
  check(c.extent(0) == 5, "default", "Kokkos::resize / realloc");
}

// ---- gap: modify<S>() / sync<S>() pick the side by the space's role ----
void sides_by_role() {
  using K = tdual_int_1d;
  K a("role", 6);
  // On a CPU, host_mirror_space and memory_space are both HostSpace: the host mirror space
  // names the host; the execution space and the device type name the device.
  check(a.view<K::host_mirror_space>().data() == a.h_view.data() && a.view<K::execution_space>().data() == a.d_view.data(), "role",
        "view<host_mirror_space>() is h_view, view<execution_space>() is d_view");
  for (int i = 0; i < 6; ++i) a.h_view(i) = 3 * i;
  a.modify<K::host_mirror_space>();  // the host, even where it is the execution space too
  check(a.need_sync<K::execution_space>() == two_sides && !a.need_sync<K::host_mirror_space>(), "role", "a host modify asks a device sync");
  a.sync<K::execution_space>();
  auto d = a.d_view;
  int wrong = 0;
  Kokkos::parallel_reduce(
      "read", Kokkos::RangePolicy<Dev>(0, 6), KOKKOS_LAMBDA(int i, int& acc) { acc += d(i) != 3 * i; }, wrong);
  check(wrong == 0, "role", "sync<execution_space>() copied the host's values to the device");
  Kokkos::parallel_for(
      "write", Kokkos::RangePolicy<Dev>(0, 6), KOKKOS_LAMBDA(int i) { d(i) = 100 + i; });
  Kokkos::fence();
  a.modify<K::device_type>();
  a.sync<K::host_mirror_space>();
  check(a.h_view(5) == 105, "role", "sync<host_mirror_space>() copied the device's values to the host");
}

// ---- gap: a replaced block is freed with its last View; resize holds no copies ----
/// Whether dualview's host blocks can grow in place: not when they come from the
/// system allocator (DV_SYSTEM_ALLOCATOR=1, AddressSanitizer, valgrind; DECISIONS S3).
bool grows_in_place() {
#if defined(__SANITIZE_ADDRESS__)
  return false;
#else
  const char* sys = std::getenv("DV_SYSTEM_ALLOCATOR");
  const char* preload = std::getenv("LD_PRELOAD");
  return !(sys && *sys && std::string(sys) != "0") && !(preload && std::string(preload).find("vgpreload") != std::string::npos);
#endif
}
std::uint64_t live(std::uint32_t space) {
  std::uint64_t b = 0;
  dv::detail::check(dv_live_memory(space, &b, nullptr));
  return b;
}
void memory_as_kokkos() {
  // Where dualview's two blocks live (one space: the host).
  const std::uint32_t dev_space = tdual_left::dualview_type::memory_space::code;
  const std::uint32_t host_space = tdual_left::dualview_type::t_host::memory_space::code;
  const std::size_t n = 1000, bytes = n * 3 * sizeof(double);
  const std::uint64_t dev0 = live(dev_space), host0 = live(host_space);
  {
    tdual_left x("x", n, 3);
    for (std::size_t i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) x.h_view(i, k) = double(i) + 0.25 * k;
    x.modify_host();
    x.sync_device();
    auto held = x.d_view;  // AtomVecKokkos holds d_x across a grow
    auto held_h = x.h_view;
    x.resize(2 * n, 3);  // LayoutLeft along axis 0: both sides move
    check(held.data() != x.d_view.data() && held_h.data() != x.h_view.data(), "memory", "the grow moved both sides");
    check(x.old_view_bytes() == (two_sides ? 2 : 1) * bytes, "memory", "old_view_bytes counts the replaced blocks Views hold");
    check(held_h(n - 1, 2) == double(n - 1) + 0.5 && x.h_view(n - 1, 2) == double(n - 1) + 0.5, "memory",
          "a View held across the grow reads the values written before it");
    const std::uint64_t with_old = live(dev_space);
    held = tdual_left::t_dev();
    // One space: d_view and h_view are one block, which goes with the last View of either.
    check(live(dev_space) == with_old - (two_sides ? bytes : 0), "memory", "the old device block goes with its last View");
    held_h = tdual_left::t_host();
    check(x.old_view_bytes() == 0, "memory", "no replaced block left");
    check(live(dev_space) == dev0 + 2 * bytes && (!two_sides || live(host_space) == host0 + 2 * bytes), "memory",
          "only the grown blocks remain");
  }
  check(live(dev_space) == dev0 && live(host_space) == host0, "memory", "everything goes with the DualView");
  {
    // Blocks of 32 MiB and more grow in place (docs/GPU.md): resize keeps no copy of
    // the DualView's own views, so the addresses stay, also while a View is held.
    const std::size_t big = (48u << 20) / (3 * sizeof(double));
    tdual_x_array y("y", big);
    y.h_view(big - 1, 1) = 7.0;
    y.modify_host();
    const double* host_before = y.h_view.data();
    auto held_h = y.h_view;
    y.resize(big + big / 4);
    if (grows_in_place()) {
      check(y.h_view.data() == host_before && held_h.data() == host_before, "memory", "the host block grew in place while a View held it");
      check(y.old_view_bytes() == 0, "memory", "a block grown in place is no old block");
    } else {
      check(y.old_view_bytes() >= big * 3 * sizeof(double) && held_h(big - 1, 1) == 7.0, "memory",
            "without growth in place the held View keeps the old block");
    }
    check(y.h_view(big - 1, 1) == 7.0, "memory", "the grow kept the value");
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  {
    managed_views();
    view_alloc_constructors();
    subviews_share_state();
    default_constructed();
    sides_by_role();
    memory_as_kokkos();
    std::printf("with_kokkos gaps: Kokkos %d, %s, %s\n", KOKKOS_VERSION, Dev::name(), two_sides ? "two sides" : "one space");
  }
  Kokkos::finalize();
  if (failures == 0) std::printf("with_kokkos gaps: every check passed\n");
  return failures == 0 ? 0 : 1;
}
