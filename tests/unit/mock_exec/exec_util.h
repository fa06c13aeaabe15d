/* Shared by the mock's execution tests: a context made current for the raw table, an order
 * log that host functions and host kernels write to, and small PTX images. */
#ifndef CUSHIM_EXEC_UTIL_H
#define CUSHIM_EXEC_UTIL_H

#include <stdlib.h>

#include "testutil.h"

#define PTX_HEAD ".version 8.0\n.target sm_90\n.address_size 64\n\n"

/* Kernels with the parameter lists nvcc writes. */
static const char ptx_two[] =
    PTX_HEAD ".visible .entry step(\n\t.param .u64 step_param_0,\n\t.param .u32 step_param_1\n)\n"
             "{\n\tret;\n}\n"
             ".visible .entry none()\n{\n\tret;\n}\n";

static cushim_context *ctx;
static const cushim_driver_table *t;

/* The order things ran in: each appends its tag. */
static int order[64];
static int norder;

static inline void note(int tag) {
    if (norder < 64) order[norder++] = tag;
}

static inline void host_note(void *user) { note((int)(intptr_t)user); }

/* The host kernel of `step`: appends its second parameter. */
static inline void step_kernel(const cushim_mock_kernel_args *a) {
    unsigned tag;
    memcpy(&tag, a->params[1], sizeof tag);
    note((int)tag);
}

static int exec_setup(void **state) {
    if (mock_setup(state) != 0) return -1;
    t = cushim_driver();
    norder = 0;
    memset(order, 0, sizeof order);
    if (cushim_context_create(&ctx, 0, 0) != CUDA_SUCCESS) return -1;
    return t->cuCtxSetCurrent(cushim_context_raw(ctx)) == CUDA_SUCCESS ? 0 : -1;
}

/* Fails the test when the driver still holds anything made by it. */
static int exec_teardown(void **state) {
    t->cuCtxSetCurrent(NULL);
    cushim_context_release(ctx);
    int leaked = mock_report_leaks();
    mock_teardown(state);
    return leaked ? -1 : 0;
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

/* ptx_two loaded into the current context, and its kernel `step`. */
static inline CUresult load_step(CUmodule *m, CUfunction *f) {
    CUresult r = t->cuModuleLoadData(m, ptx_two);
    return r == CUDA_SUCCESS ? t->cuModuleGetFunction(f, *m, "step") : r;
}

/* exec_setup, then a module with `step` (its host kernel registered) and a non-blocking
 * stream, for the graph tests; step_teardown undoes both. */
static inline int step_setup(void **state, CUmodule *m, CUfunction *f, CUstream *s) {
    if (exec_setup(state) != 0) return -1;
    mock.register_kernel("step", step_kernel);
    if (load_step(m, f) != CUDA_SUCCESS) return -1;
    return t->cuStreamCreate(s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS ? 0 : -1;
}

static inline int step_teardown(void **state, CUmodule m, CUstream s) {
    t->cuStreamDestroy(s);
    t->cuModuleUnload(m);
    return exec_teardown(state);
}

/* Two non-blocking streams and an event, for the tests of order between streams;
 * destroy_two_streams undoes them. */
static inline void two_streams(CUstream *a, CUstream *b, CUevent *e) {
    assert_ok(t->cuStreamCreate(a, CU_STREAM_NON_BLOCKING));
    assert_ok(t->cuStreamCreate(b, CU_STREAM_NON_BLOCKING));
    assert_ok(t->cuEventCreate(e, CU_EVENT_DEFAULT));
}

static inline void destroy_two_streams(CUstream a, CUstream b, CUevent e) {
    assert_ok(t->cuEventDestroy(e));
    assert_ok(t->cuStreamDestroy(a));
    assert_ok(t->cuStreamDestroy(b));
}

/* Launches `step` with tag on s. */
static inline void launch_step(CUfunction f, CUstream s, unsigned tag) {
    CUdeviceptr unused = 0;
    void *params[] = {&unused, &tag};
    assert_ok(t->cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, params, NULL));
}

#endif
