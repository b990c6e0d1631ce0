/*
 * A minimal Kokkos Tools library, written against Kokkos' documented C entry
 * points (kokkosp_*): it logs every event it gets, one line each, to the
 * file named by DV_TEST_TOOL_LOG. dualview loads it from KOKKOS_TOOLS_LIBS.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct SpaceHandle {
  char name[64];
};
struct KokkosPDeviceInfo {
  size_t deviceID;
};

static FILE* out;

void kokkosp_init_library(const int seq, const uint64_t version, const uint32_t ndevices, struct KokkosPDeviceInfo* info) {
  const char* path = getenv("DV_TEST_TOOL_LOG");
  out = path ? fopen(path, "w") : stderr;
  fprintf(out, "init %d %llu %u %zu\n", seq, (unsigned long long)version, ndevices, info ? info->deviceID : 99u);
}
void kokkosp_finalize_library(void) {
  fprintf(out, "finalize\n");
  if (out != stderr) fclose(out);
  out = NULL;
}
void kokkosp_allocate_data(const struct SpaceHandle h, const char* label, const void* ptr, const uint64_t size) {
  fprintf(out, "allocate %s %s %llu %d\n", h.name, label, (unsigned long long)size, ptr != NULL);
}
void kokkosp_deallocate_data(const struct SpaceHandle h, const char* label, const void* ptr, const uint64_t size) {
  (void)ptr;
  fprintf(out, "deallocate %s %s %llu\n", h.name, label, (unsigned long long)size);
}
void kokkosp_begin_deep_copy(struct SpaceHandle dh, const char* dl, const void* dp, struct SpaceHandle sh, const char* sl,
                             const void* sp, uint64_t size) {
  (void)dp;
  (void)sp;
  fprintf(out, "begin_deep_copy %s:%s <- %s:%s %llu\n", dh.name, dl, sh.name, sl, (unsigned long long)size);
}
void kokkosp_end_deep_copy(void) { fprintf(out, "end_deep_copy\n"); }
void kokkosp_dual_view_sync(const char* label, const void* const ptr, bool on_device) {
  (void)ptr;
  fprintf(out, "dual_view_sync %s %s\n", label, on_device ? "device" : "host");
}
void kokkosp_dual_view_modify(const char* label, const void* const ptr, bool on_device) {
  (void)ptr;
  fprintf(out, "dual_view_modify %s %s\n", label, on_device ? "device" : "host");
}
void kokkosp_push_profile_region(const char* name) { fprintf(out, "push %s\n", name); }
void kokkosp_pop_profile_region(void) { fprintf(out, "pop\n"); }
void kokkosp_begin_fence(const char* name, const uint32_t dev, uint64_t* id) {
  *id = 42;
  fprintf(out, "begin_fence %s %u\n", name, dev);
}
void kokkosp_end_fence(uint64_t id) { fprintf(out, "end_fence %llu\n", (unsigned long long)id); }
