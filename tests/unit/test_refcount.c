/* Refcounts: the last release destroys exactly once; a context outlives its streams and events;
 * a refused destroy is logged and our memory still freed; bad handles are errors. */
#include "testutil.h"

static cushim_context *ctx;

static int setup(void **state) {
    if (mock_setup(state) != 0) return -1;
    if (cushim_context_create(&ctx, 0, 0) != CUDA_SUCCESS) return -1;
    /* These tests count the driver's destroys; recycling would keep the objects instead
     * (test_recycle.c tests that). */
    return cushim_context_set_recycling(ctx, false, false) == CUDA_SUCCESS ? 0 : -1;
}

static int teardown(void **state) {
    cushim_context_release(ctx);
    if (mock.live(CUSHIM_MOCK_CONTEXT) != 0) return -1;
    return mock_teardown(state);
}

#define RETAINS 7

static void test_n_retains_n_plus_1_releases_destroy_once(void **state) {
    (void)state;
    cushim_stream *s = NULL;
    cushim_event *e = NULL;
    assert_ok(cushim_stream_create(&s, ctx, 0, 0));
    assert_ok(cushim_event_create(&e, ctx, 0));
    for (int i = 0; i < RETAINS; i++) {
        assert_ptr_equal(cushim_stream_retain(s), s);
        assert_ptr_equal(cushim_event_retain(e), e);
    }
    for (int i = 0; i < RETAINS; i++) {
        cushim_stream_release(s);
        cushim_event_release(e);
    }
    assert_int_equal(mock.calls("cuStreamDestroy"), 0);
    assert_int_equal(mock.calls("cuEventDestroy"), 0);
    assert_int_equal(mock.live(CUSHIM_MOCK_STREAM), 1);
    cushim_stream_release(s);
    cushim_event_release(e);
    assert_int_equal(mock.calls("cuStreamDestroy"), 1);
    assert_int_equal(mock.calls("cuEventDestroy"), 1);
    assert_int_equal(mock.live(CUSHIM_MOCK_STREAM), 0);
    assert_int_equal(mock.live(CUSHIM_MOCK_EVENT), 0);
}

static int log_index(const char *name) {
    for (int i = 0; mock.call_name(i) != NULL; i++) {
        if (strcmp(mock.call_name(i), name) == 0) return i;
    }
    return -1;
}

static void test_context_outlives_its_stream_and_event(void **state) {
    (void)state;
    cushim_context *c = NULL;
    assert_ok(cushim_context_create(&c, 0, 0));
    cushim_stream *s = NULL;
    cushim_event *e = NULL;
    assert_ok(cushim_stream_create(&s, c, 0, 0));
    assert_ok(cushim_event_create(&e, c, 0));
    cushim_context_release(c); /* the caller's reference: s and e still hold theirs */
    assert_int_equal(mock.calls("cuCtxDestroy"), 0);
    assert_int_equal(mock.live(CUSHIM_MOCK_CONTEXT), 2);
    assert_ptr_equal(cushim_stream_context(s), c);
    cushim_stream_release(s);
    assert_int_equal(mock.calls("cuCtxDestroy"), 0);
    cushim_event_release(e);
    assert_int_equal(mock.calls("cuCtxDestroy"), 1);
    assert_int_equal(mock.live(CUSHIM_MOCK_CONTEXT), 1);
    int ctx_at = log_index("cuCtxDestroy");
    assert_true(log_index("cuStreamDestroy") < ctx_at);
    assert_true(log_index("cuEventDestroy") < ctx_at);
}

static void test_refused_destroy_is_logged_and_freed(void **state) {
    (void)state;
    cushim_stream *s = NULL;
    assert_ok(cushim_stream_create(&s, ctx, 0, 0));
    memset(&captured, 0, sizeof captured);
    mock.fail_call("cuStreamDestroy", 1, CUDA_ERROR_INVALID_HANDLE);
    cushim_stream_release(s);
    assert_int_equal(captured.count[CUSHIM_LOG_WARN], 1);
    assert_non_null(strstr(captured.text, "CUDA_ERROR_INVALID_HANDLE"));
    assert_non_null(strstr(captured.text, "stream"));
    /* The library keeps working. */
    assert_ok(cushim_stream_create(&s, ctx, 0, 0));
    cushim_stream_release(s);
}

static void test_primary_context_retained_and_released(void **state) {
    (void)state;
    cushim_context *a = NULL, *b = NULL;
    assert_ok(cushim_context_primary(&a, 0));
    assert_ok(cushim_context_primary(&b, 0));
    assert_ptr_equal(cushim_context_raw(a), cushim_context_raw(b));
    assert_int_equal(mock.primary_refcount(0), 2);
    assert_true(mock.is_primary(cushim_context_raw(a)));
    assert_int_equal(cushim_context_device(a), 0);
    cushim_context_release(a);
    assert_int_equal(mock.primary_refcount(0), 1);
    cushim_context_release(b);
    assert_int_equal(mock.primary_refcount(0), 0);
    assert_int_equal(mock.calls("cuDevicePrimaryCtxRelease"), 2);
}

static void test_bad_handles_are_errors(void **state) {
    (void)state;
    cushim_stream *s = NULL;
    cushim_event *e = NULL;
    assert_ok(cushim_stream_create(&s, ctx, 0, 0));
    assert_ok(cushim_event_create(&e, ctx, 0));
    /* NULL handles and out-pointers. */
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_create(NULL, ctx, 0, 0));
    cushim_stream *o = (cushim_stream *)&o;
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_create(&o, NULL, 0, 0));
    assert_null(o);
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_query(NULL));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_event_record(NULL, s));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_context_synchronize(NULL));
    assert_null(cushim_stream_retain(NULL));
    cushim_stream_release(NULL);
    /* Handles of the wrong kind. */
    assert_cu(CUDA_ERROR_INVALID_HANDLE, cushim_stream_query((cushim_stream *)e));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, cushim_event_query((cushim_event *)s));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, cushim_stream_create(&o, (cushim_context *)s, 0, 0));
    assert_null(o);
    assert_non_null(strstr(cushim_last_error(), "not a context"));
    assert_null(cushim_stream_retain((cushim_stream *)e));
    cushim_stream_release((cushim_stream *)e); /* refused with a warning, e unharmed */
    assert_ok(cushim_event_query(e));
    assert_null(cushim_stream_raw((cushim_stream *)e));
    assert_null(cushim_context_raw((cushim_context *)s));
    /* Bad flags. */
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_create(&o, ctx, 0x80, 0));
    cushim_event *eo = NULL;
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_event_create(&eo, ctx, 0x100));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_event_create(&eo, ctx, CU_EVENT_INTERPROCESS));
    assert_null(eo);
    assert_int_equal(mock.live(CUSHIM_MOCK_STREAM), 1);
    assert_int_equal(mock.live(CUSHIM_MOCK_EVENT), 1);
    cushim_stream_release(s);
    cushim_event_release(e);
}

/* cushim.h: the accessors answer NULL / CU_DEVICE_INVALID / false for a bad handle and set no
 * error, and a success does not clear the last failure's sentence. */
static void test_accessors_and_successes_leave_the_last_error(void **state) {
    (void)state;
    cushim_stream *s = NULL;
    assert_ok(cushim_stream_create(&s, ctx, 0, 0));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_context_synchronize(NULL));
    char before[256];
    snprintf(before, sizeof before, "%s", cushim_last_error());
    assert_non_null(strstr(before, "cushim_context_synchronize"));
    void *wrong = s; /* a stream, passed where other kinds are expected */
    assert_null(cushim_context_raw(NULL));
    assert_null(cushim_context_raw(wrong));
    assert_int_equal(cushim_context_device(NULL), CU_DEVICE_INVALID);
    assert_int_equal(cushim_context_device(wrong), CU_DEVICE_INVALID);
    assert_null(cushim_stream_context(NULL));
    assert_null(cushim_event_context(wrong));
    assert_null(cushim_event_raw(wrong));
    assert_null(cushim_function_raw(wrong));
    assert_false(cushim_stream_same_queue(s, NULL));
    assert_string_equal(cushim_last_error(), before);
    assert_ok(cushim_context_synchronize(ctx));
    assert_ok(cushim_stream_synchronize(s));
    assert_string_equal(cushim_last_error(), before);
    /* The context from cushim_stream_context is borrowed: no reference is added. */
    cushim_context *borrowed = cushim_stream_context(s);
    assert_ptr_equal(borrowed, ctx);
    cushim_stream_release(s);
    assert_int_equal(mock.live(CUSHIM_MOCK_STREAM), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_n_retains_n_plus_1_releases_destroy_once, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_context_outlives_its_stream_and_event, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_refused_destroy_is_logged_and_freed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_primary_context_retained_and_released, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_bad_handles_are_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_accessors_and_successes_leave_the_last_error, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
