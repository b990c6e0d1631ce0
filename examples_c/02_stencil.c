/* A 2-D stencil: update the host side, mark it, sync to the device, and check
 * the result after a round trip. Row pointers into the host mirror, as legacy
 * codes keep them (LayoutRight, contiguous). */
#include "check.h"

#define NX 32
#define NY 24

int main(void) {
    dv_desc_t desc = example_desc2(DV_LAYOUT_RIGHT, NX, NY);
    dv_dualview_t *u = NULL, *v = NULL;
    CHECK(dv_create("u", &desc, &u));
    CHECK(dv_create("v", &desc, &v));

    /* Initial condition written on the host (write-only access marks it). */
    double *hu = NULL;
    CHECK(dv_host_access(u, DV_ACCESS_WRITE, (void **)&hu));
    for (int i = 0; i < NX; ++i)
        for (int j = 0; j < NY; ++j) hu[i * NY + j] = (double)(i + j);

    /* One Jacobi step on the host into v: v = average of the four neighbours. */
    double *hv = NULL;
    CHECK(dv_host_access(u, DV_ACCESS_READ, (void **)&hu));
    CHECK(dv_host_access(v, DV_ACCESS_READ_WRITE, (void **)&hv));
    for (int i = 1; i < NX - 1; ++i)
        for (int j = 1; j < NY - 1; ++j)
            hv[i * NY + j] = 0.25 * (hu[(i - 1) * NY + j] + hu[(i + 1) * NY + j] + hu[i * NY + j - 1] + hu[i * NY + j + 1]);

    bool stale = false;
    CHECK(dv_need_sync_device(v, &stale));
    EXPECT(stale); /* the host side was marked by the access call */
    CHECK(dv_sync_device(v));

    /* Round trip: drop the host copy, take the device's, and check the stencil
     * of a linear field reproduces it in the interior. */
    double zero = 0.0;
    CHECK(dv_fill_and_modify_host(v, &zero));
    CHECK(dv_clear_sync_state(v));
    CHECK(dv_modify_device(v));
    CHECK(dv_host_access(v, DV_ACCESS_READ, (void **)&hv));
    for (int i = 1; i < NX - 1; ++i)
        for (int j = 1; j < NY - 1; ++j) EXPECT(hv[i * NY + j] == (double)(i + j));

    printf("stencil: %dx%d interior of a linear field reproduced after host update, sync, round trip\n", NX, NY);
    CHECK(dv_destroy(u));
    CHECK(dv_destroy(v));
    return 0;
}
