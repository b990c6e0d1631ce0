/* Shared by the C examples: stop with the library's message on any error. */
#ifndef DUALVIEW_EXAMPLES_CHECK_H
#define DUALVIEW_EXAMPLES_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "dualview.h"

#define CHECK(call)                                                              \
    do {                                                                         \
        dv_status_t st_ = (call);                                                \
        if (st_ != DV_OK) {                                                      \
            fprintf(stderr, "%s:%d: %s failed: %s\n  %s\n", __FILE__, __LINE__, \
                    #call, dv_status_str(st_), dv_last_error());                 \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

#define EXPECT(cond)                                                             \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);  \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

/* The device space of the examples: CUDA when a GPU is present, otherwise the
 * test device (host memory with its own allocation). */
static inline uint32_t example_device_space(void) {
    bool cuda = false;
    CHECK(dv_cuda_available(&cuda));
    return cuda ? DV_SPACE_CUDA : DV_SPACE_TEST_DEVICE;
}

/* A zero-initialised description of an n0 x n1 array of doubles. */
static inline dv_desc_t example_desc2(uint32_t layout, uint64_t n0, uint64_t n1) {
    dv_desc_t d = {0};
    d.dtype = DV_DTYPE_FLOAT64;
    d.layout = layout;
    d.space = example_device_space();
    d.extents.rank = 2;
    d.extents.extent[0] = n0;
    d.extents.extent[1] = n1;
    return d;
}

#endif
