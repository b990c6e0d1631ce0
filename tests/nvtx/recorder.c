/* An NVTX injection library of dualview's tests (tests/nvtx.rs): attaches to
 * every NVTX client that loads it through NVTX_INJECTION64_PATH, and appends
 * one line per range to the file named by DV_NVTX_LOG: "push <thread> <name>"
 * and "pop <thread>" (ranges nest per thread). Written from the NVTX v3 injection interface: export table 1 gives
 * GetModuleFunctionTable; module 1 (core) slot 9 is nvtxRangePushA, slot 11
 * nvtxRangePop. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*fn_t)(void);
typedef struct {
  size_t struct_size;
  int (*get_module_function_table)(int module, fn_t ***out_table, unsigned int *out_size);
} callbacks_t;
typedef const void *(*get_export_table_t)(uint32_t id);

static FILE *log_file;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int push_a(const char *name) {
  pthread_mutex_lock(&lock);
  fprintf(log_file, "push %lu %s\n", (unsigned long)pthread_self(), name);
  fflush(log_file);
  pthread_mutex_unlock(&lock);
  return 0;
}

static int pop(void) {
  pthread_mutex_lock(&lock);
  fprintf(log_file, "pop %lu\n", (unsigned long)pthread_self());
  fflush(log_file);
  pthread_mutex_unlock(&lock);
  return 0;
}

int InitializeInjectionNvtx2(get_export_table_t get_export_table) {
  const char *path = getenv("DV_NVTX_LOG");
  const callbacks_t *cb = (const callbacks_t *)get_export_table(1);
  fn_t **core = NULL;
  unsigned int size = 0;
  if (!path || !cb || cb->struct_size < sizeof(callbacks_t)) return 0;
  if (!cb->get_module_function_table(1, &core, &size) || size < 12) return 0;
  log_file = fopen(path, "a");
  if (!log_file) return 0;
  *core[9] = (fn_t)push_a;
  *core[11] = (fn_t)pop;
  return 1;
}
