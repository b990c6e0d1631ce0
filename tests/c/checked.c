/* Checked mode through the C ABI (issue 20): a DualView created with
 * DV_FLAG_CHECKED answers DV_ERROR_UNMARKED_CHANGE at the next flag call when
 * a side was written without being marked (M02, M03, M04), changes nothing,
 * and lets correct code through; DV_ACCESS_WRITE keeps the device's change,
 * DV_ACCESS_OVERWRITE drops it. Run under valgrind by ctest when installed. */
#include <stdio.h>
#include <string.h>

#include "dualview.h"
#include "expect.h"



/* An unmarked-change status whose message holds `text`. */
#define EXPECT_UNMARKED(call, text)                                                                 \
    do {                                                                                            \
        dv_status_t st_ = (call);                                                                   \
        EXPECT(st_ == DV_ERROR_UNMARKED_CHANGE);                                                    \
        if (strstr(dv_last_error(), (text)) == NULL) {                                              \
            fprintf(stderr, "%s:%d: message lacks \"%s\": %s\n", __FILE__, __LINE__, text, dv_last_error()); \
            ++failures;                                                                             \
        }                                                                                           \
    } while (0)

static dv_dualview_t *make(uint32_t flags) {
    dv_desc_t d;
    memset(&d, 0, sizeof d);
    d.dtype = DV_DTYPE_FLOAT64;
    d.elem_size = 8;
    d.elem_align = 8;
    d.layout = DV_LAYOUT_LEFT;
    d.space = DV_SPACE_TEST_DEVICE;
    d.flags = flags;
    d.extents.rank = 2;
    d.extents.extent[0] = 100;
    d.extents.extent[1] = 4;
    dv_dualview_t *a = NULL;
    EXPECT(dv_create("field", &d, &a) == DV_OK);
    return a;
}

int main(void) {
    dv_dualview_t *a = make(DV_FLAG_CHECKED);
    dv_info_t info;
    EXPECT(dv_info(a, &info) == DV_OK && (info.bits & DV_INFO_CHECKED));
    double *h = NULL, *d = NULL;
    EXPECT(dv_host_ptr(a, (void **)&h) == DV_OK && dv_device_ptr(a, (void **)&d) == DV_OK);

    /* M02: a kernel wrote the device, modify_device forgotten. */
    d[5 + 100 * 2] = 1.0;
    /* In C terms: the calls it advises are the C functions (issue 35). */
    EXPECT_UNMARKED(dv_sync_host(a), "device side changed without dv_modify_device(): call dv_modify_device() after writing the device side");
    EXPECT(strstr(dv_last_error(), "(5, 2)") != NULL);
    bool need = true;
    EXPECT(dv_need_sync_host(a, &need) == DV_OK && !need); /* nothing marked */
    EXPECT(dv_modify_device(a) == DV_OK && dv_sync_host(a) == DV_OK && h[5 + 100 * 2] == 1.0);

    /* M03: the halo arrived in the host side, modify_host forgotten. */
    h[0] = -1.0;
    EXPECT_UNMARKED(dv_sync_device(a), "host side changed without dv_modify_host()");
    EXPECT(dv_modify_host(a) == DV_OK && dv_sync_device(a) == DV_OK && d[0] == -1.0);

    /* M04: both sides written; the sync would overwrite the device's write. */
    EXPECT(dv_modify_host(a) == DV_OK);
    h[1] = 2.0;
    d[2] = 3.0;
    EXPECT_UNMARKED(dv_sync_device(a), "both sides");
    EXPECT(dv_clear_sync_state(a) == DV_OK);

    /* Correct code: write then mark, mark then write. */
    h[3] = 4.0;
    EXPECT(dv_modify_host(a) == DV_OK && dv_sync_device(a) == DV_OK);
    EXPECT(dv_modify_device(a) == DV_OK);
    d[4] = 5.0;
    EXPECT(dv_sync_host(a) == DV_OK && h[4] == 5.0);

    /* Access modes: WRITE keeps the device's change, OVERWRITE drops it. */
    dv_dualview_t *b = make(0);
    double *bd = NULL, *bh = NULL;
    EXPECT(dv_device_access(b, DV_ACCESS_READ_WRITE, (void **)&bd) == DV_OK);
    bd[7] = 9.0;
    EXPECT(dv_host_access(b, DV_ACCESS_WRITE, (void **)&bh) == DV_OK && bh[7] == 9.0);
    EXPECT(dv_sync_device(b) == DV_OK && dv_device_access(b, DV_ACCESS_READ_WRITE, (void **)&bd) == DV_OK);
    bd[7] = 10.0;
    EXPECT(dv_host_access(b, DV_ACCESS_OVERWRITE, (void **)&bh) == DV_OK && bh[7] == 9.0);
    EXPECT(dv_host_access(b, 5, (void **)&bh) == DV_ERROR_INVALID_ARGUMENT);

    EXPECT(dv_destroy(a) == DV_OK && dv_destroy(b) == DV_OK);
    if (failures) {
        fprintf(stderr, "checked: %d failure(s)\n", failures);
        return 1;
    }
    printf("checked: every unmarked change caught, correct code untouched\n");
    return 0;
}
