/*
 * dualview/tools.hpp: the Kokkos Tools interface in C++ (dv::tools; the
 * Kokkos names in dualview/kokkos.hpp map onto it).
 *
 * Tool libraries named in KOKKOS_TOOLS_LIBS are loaded by the library and
 * receive dualview's events. The setters below replace one event's callback,
 * as Kokkos' Tools::Experimental::set_*_callback do. The structs have the
 * layout of Kokkos' C interface (Kokkos_Profiling_C_Interface.h).
 *
 *   events dualview sends: init, finalize, allocate/deallocate data,
 *   begin/end deep copy, DualView sync/modify, begin/end fence (dv::fence and
 *   execution-space fences), regions, sections, profile events, metadata.
 *   events it never sends (it runs no kernels and does no tuning): parallel
 *   for/reduce/scan, kernel static info, tuning; their setters store the
 *   callback so that tool code compiles and get_callbacks() returns it.
 */
#ifndef DUALVIEW_TOOLS_HPP
#define DUALVIEW_TOOLS_HPP

#include <cstddef>
#include <cstdint>
#include <string>

#include "config.hpp"
#include "error.hpp"

namespace dv {
namespace tools {

struct SpaceHandle {
  char name[64];
};
struct KokkosPDeviceInfo {
  std::size_t deviceID;
};
struct KernelStaticInfo {
  char padding[256];
};

using initFunction = void (*)(const int, const uint64_t, const uint32_t, KokkosPDeviceInfo*);
using finalizeFunction = void (*)();
using parseArgsFunction = void (*)(int, char**);
using printHelpFunction = void (*)(char*);
using beginFunction = void (*)(const char*, const uint32_t, uint64_t*);
using endFunction = void (*)(uint64_t);
using markKernelStaticInfoFunction = void (*)(uint64_t, const KernelStaticInfo*);
using pushFunction = void (*)(const char*);
using popFunction = void (*)();
using allocateDataFunction = void (*)(const SpaceHandle, const char*, const void*, const uint64_t);
using deallocateDataFunction = void (*)(const SpaceHandle, const char*, const void*, const uint64_t);
using createProfileSectionFunction = void (*)(const char*, uint32_t*);
using startProfileSectionFunction = void (*)(const uint32_t);
using stopProfileSectionFunction = void (*)(const uint32_t);
using destroyProfileSectionFunction = void (*)(const uint32_t);
using profileEventFunction = void (*)(const char*);
using beginDeepCopyFunction = void (*)(SpaceHandle, const char*, const void*, SpaceHandle, const char*, const void*, uint64_t);
using endDeepCopyFunction = void (*)();
using beginFenceFunction = void (*)(const char*, const uint32_t, uint64_t*);
using endFenceFunction = void (*)(uint64_t);
using dualViewSyncFunction = void (*)(const char*, const void* const, bool);
using dualViewModifyFunction = void (*)(const char*, const void* const, bool);
using declareMetadataFunction = void (*)(const char*, const char*);
using toolInvokedFenceFunction = void (*)(const uint32_t);
using functionPointer = void (*)();

struct ToolProgrammingInterface {
  toolInvokedFenceFunction fence;
  functionPointer padding[31];
};
struct ToolSettings {
  bool requires_global_fencing;
  bool padding[255];
};
using provideToolProgrammingInterfaceFunction = void (*)(const uint32_t, ToolProgrammingInterface);
using requestToolSettingsFunction = void (*)(const uint32_t, ToolSettings*);

// Tuning types (dualview does no tuning; the layout is Kokkos').
using TuningString = char[64];
union VariableValueUnion {
  int64_t int_value;
  double double_value;
  TuningString string_value;
};
union VariableValueUnionSet {
  int64_t* int_value;
  double* double_value;
  TuningString* string_value;
};
struct ValueSet {
  std::size_t size;
  VariableValueUnionSet values;
};
enum OptimizationType { Minimize, Maximize };
struct OptimizationGoal {
  std::size_t type_id;
  OptimizationType goal;
};
struct ValueRange {
  VariableValueUnion lower, upper, step;
  bool openLower, openUpper;
};
enum ValueType { kokkos_value_double, kokkos_value_int64, kokkos_value_string };
enum StatisticalCategory { kokkos_value_categorical, kokkos_value_ordinal, kokkos_value_interval, kokkos_value_ratio };
enum CandidateValueType { kokkos_value_set, kokkos_value_range, kokkos_value_unbounded };
union SetOrRange {
  ValueSet set;
  ValueRange range;
};
struct VariableInfo {
  ValueType type;
  StatisticalCategory category;
  CandidateValueType valueQuantity;
  SetOrRange candidates;
  void* toolProvidedInfo;
};
struct VariableValue {
  std::size_t type_id;
  VariableValueUnion value;
  VariableInfo* metadata;
};
using outputTypeDeclarationFunction = void (*)(const char*, const std::size_t, VariableInfo*);
using inputTypeDeclarationFunction = void (*)(const char*, const std::size_t, VariableInfo*);
using requestValueFunction = void (*)(const std::size_t, const std::size_t, const VariableValue*, const std::size_t, VariableValue*);
using contextBeginFunction = void (*)(const std::size_t);
using contextEndFunction = void (*)(const std::size_t, VariableValue);
using optimizationGoalDeclarationFunction = void (*)(const std::size_t, const OptimizationGoal);

/// Every callback, as Kokkos' EventSet.
struct EventSet {
  initFunction init;
  finalizeFunction finalize;
  parseArgsFunction parse_args;
  printHelpFunction print_help;
  beginFunction begin_parallel_for;
  endFunction end_parallel_for;
  beginFunction begin_parallel_reduce;
  endFunction end_parallel_reduce;
  beginFunction begin_parallel_scan;
  endFunction end_parallel_scan;
  pushFunction push_region;
  popFunction pop_region;
  allocateDataFunction allocate_data;
  deallocateDataFunction deallocate_data;
  createProfileSectionFunction create_profile_section;
  startProfileSectionFunction start_profile_section;
  stopProfileSectionFunction stop_profile_section;
  destroyProfileSectionFunction destroy_profile_section;
  profileEventFunction profile_event;
  beginDeepCopyFunction begin_deep_copy;
  endDeepCopyFunction end_deep_copy;
  beginFenceFunction begin_fence;
  endFenceFunction end_fence;
  dualViewSyncFunction sync_dual_view;
  dualViewModifyFunction modify_dual_view;
  declareMetadataFunction declare_metadata;
  markKernelStaticInfoFunction mark_kernel_static_info;
  provideToolProgrammingInterfaceFunction provide_tool_programming_interface;
  requestToolSettingsFunction request_tool_settings;
  char profiling_padding[9 * sizeof(functionPointer)];
  outputTypeDeclarationFunction declare_output_type;
  inputTypeDeclarationFunction declare_input_type;
  requestValueFunction request_output_values;
  contextBeginFunction begin_tuning_context;
  contextEndFunction end_tuning_context;
  optimizationGoalDeclarationFunction declare_optimization_goal;
  char padding[231 * sizeof(functionPointer)];
};

namespace detail {
/// The callbacks set through this header (what get_callbacks() returns).
inline EventSet& current() {
  static EventSet e{};
  return e;
}
inline EventSet& paused() {
  static EventSet e{};
  return e;
}
template <class F>
void forward(uint32_t event, F f, const char* as) {
  dv::detail::check(dv_tools_set_callback(event, reinterpret_cast<void (*)(void)>(f)), as);
}
}  // namespace detail

// Events dualview sends: stored and forwarded to the library.
#define DV_TOOLS_SETTER(fn, field, type, event) \
  inline void fn(type f) {                       \
    detail::current().field = f;                 \
    detail::forward(event, f, "dv::tools::" #fn); \
  }
// Events dualview never sends: stored only.
#define DV_TOOLS_STORE(fn, field, type) \
  inline void fn(type f) { detail::current().field = f; }
DV_TOOLS_SETTER(set_init_callback, init, initFunction, DV_TOOLS_INIT)
DV_TOOLS_SETTER(set_finalize_callback, finalize, finalizeFunction, DV_TOOLS_FINALIZE)
DV_TOOLS_STORE(set_parse_args_callback, parse_args, parseArgsFunction)
DV_TOOLS_STORE(set_print_help_callback, print_help, printHelpFunction)
DV_TOOLS_STORE(set_begin_parallel_for_callback, begin_parallel_for, beginFunction)
DV_TOOLS_STORE(set_end_parallel_for_callback, end_parallel_for, endFunction)
DV_TOOLS_STORE(set_begin_parallel_reduce_callback, begin_parallel_reduce, beginFunction)
DV_TOOLS_STORE(set_end_parallel_reduce_callback, end_parallel_reduce, endFunction)
DV_TOOLS_STORE(set_begin_parallel_scan_callback, begin_parallel_scan, beginFunction)
DV_TOOLS_STORE(set_end_parallel_scan_callback, end_parallel_scan, endFunction)
DV_TOOLS_SETTER(set_push_region_callback, push_region, pushFunction, DV_TOOLS_PUSH_REGION)
DV_TOOLS_SETTER(set_pop_region_callback, pop_region, popFunction, DV_TOOLS_POP_REGION)
DV_TOOLS_SETTER(set_allocate_data_callback, allocate_data, allocateDataFunction, DV_TOOLS_ALLOCATE_DATA)
DV_TOOLS_SETTER(set_deallocate_data_callback, deallocate_data, deallocateDataFunction, DV_TOOLS_DEALLOCATE_DATA)
DV_TOOLS_SETTER(set_create_profile_section_callback, create_profile_section, createProfileSectionFunction, DV_TOOLS_CREATE_SECTION)
DV_TOOLS_SETTER(set_start_profile_section_callback, start_profile_section, startProfileSectionFunction, DV_TOOLS_START_SECTION)
DV_TOOLS_SETTER(set_stop_profile_section_callback, stop_profile_section, stopProfileSectionFunction, DV_TOOLS_STOP_SECTION)
DV_TOOLS_SETTER(set_destroy_profile_section_callback, destroy_profile_section, destroyProfileSectionFunction, DV_TOOLS_DESTROY_SECTION)
DV_TOOLS_SETTER(set_profile_event_callback, profile_event, profileEventFunction, DV_TOOLS_PROFILE_EVENT)
DV_TOOLS_SETTER(set_begin_deep_copy_callback, begin_deep_copy, beginDeepCopyFunction, DV_TOOLS_BEGIN_DEEP_COPY)
DV_TOOLS_SETTER(set_end_deep_copy_callback, end_deep_copy, endDeepCopyFunction, DV_TOOLS_END_DEEP_COPY)
DV_TOOLS_SETTER(set_begin_fence_callback, begin_fence, beginFenceFunction, DV_TOOLS_BEGIN_FENCE)
DV_TOOLS_SETTER(set_end_fence_callback, end_fence, endFenceFunction, DV_TOOLS_END_FENCE)
DV_TOOLS_SETTER(set_dual_view_sync_callback, sync_dual_view, dualViewSyncFunction, DV_TOOLS_DUAL_VIEW_SYNC)
DV_TOOLS_SETTER(set_dual_view_modify_callback, modify_dual_view, dualViewModifyFunction, DV_TOOLS_DUAL_VIEW_MODIFY)
DV_TOOLS_SETTER(set_declare_metadata_callback, declare_metadata, declareMetadataFunction, DV_TOOLS_DECLARE_METADATA)
DV_TOOLS_STORE(set_mark_kernel_static_info_callback, mark_kernel_static_info, markKernelStaticInfoFunction)
DV_TOOLS_STORE(set_provide_tool_programming_interface_callback, provide_tool_programming_interface, provideToolProgrammingInterfaceFunction)
DV_TOOLS_STORE(set_request_tool_settings_callback, request_tool_settings, requestToolSettingsFunction)
DV_TOOLS_STORE(set_declare_output_type_callback, declare_output_type, outputTypeDeclarationFunction)
DV_TOOLS_STORE(set_declare_input_type_callback, declare_input_type, inputTypeDeclarationFunction)
DV_TOOLS_STORE(set_request_output_values_callback, request_output_values, requestValueFunction)
DV_TOOLS_STORE(set_begin_context_callback, begin_tuning_context, contextBeginFunction)
DV_TOOLS_STORE(set_end_context_callback, end_tuning_context, contextEndFunction)
DV_TOOLS_STORE(set_declare_optimization_goal_callback, declare_optimization_goal, optimizationGoalDeclarationFunction)
#undef DV_TOOLS_SETTER
#undef DV_TOOLS_STORE

/// The callbacks set through this header.
inline EventSet get_callbacks() { return detail::current(); }

/// Set every callback at once.
inline void set_callbacks(const EventSet& e) {
  set_init_callback(e.init);
  set_finalize_callback(e.finalize);
  set_parse_args_callback(e.parse_args);
  set_print_help_callback(e.print_help);
  set_begin_parallel_for_callback(e.begin_parallel_for);
  set_end_parallel_for_callback(e.end_parallel_for);
  set_begin_parallel_reduce_callback(e.begin_parallel_reduce);
  set_end_parallel_reduce_callback(e.end_parallel_reduce);
  set_begin_parallel_scan_callback(e.begin_parallel_scan);
  set_end_parallel_scan_callback(e.end_parallel_scan);
  set_push_region_callback(e.push_region);
  set_pop_region_callback(e.pop_region);
  set_allocate_data_callback(e.allocate_data);
  set_deallocate_data_callback(e.deallocate_data);
  set_create_profile_section_callback(e.create_profile_section);
  set_start_profile_section_callback(e.start_profile_section);
  set_stop_profile_section_callback(e.stop_profile_section);
  set_destroy_profile_section_callback(e.destroy_profile_section);
  set_profile_event_callback(e.profile_event);
  set_begin_deep_copy_callback(e.begin_deep_copy);
  set_end_deep_copy_callback(e.end_deep_copy);
  set_begin_fence_callback(e.begin_fence);
  set_end_fence_callback(e.end_fence);
  set_dual_view_sync_callback(e.sync_dual_view);
  set_dual_view_modify_callback(e.modify_dual_view);
  set_declare_metadata_callback(e.declare_metadata);
  set_mark_kernel_static_info_callback(e.mark_kernel_static_info);
  set_provide_tool_programming_interface_callback(e.provide_tool_programming_interface);
  set_request_tool_settings_callback(e.request_tool_settings);
  set_declare_output_type_callback(e.declare_output_type);
  set_declare_input_type_callback(e.declare_input_type);
  set_request_output_values_callback(e.request_output_values);
  set_begin_context_callback(e.begin_tuning_context);
  set_end_context_callback(e.end_tuning_context);
  set_declare_optimization_goal_callback(e.declare_optimization_goal);
}

/// Stop sending events until resume_tools().
inline void pause_tools() {
  detail::paused() = detail::current();
  set_callbacks(EventSet{});
}
/// Send events again.
inline void resume_tools() { set_callbacks(detail::paused()); }

/// Open a profiling region.
inline void push_region(const std::string& name) { dv::detail::check(dv_tools_push_region(name.c_str())); }
/// Close the innermost region.
inline void pop_region() { dv::detail::check(dv_tools_pop_region()); }
/// Mark an instant.
inline void mark_event(const std::string& name) { dv::detail::check(dv_tools_mark_event(name.c_str())); }
/// Create a profiling section; returns its id.
inline uint32_t create_section(const std::string& name) {
  uint32_t id = 0;
  dv::detail::check(dv_tools_create_section(name.c_str(), &id));
  return id;
}
inline void start_section(uint32_t id) { dv::detail::check(dv_tools_section(id, 0)); }
inline void stop_section(uint32_t id) { dv::detail::check(dv_tools_section(id, 1), "dv::tools::stop_section"); }
inline void destroy_section(uint32_t id) { dv::detail::check(dv_tools_section(id, 2), "dv::tools::destroy_section"); }
/// Declare a key/value pair of metadata.
inline void declare_metadata(const std::string& key, const std::string& value) {
  dv::detail::check(dv_tools_declare_metadata(key.c_str(), value.c_str()));
}
/// Whether a tool library or a callback is active (loads KOKKOS_TOOLS_LIBS now).
inline bool profile_library_loaded() {
  bool on = false;
  dv::detail::check(dv_tools_init(&on));
  return on;
}
/// Call the tool's finalize and stop sending events (Kokkos::finalize does).
inline void finalize() { dv::detail::check(dv_tools_finalize()); }

/// A region open for the lifetime of the object.
class ScopedRegion {
 public:
  explicit ScopedRegion(const std::string& name) { push_region(name); }
  ScopedRegion(const ScopedRegion&) = delete;
  ScopedRegion& operator=(const ScopedRegion&) = delete;
  ~ScopedRegion() { (void)dv_tools_pop_region(); }
};

}  // namespace tools
}  // namespace dv

#endif  // DUALVIEW_TOOLS_HPP
