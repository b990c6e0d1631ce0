// Routes for a device-to-host copy of 1 GiB into never-written host memory (the cold first
// sync_host of issue 45, DECISIONS G24), interleaved, the median and the least of 7 each:
//   ring     the library's shape: one stream, a ring of pinned buffers, every chunk unpacked
//            by a team of T threads that meets after each chunk;
//   lanes    T threads, each with its own stream, its own pinned buffers and its own slice
//            of the array, copying and unpacking its slice piece by piece with no meeting.
// Every run checks the last byte and one byte per MiB of what landed.
// Build and run on the GPU machine:
//   nvcc -O2 -std=c++17 -arch=native -Xcompiler -pthread benches/pipeline_probe.cu -o pipeline_probe -lcuda && ./pipeline_probe
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
#include <string>
#include <thread>
#include <vector>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
#define CK(x) do { auto e_ = (x); if (e_) { std::printf("FAIL %s -> %d line %d\n", #x, (int)e_, __LINE__); std::exit(1);} } while (0)

static const size_t G = size_t(1) << 30;
static CUcontext ctx;

static char* fresh(bool huge) {
  void* p = mmap(nullptr, G, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) std::exit(2);
  if (huge) madvise(p, G, MADV_HUGEPAGE);
  return (char*)p;
}

// A team of T threads that runs f(first, len) over [0, n) split in page-aligned parts.
struct Team {
  int T;
  std::vector<std::thread> th;
  std::atomic<int> gen{0}, done{0};
  std::atomic<bool> stop{false};
  std::function<void(size_t, size_t)> f;
  size_t n = 0;
  explicit Team(int t) : T(t) {
    for (int i = 1; i < T; ++i) th.emplace_back([this, i] {
      int seen = 0;
      while (true) {
        while (gen.load(std::memory_order_acquire) == seen && !stop) std::this_thread::yield();
        if (stop) return;
        seen = gen.load();
        part(i);
        done.fetch_add(1, std::memory_order_acq_rel);
      }
    });
  }
  void part(int i) {
    size_t c = (n / T + 4095) / 4096 * 4096, a = i * c;
    if (a < n) f(a, std::min(c, n - a));
  }
  void run(size_t len, std::function<void(size_t, size_t)> g) {
    f = std::move(g), n = len, done = 0;
    gen.fetch_add(1, std::memory_order_acq_rel);
    part(0);
    while (done.load(std::memory_order_acquire) != T - 1) std::this_thread::yield();
  }
  ~Team() { stop = true; for (auto& x : th) x.join(); }
};

int main() {
  CK(cudaFree(0));
  CK(cuCtxGetCurrent(&ctx));
  CUdeviceptr dd; CK(cuMemAlloc(&dd, G));
  // The device holds byte (i / 4096) % 251 + 1 at i: never zero, so a byte left unwritten shows.
  {
    std::vector<unsigned char> h(G);
    for (size_t i = 0; i < G; ++i) h[i] = (unsigned char)((i / 4096) % 251 + 1);
    CK(cuMemcpyHtoD(dd, h.data(), G));
  }
  auto check = [&](const char* p, const std::string& name) {
    for (size_t i = 4095; i < G; i += (1 << 20) + 4096)
      if ((unsigned char)p[i] != (unsigned char)((i / 4096) % 251 + 1)) { std::printf("WRONG %s at %zu\n", name.c_str(), i); std::exit(3); }
    if ((unsigned char)p[G - 1] != (unsigned char)(((G - 1) / 4096) % 251 + 1)) { std::printf("WRONG %s at the end\n", name.c_str()); std::exit(3); }
  };

  // ring: one stream, NB buffers of C bytes, each chunk unpacked by the team.
  auto ring = [&](int T, size_t C, int NB, bool huge) {
    static char* st = nullptr; static size_t st_bytes = 0;
    if (st_bytes < C * NB) { if (st) cuMemFreeHost(st); CK(cuMemHostAlloc((void**)&st, C * NB, 0)); st_bytes = C * NB; }
    CUstream s; CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    std::vector<CUevent> ev(NB); for (auto& e : ev) CK(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
    Team team(T);
    char* p = fresh(huge);
    double t0 = now();
    size_t nchunks = G / C;
    for (size_t k = 0; k < nchunks + NB; ++k) {
      if (k >= size_t(NB)) {
        size_t j = k - NB;
        CK(cuEventSynchronize(ev[j % NB]));
        char* from = st + (j % NB) * C; char* to = p + j * C;
        team.run(C, [=](size_t a, size_t l) { std::memcpy(to + a, from + a, l); });
      }
      if (k < nchunks) { CK(cuMemcpyDtoHAsync(st + (k % NB) * C, dd + k * C, C, s)); CK(cuEventRecord(ev[k % NB], s)); }
    }
    double t = now() - t0;
    check(p, "ring");
    munmap(p, G);
    for (auto& e : ev) cuEventDestroy(e);
    cuStreamDestroy(s);
    return t;
  };

  // lanes: T threads, each its own stream, D buffers of S bytes, and a slice G / T.
  struct Lane { CUstream s; std::vector<CUevent> ev; char* buf; };
  std::vector<Lane> lanes;
  auto lanes_run = [&](int T, size_t S, int D, bool huge) {
    while (lanes.size() < size_t(T)) {
      Lane l; CK(cuStreamCreate(&l.s, CU_STREAM_NON_BLOCKING));
      l.ev.resize(4); for (auto& e : l.ev) CK(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
      CK(cuMemHostAlloc((void**)&l.buf, size_t(4) * (8 << 20), 0));
      lanes.push_back(l);
    }
    char* p = fresh(huge);
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> th;
    const size_t slice = G / T;
    for (int i = 0; i < T; ++i) th.emplace_back([&, i] {
      cuCtxSetCurrent(ctx);
      Lane& l = lanes[i];
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) {}
      const size_t base = i * slice, n = (i == T - 1) ? G - base : slice, pieces = (n + S - 1) / S;
      for (size_t k = 0; k < pieces + D; ++k) {
        if (k >= size_t(D)) {
          size_t j = k - D, a = j * S, len = std::min(S, n - a);
          CK(cuEventSynchronize(l.ev[j % D]));
          std::memcpy(p + base + a, l.buf + (j % D) * S, len);
        }
        if (k < pieces) {
          size_t a = k * S, len = std::min(S, n - a);
          CK(cuMemcpyDtoHAsync(l.buf + (k % D) * S, dd + base + a, len, l.s));
          CK(cuEventRecord(l.ev[k % D], l.s));
        }
      }
    });
    while (ready.load() != T) {}
    double t0 = now();
    go.store(true, std::memory_order_release);
    for (auto& x : th) x.join();
    double t = now() - t0;
    check(p, "lanes");
    munmap(p, G);
    return t;
  };

  struct Variant { std::string name; std::function<double()> run; };
  std::vector<Variant> v;
  for (bool huge : {true, false}) {
    const char* pages = huge ? "huge pages advised" : "4 KiB pages";
    v.push_back({std::string("ring 3 x 32 MiB, team 16, ") + pages, [=] { return ring(16, 32 << 20, 3, huge); }});
    if (!huge) continue;
    v.push_back({std::string("ring 4 x 8 MiB, team 16, ") + pages, [=] { return ring(16, 8 << 20, 4, huge); }});
    for (int T : {8, 12, 16})
      for (size_t S : {size_t(2) << 20, size_t(4) << 20, size_t(8) << 20})
        for (int D : {2, 3}) {
          if (T == 12 && D == 3) continue;
          v.push_back({"lanes " + std::to_string(T) + " x " + std::to_string(D) + " x " + std::to_string(S >> 20) + " MiB, " + pages,
                       [=] { return lanes_run(T, S, D, huge); }});
        }
    v.push_back({std::string("lanes 16 x 2 x 4 MiB, 4 KiB pages"), [=] { return lanes_run(16, 4 << 20, 2, false); }});
  }
  std::vector<std::vector<double>> t(v.size());
  for (size_t k = 0; k < v.size(); ++k) v[k].run();  // warm: buffers, streams, threads
  for (int rep = 0; rep < 7; ++rep)
    for (size_t k = 0; k < v.size(); ++k) t[k].push_back(v[k].run());
  for (size_t k = 0; k < v.size(); ++k) {
    std::sort(t[k].begin(), t[k].end());
    std::printf("PIPE %-48s median %6.2f ms, least %6.2f ms\n", v[k].name.c_str(), t[k][t[k].size() / 2] * 1e3, t[k][0] * 1e3);
  }
  std::printf("pipeline_probe: done\n");
  return 0;
}
