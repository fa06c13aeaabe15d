/* Hostile input to retain, release and the accessors: every value that is not a live handle of
 * the kind. */
#include "hostile.h"

/* ------------------------------------------------------------------------------------------ */
/* Retain, release and the accessors                                                          */
/* ------------------------------------------------------------------------------------------ */

typedef struct refops {
    const char *retain_name, *release_name;
    void *(*retain)(void *);
    void (*release)(void *);
} refops;

static void *retain_context(void *p) { return cushim_context_retain(p); }
static void *retain_stream(void *p) { return cushim_stream_retain(p); }
static void *retain_event(void *p) { return cushim_event_retain(p); }
static void *retain_module(void *p) { return cushim_module_retain(p); }
static void *retain_library(void *p) { return cushim_library_retain(p); }
static void release_context(void *p) { cushim_context_release(p); }
static void release_stream(void *p) { cushim_stream_release(p); }
static void release_event(void *p) { cushim_event_release(p); }
static void release_module(void *p) { cushim_module_release(p); }
static void release_library(void *p) { cushim_library_release(p); }

/* Indexed by kind; a function has neither (its module or library owns it). */
static const refops refs[K_FUNCTION] = {
    {"cushim_context_retain", "cushim_context_release", retain_context, release_context},
    {"cushim_stream_retain", "cushim_stream_release", retain_stream, release_stream},
    {"cushim_event_retain", "cushim_event_release", retain_event, release_event},
    {"cushim_module_retain", "cushim_module_release", retain_module, release_module},
    {"cushim_library_retain", "cushim_library_release", retain_library, release_library},
};

static void test_retain_and_release_refuse_bad_handles(void **state) {
    (void)state;
    failures = cases = 0;
    void *bad[2 * K_COUNT + 1];
    const char *what[2 * K_COUNT + 1];
    for (int k = 0; k < K_FUNCTION; k++) {
        int n = bad_values((kind)k, bad, what);
        for (int i = 0; i < n; i++) {
            char label[160];
            snprintf(label, sizeof label, "%s(%s)", refs[k].retain_name, what[i]);
            scrub_error(refs[k].retain_name);
            snapshot before = snap();
            void *got = refs[k].retain(bad[i]);
            cases++;
            if (got != NULL) FAILED(label, "returned %p, not NULL", got);
            /* The retain says why it returned NULL, like every other refusal. */
            check_refusal(label, refs[k].retain_name,
                          bad[i] ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_VALUE,
                          bad[i] ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_VALUE, &before,
                          BEFORE_DRIVER);

            snprintf(label, sizeof label, "%s(%s)", refs[k].release_name, what[i]);
            memset(&captured, 0, sizeof captured);
            before = start();
            refs[k].release(bad[i]);
            cases++;
            snapshot after = snap();
            if (after.calls != before.calls) FAILED(label, "reached the driver");
            for (int m = 0; m < CUSHIM_MOCK_KIND_COUNT; m++) {
                if (after.live[m] != before.live[m]) FAILED(label, "destroyed something");
            }
            if (captured.count[CUSHIM_LOG_ERROR] != 0) FAILED(label, "logged an error");
            /* NULL is a no-op, as with free(); anything else is a mistake worth a warning. */
            if (bad[i] != NULL) {
                if (captured.count[CUSHIM_LOG_WARN] != 1) {
                    FAILED(label, "%d warnings, expected 1", captured.count[CUSHIM_LOG_WARN]);
                } else if (strstr(captured.text, refs[k].release_name) == NULL) {
                    FAILED(label, "the warning does not name the function: %s", captured.text);
                }
            }
        }
    }
    printf("# %d calls checked\n", cases);
    /* The objects passed as the wrong kind are unharmed: each still works, and the teardown's
     * single release of each destroys it (a stray retain would leak it, a stray release would
     * make the mock abort). */
    assert_ok(cushim_stream_query(fx.stream));
    assert_ok(cushim_event_query(fx.event));
    assert_ok(cushim_context_synchronize(fx.ctx));
    assert_int_equal(failures, 0);
}

static void test_accessors_answer_nothing_for_bad_handles(void **state) {
    (void)state;
    failures = cases = 0;
    void *bad[2 * K_COUNT + 1];
    const char *what[2 * K_COUNT + 1];
    snapshot before = start();
    for (int k = 0; k < K_COUNT; k++) {
        int n = bad_values((kind)k, bad, what);
        for (int i = 0; i < n; i++) {
            const char *w = what[i];
            void *p = bad[i];
            cases++;
            switch ((kind)k) {
            case K_CONTEXT:
                if (cushim_context_raw(p) != NULL) FAILED(w, "cushim_context_raw is not NULL");
                if (cushim_context_device(p) != CU_DEVICE_INVALID) {
                    FAILED(w, "cushim_context_device is not CU_DEVICE_INVALID");
                }
                break;
            case K_STREAM:
                if (cushim_stream_raw(p) != NULL) FAILED(w, "cushim_stream_raw is not NULL");
                if (cushim_stream_context(p) != NULL) FAILED(w, "cushim_stream_context");
                if (cushim_stream_same_queue(p, fx.stream) ||
                    cushim_stream_same_queue(fx.stream, p) || cushim_stream_same_queue(p, p)) {
                    FAILED(w, "cushim_stream_same_queue is true");
                }
                break;
            case K_EVENT:
                if (cushim_event_raw(p) != NULL) FAILED(w, "cushim_event_raw is not NULL");
                if (cushim_event_context(p) != NULL) FAILED(w, "cushim_event_context");
                break;
            case K_FUNCTION:
                if (cushim_function_raw(p) != NULL) FAILED(w, "cushim_function_raw is not NULL");
                break;
            case K_MODULE:
            case K_LIBRARY:
            case K_COUNT: break; /* no accessors */
            }
        }
    }
    snapshot after = snap();
    assert_int_equal(after.calls, before.calls);
    assert_true(cases > 40);
    assert_int_equal(failures, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        HOSTILE_TEST(test_retain_and_release_refuse_bad_handles),
        HOSTILE_TEST(test_accessors_answer_nothing_for_bad_handles),
        HOSTILE_TEST(test_everything_works_after_the_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
