/*
 * kokkos_standin.hpp: the few Kokkos core facilities that Kokkos' own
 * DualView tests use and dualview does not provide (it is not Kokkos core):
 * RangePolicy, MDRangePolicy<Rank<2>>, parallel_for, parallel_reduce,
 * atomic_add / atomic_inc (dualview provides Experimental::partition_space).
 *
 * Host execution spaces (Serial, TestDevice) run the loops serially on the
 * host; Kokkos::Cuda (under nvcc) launches one thread per index, so device
 * lambdas write d_view in device memory as Kokkos' Cuda category does.
 * Test scaffolding only: never installed.
 */
#ifndef DUALVIEW_KOKKOS_STANDIN_HPP
#define DUALVIEW_KOKKOS_STANDIN_HPP

#include <cstdint>
#include <type_traits>
#include <vector>

#include <dualview/kokkos.hpp>

namespace Kokkos {

template <class Exec = DefaultExecutionSpace>
struct RangePolicy {
  using execution_space = Exec;
  int64_t begin, end;
  RangePolicy(int64_t b, int64_t e) : begin(b), end(e) {}
};

template <unsigned N>
struct Rank {
  static constexpr unsigned rank = N;
};

namespace standin {
/// Two bounds given as `{a, b}` of any integer types.
struct index2 {
  int64_t v[2];
  template <class A, class B>
  index2(A a, B b) : v{static_cast<int64_t>(a), static_cast<int64_t>(b)} {}
};
}  // namespace standin

template <class Exec, class R = Rank<2>>
struct MDRangePolicy {
  static_assert(R::rank == 2, "stand-in: only Rank<2>");
  using execution_space = Exec;
  int64_t lower[2], upper[2];
  MDRangePolicy(standin::index2 lo, standin::index2 hi) : lower{lo.v[0], lo.v[1]}, upper{hi.v[0], hi.v[1]} {}
};

#if defined(__CUDACC__)
namespace standin {
template <class F>
__global__ void range_kernel(F f, int64_t begin, int64_t end) {
  int64_t i = begin + static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < end) f(static_cast<int>(i));
}
template <class F>
__global__ void md_kernel(F f, int64_t b0, int64_t e0, int64_t b1, int64_t e1) {
  int64_t n = (e0 - b0) * (e1 - b1);
  int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < n) f(static_cast<int>(b0 + k % (e0 - b0)), static_cast<int>(b1 + k / (e0 - b0)));
}
template <class F, class T>
__global__ void reduce_kernel(F f, int64_t begin, int64_t end, T* out) {
  int64_t i = begin + static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < end) {
    T v{};
    f(static_cast<int>(i), v);
    atomicAdd(out, v);
  }
}
inline void check(cudaError_t e) {
  if (e != cudaSuccess) dv::detail::raise(DV_ERROR_DEVICE, std::string("stand-in kernel: ") + cudaGetErrorString(e));
}
}  // namespace standin
#endif

template <class Exec, class F>
void parallel_for(const RangePolicy<Exec>& p, const F& f) {
#if defined(__CUDACC__)
  if constexpr (std::is_same_v<Exec, Cuda>) {
    if (p.end > p.begin) {
      int64_t n = p.end - p.begin;
      standin::range_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(f, p.begin, p.end);
      standin::check(cudaGetLastError());
    }
    return;
  }
#endif
  for (int64_t i = p.begin; i < p.end; ++i) f(static_cast<int>(i));
}
template <class Exec, class F>
void parallel_for(const std::string&, const RangePolicy<Exec>& p, const F& f) {
  parallel_for(p, f);
}
template <class F>
void parallel_for(int64_t n, const F& f) {
  parallel_for(RangePolicy<DefaultExecutionSpace>(0, n), f);
}

template <class Exec, class R, class F>
void parallel_for(const MDRangePolicy<Exec, R>& p, const F& f) {
#if defined(__CUDACC__)
  if constexpr (std::is_same_v<Exec, Cuda>) {
    int64_t n = (p.upper[0] - p.lower[0]) * (p.upper[1] - p.lower[1]);
    if (n > 0) {
      standin::md_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(f, p.lower[0], p.upper[0], p.lower[1], p.upper[1]);
      standin::check(cudaGetLastError());
    }
    return;
  }
#endif
  for (int64_t j = p.lower[1]; j < p.upper[1]; ++j)
    for (int64_t i = p.lower[0]; i < p.upper[0]; ++i) f(static_cast<int>(i), static_cast<int>(j));
}

template <class Exec, class F, class T>
void parallel_reduce(const RangePolicy<Exec>& p, const F& f, T& result) {
  result = T{};
#if defined(__CUDACC__)
  if constexpr (std::is_same_v<Exec, Cuda>) {
    T* d = nullptr;
    standin::check(cudaMalloc(&d, sizeof(T)));
    standin::check(cudaMemset(d, 0, sizeof(T)));
    if (p.end > p.begin) {
      int64_t n = p.end - p.begin;
      standin::reduce_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(f, p.begin, p.end, d);
      standin::check(cudaGetLastError());
    }
    standin::check(cudaMemcpy(&result, d, sizeof(T), cudaMemcpyDeviceToHost));
    standin::check(cudaFree(d));
    return;
  }
#endif
  for (int64_t i = p.begin; i < p.end; ++i) f(static_cast<int>(i), result);
}

template <class T>
KOKKOS_INLINE_FUNCTION void atomic_add(T* p, T v) {
#if defined(__CUDA_ARCH__)
  atomicAdd(p, v);
#else
  __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}
template <class T>
KOKKOS_INLINE_FUNCTION void atomic_inc(T* p) {
  atomic_add(p, T(1));
}

}  // namespace Kokkos

#endif  // DUALVIEW_KOKKOS_STANDIN_HPP
