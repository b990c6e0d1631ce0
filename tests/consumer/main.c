/* A consumer of the installed package: create, fill, sync, check. */
#include <stdio.h>
#include <string.h>

#include <dualview.h>

int main(void) {
    dv_desc_t d;
    memset(&d, 0, sizeof d);
    d.dtype = DV_DTYPE_INT32;
    d.layout = DV_LAYOUT_RIGHT;
    d.space = DV_SPACE_TEST_DEVICE;
    d.extents.rank = 1;
    d.extents.extent[0] = 100;
    dv_dualview_t *a = NULL;
    int32_t v = 42, *h = NULL;
    if (dv_create("consumer", &d, &a) != DV_OK || dv_fill_and_modify_device(a, &v) != DV_OK ||
        dv_host_access(a, DV_ACCESS_READ, (void **)&h) != DV_OK) {
        fprintf(stderr, "consumer: %s\n", dv_last_error());
        return 1;
    }
    for (int i = 0; i < 100; ++i)
        if (h[i] != 42) return 1;
    if (dv_destroy(a) != DV_OK) return 1;
    printf("consumer: dualview %s found and working\n", dv_version());
    return 0;
}
