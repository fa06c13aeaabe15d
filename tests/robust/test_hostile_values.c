/* Hostile values: flags, priorities and ordinals out of range, objects that do not belong
 * together, and the loader's and error text's functions given anything. */
#include "hostile.h"

/* ------------------------------------------------------------------------------------------ */
/* Flags, priorities, ordinals, pairs of objects that do not belong together                  */
/* ------------------------------------------------------------------------------------------ */

static void test_unknown_flags_and_priorities_out_of_range(void **state) {
    (void)state;
    failures = cases = 0;
    static const unsigned stream_flags[] = {0x2, 0x4, 0x80000000u, UINT_MAX};
    for (size_t i = 0; i < sizeof stream_flags / sizeof stream_flags[0]; i++) {
        char label[64];
        snprintf(label, sizeof label, "stream flags 0x%x", stream_flags[i]);
        cushim_stream *s = SENTINEL;
        snapshot before = start();
        check_refusal(label, "cushim_stream_create", CUDA_ERROR_INVALID_VALUE,
                      cushim_stream_create(&s, fx.ctx, stream_flags[i], 0), &before, BEFORE_DRIVER);
        if (s != NULL) FAILED(label, "the out-pointer is not NULL");
    }
    static const unsigned event_flags[] = {0x10, 0x80000000u, UINT_MAX, CU_EVENT_INTERPROCESS,
                                           CU_EVENT_INTERPROCESS | CU_EVENT_BLOCKING_SYNC};
    for (size_t i = 0; i < sizeof event_flags / sizeof event_flags[0]; i++) {
        char label[64];
        snprintf(label, sizeof label, "event flags 0x%x", event_flags[i]);
        cushim_event *e = SENTINEL;
        snapshot before = start();
        check_refusal(label, "cushim_event_create", CUDA_ERROR_INVALID_VALUE,
                      cushim_event_create(&e, fx.ctx, event_flags[i]), &before, BEFORE_DRIVER);
        if (e != NULL) FAILED(label, "the out-pointer is not NULL");
    }
    int least = 0, greatest = 0;
    assert_ok(cushim_context_stream_priority_range(&least, &greatest, fx.ctx));
    const int priorities[] = {INT_MIN, INT_MAX, greatest - 1, least + 1};
    for (size_t i = 0; i < sizeof priorities / sizeof priorities[0]; i++) {
        char label[64];
        snprintf(label, sizeof label, "stream priority %d", priorities[i]);
        cushim_stream *s = SENTINEL;
        int creates = mock.calls("cuStreamCreateWithPriority");
        snapshot before = start();
        /* The range is the driver's, so it is asked; the stream is not made. */
        check_refusal(label, "cushim_stream_create", CUDA_ERROR_INVALID_VALUE,
                      cushim_stream_create(&s, fx.ctx, 0, priorities[i]), &before, BY_DRIVER);
        if (s != NULL) FAILED(label, "the out-pointer is not NULL");
        if (mock.calls("cuStreamCreateWithPriority") != creates) FAILED(label, "created");
        if (strstr(cushim_last_error(), "priority") == NULL) FAILED(label, "no word of priority");
    }
    /* The driver judges context and wait flags; its refusal comes back with a sentence. */
    static const unsigned ctx_flags[] = {0x80000000u, UINT_MAX};
    for (size_t i = 0; i < sizeof ctx_flags / sizeof ctx_flags[0]; i++) {
        char label[64];
        snprintf(label, sizeof label, "context flags 0x%x", ctx_flags[i]);
        cushim_context *c = SENTINEL;
        snapshot before = start();
        check_refusal(label, "cushim_context_create", CUDA_ERROR_INVALID_VALUE,
                      cushim_context_create(&c, 0, ctx_flags[i]), &before, BY_DRIVER);
        if (c != NULL) FAILED(label, "the out-pointer is not NULL");
    }
    snapshot before = start();
    check_refusal("wait flags UINT_MAX", "cushim_stream_wait_event", CUDA_ERROR_INVALID_VALUE,
                  cushim_stream_wait_event(fx.stream, fx.event, UINT_MAX), &before, BY_DRIVER);
    before = start();
    check_refusal("wait flags UINT_MAX on the default stream", "cushim_stream_wait_event",
                  CUDA_ERROR_INVALID_VALUE, cushim_stream_wait_event(NULL, fx.event, UINT_MAX),
                  &before, BY_DRIVER);
    assert_int_equal(failures, 0);
}

static void test_ordinals_out_of_range(void **state) {
    (void)state;
    failures = cases = 0;
    static const int ordinals[] = {-1, 1, 16, 256, 1 << 30, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof ordinals / sizeof ordinals[0]; i++) {
        char label[64];
        snprintf(label, sizeof label, "ordinal %d", ordinals[i]);
        cushim_context *c = SENTINEL;
        snapshot before = start();
        check_refusal(label, "cushim_context_primary", CUDA_ERROR_INVALID_DEVICE,
                      cushim_context_primary(&c, ordinals[i]), &before, BY_DRIVER);
        if (c != NULL) FAILED(label, "the out-pointer is not NULL");
        c = SENTINEL;
        before = start();
        check_refusal(label, "cushim_context_create", CUDA_ERROR_INVALID_DEVICE,
                      cushim_context_create(&c, ordinals[i], 0), &before, BY_DRIVER);
        if (c != NULL) FAILED(label, "the out-pointer is not NULL");
        if (strstr(cushim_last_error(), "device") == NULL) FAILED(label, "no word of device");
    }
    assert_int_equal(mock.primary_refcount(0), 1);
    assert_int_equal(failures, 0);
}

static void test_objects_that_do_not_belong_together(void **state) {
    (void)state;
    failures = cases = 0;
    /* An event records only in its own context. */
    snapshot before = start();
    check_refusal("event and stream of different contexts", "cushim_event_record",
                  CUDA_ERROR_INVALID_HANDLE, cushim_event_record(fx.event, fx.other_stream),
                  &before, BEFORE_DRIVER);
    /* A timing-disabled event has no time. */
    float ms = -1.0f;
    before = start();
    check_refusal("elapsed time of an untimed event", "cushim_event_elapsed_ms",
                  CUDA_ERROR_INVALID_HANDLE, cushim_event_elapsed_ms(&ms, fx.untimed, fx.event),
                  &before, BEFORE_DRIVER);
    before = start();
    check_refusal("elapsed time to an untimed event", "cushim_event_elapsed_ms",
                  CUDA_ERROR_INVALID_HANDLE, cushim_event_elapsed_ms(&ms, fx.event, fx.untimed),
                  &before, BEFORE_DRIVER);
    /* An event never recorded: the driver says so. */
    cushim_event *fresh = NULL;
    assert_ok(cushim_event_create(&fresh, fx.ctx, 0));
    before = start();
    check_refusal("elapsed time of an event never recorded", "cushim_event_elapsed_ms",
                  CUDA_ERROR_INVALID_HANDLE, cushim_event_elapsed_ms(&ms, fresh, fx.event), &before,
                  BY_DRIVER);
    cushim_event_release(fresh);
    /* A device-wide synchronize with no context current. */
    before = start();
    check_refusal("device synchronize with no context current", "cushim_device_synchronize",
                  CUDA_ERROR_INVALID_CONTEXT, cushim_device_synchronize(), &before, BY_DRIVER);
    assert_int_equal(failures, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Loader, error text, logging                                                                */
/* ------------------------------------------------------------------------------------------ */

static void test_loader_and_error_text_take_anything(void **state) {
    (void)state;
    int calls = mock.calls("*");
    char long_name[10000];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    assert_false(cushim_driver_has(NULL));
    assert_false(cushim_driver_has(""));
    assert_false(cushim_driver_has(long_name));
    assert_false(cushim_driver_has("cuInit\n"));
    assert_true(cushim_driver_has("cuInit"));
    static const CUresult codes[] = {(CUresult)-1, (CUresult)INT_MAX, (CUresult)INT_MIN,
                                     (CUresult)12345};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *name = cushim_error_name(codes[i]);
        const char *text = cushim_error_string(codes[i]);
        assert_non_null(name);
        assert_non_null(text);
        assert_non_null(strstr(name, "unknown CUresult"));
        assert_true(text[0] != '\0');
    }
    assert_int_equal(mock.calls("*"), calls);
    /* A log level past CUSHIM_LOG_OFF silences the handler, as OFF does. */
    cushim_log_set_handler(capture_log, &captured, (cushim_log_level)1000);
    memset(&captured, 0, sizeof captured);
    cushim_stream_release((cushim_stream *)(void *)fx.event);
    assert_int_equal(captured.count[CUSHIM_LOG_WARN], 0);
    cushim_log_set_handler(capture_log, &captured, CUSHIM_LOG_DEBUG);
    cushim_stream_release((cushim_stream *)(void *)fx.event);
    assert_int_equal(captured.count[CUSHIM_LOG_WARN], 1);
    assert_ok(cushim_event_query(fx.event));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        HOSTILE_TEST(test_unknown_flags_and_priorities_out_of_range),
        HOSTILE_TEST(test_ordinals_out_of_range),
        HOSTILE_TEST(test_objects_that_do_not_belong_together),
        HOSTILE_TEST(test_loader_and_error_text_take_anything),
        HOSTILE_TEST(test_everything_works_after_the_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
