// Shared by the googletest files: the spaces the tests run on.
#pragma once
#include <gtest/gtest.h>

#include "dualview.hpp"

/// A two-space device that works without a GPU (host memory with its own allocation).
using TestDev = dv::Device<dv::TestDevice, dv::TestDeviceSpace>;

inline bool cuda_present() {
  bool b = false;
  return dv_cuda_available(&b) == DV_OK && b;
}

#define SKIP_WITHOUT_GPU() \
  if (!cuda_present()) GTEST_SKIP() << "no CUDA device on this machine (dv_cuda_available() is false)"

/// Sum of the host mirror, read without syncing.
template <class DV>
double host_sum(const DV& a) {
  double s = 0;
  auto h = a.h_view;
  for (std::size_t k = 0; k < h.span(); ++k) s += h.data()[k];
  return s;
}

/// Sum of the device view (the test device is host memory), read without syncing.
template <class DV>
double device_sum(const DV& a) {
  double s = 0;
  auto d = a.d_view;
  for (std::size_t k = 0; k < d.span(); ++k) s += d.data()[k];
  return s;
}
