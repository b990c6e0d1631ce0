/* Subviews share memory and flags with their parent. */
#include "check.h"

int main(void) {
    dv_desc_t desc = example_desc2(DV_LAYOUT_LEFT, 8, 4);
    dv_dualview_t *a = NULL, *col = NULL, *block = NULL;
    CHECK(dv_create("A", &desc, &a));

    dv_range_t c2[2] = {{DV_ALL, 0, 0, 0}, {DV_INDEX, 0, 2, 0}};       /* a(:, 2) */
    dv_range_t blk[2] = {{DV_RANGE, 0, 2, 6}, {DV_RANGE, 0, 1, 3}};    /* a(2:6, 1:3) */
    CHECK(dv_subview(a, c2, 2, &col));
    CHECK(dv_subview(a, blk, 2, &block));

    uint32_t rank = 0;
    CHECK(dv_rank(col, &rank));
    EXPECT(rank == 1);
    bool contiguous = false;
    CHECK(dv_span_is_contiguous(block, &contiguous));
    EXPECT(!contiguous);

    /* Writing the column through the subview marks the whole parent. */
    double seven = 7.0;
    CHECK(dv_fill_and_modify_device(col, &seven));
    bool stale = false;
    CHECK(dv_need_sync_host(a, &stale));
    EXPECT(stale);
    CHECK(dv_need_sync_host(block, &stale));
    EXPECT(stale);

    CHECK(dv_sync_host(a));
    CHECK(dv_need_sync_host(col, &stale));
    EXPECT(!stale);

    double *h = NULL;
    CHECK(dv_host_access(a, DV_ACCESS_READ, (void **)&h));
    for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 8; ++i) EXPECT(h[i + 8 * j] == (j == 2 ? 7.0 : 0.0));

    /* The strided block sees the same memory: element (0,1) of the block is a(2,2). */
    dv_view_info_t bv;
    CHECK(dv_host_view(block, &bv));
    EXPECT(bv.rank == 2 && bv.extent[0] == 4 && bv.extent[1] == 2 && bv.layout == DV_LAYOUT_STRIDE);
    EXPECT(((double *)bv.data)[0 * bv.stride[0] + 1 * bv.stride[1]] == 7.0);

    /* Destroying the parent first is fine: the subviews keep the memory alive. */
    CHECK(dv_destroy(a));
    CHECK(dv_host_access(col, DV_ACCESS_READ, (void **)&h));
    EXPECT(h[5] == 7.0);
    CHECK(dv_destroy(col));
    CHECK(dv_destroy(block));
    printf("subview: column and block share memory and flags with their parent\n");
    return 0;
}
