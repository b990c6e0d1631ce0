/* The pool of registered host blocks through the C ABI (DECISIONS S11), on the
 * test device, whose mirrors register as CUDA ones do.
 *   pool release   (DV_POOL_BYTES=16M): a destroyed DualView's registered mirror, of a
 *                  size made again, is kept; dv_pool_release gives its bytes back, then
 *                  nothing; NULL is fine.
 *   pool bad-env   (DV_POOL_BYTES=lots): a DualView whose mirror registers is refused
 *                  with DV_ERROR_INVALID_ARGUMENT naming the variable, and nothing is
 *                  left behind; a host-only DualView is made as before.
 *   pool debug-memory  (DV_DEBUG_MEMORY=1): nothing is kept (freed pages must fault). */
#include <stdio.h>
#include <string.h>

#include "dualview.h"
#include "expect.h"



/* A DualView of 2 MiB of doubles in `space`. */
static dv_status_t make(uint32_t space, dv_dualview_t **out) {
    dv_desc_t d;
    memset(&d, 0, sizeof d);
    d.dtype = DV_DTYPE_FLOAT64;
    d.elem_size = 8;
    d.elem_align = 8;
    d.layout = DV_LAYOUT_RIGHT;
    d.space = space;
    d.extents.rank = 1;
    d.extents.extent[0] = (2u << 20) / 8;
    return dv_create("pooled", &d, out);
}

static void release(void) {
    /* Twice: a size is kept once it churns (made again after one of its size went). */
    for (int round = 0; round < 2; ++round) {
        dv_dualview_t *a = NULL;
        EXPECT(make(DV_SPACE_TEST_DEVICE, &a) == DV_OK);
        /* The first copying sync registers the mirror at the latest. */
        EXPECT(dv_modify_host(a) == DV_OK && dv_sync_device(a) == DV_OK);
        dv_info_t info;
        EXPECT(dv_info(a, &info) == DV_OK && (info.bits & DV_INFO_MIRROR_PINNED));
        EXPECT(dv_destroy(a) == DV_OK);
    }
    uint64_t n = 0;
    EXPECT(dv_pool_release(&n) == DV_OK);
    EXPECT(n == (2u << 20));
    EXPECT(dv_pool_release(&n) == DV_OK && n == 0);
    EXPECT(dv_pool_release(NULL) == DV_OK);
}

/* DV_DEBUG_MEMORY=1: freed pages must fault on a stale pointer, so nothing is kept. */
static void debug_memory(void) {
    for (int round = 0; round < 2; ++round) {
        dv_dualview_t *a = NULL;
        EXPECT(make(DV_SPACE_TEST_DEVICE, &a) == DV_OK);
        EXPECT(dv_modify_host(a) == DV_OK && dv_sync_device(a) == DV_OK);
        EXPECT(dv_destroy(a) == DV_OK);
    }
    uint64_t n = 1;
    EXPECT(dv_pool_release(&n) == DV_OK && n == 0);
}

static void bad_env(void) {
    size_t before = 0, after = 0;
    EXPECT(dv_handle_count(&before) == DV_OK);
    dv_dualview_t *a = NULL;
    EXPECT(make(DV_SPACE_TEST_DEVICE, &a) == DV_ERROR_INVALID_ARGUMENT);
    EXPECT(a == NULL);
    if (strstr(dv_last_error(), "DV_POOL_BYTES=\"lots\" is not a size") == NULL) {
        fprintf(stderr, "message lacks the variable: %s\n", dv_last_error());
        ++failures;
    }
    EXPECT(dv_handle_count(&after) == DV_OK && after == before);
    uint64_t bytes = 1;
    EXPECT(dv_live_memory(DV_SPACE_TEST_DEVICE, &bytes, NULL) == DV_OK && bytes == 0);
    EXPECT(make(DV_SPACE_HOST, &a) == DV_OK && dv_destroy(a) == DV_OK);
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "release") == 0) {
        release();
    } else if (argc == 2 && strcmp(argv[1], "bad-env") == 0) {
        bad_env();
    } else if (argc == 2 && strcmp(argv[1], "debug-memory") == 0) {
        debug_memory();
    } else {
        fprintf(stderr, "usage: %s release | bad-env | debug-memory\n", argv[0]);
        return 2;
    }
    if (failures == 0) printf("pool %s: all checks passed\n", argv[1]);
    return failures == 0 ? 0 : 1;
}
