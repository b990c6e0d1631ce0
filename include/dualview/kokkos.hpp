/*
 * dualview/kokkos.hpp: the Kokkos names mapped onto dualview, so that code
 * written against Kokkos::View / Kokkos::DualView compiles unchanged. The
 * headers under Kokkos' own names (Kokkos_Core.hpp, Kokkos_DualView.hpp, ...)
 * live in include/dualview/kokkos/ and include this file; reach them through
 * the CMake target DualView::kokkos or `pkg-config dualview-kokkos`.
 *
 * Not provided: parallel_for / parallel_reduce / policies (TeamPolicy
 * included) / atomics and the rest of Kokkos core (docs/CPP.md says how to
 * mix in your own kernels). Team scratch Views are provided
 * (ScratchMemorySpace, View::shmem_size) for a dispatch shim's TeamPolicy.
 */
#ifndef DUALVIEW_KOKKOS_HPP
#define DUALVIEW_KOKKOS_HPP

#include <chrono>
#include <cmath>
#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <cstdlib>
#include <ostream>
#include <string>
#include <type_traits>

#include "../dualview.hpp"

#ifndef KOKKOS_INLINE_FUNCTION
#define KOKKOS_INLINE_FUNCTION DV_INLINE_FUNCTION
#endif
#ifndef KOKKOS_FORCEINLINE_FUNCTION
#define KOKKOS_FORCEINLINE_FUNCTION DV_INLINE_FUNCTION
#endif
#ifndef KOKKOS_FUNCTION
#define KOKKOS_FUNCTION DV_FUNCTION
#endif
#ifndef KOKKOS_DEFAULTED_FUNCTION
#define KOKKOS_DEFAULTED_FUNCTION
/// Kokkos' contract check: with NDEBUG unset (or KOKKOS_ENFORCE_CONTRACTS,
/// KOKKOS_ENABLE_DEBUG), a false condition aborts with Kokkos' message;
/// otherwise it compiles to nothing.
#if !defined(KOKKOS_ASSERT)
#if !defined(NDEBUG) || defined(KOKKOS_ENFORCE_CONTRACTS) || defined(KOKKOS_ENABLE_DEBUG)
#define KOKKOS_ASSERT(...)                                                                                  \
  do {                                                                                                      \
    if (!(__VA_ARGS__)) {                                                                                   \
      ::dv::printf("Kokkos contract violation:\n  Asserted condition `%s` evaluated false.\nError at %s:%d\n", \
                   #__VA_ARGS__, __FILE__, __LINE__);                                                       \
      ::dv::abort("Kokkos contract violation: KOKKOS_ASSERT");                                              \
    }                                                                                                       \
  } while (0)
#else
#define KOKKOS_ASSERT(...)
#endif
#endif
#endif
#ifndef KOKKOS_LAMBDA
#if defined(__CUDACC__) || defined(__HIPCC__)
#define KOKKOS_LAMBDA [=] __host__ __device__
#define KOKKOS_CLASS_LAMBDA [ =, *this ] __host__ __device__
#else
#define KOKKOS_LAMBDA [=]
#define KOKKOS_CLASS_LAMBDA [ =, *this ]
#endif
#endif
#if defined(__CUDACC__) && !defined(KOKKOS_ENABLE_CUDA)
#define KOKKOS_ENABLE_CUDA
#endif
#ifndef KOKKOS_ENABLE_SERIAL
#define KOKKOS_ENABLE_SERIAL
#endif
/// Kokkos::SharedSpace exists (CudaUVMSpace under nvcc, HostSpace otherwise).
#ifndef KOKKOS_HAS_SHARED_SPACE
#define KOKKOS_HAS_SHARED_SPACE
#endif
/// Kokkos::SharedHostPinnedSpace exists (CudaHostPinnedSpace under nvcc, HostSpace otherwise).
#ifndef KOKKOS_HAS_SHARED_HOST_PINNED_SPACE
#define KOKKOS_HAS_SHARED_HOST_PINNED_SPACE
#endif
/// Kokkos' default build keeps deprecated code 4: DualView<D, A1, A2, A3>.
#if !defined(KOKKOS_ENABLE_DEPRECATED_CODE_4) && !defined(DUALVIEW_KOKKOS_NO_DEPRECATED_CODE_4)
#define KOKKOS_ENABLE_DEPRECATED_CODE_4
#endif
/// The Kokkos API level these names follow (4.6); DUALVIEW_KOKKOS_COMPAT tells the two apart.
#ifndef KOKKOS_VERSION
#define KOKKOS_VERSION 40600
#define KOKKOS_VERSION_MAJOR 4
#define KOKKOS_VERSION_MINOR 6
#define KOKKOS_VERSION_PATCH 0
#endif
#define DUALVIEW_KOKKOS_COMPAT 1

namespace Kokkos {

using dv::DualView;
using dv::View;
using dv::ViewTraits;

using dv::LayoutLeft;
using dv::LayoutRight;
using dv::LayoutStride;

using dv::AnonymousSpace;
using dv::Cuda;
using dv::CudaHostPinnedSpace;
using dv::CudaSpace;
using dv::CudaUVMSpace;
using dv::DefaultExecutionSpace;
using dv::DefaultHostExecutionSpace;
using dv::Device;
using dv::HostSpace;
using dv::ScratchMemorySpace;
using dv::Serial;
using dv::SharedSpace;
using dv::SpaceAccessibility;
/// The test device (two real allocations in host memory, for runs without a GPU).
using dv::TestDevice;
using dv::TestDeviceSpace;

using dv::Atomic;
using dv::MemoryManaged;
using dv::MemoryRandomAccess;
using dv::MemoryTraits;
using dv::MemoryUnmanaged;
using dv::RandomAccess;
using dv::Restrict;
using dv::Unmanaged;

using dv::ALL;
using dv::ALL_t;
using dv::AllowPadding;
using dv::abs;
using dv::arg;
using dv::complex;
using dv::conj;
using dv::exp;
using dv::imag;
using dv::log;
using dv::norm;
using dv::polar;
using dv::pow;
using dv::real;
using dv::sqrt;
using dv::create_mirror;
using dv::create_mirror_view;
using dv::create_mirror_view_and_copy;
using dv::deep_copy;
using dv::fence;
using dv::is_dual_view;
using dv::is_dual_view_v;
using dv::is_view;
using dv::is_view_v;
using dv::make_pair;
using dv::pair;
using dv::tie;
using dv::abort;
using dv::Array;
using dv::clamp;
using dv::max;
using dv::min;
using dv::minmax;
using dv::printf;
// The mathematical functions of Kokkos_MathematicalFunctions.hpp that real
// programs call (Kokkos::sqrt(x), Kokkos::fabs(x), ...): the standard ones,
// which nvcc also provides in device code, beside dv::complex's above.
using std::acos;
using std::acosh;
using std::asin;
using std::asinh;
using std::atan;
using std::atan2;
using std::atanh;
using std::cbrt;
using std::ceil;
using std::copysign;
using std::cos;
using std::cosh;
using std::erf;
using std::erfc;
using std::exp2;
using std::expm1;
using std::fabs;
using std::fdim;
using std::floor;
using std::fma;
using std::fmax;
using std::fmin;
using std::fmod;
using std::hypot;
using std::isfinite;
using std::isinf;
using std::isnan;
using std::lgamma;
using std::log10;
using std::log1p;
using std::log2;
using std::nearbyint;
using std::remainder;
using std::round;
using std::signbit;
using std::sin;
using std::sinh;
using std::tan;
using std::tanh;
using std::tgamma;
using std::trunc;
using std::abs;
using std::exp;
using std::log;
using std::pow;
using std::sqrt;
using dv::realloc;
using dv::resize;
using dv::SequentialHostInit;
using dv::subview;
using dv::view_alloc;
using dv::WithoutInitializing;

/// Kokkos_Layout.hpp: the largest rank of a View (an unnamed enum there too,
/// so it is a constant expression at namespace scope, as FLCL uses it).
enum { ARRAY_LAYOUT_MAX_RANK = 8 };
static_assert(ARRAY_LAYOUT_MAX_RANK == DV_MAX_RANK, "Kokkos::ARRAY_LAYOUT_MAX_RANK is dualview's maximum rank");

/// Kokkos_Layout.hpp: iteration order of multidimensional policies (a name only: dualview has no policies).
enum class Iterate { Default, Left, Right };

/// Kokkos_Concepts.hpp: is_X<T> and is_X_v<T>.
template <class T>
struct is_array_layout : dv::detail::is_layout<std::remove_cv_t<T>> {};
template <class T>
inline constexpr bool is_array_layout_v = is_array_layout<T>::value;
template <class T>
struct is_memory_space : dv::detail::is_memory_space<std::remove_cv_t<T>> {};
template <class T>
inline constexpr bool is_memory_space_v = is_memory_space<T>::value;
template <class T>
struct is_execution_space : dv::detail::is_execution_space<std::remove_cv_t<T>> {};
template <class T>
inline constexpr bool is_execution_space_v = is_execution_space<T>::value;
template <class T>
struct is_memory_traits : dv::detail::is_memory_traits<std::remove_cv_t<T>> {};
template <class T>
inline constexpr bool is_memory_traits_v = is_memory_traits<T>::value;
template <class T>
struct is_device : dv::detail::is_device<std::remove_cv_t<T>> {};
template <class T>
inline constexpr bool is_device_v = is_device<T>::value;
/// is_space<T>::value (Kokkos' is_space also carries the host mirror types; not here).
template <class T>
struct is_space : dv::detail::is_space<std::remove_cv_t<T>> {};

/// Kokkos::rank(view): the rank of a View as a value.
template <class DT, class... P>
constexpr unsigned rank(const View<DT, P...>&) {
  return View<DT, P...>::rank;
}

/// Names of Kokkos' CPU execution spaces, for CPU-only codes: each is the host
/// execution space (HostSpace memory, LayoutRight, concurrency 1) under its
/// own name, so `DualView<double*, Kokkos::OpenMP>` and
/// `View<double*, Kokkos::OpenMP>` are host Views, as with Serial. They are
/// distinct types (name() says which); KOKKOS_ENABLE_OPENMP / _THREADS / _HPX
/// stay undefined, since there is no parallel back end behind them, and the
/// defaults (DefaultExecutionSpace, DefaultHostExecutionSpace,
/// HostSpace::execution_space) stay Serial.
struct OpenMP : dv::detail::execution_space_tag<OpenMP, HostSpace, LayoutRight> {
  static const char* name() { return "OpenMP"; }
  static bool in_parallel() { return false; }
  static int impl_thread_pool_size() { return 1; }
};
struct Threads : dv::detail::execution_space_tag<Threads, HostSpace, LayoutRight> {
  static const char* name() { return "Threads"; }
  static bool in_parallel() { return false; }
  static int impl_thread_pool_size() { return 1; }
};
namespace Experimental {
struct HPX : dv::detail::execution_space_tag<HPX, HostSpace, LayoutRight> {
  static const char* name() { return "HPX"; }
  static bool in_parallel() { return false; }
};
using dv::partition_space;
}  // namespace Experimental
/// Kokkos spells it Kokkos::Experimental::HPX; Kokkos::HPX is kept for code that says so.
using Experimental::HPX;

/// Memory host and device use at one address, page-locked (Kokkos_Core_fwd.hpp).
#if defined(__CUDACC__)
using SharedHostPinnedSpace = CudaHostPinnedSpace;
#else
using SharedHostPinnedSpace = HostSpace;
#endif

/// Kokkos::Subview<V, Args...>: the type subview(V, Args...) returns.
template <class V, class... Args>
using Subview = decltype(dv::subview(std::declval<const V&>(), std::declval<const Args&>()...));

namespace Impl {
template <class...>
using void_t = void;
using dv::ALL_t;
}  // namespace Impl

/// dualview needs no run-time set-up beyond the device choice; these keep
/// Kokkos programs unchanged. The device is chosen as Kokkos 4 does
/// (dv::initialize: `set_device_id`, `set_map_device_id_by`,
/// `--kokkos-device-id=n`, `--kokkos-map-device-id-by=`, `KOKKOS_DEVICE_ID`,
/// `KOKKOS_MAP_DEVICE_ID_BY`, `KOKKOS_VISIBLE_DEVICES`, the launcher's local
/// rank) and becomes dv::device_id(); the thread count is accepted and
/// ignored. finalize() ends the Kokkos Tools session (kokkosp_finalize_library).
struct InitializationSettings {
  template <class T>
  InitializationSettings& set_num_threads(T) {
    return *this;
  }
  InitializationSettings& set_device_id(int n) {
    device_id_ = n;
    return *this;
  }
  bool has_device_id() const { return device_id_ >= 0; }
  int get_device_id() const { return device_id_; }
  InitializationSettings& set_map_device_id_by(const std::string& how) {
    map_device_id_by_ = how;
    return *this;
  }
  bool has_map_device_id_by() const { return !map_device_id_by_.empty(); }
  std::string get_map_device_id_by() const { return map_device_id_by_; }

 private:
  int device_id_ = -1;
  std::string map_device_id_by_;
};
namespace detail_init {
inline bool& state() {
  static bool initialized = false;
  return initialized;
}
/// Kokkos' `--kokkos-device-id N` (two arguments) as the one-argument form
/// dv::initialize reads.
inline void join_device_id_argument(int argc, char** argv, std::vector<std::string>& keep, std::vector<char*>& out) {
  const std::string flag = "--kokkos-device-id";
  for (int i = 0; i < argc && argv && argv[i]; ++i) {
    if (i > 0 && flag == argv[i] && i + 1 < argc) {
      keep.push_back(flag + "=" + argv[++i]);
    } else {
      keep.emplace_back(argv[i]);
    }
  }
  for (auto& k : keep) out.push_back(&k[0]);
}
inline void start(int& argc, char** argv, const InitializationSettings& s) {
  dv::DeviceSettings d;
  d.device_id = s.has_device_id() ? s.get_device_id() : -1;
  d.map_device_id_by = s.get_map_device_id_by();
  std::vector<std::string> keep;
  std::vector<char*> args;
  join_device_id_argument(argc, argv, keep, args);
  int n = static_cast<int>(args.size());
  dv::initialize(n, args.data(), d);
  detail_init::state() = true;
  (void)dv::tools::profile_library_loaded();
}
}  // namespace detail_init
inline void initialize(const InitializationSettings& s) {
  int argc = 0;
  detail_init::start(argc, nullptr, s);
}
inline void initialize() { initialize(InitializationSettings()); }
inline void initialize(int& argc, char** argv) { detail_init::start(argc, argv, InitializationSettings()); }
inline void finalize() {
  dv::tools::finalize();
  // Registered host memory kept for reuse goes back with the program's end of Kokkos.
  (void)dv::pool_release();
  detail_init::state() = false;
}
inline bool is_initialized() { return detail_init::state(); }
/// Kokkos::print_configuration: what this build provides (dualview, its
/// Kokkos API level, the spaces), one `key: value` line each.
inline void print_configuration(std::ostream& os, bool verbose = false) {
  os << "Kokkos Version: " << KOKKOS_VERSION_MAJOR << "." << KOKKOS_VERSION_MINOR << "." << KOKKOS_VERSION_PATCH
     << " (dualview's Kokkos names)\n";
  os << "Default execution space: " << DefaultExecutionSpace::name() << "\n";
  os << "Default host execution space: " << DefaultHostExecutionSpace::name() << "\n";
  if (verbose) os << "Parallel back ends: none (dualview runs no kernels; concurrency 1)\n";
}
inline bool is_finalized() { return !detail_init::state(); }

/// RAII form of initialize/finalize.
class ScopeGuard {
 public:
  ScopeGuard() { initialize(); }
  ScopeGuard(int& argc, char** argv) { initialize(argc, argv); }
  explicit ScopeGuard(const InitializationSettings& s) { initialize(s); }
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;
  ~ScopeGuard() { finalize(); }
};

namespace detail_malloc {
/// The blocks of `kokkos_malloc` in one memory space, by address: each one a
/// View of bytes, so dualview's allocator, tools events and leak report see it.
template <class MemorySpace>
struct Blocks {
  std::mutex mutex;
  std::unordered_map<void*, View<unsigned char*, MemorySpace>> live;
  static Blocks& get() {
    static Blocks b;
    return b;
  }
};
}  // namespace detail_malloc

/// `bytes` of `MemorySpace` memory, labelled (Kokkos::kokkos_malloc); freed by kokkos_free.
template <class MemorySpace = DefaultExecutionSpace::memory_space>
void* kokkos_malloc(const std::string& label, std::size_t bytes) {
  View<unsigned char*, MemorySpace> v(view_alloc(WithoutInitializing, label), bytes);
  void* p = v.data();
  auto& b = detail_malloc::Blocks<MemorySpace>::get();
  std::lock_guard<std::mutex> lock(b.mutex);
  b.live.emplace(p, std::move(v));
  return p;
}
/// kokkos_malloc with Kokkos' default label.
template <class MemorySpace = DefaultExecutionSpace::memory_space>
void* kokkos_malloc(std::size_t bytes) {
  return kokkos_malloc<MemorySpace>("no-label", bytes);
}
/// Free a block of kokkos_malloc (nullptr: nothing); any other address aborts, as in Kokkos.
template <class MemorySpace = DefaultExecutionSpace::memory_space>
void kokkos_free(void* p) {
  if (p == nullptr) return;
  auto& b = detail_malloc::Blocks<MemorySpace>::get();
  std::lock_guard<std::mutex> lock(b.mutex);
  if (b.live.erase(p) == 0) abort("Kokkos::kokkos_free: the address was not allocated by kokkos_malloc in this memory space");
}
/// A block of `bytes` holding the first bytes of `p`'s (Kokkos::kokkos_realloc); `p` is freed.
template <class MemorySpace = DefaultExecutionSpace::memory_space>
void* kokkos_realloc(void* p, std::size_t bytes) {
  if (p == nullptr) return kokkos_malloc<MemorySpace>(bytes);
  auto& b = detail_malloc::Blocks<MemorySpace>::get();
  View<unsigned char*, MemorySpace> old;
  {
    std::lock_guard<std::mutex> lock(b.mutex);
    auto it = b.live.find(p);
    if (it == b.live.end()) abort("Kokkos::kokkos_realloc: the address was not allocated by kokkos_malloc in this memory space");
    old = it->second;
  }
  void* q = kokkos_malloc<MemorySpace>(old.label(), bytes);
  const std::size_t n = bytes < old.extent(0) ? bytes : old.extent(0);
  View<unsigned char*, MemorySpace, MemoryTraits<Unmanaged>> to(static_cast<unsigned char*>(q), n), from(old.data(), n);
  deep_copy(to, from);
  kokkos_free<MemorySpace>(p);
  return q;
}

/// Policy properties of Kokkos_Concepts.hpp (`RangePolicy<IndexType<int>>`,
/// `Schedule<Dynamic>`): names for the program's dispatch to read; dualview
/// runs no kernels (DECISIONS K4).
template <class T>
struct IndexType {
  static_assert(std::is_integral_v<T>, "Kokkos::IndexType<T>: T must be an integral type");
  using index_type = IndexType;
  using type = T;
};
/// A static schedule (Schedule<Static>).
struct Static {};
/// A dynamic schedule (Schedule<Dynamic>).
struct Dynamic {};
template <class T>
struct Schedule {
  static_assert(std::is_same_v<T, Static> || std::is_same_v<T, Dynamic>, "Kokkos::Schedule<T>: T is Static or Dynamic");
  using schedule_type = Schedule;
  using type = T;
};
/// Whether T is an IndexType<...> (a dispatch skips it among a policy's arguments).
template <class T>
struct is_index_type : std::false_type {};
template <class T>
struct is_index_type<IndexType<T>> : std::true_type {};
/// Whether T is a Schedule<...>.
template <class T>
struct is_schedule_type : std::false_type {};
template <class T>
struct is_schedule_type<Schedule<T>> : std::true_type {};

/// Kokkos::Timer: wall-clock seconds since construction or reset().
class Timer {
 public:
  Timer() : start_(std::chrono::steady_clock::now()) {}
  void reset() { start_ = std::chrono::steady_clock::now(); }
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_;
};

namespace Tools {
using dv::tools::SpaceHandle;
inline void pushRegion(const std::string& name) { dv::tools::push_region(name); }
inline void popRegion() { dv::tools::pop_region(); }
inline void markEvent(const std::string& name) { dv::tools::mark_event(name); }
inline void createProfileSection(const std::string& name, uint32_t* id) { *id = dv::tools::create_section(name); }
inline void startSection(const uint32_t id) { dv::tools::start_section(id); }
inline void stopSection(const uint32_t id) { dv::tools::stop_section(id); }
inline void destroyProfileSection(const uint32_t id) { dv::tools::destroy_section(id); }
inline void declareMetadata(const std::string& key, const std::string& value) { dv::tools::declare_metadata(key, value); }
inline bool profileLibraryLoaded() { return dv::tools::profile_library_loaded(); }
using initFunction = dv::tools::initFunction;
using finalizeFunction = dv::tools::finalizeFunction;
using parseArgsFunction = dv::tools::parseArgsFunction;
using printHelpFunction = dv::tools::printHelpFunction;
using beginFunction = dv::tools::beginFunction;
using endFunction = dv::tools::endFunction;
using pushFunction = dv::tools::pushFunction;
using popFunction = dv::tools::popFunction;
using allocateDataFunction = dv::tools::allocateDataFunction;
using deallocateDataFunction = dv::tools::deallocateDataFunction;
using createProfileSectionFunction = dv::tools::createProfileSectionFunction;
using startProfileSectionFunction = dv::tools::startProfileSectionFunction;
using stopProfileSectionFunction = dv::tools::stopProfileSectionFunction;
using destroyProfileSectionFunction = dv::tools::destroyProfileSectionFunction;
using profileEventFunction = dv::tools::profileEventFunction;
using beginDeepCopyFunction = dv::tools::beginDeepCopyFunction;
using endDeepCopyFunction = dv::tools::endDeepCopyFunction;
using beginFenceFunction = dv::tools::beginFenceFunction;
using endFenceFunction = dv::tools::endFenceFunction;
using dualViewSyncFunction = dv::tools::dualViewSyncFunction;
using dualViewModifyFunction = dv::tools::dualViewModifyFunction;
using declareMetadataFunction = dv::tools::declareMetadataFunction;
using markKernelStaticInfoFunction = dv::tools::markKernelStaticInfoFunction;
using KernelStaticInfo = dv::tools::KernelStaticInfo;

namespace Experimental {
using dv::tools::EventSet;
using dv::tools::get_callbacks;
using dv::tools::OptimizationGoal;
using dv::tools::pause_tools;
using dv::tools::resume_tools;
using dv::tools::set_allocate_data_callback;
using dv::tools::set_begin_context_callback;
using dv::tools::set_begin_deep_copy_callback;
using dv::tools::set_begin_fence_callback;
using dv::tools::set_begin_parallel_for_callback;
using dv::tools::set_begin_parallel_reduce_callback;
using dv::tools::set_begin_parallel_scan_callback;
using dv::tools::set_callbacks;
using dv::tools::set_create_profile_section_callback;
using dv::tools::set_deallocate_data_callback;
using dv::tools::set_declare_input_type_callback;
using dv::tools::set_declare_metadata_callback;
using dv::tools::set_declare_optimization_goal_callback;
using dv::tools::set_declare_output_type_callback;
using dv::tools::set_destroy_profile_section_callback;
using dv::tools::set_dual_view_modify_callback;
using dv::tools::set_dual_view_sync_callback;
using dv::tools::set_end_context_callback;
using dv::tools::set_end_deep_copy_callback;
using dv::tools::set_end_fence_callback;
using dv::tools::set_end_parallel_for_callback;
using dv::tools::set_end_parallel_reduce_callback;
using dv::tools::set_end_parallel_scan_callback;
using dv::tools::set_finalize_callback;
using dv::tools::set_init_callback;
using dv::tools::set_mark_kernel_static_info_callback;
using dv::tools::set_parse_args_callback;
using dv::tools::set_pop_region_callback;
using dv::tools::set_print_help_callback;
using dv::tools::set_profile_event_callback;
using dv::tools::set_provide_tool_programming_interface_callback;
using dv::tools::set_push_region_callback;
using dv::tools::set_request_output_values_callback;
using dv::tools::set_request_tool_settings_callback;
using dv::tools::set_start_profile_section_callback;
using dv::tools::set_stop_profile_section_callback;
using dv::tools::ToolProgrammingInterface;
using dv::tools::ToolSettings;
using dv::tools::VariableInfo;
using dv::tools::VariableValue;
using toolInvokedFenceFunction = dv::tools::toolInvokedFenceFunction;
using provideToolProgrammingInterfaceFunction = dv::tools::provideToolProgrammingInterfaceFunction;
using requestToolSettingsFunction = dv::tools::requestToolSettingsFunction;
using outputTypeDeclarationFunction = dv::tools::outputTypeDeclarationFunction;
using inputTypeDeclarationFunction = dv::tools::inputTypeDeclarationFunction;
using requestValueFunction = dv::tools::requestValueFunction;
using contextBeginFunction = dv::tools::contextBeginFunction;
using contextEndFunction = dv::tools::contextEndFunction;
using optimizationGoalDeclarationFunction = dv::tools::optimizationGoalDeclarationFunction;
}  // namespace Experimental
}  // namespace Tools

namespace Profiling {
using dv::tools::KokkosPDeviceInfo;
using dv::tools::SpaceHandle;
using Tools::allocateDataFunction;
using Tools::beginDeepCopyFunction;
using Tools::beginFunction;
using Tools::createProfileSectionFunction;
using Tools::createProfileSection;
using Tools::deallocateDataFunction;
using Tools::destroyProfileSection;
using Tools::destroyProfileSectionFunction;
using Tools::endDeepCopyFunction;
using Tools::endFunction;
using Tools::finalizeFunction;
using Tools::initFunction;
using Tools::markEvent;
using Tools::parseArgsFunction;
using Tools::popFunction;
using Tools::popRegion;
using Tools::printHelpFunction;
using Tools::profileEventFunction;
using Tools::profileLibraryLoaded;
using Tools::pushFunction;
using Tools::pushRegion;
using Tools::startProfileSectionFunction;
using Tools::startSection;
using Tools::stopProfileSectionFunction;
using Tools::stopSection;
/// A region open for the lifetime of the object.
using ScopedRegion = dv::tools::ScopedRegion;
/// A named section, started and stopped explicitly.
class ProfilingSection {
 public:
  explicit ProfilingSection(const std::string& name) : id_(dv::tools::create_section(name)) {}
  ProfilingSection(const ProfilingSection&) = delete;
  ProfilingSection& operator=(const ProfilingSection&) = delete;
  ~ProfilingSection() { (void)dv_tools_section(id_, 2); }
  void start() { dv::tools::start_section(id_); }
  void stop() { dv::tools::stop_section(id_); }

 private:
  uint32_t id_;
};
namespace Experimental {
using namespace Tools::Experimental;
}
}  // namespace Profiling

}  // namespace Kokkos

#endif  // DUALVIEW_KOKKOS_HPP
