// The driver calls a tiny blocking sync of pageable memory could make (DECISIONS G5, G8),
// to the device (HtoD) and to the host (DtoH): each route waits for the device before the
// copy (G5), copies, and is complete when it returns (the bytes have landed), then the row's
// fence; interleaved batches at 8 B to 64 KiB, the median of 15 batches each; then, to the
// device up to 1 KiB, stream writes of the values (`MEMOP` lines, DECISIONS G8). `old` is the
// path before G8's wait: its copy may land after the return (kept as the reference it was
// measured against).
// Build and run on the GPU machine:
//   nvcc -O2 -std=c++17 -arch=native benches/tiny_routes.cu -o tiny_routes -lcuda && ./tiny_routes
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <functional>
#include <vector>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
#define CK(x) do { auto e_ = (x); if (e_) { std::printf("FAIL %s -> %d line %d\n", #x, (int)e_, __LINE__); std::exit(1);} } while (0)

int main() {
  CK(cudaFree(0));
  const size_t max = 64 << 10;
  CUdeviceptr d; CK(cuMemAlloc(&d, max));
  char* pg = (char*)aligned_alloc(64, max);     // pageable source (a small mirror)
  char* pin; CK(cuMemHostAlloc((void**)&pin, max, 0));  // pinned staging buffer
  char* back = (char*)aligned_alloc(64, max);   // pageable target (a small mirror)
  for (size_t n : {size_t(8), size_t(4) << 10, size_t(16) << 10, size_t(32) << 10, max}) {
    std::vector<std::pair<const char*, std::function<void()>>> v = {
      {"floor: cudaMemcpy; cudaDeviceSynchronize", [&] { cudaMemcpy((void*)d, pg, n, cudaMemcpyDefault); cudaDeviceSynchronize(); }},
      {"old: cuCtxSync; cuMemcpyHtoD; fence", [&] { cuCtxSynchronize(); cuMemcpyHtoD(d, pg, n); cuCtxSynchronize(); }},
      {"G8 sync+wait: cuCtxSync; cuMemcpyHtoD; cuStreamSync(0); fence", [&] { cuCtxSynchronize(); cuMemcpyHtoD(d, pg, n); cuStreamSynchronize(0); cuCtxSynchronize(); }},
      {"cuCtxSync; cuMemcpyHtoDAsync(0); cuStreamSync(0); fence", [&] { cuCtxSynchronize(); cuMemcpyHtoDAsync(d, pg, n, 0); cuStreamSynchronize(0); cuCtxSynchronize(); }},
      {"cuCtxSync; memcpy to pinned; cuMemcpyHtoD(pinned); fence", [&] { cuCtxSynchronize(); std::memcpy(pin, pg, n); cuMemcpyHtoD(d, pin, n); cuCtxSynchronize(); }},
      {"cuCtxSync; memcpy to pinned; cuMemcpyHtoDAsync(pinned, 0); cuStreamSync(0); fence", [&] { cuCtxSynchronize(); std::memcpy(pin, pg, n); cuMemcpyHtoDAsync(d, pin, n, 0); cuStreamSynchronize(0); cuCtxSynchronize(); }},
      {"registered source: cuCtxSync; cuMemcpyHtoD(pinned); fence", [&] { cuCtxSynchronize(); cuMemcpyHtoD(d, pin, n); cuCtxSynchronize(); }},
      {"DtoH floor: cudaMemcpy; cudaDeviceSynchronize", [&] { cudaMemcpy(back, (void*)d, n, cudaMemcpyDefault); cudaDeviceSynchronize(); }},
      {"DtoH: cuCtxSync; cuMemcpyDtoH; fence", [&] { cuCtxSynchronize(); cuMemcpyDtoH(back, d, n); cuCtxSynchronize(); }},
      {"DtoH: cuCtxSync; cuMemcpyDtoH(pinned); memcpy out; fence", [&] { cuCtxSynchronize(); cuMemcpyDtoH(pin, d, n); std::memcpy(back, pin, n); cuCtxSynchronize(); }},
      {"DtoH: cuCtxSync; cuMemcpyDtoHAsync(pinned, 0); cuStreamSync(0); memcpy out; fence", [&] { cuCtxSynchronize(); cuMemcpyDtoHAsync(pin, d, n, 0); cuStreamSynchronize(0); std::memcpy(back, pin, n); cuCtxSynchronize(); }},
      {"DtoH registered target: cuCtxSync; cuMemcpyDtoH(pinned); fence", [&] { cuCtxSynchronize(); cuMemcpyDtoH(pin, d, n); cuCtxSynchronize(); }},
    };
    std::vector<std::vector<double>> t(v.size());
    for (int rep = 0; rep < 15; ++rep)
      for (size_t k = 0; k < v.size(); ++k) {
        const bool dtoh = std::strncmp(v[k].first, "DtoH", 4) == 0;
        if (dtoh) {  // the device holds rep + 7 everywhere; the host targets do not
          CK(cuMemsetD8(d, (unsigned char)(rep + 7), n));
          CK(cuCtxSynchronize());
          back[n - 1] = pin[n - 1] = 0;
        }
        double t0 = now();
        for (int i = 0; i < 300; ++i) {
          if (!dtoh) pg[0] = char(i + rep), pin[0] = pg[0];
          v[k].second();
        }
        t[k].push_back((now() - t0) / 300);
        char got = 0;
        if (dtoh) got = (std::strstr(v[k].first, "registered") ? pin : back)[n - 1];
        else CK(cuMemcpyDtoH(&got, d, 1));
        if (got != char(dtoh ? rep + 7 : 299 + rep)) { std::printf("FAIL %s at %zu B: read %d\n", v[k].first, n, got); std::exit(1); }
      }
    for (size_t k = 0; k < v.size(); ++k) std::printf("TINY %6zu B  %-82s %.2f us\n", n, v[k].first, median(t[k]) * 1e6);
  }
  // Up to 256 B without a DMA: stream memory operations carry the values (cuStreamWriteValue64,
  // cuStreamBatchMemOp of n / 8 writes); each waits for the device before and after as above.
  int ok64 = 0;
  cuDeviceGetAttribute(&ok64, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, 0);
  std::printf("TINY 64-bit stream memory operations: %s\n", ok64 ? "supported" : "NOT supported");
  for (size_t n : {size_t(8), size_t(64), size_t(256), size_t(1024)}) {
    CUstream s0 = 0;
    auto batch = [&] {
      CUstreamBatchMemOpParams p[256] = {};
      for (size_t k = 0; k < n / 8; ++k) {
        p[k].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
        p[k].writeValue.address = d + 8 * k;
        std::memcpy(&p[k].writeValue.value64, pg + 8 * k, 8);
      }
      return cuStreamBatchMemOp(s0, unsigned(n / 8), p, 0);
    };
    std::vector<std::pair<const char*, std::function<void()>>> v = {
      {"floor: cudaMemcpy; cudaDeviceSynchronize", [&] { cudaMemcpy((void*)d, pg, n, cudaMemcpyDefault); cudaDeviceSynchronize(); }},
      {"G8: cuCtxSync; cuMemcpyHtoDAsync(0); cuStreamSync(0); fence", [&] { cuCtxSynchronize(); cuMemcpyHtoDAsync(d, pg, n, 0); cuStreamSynchronize(0); cuCtxSynchronize(); }},
      {"memop: cuCtxSync; cuStreamBatchMemOp(0, n/8 writes); cuStreamSync(0); fence", [&] { cuCtxSynchronize(); batch(); cuStreamSynchronize(0); cuCtxSynchronize(); }},
      {"memop: cuCtxSync; cuStreamBatchMemOp(0, n/8 writes); fence", [&] { cuCtxSynchronize(); batch(); cuCtxSynchronize(); }},
      {"memop, no fences: cuStreamBatchMemOp(0, n/8 writes); cuStreamSync(0)", [&] { batch(); cuStreamSynchronize(0); }},
    };
    if (n == 8)
      v.push_back({"memop: cuCtxSync; cuStreamWriteValue64(0); cuStreamSync(0); fence", [&] { cuCtxSynchronize(); uint64_t x; std::memcpy(&x, pg, 8); cuStreamWriteValue64(s0, d, x, 0); cuStreamSynchronize(0); cuCtxSynchronize(); }});
    CK(batch());
    CK(cuCtxSynchronize());
    std::vector<std::vector<double>> t(v.size());
    for (int rep = 0; rep < 15; ++rep)
      for (size_t k = 0; k < v.size(); ++k) {
        double t0 = now();
        for (int i = 0; i < 300; ++i) { pg[0] = pg[n - 1] = char(i + rep); v[k].second(); }
        t[k].push_back((now() - t0) / 300);
        char got[2] = {0, 0};
        CK(cuMemcpyDtoH(&got[0], d, 1));
        CK(cuMemcpyDtoH(&got[1], d + n - 1, 1));
        if (got[0] != char(299 + rep) || got[1] != char(299 + rep)) { std::printf("FAIL %s at %zu B: read %d %d\n", v[k].first, n, got[0], got[1]); std::exit(1); }
      }
    for (size_t k = 0; k < v.size(); ++k) std::printf("MEMOP %5zu B  %-82s %.2f us\n", n, v[k].first, median(t[k]) * 1e6);
  }
  std::printf("tiny_routes: done\n");
  return 0;
}
