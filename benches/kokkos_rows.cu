// The rows of benches/gpu_bench.cu that Kokkos can run too, written with
// Kokkos' names only (issue 32): scripts/gpu-bench.sh compiles this one
// source against dualview's Kokkos-named headers (-Iinclude/dualview/kokkos,
// -ldualview) and against the Kokkos that scripts/kokkos-build.sh built, runs
// both in the same session, and scripts/bench-ratio.py joins the two outputs
// by row into one table with a ratio column (Kokkos' time / this one's).
//
// Each row prints one line: ROW<TAB>name<TAB>seconds<TAB>check, where check is
// "ok" or what was wrong (every row checks the values it moved).
//   kokkos_rows [--only NAME,...]
#include <Kokkos_Core.hpp>
#include <Kokkos_DualView.hpp>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using DV1 = Kokkos::DualView<double*, Kokkos::LayoutRight, Kokkos::Cuda>;
using DV2 = Kokkos::DualView<double**, Kokkos::LayoutRight, Kokkos::Cuda>;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string only;
bool want(const char* name) { return only.empty() || ("," + only + ",").find("," + std::string(name) + ",") != std::string::npos; }

void row(const char* name, double seconds, const std::string& check) {
  std::printf("ROW\t%s\t%.9g\t%s\n", name, seconds, check.c_str());
  std::fflush(stdout);
}

#define BARRIER() asm volatile("" ::: "memory")

// modify_host(); clear_sync_state(): the flag path alone (per call pair).
void flags() {
  DV2 a("flags", 1000, 16);
  const long n = 20000000;
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) {
    double t0 = now();
    for (long i = 0; i < n; ++i) {
      a.modify_host();
      a.clear_sync_state();
      BARRIER();
    }
    t.push_back((now() - t0) / n);
  }
  row("flags: modify_host; clear_sync_state", median(t), a.need_sync_device() ? "need_sync_device after clear" : "ok");
}

// One double written on the host, marked, synced to the device, fenced.
void tiny() {
  DV1 a("tiny", 1);
  std::vector<double> t;
  for (int i = 0; i < 2000; ++i) {
    double t0 = now();
    a.h_view(0) = i + 0.5;
    a.modify_host();
    a.sync_device();
    Kokkos::fence();
    t.push_back(now() - t0);
  }
  double got = 0;
  cudaMemcpy(&got, a.d_view.data(), sizeof(double), cudaMemcpyDeviceToHost);
  row("tiny: write 1 double; modify_host; sync_device; fence", median(t), got == 1999.5 ? "ok" : "wrong value on the device");
}

// Later syncs of 1 GiB (after a first one of each direction).
void syncs() {
  const std::size_t n = (std::size_t(1) << 30) / sizeof(double);
  DV1 a("sync", n);
  for (std::size_t i = 0; i < n; i += 4096) a.h_view(i) = double(i);
  std::vector<double> h2d, d2h;
  for (int r = 0; r < 6; ++r) {
    a.modify_host();
    double t0 = now();
    a.sync_device();
    Kokkos::fence();
    if (r) h2d.push_back(now() - t0);
    a.modify_device();
    t0 = now();
    a.sync_host();
    Kokkos::fence();
    if (r) d2h.push_back(now() - t0);
  }
  double got = 0;
  cudaMemcpy(&got, a.d_view.data() + 4096 * 7, sizeof(double), cudaMemcpyDeviceToHost);
  const bool ok = got == 4096.0 * 7 && a.h_view(4096 * 9) == 4096.0 * 9;
  row("sync: later modify_host; sync_device, 1 GiB", median(h2d), ok ? "ok" : "wrong value");
  row("sync: later modify_device; sync_host, 1 GiB", median(d2h), ok ? "ok" : "wrong value");
}

// The first sync_host of a never-written 1 GiB mirror (the device filled by deep_copy).
void first_sync_host() {
  const std::size_t n = (std::size_t(1) << 30) / sizeof(double);
  std::vector<double> t;
  std::string check = "ok";
  for (int r = 0; r < 3; ++r) {
    DV1 a("first", n);
    Kokkos::deep_copy(a.d_view, 2.0);
    a.modify_device();
    double t0 = now();
    a.sync_host();
    Kokkos::fence();
    t.push_back(now() - t0);
    if (a.h_view(n - 1) != 2.0 || a.h_view(n / 2) != 2.0) check = "wrong value on the host";
  }
  row("mirror: first sync_host of a never-written 1 GiB", median(t), check);
}

// resize of a 1 GiB DualView<double**> while the device is newer, along each axis.
void resizes() {
  const std::size_t rows = 8192, cols = 16384;  // 1 GiB
  for (int axis = 0; axis < 2; ++axis) {
    std::vector<double> t;
    std::string check = "ok";
    for (int r = 0; r < 3; ++r) {
      DV2 a("resize", rows, cols);
      Kokkos::deep_copy(a.d_view, 3.0);
      a.modify_device();
      double t0 = now();
      if (axis == 0) a.resize(rows, 2 * cols);
      else a.resize(2 * rows, cols);
      Kokkos::fence();
      t.push_back(now() - t0);
      a.sync_host();
      if (a.h_view(rows - 1, cols - 1) != 3.0 || a.h_view(0, 0) != 3.0) check = "a kept value was lost";
    }
    row(axis == 0 ? "resize: (N, M) to (N, 2M), device newer, 1 GiB" : "resize: (N, M) to (2N, M), device newer, 1 GiB", median(t), check);
  }
}

// Creating (and destroying) a DualView: 16 MiB, and 64 bytes.
void creates() {
  for (std::size_t bytes : {std::size_t(16) << 20, std::size_t(64)}) {
    const int reps = bytes > 4096 ? 50 : 10000;
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
      double t0 = now();
      {
        DV1 a("create", bytes / sizeof(double));
        Kokkos::fence();
      }
      t.push_back(now() - t0);
    }
    row(bytes > 4096 ? "create: a 16 MiB DualView (and destroy it)" : "create: a 64-byte DualView (and destroy it)", median(t), "ok");
  }
}

__global__ void spin(long long cycles) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

// sync_host(exec) of 4 KiB queued behind a 20 ms kernel on the instance: the call's return.
void enqueue() {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  Kokkos::Cuda exec(s);
  DV1 a("enqueue", 4096 / sizeof(double));
  std::vector<double> t;
  std::string check = "ok";
  for (int r = 0; r < 5; ++r) {
    Kokkos::deep_copy(a.d_view, double(r));
    Kokkos::fence();
    a.modify_device();
    spin<<<1, 1, 0, s>>>(static_cast<long long>(clock_khz) * 20);  // about 20 ms
    double t0 = now();
    a.sync_host(exec);
    t.push_back(now() - t0);
    exec.fence();
    if (a.h_view(511) != double(r)) check = "wrong value on the host";
  }
  cudaStreamDestroy(s);
  row("enqueue: sync_host(exec) of 4 KiB behind a 20 ms kernel, the call returns", median(t), check);
}

}  // namespace

int main(int argc, char* argv[]) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--only") == 0) only = argv[i + 1];
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED kokkos_rows: no CUDA device\n");
    return 0;
  }
  Kokkos::ScopeGuard guard(argc, argv);
  if (want("flags")) flags();
  if (want("tiny")) tiny();
  if (want("sync")) syncs();
  if (want("mirror")) first_sync_host();
  if (want("resize")) resizes();
  if (want("create")) creates();
  if (want("enqueue")) enqueue();
  return 0;
}
