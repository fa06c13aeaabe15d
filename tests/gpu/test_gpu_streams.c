/* Streams, events and contexts on a real GPU. Skips (77) where there is none. */
#include "gpu_util.h"

#define ELEMENTS 2048

static cushim_context *ctx;

static int setup(void **state) {
    (void)state;
    return cushim_context_primary(&ctx, 0) == CUDA_SUCCESS ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    cushim_context_release(ctx);
    return 0;
}

static void launch_double(CUfunction f, CUdeviceptr buf, cushim_stream *s) {
    unsigned n = ELEMENTS;
    void *params[] = {&buf, &n};
    assert_ok(cushim_driver()->cuLaunchKernel(f, 8, 1, 1, 128, 1, 1, 0, cushim_stream_raw(s),
                                              params, NULL));
}

/* The stream seed's test: A doubles its buffer, records an event; B doubles its own buffer,
 * waits for the event, then doubles A's buffer again. A ends x4, B x2. */
static void test_two_streams_ordered_by_an_event(void **state) {
    (void)state;
    const cushim_driver_table *t = cushim_driver();
    assert_ok(t->cuCtxSetCurrent(cushim_context_raw(ctx)));
    CUmodule m = NULL;
    CUfunction dbl = raw_kernel(&m, "double.ptx", "cushim_double");
    float host_a[ELEMENTS], host_b[ELEMENTS];
    for (int i = 0; i < ELEMENTS; i++) {
        host_a[i] = (float)i + 0.5f;
        host_b[i] = (float)(ELEMENTS - i) * 0.25f;
    }
    CUdeviceptr a = 0, b = 0;
    assert_ok(t->cuMemAlloc(&a, sizeof host_a));
    assert_ok(t->cuMemAlloc(&b, sizeof host_b));
    assert_ok(t->cuMemcpyHtoD(a, host_a, sizeof host_a));
    assert_ok(t->cuMemcpyHtoD(b, host_b, sizeof host_b));
    gpu_settle();
    cushim_stream *sa = NULL, *sb = NULL;
    cushim_event *done_a = NULL;
    assert_ok(cushim_stream_create(&sa, ctx, CU_STREAM_NON_BLOCKING, 0));
    assert_ok(cushim_stream_create(&sb, ctx, CU_STREAM_NON_BLOCKING, 0));
    assert_ok(cushim_event_create(&done_a, ctx, CU_EVENT_DISABLE_TIMING));
    launch_double(dbl, a, sa);
    assert_ok(cushim_event_record(done_a, sa));
    launch_double(dbl, b, sb);
    assert_ok(cushim_stream_wait_event(sb, done_a, 0));
    launch_double(dbl, a, sb);
    assert_ok(cushim_stream_synchronize(sb));
    assert_ok(cushim_stream_synchronize(sa));
    float out_a[ELEMENTS], out_b[ELEMENTS];
    assert_ok(t->cuMemcpyDtoH(out_a, a, sizeof out_a));
    assert_ok(t->cuMemcpyDtoH(out_b, b, sizeof out_b));
    for (int i = 0; i < ELEMENTS; i++) {
        if (out_a[i] != host_a[i] * 4.0f || out_b[i] != host_b[i] * 2.0f) {
            fail_msg("element %d: A %g (want %g), B %g (want %g)", i, out_a[i], host_a[i] * 4.0f,
                     out_b[i], host_b[i] * 2.0f);
        }
    }
    cushim_event_release(done_a);
    cushim_stream_release(sa);
    cushim_stream_release(sb);
    assert_ok(t->cuMemFree(a));
    assert_ok(t->cuMemFree(b));
    assert_ok(t->cuModuleUnload(m));
    assert_ok(t->cuCtxSetCurrent(NULL));
}

/* A kernel that spins about 50 ms: query says NOT_READY while it runs, SUCCESS after; the
 * events around it measure between 40 and 500 ms. */
static void test_query_and_timing_around_a_spinning_kernel(void **state) {
    (void)state;
    const cushim_driver_table *t = cushim_driver();
    assert_ok(t->cuCtxSetCurrent(cushim_context_raw(ctx)));
    CUmodule m = NULL;
    CUfunction spin = raw_kernel(&m, "spin.ptx", "cushim_spin");
    int khz = 0;
    if (t->cuDeviceGetAttribute(&khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, cushim_context_device(ctx)) !=
            CUDA_SUCCESS ||
        khz <= 0) {
        khz = 2000000;
    }
    unsigned long long cycles = (unsigned long long)khz * 50ull; /* 50 ms at the peak clock */
    cushim_stream *s = NULL;
    cushim_event *start = NULL, *end = NULL;
    assert_ok(cushim_stream_create(&s, ctx, CU_STREAM_NON_BLOCKING, 0));
    assert_ok(cushim_event_create(&start, ctx, CU_EVENT_DEFAULT));
    assert_ok(cushim_event_create(&end, ctx, CU_EVENT_DEFAULT));
    assert_ok(cushim_event_record(start, s));
    void *params[] = {&cycles};
    assert_ok(t->cuLaunchKernel(spin, 1, 1, 1, 32, 1, 1, 0, cushim_stream_raw(s), params, NULL));
    assert_ok(cushim_event_record(end, s));
    assert_cu(CUDA_ERROR_NOT_READY, cushim_stream_query(s));
    assert_cu(CUDA_ERROR_NOT_READY, cushim_event_query(end));
    assert_ok(cushim_stream_synchronize(s));
    assert_ok(cushim_stream_query(s));
    assert_ok(cushim_event_query(end));
    float ms = 0;
    assert_ok(cushim_event_elapsed_ms(&ms, start, end));
    print_message("spin kernel of %llu cycles: %.2f ms\n", cycles, (double)ms);
    assert_true(ms >= 40.0f && ms <= 500.0f);
    cushim_event_release(start);
    cushim_event_release(end);
    cushim_stream_release(s);
    assert_ok(t->cuModuleUnload(m));
    assert_ok(t->cuCtxSetCurrent(NULL));
}

static void test_primary_context_is_the_drivers(void **state) {
    (void)state;
    CUcontext raw = NULL;
    assert_ok(cushim_driver()->cuDevicePrimaryCtxRetain(&raw, cushim_context_device(ctx)));
    assert_ptr_equal(raw, cushim_context_raw(ctx));
    assert_ok(cushim_driver()->cuDevicePrimaryCtxRelease(cushim_context_device(ctx)));
}

static void test_priority_streams_at_both_ends(void **state) {
    (void)state;
    int least = 0, greatest = 0;
    assert_ok(cushim_context_stream_priority_range(&least, &greatest, ctx));
    print_message("stream priorities: least %d, greatest %d\n", least, greatest);
    assert_true(greatest <= least);
    cushim_stream *hi = NULL, *lo = NULL;
    assert_ok(cushim_stream_create(&hi, ctx, CU_STREAM_NON_BLOCKING, greatest));
    assert_ok(cushim_stream_create(&lo, ctx, CU_STREAM_NON_BLOCKING, least));
    int p = 1;
    assert_ok(cushim_driver()->cuStreamGetPriority(cushim_stream_raw(hi), &p));
    assert_int_equal(p, greatest);
    assert_ok(cushim_driver()->cuStreamGetPriority(cushim_stream_raw(lo), &p));
    assert_int_equal(p, least);
    cushim_stream *bad = NULL;
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_create(&bad, ctx, 0, greatest - 1));
    cushim_stream_release(hi);
    cushim_stream_release(lo);
}

/* A dedicated context and a stream on every device, work on each, and the context rule holds
 * across devices: the thread's current context is what it was throughout. */
static void test_every_device(void **state) {
    (void)state;
    const cushim_driver_table *t = cushim_driver();
    int n = 0;
    assert_ok(t->cuDeviceGetCount(&n));
    print_message("devices: %d\n", n);
    assert_ok(t->cuCtxSetCurrent(cushim_context_raw(ctx)));
    for (int d = 0; d < n; d++) {
        cushim_context *c = NULL;
        assert_ok(cushim_context_create(&c, d, 0));
        CUcontext cur = NULL;
        assert_ok(t->cuCtxGetCurrent(&cur));
        assert_ptr_equal(cur, cushim_context_raw(ctx));
        cushim_stream *s = NULL;
        assert_ok(cushim_stream_create(&s, c, CU_STREAM_NON_BLOCKING, 0));
        assert_ok(t->cuCtxGetCurrent(&cur));
        assert_ptr_equal(cur, cushim_context_raw(ctx));
        /* Work in c: load and launch with c current, then put ctx back. */
        assert_ok(t->cuCtxSetCurrent(cushim_context_raw(c)));
        CUmodule m = NULL;
        CUfunction dbl = raw_kernel(&m, "double.ptx", "cushim_double");
        float host[ELEMENTS];
        for (int i = 0; i < ELEMENTS; i++) host[i] = (float)(i + d);
        CUdeviceptr buf = 0;
        assert_ok(t->cuMemAlloc(&buf, sizeof host));
        assert_ok(t->cuMemcpyHtoD(buf, host, sizeof host));
        gpu_settle();
        launch_double(dbl, buf, s);
        assert_ok(t->cuCtxSetCurrent(cushim_context_raw(ctx)));
        assert_ok(cushim_stream_synchronize(s));
        float out[ELEMENTS];
        assert_ok(t->cuMemcpyDtoH(out, buf, sizeof out));
        for (int i = 0; i < ELEMENTS; i++) assert_true(out[i] == host[i] * 2.0f);
        assert_ok(t->cuMemFree(buf));
        assert_ok(t->cuModuleUnload(m));
        cushim_stream_release(s);
        assert_ok(t->cuCtxGetCurrent(&cur));
        assert_ptr_equal(cur, cushim_context_raw(ctx));
        cushim_context_release(c);
        assert_ok(t->cuCtxGetCurrent(&cur));
        assert_ptr_equal(cur, cushim_context_raw(ctx));
    }
    assert_ok(t->cuCtxSetCurrent(NULL));
}

int main(void) {
    gpu_require();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_streams_ordered_by_an_event),
        cmocka_unit_test(test_query_and_timing_around_a_spinning_kernel),
        cmocka_unit_test(test_primary_context_is_the_drivers),
        cmocka_unit_test(test_priority_streams_at_both_ends),
        cmocka_unit_test(test_every_device),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
