// What registering host memory in segments costs and buys on the GPU machine
// (issue 45, item 3: the cold first sync_host and create-then-resize back to
// back), and the driver calls a tiny synchronous copy could use instead of a
// DMA. Prints one line per measurement (medians where repeated):
//   SEG   register/unregister 1 GiB as one range or as segments, 1 and 4 threads
//   SPAN  one copy over several registered segments against one per segment
//   PIPE  fresh 1 GiB: fault in, register and copy device-to-host, one after
//         the other or overlapped by segments
//   HOLD  the longest small driver call while another thread unregisters 2 GiB,
//         whole or by segments
//   TINY  8-byte host-to-device round trips (copy or stream memory operation)
// Build and run on the GPU machine:
//   nvcc -O2 -std=c++17 -arch=native -Xcompiler -pthread benches/registration_probe.cu -o registration_probe -lcuda && ./registration_probe
#include <cuda.h>
#include <cuda_runtime.h>
#include <sys/mman.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static double median(std::vector<double> v) { if (v.empty()) return -1e-3; std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
#define CK(x) do { auto e_ = (x); if (e_) { std::printf("FAIL %s -> %d line %d\n", #x, (int)e_, __LINE__); std::exit(1);} } while (0)
static const size_t G = size_t(1) << 30;
static char* fresh(size_t n) { void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); madvise(p, n, MADV_HUGEPAGE); return (char*)p; }
// Fault in [p, p + n) on T threads, by 4 MiB chunks taken in order.
static void fault(char* p, size_t n, int T) {
  std::atomic<size_t> next{0}; std::vector<std::thread> th;
  for (int i = 0; i < T; ++i) th.emplace_back([&] { for (;;) { size_t k = next.fetch_add(4 << 20); if (k >= n) break; memset(p + k, 0, std::min<size_t>(4 << 20, n - k)); } });
  for (auto& t : th) t.join();
}
static void reg(char* p, size_t n) { CK(cuMemHostRegister(p, n, CU_MEMHOSTREGISTER_PORTABLE)); }
static void unreg(char* p) { CK(cuMemHostUnregister(p)); }
static void check(const char* what, char* p, size_t n, char v) {
  for (size_t k = 0; k < n; k += 4099) if (p[k] != v) { std::printf("FAIL %s: byte %zu is %d, not %d\n", what, k, p[k], v); std::exit(1); }
  if (p[n - 1] != v) { std::printf("FAIL %s: last byte\n", what); std::exit(1); }
}

int main() {
  CK(cudaFree(0));
  CUcontext ctx; CK(cuCtxGetCurrent(&ctx));
  CUstream s; CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CUdeviceptr dd; CK(cuMemAlloc(&dd, 2 * G)); CK(cuMemsetD8(dd, 7, 2 * G)); CK(cuCtxSynchronize());

  // ---- SEG: registration cost by segment size, 1 and 4 threads ----
  for (size_t S : {G, size_t(256) << 20, size_t(64) << 20, size_t(16) << 20})
    for (int T : {1, 4}) {
      if (S == G && T > 1) continue;
      std::vector<double> r, u;
      for (int rep = 0; rep < 3; ++rep) {
        char* p = fresh(G); fault(p, G, 16);
        size_t n = G / S; std::atomic<size_t> next{0};
        auto each = [&](std::function<void(char*)> f) {
          std::vector<std::thread> th; next = 0;
          for (int i = 0; i < T; ++i) th.emplace_back([&] { CK(cuCtxSetCurrent(ctx)); for (;;) { size_t k = next.fetch_add(1); if (k >= n) break; f(p + k * S); } });
          for (auto& t : th) t.join();
        };
        double t0 = now(); each([&](char* q) { reg(q, S); }); r.push_back(now() - t0);
        t0 = now(); each([&](char* q) { unreg(q); }); u.push_back(now() - t0);
        munmap(p, G);
      }
      std::printf("SEG 1 GiB faulted, segments of %4zu MiB, %d thread(s): register %.1f ms, unregister %.1f ms\n", S >> 20, T, median(r) * 1e3, median(u) * 1e3);
    }
  // Registering pages never touched (the driver faults them in).
  for (size_t S : {G, size_t(64) << 20}) {
    char* p = fresh(G); double t0 = now(); for (size_t k = 0; k < G; k += S) reg(p + k, S); double t = now() - t0;
    for (size_t k = 0; k < G; k += S) unreg(p + k); munmap(p, G);
    std::printf("SEG 1 GiB never touched, segments of %4zu MiB: register %.1f ms\n", S >> 20, t * 1e3);
  }

  // ---- SPAN: a copy over several segments ----
  {
    const size_t S = size_t(64) << 20;
    char* p = fresh(G); fault(p, G, 16);
    char* w = fresh(G); fault(w, G, 16); reg(w, G);
    for (size_t k = 0; k < G; k += S) reg(p + k, S);
    std::vector<double> whole, one, per;
    for (int rep = 0; rep < 5; ++rep) {
      double t0 = now(); CK(cuMemcpyDtoHAsync(w, dd, G, s)); CK(cuStreamSynchronize(s)); one.push_back(now() - t0);
      t0 = now(); CUresult e = cuMemcpyDtoHAsync(p, dd, G, s); CK(cuStreamSynchronize(s)); whole.push_back(now() - t0);
      if (e) { std::printf("SPAN one copy over 16 segments: error %d\n", (int)e); break; }
      t0 = now(); for (size_t k = 0; k < G; k += S) CK(cuMemcpyDtoHAsync(p + k, dd + k, S, s)); CK(cuStreamSynchronize(s)); per.push_back(now() - t0);
    }
    if (whole.size() == 5) check("SPAN", p, G, 7);
    std::printf("SPAN 1 GiB D2H: into one registration %.2f ms; one copy over 16 segments %.2f ms; 16 copies, one a segment %.2f ms\n", median(one) * 1e3, median(whole) * 1e3, median(per) * 1e3);
    // Host to device across segments too.
    std::vector<double> h1, hs;
    for (int rep = 0; rep < 5; ++rep) {
      double t0 = now(); CK(cuMemcpyHtoDAsync(dd, w, G, s)); CK(cuStreamSynchronize(s)); h1.push_back(now() - t0);
      t0 = now(); CUresult e = cuMemcpyHtoDAsync(dd, p, G, s); CK(cuStreamSynchronize(s)); hs.push_back(now() - t0);
      if (e) { std::printf("SPAN H2D over 16 segments: error %d\n", (int)e); break; }
    }
    std::printf("SPAN 1 GiB H2D: from one registration %.2f ms; one copy over 16 segments %.2f ms\n", median(h1) * 1e3, median(hs) * 1e3);
    { CUresult e = cuMemcpyDtoH(p + S / 2, dd, S); std::printf("SPAN a synchronous 64 MiB copy over two segments: %s (%d)\n", e ? "refused" : "accepted", (int)e); }
    { CUresult e = cuMemcpyDtoHAsync(p + S / 2, dd, S, s); cuStreamSynchronize(s); std::printf("SPAN an asynchronous 64 MiB copy over two segments: %s (%d)\n", e ? "refused" : "accepted", (int)e); }
    for (size_t k = 0; k < G; k += S) unreg(p + k);
    unreg(w); munmap(p, G); munmap(w, G);
    CK(cuMemsetD8(dd, 7, 2 * G)); CK(cuCtxSynchronize());
  }

  // ---- PIPE: the cold first sync_host of 1 GiB ----
  auto serial = [&](int T) {
    char* p = fresh(G); double t0 = now(); fault(p, G, T); double t1 = now(); reg(p, G); double t2 = now();
    CK(cuMemcpyDtoHAsync(p, dd, G, s)); CK(cuStreamSynchronize(s)); double t3 = now();
    check("PIPE serial", p, G, 7); unreg(p); munmap(p, G);
    std::printf("PIPE serial, fault on %2d threads: fault %.1f + register %.1f + copy %.1f = %.1f ms\n", T, (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3, (t3 - t0) * 1e3);
  };
  // Faulting threads run ahead by segments; this thread registers each faulted
  // segment and queues its copy at once (prefault=false: the registration faults).
  auto pipe = [&](size_t S, int T, bool prefault) {
    char* p = fresh(G); size_t n = G / S;
    std::vector<std::atomic<int>> left(n); for (auto& x : left) x = int(S / (4 << 20));
    std::atomic<size_t> next{0}; std::vector<std::thread> th;
    double t0 = now();
    if (prefault)
      for (int i = 0; i < T; ++i) th.emplace_back([&] { for (;;) { size_t k = next.fetch_add(4 << 20); if (k >= G) break; memset(p + k, 0, 4 << 20); left[k / S].fetch_sub(1, std::memory_order_release); } });
    for (size_t k = 0; k < n; ++k) {
      if (prefault) while (left[k].load(std::memory_order_acquire) > 0) std::this_thread::yield();
      reg(p + k * S, S);
      CK(cuMemcpyDtoHAsync(p + k * S, dd + k * S, S, s));
    }
    CK(cuStreamSynchronize(s)); double t = now() - t0;
    for (auto& x : th) x.join();
    check("PIPE overlapped", p, G, 7);
    for (size_t k = 0; k < n; ++k) unreg(p + k * S);
    munmap(p, G);
    std::printf("PIPE overlapped, segments of %3zu MiB, %s: %.1f ms\n", S >> 20, prefault ? (T == 8 ? "fault on 8 threads" : "fault on 15 threads") : "the registration faults", t * 1e3);
  };
  for (int rep = 0; rep < 2; ++rep) {
    serial(8); serial(16);
    for (size_t S : {size_t(32) << 20, size_t(64) << 20, size_t(128) << 20}) { pipe(S, 8, true); pipe(S, 15, true); }
    pipe(size_t(64) << 20, 0, false);
  }

  // ---- HOLD: small driver calls while 2 GiB is unregistered ----
  for (size_t S : {2 * G, size_t(256) << 20, size_t(64) << 20}) {
    char* p = fresh(2 * G); fault(p, 2 * G, 16);
    for (size_t k = 0; k < 2 * G; k += S) reg(p + k, S);
    std::atomic<bool> done{false}; double worst = 0; int calls = 0;
    std::thread small([&] {
      CK(cuCtxSetCurrent(ctx));
      while (!done) { CUdeviceptr q; double t0 = now(); CK(cuMemAlloc(&q, 1 << 20)); CK(cuMemFree(q)); double t = now() - t0; worst = std::max(worst, t); ++calls; }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    double t0 = now(); for (size_t k = 0; k < 2 * G; k += S) unreg(p + k); double t = now() - t0;
    done = true; small.join(); munmap(p, 2 * G);
    std::printf("HOLD unregister 2 GiB as segments of %4zu MiB: %.1f ms; meanwhile cuMemAlloc+cuMemFree 1 MiB x%d, the longest %.2f ms\n", S >> 20, t * 1e3, calls, worst * 1e3);
  }

  // ---- TINY: 8-byte round trips, interleaved ----
  {
    double* pg = (double*)aligned_alloc(64, 64);
    CUdeviceptr d8 = dd;
    int memops = 0; CUdevice dev; CK(cuCtxGetDevice(&dev));
    cuDeviceGetAttribute(&memops, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, dev);
    std::vector<std::pair<const char*, std::function<void()>>> v = {
      {"floor: cudaMemcpy; cudaDeviceSynchronize", [&] { cudaMemcpy((void*)d8, pg, 8, cudaMemcpyDefault); cudaDeviceSynchronize(); }},
      {"now: cuCtxSync; cuMemcpyHtoD; cuCtxSync; fence", [&] { cuCtxSynchronize(); cuMemcpyHtoD(d8, pg, 8); cuCtxSynchronize(); cuCtxSynchronize(); }},
      {"cuCtxSync; cuMemcpyHtoDAsync(0); cuCtxSync; fence", [&] { cuCtxSynchronize(); cuMemcpyHtoDAsync(d8, pg, 8, 0); cuCtxSynchronize(); cuCtxSynchronize(); }},
      {"cuCtxSync; cuStreamWriteValue64(0); cuCtxSync; fence", [&] { cuCtxSynchronize(); cuStreamWriteValue64(0, d8, *(cuuint64_t*)pg, 0); cuCtxSynchronize(); cuCtxSynchronize(); }},
      {"cuCtxSync; cuStreamWriteValue64(s); cuCtxSync; fence", [&] { cuCtxSynchronize(); cuStreamWriteValue64(s, d8, *(cuuint64_t*)pg, 0); cuCtxSynchronize(); cuCtxSynchronize(); }},
      {"cuCtxSync; cuStreamWriteValue64(s); cuStreamSync(s); fence", [&] { cuCtxSynchronize(); cuStreamWriteValue64(s, d8, *(cuuint64_t*)pg, 0); cuStreamSynchronize(s); cuCtxSynchronize(); }},
    };
    std::vector<std::vector<double>> t(v.size());
    for (int rep = 0; rep < 15; ++rep)
      for (size_t k = 0; k < v.size(); ++k) {
        double t0 = now(); for (int i = 0; i < 300; ++i) { *pg = i + rep; v[k].second(); } t[k].push_back((now() - t0) / 300);
        double back = 0; CK(cuMemcpyDtoH(&back, d8, 8));
        if (back != 299 + rep) { std::printf("FAIL TINY %s: the device holds %g\n", v[k].first, back); std::exit(1); }
      }
    std::printf("TINY 64-bit stream memory operations: %s\n", memops ? "supported" : "not supported");
    for (size_t k = 0; k < v.size(); ++k) std::printf("TINY %-60s %.2f us\n", v[k].first, median(t[k]) * 1e6);
  }
  std::printf("registration_probe: done\n");
  return 0;
}
