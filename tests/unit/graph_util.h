/* Shared by the graph and wrap tests: two contexts (the one under test, and another that is
 * current during every call so that the context rule can be seen), a stream, a kernel `bump`
 * with a host implementation, device memory, and an order log that kernels and host functions
 * append to. */
#ifndef CUSHIM_GRAPH_UTIL_H
#define CUSHIM_GRAPH_UTIL_H

#include <stdint.h>

#include "testutil.h"

/* bump(int *p, unsigned tag): p[0] = p[0] * 10 + tag. */
/* For sm_80, which every profile of the mock runs (the JIT refuses a target above the device). */
static const char bump_ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n\n"
    ".visible .entry bump(\n\t.param .u64 bump_param_0,\n\t.param .u32 bump_param_1\n)\n"
    "{\n\tret;\n}\n";

static const cushim_driver_table *t;
static cushim_context *ctx, *other;
static cushim_stream *s;
static cushim_module *m;
static cushim_function *bump;
static CUdeviceptr buf; /* 4 ints; a mock device pointer is the host address of its bytes */

static int order[64];
static int norder;

static inline void note(int tag) {
    if (norder < 64) order[norder++] = tag;
}

static inline void host_note(void *user) { note((int)(intptr_t)user); }

static inline int *buf_ints(void) { return (int *)(uintptr_t)buf; }

static inline void bump_kernel(const cushim_mock_kernel_args *a) {
    CUdeviceptr p;
    unsigned tag;
    memcpy(&p, a->params[0], sizeof p);
    memcpy(&tag, a->params[1], sizeof tag);
    int *v = (int *)(uintptr_t)p;
    v[0] = v[0] * 10 + (int)tag;
    note((int)tag);
}

/* Asserts that the order log is exactly the n tags given. */
static inline void assert_order(int n, const int *want) {
    if (norder != n) fail_msg("%d things ran, expected %d", norder, n);
    for (int i = 0; i < n; i++) {
        if (order[i] != want[i]) fail_msg("position %d ran %d, expected %d", i, order[i], want[i]);
    }
}
#define ASSERT_ORDER(...)                                                                          \
    do {                                                                                           \
        const int want_[] = {__VA_ARGS__};                                                         \
        assert_order((int)(sizeof want_ / sizeof want_[0]), want_);                                \
    } while (0)

/* The context rule: every cushim call leaves `other` current, as the caller had it. */
#define ASSERT_OTHER_CURRENT() assert_ptr_equal(mock.current(), cushim_context_raw(other))

/* Asserts that the last error holds `text`. */
#define ASSERT_SAID(text)                                                                          \
    do {                                                                                           \
        if (strstr(cushim_last_error(), (text)) == NULL) {                                         \
            fail_msg("the last error does not say \"%s\": %s", (text), cushim_last_error());       \
        }                                                                                          \
    } while (0)

/* Launches bump(buf, tag) on st through cushim. */
static inline CUresult launch_bump(cushim_stream *st, unsigned tag) {
    void *params[] = {&buf, &tag};
    cushim_launch_config cfg = {.grid = CUSHIM_DIM3(1), .block = CUSHIM_DIM3(1), .stream = st};
    return cushim_launch(bump, &cfg, params);
}

/* The objects every test starts with, on a mock that mock_setup has reset. */
static inline int graph_fixture(void) {
    mock.register_kernel("bump", bump_kernel);
    t = cushim_driver();
    norder = 0;
    if (cushim_context_create(&ctx, 0, 0) != CUDA_SUCCESS) return -1;
    if (cushim_context_create(&other, 0, 0) != CUDA_SUCCESS) return -1;
    if (cushim_stream_create(&s, ctx, CU_STREAM_NON_BLOCKING, 0) != CUDA_SUCCESS) return -1;
    if (cushim_module_load_data(&m, ctx, bump_ptx) != CUDA_SUCCESS) return -1;
    if (cushim_module_function(&bump, m, "bump") != CUDA_SUCCESS) return -1;
    if (t->cuCtxSetCurrent(cushim_context_raw(ctx)) != CUDA_SUCCESS) return -1;
    if (t->cuMemAlloc(&buf, 4 * sizeof(int)) != CUDA_SUCCESS) return -1;
    memset(buf_ints(), 0, 4 * sizeof(int));
    return t->cuCtxSetCurrent(cushim_context_raw(other)) == CUDA_SUCCESS ? 0 : -1;
}

static inline int graph_setup(void **state) {
    if (mock_setup(state) != 0) return -1;
    return graph_fixture();
}

/* Fails the test when the driver still holds anything made by it. */
static inline int graph_teardown(void **state) {
    t->cuCtxSetCurrent(cushim_context_raw(ctx));
    t->cuMemFree(buf);
    t->cuCtxSetCurrent(NULL);
    cushim_module_release(m);
    cushim_stream_release(s);
    cushim_context_release(other);
    cushim_context_release(ctx);
    int leaked = mock_report_leaks();
    mock_teardown(state);
    return leaked ? -1 : 0;
}

#endif
