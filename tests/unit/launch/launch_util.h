/* Shared by the launch unit tests: PTX the mock understands (it reads the `.entry name(` lines
 * only), and a context, module, function and stream made fresh for each test. */
#ifndef CUSHIM_LAUNCH_UTIL_H
#define CUSHIM_LAUNCH_UTIL_H

#include <stdio.h>

#include "testutil.h"

#define PTX_HEAD ".version 6.0\n.target sm_70\n.address_size 64\n\n"

static const char ptx_kernels[] = PTX_HEAD
    ".visible .entry cushim_empty(\n)\n{\n    ret;\n}\n\n"
    ".visible .entry cushim_saxpy(\n    .param .u32 n,\n    .param .f32 a,\n"
    "    .param .u64 x,\n    .param .u64 y\n)\n{\n    ret;\n}\n\n"
    ".visible .entry cushim_grid_barrier(\n    .param .u64 slots,\n    .param .u64 counter,\n"
    "    .param .u64 result,\n    .param .u64 spin_limit\n)\n{\n    ret;\n}\n";

/* What the mock takes for a PTX that fails to compile. */
static const char ptx_jit_error[] = PTX_HEAD "// MOCK_JIT_ERROR\n"
                                             ".visible .entry cushim_broken(\n)\n{\n    ret;\n}\n";

/* The H200 the mock is by default. */
#define H200_SMS 132

typedef struct fixture {
    cushim_context *ctx;
    cushim_module *mod;
    cushim_function *fn;
    cushim_stream *stream;
} fixture;

static fixture fx;

/* A context on device 0 (none left current), a module of ptx_kernels, its kernel `name` and a
 * stream. For a test that changes the mock first: call after mock_setup(). */
static inline int fixture_make(const char *name) {
    memset(&fx, 0, sizeof fx);
    if (cushim_context_create(&fx.ctx, 0, 0) != CUDA_SUCCESS) return -1;
    if (cushim_module_load_data(&fx.mod, fx.ctx, ptx_kernels) != CUDA_SUCCESS) return -1;
    if (cushim_module_function(&fx.fn, fx.mod, name) != CUDA_SUCCESS) return -1;
    if (cushim_stream_create(&fx.stream, fx.ctx, CU_STREAM_NON_BLOCKING, 0) != CUDA_SUCCESS) {
        return -1;
    }
    return 0;
}

static inline int fixture_setup(void **state) {
    if (mock_setup(state) != 0) return -1;
    return fixture_make("cushim_empty");
}

/* Releases the fixture and fails the test when the driver still holds anything of it. */
static inline int fixture_teardown(void **state) {
    cushim_driver()->cuCtxSetCurrent(NULL);
    cushim_stream_release(fx.stream);
    cushim_module_release(fx.mod);
    cushim_context_release(fx.ctx);
    int leaked = mock_report_leaks();
    mock_teardown(state);
    return leaked ? -1 : 0;
}

/* Arguments for any kernel of ptx_kernels (the mock copies them by the image's sizes, 8 bytes
 * at most each): cushim refuses params NULL for a kernel that takes parameters. */
static unsigned long long kargs_values[4];
static void *kargs[4] __attribute__((unused)) = {&kargs_values[0], &kargs_values[1],
                                                 &kargs_values[2], &kargs_values[3]};

/* What a launch on a NULL stream passes the driver: the default stream of the build's
 * -Ddefault_stream mode. */
static inline CUstream default_stream(void) {
    return cushim_driver_state()->per_thread_stream ? CU_STREAM_PER_THREAD : NULL;
}

/* mock.fail, past cmocka's function-like macro fail(), which `mock.fail(...)` would expand. */
static inline void mock_fail(const char *entry, int nth, CUresult code) {
    (mock.fail_call)(entry, nth, code);
}

static inline cushim_launch_config config(cushim_dim3 grid, cushim_dim3 block, unsigned smem,
                                          cushim_stream *s) {
    cushim_launch_config c = {.grid = grid, .block = block, .shared_mem_bytes = smem, .stream = s};
    return c;
}

/* The mock's stream priority range (mock/mock.h). */
#define LEAST 0
#define GREATEST (-5)

/* For the launch attribute tests. */
static inline cushim_launch_config cluster_config(cushim_dim3 grid, cushim_dim3 cluster) {
    cushim_launch_config c = {
        .grid = grid, .block = CUSHIM_DIM3(64), .stream = fx.stream, .cluster = cluster};
    return c;
}

/* The recorded launch's attribute with this id, failing the test when it has none. */
static inline const CUlaunchAttribute *attr_of(const cushim_mock_launch *l,
                                               CUlaunchAttributeID id) {
    for (unsigned i = 0; i < l->attr_count; i++) {
        if (l->attrs[i].id == id) return &l->attrs[i];
    }
    fail_msg("the launch has no attribute %d among its %u", (int)id, l->attr_count);
    return NULL;
}

/* Nothing reached the driver's launch entries. */
static inline void assert_no_launch(void) {
    assert_int_equal(mock.launch_count(), 0);
    assert_int_equal(mock.calls("cuLaunchKernelEx"), 0);
    assert_int_equal(mock.calls("cuLaunchKernel"), 0);
    assert_int_equal(mock.calls("cuLaunchCooperativeKernel"), 0);
}

/* Asserts that the last error holds `text`, printing it when not. */
#define assert_error_has(text)                                                                     \
    do {                                                                                           \
        if (strstr(cushim_last_error(), (text)) == NULL) {                                         \
            fail_msg("the last error \"%s\" does not hold \"%s\"", cushim_last_error(), (text));   \
        }                                                                                          \
    } while (0)

#endif
