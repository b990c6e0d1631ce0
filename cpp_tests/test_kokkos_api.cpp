// The Kokkos API surface that Kokkos' own DualView tests and Kokkos-style
// codes need, each behaviour pinned by its own case (written for dualview;
// Kokkos' tests themselves run through tests/kokkos_unit/).
#include <Kokkos_Core.hpp>
#include <Kokkos_DualView.hpp>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common.hpp"

using DevDV = Kokkos::DualView<double**, Kokkos::LayoutLeft, TestDev>;

// ---- defects ------------------------------------------------------------------

TEST(KokkosApi, DefaultConstructedViewsAreEmpty) {
  Kokkos::View<double**> v;
  EXPECT_EQ(v.extent(0), 0u);
  EXPECT_EQ(v.extent(1), 0u);
  EXPECT_EQ(v.size(), 0u);
  EXPECT_EQ(v.data(), nullptr);
  EXPECT_FALSE(v.is_allocated());
  Kokkos::View<double* [3]> s;
  EXPECT_EQ(s.extent(0), 0u);
  EXPECT_EQ(s.extent(1), 3u);  // a static extent is part of the type
  EXPECT_EQ(s.size(), 0u);
  DevDV d;
  EXPECT_EQ(d.extent(0), 0u);
  EXPECT_EQ(d.view_host().size(), 0u);
  EXPECT_EQ(d.view_device().size(), 0u);
  // A loop over extent(0) of an unallocated view does nothing (Kokkos' deep_copy test relies on it).
  std::size_t n = 0;
  for (std::size_t i = 0; i < d.view_host().extent(0); ++i) ++n;
  EXPECT_EQ(n, 0u);
}

TEST(KokkosApi, SameSizeReallocKeepsTheAllocation) {
  DevDV a("A", 4, 3);
  DevDV copy = a;
  Kokkos::deep_copy(a.view_host(), 2.0);
  a.modify_host();
  const double* h = a.view_host().data();
  const double* d = a.view_device().data();
  Kokkos::realloc(a, 4, 3);
  EXPECT_EQ(a.view_host().data(), h);
  EXPECT_EQ(a.view_device().data(), d);
  EXPECT_EQ(a.h_view(1, 1), 0.0);     // zeroed again
  EXPECT_EQ(copy.h_view(1, 1), 0.0);  // copies share it, as in Kokkos
  EXPECT_FALSE(a.need_sync_device());
  Kokkos::realloc(Kokkos::WithoutInitializing, a, 4, 3);
  EXPECT_EQ(a.view_host().data(), h);
  Kokkos::realloc(a, 5, 3);  // new extents: a new allocation for this object
  EXPECT_NE(a.view_host().data(), h);
  EXPECT_EQ(copy.extent(0), 4u);
}

// ---- missing API ----------------------------------------------------------------

TEST(KokkosApi, DeepCopyScalarFromRankZeroView) {
  Kokkos::View<int, Kokkos::TestDeviceSpace> e("errors");
  Kokkos::deep_copy(e, 7);
  int x = 0;
  Kokkos::deep_copy(x, e);
  EXPECT_EQ(x, 7);
  int y = 0;
  Kokkos::deep_copy(Kokkos::DefaultExecutionSpace{}, y, e);
  EXPECT_EQ(y, 7);
  Kokkos::deep_copy(Kokkos::TestDevice{}, e, 9);
  Kokkos::deep_copy(x, e);
  EXPECT_EQ(x, 9);
}

TEST(KokkosApi, ExecutionSpaceNames) {
  EXPECT_STREQ(Kokkos::Serial::name(), "Serial");
  EXPECT_STREQ(Kokkos::Cuda::name(), "Cuda");
  EXPECT_STREQ(Kokkos::TestDevice::name(), "TestDevice");
  EXPECT_STREQ(Kokkos::DefaultHostExecutionSpace::name(), "Serial");
  EXPECT_STREQ(Kokkos::HostSpace::name(), "Host");
}

TEST(KokkosApi, FreeResizeAndReallocWithAllocationProperties) {
  DevDV a("A", 4, 3);
  Kokkos::deep_copy(a.view_host(), 1.5);
  a.modify_host();
  Kokkos::resize(Kokkos::view_alloc(Kokkos::TestDevice{}, Kokkos::WithoutInitializing), a, 6, 3);
  EXPECT_EQ(a.extent(0), 6u);
  EXPECT_EQ(a.h_view(3, 2), 1.5);  // contents kept
  EXPECT_TRUE(a.need_sync_device());
  Kokkos::realloc(Kokkos::view_alloc(Kokkos::TestDevice{}), a, 2, 2);
  EXPECT_EQ(a.extent(0), 2u);
  EXPECT_EQ(a.h_view(1, 1), 0.0);
  EXPECT_FALSE(a.need_sync_device());
  a.resize(Kokkos::view_alloc(Kokkos::WithoutInitializing), 3, 2);
  EXPECT_EQ(a.extent(0), 3u);
}

TEST(KokkosApi, ViewEquality) {
  Kokkos::View<double*> a("a", 4), b("b", 4);
  Kokkos::View<const double*> c = a;
  EXPECT_TRUE(a == c);
  EXPECT_FALSE(a != c);
  EXPECT_TRUE(a != b);
  DevDV d("D", 3, 2);
  Kokkos::DualView<const double**, Kokkos::LayoutLeft, TestDev> cd = d;
  EXPECT_EQ(d.view_host(), cd.view_host());
  EXPECT_EQ(d.view_device(), cd.view_device());
}

/// Counts live objects, so that construction and destruction are checked.
struct Counted {
  static int live;
  std::vector<int> payload;
  Counted() : payload(3, 7) { ++live; }
  Counted(const Counted& o) : payload(o.payload) { ++live; }
  Counted& operator=(const Counted&) = default;
  ~Counted() { --live; }
};
int Counted::live = 0;

TEST(KokkosApi, NonTrivialElementsAreConstructedAndDestroyed) {
  {
    Kokkos::DualView<Counted*, TestDev> a(Kokkos::view_alloc("objs", Kokkos::SequentialHostInit), 5);
    EXPECT_EQ(Counted::live, 5);
    EXPECT_EQ(a.h_view(4).payload.size(), 3u);
    a.h_view(0).payload.push_back(1);
    a.resize(Kokkos::view_alloc(Kokkos::SequentialHostInit), 8);  // element-wise: the old ones copied, then destroyed
    EXPECT_EQ(Counted::live, 8);
    EXPECT_EQ(a.h_view(0).payload.size(), 4u);
    a.realloc(Kokkos::view_alloc(Kokkos::SequentialHostInit), 8);  // same size: destroyed and built again in place
    EXPECT_EQ(Counted::live, 8);
    EXPECT_EQ(a.h_view(0).payload.size(), 3u);
    Kokkos::View<Counted*> v("hostobjs", 2);
    EXPECT_EQ(Counted::live, 10);
  }
  EXPECT_EQ(Counted::live, 0);
}

TEST(KokkosApi, DualViewOfViewsKeepsItsElementsAlive) {
  using V = Kokkos::View<double*, TestDev>;
  V inner("inner", 4);
  {
    Kokkos::DualView<V*, TestDev> dvv(Kokkos::view_alloc("vv", Kokkos::SequentialHostInit), 3u);
    dvv.h_view(0) = inner;
    EXPECT_EQ(inner.use_count(), 2);
    dvv.modify_host();
    dvv.sync_device();  // the device side holds an image, not an owner
    EXPECT_EQ(inner.use_count(), 2);
    EXPECT_EQ(dvv.d_view(0).data(), inner.data());
  }
  EXPECT_EQ(inner.use_count(), 1);  // the DualView destroyed its elements
}

TEST(KokkosApi, ConstructingInDeviceOnlyMemoryIsRefusedWithAReason) {
  if (cuda_present()) GTEST_SKIP() << "needs a machine without a driver to reach the check before the driver";
  try {
    Kokkos::View<std::string*, Kokkos::CudaSpace> v("s", 2);
    FAIL() << "no error";
  } catch (const dv::error& e) {
    EXPECT_NE(std::string(e.what()).find("constructor run"), std::string::npos) << e.what();
  }
}

template <class DataType, class A1 = void, class A2 = void, class A3 = void>
void four_params(Kokkos::DualView<DataType, A1, A2, A3>) {}
template <class DataType, class... P>
void pack(Kokkos::DualView<DataType, P...>) {}
static_assert(std::is_void_v<decltype(four_params(std::declval<Kokkos::DualView<int*>>()))> &&
              std::is_void_v<decltype(pack(std::declval<Kokkos::DualView<int*>>()))>);
static_assert(std::is_same_v<Kokkos::DualView<int*>, Kokkos::DualView<int*, void, void, void>>);
static_assert(Kokkos::is_view_v<Kokkos::View<int*>> && !Kokkos::is_view_v<Kokkos::DualView<int*>> && !Kokkos::is_view_v<int*>);
static_assert(Kokkos::is_dual_view_v<Kokkos::DualView<int*>> && !Kokkos::is_dual_view_v<Kokkos::View<int*>>);

TEST(KokkosApi, TwoDifferentViewsForOneSpaceAreAnError) {
  Kokkos::View<int*> v1("v1", 10), v2("v2", 10);
  Kokkos::DualView<int*> ok(v1, v1);
  EXPECT_EQ(ok.view_host().data(), v1.data());
  try {
    Kokkos::DualView<int*> bad(v1, v2);
    FAIL() << "no error";
  } catch (const dv::error& e) {
    EXPECT_NE(std::string(e.what()).find("DualView storing one View constructed from two different Views"), std::string::npos);
  }
}

TEST(KokkosApi, AllCalledAndMixedIntegerPairs) {
  DevDV a("A", 6, 4);
  auto col = Kokkos::subview(a, Kokkos::ALL(), 2);
  EXPECT_EQ(col.extent(0), 6u);
  auto rows = Kokkos::subview(a.d_view, std::make_pair(0, a.extent(0)), Kokkos::ALL);
  EXPECT_EQ(rows.extent(0), 6u);
  auto mid = Kokkos::subview(a.h_view, Kokkos::make_pair(1u, std::size_t(3)), 0);
  EXPECT_EQ(mid.extent(0), 2u);
  mid(1) = 5.0;
  EXPECT_EQ(a.h_view(2, 0), 5.0);
}

TEST(KokkosApi, SubviewAssignsToTheParentsLayoutWhenTheStridesFit) {
  DevDV a("A", 10, 3);
  DevDV b = Kokkos::subview(a, std::pair<unsigned, unsigned>(6, 9), std::pair<unsigned, unsigned>(0, 1));
  EXPECT_EQ(b.extent(0), 3u);
  EXPECT_EQ(b.d_view.data(), a.d_view.data() + 6);
  EXPECT_THROW((Kokkos::View<double**, Kokkos::LayoutLeft, TestDev>(Kokkos::subview(a.d_view, std::make_pair(1, 3), Kokkos::ALL))),
               dv::error);
}

TEST(KokkosApi, Mirrors) {
  Kokkos::View<double*, Kokkos::TestDeviceSpace> d("d", 5);
  Kokkos::deep_copy(d, 3.0);
  auto m = Kokkos::create_mirror_view(d);  // the test device is mirrored in HostSpace
  static_assert(std::is_same_v<decltype(m)::memory_space, Kokkos::HostSpace>);
  EXPECT_NE(static_cast<const void*>(m.data()), static_cast<const void*>(d.data()));
  EXPECT_EQ(m.label(), "d_mirror");
  Kokkos::deep_copy(m, d);
  EXPECT_EQ(m(4), 3.0);
  auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, d);
  EXPECT_EQ(c(2), 3.0);
  auto same = Kokkos::create_mirror_view(Kokkos::TestDeviceSpace{}, d);  // already there: the view itself
  EXPECT_EQ(same.data(), d.data());
  auto fresh = Kokkos::create_mirror(Kokkos::WithoutInitializing, Kokkos::TestDeviceSpace{}, d);
  EXPECT_NE(fresh.data(), d.data());
  Kokkos::View<double*> h("h", 3);
  auto hm = Kokkos::create_mirror_view(h);  // host memory mirrors itself
  EXPECT_EQ(hm.data(), h.data());
  auto hc = Kokkos::create_mirror(h);  // create_mirror always allocates
  EXPECT_NE(hc.data(), h.data());
}

TEST(KokkosApi, UnmanagedViewOverCallerMemory) {
  std::vector<double> buf(12, 1.0);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> u(buf.data(), 3, 4);
  EXPECT_EQ(u.data(), buf.data());
  EXPECT_FALSE(u.is_managed);
  u(2, 3) = 9.0;
  EXPECT_EQ(buf[11], 9.0);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::TestDeviceSpace> d("d", 3, 4);
  Kokkos::deep_copy(d, u);  // unmanaged views copy like any other
  EXPECT_EQ(d(2, 3), 9.0);
  DevDV::t_host_um um(buf.data(), 3, 4);
  EXPECT_EQ(um.extent(1), 4u);
}

TEST(KokkosApi, LayoutStrideStaysLayoutStride) {
  Kokkos::View<double**, Kokkos::LayoutStride> s("s", Kokkos::LayoutStride(3, 1, 4, 5));
  EXPECT_EQ(s.stride(0), 1u);
  EXPECT_EQ(s.stride(1), 5u);
  EXPECT_EQ(s.span(), 1u + 2u * 1u + 3u * 5u);
  s(2, 3) = 4.0;
  EXPECT_EQ(s.data()[2 + 3 * 5], 4.0);
  auto l = s.layout();
  EXPECT_EQ(l.stride[1], 5u);
}

// ---- parity with the C ABI --------------------------------------------------------

TEST(CppParity, AccessWithAMode) {
  DevDV a("A", 3, 2);
  auto d = a.device_access(dv::write);  // nothing to copy, device marked
  d(2, 1) = 4.0;
  EXPECT_TRUE(a.need_sync_host());
  auto h = a.host_access(dv::read);  // synced first
  EXPECT_EQ(h(2, 1), 4.0);
  EXPECT_FALSE(a.need_sync_host());
  auto hw = a.host_access(dv::read_write);
  hw(0, 0) = 1.0;
  EXPECT_TRUE(a.need_sync_device());
  auto dw = a.device_access(dv::read_write);  // the host's change is copied first
  EXPECT_EQ(dw(0, 0), 1.0);
  EXPECT_TRUE(a.need_sync_host());
  a.modify_device();
  EXPECT_THROW(a.modify_host(), dv::concurrent_modification);
}

TEST(CppParity, CudaAvailableAnswersEverywhere) {
  EXPECT_EQ(dv::cuda_available(), cuda_present());
  EXPECT_GE(dv::device_count(), 0);
}

// dv_space_available / dv_space_device_count through the tags: one question
// for every space, the CUDA-only calls agreeing with it.
TEST(CppParity, EverySpaceSaysWhetherItIsUsable) {
  EXPECT_TRUE(dv::space_available<dv::HostSpace>());
  EXPECT_TRUE(dv::space_available<Kokkos::Serial>(7));  // host spaces ignore the ordinal
  EXPECT_EQ(dv::space_device_count<dv::HostSpace>(), 1u);
  EXPECT_TRUE(dv::space_available<dv::TestDeviceSpace>(63));
  EXPECT_FALSE(dv::space_available<dv::TestDeviceSpace>(64));
  EXPECT_EQ(dv::space_device_count<TestDev>(), 64u);
  EXPECT_EQ(dv::space_available<dv::CudaSpace>(), cuda_present());
  EXPECT_EQ(dv::space_available<dv::CudaUVMSpace>(), cuda_present());
  EXPECT_EQ(dv::space_available<dv::CudaHostPinnedSpace>(), cuda_present());
  EXPECT_EQ(dv::space_device_count<dv::CudaSpace>(), static_cast<std::size_t>(dv::device_count()));
  EXPECT_FALSE(dv::space_available<dv::CudaSpace>(static_cast<uint32_t>(dv::device_count())));
}

// Kokkos::SpaceAccessibility<Access, Memory>::accessible for every pair of
// memory spaces, read from the tags' fields (host code reaches what needs no
// mirror; a device its own memory and its managed and pinned memory).
namespace accessibility {
template <class A, class M>
constexpr bool acc = Kokkos::SpaceAccessibility<A, M>::accessible;
using H = dv::HostSpace;
using P = dv::CudaHostPinnedSpace;
using C = dv::CudaSpace;
using U = dv::CudaUVMSpace;
using T = dv::TestDeviceSpace;
static_assert(acc<H, H> && acc<H, P> && !acc<H, C> && acc<H, U> && !acc<H, T>);
static_assert(acc<P, H> && acc<P, P> && !acc<P, C> && acc<P, U> && !acc<P, T>);
static_assert(!acc<C, H> && acc<C, P> && acc<C, C> && acc<C, U> && !acc<C, T>);
static_assert(!acc<U, H> && !acc<U, P> && !acc<U, C> && acc<U, U> && !acc<U, T>);
static_assert(!acc<T, H> && !acc<T, P> && !acc<T, C> && !acc<T, U> && acc<T, T>);
static_assert(acc<Kokkos::Cuda, U> && acc<Kokkos::Serial, U> && !acc<dv::TestDevice, H>);
// The pinned tag is the page-locked one (tests/header.rs compares the field with the core).
static_assert(P::page_locked && !H::page_locked && !C::page_locked && !U::page_locked && !T::page_locked);
}  // namespace accessibility

TEST(CppParity, StaleSubviewsOfAHandleResizedInPlace) {
  DevDV a("A", 4, 2);
  auto col = Kokkos::subview(a, Kokkos::ALL(), 1);
  // C++ resize follows Kokkos value semantics (a new allocation; col keeps the
  // old one). A resize in place through the C ABI makes col stale:
  dv_extents_t e{2, 0, {8, 2, 1, 1, 1, 1, 1, 1}};
  ASSERT_EQ(dv_resize(a.impl_handle(), &e), DV_OK);
  EXPECT_THROW(col.modify_host(), dv::stale_subview);
  EXPECT_THROW(col.sync_device(), dv::stale_subview);
  EXPECT_THROW((void)col.need_sync_host(), dv::stale_subview);
}

// What README.md promises for C++: nothing stale to detect. As in Kokkos, a
// subview (or copy) taken before a C++ resize keeps the old allocation alive
// and works on it without error; its writes never reach the resized DualView.
// Take subviews again after a resize. By Kokkos' rules the program does
// nothing wrong, so checked mode raises nothing either: this test also passes
// under DV_CHECK=1 (ctest cpp.checked_mode runs it so).
TEST(CppParity, ASubviewKeptAcrossAResizeKeepsTheOldBlockAsKokkos) {
  DevDV a("A", 4, 4);
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 4; ++j) a.h_view(i, j) = 10.0 * i + j;
  a.modify_host();
  a.sync_device();
  auto s = Kokkos::subview(a, 1, Kokkos::ALL());  // row 1: 10, 11, 12, 13
  ASSERT_EQ(s.extent(0), 4u);
  EXPECT_EQ(s.h_view.data(), &a.h_view(1, 0));
  a.resize(8, 4);  // s shares the allocation, so a gets a new one (dv_resized)
  EXPECT_EQ(a.extent(0), 8u);
  EXPECT_EQ(a.extent(1), 4u);
  EXPECT_NE(s.h_view.data(), &a.h_view(1, 0)) << "s kept the old block";
  EXPECT_NE(s.d_view.data(), &a.d_view(1, 0));
  for (std::size_t j = 0; j < 4; ++j) s.h_view(j) = 100.0 + j;
  EXPECT_NO_THROW(s.modify_host());
  EXPECT_TRUE(s.need_sync_device());
  EXPECT_FALSE(a.need_sync_device()) << "the resized DualView has flags of its own";
  EXPECT_NO_THROW(s.sync_device());
  EXPECT_FALSE(s.need_sync_device());
  for (std::size_t j = 0; j < 4; ++j) {
    EXPECT_EQ(s.h_view(j), 100.0 + j) << j;
    EXPECT_EQ(s.d_view(j), 100.0 + j) << j;
  }
  // a kept its contents from before the resize, on both sides, and none of s's writes.
  EXPECT_FALSE(a.need_sync_host() || a.need_sync_device());
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      EXPECT_EQ(a.h_view(i, j), 10.0 * i + j) << i << "," << j;
      EXPECT_EQ(a.d_view(i, j), 10.0 * i + j) << i << "," << j;
    }
  for (std::size_t i = 4; i < 8; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      EXPECT_EQ(a.h_view(i, j), 0.0) << i << "," << j;  // the new rows start at zero
      EXPECT_EQ(a.d_view(i, j), 0.0) << i << "," << j;
    }
  // A copy taken before the resize is the same: it keeps (and shares) the old block.
  DevDV b("B", 4, 4);
  Kokkos::deep_copy(b.h_view, 1.0);
  b.modify_host();
  b.sync_device();
  DevDV c = b;
  auto t = Kokkos::subview(c, 2, Kokkos::ALL());
  b.resize(8, 4);
  EXPECT_EQ(c.extent(0), 4u);
  t.h_view(3) = 5.0;
  EXPECT_NO_THROW(t.modify_host());
  EXPECT_TRUE(c.need_sync_device()) << "t and c share the old block and its flags";
  EXPECT_NO_THROW(c.sync_device());
  EXPECT_EQ(c.d_view(2, 3), 5.0);
  EXPECT_EQ(b.h_view(2, 3), 1.0);
  EXPECT_EQ(b.d_view(2, 3), 1.0);
  EXPECT_FALSE(b.need_sync_device());
}

TEST(CppParity, ExtentsComputeWithoutTheLibrary) {
  constexpr dv::extents<dv::dynamic_extent, 3> e(5);
  static_assert(e.extent(0) == 5 && e.size() == 15 && e.rank_dynamic() == 1);
  constexpr auto left = dv::strides(e, true);
  static_assert(left[0] == 1 && left[1] == 5);
  constexpr auto right = dv::strides(dv::dims<3>(4, 2, 3), false);
  static_assert(right[0] == 6 && right[1] == 3 && right[2] == 1);
  static_assert(dv::is_vector(dv::dims<2>(1, 4)) && dv::is_matrix(dv::dims<2>(3, 4)) && dv::is_tensor(dv::dims<3>(2, 2, 2)));
  static_assert(dv::is_scalar(dv::extents<1, 1>{}) && !dv::is_scalar(dv::extents<>{}));
  static_assert(dv::extents<2, 3>{} == dv::dims<2>(2, 3));
  EXPECT_EQ(dv::squeeze(dv::dims<4>(1, 5, 1, 2)), dv::dims<2>(5, 2));
  EXPECT_EQ(dv::squeeze_octave(dv::dims<3>(1, 1, 4)), dv::dims<2>(4, 1));  // the Octave rule, as dv_extents_squeeze
  EXPECT_EQ(dv::squeeze_octave(dv::dims<3>(1, 3, 1)), dv::dims<2>(1, 3));
  // Only the dynamic sizes are stored: static extents cost nothing.
  static_assert(sizeof(dv::extents<3, 4>) == 1 && sizeof(dv::dims<2>) == 2 * sizeof(std::size_t));
}

TEST(CppParity, LabelsComeFromTheCore) {
  DevDV a("temperature", 2, 2);
  EXPECT_EQ(a.d_view.label(), "temperature");
  EXPECT_EQ(a.h_view.label(), "temperature_mirror");
  Kokkos::DualView<double*> h("host_only", 3);
  EXPECT_EQ(h.h_view.label(), "host_only");
}

// ---- the space tags follow the core's policy table ---------------------------------

// Every field of dv_space_info_t is compared below: a new one must be added there.
static_assert(sizeof(dv_space_info_t) == 12, "dv_space_info_t has a new field: compare it in expect_policy");

template <class M>
void expect_policy(std::set<uint32_t>& codes) {
  dv_space_info_t info{};
  ASSERT_EQ(dv_space_info(M::code, &info), DV_OK) << M::name();
  EXPECT_TRUE(codes.insert(M::code).second) << M::name() << ": two tags with one code";
  EXPECT_EQ(info.host_accessible, M::host_accessible) << M::name();
  EXPECT_EQ(info.needs_mirror, M::needs_mirror) << M::name();
  EXPECT_EQ(info.unified, M::unified) << M::name();
  EXPECT_EQ(info.is_device, M::is_device) << M::name();
  EXPECT_EQ(info.default_layout, M::execution_space::array_layout::code) << M::name();
  // The host side of a DualView over M: HostSpace when mirrored or managed, M itself otherwise.
  EXPECT_EQ(info.host_side, M::needs_mirror || M::unified ? uint32_t{DV_SPACE_HOST} : M::code) << M::name();
  using Mirror = typename Kokkos::ViewTraits<double*, M>::host_mirror_space;
  EXPECT_EQ(Mirror::code, M::needs_mirror ? DV_SPACE_HOST : M::code) << M::name();
}

template <class... M>
std::set<uint32_t> expect_policies(dv::detail::type_list<M...>) {
  std::set<uint32_t> codes;
  (expect_policy<M>(codes), ...);
  return codes;
}

// The values of every `#define DV_SPACE_* n` of the C header (made from src/abi.rs).
std::set<uint32_t> header_spaces() {
  std::ifstream in(DUALVIEW_C_HEADER);
  EXPECT_TRUE(in.good()) << DUALVIEW_C_HEADER;
  std::set<uint32_t> out;
  const std::string def = "#define DV_SPACE_";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(def, 0) != 0) continue;
    std::istringstream words(line.substr(def.size()));
    std::string name;
    uint32_t value = 0;
    if (words >> name >> value) out.insert(value);
  }
  return out;
}

// Every DV_SPACE_* of dualview.h has a tag in dv::detail::memory_spaces, each
// tag agrees with the core's policy on every field, and the core knows no
// other space.
TEST(Spaces, TagsFollowTheCorePolicy) {
  const std::set<uint32_t> tags = expect_policies(dv::detail::memory_spaces{});
  const std::set<uint32_t> header = header_spaces();
  EXPECT_GE(header.size(), 5u);
  EXPECT_EQ(tags, header) << "a DV_SPACE_* of dualview.h without a C++ tag in dv::detail::memory_spaces, or the reverse";
  for (uint32_t code = 0; code < 256; ++code) {
    dv_space_info_t info{};
    EXPECT_EQ(dv_space_info(code, &info) == DV_OK, header.count(code) == 1) << "space " << code;
  }
}

// ---- Kokkos Tools through the C++ setters -----------------------------------------------

namespace {
std::vector<std::string> events;
void on_alloc(const Kokkos::Tools::SpaceHandle h, const char* label, const void*, const uint64_t size) {
  events.push_back(std::string("alloc ") + h.name + " " + label + " " + std::to_string(size));
}
void on_dealloc(const Kokkos::Tools::SpaceHandle h, const char* label, const void*, const uint64_t) {
  events.push_back(std::string("free ") + h.name + " " + label);
}
void on_copy(Kokkos::Tools::SpaceHandle dh, const char* dl, const void*, Kokkos::Tools::SpaceHandle sh, const char* sl, const void*,
             uint64_t n) {
  events.push_back(std::string("copy ") + sh.name + ":" + sl + " -> " + dh.name + ":" + dl + " " + std::to_string(n));
}
void on_push(const char* name) { events.push_back(std::string("push ") + name); }
void on_modify(const char* label, const void* const, bool on_device) {
  events.push_back(std::string("modify ") + label + (on_device ? " device" : " host"));
}
}  // namespace

TEST(Tools, CallbacksSeeAllocationsCopiesRegionsAndModifies) {
  using namespace Kokkos::Tools::Experimental;
  events.clear();
  set_allocate_data_callback(on_alloc);
  set_deallocate_data_callback(on_dealloc);
  set_begin_deep_copy_callback(on_copy);
  set_push_region_callback(on_push);
  set_dual_view_modify_callback(on_modify);
  {
    Kokkos::DualView<double*, TestDev> a("tracked", 16);
    Kokkos::Profiling::pushRegion("phase");
    a.modify_host();
    a.sync_device();
    Kokkos::Profiling::popRegion();
  }
  set_callbacks(EventSet{});
  std::vector<std::string> want = {
      "alloc CudaTestDevice tracked 128",
      "alloc Host tracked_mirror 128",
      "push phase",
      "modify tracked_mirror host",
      "copy Host:tracked_mirror -> CudaTestDevice:tracked 128",
  };
  ASSERT_GE(events.size(), want.size() + 2);
  for (std::size_t k = 0; k < want.size(); ++k) EXPECT_EQ(events[k], want[k]);
  EXPECT_EQ(events[events.size() - 2].rfind("free ", 0), 0u);
  EXPECT_EQ(get_callbacks().allocate_data, nullptr);
}

// Whether dualview's own host allocator is in use (it grows blocks in place);
// under valgrind, ASan, DV_SYSTEM_ALLOCATOR or DV_DEBUG_MEMORY the system
// allocator serves instead, so that the checkers see every block.
static bool fast_host_allocator() {
#if defined(__SANITIZE_ADDRESS__)
  return false;
#else
  const char* pre = std::getenv("LD_PRELOAD");
  auto on = [](const char* k) {
    const char* v = std::getenv(k);
    return v && *v && std::string(v) != "0";
  };
  return !on("DV_SYSTEM_ALLOCATOR") && !on("DV_DEBUG_MEMORY") && !(pre && std::string(pre).find("vgpreload") != std::string::npos);
#endif
}

TEST(CppGrowth, ResizeGrowsInPlaceWhenNobodyElseSeesTheAllocation) {
  using DV = Kokkos::DualView<double**, Kokkos::LayoutRight, TestDev>;
  const std::size_t n = std::size_t(1) << 19;  // 32 MiB of doubles per side
  DV a("grow", n, 8);
  a.h_view(n - 1, 7) = 4.0;
  a.modify_host();
  const double* h = a.h_view.data();
  const double* d = a.d_view.data();
  Kokkos::resize(a, 2 * n, 8);  // the slowest axis: the host block grows in place
  if (fast_host_allocator()) {
    EXPECT_EQ(a.h_view.data(), h);
  }
  // The test device's blocks move, as a CUDA device's always do (DECISIONS G21); the
  // host's newer values reach the device at the next sync.
  EXPECT_NE(a.d_view.data(), d);
  EXPECT_EQ(a.h_view(n - 1, 7), 4.0);
  EXPECT_EQ(a.h_view(2 * n - 1, 7), 0.0);
  EXPECT_TRUE(a.need_sync_device());
  DV copy = a;  // now someone else sees it: Kokkos value semantics, a new allocation
  Kokkos::resize(a, 2 * n + 1, 8);
  EXPECT_NE(a.h_view.data(), copy.h_view.data());
  EXPECT_EQ(copy.extent(0), 2 * n);
  EXPECT_EQ(a.h_view(n - 1, 7), 4.0);
}

// The inline flag writes (docs/DECISIONS.md) behave exactly as the ABI calls:
// the same states through C and C++, errors still raised, const and one-space kept.
TEST(CppParity, InlineFlagWritesMatchTheAbi) {
  Kokkos::DualView<double*, Kokkos::LayoutLeft, TestDev> a("inline", 10);
  const uint8_t* w = nullptr;
  ASSERT_EQ(dv_sync_state_word(a.impl_handle(), &w), DV_OK);
  auto state = [&] { return static_cast<int>(dv_word_load(w)); };
  const int host_whole = DV_SYNC_HOST_MODIFIED | DV_SYNC_HOST_NEWER;
  a.modify_host();
  EXPECT_EQ(state(), host_whole);
  EXPECT_THROW(a.modify_device(), std::runtime_error);  // Kokkos' host counter is set: the ABI refuses
  EXPECT_EQ(state(), host_whole);
  a.clear_sync_state();
  EXPECT_EQ(state(), DV_SYNC_CLEAN);
  a.modify_device();
  EXPECT_TRUE(a.need_sync_host());
  a.sync_host();
  EXPECT_EQ(state(), DV_SYNC_CLEAN);
  // A subview's change is a region; a whole modify afterwards covers the array.
  auto sub = Kokkos::subview(a, std::make_pair(2, 5));
  sub.modify_host();
  EXPECT_EQ(state(), DV_SYNC_HOST_MODIFIED | DV_SYNC_HOST_NEWER | DV_SYNC_PARTIAL);
  a.modify_host();
  EXPECT_EQ(state(), host_whole);
  // A subview sync clears Kokkos' counters; the rest of the array stays newer on the host,
  // and the host's whole modify is inline again.
  Kokkos::subview(a, std::make_pair(0, 3)).sync_device();
  EXPECT_EQ(state(), DV_SYNC_HOST_NEWER | DV_SYNC_PARTIAL);
  EXPECT_TRUE(a.need_sync_device());
  a.modify_host();
  EXPECT_EQ(state(), host_whole);
  a.clear_sync_state();
  // Const data: clear refuses, as through the ABI.
  Kokkos::DualView<const double*, Kokkos::LayoutLeft, TestDev> c = a;
  a.modify_host();
  EXPECT_THROW(c.clear_sync_state(), std::runtime_error);
  EXPECT_EQ(state(), host_whole);
  // One space: nothing to record, whatever is called.
  Kokkos::DualView<double*, Kokkos::LayoutLeft, Kokkos::HostSpace> h("one", 4);
  h.modify_host();
  h.clear_sync_state();
  h.modify_device();
  const uint8_t* one = nullptr;
  ASSERT_EQ(dv_sync_state_word(h.impl_handle(), &one), DV_OK);
  EXPECT_EQ(*one, DV_SYNC_ONE_SPACE);
}

// The header's dv_sync_state_* functions (written and checked against the Rust
// rules in src/dual_view/flags.rs) predict what the ABI does on real handles, in
// every kind of state a whole DualView reaches: need_sync, a whole modify of
// either side (a flag change, or the library must act: an error, or the other
// side's newer elements it drops), clear_sync_state.
TEST(CppParity, SyncStateFunctionsPredictTheAbi) {
  using DV = Kokkos::DualView<double*, Kokkos::LayoutLeft, TestDev>;
  // Each setup leaves the DualView in one state: clean; newer on one side (whole, a
  // subview's region with the counter set, a region left after a subview sync cleared the
  // counters); newer on both sides in different regions.
  constexpr uint8_t HM = DV_SYNC_HOST_MODIFIED, DM = DV_SYNC_DEVICE_MODIFIED, HN = DV_SYNC_HOST_NEWER,
                    DN = DV_SYNC_DEVICE_NEWER, P = DV_SYNC_PARTIAL;
  const std::vector<std::pair<uint8_t, void (*)(DV&)>> setups = {
      {DV_SYNC_CLEAN, [](DV&) {}},
      {HM | HN, [](DV& a) { a.modify_host(); }},
      {HM | HN | P, [](DV& a) { Kokkos::subview(a, std::make_pair(0, 3)).modify_host(); }},
      {HN | P,
       [](DV& a) {
         a.modify_host();
         Kokkos::subview(a, std::make_pair(0, 3)).sync_device();
       }},
      {DM | DN, [](DV& a) { a.modify_device(); }},
      {DM | DN | P, [](DV& a) { Kokkos::subview(a, std::make_pair(0, 3)).modify_device(); }},
      {DN | P,
       [](DV& a) {
         a.modify_device();
         Kokkos::subview(a, std::make_pair(0, 3)).sync_host();
       }},
      {HM | HN | DN | P,
       [](DV& a) {
         a.modify_device();
         Kokkos::subview(a, std::make_pair(0, 3)).sync_host();
         Kokkos::subview(a, std::make_pair(5, 6)).modify_host();
       }},
  };
  for (const auto& [want, setup] : setups) {
    for (uint32_t side : {uint32_t{DV_SIDE_HOST}, uint32_t{DV_SIDE_DEVICE}}) {
      DV a("predict", 8);
      setup(a);
      const uint8_t* w = nullptr;
      ASSERT_EQ(dv_sync_state_word(a.impl_handle(), &w), DV_OK);
      const uint8_t s = dv_word_load(w);
      ASSERT_EQ(s, want);
      bool stale = false;
      ASSERT_EQ((side == DV_SIDE_HOST ? dv_need_sync_host : dv_need_sync_device)(a.impl_handle(), &stale), DV_OK);
      EXPECT_EQ(stale, dv_sync_state_is_stale(s, side)) << int(s) << " side " << side;
      uint8_t next = 0;
      const bool flag_only = dv_sync_state_modify_next(s, side, &next);
      const uint8_t other_counter = side == DV_SIDE_HOST ? DM : HM;
      const dv_status_t st = (side == DV_SIDE_HOST ? dv_modify_host : dv_modify_device)(a.impl_handle());
      if (flag_only) {
        EXPECT_EQ(st, DV_OK) << int(s) << " side " << side;
        EXPECT_EQ(dv_word_load(w), next) << int(s) << " side " << side;
      } else if ((s & other_counter) == 0) {
        EXPECT_EQ(st, DV_OK) << int(s) << " side " << side;  // the other side's newer elements dropped
        EXPECT_EQ(dv_word_load(w), dv_sync_state_whole(side)) << int(s) << " side " << side;
      } else {
        EXPECT_EQ(st, DV_ERROR_CONCURRENT_MODIFICATION) << int(s) << " side " << side;
        EXPECT_EQ(dv_word_load(w), s) << int(s) << " side " << side;
      }
      const uint8_t before = dv_word_load(w);
      ASSERT_EQ(dv_clear_sync_state(a.impl_handle()), DV_OK);
      EXPECT_EQ(dv_word_load(w), dv_sync_state_clear_next(before));
    }
  }
  Kokkos::DualView<double*, Kokkos::LayoutLeft, Kokkos::HostSpace> one("one", 4);
  const uint8_t* w = nullptr;
  ASSERT_EQ(dv_sync_state_word(one.impl_handle(), &w), DV_OK);
  EXPECT_EQ(dv_word_load(w), DV_SYNC_ONE_SPACE);
  EXPECT_TRUE(dv_sync_state_modify_is_noop(DV_SYNC_ONE_SPACE, DV_SIDE_DEVICE));
  ASSERT_EQ(dv_modify_device(one.impl_handle()), DV_OK);
  ASSERT_EQ(dv_clear_sync_state(one.impl_handle()), DV_OK);
  EXPECT_EQ(dv_word_load(w), dv_sync_state_clear_next(DV_SYNC_ONE_SPACE));
}

// C++ encodes dv_desc_t.flags in one place (dv::detail::desc_flags), the core
// decodes them (host_of_flags) and encodes them back (dv_desc_of): every kind
// of handle C++ makes has the host side it asked for, and a DualView created
// from its dv_desc_of has the same spaces.
TEST(CppParity, DescriptorFlagsMeanWhatTheCoreDecodes) {
  auto expect = [](dv_dualview_t* h, uint32_t host, uint32_t device, const char* what) {
    dv_info_t info{};
    ASSERT_EQ(dv_info(h, &info), DV_OK) << what;
    EXPECT_EQ(info.host_space, host) << what;
    EXPECT_EQ(info.device_space, device) << what;
    dv_desc_t d{};
    ASSERT_EQ(dv_desc_of(h, &d), DV_OK) << what;
    dv_dualview_t* again = nullptr;
    ASSERT_EQ(dv_create("again", &d, &again), DV_OK) << what;
    dv_info_t info2{};
    ASSERT_EQ(dv_info(again, &info2), DV_OK) << what;
    EXPECT_EQ(info2.host_space, host) << what;
    EXPECT_EQ(info2.device_space, device) << what;
    const uint32_t one = DV_INFO_SINGLE_SPACE | DV_INFO_ONE_ALLOCATION;
    EXPECT_EQ(info2.bits & one, info.bits & one) << what;
    ASSERT_EQ(dv_destroy(again), DV_OK);
  };
  Kokkos::View<double*, TestDev> v("v", 4);
  expect(v.impl_handle(), DV_SPACE_TEST_DEVICE, DV_SPACE_TEST_DEVICE, "View on the test device");
  Kokkos::View<double*, Kokkos::HostSpace> hv("hv", 4);
  expect(hv.impl_handle(), DV_SPACE_HOST, DV_SPACE_HOST, "View on the host");
  Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> wrapped(hv.data(), 4);
  expect(wrapped.impl_handle(), DV_SPACE_HOST, DV_SPACE_HOST, "unmanaged View");
  Kokkos::DualView<double*, Kokkos::LayoutLeft, TestDev> a("a", 4);
  expect(a.impl_handle(), DV_SPACE_HOST, DV_SPACE_TEST_DEVICE, "DualView");
  Kokkos::DualView<double*, Kokkos::LayoutLeft, TestDev> from_views(a.d_view, a.h_view);
  expect(from_views.impl_handle(), DV_SPACE_HOST, DV_SPACE_TEST_DEVICE, "DualView of two views");
  Kokkos::DualView<double*, Kokkos::HostSpace> single("single", 4);
  expect(single.impl_handle(), DV_SPACE_HOST, DV_SPACE_HOST, "single-space DualView");
  Kokkos::DualView<double*, Kokkos::HostSpace> single_views(single.d_view, single.h_view);
  expect(single_views.impl_handle(), DV_SPACE_HOST, DV_SPACE_HOST, "single-space DualView of one view");
}

// Racing threads, through the library (a subview's flag calls, as the C ABI,
// checked mode and Fortran take): the library's compare-exchange lets exactly
// one side win; the other gets concurrent_modification (D1, D22).
TEST(CppParity, RacingModifiesThroughTheLibraryLetOneSideWin) {
  Kokkos::DualView<double*, Kokkos::LayoutLeft, TestDev> a("race", 10);
  const auto whole = Kokkos::subview(a, Kokkos::ALL);
  for (int round = 0; round < 50; ++round) {
    a.clear_sync_state();
    std::atomic<int> ready{0};
    int won[8] = {};
    std::vector<std::thread> ts;
    for (int t = 0; t < 8; ++t)
      ts.emplace_back([&, t, b = whole] () mutable {
        ready.fetch_add(1);
        while (ready.load() < 8) std::this_thread::yield();
        try {
          if ((t + round) % 2 == 0) b.modify_host(); else b.modify_device();
          won[t] = 1;
        } catch (const dv::concurrent_modification&) {
          won[t] = 0;
        }
      });
    for (auto& t : ts) t.join();
    const bool host_won = a.need_sync_device();
    EXPECT_NE(host_won, a.need_sync_host()) << "round " << round;
    for (int t = 0; t < 8; ++t) EXPECT_EQ(won[t], (((t + round) % 2 == 0) == host_won) ? 1 : 0) << "round " << round << " thread " << t;
  }
}

// The inline path (a whole DualView, D22) is exact when the program orders
// the flag calls of one DualView across threads, as Kokkos requires: threads
// taking turns under a mutex see each other's marks, and the second side's
// modify is refused by the library, as in one thread.
TEST(CppParity, InlineFlagWritesAreExactWhenThreadsTakeTurns) {
  Kokkos::DualView<double*, Kokkos::LayoutLeft, TestDev> a("turns", 10);
  std::mutex m;
  std::atomic<int> refused{0}, done{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t, b = a] () mutable {
      for (int i = 0; i < 2000; ++i) {
        std::lock_guard<std::mutex> g(m);
        b.clear_sync_state();
        if ((t + i) % 2 == 0) b.modify_host(); else b.modify_device();
        try {
          if ((t + i) % 2 == 0) b.modify_device(); else b.modify_host();
        } catch (const dv::concurrent_modification&) {
          refused.fetch_add(1);
        }
        if (b.need_sync_host() == b.need_sync_device()) ADD_FAILURE() << "thread " << t << " step " << i;
        done.fetch_add(1);
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(done.load(), 8000);
  EXPECT_EQ(refused.load(), 8000);
}

// Issue 18 (2): the LAMMPS border exchange through the Kokkos names. The device
// changed as a whole; the ghost rows' subview sync moves the ghost rows only;
// the rest stays owed to the host (need_sync_host), a whole sync moves it once;
// after a ghost sync, the host's write and modify of the whole DualView is no
// error (as in Kokkos) and copies nothing: the later write wins.
TEST(KokkosApi, LammpsGhostRowSyncMovesOnlyTheGhostRows) {
  using X = Kokkos::DualView<double* [3], Kokkos::LayoutRight, TestDev>;
  const size_t nlocal = 1000, nsend = 100, n = nlocal + nsend;
  X x("atom:x", n);
  Kokkos::deep_copy(x.d_view, 2.0);
  x.modify_device();
  const auto before = x.stats().to_host_bytes;
  auto ghosts = Kokkos::subview(x, std::make_pair(nlocal, n), Kokkos::ALL);
  ghosts.sync_host();
  EXPECT_EQ(x.stats().to_host_bytes - before, nsend * 3 * sizeof(double));
  EXPECT_EQ(x.h_view(nlocal, 2), 2.0);
  EXPECT_EQ(x.h_view(0, 0), 0.0);   // not copied yet: the rest
  EXPECT_TRUE(x.need_sync_host());  // and still owed to the host
  x.sync_host();                    // the rest, once
  EXPECT_EQ(x.stats().to_host_bytes - before, n * 3 * sizeof(double));
  EXPECT_EQ(x.h_view(0, 0), 2.0);
  // Again, and this time the host writes everything and marks it without a whole sync.
  Kokkos::deep_copy(x.d_view, 3.0);
  x.modify_device();
  ghosts.sync_host();
  Kokkos::deep_copy(x.h_view, 4.0);
  const auto mid = x.stats().to_host_bytes;
  EXPECT_NO_THROW(x.modify_host());
  EXPECT_EQ(x.stats().to_host_bytes, mid);  // nothing copied: the host's write wins
  x.sync_device();
  EXPECT_EQ(x.d_view(0, 0), 4.0);
  EXPECT_FALSE(x.need_sync_host());
  EXPECT_FALSE(x.need_sync_device());
}
