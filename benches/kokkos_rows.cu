// The rows of benches/gpu_bench.cu that Kokkos can run too, written with
// Kokkos' names only (issue 32): scripts/gpu-bench.sh compiles this one
// source against dualview's Kokkos-named headers (-Iinclude/dualview/kokkos,
// -ldualview) and against the Kokkos that scripts/kokkos-build.sh built, runs
// both in the same session, and scripts/bench-ratio.py joins the two outputs
// by row into one table with a ratio column (Kokkos' time / this one's).
//
// Each row prints one line: ROW<TAB>name<TAB>value<TAB>check, where value is seconds
// (bytes for a "memory:" row) and check is "ok" or what was wrong (every row checks
// the values it moved). A "floor:" row is raw CUDA, the same in both builds: a target's
// reference (scripts/bench-gates.py), not a comparison.
//   kokkos_rows [--only NAME,...]
#include <Kokkos_Core.hpp>
#include <Kokkos_DualView.hpp>
#include <cuda_runtime.h>

#include "resident.hpp"
#include "tiny_round.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
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

// One double written on the host, marked, synced to the device, fenced; in alternate
// batches, the floor: the same double copied by cudaMemcpy from the stack and synchronized
// (benches/gpu_bench.cu's raw sequence), and the same with the device waits before and
// after the copy that a synchronous sync owes (G5) and the row's fence.
void tiny() {
  DV1 a("tiny", 1);
  double* d;
  cudaMalloc(&d, sizeof(double));
  const int batch = 2000;
  std::vector<double> t, raw, fenced;
  bool raw_failed = false;
  for (int r = 0; r < 11; ++r) {
    double t0 = now();
    tiny_batch(a, batch);
    double t1 = now();
    if (raw_tiny_batch(d, batch) != cudaSuccess) raw_failed = true;
    double t2 = now();
    volatile double x = 0;
    // The same copy with the waits a synchronous deep_copy owes (before and after), then the
    // row's fence: the floor of the row's semantics (DECISIONS G5).
    for (int i = 0; i < batch; ++i) {
      x = i + 0.5;
      double y = x;
      cudaDeviceSynchronize();
      cudaMemcpy(d, &y, sizeof y, cudaMemcpyHostToDevice);
      cudaDeviceSynchronize();
      cudaDeviceSynchronize();
    }
    double t3 = now();
    if (r) t.push_back((t1 - t0) / batch), raw.push_back((t2 - t1) / batch), fenced.push_back((t3 - t2) / batch);
  }
  double got = 0, got_raw = 0;
  cudaMemcpy(&got, a.d_view.data(), sizeof(double), cudaMemcpyDeviceToHost);
  cudaMemcpy(&got_raw, d, sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(d);
  row("tiny: write 1 double; modify_host; sync_device; fence", median(t), got == batch - 0.5 ? "ok" : "wrong value on the device");
  row("floor: tiny: cudaMemcpy of 1 double from the stack; cudaDeviceSynchronize", median(raw),
      got_raw == batch - 0.5 && !raw_failed ? "ok" : "wrong value or a failed CUDA call");
  row("floor: tiny, fenced as a synchronous deep_copy: sync; cudaMemcpy; sync; then the row's fence", median(fenced),
      got_raw == batch - 0.5 ? "ok" : "wrong value");
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

// Later syncs of 1 MiB, each direction; in alternate repetitions, the floor: cudaMemcpy
// of the same bytes between a pinned buffer and the device.
void syncs_1mib() {
  const std::size_t bytes = std::size_t(1) << 20, n = bytes / sizeof(double);
  DV1 a("sync1m", n);
  double *pin = nullptr, *dev = nullptr;
  cudaMallocHost(&pin, bytes);
  cudaMalloc(&dev, bytes);
  std::memset(pin, 0, bytes);
  std::vector<double> h2d, d2h, raw_h2d, raw_d2h;
  bool ok = true;
  for (int r = 0; r < 201; ++r) {
    // Each round's values differ on both sides (a sync that moved nothing fails the check).
    a.h_view(r) = r + 0.5;
    a.h_view(n - 1 - r) = r + 0.25;
    a.modify_host();
    double t0 = now();
    a.sync_device();
    Kokkos::fence();
    double t1 = now();
    double got[2] = {0, 0};
    cudaMemcpy(&got[0], a.d_view.data() + r, sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(&got[1], a.d_view.data() + n - 1 - r, sizeof(double), cudaMemcpyDeviceToHost);
    ok = ok && got[0] == r + 0.5 && got[1] == r + 0.25;
    Kokkos::deep_copy(a.d_view, -double(r));
    Kokkos::fence();
    a.modify_device();
    double t2 = now();
    a.sync_host();
    Kokkos::fence();
    double t3 = now();
    ok = ok && a.h_view(0) == -double(r) && a.h_view(n / 2) == -double(r) && a.h_view(n - 1) == -double(r);
    cudaMemcpy(dev, pin, bytes, cudaMemcpyHostToDevice);
    double t4 = now();
    cudaMemcpy(pin, dev, bytes, cudaMemcpyDeviceToHost);
    double t5 = now();
    if (r) h2d.push_back(t1 - t0), d2h.push_back(t3 - t2), raw_h2d.push_back(t4 - t3), raw_d2h.push_back(t5 - t4);
  }
  cudaFreeHost(pin);
  cudaFree(dev);
  row("sync: later modify_host; sync_device, 1 MiB", median(h2d), ok ? "ok" : "wrong value");
  row("sync: later modify_device; sync_host, 1 MiB", median(d2h), ok ? "ok" : "wrong value");
  row("floor: cudaMemcpy of 1 MiB, pinned host to device", median(raw_h2d), "ok");
  row("floor: cudaMemcpy of 1 MiB, device to pinned host", median(raw_d2h), "ok");
}

// Empty dualview's pool of registered host blocks (DECISIONS S11); Kokkos has none.
void pool_release() {
#ifdef DUALVIEW_KOKKOS_COMPAT
  (void)dv::pool_release();
#endif
}

// The first sync_host of a never-written 1 GiB mirror (the device filled by deep_copy):
// cold, the pool emptied before each; warm, a 1 GiB DualView synced both ways went 1 s
// before (each repetition waits 1 s, cold or warm) (scripts/gpu-bench.sh runs this group with DV_POOL_BYTES=2G, so that dualview's
// pool may keep a 1 GiB block; the default cap, 512 MiB, keeps none that large).
void first_sync_host() {
  const std::size_t n = (std::size_t(1) << 30) / sizeof(double);
  for (bool warm : {false, true}) {
    std::vector<double> t;
    std::string check = "ok";
    auto one = [&](bool timed, double value) {
      DV1 a("first", n);
      Kokkos::deep_copy(a.d_view, value);
      a.modify_device();
      Kokkos::fence();
      double t0 = now();
      a.sync_host();
      Kokkos::fence();
      if (timed) t.push_back(now() - t0);
      if (a.h_view(n - 1) != value || a.h_view(n / 2) != value || a.h_view(0) != value || a.h_view(7) != value)
        check = "wrong value on the host";
      a.h_view(7) = -1.0;  // the next mirror must not see this
      a.modify_host();
      a.sync_device();
      Kokkos::fence();
    };
    pool_release();
    if (warm) {
      one(false, 1.0);  // a size freed, then asked for again, churns: its next free is kept
      one(false, 1.0);
    }
    for (int r = 0; r < 3; ++r) {
      std::this_thread::sleep_for(std::chrono::seconds(1));  // the last one's release is over
      if (!warm) pool_release();
      one(true, 2.0 + r);
    }
    row(warm ? "mirror: first sync_host of a never-written 1 GiB, warm (a 1 GiB DualView went 1 s before)"
             : "mirror: first sync_host of a never-written 1 GiB, cold (empty pool)",
        median(t), check);
  }
  pool_release();
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

// Create a 1 GiB DualView and resize it to 2 GiB, timed together; five repetitions back to
// back, so that each but the first starts while the last one's 2 GiB DualView is released
// (its mirror written and synced to the device after the resize, as a program would).
void create_resize() {
  const std::size_t n = (std::size_t(1) << 30) / sizeof(double);
  std::vector<double> t;
  std::string check = "ok";
  for (int r = 0; r < 5; ++r) {
    double t0 = now();
    DV1 a("grow", n);
    a.resize(2 * n);
    Kokkos::fence();
    t.push_back(now() - t0);
    if (a.h_view(n - 1) != 0.0 || a.h_view(2 * n - 1) != 0.0) check = "a new element is not zero";
    for (std::size_t i = 0; i < 2 * n; i += 512) a.h_view(i) = double(i);
    a.modify_host();
    a.sync_device();
    double got = 0;
    cudaMemcpy(&got, a.d_view.data() + 2 * n - 512, sizeof got, cudaMemcpyDeviceToHost);
    if (got != double(2 * n - 512)) check = "wrong value on the device";
  }
  row("resize: create 1 GiB, resize to 2 GiB, back to back (the last one's release running)", median(t), check);
}

// Destroying DualViews synced both ways: 1,000 of 1 MiB (the time per DualView), and one of
// 1 GiB; 1 s between repetitions, so that none starts inside the last one's release.
void destroys() {
  for (std::size_t bytes : {std::size_t(1) << 20, std::size_t(1) << 30}) {
    const std::size_t n = bytes / sizeof(double);
    const int count = bytes == (std::size_t(1) << 20) ? 1000 : 1;
    std::vector<double> t;
    std::string check = "ok";
    for (int r = 0; r < 3; ++r) {
      std::vector<DV1> v;
      v.reserve(count);
      for (int i = 0; i < count; ++i) {
        v.emplace_back("destroy", n);
        DV1& a = v.back();
        a.h_view(n - 1) = i + 0.5;
        a.modify_host();
        a.sync_device();
        double got = 0;
        cudaMemcpy(&got, a.d_view.data() + n - 1, sizeof got, cudaMemcpyDeviceToHost);
        if (got != i + 0.5) check = "wrong value on the device";
        Kokkos::deep_copy(a.d_view, i + 0.25);
        a.modify_device();
        a.sync_host();
        if (a.h_view(0) != i + 0.25 || a.h_view(n - 1) != i + 0.25) check = "wrong value on the host";
      }
      Kokkos::fence();
      double t0 = now();
      v.clear();
      t.push_back((now() - t0) / count);
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    row(count > 1 ? "destroy: a 1 MiB DualView synced both ways (1,000 of them, each)" : "destroy: a 1 GiB DualView synced both ways",
        median(t), check);
  }
}

// Resident host memory per DualView of 64 bytes with 50,000 of them alive, each written on the
// host and synced to the device (/proc/self/statm before and after; the handles' own bytes in
// the vector are not counted). The value is bytes.
void memory() {
  const int count = 50000;
  std::vector<DV1> v;
  v.reserve(count);
  // The handles' own bytes (sizeof differs between the builds) are not counted: their pages first.
  volatile char* raw = reinterpret_cast<volatile char*>(v.data());
  for (std::size_t i = 0; i < count * sizeof(DV1); i += 512) raw[i] = 0;
  Kokkos::fence();
  const long before = resident_bytes();
  for (int i = 0; i < count; ++i) {
    v.emplace_back("small", 8);
    DV1& a = v.back();
    a.h_view(3) = i + 0.25;
    a.modify_host();
    a.sync_device();
  }
  Kokkos::fence();
  const long after = resident_bytes();
  std::string check = "ok";
  for (int i : {0, count / 2, count - 1}) {
    double got = 0;
    cudaMemcpy(&got, v[i].d_view.data() + 3, sizeof got, cudaMemcpyDeviceToHost);
    if (got != i + 0.25) check = "wrong value on the device";
  }
  if (after <= before) check = "no resident memory measured";
  row("memory: resident host bytes per 64-byte DualView, 50,000 alive", double(after - before) / count, check);
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
  if (want("memory")) memory();  // first: memory freed by other rows would be reused
  if (want("flags")) flags();
  if (want("tiny")) tiny();
  if (want("sync")) syncs(), syncs_1mib();
  if (want("mirror")) first_sync_host();
  if (want("resize")) resizes();
  if (want("create")) creates();
  if (want("enqueue")) enqueue();
  if (want("grow")) create_resize();
  if (want("destroy")) destroys();
  return 0;
}
