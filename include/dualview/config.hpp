/*
 * dualview/config.hpp: the language check and the host/device macros, once.
 * Every other part of the C++ wrapper includes this first.
 */
#ifndef DUALVIEW_CONFIG_HPP
#define DUALVIEW_CONFIG_HPP

#if defined(_MSVC_LANG)
#define DV_CPLUSPLUS _MSVC_LANG
#else
#define DV_CPLUSPLUS __cplusplus
#endif
#if DV_CPLUSPLUS < 201703L
#error "dualview's C++ headers need C++17 or later: compile with -std=c++17 (CMake: -DCMAKE_CXX_STANDARD=17 as LAMMPS builds it, target_compile_features(app PRIVATE cxx_std_17), or link DualView::dualview_cxx)"
#endif

#include <cstddef>
#include <cstdint>

#include "../dualview.h"

#if defined(__CUDACC__) || defined(__HIPCC__)
/// A function callable on the host and in device kernels.
#define DV_INLINE_FUNCTION __host__ __device__ inline
#define DV_FUNCTION __host__ __device__
#else
#define DV_INLINE_FUNCTION inline
#define DV_FUNCTION
#endif

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
/// True while compiling device code (reference counting and C calls are host-only).
#define DV_DEVICE_CODE 1
#else
#define DV_DEVICE_CODE 0
#endif

namespace dv {
namespace detail {
/// `a < b` for an index against a rank, written once: where the rank is 0, nvcc warns
/// about `i < 0` ("pointless comparison of unsigned integer with zero") at each caller.
DV_INLINE_FUNCTION constexpr bool below(std::size_t a, std::size_t b) { return a < b; }
}  // namespace detail
/// The ABI version this header was made for (the shared library reports its own: dv_version()).
inline constexpr int version_major = DV_VERSION_MAJOR;
inline constexpr int version_minor = DV_VERSION_MINOR;
}  // namespace dv

#endif  // DUALVIEW_CONFIG_HPP
