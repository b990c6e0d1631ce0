/*
 * dualview/space.hpp: memory and execution space tags with Kokkos' names.
 *
 * What a space means (whether the host may read it, whether a DualView
 * mirrors it, whether it is managed memory, whether its work runs on a device,
 * its default layout, whether it is page-locked) is the core's policy table
 * (dv_space_info, SpaceKind::policy in src/space/mod.rs); the tags restate it
 * at compile time and the googletest `Spaces.TagsFollowTheCorePolicy` fails if
 * the two ever disagree on any field of dv_space_info_t, or if a DV_SPACE_* of
 * dualview.h has no tag in detail::memory_spaces (page_locked, which
 * dv_space_info_t has no room for, is compared by tests/header.rs). Code that
 * asks about a space reads these fields, never a tag's name, so a new space is
 * its tags here and nothing else in the headers.
 */
#ifndef DUALVIEW_SPACE_HPP
#define DUALVIEW_SPACE_HPP

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "config.hpp"
#include "error.hpp"
#include "layout.hpp"

/* The CUDA runtime's stream type is `struct CUstream_st *` (cudaStream_t, CUstream). */
struct CUstream_st;

namespace dv {

template <class ExecutionSpace, class MemorySpace>
struct Device {
  using execution_space = ExecutionSpace;
  using memory_space = MemorySpace;
  using device_type = Device;
};

struct HostSpace;
struct CudaSpace;
struct CudaUVMSpace;
struct CudaHostPinnedSpace;
struct TestDeviceSpace;

namespace detail {
inline std::atomic<uint32_t>& device_id_ref() {
  static std::atomic<uint32_t> id{0};
  return id;
}
}  // namespace detail

/// The device (ordinal) that Views and DualViews of device spaces are made on
/// and that execution spaces fence: Kokkos' device id. 0 unless set.
inline uint32_t device_id() { return detail::device_id_ref().load(std::memory_order_relaxed); }

/// Choose the device for the Views and DualViews made from now on, and for
/// fences (Kokkos: `InitializationSettings().set_device_id(n)`,
/// `--kokkos-device-id=n`). Host spaces ignore it. A device that does not
/// exist is refused when something is made on it (`dv::no_device`).
inline void set_device_id(uint32_t n) { detail::device_id_ref().store(n, std::memory_order_relaxed); }

/// Wait for device work in `space` on the chosen device (a no-op for host
/// spaces); reported to Kokkos Tools as `name`.
inline void fence_space(uint32_t space, const std::string& name) {
  detail::check(dv_fence(space, device_id(), name.empty() ? "dualview::fence" : name.c_str()));
}

/// Kokkos `ScratchMemorySpace<Exec>` (team scratch memory): a bump allocator
/// over buffers its owner supplies (level 0 and, optionally, level 1).
/// dualview runs no kernels, so nothing here makes or sizes the buffers: a
/// dispatch shim that provides TeamPolicy constructs one per team over that
/// team's memory and hands it to the functor (`team.team_scratch(level)`).
/// `get_shmem(bytes, level)` returns the next chunk of `bytes` bytes, its start
/// aligned to ALIGN (8, Kokkos' alignment), or nullptr when the level's buffer
/// is exhausted; `get_shmem_aligned(bytes, align, level)` aligns the start to
/// `align` instead (a power of two). Views over scratch memory name it as
/// their memory space (`View<double*, Exec::scratch_memory_space,
/// MemoryUnmanaged>`), and are Views of the execution space's own memory
/// space (`memory_space` is `Exec::memory_space`): they are unmanaged Views
/// of that memory, with no handle (DECISIONS K1, K2).
template <class Exec>
class ScratchMemorySpace {
 public:
  static constexpr std::size_t ALIGN = 8;
  static constexpr bool is_memory_space = true;
  using execution_space = Exec;
  using memory_space = typename Exec::memory_space;
  using scratch_memory_space = ScratchMemorySpace;
  using device_type = Device<Exec, memory_space>;
  using size_type = std::size_t;
  static const char* name() { return "ScratchMemorySpace"; }

  DV_INLINE_FUNCTION ScratchMemorySpace() {}
  /// Over `size_l0` bytes at `ptr_l0` (level 0) and `size_l1` bytes at `ptr_l1` (level 1).
  DV_INLINE_FUNCTION ScratchMemorySpace(void* ptr_l0, std::size_t size_l0, void* ptr_l1 = nullptr, std::size_t size_l1 = 0)
      : iter_{static_cast<char*>(ptr_l0), static_cast<char*>(ptr_l1)},
        end_{static_cast<char*>(ptr_l0) + (ptr_l0 ? size_l0 : 0), static_cast<char*>(ptr_l1) + (ptr_l1 ? size_l1 : 0)} {}

  /// The next `bytes` bytes of level `level` (0 or 1), 8-byte aligned; nullptr when they do not fit.
  DV_INLINE_FUNCTION void* get_shmem(std::size_t bytes, int level = 0) const { return get_shmem_aligned(bytes, ALIGN, level); }
  /// The next `bytes` bytes of level `level`, aligned to `align` (a power of two); nullptr when they do not fit.
  DV_INLINE_FUNCTION void* get_shmem_aligned(std::size_t bytes, std::size_t align, int level = 0) const {
    const int l = level == 1 ? 1 : 0;
    if (!iter_[l]) return nullptr;
    const std::uintptr_t a = align ? align : 1;
    const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(iter_[l]);
    const std::uintptr_t start = (p + a - 1) & ~(a - 1);
    const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(end_[l]);
    if (start > end || bytes > end - start) return nullptr;
    iter_[l] = reinterpret_cast<char*>(start + bytes);
    return reinterpret_cast<void*>(start);
  }
  /// The bytes of level `level` not yet handed out.
  DV_INLINE_FUNCTION std::size_t remaining(int level = 0) const {
    const int l = level == 1 ? 1 : 0;
    return iter_[l] ? static_cast<std::size_t>(end_[l] - iter_[l]) : 0;
  }

 private:
  mutable char* iter_[2] = {nullptr, nullptr};
  char* end_[2] = {nullptr, nullptr};
};

namespace detail {

/// What every execution space says: itself, its memory space, its default layout, its name.
template <class Self, class Memory, class Layout>
struct execution_space_base {
  using execution_space = Self;
  using memory_space = Memory;
  using array_layout = Layout;
  using device_type = Device<Self, Memory>;
  /// Team scratch memory of this space (Kokkos `Exec::scratch_memory_space`).
  using scratch_memory_space = ScratchMemorySpace<Self>;
  using size_type = std::size_t;
  static constexpr bool is_execution_space = true;
  /// Parallelism of the space; dualview runs no kernels of its own.
  static constexpr int concurrency() { return 1; }
};

/// A host execution space: one instance, whose work completes on return.
template <class Self, class Memory, class Layout>
struct execution_space_tag : execution_space_base<Self, Memory, Layout> {
  /// Wait for this space's outstanding work (kernels launched by the caller included).
  void fence(const std::string& name = "") const { fence_space(Memory::code, name); }
  /// No stream: dualview's copies through it complete on return.
  void* impl_stream() const { return nullptr; }
  friend constexpr bool operator==(const Self&, const Self&) { return true; }
  friend constexpr bool operator!=(const Self&, const Self&) { return false; }
};

/// The stream a stream-owning instance destroys with its last copy (partition_space).
struct owned_stream {
  owned_stream(uint32_t s, uint32_t d, void* r) : space(s), device(d), raw(r) {}
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
  ~owned_stream() { (void)dv_stream_destroy(space, device, raw); }
  uint32_t space, device;
  void* raw;
};

/// A device execution space whose instances each order work on one stream,
/// as Kokkos' (`Kokkos::Cuda(stream)`): the default instance uses the default
/// stream, where dualview's copies complete on return; an instance over a
/// stream queues them there and returns at once (issue 22, DECISIONS G13).
template <class Self, class Memory, class Layout>
class stream_execution_space : public execution_space_base<Self, Memory, Layout> {
 public:
  /// The default instance: the default stream of the chosen device (dv::device_id()).
  stream_execution_space() : device_(dv::device_id()) {}
  /// An instance over `stream` (the caller's: it stays the caller's to destroy) on the chosen device.
  explicit stream_execution_space(void* stream) : stream_(stream), device_(dv::device_id()) {}

  /// The stream this instance orders work on (nullptr: the default stream).
  void* impl_stream() const { return stream_; }
  /// The device (ordinal) of this instance.
  int device_id() const { return static_cast<int>(device_); }
  /// Wait for this instance's work: its stream, or the whole device for the default instance.
  void fence(const std::string& name = "") const {
    if (!stream_) {
      detail::check(dv_fence(Memory::code, device_, name.empty() ? "dualview::fence" : name.c_str()));
      return;
    }
    detail::check(dv_stream_fence(Memory::code, device_, stream_));
  }
  /// An instance on a new stream of this instance's device, destroyed with its last copy.
  Self impl_new_instance() const {
    void* raw = nullptr;
    detail::check(dv_stream_create(Memory::code, device_, &raw));
    Self out;
    out.stream_ = raw;
    out.device_ = device_;
    if (raw) out.owner_ = std::make_shared<owned_stream>(Memory::code, device_, raw);
    return out;
  }
  friend bool operator==(const Self& a, const Self& b) { return a.stream_ == b.stream_ && a.device_ == b.device_; }
  friend bool operator!=(const Self& a, const Self& b) { return !(a == b); }

 private:
  void* stream_ = nullptr;
  uint32_t device_ = 0;
  std::shared_ptr<owned_stream> owner_;
};

/// The stream an execution space instance orders work on (nullptr: none).
template <class E>
void* stream_of(const E& e) {
  return e.impl_stream();
}

/// Whether instances of `E` can be made on new streams.
template <class E, class = void>
struct has_new_instance : std::false_type {};
template <class E>
struct has_new_instance<E, std::void_t<decltype(std::declval<const E&>().impl_new_instance())>> : std::true_type {};

/// What every memory space says: its C code, the core's policy (the fields of
/// dv_space_info_t and page_locked; the default layout is its execution
/// space's), its execution space, and the device memory space whose code also
/// uses it directly (`DevicePeer`: the device of managed and pinned memory;
/// void for the others).
template <class Self, uint32_t Code, bool HostAccessible, bool NeedsMirror, bool Unified, bool IsDevice, bool PageLocked,
          class Execution, class DevicePeer = void>
struct memory_space_tag {
  static constexpr uint32_t code = Code;
  static constexpr bool is_memory_space = true;
  /// Host code may dereference this memory.
  static constexpr bool host_accessible = HostAccessible;
  /// A DualView over this space keeps a separate HostSpace mirror.
  static constexpr bool needs_mirror = NeedsMirror;
  /// Managed memory: one allocation, one address on host and device.
  static constexpr bool unified = Unified;
  /// Work in this space runs on a (real or test) device.
  static constexpr bool is_device = IsDevice;
  /// Page-locked host memory (pinned): a DualView whose host side is this
  /// space asks the core for a pinned mirror (DV_FLAG_PINNED_HOST).
  static constexpr bool page_locked = PageLocked;
  /// Besides itself, the device memory space whose kernels use this memory directly (or void).
  using device_peer = DevicePeer;
  using memory_space = Self;
  using execution_space = Execution;
  using device_type = Device<Execution, Self>;
  using size_type = std::size_t;
};

}  // namespace detail

struct Serial;
struct Cuda;
struct TestDevice;

/// Serial host execution (the host side of every DualView); default layout LayoutRight.
struct Serial : detail::execution_space_tag<Serial, HostSpace, LayoutRight> {
  static const char* name() { return "Serial"; }
};
/// CUDA execution; its default layout is LayoutLeft, as in Kokkos. An
/// instance over a `cudaStream_t` (`Kokkos::Cuda exec(stream)`) queues
/// `sync(exec)` and `deep_copy(exec, ...)` there and returns at once.
struct Cuda : detail::stream_execution_space<Cuda, CudaSpace, LayoutLeft> {
  Cuda() = default;
  /// An instance over the caller's stream (a `cudaStream_t`; it stays the caller's).
  Cuda(::CUstream_st* stream) : stream_execution_space(static_cast<void*>(stream)) {}
  /// The instance's stream (nullptr: the default stream).
  ::CUstream_st* cuda_stream() const { return static_cast<::CUstream_st*>(impl_stream()); }
  static const char* name() { return "Cuda"; }
};
/// The test device: host code standing in for a GPU, so that two-space
/// semantics (real copies between distinct allocations) run without one.
/// Its default layout is LayoutLeft, as on a GPU. Never a default, unless
/// DUALVIEW_DEFAULT_TEST_DEVICE is defined (for CPU runs of unchanged programs). Its
/// instances over streams (`partition_space`, or a stream from
/// `dv_stream_create`) run their copies on a worker thread, so that code
/// written for `Kokkos::Cuda(stream)` runs its CPU tests with real overlap.
struct TestDevice : detail::stream_execution_space<TestDevice, TestDeviceSpace, LayoutLeft> {
  TestDevice() = default;
  /// An instance over a test-device stream from `dv_stream_create` (it stays the caller's).
  explicit TestDevice(void* stream) : stream_execution_space(stream) {}
  static const char* name() { return "TestDevice"; }
};

/// Kokkos `Experimental::partition_space(exec, w...)`: instances of `exec`'s
/// device on distinct new streams (one per weight; the weights themselves do
/// not matter, as in Kokkos' CUDA backend), each stream destroyed with the
/// last copy of its instance. Host spaces answer copies of `exec`.
template <class E, class... W, class = std::enable_if_t<E::is_execution_space && (std::is_arithmetic_v<W> && ...)>>
std::array<E, sizeof...(W)> partition_space(const E& exec, W...) {
  std::array<E, sizeof...(W)> out;
  for (auto& e : out) {
    if constexpr (detail::has_new_instance<E>::value) e = exec.impl_new_instance();
    else e = exec;
  }
  return out;
}
/// partition_space with a vector of weights: a vector of instances.
template <class E, class T, class = std::enable_if_t<E::is_execution_space && std::is_arithmetic_v<T>>>
std::vector<E> partition_space(const E& exec, const std::vector<T>& weights) {
  std::vector<E> out;
  out.reserve(weights.size());
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if constexpr (detail::has_new_instance<E>::value) out.push_back(exec.impl_new_instance());
    else out.push_back(exec);
  }
  return out;
}

/// Host memory.
struct HostSpace : detail::memory_space_tag<HostSpace, DV_SPACE_HOST, /*host_accessible*/ true, /*needs_mirror*/ false,
                                            /*unified*/ false, /*is_device*/ false, /*page_locked*/ false, Serial> {
  static const char* name() { return "Host"; }
};
/// CUDA device memory.
struct CudaSpace : detail::memory_space_tag<CudaSpace, DV_SPACE_CUDA, /*host_accessible*/ false, /*needs_mirror*/ true,
                                            /*unified*/ false, /*is_device*/ true, /*page_locked*/ false, Cuda> {
  static const char* name() { return "Cuda"; }
};
/// CUDA managed memory: one allocation both sides use at one address.
struct CudaUVMSpace : detail::memory_space_tag<CudaUVMSpace, DV_SPACE_CUDA_UVM, /*host_accessible*/ true, /*needs_mirror*/ false,
                                               /*unified*/ true, /*is_device*/ true, /*page_locked*/ false, Cuda, CudaSpace> {
  static const char* name() { return "CudaUVM"; }
};
/// Page-locked host memory.
struct CudaHostPinnedSpace : detail::memory_space_tag<CudaHostPinnedSpace, DV_SPACE_HOST_PINNED, /*host_accessible*/ true, /*needs_mirror*/ false,
                                                      /*unified*/ false, /*is_device*/ false, /*page_locked*/ true, Serial, CudaSpace> {
  static const char* name() { return "CudaHostPinned"; }
};
/// Host memory with its own allocation, playing a device: the host may read
/// it, yet a DualView mirrors it in HostSpace like CudaSpace.
struct TestDeviceSpace : detail::memory_space_tag<TestDeviceSpace, DV_SPACE_TEST_DEVICE, /*host_accessible*/ true, /*needs_mirror*/ true,
                                                  /*unified*/ false, /*is_device*/ true, /*page_locked*/ false, TestDevice> {
  static const char* name() { return "TestDevice"; }
};

#if defined(__CUDACC__)
using DefaultExecutionSpace = Cuda;
/// Memory both host and device use at one address (Kokkos SharedSpace).
using SharedSpace = CudaUVMSpace;
#elif defined(DUALVIEW_DEFAULT_TEST_DEVICE)
/// Opt-in, for CPU runs of unchanged Kokkos programs (tests/kokkos_programs):
/// the test device is the default, so `DualView<int*>` has two real sides.
using DefaultExecutionSpace = TestDevice;
using SharedSpace = HostSpace;
#else
using DefaultExecutionSpace = Serial;
using SharedSpace = HostSpace;
#endif
using DefaultHostExecutionSpace = Serial;

/// Kokkos `AnonymousSpace`: a View of any memory space converts to a View of this one
/// (a parameter that takes Views of every space, as Kokkos libraries write it). Such a
/// View reads and writes where its memory is; it allocates nothing.
struct AnonymousSpace : detail::memory_space_tag<AnonymousSpace, DV_SPACE_HOST, /*host_accessible*/ true, /*needs_mirror*/ false,
                                                 /*unified*/ false, /*is_device*/ false, /*page_locked*/ false, DefaultExecutionSpace> {
  static const char* name() { return "Anonymous"; }
};

/// The device part of Kokkos' `InitializationSettings`, for dv::initialize:
/// an explicit device id (-1: none) and `map_device_id_by` ("mpi_rank" or
/// "random"; empty: none). Set in code, they win over the arguments and the
/// environment. `space`: whose devices are mapped; unless set, the default
/// execution space's (CudaSpace under nvcc), or the test device's ordinals
/// when that is a host space (Serial: no GPU back end, as in Kokkos).
struct DeviceSettings {
  int device_id = -1;
  std::string map_device_id_by;
  uint32_t space = DefaultExecutionSpace::memory_space::is_device ? DefaultExecutionSpace::memory_space::code
                                                                  : uint32_t{DV_SPACE_TEST_DEVICE};
};

/// Choose this process's device as Kokkos 4's `initialize` does, and make it
/// dv::device_id(): an explicit device id (`settings`, `--kokkos-device-id=N`,
/// `KOKKOS_DEVICE_ID`), else `random` or round robin over the launcher's
/// node-local MPI rank, over `KOKKOS_VISIBLE_DEVICES` or every device of the
/// default execution space (docs/CPP.md, "Which GPU a process uses").
/// Removes the Kokkos arguments from argv. Returns the device; throws
/// dv::invalid_argument naming the option for an invalid value.
inline uint32_t initialize(int& argc, char** argv, const DeviceSettings& settings = {}) {
  dv_init_t in{settings.space, settings.device_id,
               settings.map_device_id_by.empty() ? nullptr : settings.map_device_id_by.c_str()};
  uint32_t ordinal = 0;
  bool mapped = false;
  detail::check(dv_initialize(&argc, argv, &in, &ordinal, &mapped));
  set_device_id(ordinal);
  return ordinal;
}
/// dv::initialize without arguments: the environment and `settings` only.
inline uint32_t initialize(const DeviceSettings& settings = {}) {
  int argc = 0;
  return initialize(argc, nullptr, settings);
}

namespace detail {
template <class... Ts>
struct type_list {};
/// Every memory space tag, one per DV_SPACE_* of dualview.h (Spaces.TagsFollowTheCorePolicy
/// fails when a space of the core has no tag here).
using memory_spaces = type_list<HostSpace, CudaHostPinnedSpace, CudaSpace, CudaUVMSpace, TestDeviceSpace>;

template <class T, class = void>
struct is_memory_space : std::false_type {};
template <class T>
struct is_memory_space<T, std::enable_if_t<T::is_memory_space>> : std::true_type {};
template <class T, class = void>
struct is_execution_space : std::false_type {};
template <class T>
struct is_execution_space<T, std::enable_if_t<T::is_execution_space>> : std::true_type {};
template <class T>
struct is_device : std::false_type {};
template <class E, class M>
struct is_device<Device<E, M>> : std::true_type {};
template <class T>
struct is_space : std::bool_constant<is_memory_space<T>::value || is_execution_space<T>::value || is_device<T>::value> {};

/// The memory space of any space-like argument.
template <class S>
using memory_of = typename S::memory_space;
}  // namespace detail

/// Kokkos SpaceAccessibility: `accessible` answers Kokkos' question, "does
/// code of `Access` use `Memory` directly, without a mirror?" Host code is
/// code of host memory that is no device's (HostSpace, pinned memory); for it
/// that is `!needs_mirror` (so the test device, though host memory, counts as
/// a device, as it is meant to). A device reaches its own memory and the
/// memory that names it as `device_peer` (its managed and pinned memory).
/// Read from the tags' fields, so a new space needs no line here.
template <class Access, class Memory>
struct SpaceAccessibility {
  using access_memory = detail::memory_of<Access>;
  using memory = detail::memory_of<Memory>;
  static constexpr bool host_access = access_memory::host_accessible && !access_memory::is_device;
  static constexpr bool accessible =
      std::is_same_v<access_memory, memory> ||
      (host_access ? !memory::needs_mirror : std::is_same_v<access_memory, typename memory::device_peer>);
  static constexpr bool assignable = std::is_same_v<access_memory, memory>;
  static constexpr bool deepcopy = true;
};

/// Wait for all work of the default execution space.
inline void fence(const std::string& name = "") { DefaultExecutionSpace().fence(name); }

/// The transfer report (docs/GPU.md, "The transfer report"): record every
/// copying sync and resize from now on, as `DV_REPORT` does from the start.
inline void report_start() { detail::check(dv_report_start()); }
/// Write the transfer report now: the table on stderr (empty `prefix`), or
/// `<prefix>.<rank>.txt` and `.csv`.
inline void report(const std::string& prefix = "") {
  detail::check(dv_report_write(prefix.empty() ? nullptr : prefix.c_str()));
}
/// Forget the transfer report's rows.
inline void report_reset() { detail::check(dv_report_reset()); }

/// Unregister and free the registered host blocks dualview keeps for reuse
/// (`DV_POOL_BYTES`, DECISIONS S11); the bytes given back. `Kokkos::finalize` calls it.
inline std::uint64_t pool_release() {
  std::uint64_t n = 0;
  detail::check(dv_pool_release(&n));
  return n;
}

/// Whether memory space `Memory` (a memory space tag, or any space-like
/// type) can be used here on device `ordinal` (ignored by host spaces):
/// dv_space_available.
template <class Memory>
bool space_available(uint32_t ordinal = 0) {
  bool b = false;
  detail::check(dv_space_available(detail::memory_of<Memory>::code, ordinal, &b));
  return b;
}

/// How many devices of memory space `Memory` this process can use (ordinals
/// 0 to n - 1; a host space counts 1 when usable): dv_space_device_count.
template <class Memory>
std::size_t space_device_count() {
  std::size_t n = 0;
  detail::check(dv_space_device_count(detail::memory_of<Memory>::code, &n));
  return n;
}

/// Whether a CUDA driver with at least one device is usable here (space_available<CudaSpace>()).
inline bool cuda_available() {
  bool b = false;
  detail::check(dv_cuda_available(&b));
  return b;
}

/// The number of CUDA devices (0 without a driver).
inline int device_count() {
  int n = 0;
  detail::check(dv_device_count(&n));
  return n;
}

}  // namespace dv

#endif  // DUALVIEW_SPACE_HPP
