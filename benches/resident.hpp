// The process' resident host memory in bytes (/proc/self/statm; 0 where it cannot be read),
// for the benchmarks that count memory per object (kokkos_rows.cu, small_alloc_probe.cu).
#pragma once
#include <unistd.h>

#include <cstdio>

inline long resident_bytes() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return resident * sysconf(_SC_PAGESIZE);
}
