/* cushim beside the CUDA runtime on a real GPU: the runtime makes the context, a stream, an
 * event and the memory; cushim wraps them, launches and captures on the runtime's stream, and
 * once the wrappers are released the runtime's objects still work. Skips (77) where there is no
 * GPU. Linked to the toolkit's libcudart. */
#include <cuda_runtime_api.h>

#include "gpu_util.h"

#define N 4096

#define CHECK_RT(call)                                                                             \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) fail_msg("%s: %s", #call, cudaGetErrorString(e_));                  \
    } while (0)

static float host[N], out[N];

static void expect_times(const float *got, float factor) {
    for (int i = 0; i < N; i++) {
        if (got[i] != host[i] * factor) {
            fail_msg("element %d is %g, expected %g", i, (double)got[i],
                     (double)(host[i] * factor));
        }
    }
}

static CUcontext current(void) {
    CUcontext c = NULL;
    assert_ok(cushim_driver()->cuCtxGetCurrent(&c));
    return c;
}

static void test_runtime_stream_wrapped(void **state) {
    (void)state;
    CHECK_RT(cudaSetDevice(0));
    CHECK_RT(cudaFree(0)); /* the runtime makes the primary context current */
    cudaStream_t rs = NULL;
    cudaEvent_t re = NULL;
    float *d = NULL;
    CHECK_RT(cudaStreamCreateWithFlags(&rs, cudaStreamNonBlocking));
    CHECK_RT(cudaEventCreate(&re));
    CHECK_RT(cudaMalloc((void **)&d, sizeof host));
    for (int i = 0; i < N; i++) host[i] = (float)i + 0.5f;
    CHECK_RT(cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice));

    /* The runtime's current context is the device's primary context. */
    cushim_context *ctx = NULL;
    assert_ok(cushim_context_wrap(&ctx, NULL));
    CUcontext runtime_ctx = current();
    assert_ptr_equal(cushim_context_raw(ctx), runtime_ctx);
    CUcontext primary = NULL;
    assert_ok(cushim_driver()->cuDevicePrimaryCtxRetain(&primary, cushim_context_device(ctx)));
    assert_ptr_equal(primary, runtime_ctx);
    assert_ok(cushim_driver()->cuDevicePrimaryCtxRelease(cushim_context_device(ctx)));

    cushim_stream *s = NULL;
    cushim_event *e = NULL;
    assert_ok(cushim_stream_wrap(&s, ctx, (CUstream)rs));
    assert_ok(cushim_event_wrap(&e, ctx, (CUevent)re));
    cushim_module *m = NULL;
    cushim_function *dbl = NULL;
    assert_ok(cushim_module_load_file(&m, ctx, PTX_DIR "/double.ptx"));
    assert_ok(cushim_module_function(&dbl, m, "cushim_double"));
    CUdeviceptr dp = (CUdeviceptr)(uintptr_t)d;
    unsigned n = N;
    void *params[] = {&dp, &n};
    cushim_launch_config cfg = {.grid = CUSHIM_DIM3(16), .block = CUSHIM_DIM3(256), .stream = s};
    assert_ok(cushim_launch(dbl, &cfg, params));
    assert_ok(cushim_launch(dbl, &cfg, params));
    assert_ok(cushim_event_record(e, s));
    CHECK_RT(cudaEventSynchronize(re)); /* the runtime waits on what cushim recorded */
    assert_ok(cushim_event_query(e));
    CHECK_RT(cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost));
    expect_times(out, 4.0f);

    /* A graph captured on the runtime's stream through cushim, replayed there. */
    assert_ok(cushim_stream_begin_capture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    assert_ok(cushim_launch(dbl, &cfg, params));
    cushim_graph *g = NULL;
    cushim_graph_exec *x = NULL;
    assert_ok(cushim_stream_end_capture(&g, s));
    assert_ok(cushim_graph_instantiate(&x, g, 0));
    assert_ok(cushim_graph_exec_launch(x, s));
    assert_ok(cushim_stream_synchronize(s));
    cushim_graph_exec_release(x);
    cushim_graph_release(g);
    assert_ptr_equal(current(), runtime_ctx);

    /* The wrappers go; the runtime's stream and event do not. */
    cushim_event_release(e);
    cushim_stream_release(s);
    CHECK_RT(cudaStreamQuery(rs));
    CHECK_RT(cudaMemcpyAsync(out, d, sizeof out, cudaMemcpyDeviceToHost, rs));
    CHECK_RT(cudaEventRecord(re, rs));
    CHECK_RT(cudaStreamSynchronize(rs));
    CHECK_RT(cudaEventQuery(re));
    expect_times(out, 8.0f);
    print_message("the runtime's stream works after its wrapper's release: %g = 8 x %g\n",
                  (double)out[N - 1], (double)host[N - 1]);

    /* The wrapped primary context is not released by cushim: the runtime still runs. */
    cushim_module_release(m);
    cushim_context_release(ctx);
    CHECK_RT(cudaMemsetAsync(d, 0, sizeof(float), rs));
    CHECK_RT(cudaStreamSynchronize(rs));
    CHECK_RT(cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost));
    assert_true(out[0] == 0.0f && out[1] == host[1] * 8.0f);
    assert_ptr_equal(current(), runtime_ctx);
    CHECK_RT(cudaEventDestroy(re));
    CHECK_RT(cudaStreamDestroy(rs));
    CHECK_RT(cudaFree(d));
}

/* A runtime stream wrapped into a context it does not belong to is refused. */
static void test_stream_of_another_context_refused(void **state) {
    (void)state;
    CHECK_RT(cudaSetDevice(0));
    CHECK_RT(cudaFree(0));
    cudaStream_t rs = NULL;
    CHECK_RT(cudaStreamCreateWithFlags(&rs, cudaStreamNonBlocking));
    cushim_context *dedicated = NULL;
    assert_ok(cushim_context_create(&dedicated, 0, 0));
    cushim_stream *s = NULL;
    assert_cu(CUDA_ERROR_INVALID_CONTEXT, cushim_stream_wrap(&s, dedicated, (CUstream)rs));
    assert_null(s);
    print_message("refused: %s\n", cushim_last_error());
    cushim_context_release(dedicated);
    CHECK_RT(cudaStreamSynchronize(rs));
    CHECK_RT(cudaStreamDestroy(rs));
}

int main(void) {
    gpu_require();
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        fprintf(stderr, "skip: the CUDA runtime sees no device\n");
        return GPU_SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runtime_stream_wrapped),
        cmocka_unit_test(test_stream_of_another_context_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
