/* Error handling: every call returns a status, and dv_last_error() says what
 * went wrong (function, argument, value). Nothing aborts. */
#include <string.h>

#include "check.h"

static void report(const char *what, dv_status_t st) {
    printf("%-34s -> %-34s | %s\n", what, dv_status_str(st), dv_last_error());
}

int main(void) {
    dv_desc_t desc = example_desc2(DV_LAYOUT_LEFT, 4, 4);
    dv_dualview_t *a = NULL;
    CHECK(dv_create("A", &desc, &a));

    dv_status_t st;
    CHECK(dv_modify_host(a));
    st = dv_modify_device(a); /* Kokkos would abort here */
    report("modify_device after modify_host", st);
    EXPECT(st == DV_ERROR_CONCURRENT_MODIFICATION && strstr(dv_last_error(), "\"A\"") != NULL);

    dv_desc_t bad = desc;
    bad.extents.rank = 9;
    dv_dualview_t *b = NULL;
    st = dv_create("B", &bad, &b);
    report("create with rank 9", st);
    EXPECT(st == DV_ERROR_RANK && b == NULL);

    uint64_t e = 0;
    st = dv_extent(a, 5, &e);
    report("extent of axis 5", st);
    EXPECT(st == DV_ERROR_OUT_OF_RANGE);

    CHECK(dv_destroy(a));
    st = dv_destroy(a); /* the common Fortran double free */
    report("second destroy", st);
    EXPECT(st == DV_ERROR_INVALID_HANDLE);

    printf("errors: every failure came back as a status with a message\n");
    return 0;
}
