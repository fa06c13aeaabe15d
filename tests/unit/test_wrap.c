/* Borrowed objects on the mock: streams, events and contexts that "another library" (the raw
 * table here) made, wrapped, used through cushim everywhere a cushim object goes, and released
 * without the driver's objects being destroyed: the mock's live counts do not move. */
#include "graph_util.h"

/* A raw stream and event made in c through the raw table, as the CUDA runtime would make them;
 * `other` is current again afterwards. */
static CUstream raw_stream_in(cushim_context *c) {
    CUstream raw = NULL;
    assert_ok(t->cuCtxSetCurrent(cushim_context_raw(c)));
    assert_ok(t->cuStreamCreate(&raw, CU_STREAM_NON_BLOCKING));
    assert_ok(t->cuCtxSetCurrent(cushim_context_raw(other)));
    return raw;
}

static CUevent raw_event_in(cushim_context *c, unsigned flags) {
    CUevent raw = NULL;
    assert_ok(t->cuCtxSetCurrent(cushim_context_raw(c)));
    assert_ok(t->cuEventCreate(&raw, flags));
    assert_ok(t->cuCtxSetCurrent(cushim_context_raw(other)));
    return raw;
}

static void test_stream_wrap_borrows(void **state) {
    (void)state;
    CUstream raw = raw_stream_in(ctx);
    int streams = mock.live(CUSHIM_MOCK_STREAM);
    cushim_stream *w = NULL;
    assert_ok(cushim_stream_wrap(&w, ctx, raw));
    ASSERT_OTHER_CURRENT();
    assert_ptr_equal(cushim_stream_raw(w), raw);
    assert_ptr_equal(cushim_stream_context(w), ctx);
    assert_false(cushim_stream_same_queue(w, s));

    /* Everywhere a stream goes: launches, host functions, records, waits, captures, graphs. */
    cushim_event *e = NULL;
    assert_ok(cushim_event_create(&e, ctx, 0));
    assert_ok(launch_bump(w, 1));
    assert_ok(cushim_stream_launch_host_func(w, host_note, (void *)2));
    assert_ok(cushim_event_record(e, w));
    assert_ok(cushim_stream_wait_event(s, e, 0));
    assert_ok(cushim_stream_begin_capture(w, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_ok(launch_bump(w, 3));
    cushim_graph *g = NULL;
    assert_ok(cushim_stream_end_capture(&g, w));
    cushim_graph_exec *x = NULL;
    assert_ok(cushim_graph_instantiate(&x, g, 0));
    assert_ok(cushim_graph_exec_launch(x, w));
    assert_ok(cushim_stream_synchronize(w));
    assert_ok(cushim_stream_query(w));
    ASSERT_ORDER(1, 2, 3);
    assert_int_equal(buf_ints()[0], 13);
    cushim_graph_exec_release(x);
    cushim_graph_release(g);
    cushim_event_release(e);

    /* Retained twice, released twice: the driver's stream outlives both. */
    assert_ptr_equal(cushim_stream_retain(w), w);
    cushim_stream_release(w);
    cushim_stream_release(w);
    ASSERT_OTHER_CURRENT();
    assert_int_equal(mock.live(CUSHIM_MOCK_STREAM), streams);
    assert_ok(t->cuStreamQuery(raw));
    assert_ok(t->cuStreamDestroy(raw));
    assert_int_equal(mock.live(CUSHIM_MOCK_STREAM), streams - 1);
}

static void test_stream_wrap_checks(void **state) {
    (void)state;
    cushim_stream *w = (cushim_stream *)(uintptr_t)1;
    int asked = mock.calls("cuStreamGetCtx");
    const CUstream defaults[] = {NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD};
    for (int i = 0; i < 3; i++) {
        assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_wrap(&w, ctx, defaults[i]));
        assert_null(w);
        ASSERT_SAID("is a default stream");
    }
    assert_int_equal(mock.calls("cuStreamGetCtx"), asked);
    /* A stream of another context. */
    CUstream raw = raw_stream_in(other);
    assert_cu(CUDA_ERROR_INVALID_CONTEXT, cushim_stream_wrap(&w, ctx, raw));
    ASSERT_SAID("belongs to context");
    assert_null(w);
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_wrap(NULL, ctx, raw));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_wrap(&w, NULL, raw));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, cushim_stream_wrap(&w, (cushim_context *)(void *)s, raw));
    /* The driver's refusal passes through. */
    mock.fail_once("cuStreamGetCtx", CUDA_ERROR_INVALID_HANDLE);
    assert_cu(CUDA_ERROR_INVALID_HANDLE, cushim_stream_wrap(&w, other, raw));
    ASSERT_SAID("cuStreamGetCtx");
    assert_ok(cushim_stream_wrap(&w, other, raw));
    cushim_stream_release(w);
    assert_ok(t->cuStreamDestroy(raw));
}

static void test_event_wrap_borrows(void **state) {
    (void)state;
    CUevent a = raw_event_in(ctx, CU_EVENT_DEFAULT), b = raw_event_in(ctx, CU_EVENT_DEFAULT);
    CUevent untimed = raw_event_in(ctx, CU_EVENT_DISABLE_TIMING);
    int events = mock.live(CUSHIM_MOCK_EVENT);
    cushim_event *wa = NULL, *wb = NULL, *wu = NULL;
    assert_ok(cushim_event_wrap(&wa, ctx, a));
    assert_ok(cushim_event_wrap(&wb, ctx, b));
    assert_ok(cushim_event_wrap(&wu, ctx, untimed));
    ASSERT_OTHER_CURRENT();
    assert_ptr_equal(cushim_event_raw(wa), a);
    assert_ptr_equal(cushim_event_context(wa), ctx);

    assert_ok(cushim_event_record(wa, s));
    assert_ok(launch_bump(s, 1));
    assert_ok(cushim_event_record(wb, s));
    assert_ok(cushim_event_record(wu, NULL));
    assert_ok(cushim_event_synchronize(wb));
    assert_ok(cushim_event_query(wb));
    float ms = 0;
    assert_ok(cushim_event_elapsed_ms(&ms, wa, wb));
    assert_true(ms > 0.0f);
    /* Its flags are the driver's to know: the refusal of a timing-disabled event is its own. */
    assert_cu(CUDA_ERROR_INVALID_HANDLE, cushim_event_elapsed_ms(&ms, wa, wu));
    ASSERT_SAID("cushim_event_elapsed_ms: CUDA_ERROR_INVALID_HANDLE");

    cushim_event_release(wa);
    cushim_event_release(wb);
    cushim_event_release(wu);
    assert_int_equal(mock.live(CUSHIM_MOCK_EVENT), events);
    assert_ok(t->cuEventQuery(a));
    assert_ok(t->cuEventDestroy(a));
    assert_ok(t->cuEventDestroy(b));
    assert_ok(t->cuEventDestroy(untimed));

    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_event_wrap(&wa, ctx, NULL));
    assert_null(wa);
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_event_wrap(NULL, ctx, a));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_event_wrap(&wa, NULL, a));
}

static void test_event_wrap_query_refused(void **state) {
    (void)state;
    CUevent raw = raw_event_in(ctx, 0);
    cushim_event *w = NULL;
    mock.fail_once("cuEventQuery", CUDA_ERROR_INVALID_HANDLE);
    assert_cu(CUDA_ERROR_INVALID_HANDLE, cushim_event_wrap(&w, ctx, raw));
    assert_null(w);
    ASSERT_SAID("cuEventQuery of event");
    /* Pending work is no reason to refuse. */
    assert_ok(launch_bump(s, 1));
    assert_ok(t->cuEventRecord(raw, cushim_stream_raw(s)));
    assert_cu(CUDA_ERROR_NOT_READY, t->cuEventQuery(raw));
    assert_ok(cushim_event_wrap(&w, ctx, raw));
    cushim_event_release(w);
    assert_ok(cushim_stream_synchronize(s));
    assert_ok(t->cuEventDestroy(raw));
}

static void test_context_wrap_borrows(void **state) {
    (void)state;
    CUcontext raw = NULL;
    CUdevice dev = 0;
    assert_ok(t->cuDeviceGet(&dev, 0));
    assert_ok(t->cuCtxCreate(&raw, NULL, 0, dev));
    CUcontext popped = NULL;
    assert_ok(t->cuCtxPopCurrent(&popped));
    assert_ptr_equal(popped, raw);
    int contexts = mock.live(CUSHIM_MOCK_CONTEXT);

    cushim_context *w = NULL;
    assert_ok(cushim_context_wrap(&w, raw));
    ASSERT_OTHER_CURRENT();
    assert_ptr_equal(cushim_context_raw(w), raw);
    assert_int_equal(cushim_context_device(w), dev);
    /* What is made in it is made in the wrapped context, and released with it current. */
    cushim_stream *ws = NULL;
    cushim_module *wm = NULL;
    cushim_function *wf = NULL;
    assert_ok(cushim_stream_create(&ws, w, 0, 0));
    assert_ptr_equal(mock.stream_context(cushim_stream_raw(ws)), raw);
    assert_ok(cushim_module_load_data(&wm, w, bump_ptx));
    assert_ok(cushim_module_function(&wf, wm, "bump"));
    int target = 0;
    unsigned tag = 4;
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)&target;
    void *params[] = {&p, &tag};
    cushim_launch_config cfg = {.grid = CUSHIM_DIM3(1), .block = CUSHIM_DIM3(32), .stream = ws};
    assert_ok(cushim_launch(wf, &cfg, params));
    assert_ok(cushim_stream_launch_host_func(ws, host_note, (void *)5));
    assert_ok(cushim_context_synchronize(w));
    ASSERT_ORDER(4, 5);
    assert_int_equal(target, 4);
    assert_ptr_equal(mock.launch(0)->stream, cushim_stream_raw(ws));
    cushim_module_release(wm);
    cushim_stream_release(ws);
    ASSERT_OTHER_CURRENT();
    cushim_context_release(w);
    assert_int_equal(mock.live(CUSHIM_MOCK_CONTEXT), contexts);

    /* raw NULL: the thread's current context; none current is refused. */
    assert_ok(cushim_context_wrap(&w, NULL));
    assert_ptr_equal(cushim_context_raw(w), cushim_context_raw(other));
    cushim_context_release(w);
    assert_ok(t->cuCtxSetCurrent(NULL));
    assert_cu(CUDA_ERROR_INVALID_CONTEXT, cushim_context_wrap(&w, NULL));
    assert_null(w);
    ASSERT_SAID("no context is current");
    assert_ok(t->cuCtxSetCurrent(cushim_context_raw(other)));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_context_wrap(NULL, raw));

    /* A wrapped context keeps cushim_testing_reinit from forgetting the driver under it. */
    assert_ok(cushim_context_wrap(&w, raw));
    assert_cu(CUDA_ERROR_ILLEGAL_STATE, cushim_testing_reinit());
    cushim_context_release(w);

    assert_ok(t->cuCtxDestroy(raw));
    assert_int_equal(mock.live(CUSHIM_MOCK_CONTEXT), contexts - 1);
}

/* A wrapped primary context is not released to the driver by cushim. */
static void test_context_wrap_of_a_primary_context(void **state) {
    (void)state;
    CUcontext raw = NULL;
    assert_ok(t->cuDevicePrimaryCtxRetain(&raw, 0));
    assert_int_equal(mock.primary_refcount(0), 1);
    cushim_context *w = NULL;
    assert_ok(cushim_context_wrap(&w, raw));
    cushim_stream *ws = NULL;
    assert_ok(cushim_stream_create(&ws, w, 0, 0));
    cushim_stream_release(ws);
    cushim_context_release(w);
    assert_int_equal(mock.primary_refcount(0), 1);
    assert_ok(t->cuDevicePrimaryCtxRelease(0));
    assert_int_equal(mock.primary_refcount(0), 0);
}

/* The wrapped context's ordinal is found, so that what cushim reads per device (the SM count
 * behind the cooperative grid) is the right device's. */
static int coop_grid_in(cushim_context *c) {
    cushim_module *cm = NULL;
    cushim_function *cf = NULL;
    int grid = 0;
    assert_ok(cushim_module_load_data(&cm, c, bump_ptx));
    assert_ok(cushim_module_function(&cf, cm, "bump"));
    assert_ok(cushim_occupancy_max_cooperative_grid(&grid, cf, 32, 0));
    cushim_module_release(cm);
    return grid;
}

static void test_context_wrap_on_the_second_device(void **state) {
    (void)state;
    assert_true(mock.set_devices("h200,ada"));
    CUdevice dev = 0;
    CUcontext raw = NULL, popped = NULL;
    assert_ok(t->cuDeviceGet(&dev, 1));
    assert_ok(t->cuCtxCreate(&raw, NULL, 0, dev));
    assert_ok(t->cuCtxPopCurrent(&popped));
    cushim_context *w = NULL, *second = NULL;
    assert_ok(cushim_context_wrap(&w, raw));
    assert_int_equal(cushim_context_device(w), dev);
    assert_ok(cushim_context_create(&second, 1, 0));
    int wrapped_grid = coop_grid_in(w), second_grid = coop_grid_in(second);
    int first_grid = coop_grid_in(ctx);
    assert_int_equal(wrapped_grid, second_grid);
    assert_int_not_equal(wrapped_grid, first_grid);
    cushim_context_release(second);
    cushim_context_release(w);
    assert_ok(t->cuCtxDestroy(raw));
}

int main(void) {
#define T(fn) cmocka_unit_test_setup_teardown(fn, graph_setup, graph_teardown)
    const struct CMUnitTest tests[] = {
        T(test_stream_wrap_borrows),
        T(test_stream_wrap_checks),
        T(test_event_wrap_borrows),
        T(test_event_wrap_query_refused),
        T(test_context_wrap_borrows),
        T(test_context_wrap_of_a_primary_context),
        T(test_context_wrap_on_the_second_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
