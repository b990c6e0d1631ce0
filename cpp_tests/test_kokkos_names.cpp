// Issue 21: Kokkos names real codes use (constants, traits, the CPU execution
// spaces), resize / realloc with extents of any arithmetic type, and the
// Kokkos Tools events of deep_copy(view, scalar).
#include <Kokkos_Core.hpp>
#include <Kokkos_DualView.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "common.hpp"

// ---- constants and traits -------------------------------------------------------

// FLCL's flcl-cxx.hpp uses it at namespace scope, in a constant expression.
namespace flcl_like {
constexpr std::size_t max_rank = Kokkos::ARRAY_LAYOUT_MAX_RANK;
std::size_t dims[Kokkos::ARRAY_LAYOUT_MAX_RANK];
static_assert(max_rank == 8);
}  // namespace flcl_like

static_assert(Kokkos::ARRAY_LAYOUT_MAX_RANK == 8);
static_assert(Kokkos::is_array_layout<Kokkos::LayoutLeft>::value && Kokkos::is_array_layout_v<Kokkos::LayoutStride>);
static_assert(!Kokkos::is_array_layout_v<Kokkos::HostSpace>);
static_assert(Kokkos::is_memory_space<Kokkos::HostSpace>::value && Kokkos::is_memory_space_v<const Kokkos::CudaSpace>);
static_assert(!Kokkos::is_memory_space_v<Kokkos::Serial>);
static_assert(Kokkos::is_execution_space_v<Kokkos::Serial> && Kokkos::is_execution_space<Kokkos::OpenMP>::value);
static_assert(!Kokkos::is_execution_space_v<Kokkos::HostSpace>);
static_assert(Kokkos::is_memory_traits_v<Kokkos::MemoryTraits<Kokkos::Unmanaged>> && !Kokkos::is_memory_traits_v<int>);
static_assert(Kokkos::is_device_v<Kokkos::Device<Kokkos::Serial, Kokkos::HostSpace>> && !Kokkos::is_device_v<Kokkos::Serial>);
static_assert(Kokkos::is_space<Kokkos::HostSpace>::value && Kokkos::is_space<Kokkos::Threads>::value && !Kokkos::is_space<int>::value);
static_assert(Kokkos::is_view<Kokkos::View<double*>>::value && Kokkos::is_view_v<Kokkos::View<int**>> && !Kokkos::is_view_v<int>);
static_assert(Kokkos::is_dual_view<Kokkos::DualView<double*>>::value && Kokkos::is_dual_view_v<Kokkos::DualView<int>>);
static_assert(!Kokkos::is_dual_view_v<Kokkos::View<double*>>);
static_assert(std::is_same_v<Kokkos::SharedHostPinnedSpace, Kokkos::HostSpace>);
static_assert(Kokkos::Iterate::Left != Kokkos::Iterate::Right);

namespace {
// A Kokkos library's signature: one parameter type for Views of every memory space.
double sum_anywhere(const Kokkos::View<const double*, Kokkos::AnonymousSpace>& v) {
  double s = 0;
  for (std::size_t i = 0; i < v.extent(0); ++i) s += v(i);
  return s;
}
}  // namespace

TEST(KokkosNames, AnonymousSpaceTakesViewsOfEverySpace) {
  static_assert(Kokkos::is_memory_space<Kokkos::AnonymousSpace>::value, "a memory space");
  Kokkos::View<double*, Kokkos::HostSpace> h("h", 4);
  Kokkos::View<double*, Kokkos::TestDeviceSpace> d("d", 3);
  for (int i = 0; i < 4; ++i) h(i) = 1.5 * i;
  Kokkos::deep_copy(d, 2.0);
  EXPECT_EQ(sum_anywhere(h), 9.0);
  EXPECT_EQ(sum_anywhere(d), 6.0);
  Kokkos::View<double*, Kokkos::AnonymousSpace> any = d;
  EXPECT_EQ(any.data(), d.data());
  EXPECT_EQ(std::string(Kokkos::AnonymousSpace::name()), "Anonymous");
}

TEST(KokkosNames, RankOfAView) {
  Kokkos::View<double**[3]> v("v", 2, 2);
  EXPECT_EQ(Kokkos::rank(v), 3u);
}

// ---- OpenMP, Threads, HPX: the host execution space under Kokkos' names ------------

template <class Space>
void host_space_behaves_as_serial(const char* name) {
  static_assert(std::is_same_v<typename Space::memory_space, Kokkos::HostSpace>);
  static_assert(std::is_same_v<typename Space::execution_space, Space>);
  static_assert(std::is_same_v<typename Space::array_layout, Kokkos::LayoutRight>);
  static_assert(std::is_same_v<typename Space::device_type, Kokkos::Device<Space, Kokkos::HostSpace>>);
  EXPECT_STREQ(Space::name(), name);
  EXPECT_EQ(Space().concurrency(), 1);
  Space().fence();
  Space().fence("named");

  using DV = Kokkos::DualView<double*, Space>;
  static_assert(std::is_same_v<typename DV::t_dev::memory_space, Kokkos::HostSpace>);
  static_assert(std::is_same_v<typename DV::t_dev::execution_space, Space>);
  static_assert(std::is_same_v<typename DV::t_host::memory_space, Kokkos::HostSpace>);
  static_assert(Kokkos::SpaceAccessibility<Space, Kokkos::HostSpace>::accessible);
  DV a("a", 4);
  static_assert(DV::impl_dualview_is_single_device);
  EXPECT_EQ(a.view_host().data(), a.view_device().data());
  Kokkos::deep_copy(a.view_device(), 2.0);
  a.template modify<Space>();
  a.template sync<Kokkos::HostSpace>();
  EXPECT_EQ(a.h_view(3), 2.0);
  a.resize(8.0);
  EXPECT_EQ(a.extent(0), 8u);

  Kokkos::View<double*, Space> v("v", 3);
  static_assert(std::is_same_v<typename Kokkos::View<double*, Space>::memory_space, Kokkos::HostSpace>);
  Kokkos::deep_copy(Space(), v, 1.5);
  EXPECT_EQ(v(2), 1.5);
  // Same memory space: assignable to a Serial/HostSpace View and back.
  Kokkos::View<double*, Kokkos::HostSpace> h = v;
  Kokkos::View<double*, Space> back = h;
  EXPECT_EQ(back.data(), v.data());
  auto m = Kokkos::create_mirror_view(v);
  EXPECT_EQ(m.data(), v.data());
  Kokkos::View<double*, Space> w("w", 3);
  Kokkos::deep_copy(w, v);
  EXPECT_EQ(w(0), 1.5);
}

TEST(KokkosNames, OpenMPIsTheHostSpace) { host_space_behaves_as_serial<Kokkos::OpenMP>("OpenMP"); }
TEST(KokkosNames, ThreadsIsTheHostSpace) { host_space_behaves_as_serial<Kokkos::Threads>("Threads"); }
TEST(KokkosNames, HPXIsTheHostSpace) {
  static_assert(std::is_same_v<Kokkos::HPX, Kokkos::Experimental::HPX>);
  host_space_behaves_as_serial<Kokkos::HPX>("HPX");
}
TEST(KokkosNames, CpuSpacesAreDistinctAndDefaultsStaySerial) {
  static_assert(!std::is_same_v<Kokkos::OpenMP, Kokkos::Serial> && !std::is_same_v<Kokkos::Threads, Kokkos::OpenMP>);
  static_assert(std::is_same_v<Kokkos::DefaultHostExecutionSpace, Kokkos::Serial>);
  static_assert(std::is_same_v<Kokkos::HostSpace::execution_space, Kokkos::Serial>);
#if defined(KOKKOS_ENABLE_OPENMP) || defined(KOKKOS_ENABLE_THREADS) || defined(KOKKOS_ENABLE_HPX)
  ADD_FAILURE() << "no parallel CPU back end is behind these names; the KOKKOS_ENABLE_ macros must stay undefined";
#endif
  EXPECT_FALSE(Kokkos::OpenMP::in_parallel());
}

// ---- resize / realloc take any arithmetic extents ----------------------------------

template <class N>
void resize_and_realloc_forms(N n) {
  const std::size_t want = static_cast<std::size_t>(n);
  {
    Kokkos::DualView<double*> a("a", 2);
    a.h_view(1) = 7.0;
    Kokkos::resize(a, n);
    EXPECT_EQ(a.extent(0), want);
    EXPECT_EQ(a.h_view(1), 7.0);
    Kokkos::resize(Kokkos::WithoutInitializing, a, n + N(1));
    EXPECT_EQ(a.extent(0), want + 1);
    Kokkos::resize(Kokkos::view_alloc(Kokkos::WithoutInitializing), a, n);
    EXPECT_EQ(a.extent(0), want);
    Kokkos::realloc(a, n + N(2));
    EXPECT_EQ(a.extent(0), want + 2);
    Kokkos::realloc(Kokkos::WithoutInitializing, a, n);
    EXPECT_EQ(a.extent(0), want);
    Kokkos::realloc(Kokkos::view_alloc(Kokkos::WithoutInitializing), a, n + N(1));
    EXPECT_EQ(a.extent(0), want + 1);
    a.resize(n);
    EXPECT_EQ(a.extent(0), want);
    a.resize(Kokkos::WithoutInitializing, n + N(1));
    EXPECT_EQ(a.extent(0), want + 1);
    a.resize(Kokkos::view_alloc(Kokkos::WithoutInitializing), n);
    EXPECT_EQ(a.extent(0), want);
    a.realloc(n + N(1));
    EXPECT_EQ(a.extent(0), want + 1);
    a.realloc(Kokkos::WithoutInitializing, n);
    EXPECT_EQ(a.extent(0), want);
    a.realloc(Kokkos::view_alloc(Kokkos::WithoutInitializing), n + N(2));
    EXPECT_EQ(a.extent(0), want + 2);
  }
  {
    Kokkos::DualView<double**, Kokkos::LayoutLeft, TestDev> b("b", 2, 2);
    Kokkos::resize(b, n, n);
    EXPECT_EQ(b.extent(0), want);
    EXPECT_EQ(b.extent(1), want);
    b.realloc(n, n + N(1));
    EXPECT_EQ(b.extent(1), want + 1);
  }
  {
    Kokkos::View<int*> v("v", 2);
    v(0) = 5;
    Kokkos::resize(v, n);
    EXPECT_EQ(v.extent(0), want);
    EXPECT_EQ(v(0), 5);
    Kokkos::resize(Kokkos::WithoutInitializing, v, n + N(1));
    EXPECT_EQ(v.extent(0), want + 1);
    Kokkos::resize(Kokkos::view_alloc(Kokkos::WithoutInitializing), v, n);
    EXPECT_EQ(v.extent(0), want);
    Kokkos::realloc(v, n + N(2));
    EXPECT_EQ(v.extent(0), want + 2);
    Kokkos::realloc(Kokkos::WithoutInitializing, v, n);
    EXPECT_EQ(v.extent(0), want);
    Kokkos::realloc(Kokkos::view_alloc(Kokkos::WithoutInitializing), v, n + N(1));
    EXPECT_EQ(v.extent(0), want + 1);
    EXPECT_EQ(v.label(), "v");
  }
}

TEST(KokkosNames, ResizeAndReallocTakeDoubleExtents) { resize_and_realloc_forms(5.0); }
TEST(KokkosNames, ResizeAndReallocTakeIntExtents) { resize_and_realloc_forms(5); }
TEST(KokkosNames, ResizeAndReallocTakeLongExtents) { resize_and_realloc_forms(5L); }
TEST(KokkosNames, ResizeAndReallocTakeSizeTExtents) { resize_and_realloc_forms(std::size_t(5)); }

TEST(KokkosNames, MiniMDResizesWithADouble) {
  Kokkos::DualView<int*> list("list", 10);
  const int count = 10;
  Kokkos::resize(list, (count + 1) * 1.1);  // miniMD's growth step: 12.1 -> 12
  EXPECT_EQ(list.extent(0), 12u);
  Kokkos::View<int*> v("v", 1);
  Kokkos::realloc(v, 2.9);
  EXPECT_EQ(v.extent(0), 2u);
  list.resize(0);
  EXPECT_EQ(list.extent(0), 0u);
}

// ---- deep_copy(view, scalar) sends Kokkos' deep-copy events ------------------------

namespace {
std::vector<std::string> copies;
const void* scalar_src = nullptr;
const void* scalar_dst = nullptr;
void on_begin(Kokkos::Tools::SpaceHandle dh, const char* dl, const void* dp, Kokkos::Tools::SpaceHandle sh, const char* sl,
              const void* sp, uint64_t n) {
  copies.push_back(std::string("begin ") + sh.name + ":" + sl + " -> " + dh.name + ":" + dl + " " + std::to_string(n));
  scalar_dst = dp;
  scalar_src = sp;
}
void on_end() { copies.push_back("end"); }
}  // namespace

TEST(KokkosNames, DeepCopyOfAScalarSendsDeepCopyEvents) {
  using namespace Kokkos::Tools::Experimental;
  copies.clear();
  set_begin_deep_copy_callback(on_begin);
  set_end_deep_copy_callback(on_end);
  {
    Kokkos::View<double*> h("hview", 6);
    Kokkos::deep_copy(h, 3.0);
    EXPECT_EQ(scalar_dst, h.data());
    EXPECT_NE(scalar_src, nullptr);
    Kokkos::View<float**, Kokkos::LayoutLeft, TestDev> d("dview", 2, 3);
    Kokkos::deep_copy(Kokkos::Serial(), d, 1.0f);
    // Views of DualViews: the same events; a subview reports its span, as Kokkos does.
    Kokkos::DualView<int**, TestDev> a("dual", 4, 5);
    Kokkos::deep_copy(a.view_device(), 7);
    auto sub = Kokkos::subview(a.view_host(), Kokkos::make_pair(0, 2), Kokkos::ALL());
    Kokkos::deep_copy(sub, 1);
  }
  set_callbacks(EventSet{});
  const std::vector<std::string> want = {
      "begin Host:Scalar -> Host:hview 48",        "end",
      "begin Host:Scalar -> CudaTestDevice:dview 24",  "end",
      "begin Host:Scalar -> CudaTestDevice:dual 80",   "end",
      "begin Host:Scalar -> Host:dual_mirror 72",  "end",  // LayoutLeft 4x5, rows 0-1: span 4*4+2 = 18 ints
  };
  EXPECT_EQ(copies, want);
}

namespace {
/// Puts the chosen device back to 0 when a test ends (later tests make DualViews).
struct DeviceIdReset {
  ~DeviceIdReset() { dv::set_device_id(0); }
};
uint32_t device_ordinal(dv_dualview_t* h) {
  dv_info_t info{};
  EXPECT_EQ(dv_info(h, &info), DV_OK);
  return info.ordinal;
}
}  // namespace

TEST(KokkosNames, DeviceIdChoosesTheDeviceOfNewDualViews) {
  DeviceIdReset reset;
  using Dev = Kokkos::Device<Kokkos::TestDevice, Kokkos::TestDeviceSpace>;
  EXPECT_EQ(dv::device_id(), 0u);
  Kokkos::DualView<double*, Kokkos::LayoutLeft, Dev> a("a", 8);
  EXPECT_EQ(device_ordinal(a.impl_handle()), 0u);

  Kokkos::initialize(Kokkos::InitializationSettings().set_device_id(3));
  EXPECT_EQ(dv::device_id(), 3u);
  Kokkos::DualView<double*, Kokkos::LayoutLeft, Dev> b("b", 8);
  EXPECT_EQ(device_ordinal(b.impl_handle()), 3u);
  EXPECT_EQ(device_ordinal(a.impl_handle()), 0u) << "a DualView keeps the device it was made on";
  b.h_view(7) = 2.5;
  b.modify_host();
  b.sync_device();
  Kokkos::fence();  // fences device 3 of the default execution space
  EXPECT_EQ(b.d_view(7), 2.5);

  std::string prog = "prog", flag = "--kokkos-device-id=5", other = "--gtest_color=no";
  char* argv[] = {prog.data(), other.data(), flag.data(), nullptr};
  int argc = 3;
  Kokkos::initialize(argc, argv);
  EXPECT_EQ(dv::device_id(), 5u);
  EXPECT_EQ(argc, 3) << "arguments stay in place";
  std::string flag2 = "--kokkos-device-id", value = "6";
  char* argv2[] = {prog.data(), flag2.data(), value.data(), nullptr};
  int argc2 = 3;
  Kokkos::initialize(argc2, argv2);
  EXPECT_EQ(dv::device_id(), 6u);

  std::string bad = "--kokkos-device-id=x";
  char* argv3[] = {prog.data(), bad.data(), nullptr};
  int argc3 = 2;
  EXPECT_THROW(Kokkos::initialize(argc3, argv3), dv::invalid_argument);
  EXPECT_EQ(dv::device_id(), 6u) << "a refused argument changes nothing";

  dv::set_device_id(64);  // the test device has ordinals 0 to 63
  using DV = Kokkos::DualView<double*, Kokkos::LayoutLeft, Dev>;
  EXPECT_THROW(DV("c", 8), dv::no_device);
}

namespace {
/// Sets environment variables for one test and removes them after.
struct EnvFor {
  std::vector<std::string> names;
  EnvFor(std::initializer_list<std::pair<const char*, const char*>> vars) {
    for (auto& [k, v] : vars) {
      setenv(k, v, 1);
      names.emplace_back(k);
    }
  }
  ~EnvFor() {
    for (auto& k : names) unsetenv(k.c_str());
  }
};
}  // namespace

// Kokkos 4's device mapping (issue 33): the launcher's node-local rank picks the
// device, modulo KOKKOS_VISIBLE_DEVICES; an explicit id wins; the test device's
// 64 ordinals stand in for GPUs.
TEST(KokkosNames, InitializeMapsTheLocalRankToADeviceAsKokkos) {
  DeviceIdReset reset;
  {
    EnvFor env{{"OMPI_COMM_WORLD_LOCAL_RANK", "5"}};
    Kokkos::initialize();
    EXPECT_EQ(dv::device_id(), 5u) << "Open MPI's local rank 5 of 64 devices";
  }
  {
    EnvFor env{{"SLURM_LOCALID", "3"}, {"KOKKOS_VISIBLE_DEVICES", "7,9"}};
    EXPECT_EQ(dv::initialize(), 9u) << "local rank 3 of visible devices 7,9";
    EXPECT_EQ(dv::device_id(), 9u);
    Kokkos::initialize(Kokkos::InitializationSettings().set_device_id(0));
    EXPECT_EQ(dv::device_id(), 7u) << "an explicit id wins, and indexes the visible devices";
    std::string prog = "prog", by = "--kokkos-map-device-id-by=random", keep = "-x";
    char* argv[] = {prog.data(), by.data(), keep.data(), nullptr};
    int argc = 3;
    const uint32_t d = dv::initialize(argc, argv);
    EXPECT_TRUE(d == 7u || d == 9u) << d;
    EXPECT_EQ(argc, 2) << "dv::initialize removes Kokkos' arguments";
    EXPECT_EQ(std::string(argv[1]), "-x");
  }
  {
    EnvFor env{{"KOKKOS_MAP_DEVICE_ID_BY", "node"}};
    try {
      Kokkos::initialize();
      FAIL() << "an unknown KOKKOS_MAP_DEVICE_ID_BY must be refused";
    } catch (const dv::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("KOKKOS_MAP_DEVICE_ID_BY: 'node' is not recognized (mpi_rank or random)"),
                std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(Kokkos::initialize(Kokkos::InitializationSettings().set_map_device_id_by("rr")), dv::invalid_argument);
  EXPECT_TRUE(Kokkos::InitializationSettings().set_map_device_id_by("random").has_map_device_id_by());
  dv::DeviceSettings far;
  far.device_id = 64;
  EXPECT_THROW(dv::initialize(far), dv::invalid_argument) << "the test device has 64 ordinals";
}

// Kokkos::pair as Kokkos_Pair.hpp defines it (issue 34): constructors from
// values, from another pair and from std::pair, assignment, to_std_pair,
// make_pair and tie, the six comparisons (lexicographic, as std::pair),
// structured bindings, constexpr use, and the subviews tutorial's ranges.
TEST(KokkosPair, BehavesAsKokkosPairHpp) {
  static_assert(Kokkos::make_pair(1, 2).first == 1 && Kokkos::make_pair(1, 2) < Kokkos::make_pair(2, 0), "constexpr");
  static_assert(std::is_same_v<decltype(Kokkos::make_pair(1, 2.0)), Kokkos::pair<int, double>>, "make_pair deduces");
  static_assert(std::is_same_v<Kokkos::pair<int>::second_type, int>, "second defaults to first");
  Kokkos::pair<std::size_t, std::size_t> range(0, std::size_t{3});  // the subviews tutorial: pair(int, size_t)
  EXPECT_EQ(range.second, 3u);
  Kokkos::pair<int, double> p(1, 2.5);
  Kokkos::pair<long, float> q(p);  // from another pair
  EXPECT_EQ(q.first, 1L);
  EXPECT_EQ(q.second, 2.5f);
  Kokkos::pair<int, double> r(std::make_pair(4, 0.5));  // from std::pair
  EXPECT_EQ(r.first, 4);
  q = r;  // assignment from another pair type
  EXPECT_EQ(q.first, 4L);
  std::pair<int, double> s = p.to_std_pair();
  EXPECT_EQ(s, std::make_pair(1, 2.5));
  auto [a, b] = p;
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 2.5);
  int n = 0;
  double x = 0;
  Kokkos::tie(n, x) = Kokkos::make_pair(7, 1.5);
  EXPECT_EQ(n, 7);
  EXPECT_EQ(x, 1.5);
  using P = Kokkos::pair<int, int>;
  const P lo(1, 9), hi(2, 0), same(1, 9);
  EXPECT_TRUE(lo == same && lo != hi && lo < hi && lo <= same && hi > lo && hi >= lo);
  EXPECT_FALSE(hi < lo || lo > hi || lo != same);
  EXPECT_TRUE(P(1, 2) < P(1, 3));  // the second member breaks a tie
  // As a subview range.
  Kokkos::View<double*, Kokkos::HostSpace> v("v", 10);
  auto part = Kokkos::subview(v, Kokkos::pair<std::size_t, std::size_t>(2, 5));
  EXPECT_EQ(part.extent(0), 3u);
}

// The names a ported program meets in its first hour (issue 34): Array,
// min / max / clamp / minmax, the mathematical functions, printf, abort
// (death test), KOKKOS_ASSERT, kokkos_malloc / realloc / free, Timer.
TEST(KokkosFirstHour, UtilitiesBehaveAsKokkos) {
  Kokkos::Array<int, 3> a = {{3, 1, 2}};
  static_assert(Kokkos::Array<int, 3>::size() == 3, "size");
  EXPECT_EQ(a[std::size_t{0}] + a[1] + a[2L], 6);
  int sum = 0;
  for (int x : a) sum += x;
  EXPECT_EQ(sum, 6);
  EXPECT_TRUE((a == Kokkos::Array<int, 3>{{3, 1, 2}}));
  static_assert(Kokkos::min(2, 3) == 2 && Kokkos::max(2, 3) == 3 && Kokkos::clamp(7, 0, 5) == 5, "constexpr");
  EXPECT_EQ(Kokkos::max({4, 9, 1}), 9);
  EXPECT_EQ(Kokkos::min({4, 9, 1}), 1);
  const int five = 5, two = 2;
  auto mm = Kokkos::minmax(five, two);  // references, as std::minmax: lvalues only
  EXPECT_EQ(mm.first, 2);
  EXPECT_EQ(mm.second, 5);
  EXPECT_DOUBLE_EQ(Kokkos::sqrt(2.0) * Kokkos::sqrt(2.0), 2.0);
  EXPECT_EQ(Kokkos::fabs(-1.5), 1.5);
  EXPECT_EQ(Kokkos::abs(-3), 3);
  EXPECT_DOUBLE_EQ(Kokkos::exp(Kokkos::log(3.0)), 3.0);
  EXPECT_EQ(Kokkos::pow(2.0, 10.0), 1024.0);
  EXPECT_TRUE(Kokkos::isnan(std::nan("")) && !Kokkos::isinf(1.0));
  EXPECT_EQ(Kokkos::abs(Kokkos::complex<double>(3, 4)), 5.0);  // complex stays dv::complex's
  testing::internal::CaptureStdout();
  Kokkos::printf("x=%d\n", 4);
  Kokkos::printf("plain\n");
  std::fflush(stdout);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "x=4\nplain\n");
  KOKKOS_ASSERT(sum == 6);
#ifndef NDEBUG
  EXPECT_DEATH(KOKKOS_ASSERT(sum == 7), "Asserted condition `sum == 7` evaluated false");
#endif
  EXPECT_DEATH(Kokkos::abort("stop here"), "stop here");

  auto* p = static_cast<double*>(Kokkos::kokkos_malloc<Kokkos::HostSpace>("block", 10 * sizeof(double)));
  for (int i = 0; i < 10; ++i) p[i] = i;
  p = static_cast<double*>(Kokkos::kokkos_realloc<Kokkos::HostSpace>(p, 20 * sizeof(double)));
  EXPECT_EQ(p[9], 9.0);  // the first bytes are kept
  Kokkos::kokkos_free<Kokkos::HostSpace>(p);
  Kokkos::kokkos_free<Kokkos::HostSpace>(nullptr);  // nothing
  int stack = 0;
  EXPECT_DEATH(Kokkos::kokkos_free<Kokkos::HostSpace>(&stack), "not allocated by kokkos_malloc");
  Kokkos::Timer t;
  EXPECT_GE(t.seconds(), 0.0);
}
