// Driver and kernel contention around the host-mirror registration (issue 18),
// measured once on the H200 (docs/BENCHMARKS.md, "Registration and contention"):
// does cuMemHostRegister, or faulting pages in, in one thread stall the driver
// calls and host copies of a grow in another? Build and run:
//   nvcc -O2 -std=c++17 -arch=native -Xcompiler -pthread benches/driver_contention.cu -o contention && ./contention
#include <cuda_runtime.h>
#include <sys/mman.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>
#include <atomic>
static double now() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static char* fresh(size_t n) { void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); madvise(p, n, MADV_HUGEPAGE); return (char*)p; }
static void populate(char* p, size_t n, int threads) {
  std::vector<std::thread> t; size_t c = n / threads;
  for (int i = 0; i < threads; ++i) t.emplace_back([=] { madvise(p + i * c, c, 23 /*MADV_POPULATE_WRITE*/); });
  for (auto& x : t) x.join();
}
// One "grow" as the device side does it: alloc 1.5x, memset, D2D copy, free old.
static double device_grow(size_t old) {
  double t0 = now();
  void *a, *b; cudaMalloc(&a, old); cudaMalloc(&b, old + old / 2);
  cudaMemsetAsync(b, 0, old + old / 2); cudaMemcpyAsync(b, a, old, cudaMemcpyDeviceToDevice);
  cudaDeviceSynchronize(); cudaFree(a); cudaFree(b);
  return now() - t0;
}
static double host_grow(size_t old) {
  char* src = fresh(old); memset(src, 1, old);
  double t0 = now();
  char* dst = fresh(old + old / 2);
  std::vector<std::thread> th; size_t c = old / 8;
  for (int i = 0; i < 8; ++i) th.emplace_back([=] { memcpy(dst + i * c, src + i * c, c); });
  for (auto& x : th) x.join();
  double t = now() - t0; munmap(src, old); munmap(dst, old + old / 2); return t;
}
int main() {
  cudaFree(0);
  const size_t G = 1ull << 30, old = 96ull << 20;
  for (int i = 0; i < 2; ++i) device_grow(old), host_grow(old);
  std::printf("baseline: device grow %.2f ms, host grow %.2f ms\n", device_grow(old), host_grow(old));
  char* blk = fresh(G); double t0 = now(); populate(blk, G, 8); std::printf("populate 1 GiB, 8 threads: %.2f ms\n", now() - t0);
  t0 = now(); cudaHostRegister(blk, G, cudaHostRegisterPortable); double treg = now() - t0; cudaHostUnregister(blk);
  std::printf("register 1 GiB (faulted): %.2f ms alone\n", treg);
  t0 = now(); char* un = fresh(G); cudaHostRegister(un, G, cudaHostRegisterPortable); std::printf("register 1 GiB (never written): %.2f ms\n", now() - t0); cudaHostUnregister(un); munmap(un, G);
  t0 = now(); cudaHostRegister(blk, G, 0); std::printf("register 1 GiB (faulted, no portable): %.2f ms\n", now() - t0); t0 = now(); cudaHostUnregister(blk); std::printf("unregister 1 GiB: %.2f ms\n", now() - t0);
  // Concurrent: register in a thread, grows in the main thread.
  std::atomic<bool> done{false};
  std::thread reg([&] { double a = now(); cudaHostRegister(blk, G, cudaHostRegisterPortable); std::printf("  (register in thread: %.2f ms)\n", now() - a); done = true; });
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  double d = device_grow(old); std::printf("device grow during a registration: %.2f ms\n", d);
  reg.join(); cudaHostUnregister(blk);
  std::thread reg2([&] { cudaHostRegister(blk, G, cudaHostRegisterPortable); });
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  std::printf("host grow during a registration: %.2f ms\n", host_grow(old));
  reg2.join(); cudaHostUnregister(blk);
  char* blk2 = fresh(G);
  std::thread pop([&] { populate(blk2, G, 8); });
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::printf("host grow during a populate: %.2f ms\n", host_grow(old));
  pop.join();
  std::thread pop2([&] { char* b3 = fresh(G); populate(b3, G, 8); });
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::printf("device grow during a populate: %.2f ms\n", device_grow(old));
  pop2.join();
  // pageable vs pinned D2H 324 MB into faulted memory
  size_t m = 324ull << 20; void* dv; cudaMalloc(&dv, m); char* h = fresh(m); memset(h, 0, m);
  t0 = now(); cudaMemcpy(h, dv, m, cudaMemcpyDeviceToHost); t0 = now() - t0;
  double t1 = now(); cudaMemcpy(h, dv, m, cudaMemcpyDeviceToHost); t1 = now() - t1;
  std::printf("pageable D2H 324 MB into written pages: %.2f ms, again %.2f ms\n", t0, t1);
  char* h2 = fresh(m); t0 = now(); cudaMemcpy(h2, dv, m, cudaMemcpyDeviceToHost); std::printf("pageable D2H 324 MB into fresh pages: %.2f ms\n", now() - t0);
  t0 = now(); cudaHostRegister(h, m, cudaHostRegisterPortable); double r = now() - t0; t0 = now(); cudaMemcpy(h, dv, m, cudaMemcpyDeviceToHost); std::printf("register 324 MB %.2f ms + pinned D2H %.2f ms\n", r, now() - t0);
  // memcpy 110 MB single thread
  size_t s = 110ull << 20; char* a = fresh(s); char* b = fresh(s); memset(a, 1, s); memset(b, 2, s);
  t0 = now(); memcpy(b, a, s); std::printf("memcpy 110 MB, one thread, written pages: %.2f ms\n", now() - t0);
  return 0;
}
