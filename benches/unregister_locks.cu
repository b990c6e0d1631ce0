// Does one thread's driver call, while a kernel runs, hold up another thread's
// asynchronous copy or registration? Measured once on an H100 (docs/GPU.md,
// "Results on the H100"): an unregistration (or cudaFreeHost) on thread B waits
// for the kernel and blocks the main thread's calls meanwhile; a synchronize on B
// does not. Build and run:
//   nvcc -O2 -arch=native benches/unregister_locks.cu -o unregister_locks && ./unregister_locks
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
using Clock = std::chrono::steady_clock;
#define OK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
__global__ void spin(long long ns) { long long t0 = clock64(); while (clock64() - t0 < ns) {} }
static double us(Clock::time_point t0) { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); }
int main() {
  cudaStream_t s; OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  size_t n = 64 << 10;
  char *dev; OK(cudaMalloc(&dev, 16 << 20));
  spin<<<1, 1, 0, s>>>(1000); OK(cudaStreamSynchronize(s));
  const char *names[] = {"main: cudaHostRegister", "main: cudaMemcpyAsync D2H into registered", "B: cudaHostUnregister | main: cudaMemcpyAsync registered",
                         "B: cudaHostUnregister | main: cudaHostRegister", "B: cudaHostUnregister alone (B's time)", "B: cudaFreeHost | main: cudaMemcpyAsync registered",
                         "B: cudaHostRegister | main: cudaMemcpyAsync registered", "main: cudaHostUnregister", "B: cudaDeviceSynchronize | main: cudaMemcpyAsync registered", "B: cudaDeviceSynchronize | main: cudaHostRegister"};
  for (int c = 0; c < 10; ++c) {
    int blocked = 0; double worst = 0, bworst = 0;
    for (int rep = 0; rep < 5; ++rep) {
      char *a = (char *)aligned_alloc(4096, n), *b = (char *)aligned_alloc(4096, n), *reg = (char *)aligned_alloc(4096, n);
      for (size_t i = 0; i < n; i += 4096) a[i] = b[i] = reg[i] = 1;
      OK(cudaHostRegister(reg, n, cudaHostRegisterDefault));
      OK(cudaHostRegister(b, n, cudaHostRegisterDefault));
      char *ph = nullptr; OK(cudaMallocHost(&ph, n));
      cudaEvent_t end; OK(cudaEventCreateWithFlags(&end, cudaEventDisableTiming));
      spin<<<1, 1, 0, s>>>(40000000LL);  // about 20 ms
      OK(cudaEventRecord(end, s));
      std::this_thread::sleep_for(std::chrono::microseconds(500));
      double bt = 0;
      std::thread B;
      if ((c >= 2 && c <= 6) || c >= 8) {
        B = std::thread([&] { auto t = Clock::now();
          if (c >= 8) OK(cudaDeviceSynchronize()); else if (c == 5) { OK(cudaFreeHost(ph)); ph = nullptr; } else if (c == 6) OK(cudaHostRegister(a, n, cudaHostRegisterDefault)); else OK(cudaHostUnregister(b));
          bt = us(t); });
        std::this_thread::sleep_for(std::chrono::microseconds(300));
      }
      auto t0 = Clock::now();
      if (c == 0 || c == 3 || c == 9) OK(cudaHostRegister(a, n, cudaHostRegisterDefault));
      if (c == 1 || c == 2 || c == 5 || c == 6 || c == 8) OK(cudaMemcpyAsync(reg, dev, n, cudaMemcpyDeviceToHost, s));
      if (c == 7) OK(cudaHostUnregister(b));
      double t = us(t0);
      cudaError_t q = cudaEventQuery(end);
      if (q == cudaSuccess) ++blocked; else (void)cudaGetLastError();
      if (B.joinable()) B.join();
      OK(cudaStreamSynchronize(s));
      if (t > worst) worst = t; if (bt > bworst) bworst = bt;
      if (c == 0 || c == 3 || c == 6 || c == 9) OK(cudaHostUnregister(a));
      if (c != 2 && c != 3 && c != 4 && c != 7) OK(cudaHostUnregister(b));
      OK(cudaHostUnregister(reg));
      if (ph) OK(cudaFreeHost(ph));
      OK(cudaEventDestroy(end));
      free(a); free(b); free(reg);
    }
    printf("PROBE %-60s blocked %d/5, main's call worst %.0f us, B's call worst %.0f us\n", names[c], blocked, worst, bworst);
  }
}
