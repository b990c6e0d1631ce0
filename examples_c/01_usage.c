/* The usage block of the Kokkos DualView documentation (seed 000), in C:
 *
 *   view_type a("A", n, m);
 *   Kokkos::deep_copy(a.d_view, 1);
 *   a.template modify<execution_space>();  a.template sync<host_mirror_space>();
 *   Kokkos::deep_copy(a.h_view, 2);
 *   a.template modify<host_mirror_space>(); a.template sync<execution_space>();
 */
#include "check.h"

int main(void) {
    const uint64_t n = 10, m = 3;
    dv_desc_t desc = example_desc2(DV_LAYOUT_LEFT, n, m);
    dv_dualview_t *a = NULL;
    CHECK(dv_create("A", &desc, &a));

    double one = 1.0, two = 2.0;
    CHECK(dv_fill_and_modify_device(a, &one)); /* deep_copy(a.d_view, 1) + modify<exec> */
    CHECK(dv_sync_host(a));         /* sync<host_mirror_space> */

    double *h = NULL;
    CHECK(dv_host_access(a, DV_ACCESS_READ, (void **)&h));
    for (uint64_t k = 0; k < n * m; ++k) EXPECT(h[k] == 1.0);

    CHECK(dv_fill_and_modify_host(a, &two));   /* deep_copy(a.h_view, 2) + modify<host> */
    CHECK(dv_sync_device(a));       /* sync<execution_space> */

    bool stale = true;
    CHECK(dv_need_sync_device(a, &stale));
    EXPECT(!stale);
    /* Read the device back through the host: mark the device newer, sync. */
    CHECK(dv_fill_and_modify_host(a, &one));
    CHECK(dv_clear_sync_state(a));
    CHECK(dv_modify_device(a));
    CHECK(dv_sync_host(a));
    CHECK(dv_host_access(a, DV_ACCESS_READ, (void **)&h));
    for (uint64_t k = 0; k < n * m; ++k) EXPECT(h[k] == 2.0);

    dv_stats_t s;
    CHECK(dv_stats(a, &s));
    EXPECT(s.to_host_count == 2 && s.to_device_count == 1);
    printf("usage: %llu x %llu doubles, host=1 then device=2 verified; %llu syncs to host, %llu to device\n",
           (unsigned long long)n, (unsigned long long)m, (unsigned long long)s.to_host_count,
           (unsigned long long)s.to_device_count);
    CHECK(dv_destroy(a));
    return 0;
}
