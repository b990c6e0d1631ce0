// Routes for copying a grow's kept bytes into never-touched pages (issue 45, the 32M host-newer
// grow, whose floor is the kernel zeroing each fresh page before the copy lands), each beside
// the same copy into pre-faulted pages:
//   memcpy          glibc memcpy, one piece per thread (what the library does)
//   avx/avx-nt      AVX2 temporal / non-temporal stores, 2 MiB at a time
//   populate K      each K bytes faulted in (MADV_POPULATE_WRITE) just before its memcpy, so the
//                   kernel's zeroes may still be in cache when the copy overwrites them
//   uffd-copy K     the range registered with userfaultfd and filled by UFFDIO_COPY, K bytes an
//                   ioctl: the kernel puts the data in fresh pages without zeroing them first
// with huge pages advised and with 4 KiB pages (MADV_NOHUGEPAGE; UFFDIO_COPY fills 4 KiB pages).
// Every copy is checked; a refused madvise or userfaultfd is reported, not hidden.
//   gcc -O2 -mavx2 -pthread benches/fresh_copy_probe.c -o fresh_copy_probe && ./fresh_copy_probe MiB threads
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <immintrin.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static const size_t HUGE = 2 << 20;
static size_t N;   // bytes copied
static int T;      // threads
static char* src;  // pre-faulted source
static int refused_populate, refused_uffd;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// 128 bytes a step, AVX2 loads, temporal (cached) or non-temporal stores.
static void copy_avx(char* d, const char* s, size_t n, int nt) {
  for (size_t i = 0; i < n; i += 128) {
    __m256i r[4];
    for (int k = 0; k < 4; ++k) r[k] = _mm256_loadu_si256((const __m256i*)(s + i + 32 * k));
    for (int k = 0; k < 4; ++k) {
      if (nt) _mm256_stream_si256((__m256i*)(d + i + 32 * k), r[k]);
      else _mm256_store_si256((__m256i*)(d + i + 32 * k), r[k]);
    }
  }
  if (nt) _mm_sfence();
}

typedef struct { const char* name; int kind; size_t step; } route_t;
enum { MEMCPY, AVX, AVX_NT, POPULATE, UFFD };
static const route_t ROUTES[] = {
    {"memcpy", MEMCPY, 0},           {"avx 2M", AVX, 2 << 20},           {"avx-nt 2M", AVX_NT, 2 << 20},
    {"populate 16K", POPULATE, 16 << 10}, {"populate 64K", POPULATE, 64 << 10}, {"populate 256K", POPULATE, 256 << 10},
    {"populate 2M", POPULATE, 2 << 20}, {"uffd-copy 64K", UFFD, 64 << 10},  {"uffd-copy 2M", UFFD, 2 << 20},
};
enum { NROUTES = sizeof ROUTES / sizeof ROUTES[0] };

typedef struct { char* dst; int k, uffd; const route_t* r; } piece_t;

static void* piece(void* p) {
  const piece_t* a = p;
  const size_t per = N / T, off = per * a->k;
  char* d = a->dst + off;
  const char* s = src + off;
  if (a->r->kind == MEMCPY) {
    memcpy(d, s, per);
    return NULL;
  }
  for (size_t o = 0; o < per; o += a->r->step) {
    const size_t l = per - o < a->r->step ? per - o : a->r->step;
    switch (a->r->kind) {
      case AVX: case AVX_NT: copy_avx(d + o, s + o, l, a->r->kind == AVX_NT); break;
      case POPULATE:
        if (madvise(d + o, l, MADV_POPULATE_WRITE) != 0) __atomic_store_n(&refused_populate, errno, __ATOMIC_RELAXED);
        memcpy(d + o, s + o, l);
        break;
      case UFFD: {
        struct uffdio_copy c = {.dst = (unsigned long)(d + o), .src = (unsigned long)(s + o), .len = l, .mode = 0};
        if (ioctl(a->uffd, UFFDIO_COPY, &c) != 0 || c.copy != (long long)l) {
          __atomic_store_n(&refused_uffd, errno ? errno : -1, __ATOMIC_RELAXED);
          memcpy(d + o, s + o, l);  // the check below still holds
        }
        break;
      }
    }
  }
  return NULL;
}

// A mapping of N bytes on a 2 MiB boundary, huge pages advised or refused.
static char* fresh(int huge) {
  char* p = mmap(NULL, N + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) { printf("FAIL mmap\n"); exit(1); }
  p = (char*)(((size_t)p + HUGE - 1) & ~(HUGE - 1));
  if (madvise(p, N, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) != 0) printf("NOTE madvise(%s) refused: %s\n", huge ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE", strerror(errno));
  return p;
}

// The range registered with a new userfaultfd for missing pages; -1 when refused.
static int uffd_register(char* d) {
  int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
  if (fd < 0) fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
  if (fd < 0) return -1;
  struct uffdio_api api = {.api = UFFD_API, .features = 0};
  struct uffdio_register reg = {.range = {.start = (unsigned long)d, .len = N}, .mode = UFFDIO_REGISTER_MODE_MISSING};
  if (ioctl(fd, UFFDIO_API, &api) != 0 || ioctl(fd, UFFDIO_REGISTER, &reg) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static double run(char* d, const route_t* r) {
  pthread_t th[64];
  piece_t a[64];
  const double t0 = now();
  int fd = -1;
  if (r->kind == UFFD && (fd = uffd_register(d)) < 0) refused_uffd = errno ? errno : -1;
  for (int k = 0; k < T; ++k) {
    a[k] = (piece_t){d, k, fd, r};
    pthread_create(&th[k], NULL, piece, &a[k]);
  }
  for (int k = 0; k < T; ++k) pthread_join(th[k], NULL);
  if (fd >= 0) {
    struct uffdio_range range = {.start = (unsigned long)d, .len = N};
    ioctl(fd, UFFDIO_UNREGISTER, &range);
    close(fd);
  }
  const double t = now() - t0;
  if (memcmp(d, src, N) != 0) { printf("FAIL: %s copied wrong bytes\n", r->name); exit(1); }
  return t;
}

static double med3(const double* x) {
  const double lo = x[0] < x[1] ? x[0] : x[1], hi = x[0] < x[1] ? x[1] : x[0];
  return x[2] < lo ? lo : x[2] > hi ? hi : x[2];
}

int main(int argc, char** argv) {
  if (argc != 3) { printf("usage: %s MiB threads\n", argv[0]); return 2; }
  T = atoi(argv[2]);
  if (T < 1 || T > 64) { printf("threads: 1 to 64\n"); return 2; }
  N = ((size_t)atol(argv[1]) << 20) / (T * HUGE) * (T * HUGE);  // whole 2 MiB pieces per thread
  src = fresh(1);
  for (size_t i = 0; i < N; ++i) src[i] = (char)(i * 7 + (i >> 12));
  printf("FRESH %.2f GB, %d threads (medians of 3)\n", N / 1e9, T);
  double pre[3][3], t[2][NROUTES][3];
  for (int r = 0; r < 3; ++r) {
    char* p = fresh(1);
    memset(p, 0, N);
    pre[0][r] = run(p, &ROUTES[0]), pre[1][r] = run(p, &ROUTES[1]), pre[2][r] = run(p, &ROUTES[3]);
    munmap(p, N);
    for (int j = 0; j < NROUTES; ++j)  // each round starts from another route (THP compaction varies)
      for (int huge = 1; huge >= 0; --huge) {
        const int m = (j + r) % NROUTES;
        if (huge && ROUTES[m].kind == UFFD) { t[huge][m][r] = 0; continue; }  // 4 KiB pages only
        char* d = fresh(huge);
        t[huge][m][r] = run(d, &ROUTES[m]);
        munmap(d, N);
      }
  }
  printf("FRESH into pre-faulted pages: memcpy %.1f ms, avx 2M %.1f ms, populate 16K %.1f ms\n", med3(pre[0]) * 1e3,
         med3(pre[1]) * 1e3, med3(pre[2]) * 1e3);
  for (int m = 0; m < NROUTES; ++m) {
    if (ROUTES[m].kind == UFFD) printf("FRESH into never-touched pages, %-14s  huge pages: n/a       4 KiB pages: %6.1f ms\n", ROUTES[m].name, med3(t[0][m]) * 1e3);
    else printf("FRESH into never-touched pages, %-14s  huge pages: %6.1f ms  4 KiB pages: %6.1f ms\n", ROUTES[m].name, med3(t[1][m]) * 1e3, med3(t[0][m]) * 1e3);
  }
  if (refused_populate) printf("NOTE MADV_POPULATE_WRITE refused (%s): those routes copied into pages faulted by the copy\n", strerror(refused_populate));
  if (refused_uffd) printf("NOTE userfaultfd refused (%s): the uffd-copy routes fell back to memcpy\n", refused_uffd > 0 ? strerror(refused_uffd) : "short copy");
  return 0;
}
