/* Bad input through the C ABI: each case asserts the exact status, a
 * non-empty message, and that nothing changed; at the end no handle is live.
 * Run under valgrind by ctest (no invalid access, no leak). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dualview.h"
#include "expect.h"


#define EXPECT_STATUS(call, code)                                                            \
    do {                                                                                     \
        dv_status_t st_ = (call);                                                            \
        if (st_ != (code)) {                                                                 \
            fprintf(stderr, "%s:%d: %s returned %s, expected %s (%s)\n", __FILE__, __LINE__, \
                    #call, dv_status_str(st_), dv_status_str(code), dv_last_error());        \
            ++failures;                                                                      \
        } else if ((code) != DV_OK && dv_last_error()[0] == '\0') {                          \
            fprintf(stderr, "%s:%d: %s: empty message\n", __FILE__, __LINE__, #call);        \
            ++failures;                                                                      \
        }                                                                                    \
    } while (0)

#define OK(call) EXPECT_STATUS(call, DV_OK)


/* Everything observable about a DualView of doubles. */
typedef struct {
    dv_extents_t ext;
    bool need_host, need_device;
    double host_sum;
    void *host_ptr;
} snapshot_t;

static snapshot_t snap(dv_dualview_t *dv) {
    snapshot_t s;
    memset(&s, 0, sizeof s);
    OK(dv_extents(dv, &s.ext));
    OK(dv_need_sync_host(dv, &s.need_host));
    OK(dv_need_sync_device(dv, &s.need_device));
    dv_view_info_t v;
    OK(dv_host_view(dv, &v));
    s.host_ptr = v.data;
    for (uint64_t k = 0; k < v.span; ++k) s.host_sum += ((double *)v.data)[k];
    return s;
}

static void same(dv_dualview_t *dv, const snapshot_t *before, int line) {
    snapshot_t now = snap(dv);
    if (memcmp(&now.ext, &before->ext, sizeof now.ext) != 0 || now.need_host != before->need_host ||
        now.need_device != before->need_device || now.host_sum != before->host_sum || now.host_ptr != before->host_ptr) {
        fprintf(stderr, "%s:%d: the DualView changed\n", __FILE__, line);
        ++failures;
    }
}
#define UNCHANGED(dv, s) same(dv, &(s), __LINE__)

static dv_desc_t desc2(uint64_t n0, uint64_t n1) {
    dv_desc_t d;
    memset(&d, 0, sizeof d);
    d.dtype = DV_DTYPE_FLOAT64;
    d.layout = DV_LAYOUT_LEFT;
    d.space = DV_SPACE_TEST_DEVICE;
    d.extents.rank = 2;
    d.extents.extent[0] = n0;
    d.extents.extent[1] = n1;
    return d;
}

static void null_pointers(dv_dualview_t *a) {
    snapshot_t s = snap(a);
    dv_desc_t d = desc2(2, 2);
    dv_dualview_t *out = NULL;
    double x = 1.0, buf[4];
    void *p = NULL;
    bool b = false;
    uint32_t u32 = 0;
    uint64_t u64 = 0, strides[9];
    size_t sz = 0;
    int i32 = 0;
    char label[8];
    dv_extents_t e = {2, 0, {2, 2, 1, 1, 1, 1, 1, 1}};
    dv_range_t r[2] = {{DV_ALL, 0, 0, 0}, {DV_ALL, 0, 0, 0}};
    dv_view_info_t vi;
    dv_stats_t st;
    dv_desc_t dd;
    const dv_status_t NUL = DV_ERROR_NULL_ARGUMENT;

    EXPECT_STATUS(dv_create(NULL, &d, &out), NUL);
    EXPECT_STATUS(dv_create("x", NULL, &out), NUL);
    EXPECT_STATUS(dv_create("x", &d, NULL), NUL);
    EXPECT_STATUS(dv_wrap(NULL, &d, buf, buf, &out), NUL);
    EXPECT_STATUS(dv_wrap("x", NULL, buf, buf, &out), NUL);
    EXPECT_STATUS(dv_wrap("x", &d, NULL, buf, &out), NUL);
    EXPECT_STATUS(dv_wrap("x", &d, buf, buf, NULL), NUL);
    EXPECT_STATUS(dv_clone(NULL, &out), NUL);
    EXPECT_STATUS(dv_clone(a, NULL), NUL);
    EXPECT_STATUS(dv_clone_const(NULL, &out), NUL);
    EXPECT_STATUS(dv_clone_const(a, NULL), NUL);
    EXPECT_STATUS(dv_subview(NULL, r, 2, &out), NUL);
    EXPECT_STATUS(dv_subview(a, NULL, 2, &out), NUL);
    EXPECT_STATUS(dv_subview(a, r, 2, NULL), NUL);
    EXPECT_STATUS(dv_modify_host(NULL), NUL);
    EXPECT_STATUS(dv_modify_device(NULL), NUL);
    EXPECT_STATUS(dv_sync_host(NULL), NUL);
    EXPECT_STATUS(dv_sync_device(NULL), NUL);
    EXPECT_STATUS(dv_sync_host_async(NULL, NULL), NUL);
    EXPECT_STATUS(dv_sync_device_async(NULL, NULL), NUL);
    EXPECT_STATUS(dv_clear_sync_state(NULL), NUL);
    EXPECT_STATUS(dv_need_sync_host(NULL, &b), NUL);
    EXPECT_STATUS(dv_need_sync_host(a, NULL), NUL);
    EXPECT_STATUS(dv_need_sync_device(NULL, &b), NUL);
    EXPECT_STATUS(dv_need_sync_device(a, NULL), NUL);
    EXPECT_STATUS(dv_host_ptr(NULL, &p), NUL);
    EXPECT_STATUS(dv_host_ptr(a, NULL), NUL);
    EXPECT_STATUS(dv_device_ptr(NULL, &p), NUL);
    EXPECT_STATUS(dv_device_ptr(a, NULL), NUL);
    EXPECT_STATUS(dv_host_access(NULL, DV_ACCESS_READ, &p), NUL);
    EXPECT_STATUS(dv_host_access(a, DV_ACCESS_READ, NULL), NUL);
    EXPECT_STATUS(dv_device_access(NULL, DV_ACCESS_READ, &p), NUL);
    EXPECT_STATUS(dv_device_access(a, DV_ACCESS_READ, NULL), NUL);
    EXPECT_STATUS(dv_host_view(NULL, &vi), NUL);
    EXPECT_STATUS(dv_host_view(a, NULL), NUL);
    EXPECT_STATUS(dv_device_view(NULL, &vi), NUL);
    EXPECT_STATUS(dv_device_view(a, NULL), NUL);
    EXPECT_STATUS(dv_fill_and_modify_host(NULL, &x), NUL);
    EXPECT_STATUS(dv_fill_and_modify_host(a, NULL), NUL);
    EXPECT_STATUS(dv_fill_and_modify_device(NULL, &x), NUL);
    EXPECT_STATUS(dv_fill_and_modify_device(a, NULL), NUL);
    EXPECT_STATUS(dv_rank(NULL, &u32), NUL);
    EXPECT_STATUS(dv_rank(a, NULL), NUL);
    EXPECT_STATUS(dv_extent(NULL, 0, &u64), NUL);
    EXPECT_STATUS(dv_extent(a, 0, NULL), NUL);
    EXPECT_STATUS(dv_extents(NULL, &e), NUL);
    EXPECT_STATUS(dv_extents(a, NULL), NUL);
    EXPECT_STATUS(dv_stride(NULL, 0, &u64), NUL);
    EXPECT_STATUS(dv_stride(a, 0, NULL), NUL);
    EXPECT_STATUS(dv_strides(NULL, strides, 9), NUL);
    EXPECT_STATUS(dv_strides(a, NULL, 9), NUL);
    EXPECT_STATUS(dv_span(NULL, &u64), NUL);
    EXPECT_STATUS(dv_span(a, NULL), NUL);
    EXPECT_STATUS(dv_span_is_contiguous(NULL, &b), NUL);
    EXPECT_STATUS(dv_span_is_contiguous(a, NULL), NUL);
    EXPECT_STATUS(dv_is_allocated(NULL, &b), NUL);
    EXPECT_STATUS(dv_is_allocated(a, NULL), NUL);
    EXPECT_STATUS(dv_label(NULL, label, sizeof label, &sz), NUL);
    EXPECT_STATUS(dv_label(a, NULL, sizeof label, &sz), NUL);
    EXPECT_STATUS(dv_desc_of(NULL, &dd), NUL);
    EXPECT_STATUS(dv_desc_of(a, NULL), NUL);
    EXPECT_STATUS(dv_realloc(NULL, &e), NUL);
    EXPECT_STATUS(dv_realloc(a, NULL), NUL);
    EXPECT_STATUS(dv_realloc_without_initializing(NULL, &e), NUL);
    EXPECT_STATUS(dv_realloc_without_initializing(a, NULL), NUL);
    EXPECT_STATUS(dv_resize(NULL, &e), NUL);
    EXPECT_STATUS(dv_resize(a, NULL), NUL);
    EXPECT_STATUS(dv_resized(NULL, &e, &out), NUL);
    EXPECT_STATUS(dv_resized(a, NULL, &out), NUL);
    EXPECT_STATUS(dv_resized(a, &e, NULL), NUL);
    EXPECT_STATUS(dv_view_copy(NULL, DV_SIDE_HOST, a, DV_SIDE_HOST), NUL);
    EXPECT_STATUS(dv_view_copy(a, DV_SIDE_HOST, NULL, DV_SIDE_HOST), NUL);
    EXPECT_STATUS(dv_view_fill(NULL, DV_SIDE_HOST, &x), NUL);
    EXPECT_STATUS(dv_view_fill(a, DV_SIDE_HOST, NULL), NUL);
    EXPECT_STATUS(dv_deep_copy(NULL, a), NUL);
    EXPECT_STATUS(dv_deep_copy(a, NULL), NUL);
    EXPECT_STATUS(dv_stats(NULL, &st), NUL);
    EXPECT_STATUS(dv_stats(a, NULL), NUL);
    EXPECT_STATUS(dv_stats_reset(NULL), NUL);
    EXPECT_STATUS(dv_stats_add(NULL, a), NUL);
    EXPECT_STATUS(dv_stats_add(a, NULL), NUL);
    OK(dv_stats_add(a, a));
    EXPECT_STATUS(dv_stats_global(NULL), NUL);
    EXPECT_STATUS(dv_handle_count(NULL), NUL);
    EXPECT_STATUS(dv_cuda_available(NULL), NUL);
    EXPECT_STATUS(dv_device_count(NULL), NUL);
    EXPECT_STATUS(dv_space_available(DV_SPACE_HOST, 0, NULL), NUL);
    EXPECT_STATUS(dv_space_device_count(DV_SPACE_TEST_DEVICE, NULL), NUL);
    EXPECT_STATUS(dv_extents_make(NULL, 2, &e), NUL);
    EXPECT_STATUS(dv_extents_make(&u64, 1, NULL), NUL);
    EXPECT_STATUS(dv_extents_size(NULL, &u64), NUL);
    EXPECT_STATUS(dv_extents_size(&e, NULL), NUL);
    EXPECT_STATUS(dv_extents_strides(NULL, DV_LAYOUT_LEFT, strides, 8), NUL);
    EXPECT_STATUS(dv_extents_strides(&e, DV_LAYOUT_LEFT, NULL, 8), NUL);
    EXPECT_STATUS(dv_extents_equal(NULL, &e, &b), NUL);
    EXPECT_STATUS(dv_extents_equal(&e, NULL, &b), NUL);
    EXPECT_STATUS(dv_extents_equal(&e, &e, NULL), NUL);
    EXPECT_STATUS(dv_extents_squeeze(NULL, 0, &e), NUL);
    EXPECT_STATUS(dv_extents_squeeze(&e, 0, NULL), NUL);
    EXPECT_STATUS(dv_extents_is_scalar(NULL, &b), NUL);
    EXPECT_STATUS(dv_extents_is_scalar(&e, NULL), NUL);
    EXPECT_STATUS(dv_extents_is_vector(NULL, &b), NUL);
    EXPECT_STATUS(dv_extents_is_matrix(NULL, &b), NUL);
    EXPECT_STATUS(dv_extents_is_tensor(NULL, &b), NUL);
    EXPECT(strstr(dv_last_error(), "dv_extents_is_tensor") != NULL);
    EXPECT(out == NULL);
    (void)i32;
    UNCHANGED(a, s);
}

static void unknown_enums(dv_dualview_t *a) {
    snapshot_t s = snap(a);
    dv_dualview_t *out = NULL;
    void *p = NULL;
    const dv_status_t INV = DV_ERROR_INVALID_ARGUMENT;
    dv_desc_t d = desc2(2, 2);
    d.dtype = 99;
    EXPECT_STATUS(dv_create("x", &d, &out), INV);
    EXPECT(strstr(dv_last_error(), "desc->dtype") != NULL && strstr(dv_last_error(), "99") != NULL);
    d = desc2(2, 2);
    d.layout = 7;
    EXPECT_STATUS(dv_create("x", &d, &out), INV);
    d = desc2(2, 2);
    d.space = 9;
    EXPECT_STATUS(dv_create("x", &d, &out), INV);
    d = desc2(2, 2);
    d.flags = 0x100;
    EXPECT_STATUS(dv_create("x", &d, &out), INV);
    d = desc2(2, 2);
    d.dtype = DV_DTYPE_BYTES; /* element size 0 */
    EXPECT_STATUS(dv_create("x", &d, &out), INV);
    d = desc2(2, 2);
    d.layout = DV_LAYOUT_STRIDE; /* strides 0 overlap */
    EXPECT_STATUS(dv_create("x", &d, &out), INV);
    double x = 1.0;
    EXPECT_STATUS(dv_view_fill(a, 2, &x), INV);
    EXPECT_STATUS(dv_view_copy(a, DV_SIDE_HOST, a, 7), INV);
    EXPECT_STATUS(dv_host_access(a, 0, &p), INV);
    EXPECT_STATUS(dv_device_access(a, 5, &p), INV);
    bool usable = true;
    size_t count = 7;
    EXPECT_STATUS(dv_space_available(9, 0, &usable), INV);
    EXPECT_STATUS(dv_space_available(UINT32_MAX, 0, &usable), INV);
    EXPECT_STATUS(dv_space_device_count(9, &count), INV);
    EXPECT(usable && count == 7); /* untouched on error */
    dv_range_t r[2] = {{5, 0, 0, 0}, {DV_ALL, 0, 0, 0}};
    EXPECT_STATUS(dv_subview(a, r, 2, &out), INV);
    dv_extents_t e = {2, 0, {2, 2, 1, 1, 1, 1, 1, 1}}, o;
    uint64_t strides[8];
    EXPECT_STATUS(dv_extents_squeeze(&e, 3, &o), INV);
    EXPECT_STATUS(dv_extents_strides(&e, 5, strides, 8), INV);
    EXPECT_STATUS(dv_extents_strides(&e, DV_LAYOUT_STRIDE, strides, 8), INV);
    e.reserved = 1;
    EXPECT_STATUS(dv_resize(a, &e), INV);
    EXPECT(out == NULL);
    UNCHANGED(a, s);
}

static void shapes(dv_dualview_t *a) {
    snapshot_t s = snap(a);
    dv_dualview_t *out = NULL;
    uint64_t u64 = 0, strides[9];
    dv_desc_t d = desc2(2, 2);
    d.extents.rank = 9;
    EXPECT_STATUS(dv_create("x", &d, &out), DV_ERROR_RANK);
    dv_extents_t e;
    uint64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    EXPECT_STATUS(dv_extents_make(nine, 9, &e), DV_ERROR_RANK);
    dv_extents_t r9 = {9, 0, {1, 1, 1, 1, 1, 1, 1, 1}};
    EXPECT_STATUS(dv_resize(a, &r9), DV_ERROR_RANK);

    uint64_t huge[2] = {UINT64_MAX / 2, 3};
    EXPECT_STATUS(dv_extents_make(huge, 2, &e), DV_ERROR_OVERFLOW);
    d = desc2((uint64_t)1 << 31, (uint64_t)1 << 31); /* 2^62 doubles: bytes overflow */
    EXPECT_STATUS(dv_create("x", &d, &out), DV_ERROR_OVERFLOW);
    dv_extents_t big = {2, 0, {(uint64_t)1 << 31, (uint64_t)1 << 31, 1, 1, 1, 1, 1, 1}};
    EXPECT_STATUS(dv_resize(a, &big), DV_ERROR_OVERFLOW);

    EXPECT_STATUS(dv_extent(a, 2, &u64), DV_ERROR_OUT_OF_RANGE);
    EXPECT_STATUS(dv_stride(a, 8, &u64), DV_ERROR_OUT_OF_RANGE);
    EXPECT_STATUS(dv_strides(a, strides, 2), DV_ERROR_OUT_OF_RANGE);
    dv_range_t past[2] = {{DV_RANGE, 0, 0, 5}, {DV_ALL, 0, 0, 0}};
    EXPECT_STATUS(dv_subview(a, past, 2, &out), DV_ERROR_OUT_OF_RANGE);
    dv_range_t idx[2] = {{DV_ALL, 0, 0, 0}, {DV_INDEX, 0, 4, 0}};
    EXPECT_STATUS(dv_subview(a, idx, 2, &out), DV_ERROR_OUT_OF_RANGE);
    EXPECT_STATUS(dv_subview(a, idx, 1, &out), DV_ERROR_RANK_MISMATCH);

    dv_extents_t r1 = {1, 0, {12, 1, 1, 1, 1, 1, 1, 1}};
    EXPECT_STATUS(dv_resize(a, &r1), DV_ERROR_RANK_MISMATCH);
    EXPECT_STATUS(dv_realloc(a, &r1), DV_ERROR_RANK_MISMATCH);
    EXPECT_STATUS(dv_resized(a, &r1, &out), DV_ERROR_RANK_MISMATCH);
    EXPECT(strstr(dv_last_error(), "rank") != NULL);
    EXPECT(out == NULL);
    UNCHANGED(a, s);
}

static void flags_and_const(dv_dualview_t *a) {
    OK(dv_clear_sync_state(a));
    OK(dv_modify_host(a));
    snapshot_t s = snap(a);
    EXPECT_STATUS(dv_modify_device(a), DV_ERROR_CONCURRENT_MODIFICATION);
    EXPECT(strstr(dv_last_error(), "\"A\"") != NULL && strstr(dv_last_error(), "device") != NULL);
    /* The advice in C terms (issue 35). */
    EXPECT(strstr(dv_last_error(), "Call dv_sync_device() before writing the device side") != NULL);
    EXPECT(strstr(dv_last_error(), "or dv_clear_sync_state() to drop that change") != NULL);
    double x = 5.0;
    EXPECT_STATUS(dv_fill_and_modify_device(a, &x), DV_ERROR_CONCURRENT_MODIFICATION);
    UNCHANGED(a, s);

    dv_dualview_t *c = NULL;
    OK(dv_clone_const(a, &c));
    EXPECT_STATUS(dv_sync_device(c), DV_ERROR_CONST_SYNC);
    EXPECT_STATUS(dv_fill_and_modify_host(c, &x), DV_ERROR_INVALID_ARGUMENT);
    void *p = NULL;
    EXPECT_STATUS(dv_host_access(c, DV_ACCESS_READ_WRITE, &p), DV_ERROR_INVALID_ARGUMENT);
    UNCHANGED(a, s);
    OK(dv_destroy(c));
    OK(dv_clear_sync_state(a));

    /* An unmanaged DualView syncs, but cannot be resized. */
    double host[4] = {1, 2, 3, 4}, dev[4] = {0, 0, 0, 0};
    dv_desc_t d = desc2(2, 2);
    dv_dualview_t *w = NULL;
    OK(dv_wrap("legacy", &d, host, dev, &w));
    OK(dv_modify_host(w));
    OK(dv_sync_device(w));
    EXPECT(dev[3] == 4.0);
    dv_extents_t e = {2, 0, {4, 4, 1, 1, 1, 1, 1, 1}};
    EXPECT_STATUS(dv_resize(w, &e), DV_ERROR_UNMANAGED);
    EXPECT_STATUS(dv_realloc(w, &e), DV_ERROR_UNMANAGED);
    OK(dv_destroy(w));
    EXPECT(host[0] == 1.0); /* never freed, never touched */
}

static void handles(dv_dualview_t *a) {
    snapshot_t s = snap(a);
    dv_desc_t d = desc2(2, 2);
    dv_dualview_t *b = NULL, *out = NULL;
    OK(dv_create("B", &d, &b));
    OK(dv_destroy(b));
    bool flag = false;
    EXPECT_STATUS(dv_modify_host(b), DV_ERROR_INVALID_HANDLE);
    EXPECT_STATUS(dv_need_sync_host(b, &flag), DV_ERROR_INVALID_HANDLE);
    EXPECT_STATUS(dv_clone(b, &out), DV_ERROR_INVALID_HANDLE);
    EXPECT_STATUS(dv_destroy(b), DV_ERROR_INVALID_HANDLE); /* double destroy */
    EXPECT(strstr(dv_last_error(), "dv_destroy") != NULL);
    /* a slot reused by a new DualView does not revive the old handle */
    dv_dualview_t *c = NULL;
    OK(dv_create("C", &d, &c));
    EXPECT_STATUS(dv_destroy(b), DV_ERROR_INVALID_HANDLE);
    OK(dv_destroy(c));
    /* foreign pointers */
    int local = 0;
    EXPECT_STATUS(dv_modify_host((dv_dualview_t *)&local), DV_ERROR_INVALID_HANDLE);
    EXPECT_STATUS(dv_destroy((dv_dualview_t *)&local), DV_ERROR_INVALID_HANDLE);
    EXPECT_STATUS(dv_destroy((dv_dualview_t *)(uintptr_t)0x1234), DV_ERROR_INVALID_HANDLE);
    OK(dv_destroy(NULL));
    EXPECT(out == NULL);
    UNCHANGED(a, s);
}

static void no_device(void) {
    bool cuda = true;
    OK(dv_cuda_available(&cuda));
    int n = -1;
    OK(dv_device_count(&n));
    /* The generic questions agree with the CUDA ones and answer for every space. */
    bool usable = false;
    size_t count = 0;
    OK(dv_space_device_count(DV_SPACE_CUDA, &count));
    EXPECT(count == (size_t)n);
    OK(dv_space_available(DV_SPACE_CUDA, 0, &usable));
    EXPECT(usable == cuda);
    OK(dv_space_available(DV_SPACE_CUDA, (uint32_t)n, &usable));
    EXPECT(!usable);
    OK(dv_space_available(DV_SPACE_HOST, 99, &usable));
    EXPECT(usable);
    OK(dv_space_device_count(DV_SPACE_HOST, &count));
    EXPECT(count == 1);
    OK(dv_space_device_count(DV_SPACE_TEST_DEVICE, &count));
    EXPECT(count == 64);
    OK(dv_space_available(DV_SPACE_TEST_DEVICE, 63, &usable));
    EXPECT(usable);
    OK(dv_space_available(DV_SPACE_TEST_DEVICE, 64, &usable));
    EXPECT(!usable);
    if (cuda) {
        printf("bad_input: a GPU is present, the NO_DEVICE case does not apply here\n");
        return;
    }
    EXPECT(n == 0);
    OK(dv_space_available(DV_SPACE_HOST_PINNED, 0, &usable));
    EXPECT(!usable);
    OK(dv_space_device_count(DV_SPACE_HOST_PINNED, &count));
    EXPECT(count == 0);
    dv_desc_t d = desc2(2, 2);
    dv_dualview_t *out = NULL;
    d.space = DV_SPACE_CUDA;
    EXPECT_STATUS(dv_create("gpu", &d, &out), DV_ERROR_NO_DEVICE);
    d.space = DV_SPACE_CUDA_UVM;
    EXPECT_STATUS(dv_create("uvm", &d, &out), DV_ERROR_NO_DEVICE);
    d.space = DV_SPACE_TEST_DEVICE;
    d.flags = DV_FLAG_PINNED_HOST;
    EXPECT_STATUS(dv_create("pinned", &d, &out), DV_ERROR_NO_DEVICE);
    EXPECT(out == NULL);
}

/* Reliability items 1, 2, 4, 9, 10, 11: each a data-loss or misleading-answer path found by probes. */
static void reliability_regressions(void) {
    double x = 2.0, y = 9.0;
    dv_desc_t d = desc2(4, 3);
    dv_dualview_t *p = NULL, *row = NULL, *c = NULL, *w = NULL;
    OK(dv_create("P", &d, &p));
    dv_range_t r[2] = {{DV_INDEX, 0, 1, 0}, {DV_ALL, 0, 0, 0}};
    OK(dv_subview(p, r, 2, &row));
    dv_extents_t bigger = {2, 0, {8, 3, 1, 1, 1, 1, 1, 1}};
    OK(dv_resize(p, &bigger));
    OK(dv_modify_host(p)); /* a pending host change of the family */

    /* item 1: a stale subview answers STALE to every flag call and clears nothing */
    bool flag = false;
    EXPECT_STATUS(dv_clear_sync_state(row), DV_ERROR_STALE);
    EXPECT_STATUS(dv_need_sync_device(row, &flag), DV_ERROR_STALE);
    EXPECT_STATUS(dv_need_sync_host(row, &flag), DV_ERROR_STALE);
    EXPECT_STATUS(dv_sync_host(row), DV_ERROR_STALE); /* nothing to copy, still stale */
    EXPECT_STATUS(dv_modify_host(row), DV_ERROR_STALE);
    OK(dv_need_sync_device(p, &flag));
    EXPECT(flag); /* the pending change survived */
    OK(dv_sync_device(p));

    /* item 2: a const handle refuses what writes data or drops changes */
    OK(dv_clone_const(p, &c));
    snapshot_t s = snap(p);
    EXPECT_STATUS(dv_view_fill(c, DV_SIDE_HOST, &y), DV_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(dv_view_copy(c, DV_SIDE_HOST, p, DV_SIDE_DEVICE), DV_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(dv_deep_copy(c, p), DV_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(dv_realloc(c, &bigger), DV_ERROR_INVALID_ARGUMENT); /* same size */
    EXPECT_STATUS(dv_resize(c, &bigger), DV_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS(dv_clear_sync_state(c), DV_ERROR_INVALID_ARGUMENT);
    UNCHANGED(p, s);
    dv_info_t info;
    OK(dv_info(c, &info));
    EXPECT((info.bits & DV_INFO_CONST) != 0);
    OK(dv_modify_host(c)); /* what remains: modify records, writes nothing */
    OK(dv_clear_sync_state(p));

    /* item 4: a two-space wrap of overlapping ranges is refused */
    double buf[16];
    memset(buf, 0, sizeof buf);
    dv_desc_t wd = desc2(8, 1);
    EXPECT_STATUS(dv_wrap("overlap", &wd, buf, buf + 4, &w), DV_ERROR_INVALID_ARGUMENT);
    EXPECT(strstr(dv_last_error(), "overlap") != NULL);
    EXPECT(w == NULL);

    /* item 10: labels are kept byte for byte, of any length */
    char label[400];
    memset(label, 'x', sizeof label - 1);
    label[sizeof label - 1] = '\0';
    label[3] = (char)0xE9; /* Latin-1: not UTF-8 */
    dv_dualview_t *l = NULL;
    OK(dv_create(label, &d, &l));
    char back[512];
    size_t n = 0;
    OK(dv_label(l, back, sizeof back, &n));
    EXPECT(n == strlen(label) && memcmp(back, label, n + 1) == 0);
    OK(dv_view_label(l, DV_SIDE_HOST, back, sizeof back, &n));
    EXPECT(n == strlen(label) + 7 && strcmp(back + strlen(label), "_mirror") == 0);
    OK(dv_destroy(l));

    /* item 11: messages that do not mislead */
    EXPECT_STATUS(dv_modify_host(NULL), DV_ERROR_NULL_ARGUMENT);
    EXPECT(strstr(dv_last_error(), "never created") != NULL);
    uint64_t ext = 0;
    EXPECT_STATUS(dv_extent(p, (uint32_t)-1, &ext), DV_ERROR_OUT_OF_RANGE);
    EXPECT(strstr(dv_last_error(), "-1") != NULL);
    dv_extents_t neg = {2, 0, {(uint64_t)-5, 3, 1, 1, 1, 1, 1, 1}};
    EXPECT_STATUS(dv_resize(p, &neg), DV_ERROR_INVALID_ARGUMENT);
    EXPECT(strstr(dv_last_error(), "-5") != NULL && strstr(dv_last_error(), "negative") != NULL);
    EXPECT(strcmp(dv_dtype_str(DV_DTYPE_FLOAT64), "float64 (double, real64)") == 0);

    (void)x;
    OK(dv_destroy(c));
    OK(dv_destroy(row));
    OK(dv_destroy(p));
}

/* item 9: a wrap of CUDA memory on a machine without a driver fails at once. */
static void wrap_without_driver(void) {
    bool cuda = true;
    OK(dv_cuda_available(&cuda));
    if (cuda) return;
    double host[4] = {0, 0, 0, 0};
    dv_desc_t d = desc2(2, 2);
    d.space = DV_SPACE_CUDA;
    dv_dualview_t *w = NULL;
    EXPECT_STATUS(dv_wrap("gpu", &d, host, (void *)(uintptr_t)0x7000, &w), DV_ERROR_NO_DEVICE);
    EXPECT(w == NULL);
}

int main(void) {
    dv_desc_t d = desc2(3, 4);
    dv_dualview_t *a = NULL;
    OK(dv_create("A", &d, &a));
    double v = 1.5;
    OK(dv_fill_and_modify_host(a, &v));
    OK(dv_sync_device(a));

    null_pointers(a);
    unknown_enums(a);
    shapes(a);
    flags_and_const(a);
    handles(a);
    no_device();
    reliability_regressions();
    wrap_without_driver();

    OK(dv_destroy(a));
    size_t live = 99;
    OK(dv_handle_count(&live));
    EXPECT(live == 0);
    if (failures) {
        fprintf(stderr, "bad_input: %d failure(s)\n", failures);
        return 1;
    }
    printf("bad_input: every case answered with its status and a message, nothing changed, no handle leaked\n");
    return 0;
}
