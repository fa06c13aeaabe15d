/* Graphs and host functions on a real GPU: a step of a dozen kernels, a copy and a host function
 * captured once and replayed 100 times, updated with new parameters, refused an update of
 * another shape; host functions in stream order; a capture broken by a synchronize; graph calls
 * with no context current. Skips (77) where there is no GPU. */
#include "gpu_util.h"

#define N (1 << 16)
#define KERNELS 11 /* saxpy steps; with the accumulating one, a dozen kernels */

static cushim_context *ctx;
static cushim_module *mod;
static cushim_function *saxpy;

static int setup(void **state) {
    (void)state;
    if (cushim_context_primary(&ctx, 0) != CUDA_SUCCESS) return -1;
    if (cushim_module_load_file(&mod, ctx, PTX_DIR "/saxpy.ptx") != CUDA_SUCCESS) return -1;
    if (cushim_module_function(&saxpy, mod, "cushim_saxpy") != CUDA_SUCCESS) return -1;
    return 0;
}

static int teardown(void **state) {
    (void)state;
    cushim_module_release(mod);
    cushim_context_release(ctx);
    return 0;
}

/* y = a * x + y over n floats, on s. */
static void launch_saxpy(cushim_stream *s, float a, CUdeviceptr x, CUdeviceptr y) {
    unsigned n = N;
    void *params[] = {&n, &a, &x, &y};
    cushim_launch_config cfg = {.grid = CUSHIM_DIM3(64), .block = CUSHIM_DIM3(256), .stream = s};
    assert_ok(cushim_launch(saxpy, &cfg, params));
}

static int replays;
static void count_replay(void *user) {
    (void)user;
    replays++;
}

typedef struct step_buffers {
    CUdeviceptr x, y0, y, acc;
    float hx[N], hy0[N], out[N];
} step_buffers;

/* The step: y = y0 (a copy), then y += a * x eleven times, then acc += y, then a host function
 * that counts the replays. Small whole numbers keep every result exact. */
static cushim_graph *capture_step(cushim_stream *s, const step_buffers *b, float a, int kernels) {
    const cushim_driver_table *t = cushim_driver();
    assert_ok(cushim_stream_begin_capture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_ok(t->cuMemcpyDtoDAsync(b->y, b->y0, N * sizeof(float), cushim_stream_raw(s)));
    for (int k = 0; k < kernels; k++) launch_saxpy(s, a, b->x, b->y);
    launch_saxpy(s, 1.0f, b->y, b->acc);
    assert_ok(cushim_stream_launch_host_func(s, count_replay, NULL));
    cushim_graph *g = NULL;
    assert_ok(cushim_stream_end_capture(&g, s));
    return g;
}

/* Checks y and acc after `launches` replays of the step with scalar a (acc zeroed before). */
static void check_step(step_buffers *b, float a, int launches) {
    const cushim_driver_table *t = cushim_driver();
    assert_ok(t->cuMemcpyDtoH(b->out, b->y, sizeof b->out));
    for (int i = 0; i < N; i++) {
        float want = b->hy0[i] + (float)KERNELS * a * b->hx[i];
        if (b->out[i] != want) fail_msg("y[%d] is %g, expected %g", i, b->out[i], want);
    }
    assert_ok(t->cuMemcpyDtoH(b->out, b->acc, sizeof b->out));
    for (int i = 0; i < N; i++) {
        float want = (float)launches * (b->hy0[i] + (float)KERNELS * a * b->hx[i]);
        if (b->out[i] != want) fail_msg("acc[%d] is %g, expected %g", i, b->out[i], want);
    }
}

static void test_dozen_kernels_replayed_and_updated(void **state) {
    (void)state;
    const cushim_driver_table *t = cushim_driver();
    assert_ok(t->cuCtxSetCurrent(cushim_context_raw(ctx)));
    step_buffers *b = calloc(1, sizeof *b);
    assert_non_null(b);
    for (int i = 0; i < N; i++) {
        b->hx[i] = (float)(i % 8);
        b->hy0[i] = (float)(i % 16);
    }
    assert_ok(t->cuMemAlloc(&b->x, sizeof b->hx));
    assert_ok(t->cuMemAlloc(&b->y0, sizeof b->hy0));
    assert_ok(t->cuMemAlloc(&b->y, sizeof b->hy0));
    assert_ok(t->cuMemAlloc(&b->acc, sizeof b->hy0));
    assert_ok(t->cuMemcpyHtoD(b->x, b->hx, sizeof b->hx));
    assert_ok(t->cuMemcpyHtoD(b->y0, b->hy0, sizeof b->hy0));
    assert_ok(t->cuMemsetD32(b->acc, 0, N));
    gpu_settle();
    cushim_stream *s = NULL;
    cushim_event *start = NULL, *stop = NULL;
    assert_ok(cushim_stream_create(&s, ctx, CU_STREAM_NON_BLOCKING, 0));
    assert_ok(cushim_event_create(&start, ctx, CU_EVENT_DEFAULT));
    assert_ok(cushim_event_create(&stop, ctx, CU_EVENT_DEFAULT));

    cushim_graph *g = capture_step(s, b, 2.0f, KERNELS);
    cushim_graph_exec *x = NULL;
    assert_ok(cushim_graph_instantiate(&x, g, 0));
    assert_ok(cushim_graph_exec_upload(x, s));
    replays = 0;
    assert_ok(cushim_event_record(start, s));
    for (int i = 0; i < 100; i++) assert_ok(cushim_graph_exec_launch(x, s));
    assert_ok(cushim_event_record(stop, s));
    assert_ok(cushim_stream_synchronize(s));
    float ms = 0;
    assert_ok(cushim_event_elapsed_ms(&ms, start, stop));
    print_message("graph of %d kernels, a copy and a host function: 100 replays in %.3f ms "
                  "(%.1f us each)\n",
                  KERNELS + 1, (double)ms, (double)ms * 10.0);
    assert_int_equal(replays, 100);
    check_step(b, 2.0f, 100);

    /* The same step captured with another scalar: an update, no new instantiation. */
    cushim_graph *g2 = capture_step(s, b, 3.0f, KERNELS);
    assert_ok(cushim_graph_exec_update(x, g2));
    assert_ok(t->cuMemsetD32(b->acc, 0, N));
    gpu_settle();
    replays = 0;
    for (int i = 0; i < 10; i++) assert_ok(cushim_graph_exec_launch(x, s));
    assert_ok(cushim_stream_synchronize(s));
    assert_int_equal(replays, 10);
    check_step(b, 3.0f, 10);

    /* Another shape is refused, with the driver's reason, and the executable is as it was. */
    cushim_graph *g3 = capture_step(s, b, 5.0f, 5);
    assert_cu(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, cushim_graph_exec_update(x, g3));
    print_message("update refused: %s\n", cushim_last_error());
    assert_non_null(strstr(cushim_last_error(), "CU_GRAPH_EXEC_UPDATE_ERROR"));
    assert_ok(cushim_graph_exec_launch(x, s));
    assert_ok(cushim_stream_synchronize(s));
    check_step(b, 3.0f, 11);

    CUcontext cur = NULL;
    assert_ok(t->cuCtxGetCurrent(&cur));
    assert_ptr_equal(cur, cushim_context_raw(ctx));
    cushim_graph_exec_release(x);
    cushim_graph_release(g);
    cushim_graph_release(g2);
    cushim_graph_release(g3);
    cushim_event_release(start);
    cushim_event_release(stop);
    cushim_stream_release(s);
    assert_ok(t->cuMemFree(b->x));
    assert_ok(t->cuMemFree(b->y0));
    assert_ok(t->cuMemFree(b->y));
    assert_ok(t->cuMemFree(b->acc));
    free(b);
    assert_ok(t->cuCtxSetCurrent(NULL));
}

/* Host functions see the work before them done, and the work after them waits: the first reads
 * what a kernel and a copy produced, then writes the input that the next copy takes. */
typedef struct seen {
    float *pinned_in, *pinned_out;
    float first, second;
    int order[2], n;
} seen;

static void see_first(void *user) {
    seen *w = user;
    w->first = w->pinned_out[0];
    for (int i = 0; i < N; i++) w->pinned_in[i] = 5.0f;
    w->order[w->n++] = 1;
}

static void see_second(void *user) {
    seen *w = user;
    w->second = w->pinned_out[N - 1];
    w->order[w->n++] = 2;
}

static void test_host_functions_in_stream_order(void **state) {
    (void)state;
    const cushim_driver_table *t = cushim_driver();
    assert_ok(t->cuCtxSetCurrent(cushim_context_raw(ctx)));
    seen w = {0};
    assert_ok(t->cuMemAllocHost((void **)&w.pinned_in, N * sizeof(float)));
    assert_ok(t->cuMemAllocHost((void **)&w.pinned_out, N * sizeof(float)));
    for (int i = 0; i < N; i++) w.pinned_in[i] = 1.0f;
    CUdeviceptr buf = 0, ones = 0;
    assert_ok(t->cuMemAlloc(&buf, N * sizeof(float)));
    assert_ok(t->cuMemAlloc(&ones, N * sizeof(float)));
    const float one = 1.0f;
    unsigned bits;
    memcpy(&bits, &one, sizeof bits);
    assert_ok(t->cuMemsetD32(ones, bits, N));
    gpu_settle();
    cushim_stream *s = NULL;
    assert_ok(cushim_stream_create(&s, ctx, CU_STREAM_NON_BLOCKING, 0));
    CUstream raw = cushim_stream_raw(s);
    assert_ok(t->cuMemcpyHtoDAsync(buf, w.pinned_in, N * sizeof(float), raw));
    launch_saxpy(s, 1.0f, ones, buf); /* 2 */
    assert_ok(t->cuMemcpyDtoHAsync(w.pinned_out, buf, N * sizeof(float), raw));
    assert_ok(cushim_stream_launch_host_func(s, see_first, &w));
    assert_ok(t->cuMemcpyHtoDAsync(buf, w.pinned_in, N * sizeof(float), raw)); /* 5, if after */
    launch_saxpy(s, 1.0f, ones, buf);                                          /* 6 */
    assert_ok(t->cuMemcpyDtoHAsync(w.pinned_out, buf, N * sizeof(float), raw));
    assert_ok(cushim_stream_launch_host_func(s, see_second, &w));
    assert_ok(cushim_stream_synchronize(s));
    print_message("host functions saw %g, then %g\n", (double)w.first, (double)w.second);
    assert_int_equal(w.n, 2);
    assert_int_equal(w.order[0], 1);
    assert_int_equal(w.order[1], 2);
    assert_true(w.first == 2.0f);
    assert_true(w.second == 6.0f);
    cushim_stream_release(s);
    assert_ok(t->cuMemFree(buf));
    assert_ok(t->cuMemFree(ones));
    assert_ok(t->cuMemFreeHost(w.pinned_in));
    assert_ok(t->cuMemFreeHost(w.pinned_out));
    assert_ok(t->cuCtxSetCurrent(NULL));
}

/* A synchronize of the capturing stream is illegal during a capture: it fails, the capture is
 * invalidated, its end says so without a graph, and the stream works afterwards. */
static void test_capture_broken_by_a_synchronize(void **state) {
    (void)state;
    cushim_stream *s = NULL;
    assert_ok(cushim_stream_create(&s, ctx, CU_STREAM_NON_BLOCKING, 0));
    replays = 0;
    assert_ok(cushim_stream_begin_capture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_ok(cushim_stream_launch_host_func(s, count_replay, NULL));
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, cushim_stream_synchronize(s));
    cushim_graph *g = NULL;
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, cushim_stream_end_capture(&g, s));
    assert_null(g);
    print_message("broken capture: %s\n", cushim_last_error());
    assert_ok(cushim_stream_launch_host_func(s, count_replay, NULL));
    assert_ok(cushim_stream_synchronize(s));
    assert_int_equal(replays, 1);
    cushim_stream_release(s);
}

/* Capture, instantiate, launch, update and release with no context current: cushim makes the
 * graph's context current where the driver needs one, and leaves none current. */
static void test_graph_calls_with_no_context_current(void **state) {
    (void)state;
    const cushim_driver_table *t = cushim_driver();
    assert_ok(t->cuCtxSetCurrent(NULL));
    cushim_stream *s = NULL;
    assert_ok(cushim_stream_create(&s, ctx, CU_STREAM_NON_BLOCKING, 0));
    replays = 0;
    cushim_graph *g = NULL, *g2 = NULL;
    cushim_graph_exec *x = NULL;
    for (int i = 0; i < 2; i++) {
        assert_ok(cushim_stream_begin_capture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
        assert_ok(cushim_stream_launch_host_func(s, count_replay, NULL));
        assert_ok(cushim_stream_end_capture(i ? &g2 : &g, s));
    }
    assert_ok(cushim_graph_instantiate(&x, g, 0));
    assert_ok(cushim_graph_exec_upload(x, s));
    assert_ok(cushim_graph_exec_launch(x, s));
    assert_ok(cushim_graph_exec_update(x, g2));
    assert_ok(cushim_graph_exec_launch(x, NULL));
    assert_ok(cushim_stream_synchronize(s));
    assert_ok(cushim_context_synchronize(ctx));
    assert_int_equal(replays, 2);
    cushim_graph_exec_release(x);
    cushim_graph_release(g);
    cushim_graph_release(g2);
    cushim_stream_release(s);
    CUcontext cur = (CUcontext)1;
    assert_ok(t->cuCtxGetCurrent(&cur));
    assert_null(cur);
}

int main(void) {
    gpu_require();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dozen_kernels_replayed_and_updated),
        cmocka_unit_test(test_host_functions_in_stream_order),
        cmocka_unit_test(test_capture_broken_by_a_synchronize),
        cmocka_unit_test(test_graph_calls_with_no_context_current),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
