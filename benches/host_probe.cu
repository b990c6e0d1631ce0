// What the H200 machine's driver and host can do, under the rows of issue 32
// (docs/BENCHMARKS.md, "Host memory and the driver's floor"): the driver calls
// of the tiny round trip (dualview's and Kokkos' sequences, interleaved), device
// alloc/free, zeroing a hot 16 MiB on 1-8 threads, faulting in and copying
// 1 GiB on 1-16 threads with and without huge pages, and a 1 GiB device-to-host
// copy into never-written memory (the driver's pageable path, and staged through
// pinned buffers with the unpack on 4-16 threads). Build and run on the GPU machine:
//   nvcc -O2 -std=c++17 -arch=native -Xcompiler -pthread benches/host_probe.cu -o host_probe -lcuda && ./host_probe
#include <cuda.h>
#include <cuda_runtime.h>
#include <sys/mman.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <thread>
#include <vector>
#include <functional>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
#define CK(x) do { auto e_ = (x); if (e_) { std::printf("FAIL %s -> %d line %d\n", #x, (int)e_, __LINE__); std::exit(1);} } while (0)
static char* fresh(size_t n, bool huge) { void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); if (huge) madvise(p, n, MADV_HUGEPAGE); return (char*)p; }
template <class F> static void par(int T, size_t n, F f) {
  std::vector<std::thread> th; size_t c = (n / T + 4095) / 4096 * 4096;
  for (int i = 0; i < T; ++i) { size_t a = i * c; if (a >= n) break; size_t l = std::min(c, n - a); th.emplace_back([=] { f(a, l); }); }
  for (auto& x : th) x.join();
}
int main() {
  CK(cudaFree(0));
  CUcontext ctx; CK(cuCtxGetCurrent(&ctx));
  // ---- tiny variants, interleaved ----
  double* d; CK(cudaMalloc(&d, 64));
  double* pg = (double*)aligned_alloc(64, 64);
  double* pin; CK(cudaMallocHost(&pin, 64));
  std::vector<std::pair<const char*, std::function<void()>>> v = {
    {"cuCtxSync; cuMemcpyHtoD; cuCtxSync (dualview's calls)", [&] { cuCtxSynchronize(); cuMemcpyHtoD((CUdeviceptr)d, pg, 8); cuCtxSynchronize(); }},
    {"cudaDevSync; cudaMemcpy; cudaDevSync x2 (Kokkos' calls)", [&] { cudaDeviceSynchronize(); cudaMemcpy(d, pg, 8, cudaMemcpyDefault); cudaDeviceSynchronize(); cudaDeviceSynchronize(); }},
    {"cuCtxSync; cuMemcpy (unified); cuCtxSync", [&] { cuCtxSynchronize(); cuMemcpy((CUdeviceptr)d, (CUdeviceptr)pg, 8); cuCtxSynchronize(); }},
    {"cuCtxSync; cuMemcpyHtoDAsync(0); cuCtxSync", [&] { cuCtxSynchronize(); cuMemcpyHtoDAsync((CUdeviceptr)d, pg, 8, 0); cuCtxSynchronize(); }},
    {"cuCtxSync; pinned stage; cuMemcpyHtoDAsync(0); cuCtxSync", [&] { cuCtxSynchronize(); *pin = *pg; cuMemcpyHtoDAsync((CUdeviceptr)d, pin, 8, 0); cuCtxSynchronize(); }},
    {"cuCtxSync; cuMemcpyHtoD; cuCtxSync; cuCtxSync", [&] { cuCtxSynchronize(); cuMemcpyHtoD((CUdeviceptr)d, pg, 8); cuCtxSynchronize(); cuCtxSynchronize(); }},
    {"cuMemcpyHtoD alone", [&] { cuMemcpyHtoD((CUdeviceptr)d, pg, 8); }},
    {"cudaMemcpy alone", [&] { cudaMemcpy(d, pg, 8, cudaMemcpyDefault); }},
    {"cuCtxSynchronize alone", [&] { cuCtxSynchronize(); }},
    {"cuCtxGetCurrent alone", [&] { CUcontext c; cuCtxGetCurrent(&c); }},
    {"cuMemsetD8 8B + cuCtxSync", [&] { cuMemsetD8((CUdeviceptr)d, 1, 8); cuCtxSynchronize(); }},
  };
  std::vector<std::vector<double>> t(v.size());
  for (int rep = 0; rep < 15; ++rep)
    for (size_t k = 0; k < v.size(); ++k) {
      double t0 = now(); for (int i = 0; i < 300; ++i) { *pg = i; v[k].second(); } t[k].push_back((now() - t0) / 300);
    }
  for (size_t k = 0; k < v.size(); ++k) std::printf("TINY %-60s %.2f us\n", v[k].first, median(t[k]) * 1e6);
  // ---- device alloc/free 16 MiB, 64 B ----
  for (size_t n : {size_t(16) << 20, size_t(64)}) {
    std::vector<double> a, f, m;
    for (int r = 0; r < 30; ++r) { CUdeviceptr p; double t0 = now(); cuMemAlloc(&p, n); double t1 = now(); cuMemsetD8(p, 0, n); cuCtxSynchronize(); double t2 = now(); cuMemFree(p); double t3 = now(); a.push_back(t1 - t0); m.push_back(t2 - t1); f.push_back(t3 - t2); }
    std::printf("DEV %zu B: cuMemAlloc %.1f us, memset+sync %.1f us, cuMemFree %.1f us\n", n, median(a) * 1e6, median(m) * 1e6, median(f) * 1e6);
    std::vector<double> aa;
    cudaStream_t s; cudaStreamCreate(&s);
    for (int r = 0; r < 30; ++r) { void* p; double t0 = now(); cudaMallocAsync(&p, n, s); cudaMemsetAsync(p, 0, n, s); cudaFreeAsync(p, s); cudaStreamSynchronize(s); aa.push_back(now() - t0); }
    std::printf("DEV %zu B: cudaMallocAsync+memset+freeAsync+sync %.1f us\n", n, median(aa) * 1e6);
  }
  // ---- host: memset 16 MiB hot, by threads ----
  {
    size_t n = 16 << 20; char* p = fresh(n, false); memset(p, 1, n);
    for (int T : {1, 2, 4, 8}) { std::vector<double> x; for (int r = 0; r < 20; ++r) { double t0 = now(); par(T, n, [=](size_t a, size_t l) { memset(p + a, 0, l); }); x.push_back(now() - t0); } std::printf("HOST memset 16 MiB hot, %d threads: %.1f us\n", T, median(x) * 1e6); }
  }
  // ---- host: fault in 1 GiB, copy 1 GiB, by threads, THP or not ----
  size_t G = size_t(1) << 30;
  char* src = fresh(G, true); memset(src, 3, G);
  for (bool huge : {true, false})
    for (int T : {1, 4, 8, 16}) {
      char* p = fresh(G, huge); double t0 = now(); par(T, G, [=](size_t a, size_t l) { memset(p + a, 0, l); }); double tf = now() - t0;
      t0 = now(); par(T, G, [=](size_t a, size_t l) { memcpy(p + a, src + a, l); }); double tc = now() - t0; munmap(p, G);
      char* q = fresh(G, huge); t0 = now(); par(T, G, [=](size_t a, size_t l) { memcpy(q + a, src + a, l); }); double tcf = now() - t0; munmap(q, G);
      std::printf("HOST 1 GiB, %s, %2d threads: fault+zero %.1f ms, copy into faulted %.1f ms, copy into fresh %.1f ms\n", huge ? "MADV_HUGEPAGE" : "4K pages", T, tf * 1e3, tc * 1e3, tcf * 1e3);
    }
  // ---- D2H 1 GiB: pageable fresh vs pinned staging + parallel unpack ----
  {
    CUdeviceptr dd; CK(cuMemAlloc(&dd, G)); cuMemsetD8(dd, 2, G); cuCtxSynchronize();
    for (int r = 0; r < 2; ++r) { char* p = fresh(G, true); double t0 = now(); cuMemcpyDtoH(p, dd, G); double t = now() - t0; std::printf("D2H 1 GiB into fresh pageable: %.1f ms (p[last]=%d)\n", t * 1e3, p[G - 1]); munmap(p, G); }
    const size_t C = 32 << 20; const int NB = 4; char* st; CK(cuMemHostAlloc((void**)&st, C * NB, 0));
    CUstream s; cuStreamCreate(&s, CU_STREAM_NON_BLOCKING); CUevent ev[NB]; for (auto& e : ev) cuEventCreate(&e, CU_EVENT_DISABLE_TIMING);
    for (int T : {4, 8, 16}) {
      char* p = fresh(G, true); double t0 = now(); size_t nchunks = G / C;
      for (size_t k = 0; k < nchunks + NB; ++k) {
        if (k >= NB) { size_t j = k - NB; cuEventSynchronize(ev[j % NB]); char* from = st + (j % NB) * C; char* to = p + j * C; par(T, C, [=](size_t a, size_t l) { memcpy(to + a, from + a, l); }); }
        if (k < nchunks) { cuMemcpyDtoHAsync(st + (k % NB) * C, dd + k * C, C, s); cuEventRecord(ev[k % NB], s); }
      }
      double t = now() - t0; std::printf("D2H 1 GiB staged 32 MiB x4 + unpack on %d threads into fresh: %.1f ms (p[last]=%d)\n", T, t * 1e3, p[G - 1]); munmap(p, G);
    }
  }
  return 0;
}
