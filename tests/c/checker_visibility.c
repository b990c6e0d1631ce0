/* Reliability item 8: dualview's host memory is visible to the tools legacy
 * codes debug with.
 *   use-after-resize: keep the host pointer across a resize and write through
 *     it; valgrind (dualview switches to the system allocator under it) must
 *     report the invalid write instead of letting it land in other data.
 *   leak: never destroy a 16 MB DualView; DV_LEAK_REPORT=1 names it at exit. */
#include <stdio.h>
#include <string.h>

#include "dualview.h"

static dv_dualview_t* make(const char* label, uint64_t n0, uint64_t n1) {
    dv_desc_t d;
    memset(&d, 0, sizeof d);
    d.dtype = DV_DTYPE_FLOAT64;
    d.layout = DV_LAYOUT_LEFT;
    d.space = DV_SPACE_TEST_DEVICE;
    uint64_t e[2] = {n0, n1};
    dv_dualview_t* h = NULL;
    if (dv_extents_make(e, 2, &d.extents) != DV_OK || dv_create(label, &d, &h) != DV_OK) {
        fprintf(stderr, "create failed: %s\n", dv_last_error());
        return NULL;
    }
    return h;
}

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "use-after-resize") == 0) {
        dv_dualview_t* a = make("kept_pointer", 100, 10);
        double* old = NULL;
        if (!a || dv_host_ptr(a, (void**)&old) != DV_OK) return 2;
        uint64_t e[2] = {200, 10};
        dv_extents_t bigger;
        if (dv_extents_make(e, 2, &bigger) != DV_OK || dv_resize(a, &bigger) != DV_OK) return 2;
        old[5] = 1.0; /* the bug under test: the old block is gone */
        return dv_destroy(a) == DV_OK ? 0 : 2;
    }
    if (strcmp(mode, "leak") == 0) {
        dv_dualview_t* a = make("never_destroyed", 1 << 20, 2); /* 16 MiB per side */
        return a ? 0 : 2;
    }
    fprintf(stderr, "usage: %s use-after-resize | leak\n", argv[0]);
    return 2;
}
