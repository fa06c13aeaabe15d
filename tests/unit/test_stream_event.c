/* Stream and event operations against the mock: query, wait, same queue, timing, priorities. */
#include "testutil.h"

static cushim_context *ctx;

static int setup(void **state) {
    if (mock_setup(state) != 0) return -1;
    return cushim_context_create(&ctx, 0, 0) == CUDA_SUCCESS ? 0 : -1;
}

static int teardown(void **state) {
    cushim_driver()->cuCtxSetCurrent(NULL);
    cushim_context_release(ctx);
    if (mock.live(CUSHIM_MOCK_CONTEXT) + mock.live(CUSHIM_MOCK_STREAM) +
            mock.live(CUSHIM_MOCK_EVENT) + mock.live(CUSHIM_MOCK_MODULE) !=
        0) {
        return -1;
    }
    return mock_teardown(state);
}

/* A launch on the raw table, so that the mock's stream has work and its clock moves. */
static void launch_on(cushim_stream *s) {
    const cushim_driver_table *t = cushim_driver();
    CUcontext prev = NULL;
    assert_ok(t->cuCtxGetCurrent(&prev));
    assert_ok(t->cuCtxSetCurrent(cushim_context_raw(ctx)));
    CUmodule m = NULL;
    CUfunction f = NULL;
    assert_ok(t->cuModuleLoadData(&m, ".visible .entry k()\n{\nret;\n}\n"));
    assert_ok(t->cuModuleGetFunction(&f, m, "k"));
    assert_ok(
        t->cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s ? cushim_stream_raw(s) : NULL, NULL, NULL));
    assert_ok(t->cuModuleUnload(m));
    assert_ok(t->cuCtxSetCurrent(prev));
}

static void test_query_not_ready_then_success(void **state) {
    (void)state;
    cushim_stream *s = NULL;
    cushim_event *e = NULL;
    assert_ok(cushim_stream_create(&s, ctx, CU_STREAM_NON_BLOCKING, 0));
    assert_ok(cushim_event_create(&e, ctx, 0));
    assert_ok(cushim_stream_query(s));
    launch_on(s);
    assert_ok(cushim_event_record(e, s));
    assert_cu(CUDA_ERROR_NOT_READY, cushim_stream_query(s));
    assert_cu(CUDA_ERROR_NOT_READY, cushim_event_query(e));
    assert_ok(cushim_event_synchronize(e));
    assert_ok(cushim_event_query(e));
    launch_on(s);
    assert_cu(CUDA_ERROR_NOT_READY, cushim_stream_query(s));
    assert_ok(cushim_stream_synchronize(s));
    assert_ok(cushim_stream_query(s));
    cushim_event_release(e);
    cushim_stream_release(s);
}

/* cushim.h: NOT_READY from the queries and from elapsed time sets no cushim_last_error(). */
static void test_not_ready_sets_no_error(void **state) {
    (void)state;
    cushim_stream *s = NULL;
    cushim_event *a = NULL, *b = NULL;
    assert_ok(cushim_stream_create(&s, ctx, CU_STREAM_NON_BLOCKING, 0));
    assert_ok(cushim_event_create(&a, ctx, 0));
    assert_ok(cushim_event_create(&b, ctx, 0));
    assert_ok(cushim_event_record(a, s));
    launch_on(s);
    assert_ok(cushim_event_record(b, s));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_query(NULL));
    char before[512];
    snprintf(before, sizeof before, "%s", cushim_last_error());
    assert_non_null(strstr(before, "cushim_stream_query"));
    float ms = -1.0f;
    assert_cu(CUDA_ERROR_NOT_READY, cushim_stream_query(s));
    assert_cu(CUDA_ERROR_NOT_READY, cushim_event_query(b));
    assert_cu(CUDA_ERROR_NOT_READY, cushim_event_elapsed_ms(&ms, a, b));
    assert_string_equal(cushim_last_error(), before);
    assert_ok(cushim_stream_synchronize(s));
    cushim_event_release(b);
    cushim_event_release(a);
    cushim_stream_release(s);
}

static void test_wait_event(void **state) {
    (void)state;
    cushim_stream *a = NULL, *b = NULL;
    cushim_event *e = NULL;
    assert_ok(cushim_stream_create(&a, ctx, 0, 0));
    assert_ok(cushim_stream_create(&b, ctx, 0, 0));
    assert_ok(cushim_event_create(&e, ctx, CU_EVENT_DISABLE_TIMING));
    assert_ok(cushim_event_record(e, a));
    assert_ok(cushim_stream_wait_event(b, e, 0));
    assert_int_equal(mock.calls("cuStreamWaitEvent"), 1);
    /* On the default stream of e's context, from a thread with no context current. */
    assert_ok(cushim_stream_wait_event(NULL, e, 0));
    assert_int_equal(mock.calls("cuStreamWaitEvent"), 2);
    assert_null(mock.current());
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_wait_event(b, NULL, 0));
    cushim_event_release(e);
    cushim_stream_release(a);
    cushim_stream_release(b);
}

static void test_same_queue(void **state) {
    (void)state;
    cushim_stream *a = NULL, *b = NULL;
    assert_ok(cushim_stream_create(&a, ctx, 0, 0));
    assert_ok(cushim_stream_create(&b, ctx, 0, 0));
    cushim_stream *a2 = cushim_stream_retain(a);
    assert_true(cushim_stream_same_queue(a, a2));
    assert_false(cushim_stream_same_queue(a, b));
    assert_false(cushim_stream_same_queue(a, NULL));
    cushim_stream_release(a2);
    cushim_stream_release(a);
    cushim_stream_release(b);
}

static void test_elapsed_time_from_the_mock_clock(void **state) {
    (void)state;
    cushim_stream *s = NULL;
    cushim_event *start = NULL, *end = NULL;
    assert_ok(cushim_stream_create(&s, ctx, 0, 0));
    assert_ok(cushim_event_create(&start, ctx, 0));
    assert_ok(cushim_event_create(&end, ctx, CU_EVENT_BLOCKING_SYNC));
    mock.set_launch_us(2500);
    assert_ok(cushim_event_record(start, s));
    launch_on(s);
    launch_on(s);
    assert_ok(cushim_event_record(end, s));
    float ms = -1;
    assert_cu(CUDA_ERROR_NOT_READY, cushim_event_elapsed_ms(&ms, start, end));
    assert_ok(cushim_event_synchronize(end));
    assert_ok(cushim_event_elapsed_ms(&ms, start, end));
    assert_float_equal(ms, 5.0f, 1e-4f);
    cushim_event_release(start);
    cushim_event_release(end);
    cushim_stream_release(s);
}

static void test_timing_disabled_event_is_refused_with_a_sentence(void **state) {
    (void)state;
    cushim_event *a = NULL, *b = NULL;
    assert_ok(cushim_event_create(&a, ctx, 0));
    assert_ok(cushim_event_create(&b, ctx, CU_EVENT_DISABLE_TIMING));
    assert_ok(cushim_event_record(a, NULL));
    assert_ok(cushim_event_record(b, NULL));
    assert_ok(cushim_context_synchronize(ctx));
    float ms = 0;
    int before = mock.calls("cuEventElapsedTime");
    assert_cu(CUDA_ERROR_INVALID_HANDLE, cushim_event_elapsed_ms(&ms, a, b));
    assert_non_null(strstr(cushim_last_error(), "CU_EVENT_DISABLE_TIMING"));
    assert_non_null(strstr(cushim_last_error(), "end"));
    assert_int_equal(mock.calls("cuEventElapsedTime"), before);
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_event_elapsed_ms(NULL, a, a));
    cushim_event_release(a);
    cushim_event_release(b);
}

static void test_event_and_stream_of_other_contexts(void **state) {
    (void)state;
    cushim_context *other = NULL;
    assert_ok(cushim_context_create(&other, 0, 0));
    cushim_stream *s = NULL;
    cushim_event *e = NULL;
    assert_ok(cushim_stream_create(&s, other, 0, 0));
    assert_ok(cushim_event_create(&e, ctx, 0));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, cushim_event_record(e, s));
    assert_non_null(strstr(cushim_last_error(), "own context"));
    assert_int_equal(mock.calls("cuEventRecord"), 0);
    cushim_stream_release(s);
    cushim_event_release(e);
    cushim_context_release(other);
}

static void test_priorities(void **state) {
    (void)state;
    int least = 0, greatest = 0;
    assert_ok(cushim_context_stream_priority_range(&least, &greatest, ctx));
    assert_true(greatest < least);
    cushim_stream *hi = NULL, *lo = NULL, *bad = (cushim_stream *)&bad;
    assert_ok(cushim_stream_create(&hi, ctx, 0, greatest));
    assert_ok(cushim_stream_create(&lo, ctx, 0, least));
    int creates = mock.calls("cuStreamCreateWithPriority");
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_create(&bad, ctx, 0, greatest - 1));
    assert_null(bad);
    assert_non_null(strstr(cushim_last_error(), "outside"));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_create(&bad, ctx, 0, least + 1));
    assert_int_equal(mock.calls("cuStreamCreateWithPriority"), creates);
    int p = 0;
    assert_ok(cushim_driver()->cuStreamGetPriority(cushim_stream_raw(hi), &p));
    assert_int_equal(p, greatest);
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_context_stream_priority_range(NULL, NULL, ctx));
    cushim_stream_release(hi);
    cushim_stream_release(lo);
}

static void test_device_synchronize_needs_a_current_context(void **state) {
    (void)state;
    assert_null(mock.current());
    assert_cu(CUDA_ERROR_INVALID_CONTEXT, cushim_device_synchronize());
    assert_non_null(strstr(cushim_last_error(), "no context is current"));
    assert_ok(cushim_driver()->cuCtxSetCurrent(cushim_context_raw(ctx)));
    assert_ok(cushim_device_synchronize());
}

static void host_nothing(void *user) { (void)user; }

/* cushim.h, "A NULL stream": NULL is a context's default stream where another argument gives the
 * context, and CUDA_ERROR_INVALID_VALUE, with what to call instead, where none does. */
static void test_null_stream_rule(void **state) {
    (void)state;
    cushim_event *e = NULL;
    assert_ok(cushim_event_create(&e, ctx, 0));
    launch_on(NULL);
    assert_ok(cushim_event_record(e, NULL));
    assert_ok(cushim_stream_wait_event(NULL, e, 0));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_synchronize(NULL));
    assert_non_null(strstr(cushim_last_error(), "names a default stream only beside an object"));
    assert_non_null(strstr(cushim_last_error(), "cushim_context_synchronize(ctx)"));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_query(NULL));
    assert_non_null(strstr(cushim_last_error(), "cushim_event_record(e, NULL)"));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_launch_host_func(NULL, host_nothing, NULL));
    assert_non_null(strstr(cushim_last_error(), "a host function needs a stream"));
    /* What the sentences advise works: the default stream's work is waited for. */
    assert_cu(CUDA_ERROR_NOT_READY, cushim_event_query(e));
    assert_ok(cushim_context_synchronize(ctx));
    assert_ok(cushim_event_query(e));
    cushim_event_release(e);
}

/* The README's migration table: cudaDeviceSynchronize() is cushim_context_synchronize(ctx), which
 * needs no context current, right after cushim_context_primary (which makes none current). */
static void test_migration_device_synchronize(void **state) {
    (void)state;
    cushim_context *primary = NULL;
    assert_ok(cushim_context_primary(&primary, 0));
    assert_null(mock.current());
    assert_ok(cushim_context_synchronize(primary));
    assert_null(mock.current());
    cushim_context_release(primary);
}

/* The README's "When a call fails": a failed create writes NULL to its out-parameter, so a
 * replacement goes through a variable of its own (the marked lines are the README's). */
static void test_failed_create_writes_null(void **state) {
    (void)state;
    /* README: begin */
    cushim_stream *s = NULL, *t = NULL;
    cushim_stream_create(&s, ctx, CU_STREAM_NON_BLOCKING, 0); /* s: a live stream */
    /* Replacing s: create into a variable of its own, and replace s only on success. */
    if (cushim_stream_create(&t, ctx, 0x80, 0) == CUDA_SUCCESS) { /* 0x80: not a stream flag */
        cushim_stream_release(s);
        s = t;
    } else {
        fprintf(stderr, "%s\n", cushim_last_error()); /* t is NULL; s is still the live stream */
    }
    /* Not cushim_stream_create(&s, ...): failing, it would set s to NULL, losing the stream. */
    /* README: end */
    assert_null(t);
    assert_non_null(s);
    assert_ok(cushim_stream_query(s));
    /* What the README warns of. */
    cushim_stream *live = s;
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_create(&s, ctx, 0x80, 0));
    assert_null(s);
    cushim_stream_release(live);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_query_not_ready_then_success, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wait_event, setup, teardown),
        cmocka_unit_test_setup_teardown(test_same_queue, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_ready_sets_no_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_elapsed_time_from_the_mock_clock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timing_disabled_event_is_refused_with_a_sentence,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_event_and_stream_of_other_contexts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_priorities, setup, teardown),
        cmocka_unit_test_setup_teardown(test_device_synchronize_needs_a_current_context, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_null_stream_rule, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_create_writes_null, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migration_device_synchronize, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
