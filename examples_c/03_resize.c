/* Resize keeps the data on both sides (Kokkos keeps only the newer side) and
 * does not mark anything modified. */
#include "check.h"

int main(void) {
    dv_desc_t desc = example_desc2(DV_LAYOUT_LEFT, 4, 3);
    dv_dualview_t *a = NULL;
    CHECK(dv_create("grow", &desc, &a));

    double *h = NULL;
    CHECK(dv_host_access(a, DV_ACCESS_WRITE, (void **)&h));
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 4; ++i) h[i + 4 * j] = 10.0 * i + j;
    CHECK(dv_sync_device(a));

    uint64_t ext[2] = {6, 5};
    dv_extents_t e;
    CHECK(dv_extents_make(ext, 2, &e));
    CHECK(dv_resize(a, &e));

    bool sh = true, sd = true;
    CHECK(dv_need_sync_host(a, &sh));
    CHECK(dv_need_sync_device(a, &sd));
    EXPECT(!sh && !sd);

    uint64_t n0 = 0, n1 = 0;
    CHECK(dv_extent(a, 0, &n0));
    CHECK(dv_extent(a, 1, &n1));
    EXPECT(n0 == 6 && n1 == 5);

    CHECK(dv_host_access(a, DV_ACCESS_READ, (void **)&h));
    for (int j = 0; j < 5; ++j)
        for (int i = 0; i < 6; ++i) EXPECT(h[i + 6 * j] == ((i < 4 && j < 3) ? 10.0 * i + j : 0.0));

    /* The device kept its copy too: take it back and compare. */
    CHECK(dv_modify_device(a));
    double minus = -1.0;
    CHECK(dv_clear_sync_state(a));
    CHECK(dv_fill_and_modify_host(a, &minus));
    CHECK(dv_clear_sync_state(a));
    CHECK(dv_modify_device(a));
    CHECK(dv_host_access(a, DV_ACCESS_READ, (void **)&h));
    for (int j = 0; j < 5; ++j)
        for (int i = 0; i < 6; ++i) EXPECT(h[i + 6 * j] == ((i < 4 && j < 3) ? 10.0 * i + j : 0.0));

    printf("resize: 4x3 -> 6x5 kept all 12 values on host and device, flags unchanged\n");
    CHECK(dv_destroy(a));
    return 0;
}
