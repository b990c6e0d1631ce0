// GPU benchmark (scripts/gpu-bench.sh): dualview through its Kokkos names
// against raw CUDA copies of the same buffers, in one run on one GPU.
// Blocking calls are timed on the host clock (what a caller waits for);
// stream work is timed with CUDA events. Medians after a warm-up; the data is
// never zeros, and every timed transfer is checked afterwards.
// Output: a Markdown table on stdout, and with --csv FILE the bandwidth rows
// for scripts/bench-plot.py.
#include <cuda_runtime.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "dualview/kokkos_compat.hpp"
#include "tiny_round.hpp"

using DV2 = Kokkos::DualView<double**, Kokkos::LayoutLeft, Kokkos::Cuda>;
using DVR = Kokkos::DualView<double**, Kokkos::LayoutRight, Kokkos::Cuda>;
using DV1 = Kokkos::DualView<double*, Kokkos::LayoutLeft, Kokkos::Cuda>;

#define CK(x)                                                                                       \
  do {                                                                                              \
    cudaError_t e_ = (x);                                                                           \
    if (e_ != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));      \
      std::exit(2);                                                                                 \
    }                                                                                               \
  } while (0)

namespace {

constexpr std::size_t MiB = std::size_t(1) << 20;
constexpr std::size_t GiB = std::size_t(1) << 30;
int wrong = 0;  // transfers whose data did not arrive

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median seconds of `reps` timed calls of `body`, after `warm` untimed ones;
// `setup` runs untimed before each call.
double timed(int reps, const std::function<void()>& setup, const std::function<void()>& body, int warm = 1) {
  std::vector<double> t;
  for (int r = 0; r < warm + reps; ++r) {
    setup();
    double t0 = now();
    body();
    double t1 = now();
    if (r >= warm) t.push_back(t1 - t0);
  }
  return median(t);
}

int reps_for(std::size_t bytes) { return bytes >= GiB ? 5 : bytes >= 256 * MiB ? 7 : 15; }

__global__ void fill_kernel(double* p, std::size_t n, double base) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = base + double(i % 1000003);
}

__global__ void spin_kernel(double* p, int n, long iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = p[i];
  for (long k = 0; k < iters; ++k) x = x * 0.999999 + 1e-7;
  p[i] = x;
}

void device_fill(double* p, std::size_t n, double base, cudaStream_t s = nullptr) {
  fill_kernel<<<1024, 256, 0, s>>>(p, n, base);
  CK(cudaGetLastError());
}

void host_fill(double* p, std::size_t n, double base) {
  unsigned threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  std::vector<std::thread> ts;
  for (unsigned t = 0; t < threads; ++t)
    ts.emplace_back([=] {
      for (std::size_t i = n * t / threads; i < n * (t + 1) / threads; ++i) p[i] = base + double(i % 1000003);
    });
  for (auto& t : ts) t.join();
}

// Spot checks: element i of a block filled by *_fill(base) equals base + i % 1000003.
void check_host(const char* what, const double* p, std::size_t n, double base) {
  for (std::size_t i : {std::size_t(0), n / 3, n / 2, n - 1})
    if (p[i] != base + double(i % 1000003)) {
      std::printf("WRONG %s: element %zu is %g, expected %g\n", what, i, p[i], base + double(i % 1000003));
      ++wrong;
      return;
    }
}

void check_device(const char* what, const double* d, std::size_t n, double base) {
  for (std::size_t i : {std::size_t(0), n / 3, n / 2, n - 1}) {
    double x = 0;
    CK(cudaMemcpy(&x, d + i, 8, cudaMemcpyDeviceToHost));
    if (x != base + double(i % 1000003)) {
      std::printf("WRONG %s: device element %zu is %g, expected %g\n", what, i, x, base + double(i % 1000003));
      ++wrong;
      return;
    }
  }
}

// ---- the table ----
struct Row {
  std::string group, op, size, dv, raw, ratio, kokkos, target, met;
};
std::vector<Row> rows;
FILE* csv = nullptr;

std::string fmt(const char* f, double x) {
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}
std::string size_str(std::size_t b) { return b >= GiB ? fmt("%.0f GiB", double(b) / GiB) : fmt("%.0f MiB", double(b) / MiB); }
std::string gbs(std::size_t bytes, double s) { return fmt("%.1f GB/s", double(bytes) / s / 1e9); }
std::string ms(double s) { return fmt("%.2f ms", s * 1e3); }
std::string us(double s) { return fmt("%.2f us", s * 1e6); }
std::string verdict(bool ok) { return ok ? "yes" : "**no**"; }

void add(Row r) {
  std::printf("%-10s | %-46s | %-7s | %-12s | %-12s | %-7s | %-9s | %-26s | %s\n", r.group.c_str(), r.op.c_str(),
              r.size.c_str(), r.dv.c_str(), r.raw.c_str(), r.ratio.c_str(), r.kokkos.c_str(), r.target.c_str(), r.met.c_str());
  std::fflush(stdout);
  rows.push_back(std::move(r));
}

void plot_point(const char* series, const char* dir, std::size_t bytes, double s) {
  if (csv) std::fprintf(csv, "%s,%s,%zu,%.6f\n", series, dir, bytes, double(bytes) / s / 1e9);
}

// ---- raw references ----
struct Raw {
  double h2d, d2h;
};
Raw raw_copy(void* host, void* dev, std::size_t bytes) {
  int reps = reps_for(bytes);
  double h2d = timed(reps, [] {}, [&] { CK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice)); });
  double d2h = timed(reps, [] {}, [&] { CK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost)); });
  return {h2d, d2h};
}

Raw raw_pinned(std::size_t bytes) {
  double *h, *d;
  CK(cudaMallocHost(&h, bytes));
  CK(cudaMalloc(&d, bytes));
  host_fill(h, bytes / 8, 1.0);
  Raw r = raw_copy(h, d, bytes);
  CK(cudaFreeHost(h));
  CK(cudaFree(d));
  return r;
}

Raw raw_pageable(std::size_t bytes) {
  auto* h = static_cast<double*>(std::malloc(bytes));
  double* d;
  CK(cudaMalloc(&d, bytes));
  host_fill(h, bytes / 8, 1.0);
  Raw r = raw_copy(h, d, bytes);
  std::free(h);
  CK(cudaFree(d));
  return r;
}

enum class Mirror { Default, Pinned, Pageable };
const char* mirror_name(Mirror m) { return m == Mirror::Default ? "default" : m == Mirror::Pinned ? "pinned" : "pageable opt-out"; }

DV2 make(Mirror m, std::size_t rows_n, std::size_t cols) {
  if (m == Mirror::Pinned) return DV2(Kokkos::view_alloc("bench", dv::PinnedHostMirror), rows_n, cols);
  if (m == Mirror::Pageable) return DV2(Kokkos::view_alloc("bench", dv::PageableHostMirror), rows_n, cols);
  return DV2("bench", rows_n, cols);
}

// Kokkos 4.6.1 on the same kind of H200 (issue 9), N x 16 doubles, LayoutLeft.
constexpr double KOKKOS_H2D_1G = 120.7e-3, KOKKOS_D2H_1G = 75.1e-3, KOKKOS_RESIZE_1G = 1137e-3, KOKKOS_TINY = 7.7e-6,
                 KOKKOS_MOD_CLEAR = 27e-9;

// ---- 1. sync bandwidth ----
void sync_rows(std::size_t bytes, const Raw& pinned, const Raw& pageable) {
  const std::size_t n = bytes / 8, rows_n = n / 16;
  const int reps = reps_for(bytes);
  plot_point("raw pinned", "H2D", bytes, pinned.h2d);
  plot_point("raw pinned", "D2H", bytes, pinned.d2h);
  plot_point("raw pageable", "H2D", bytes, pageable.h2d);
  plot_point("raw pageable", "D2H", bytes, pageable.d2h);
  const bool big = bytes >= 256 * MiB;

  // First sync of a fresh default DualView (registration included).
  {
    std::vector<double> h2d, d2h;
    for (int r = 0; r < (bytes >= GiB ? 3 : 5); ++r) {
      DV2 a = make(Mirror::Default, rows_n, 16);
      host_fill(a.h_view.data(), n, 2.0 + r);
      a.modify_host();
      double t0 = now();
      a.sync_device();
      h2d.push_back(now() - t0);
      check_device("first sync_device", a.d_view.data(), n, 2.0 + r);
    }
    for (int r = 0; r < (bytes >= GiB ? 3 : 5); ++r) {
      DV2 a = make(Mirror::Default, rows_n, 16);
      device_fill(a.d_view.data(), n, 3.0 + r);
      CK(cudaDeviceSynchronize());
      a.modify_device();
      double t0 = now();
      a.sync_host();
      d2h.push_back(now() - t0);
      check_host("first sync_host", a.h_view.data(), n, 3.0 + r);
    }
    double th = median(h2d), td = median(d2h);
    bool gib = bytes == GiB;
    add({"sync", "default mirror, first modify_host+sync_device", size_str(bytes), gbs(bytes, th), gbs(bytes, pageable.h2d) + " pg",
         fmt("%.2f", pageable.h2d / th), gib ? fmt("%.2fx", KOKKOS_H2D_1G / th) : "", gib ? "<= 60% of Kokkos time" : "",
         gib ? verdict(th <= 0.6 * KOKKOS_H2D_1G) : ""});
    add({"sync", "default mirror, first modify_device+sync_host", size_str(bytes), gbs(bytes, td), gbs(bytes, pageable.d2h) + " pg",
         fmt("%.2f", pageable.d2h / td), gib ? fmt("%.2fx", KOKKOS_D2H_1G / td) : "", gib ? "<= 60% of Kokkos time" : "",
         gib ? verdict(td <= 0.6 * KOKKOS_D2H_1G) : ""});
    plot_point("default (first sync)", "H2D", bytes, th);
    plot_point("default (first sync)", "D2H", bytes, td);
  }

  // Later syncs, each mirror, against raw copies of the same two buffers and raw pinned.
  for (Mirror m : {Mirror::Default, Mirror::Pinned, Mirror::Pageable}) {
    DV2 a = make(m, rows_n, 16);
    host_fill(a.h_view.data(), n, 4.0);
    a.modify_host();
    a.sync_device();
    double base = 5.0;
    double th = timed(reps, [&] { a.modify_host(); }, [&] { a.sync_device(); });
    double td = timed(reps, [&] { a.modify_device(); }, [&] { a.sync_host(); });
    device_fill(a.d_view.data(), n, base);
    CK(cudaDeviceSynchronize());
    a.modify_device();
    a.sync_host();
    check_host("sync_host", a.h_view.data(), n, base);
    host_fill(a.h_view.data(), n, base + 1);
    a.modify_host();
    a.sync_device();
    check_device("sync_device", a.d_view.data(), n, base + 1);
    Raw same = raw_copy(a.h_view.data(), a.d_view.data(), bytes);
    std::string name = std::string(mirror_name(m)) + " mirror, later ";
    const bool pg = m == Mirror::Pageable;
    // The opt-out is held to raw pageable copies of its own buffers (same memory, same pages).
    const Raw& ref = pg ? same : pinned;
    std::string tgt = pg ? ">= raw pageable" : (m == Mirror::Default && big ? ">= 95% raw pinned" : "");
    auto met = [&](double dvt, double reft) { return pg ? verdict(dvt <= reft * 1.03) : (m == Mirror::Default && big ? verdict(reft / dvt >= 0.95) : std::string()); };
    bool gib = bytes == GiB && m == Mirror::Default;
    add({"sync", name + "modify_host+sync_device", size_str(bytes), gbs(bytes, th), gbs(bytes, ref.h2d) + (pg ? " same" : " pin"),
         fmt("%.2f", ref.h2d / th), gib ? fmt("%.2fx", KOKKOS_H2D_1G / th) : "", tgt, met(th, ref.h2d)});
    add({"sync", name + "modify_device+sync_host", size_str(bytes), gbs(bytes, td), gbs(bytes, ref.d2h) + (pg ? " same" : " pin"),
         fmt("%.2f", ref.d2h / td), gib ? fmt("%.2fx", KOKKOS_D2H_1G / td) : "", tgt, met(td, ref.d2h)});
    add({"sync", name + "raw cudaMemcpy of the same buffers", size_str(bytes), gbs(bytes, same.h2d) + " H2D", gbs(bytes, same.d2h) + " D2H",
         "", "", "", ""});
    std::string series = std::string(mirror_name(m)) + " (later syncs)";
    plot_point(series.c_str(), "H2D", bytes, th);
    plot_point(series.c_str(), "D2H", bytes, td);
  }
}

// ---- 2. strided subview syncs ----
template <class DV>
void strided_row(const char* what, std::size_t n0, std::size_t n1, std::pair<std::size_t, std::size_t> r0,
                 std::pair<std::size_t, std::size_t> r1, double contiguous_h2d, double contiguous_d2h, std::size_t block_bytes) {
  DV a("strided", n0, n1);
  host_fill(a.h_view.data(), n0 * n1, 6.0);
  a.modify_host();
  a.sync_device();
  auto s = Kokkos::subview(a, r0, r1);
  double th = timed(7, [&] { s.modify_host(); }, [&] { s.sync_device(); });
  double td = timed(7, [&] { s.modify_device(); }, [&] { s.sync_host(); });
  // Check: the block's device values reach the host, and nothing outside it moves.
  device_fill(a.d_view.data(), n0 * n1, 7.0);
  CK(cudaDeviceSynchronize());
  s.modify_device();
  s.sync_host();
  std::size_t i0 = r0.first, j0 = r1.first, i1 = r0.second - 1, j1 = r1.second - 1;
  auto expect = [&](std::size_t i, std::size_t j, double base) {
    std::size_t lin = &a.h_view(i, j) - a.h_view.data();
    return base + double(lin % 1000003);
  };
  if (a.h_view(i0, j0) != expect(i0, j0, 7.0) || a.h_view(i1, j1) != expect(i1, j1, 7.0)) {
    std::printf("WRONG strided %s: block not synced\n", what);
    ++wrong;
  }
  if (r1.second < n1 && a.h_view(i0, r1.second) != expect(i0, r1.second, 6.0)) {
    std::printf("WRONG strided %s: outside the block changed\n", what);
    ++wrong;
  }
  if (r0.second < n0 && a.h_view(r0.second, j0) != expect(r0.second, j0, 6.0)) {
    std::printf("WRONG strided %s: outside the block changed\n", what);
    ++wrong;
  }
  double fh = contiguous_h2d / th, fd = contiguous_d2h / td;
  add({"strided", std::string(what) + ", sync_device", size_str(block_bytes), gbs(block_bytes, th), gbs(block_bytes, contiguous_h2d) + " contig",
       fmt("%.2f", fh), "", ">= 70% of contiguous", verdict(fh >= 0.7)});
  add({"strided", std::string(what) + ", sync_host", size_str(block_bytes), gbs(block_bytes, td), gbs(block_bytes, contiguous_d2h) + " contig",
       fmt("%.2f", fd), "", ">= 70% of contiguous", verdict(fd >= 0.7)});
}

void strided_rows() {
  // Contiguous reference: a default DualView of the block's byte count.
  auto contiguous = [](std::size_t bytes, double& h2d, double& d2h) {
    DV2 c("contiguous", bytes / 8 / 16, 16);
    host_fill(c.h_view.data(), bytes / 8, 1.0);
    c.modify_host();
    c.sync_device();
    h2d = timed(7, [&] { c.modify_host(); }, [&] { c.sync_device(); });
    d2h = timed(7, [&] { c.modify_device(); }, [&] { c.sync_host(); });
  };
  double h, d;
  // Wide rows: 4096 x 8192 doubles (256 MiB), half of every row (32 KiB pieces).
  contiguous(128 * MiB, h, d);
  strided_row<DVR>("LayoutRight 4096x8192, columns [0,4096)", 4096, 8192, {0, 4096}, {0, 4096}, h, d, 128 * MiB);
  strided_row<DV2>("LayoutLeft 8192x4096, rows [0,4096)", 8192, 4096, {0, 4096}, {0, 4096}, h, d, 128 * MiB);
  // Narrow rows: N x 64 doubles (256 MiB), 32 columns (256-byte pieces).
  strided_row<DVR>("LayoutRight Nx64, columns [0,32)", 524288, 64, {0, 524288}, {0, 32}, h, d, 128 * MiB);
  strided_row<DV2>("LayoutLeft 64xN, rows [0,32)", 64, 524288, {0, 32}, {0, 524288}, h, d, 128 * MiB);
}

// ---- 3. async sync overlapped with a kernel ----
void overlap_rows() {
  const std::size_t bytes = 256 * MiB, n = bytes / 8;
  DV2 a("async", n / 16, 16);
  host_fill(a.h_view.data(), n, 8.0);
  a.modify_host();
  a.sync_device();  // registers the mirror
  const int kn = 132 * 2048;
  double* work;
  CK(cudaMalloc(&work, kn * 8));
  CK(cudaMemset(work, 0, kn * 8));
  cudaStream_t sk, sc;
  CK(cudaStreamCreateWithFlags(&sk, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&sc, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  auto copy_alone = [&] {
    a.modify_host();
    CK(cudaEventRecord(e0, sc));
    a.sync_device_async(sc);
    CK(cudaEventRecord(e1, sc));
    CK(cudaStreamSynchronize(sc));
  };
  long iters = 20000;
  auto kernel_alone = [&] {
    CK(cudaEventRecord(e0, sk));
    spin_kernel<<<kn / 256, 256, 0, sk>>>(work, kn, iters);
    CK(cudaEventRecord(e1, sk));
    CK(cudaStreamSynchronize(sk));
  };
  auto event_s = [&] {
    float t;
    CK(cudaEventElapsedTime(&t, e0, e1));
    return double(t) * 1e-3;
  };
  std::vector<double> tc, tk, tb;
  for (int r = 0; r < 3; ++r) copy_alone(), tc.push_back(event_s());
  double copy_s = median(tc);
  kernel_alone();
  iters = long(double(iters) * copy_s / event_s());  // make the kernel as long as the copy
  tc.clear();
  for (int r = 0; r < 8; ++r) {
    copy_alone();
    tc.push_back(event_s());
    kernel_alone();
    tk.push_back(event_s());
    // Both: the kernel on one stream, the sync on another; span from the first start to the last end.
    a.modify_host();
    double t0 = now();
    spin_kernel<<<kn / 256, 256, 0, sk>>>(work, kn, iters);
    a.sync_device_async(sc);
    CK(cudaStreamSynchronize(sc));
    CK(cudaStreamSynchronize(sk));
    tb.push_back(now() - t0);
  }
  double c = median(tc), k = median(tk), b = median(tb);
  double overlap = (c + k - b) / std::min(c, k);
  host_fill(a.h_view.data(), n, 9.0);
  a.modify_host();
  a.sync_device_async(sc);
  CK(cudaStreamSynchronize(sc));
  check_device("sync_device_async", a.d_view.data(), n, 9.0);
  add({"async", "sync_device_async on a stream || kernel on another", size_str(bytes),
       fmt("copy %.2f ms", c * 1e3) + fmt(", kernel %.2f ms", k * 1e3), fmt("both %.2f ms", b * 1e3), fmt("%.0f%%", overlap * 100), "",
       ">= 90% of ideal overlap", verdict(overlap >= 0.9)});
  CK(cudaFree(work));
  CK(cudaStreamDestroy(sk));
  CK(cudaStreamDestroy(sc));
}

// ---- 3b. the time sync_host_async takes to return behind a 20 ms kernel (issue 22) ----
__global__ void spin_for(double* p, long n, long long cycles, double base) {
  if (threadIdx.x == 0) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
  }
  __syncthreads();
  for (long i = threadIdx.x; i < n; i += blockDim.x) p[i] = base + double(i);
}

void enqueue_rows() {
  cudaStream_t sk;
  CK(cudaStreamCreateWithFlags(&sk, cudaStreamNonBlocking));
  for (std::size_t bytes : {std::size_t(4) << 10, std::size_t(64) << 10, std::size_t(128) << 10, std::size_t(8) << 20}) {
    const std::size_t n = bytes / 8;
    DV1 a("enqueue", n);
    double* pinned;
    CK(cudaMallocHost(&pinned, bytes));
    std::vector<double> t, raw;
    for (int r = 0; r < 8; ++r) {
      // Raw reference in the same state: a cudaMemcpyAsync into pinned memory behind the same kernel.
      spin_for<<<1, 256, 0, sk>>>(a.d_view.data(), long(n), 40000000LL, double(r));
      CK(cudaGetLastError());
      double r0 = now();
      CK(cudaMemcpyAsync(pinned, a.d_view.data(), bytes, cudaMemcpyDeviceToHost, sk));
      double r1 = now();
      if (r >= 2) raw.push_back(r1 - r0);
      CK(cudaStreamSynchronize(sk));
      spin_for<<<1, 256, 0, sk>>>(a.d_view.data(), long(n), 40000000LL, double(r));  // about 20 ms
      CK(cudaGetLastError());
      a.modify_device();
      double t0 = now();
      a.sync_host_async(sk);
      double t1 = now();
      if (r >= 2) t.push_back(t1 - t0);  // two warm-ups: staging buffer, event, registration
      a.sync_host();                     // blocking: waits for the copy in flight
      for (std::size_t i = 0; i < n; ++i)
        if (a.h_view(i) != double(r) + double(i)) {
          ++wrong;
          break;
        }
    }
    const double m = median(t), rm = median(raw);
    std::string size = bytes >= MiB ? size_str(bytes) : fmt("%.0f KiB", double(bytes) / 1024);
    add({"enqueue", "sync_host_async behind a 20 ms kernel: call returns", size, us(m), us(rm) + " raw", fmt("+%.2f us", (m - rm) * 1e6), "",
         "< 50 us", verdict(m < 50e-6)});
    CK(cudaFreeHost(pinned));
  }
  CK(cudaStreamDestroy(sk));
}

// ---- 4. resize to 2x, the newer side kept ----
void resize_rows() {
  const std::size_t n = GiB / 8, rows_n = n / 16;
  for (int axis : {1, 0}) {
    std::vector<double> t;
    for (int r = 0; r < 3; ++r) {
      DV2 a("grow", rows_n, 16);
      host_fill(a.h_view.data(), n, 10.0);
      a.modify_host();
      a.sync_device();
      device_fill(a.d_view.data(), n, 11.0);
      CK(cudaDeviceSynchronize());
      a.modify_device();
      double t0 = now();
      if (axis == 1)
        Kokkos::resize(a, rows_n, 32);
      else
        Kokkos::resize(a, 2 * rows_n, 16);
      t.push_back(now() - t0);
      // The device (newer) keeps its contents at the same (i, j); the host's stale
      // elements read their old value (grown in place) or zero (DECISIONS D3).
      for (std::size_t i : {std::size_t(0), rows_n / 2, rows_n - 1})
        for (std::size_t j : {std::size_t(0), std::size_t(15)}) {
          std::size_t lin = i + rows_n * j;
          double d = 0;
          CK(cudaMemcpy(&d, &a.d_view(i, j), 8, cudaMemcpyDeviceToHost));
          const double h = a.h_view(i, j);
          if ((h != 10.0 + double(lin % 1000003) && h != 0.0) || d != 11.0 + double(lin % 1000003)) {
            std::printf("WRONG resize: (%zu,%zu) host %g device %g\n", i, j, a.h_view(i, j), d);
            ++wrong;
          }
        }
      a.sync_host();
      if (a.h_view(rows_n - 1, 15) != 11.0 + double((rows_n - 1 + rows_n * 15) % 1000003)) {
        std::printf("WRONG resize: sync after resize\n");
        ++wrong;
      }
    }
    double s = median(t);
    double limit = axis == 1 ? 25e-3 : 110e-3;
    add({"resize", axis == 1 ? "resize(N, 2M) after modify_device (slowest axis)" : "resize(2N, M) after modify_device (other axis)",
         "1 GiB", ms(s), "", "", fmt("%.1fx", KOKKOS_RESIZE_1G / s), axis == 1 ? "<= 25 ms" : "<= 110 ms", verdict(s <= limit)});
  }
}

// ---- 5. create ----
void create_rows() {
  for (std::size_t bytes : {256 * MiB, GiB}) {
    const std::size_t n = bytes / 8;
    double c = timed(5, [] {}, [&] { DV2 a("create", n / 16, 16); });
    double cw = timed(5, [] {}, [&] {
      DV2 a("create", n / 16, 16);
      host_fill(a.h_view.data(), n, 12.0);
    });
    double raw = timed(5, [] {}, [&] {
      double *h, *d;
      h = static_cast<double*>(std::malloc(bytes));
      std::memset(h, 0, bytes);
      CK(cudaMalloc(&d, bytes));
      CK(cudaMemset(d, 0, bytes));
      CK(cudaDeviceSynchronize());
      std::free(h);
      CK(cudaFree(d));
    });
    double raww = timed(5, [] {}, [&] {
      double *h, *d;
      h = static_cast<double*>(std::malloc(bytes));
      host_fill(h, n, 12.0);
      CK(cudaMalloc(&d, bytes));
      CK(cudaMemset(d, 0, bytes));
      CK(cudaDeviceSynchronize());
      std::free(h);
      CK(cudaFree(d));
    });
    add({"create", "create + destroy (both sides zeroed)", size_str(bytes), ms(c), ms(raw) + " raw", fmt("%.2f", raw / c), "", "", ""});
    add({"create", "create + first full host write + destroy", size_str(bytes), ms(cw), ms(raww) + " raw", fmt("%.2f", raww / cw), "", "", ""});
  }
}

// ---- 6. tiny round trip ----
void tiny_rows() {
  DV1 a("tiny", 1);
  double* d;
  CK(cudaMalloc(&d, 8));
  const int batch = 2000;
  std::vector<double> tdv, traw;
  for (int r = 0; r < 21; ++r) {
    double t0 = now();
    tiny_batch(a, batch);
    double t1 = now();
    CK(raw_tiny_batch(d, batch));
    double t2 = now();
    if (r > 0) tdv.push_back((t1 - t0) / batch), traw.push_back((t2 - t1) / batch);
  }
  double got = 0;
  CK(cudaMemcpy(&got, a.d_view.data(), 8, cudaMemcpyDeviceToHost));
  if (got != batch - 1 + 0.5) std::printf("WRONG tiny: device has %g\n", got), ++wrong;
  double s = median(tdv), raw = median(traw);
  add({"tiny", "1 double: write; modify_host; sync_device; fence", "8 B", us(s), us(raw) + " raw", fmt("%+.2f us", (s - raw) * 1e6),
       fmt("%.2fx", KOKKOS_TINY / s), "<= raw + 0.5 us", verdict(s <= raw + 0.5e-6)});
  CK(cudaFree(d));
}

// ---- 6b. small syncs of the tiny path (8 B to 64 KiB, a pageable mirror) ----
// Each way: the host (device) side written, marked, synced, fenced; the raw reference: the
// same bytes copied by cudaMemcpy between a pageable buffer and the device, synchronized.
void small_rows() {
  for (std::size_t bytes : {std::size_t(8), std::size_t(4) << 10, std::size_t(16) << 10, std::size_t(32) << 10, std::size_t(64) << 10}) {
    const std::size_t n = bytes / 8;
    DV1 a("small", n);
    std::vector<double> pg(n);
    double* d;
    CK(cudaMalloc(&d, bytes));
    const int batch = 500;
    std::vector<double> th, td, rh, rd;
    for (int r = 0; r < 11; ++r) {
      double t0 = now();
      for (int i = 0; i < batch; ++i) {
        a.h_view(0) = i, a.h_view(n - 1) = i;
        a.modify_host();
        a.sync_device();
        Kokkos::fence();
      }
      double t1 = now();
      for (int i = 0; i < batch; ++i) {
        a.modify_device();
        a.sync_host();
        Kokkos::fence();
      }
      double t2 = now();
      for (int i = 0; i < batch; ++i) {
        pg[0] = i;
        CK(cudaMemcpy(d, pg.data(), bytes, cudaMemcpyHostToDevice));
        CK(cudaDeviceSynchronize());
      }
      double t3 = now();
      for (int i = 0; i < batch; ++i) {
        CK(cudaMemcpy(pg.data(), d, bytes, cudaMemcpyDeviceToHost));
        CK(cudaDeviceSynchronize());
      }
      double t4 = now();
      if (r > 0)
        th.push_back((t1 - t0) / batch), td.push_back((t2 - t1) / batch), rh.push_back((t3 - t2) / batch), rd.push_back((t4 - t3) / batch);
    }
    double back[2] = {0, 0};
    CK(cudaMemcpy(&back[0], a.d_view.data(), 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&back[1], a.d_view.data() + n - 1, 8, cudaMemcpyDeviceToHost));
    // The timed sync_host rounds copied what the host already held: one more whose device
    // values differ from the host's checks that direction.
    const double fresh = -3.5;
    CK(cudaMemcpy(a.d_view.data(), &fresh, 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(a.d_view.data() + n - 1, &fresh, 8, cudaMemcpyHostToDevice));
    a.modify_device();
    a.sync_host();
    if (back[0] != batch - 1 || back[1] != batch - 1 || a.h_view(0) != fresh || a.h_view(n - 1) != fresh)
      std::printf("WRONG small %zu B\n", bytes), ++wrong;
    std::string size = bytes < 1024 ? fmt("%.0f B", double(bytes)) : fmt("%.0f KiB", double(bytes) / 1024);
    double h = median(th), dv = median(td), rawh = median(rh), rawd = median(rd);
    add({"small", "write; modify_host; sync_device; fence", size, us(h), us(rawh) + " raw", fmt("%.2f", rawh / h), "", "", ""});
    add({"small", "modify_device; sync_host; fence", size, us(dv), us(rawd) + " raw", fmt("%.2f", rawd / dv), "", "", ""});
    CK(cudaFree(d));
  }
}

// ---- 7. flag operations ----
#define BARRIER() asm volatile("" ::: "memory")
template <class F>
double per_op(F f) {
  const long n = 20000000;
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) {
    double t0 = now();
    for (long i = 0; i < n; ++i) {
      f();
      BARRIER();
    }
    t.push_back((now() - t0) / n);
  }
  return median(t);
}

void flag_rows() {
  DV2 a("flags", 1000, 16);
  dv_dualview_t* h = nullptr;
  dv_desc_t desc{};
  desc.dtype = DV_DTYPE_FLOAT64;
  desc.layout = DV_LAYOUT_LEFT;
  desc.space = DV_SPACE_CUDA;
  uint64_t ext[2] = {1000, 16};
  dv_extents_t e;
  if (dv_extents_make(ext, 2, &e) != DV_OK) std::exit(2);
  desc.extents = e;
  if (dv_create("flags-c", &desc, &h) != DV_OK) {
    std::printf("WRONG dv_create: %s\n", dv_last_error());
    std::exit(2);
  }
  bool need = false;
  double c_clear = per_op([&] { (void)dv_modify_host(h), (void)dv_clear_sync_state(h); });
  double cpp_clear = per_op([&] { a.modify_host(), a.clear_sync_state(); });
  (void)dv_modify_host(h);
  a.modify_host();
  double c_mod = per_op([&] { (void)dv_modify_host(h); });
  double cpp_mod = per_op([&] { a.modify_host(); });
  a.sync_device();
  (void)dv_sync_device(h);
  double c_sync = per_op([&] { (void)dv_sync_device(h); });
  double cpp_sync = per_op([&] { a.sync_device(); });
  double c_need = per_op([&] { (void)dv_need_sync_device(h, &need); });
  volatile bool sink = false;
  double cpp_need = per_op([&] { sink = a.need_sync_device(); });
  (void)sink;
  // The floor of a thread-safe modify + clear: one compare-exchange and one store on a byte.
  static uint8_t byte = 0;
  double floor = per_op([&] {
    uint8_t cur = __atomic_load_n(&byte, __ATOMIC_ACQUIRE);
    if (cur == 0) __atomic_compare_exchange_n(&byte, &cur, uint8_t(1), true, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    __atomic_store_n(&byte, uint8_t(0), __ATOMIC_RELEASE);
  });
  auto ns = [](double s) { return fmt("%.2f ns", s * 1e9); };
  add({"probe", "compare-exchange + store on one byte (the floor of a thread-safe modify + clear)", "", ns(floor), "", "", "", "", ""});
  add({"flags", "modify_host; clear_sync_state", "", ns(cpp_clear) + " C++", ns(c_clear) + " C ABI", fmt("%.2f", c_clear / cpp_clear),
       fmt("%.1fx", KOKKOS_MOD_CLEAR / cpp_clear), "C++ <= 5 ns", verdict(cpp_clear <= 5e-9)});
  add({"flags", "modify_host (no-op: already modified)", "", ns(cpp_mod) + " C++", ns(c_mod) + " C ABI", fmt("%.2f", c_mod / cpp_mod), "",
       "C++ <= 2 ns", verdict(cpp_mod <= 2e-9)});
  add({"flags", "sync_device (no-op: nothing to copy)", "", ns(cpp_sync) + " C++", ns(c_sync) + " C ABI", fmt("%.2f", c_sync / cpp_sync), "",
       "C++ <= 2 ns", verdict(cpp_sync <= 2e-9)});
  add({"flags", "need_sync_device", "", ns(cpp_need) + " C++", ns(c_need) + " C ABI", fmt("%.2f", c_need / cpp_need), "", "C++ <= 2 ns",
       verdict(cpp_need <= 2e-9)});
  (void)dv_destroy(h);
}

// ---- probe: what registering a written mirror costs, one thread or several ----
void registration_probe() {
  const std::size_t bytes = GiB;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return;
  host_fill(static_cast<double*>(p), bytes / 8, 1.0);
  const std::size_t chunk = 64 * MiB;
  // Register with `threads` threads (0: one call for the whole block), timed; then unregister, untimed.
  auto reg_once = [&](int threads) {
    double t0 = now();
    if (threads == 0) {
      CK(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
    } else {
      std::vector<std::thread> ts;
      for (int k = 0; k < threads; ++k)
        ts.emplace_back([&, k] {
          for (std::size_t off = k * chunk; off < bytes; off += threads * chunk)
            CK(cudaHostRegister(static_cast<char*>(p) + off, chunk, cudaHostRegisterDefault));
        });
      for (auto& th : ts) th.join();
    }
    double t = now() - t0;
    if (threads == 0) CK(cudaHostUnregister(p));
    else
      for (std::size_t off = 0; off < bytes; off += chunk) CK(cudaHostUnregister(static_cast<char*>(p) + off));
    return t;
  };
  // Fresh pages (never written): registration faults them in too.
  auto fresh_once = [&](int threads) {
    void* q = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void* keep = p;
    p = q;
    double t = reg_once(threads);
    p = keep;
    munmap(q, bytes);
    return t;
  };
  std::vector<double> f0, f8;
  for (int r = 0; r < 3; ++r) f0.push_back(fresh_once(0)), f8.push_back(fresh_once(8));
  add({"probe", "cudaHostRegister of a fresh (unwritten) 1 GiB, one call", "1 GiB", ms(median(f0)), "", "", "", "", ""});
  add({"probe", "the same in 64 MiB chunks, 8 threads", "1 GiB", ms(median(f8)), "", "", "", "", ""});
  std::vector<double> r0, r1, r4, r8;
  for (int r = 0; r < 3; ++r) r0.push_back(reg_once(0)), r1.push_back(reg_once(1)), r4.push_back(reg_once(4)), r8.push_back(reg_once(8));
  add({"probe", "cudaHostRegister of a written 1 GiB, one call", "1 GiB", ms(median(r0)), "", "", "", "", ""});
  add({"probe", "the same in 64 MiB chunks, 1 thread", "1 GiB", ms(median(r1)), "", "", "", "", ""});
  add({"probe", "the same in 64 MiB chunks, 4 threads", "1 GiB", ms(median(r4)), "", "", "", "", ""});
  add({"probe", "the same in 64 MiB chunks, 8 threads", "1 GiB", ms(median(r8)), "", "", "", "", ""});
  munmap(p, bytes);
  // The tiny path's parts: what one 8-byte host -> device copy costs each way.
  double *d, *pin, host = 1.5;
  CK(cudaMalloc(&d, 8));
  CK(cudaMallocHost(&pin, 8));
  auto per = [&](const std::function<void()>& f) {
    std::vector<double> t;
    for (int r = 0; r < 11; ++r) {
      double t0 = now();
      for (int i = 0; i < 1000; ++i) f();
      t.push_back((now() - t0) / 1000);
    }
    return median(t);
  };
  double a = per([&] { CK(cudaMemcpy(d, &host, 8, cudaMemcpyHostToDevice)); });
  double b = per([&] { CK(cudaMemcpy(d, pin, 8, cudaMemcpyHostToDevice)); });
  double c = per([&] {
    *pin = host;
    CK(cudaMemcpyAsync(d, pin, 8, cudaMemcpyHostToDevice, nullptr));
    CK(cudaStreamSynchronize(nullptr));
  });
  double e = per([&] { CK(cudaDeviceSynchronize()); });
  double f = per([&] {
    CK(cudaDeviceSynchronize());
    *pin = host;
    CK(cudaMemcpyAsync(d, pin, 8, cudaMemcpyHostToDevice, nullptr));
    CK(cudaStreamSynchronize(nullptr));
  });
  add({"probe", "8 B cudaMemcpy from pageable memory", "8 B", us(a), "", "", "", "", ""});
  add({"probe", "8 B cudaMemcpy from pinned memory", "8 B", us(b), "", "", "", "", ""});
  add({"probe", "8 B into pinned staging + cudaMemcpyAsync + stream sync", "8 B", us(c), "", "", "", "", ""});
  add({"probe", "idle cudaDeviceSynchronize", "", us(e), "", "", "", "", ""});
  add({"probe", "device sync + staging + async copy + stream sync", "8 B", us(f), "", "", "", "", ""});
  CK(cudaFree(d));
  CK(cudaFreeHost(pin));
}

}  // namespace

int main(int argc, char** argv) {
  bool cuda = false;
  if (dv_cuda_available(&cuda) != DV_OK || !cuda) {
    std::printf("SKIPPED gpu_bench: no CUDA device on this machine\n");
    return 0;
  }
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--csv" && i + 1 < argc) csv = std::fopen(argv[++i], "w");
    else if (std::string(argv[i]) == "--only" && i + 1 < argc) only = argv[++i];
  }
  if (csv) std::fprintf(csv, "series,direction,bytes,gbps\n");
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  CK(cudaDriverGetVersion(&driver));
  std::printf("device: %s, CUDA driver API %d, dualview %s, %u host threads\n\n", prop.name, driver, dv_version(),
              std::thread::hardware_concurrency());
  std::printf("%-10s | %-46s | %-7s | %-12s | %-12s | %-7s | %-9s | %-26s | %s\n", "group", "operation", "size", "dualview", "raw",
              "ratio", "vs Kokkos", "target", "met");
  auto want = [&](const char* g) { return only.empty() || only.find(g) != std::string::npos; };
  try {
    if (want("flags")) flag_rows();
    if (want("tiny")) tiny_rows();
    if (want("small")) small_rows();
    if (want("sync"))
      for (std::size_t b : {MiB, 16 * MiB, 256 * MiB, GiB}) {
        Raw pin = raw_pinned(b), pg = raw_pageable(b);
        sync_rows(b, pin, pg);
      }
    if (want("strided")) strided_rows();
    if (want("async")) overlap_rows();
    if (want("enqueue")) enqueue_rows();
    if (want("resize")) resize_rows();
    if (want("create")) create_rows();
    if (want("probe")) registration_probe();
  } catch (const std::exception& e) {
    std::printf("ERROR: %s\n", e.what());
    return 1;
  }
  if (csv) std::fclose(csv);
  // The Markdown table, for docs/BENCHMARKS.md.
  std::printf("\n| group | operation | size | dualview | raw | ratio | vs Kokkos 4.6.1 | target | met |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (auto& r : rows)
    std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.group.c_str(), r.op.c_str(), r.size.c_str(), r.dv.c_str(),
                r.raw.c_str(), r.ratio.c_str(), r.kokkos.c_str(), r.target.c_str(), r.met.c_str());
  std::printf("\nwrong transfers: %d\n", wrong);
  return wrong == 0 ? 0 : 1;
}
