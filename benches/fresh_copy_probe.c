// Routes for copying a grow's kept bytes into never-touched pages (issue 45, the 32M host-newer
// grow, whose floor is the kernel zeroing each fresh page before the copy lands): glibc memcpy
// (what the library does), AVX2 temporal or non-temporal stores by 2 MiB, and each 2 MiB or
// 64 KiB faulted in by MADV_POPULATE_WRITE just before its copy; with huge pages advised and
// with 4 KiB pages; beside the same copies into pre-faulted pages. Every copy is checked.
//   gcc -O2 -mavx2 -pthread benches/fresh_copy_probe.c -o fresh_copy_probe && ./fresh_copy_probe MiB threads
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static const size_t HUGE = 2 << 20;
static size_t N;   // bytes copied
static int T;      // threads
static char* src;  // pre-faulted source

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

enum { MEMCPY, TEMPORAL, NONTEMPORAL, POPULATE_2M_MEMCPY, POPULATE_64K_TEMPORAL, ROUTES };
static const char* NAMES[ROUTES] = {"memcpy", "temporal 2M", "nt 2M", "populate 2M + memcpy", "populate 64K + temporal"};

typedef struct { char* dst; int k, route; } piece_t;

static void* piece(void* p) {
  const piece_t* a = p;
  const size_t per = N / T, off = per * a->k;
  char* d = a->dst + off;
  const char* s = src + off;
  const size_t step = a->route == POPULATE_64K_TEMPORAL ? (64 << 10) : HUGE;
  if (a->route == MEMCPY) {
    memcpy(d, s, per);
    return NULL;
  }
  for (size_t o = 0; o < per; o += step) {
    const size_t l = per - o < step ? per - o : step;
    if (a->route == POPULATE_2M_MEMCPY || a->route == POPULATE_64K_TEMPORAL) madvise(d + o, l, MADV_POPULATE_WRITE);
    if (a->route == POPULATE_2M_MEMCPY) memcpy(d + o, s + o, l);
    else copy_avx(d + o, s + o, l, a->route == NONTEMPORAL);
  }
  return NULL;
}

// A mapping of N bytes on a 2 MiB boundary, huge pages advised or refused.
static char* fresh(int huge) {
  char* p = mmap(NULL, N + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) { printf("FAIL mmap\n"); exit(1); }
  p = (char*)(((size_t)p + HUGE - 1) & ~(HUGE - 1));
  madvise(p, N, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  return p;
}

static double med3(const double* x) {
  const double lo = x[0] < x[1] ? x[0] : x[1], hi = x[0] < x[1] ? x[1] : x[0];
  return x[2] < lo ? lo : x[2] > hi ? hi : x[2];
}

static double run(char* d, int route) {
  pthread_t th[64];
  piece_t a[64];
  const double t0 = now();
  for (int k = 0; k < T; ++k) {
    a[k] = (piece_t){d, k, route};
    pthread_create(&th[k], NULL, piece, &a[k]);
  }
  for (int k = 0; k < T; ++k) pthread_join(th[k], NULL);
  const double t = now() - t0;
  if (memcmp(d, src, N) != 0) { printf("FAIL: %s copied wrong bytes\n", NAMES[route]); exit(1); }
  return t;
}

int main(int argc, char** argv) {
  if (argc != 3) { printf("usage: %s MiB threads\n", argv[0]); return 2; }
  T = atoi(argv[2]);
  if (T < 1 || T > 64) { printf("threads: 1 to 64\n"); return 2; }
  N = ((size_t)atol(argv[1]) << 20) / (T * HUGE) * (T * HUGE);  // whole 2 MiB pieces per thread
  src = fresh(1);
  for (size_t i = 0; i < N; ++i) src[i] = (char)(i * 7 + (i >> 12));
  printf("FRESH %.2f GB, %d threads (medians of 3)\n", N / 1e9, T);
  double t[2][ROUTES][3], pre[2][3];
  for (int r = 0; r < 3; ++r) {
    char* p = fresh(1);
    memset(p, 0, N);
    pre[0][r] = run(p, MEMCPY), pre[1][r] = run(p, TEMPORAL);
    munmap(p, N);
    for (int j = 0; j < ROUTES; ++j)  // each round starts from another route (THP compaction varies)
      for (int huge = 1; huge >= 0; --huge) {
        const int m = (j + r) % ROUTES;
        char* d = fresh(huge);
        t[huge][m][r] = run(d, m);
        munmap(d, N);
      }
  }
  printf("FRESH pre-faulted pages, memcpy: %.1f ms; temporal 2M: %.1f ms\n", med3(pre[0]) * 1e3, med3(pre[1]) * 1e3);
  for (int huge = 1; huge >= 0; --huge)
    for (int m = 0; m < ROUTES; ++m)
      printf("FRESH never-touched %s, %-24s %.1f ms\n", huge ? "huge pages" : "4 KiB pages", NAMES[m], med3(t[huge][m]) * 1e3);
  return 0;
}
