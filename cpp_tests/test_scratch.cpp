// Issue 21, item 3: team scratch memory. Kokkos::ScratchMemorySpace, the
// scratch_memory_space of the execution spaces, View::shmem_size and Views
// made from any object with Kokkos' scratch interface (get_shmem).
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "common.hpp"

namespace {

/// A scratch space of our own: only get_shmem, handing out bytes with no alignment at all.
class FakeScratch {
 public:
  FakeScratch(char* base, std::size_t size) : base_(base), next_(base), end_(base + size) {}
  void* get_shmem(std::size_t bytes, int = 0) const {
    if (bytes > static_cast<std::size_t>(end_ - next_)) return nullptr;
    void* p = next_;
    next_ += bytes;
    ++calls_;
    return p;
  }
  char* base() const { return base_; }
  std::size_t used() const { return static_cast<std::size_t>(next_ - base_); }
  int calls() const { return calls_; }

 private:
  char* base_;
  mutable char* next_;
  char* end_;
  mutable int calls_ = 0;
};

bool inside(const void* p, std::size_t bytes, const char* base, std::size_t size) {
  const char* c = static_cast<const char*>(p);
  return c >= base && c + bytes <= base + size;
}
bool aligned(const void* p, std::size_t a) { return reinterpret_cast<std::uintptr_t>(p) % a == 0; }

}  // namespace

// ---- scratch_memory_space of the execution spaces -------------------------------

static_assert(std::is_same_v<Kokkos::Serial::scratch_memory_space, Kokkos::ScratchMemorySpace<Kokkos::Serial>>);
static_assert(std::is_same_v<Kokkos::TestDevice::scratch_memory_space, Kokkos::ScratchMemorySpace<Kokkos::TestDevice>>);
static_assert(std::is_same_v<Kokkos::Cuda::scratch_memory_space, Kokkos::ScratchMemorySpace<Kokkos::Cuda>>);
static_assert(std::is_same_v<Kokkos::OpenMP::scratch_memory_space, Kokkos::ScratchMemorySpace<Kokkos::OpenMP>>);
static_assert(std::is_same_v<Kokkos::DefaultExecutionSpace::scratch_memory_space::execution_space, Kokkos::DefaultExecutionSpace>);
static_assert(Kokkos::is_memory_space_v<Kokkos::Serial::scratch_memory_space>);
static_assert(std::is_same_v<Kokkos::TestDevice::scratch_memory_space::memory_space, Kokkos::TestDeviceSpace>);

TEST(Scratch, MemorySpaceOfSerialAndTestDevice) {
  using SV = Kokkos::View<double*, Kokkos::Serial::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using TV = Kokkos::View<double**, Kokkos::TestDevice::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  static_assert(std::is_same_v<SV::memory_space, Kokkos::HostSpace>);
  static_assert(std::is_same_v<SV::execution_space, Kokkos::Serial>);
  static_assert(std::is_same_v<SV::array_layout, Kokkos::LayoutRight>);
  static_assert(std::is_same_v<TV::memory_space, Kokkos::TestDeviceSpace>);
  static_assert(std::is_same_v<TV::execution_space, Kokkos::TestDevice>);
  static_assert(std::is_same_v<TV::array_layout, Kokkos::LayoutLeft>);  // the device's default layout
  EXPECT_STREQ(Kokkos::ScratchMemorySpace<Kokkos::Serial>::name(), "ScratchMemorySpace");
  EXPECT_EQ(Kokkos::ScratchMemorySpace<Kokkos::Serial>::ALIGN, 8u);
}

// ---- shmem_size --------------------------------------------------------------------

TEST(Scratch, ShmemSizeRank1To3) {
  using L1 = Kokkos::View<double*, Kokkos::LayoutLeft, Kokkos::HostSpace>;
  using R1 = Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::HostSpace>;
  using L2 = Kokkos::View<float**, Kokkos::LayoutLeft, Kokkos::HostSpace>;
  using R2 = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace>;
  using L3 = Kokkos::View<int***, Kokkos::LayoutLeft, Kokkos::HostSpace>;
  using R3 = Kokkos::View<int***, Kokkos::LayoutRight, Kokkos::HostSpace>;
  EXPECT_EQ(L1::shmem_size(10), 10u * 8 + 8);
  EXPECT_EQ(R1::shmem_size(10), 88u);
  EXPECT_EQ(R1::shmem_size(0), 8u);
  EXPECT_EQ(L2::shmem_size(3, 5), 15u * 4 + 4);
  EXPECT_EQ(R2::shmem_size(3, 5), 64u);
  EXPECT_EQ(L3::shmem_size(2, 3, 4), 24u * 4 + 4);
  EXPECT_EQ(R3::shmem_size(2, 3, 4), 100u);
  EXPECT_EQ((Kokkos::View<double, Kokkos::HostSpace>::shmem_size()), 16u);
  // A layout object gives the same.
  EXPECT_EQ(L2::shmem_size(Kokkos::LayoutLeft(3, 5)), 64u);
  // In a scratch memory space, as Kokkos programs write them.
  using S2 = Kokkos::View<double**, Kokkos::TestDevice::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  EXPECT_EQ(S2::shmem_size(7, 3), 21u * 8 + 8);
}

TEST(Scratch, ShmemSizeStaticExtents) {
  using A = Kokkos::View<double* [3], Kokkos::LayoutRight, Kokkos::HostSpace>;
  using B = Kokkos::View<int* [2][5], Kokkos::LayoutLeft, Kokkos::HostSpace>;
  EXPECT_EQ(A::shmem_size(4), 4u * 3 * 8 + 8);  // the run-time extent only
  EXPECT_EQ(A::shmem_size(4, 3), 104u);         // or all of them
  EXPECT_EQ(B::shmem_size(6), 60u * 4 + 4);
  EXPECT_THROW(A::shmem_size(4, 2), dv::error);  // a static extent that does not match
  EXPECT_THROW(A::shmem_size(1, 2, 3), dv::error);
}

// ---- Views over scratch memory -------------------------------------------------------

TEST(Scratch, ViewsFromAFakeScratchSpace) {
  alignas(64) static char buf[1024];
  // Start off-alignment, so the View must align the pointers itself.
  FakeScratch s(buf + 1, sizeof(buf) - 1);
  using V1 = Kokkos::View<double*, Kokkos::Serial::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using V2 = Kokkos::View<int**, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  using V3 = Kokkos::View<float***, Kokkos::LayoutRight, Kokkos::TestDevice::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  V1 a(s, 10);
  EXPECT_EQ(s.calls(), 1);
  EXPECT_EQ(s.used(), V1::shmem_size(10));  // one get_shmem of shmem_size bytes
  ASSERT_NE(a.data(), nullptr);
  EXPECT_TRUE(aligned(a.data(), alignof(double)));
  EXPECT_TRUE(inside(a.data(), 10 * sizeof(double), buf, sizeof(buf)));
  EXPECT_EQ(reinterpret_cast<char*>(a.data()), buf + 8);  // buf + 1 rounded up to 8
  EXPECT_EQ(a.extent(0), 10u);
  EXPECT_EQ(a.impl_handle(), nullptr);  // unmanaged, no handle
  EXPECT_EQ(a.use_count(), 0);
  EXPECT_TRUE(a.is_allocated());

  V2 b(s, 3, 4);
  EXPECT_EQ(s.used(), V1::shmem_size(10) + V2::shmem_size(3, 4));
  EXPECT_TRUE(aligned(b.data(), alignof(int)));
  EXPECT_TRUE(inside(b.data(), 12 * sizeof(int), buf, sizeof(buf)));
  EXPECT_GE(reinterpret_cast<char*>(b.data()), reinterpret_cast<char*>(a.data() + 10));  // no overlap
  EXPECT_EQ(b.extent(0), 3u);
  EXPECT_EQ(b.extent(1), 4u);
  EXPECT_EQ(b.stride(0), 1u);
  EXPECT_EQ(b.stride(1), 3u);

  V3 c(s, 2, 3, 5);
  EXPECT_TRUE(aligned(c.data(), alignof(float)));
  EXPECT_TRUE(inside(c.data(), 30 * sizeof(float), buf, sizeof(buf)));
  EXPECT_GE(reinterpret_cast<char*>(c.data()), reinterpret_cast<char*>(b.data() + 12));
  EXPECT_EQ(c.extent(2), 5u);
  EXPECT_EQ(c.stride(0), 15u);
  EXPECT_EQ(s.calls(), 3);

  // The views are usable: writes through one do not touch the others.
  for (int i = 0; i < 10; ++i) a(i) = 0.5 * i;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) b(i, j) = 10 * i + j;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 5; ++k) c(i, j, k) = static_cast<float>(100 * i + 10 * j + k);
  EXPECT_EQ(a(9), 4.5);
  EXPECT_EQ(b(2, 3), 23);
  EXPECT_EQ(c(1, 2, 4), 124.0f);

  // Exhausted: dv::error on the host.
  FakeScratch small(buf, 16);
  EXPECT_THROW((V1(small, 4)), dv::error);
}

TEST(Scratch, ScratchMemorySpaceHandsOutAlignedChunks) {
  alignas(64) static char buf[256];
  alignas(64) static char buf1[64];
  Kokkos::ScratchMemorySpace<Kokkos::Serial> s(buf + 3, 200, buf1, sizeof(buf1));
  void* p = s.get_shmem(5);
  EXPECT_EQ(static_cast<char*>(p), buf + 8);
  void* q = s.get_shmem(3);
  EXPECT_EQ(static_cast<char*>(q), buf + 16);  // 8-byte aligned
  void* r = s.get_shmem_aligned(1, 32);
  EXPECT_EQ(static_cast<char*>(r), buf + 32);
  EXPECT_EQ(s.remaining(), static_cast<std::size_t>(buf + 203 - (buf + 33)));
  EXPECT_EQ(s.get_shmem(1000), nullptr);           // does not fit: nullptr, nothing taken
  EXPECT_EQ(static_cast<char*>(s.get_shmem(8, 1)), buf1);  // level 1
  EXPECT_EQ(s.remaining(1), 56u);

  // Views over it: get_shmem_aligned with the element's alignment, within shmem_size.
  Kokkos::ScratchMemorySpace<Kokkos::TestDevice> t(buf + 1, 255);
  using V = Kokkos::View<double**, Kokkos::TestDevice::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  V v(t, 4, 3);
  EXPECT_EQ(reinterpret_cast<char*>(v.data()), buf + 8);
  EXPECT_EQ(v.extent(0), 4u);
  EXPECT_EQ(v.extent(1), 3u);
  EXPECT_EQ(v.stride(1), 4u);  // LayoutLeft, the test device's
  V w(t, Kokkos::LayoutLeft(2, 2));
  EXPECT_EQ(reinterpret_cast<char*>(w.data()), buf + 8 + 96);
  EXPECT_LE(255u - t.remaining(), V::shmem_size(4, 3) + V::shmem_size(2, 2));
  EXPECT_THROW((V(t, 100, 100)), dv::error);

  // The sum of shmem_size values is enough for any sequence of Views.
  alignas(64) static char buf2[512];
  const std::size_t need = Kokkos::View<char*, Kokkos::HostSpace>::shmem_size(3) + Kokkos::View<double*, Kokkos::HostSpace>::shmem_size(5) +
                           Kokkos::View<short**, Kokkos::HostSpace>::shmem_size(3, 3) + Kokkos::View<double*, Kokkos::HostSpace>::shmem_size(1);
  Kokkos::ScratchMemorySpace<Kokkos::Serial> u(buf2 + 1, need);
  Kokkos::View<char*, Kokkos::Serial::scratch_memory_space> c1(u, 3);
  Kokkos::View<double*, Kokkos::Serial::scratch_memory_space> d1(u, 5);
  Kokkos::View<short**, Kokkos::Serial::scratch_memory_space> s1(u, 3, 3);
  Kokkos::View<double*, Kokkos::Serial::scratch_memory_space> d2(u, 1);
  EXPECT_TRUE(aligned(d1.data(), 8));
  EXPECT_TRUE(aligned(s1.data(), 2));
  EXPECT_TRUE(aligned(d2.data(), 8));
  EXPECT_TRUE(inside(d2.data(), 8, buf2 + 1, need));
}
