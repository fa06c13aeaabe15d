/* The mock runs a kernel from its PTX when it has no host kernel (mock/ptx): results in device
 * memory, a module variable read through cuModuleGetGlobal, a graph replay; a fault names the
 * kernel, thread and line and is sticky in the context; a kernel with no code at all fails its
 * launch with CUDA_ERROR_NO_BINARY_FOR_GPU unless the test asks for no-op kernels. */
#include <time.h>

#include "exec_util.h"

static const char ptx_scale[] =
    PTX_HEAD ".global .align 4 .u32 factor = 3;\n"
             ".visible .entry scale(.param .u64 p, .param .u32 n)\n{\n"
             ".reg .b32 %r<8>; .reg .b64 %rd<6>; .reg .pred %p1;\n"
             "ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n];\n"
             "mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;\n"
             "mad.lo.s32 %r5, %r2, %r3, %r4; setp.ge.u32 %p1, %r5, %r1; @%p1 bra DONE;\n"
             "ld.global.u32 %r6, [factor];\n"
             "cvta.to.global.u64 %rd2, %rd1; mul.wide.u32 %rd3, %r5, 4; add.s64 %rd4, %rd2, %rd3;\n"
             "ld.global.u32 %r7, [%rd4]; mul.lo.s32 %r7, %r7, %r6; st.global.u32 [%rd4], %r7;\n"
             "DONE: ret;\n}\n";

static void test_ptx_kernel_runs_on_device_memory(void **state) {
    (void)state;
    enum { N = 1000 };
    CUmodule m;
    CUfunction f;
    CUdeviceptr d, g;
    size_t gsize = 0;
    static uint32_t h[N];
    assert_ok(t->cuModuleLoadData(&m, ptx_scale));
    assert_ok(t->cuModuleGetFunction(&f, m, "scale"));
    assert_ok(t->cuModuleGetGlobal(&g, &gsize, m, "factor"));
    assert_int_equal(gsize, 4);
    assert_int_equal(*(uint32_t *)(uintptr_t)g, 3); /* the initialiser, in the interpreter's */
    uint32_t five = 5; /* cudaMemcpyToSymbol's way into the storage that the kernel reads */
    assert_ok(t->cuMemcpyHtoD(g, &five, sizeof five));
    for (int i = 0; i < N; i++) h[i] = (uint32_t)i;
    assert_ok(t->cuMemAlloc(&d, sizeof h));
    assert_ok(t->cuMemcpyHtoD(d, h, sizeof h));
    unsigned n = N;
    void *params[] = {&d, &n};
    assert_ok(t->cuLaunchKernel(f, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
    assert_ok(t->cuMemcpyDtoH(h, d, sizeof h));
    for (int i = 0; i < N; i++) assert_int_equal(h[i], 5u * (uint32_t)i);
    assert_ok(t->cuMemFree(d));
    assert_ok(t->cuModuleUnload(m));
}

static void test_fault_is_named_and_sticky(void **state) {
    (void)state;
    CUmodule m;
    CUfunction f;
    CUdeviceptr d;
    assert_ok(t->cuModuleLoadData(&m, ptx_scale));
    assert_ok(t->cuModuleGetFunction(&f, m, "scale"));
    assert_ok(t->cuMemAlloc(&d, 64 * 4));
    unsigned n = 65; /* one past the allocation */
    void *params[] = {&d, &n};
    CUresult r = t->cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, NULL, params, NULL);
    if (r == CUDA_SUCCESS) r = t->cuCtxSynchronize();
    assert_int_equal(r, CUDA_ERROR_ILLEGAL_ADDRESS);
    const char *e = mock.kernel_error();
    assert_non_null(strstr(e, "kernel scale"));
    assert_non_null(strstr(e, "thread (64,0,0)"));
    assert_non_null(strstr(e, "PTX line 14"));
    assert_non_null(strstr(e, "256-byte allocation"));
    CUdeviceptr d2;
    assert_int_equal(t->cuMemAlloc(&d2, 16), CUDA_ERROR_ILLEGAL_ADDRESS); /* sticky */
    assert_ok(t->cuMemFree(d));
    assert_ok(t->cuModuleUnload(m));
}

/* Loads ptx, and launches its kernel `name` once on one thread: the launch's result. */
static CUresult launch_once(CUmodule *m, CUfunction *f, const char *ptx, const char *name) {
    assert_ok(t->cuModuleLoadData(m, ptx));
    assert_ok(t->cuModuleGetFunction(f, *m, name));
    return t->cuLaunchKernel(*f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
}

/* Issue 19, item 7: a kernel with no code fails its launch, naming it and how to give it code. */
static void test_kernel_without_code_fails_loudly(void **state) {
    (void)state;
    static const char ptx_broken[] =
        PTX_HEAD ".visible .entry odd()\n{\n\tmma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 "
                 "{%f1}, {%r1}, {%r2}, {%f2};\n\tret;\n}\n";
    CUmodule m;
    CUfunction f;
    assert_int_equal(launch_once(&m, &f, ptx_broken, "odd"), CUDA_ERROR_NOT_SUPPORTED);
    assert_non_null(strstr(mock.kernel_error(), "kernel odd cannot run"));
    assert_non_null(strstr(mock.kernel_error(), "mma"));
    /* Asked for, no-op kernels run (nothing). */
    mock.set_noop_kernels(true);
    assert_ok(t->cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    assert_ok(t->cuCtxSynchronize());
    assert_ok(t->cuModuleUnload(m));
}

/* Issue 30, item 5, and issue 28, item 5: PTX only for a target above the device (sm_90 on the
 * ada profile, 8.9) fails its load, as the driver's JIT fails it, and the JIT's log names the
 * device's own target, not the one the image already has. */
static void test_ptx_above_the_device_hints_a_lower_target(void **state) {
    (void)state;
    assert_true(mock.set_devices("h200,ada"));
    cushim_context *ada = NULL;
    assert_ok(cushim_context_create(&ada, 1, 0));
    assert_ok(t->cuCtxSetCurrent(cushim_context_raw(ada)));
    CUmodule m = NULL;
    char log[512] = "";
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {log, (void *)(uintptr_t)sizeof log};
    assert_int_equal(t->cuModuleLoadDataEx(&m, ptx_scale, 2, opts, vals), CUDA_ERROR_INVALID_PTX);
    assert_non_null(strstr(log, "SM version specified by .target is higher"));
    assert_non_null(strstr(log, "PTX is for sm_90, above the device's compute capability 8.9"));
    assert_non_null(strstr(log, "compute_89 or lower"));
    assert_null(strstr(log, "compute_90"));
    assert_ok(t->cuCtxSetCurrent(cushim_context_raw(ctx)));
    cushim_context_release(ada);
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Issue 30, item 4: an event's time follows the kernel's interpretation (the kernel runs at
 * the synchronize, which takes that long); set_launch_us still fixes it. */
static void test_event_times_follow_the_interpretation(void **state) {
    (void)state;
    enum { N = 1 << 16 };
    CUmodule m;
    CUfunction f;
    CUdeviceptr d;
    CUevent a, b;
    assert_ok(t->cuModuleLoadData(&m, ptx_scale));
    assert_ok(t->cuModuleGetFunction(&f, m, "scale"));
    assert_ok(t->cuMemAlloc(&d, N * 4));
    assert_ok(t->cuMemsetD32(d, 1, N));
    assert_ok(t->cuEventCreate(&a, 0));
    assert_ok(t->cuEventCreate(&b, 0));
    unsigned n = N;
    void *params[] = {&d, &n};
    float ms[2];
    for (int k = 0; k < 2; k++) {
        if (k == 1) mock.set_launch_us(2500);
        assert_ok(t->cuEventRecord(a, NULL));
        assert_ok(t->cuLaunchKernel(f, N / 256, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
        assert_ok(t->cuEventRecord(b, NULL));
        double before = now_ms();
        assert_ok(t->cuEventSynchronize(b));
        double wall = now_ms() - before;
        assert_ok(t->cuEventElapsedTime(&ms[k], a, b));
        if (k == 0) {
            print_message("# interpretation %.3f ms, the synchronize %.3f ms\n", ms[0], wall);
            assert_true(ms[0] > 0.0f && ms[0] <= wall && ms[0] >= 0.5 * wall);
        }
    }
    assert_true(ms[1] == 2.5f);
    assert_ok(t->cuEventDestroy(a));
    assert_ok(t->cuEventDestroy(b));
    assert_ok(t->cuMemFree(d));
    assert_ok(t->cuModuleUnload(m));
}

static void test_graph_replays_a_ptx_kernel(void **state) {
    (void)state;
    CUmodule m;
    CUfunction f;
    CUdeviceptr d;
    CUstream s;
    CUgraph g;
    CUgraphExec ge;
    uint32_t h[32];
    for (int i = 0; i < 32; i++) h[i] = 1;
    assert_ok(t->cuModuleLoadData(&m, ptx_scale));
    assert_ok(t->cuModuleGetFunction(&f, m, "scale"));
    assert_ok(t->cuMemAlloc(&d, sizeof h));
    assert_ok(t->cuMemcpyHtoD(d, h, sizeof h));
    assert_ok(t->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    unsigned n = 32;
    void *params[] = {&d, &n};
    assert_ok(t->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_ok(t->cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, params, NULL));
    assert_ok(t->cuStreamEndCapture(s, &g));
    assert_ok(t->cuGraphInstantiate(&ge, g, 0));
    for (int i = 0; i < 3; i++) assert_ok(t->cuGraphLaunch(ge, s));
    assert_ok(t->cuStreamSynchronize(s));
    assert_ok(t->cuMemcpyDtoH(h, d, sizeof h));
    for (int i = 0; i < 32; i++) assert_int_equal(h[i], 27);
    assert_ok(t->cuGraphExecDestroy(ge));
    assert_ok(t->cuGraphDestroy(g));
    assert_ok(t->cuStreamDestroy(s));
    assert_ok(t->cuMemFree(d));
    assert_ok(t->cuModuleUnload(m));
}

int main(void) {
#define T(fn) cmocka_unit_test_setup_teardown(fn, exec_setup, exec_teardown)
    const struct CMUnitTest tests[] = {
        T(test_ptx_kernel_runs_on_device_memory),          T(test_kernel_without_code_fails_loudly),
        T(test_ptx_above_the_device_hints_a_lower_target), T(test_graph_replays_a_ptx_kernel),
        T(test_event_times_follow_the_interpretation),     T(test_fault_is_named_and_sticky),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
