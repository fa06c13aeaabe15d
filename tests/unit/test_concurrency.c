/* Retain and release from many threads at once, and threads creating and releasing streams and
 * events on a shared context, through its caches. Run under ThreadSanitizer in CI. */
#include <pthread.h>
#include <stdatomic.h>

#include "testutil.h"

#define THREADS 8
#define PAIRS 100000
#define CREATES 500

static cushim_context *ctx;
static cushim_stream *shared_stream;
static cushim_event *shared_event;
static pthread_barrier_t start;

static void *retain_release(void *arg) {
    (void)arg;
    pthread_barrier_wait(&start);
    for (int i = 0; i < PAIRS; i++) {
        cushim_stream_release(cushim_stream_retain(shared_stream));
        cushim_event_release(cushim_event_retain(shared_event));
    }
    return NULL;
}

static void test_retain_release_from_8_threads(void **state) {
    (void)state;
    assert_ok(cushim_context_create(&ctx, 0, 0));
    /* This test counts destroys: the objects must not be kept. */
    assert_ok(cushim_context_set_recycling(ctx, false, false));
    assert_ok(cushim_stream_create(&shared_stream, ctx, 0, 0));
    assert_ok(cushim_event_create(&shared_event, ctx, 0));
    pthread_t t[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, retain_release, NULL);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    /* Counts are back where they started: one release each destroys them, exactly once. */
    assert_int_equal(mock.calls("cuStreamDestroy"), 0);
    assert_int_equal(mock.calls("cuEventDestroy"), 0);
    cushim_stream_release(shared_stream);
    cushim_event_release(shared_event);
    assert_int_equal(mock.calls("cuStreamDestroy"), 1);
    assert_int_equal(mock.calls("cuEventDestroy"), 1);
    cushim_context_release(ctx);
    assert_int_equal(mock.live(CUSHIM_MOCK_CONTEXT), 0);
}

static atomic_int create_failures;

static void *create_release(void *arg) {
    (void)arg;
    pthread_barrier_wait(&start);
    for (int i = 0; i < CREATES; i++) {
        cushim_stream *s = NULL;
        if (cushim_stream_create(&s, ctx, CU_STREAM_NON_BLOCKING, 0) != CUDA_SUCCESS) {
            atomic_fetch_add(&create_failures, 1);
            continue;
        }
        cushim_event *e = NULL;
        if (cushim_event_create(&e, ctx, 0) == CUDA_SUCCESS) {
            cushim_event_record(e, s);
            cushim_stream_query(s);
            /* Every other stream ends idle, and may be kept; the rest have work pending (the
             * mock keeps it so until a synchronize), and must be destroyed. */
            if (i % 2) cushim_stream_synchronize(s);
            cushim_event_release(e);
        } else {
            atomic_fetch_add(&create_failures, 1);
        }
        cushim_stream_release(s);
    }
    return NULL;
}

static void test_streams_created_and_released_on_a_shared_context(void **state) {
    (void)state;
    assert_ok(cushim_context_create(&ctx, 0, 0));
    pthread_t t[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, create_release, NULL);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    assert_int_equal(atomic_load(&create_failures), 0);
    /* What the driver made and did not destroy is exactly what the caches hold, within their
     * bounds; the caches saved creates; a trim leaves nothing. */
    cushim_recycling info;
    assert_ok(cushim_context_recycling(&info, ctx));
    int streams = mock.calls("cuStreamCreateWithPriority");
    int events = mock.calls("cuEventCreate");
    assert_int_equal(streams - mock.calls("cuStreamDestroy"), info.streams_held);
    assert_int_equal(events - mock.calls("cuEventDestroy"), info.events_held);
    assert_int_equal(mock.live(CUSHIM_MOCK_STREAM), info.streams_held);
    assert_int_equal(mock.live(CUSHIM_MOCK_EVENT), info.events_held);
    assert_in_range(info.streams_held, 1, info.streams_max);
    assert_in_range(info.events_held, 1, info.events_max);
    assert_true(streams < THREADS * CREATES && streams > THREADS * CREATES / 2 - THREADS);
    assert_true(events < THREADS * CREATES / 4);
    assert_ok(cushim_context_trim(ctx));
    assert_int_equal(mock.live(CUSHIM_MOCK_STREAM), 0);
    assert_int_equal(mock.live(CUSHIM_MOCK_EVENT), 0);
    cushim_context_release(ctx);
    assert_int_equal(mock.live(CUSHIM_MOCK_CONTEXT), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_retain_release_from_8_threads, mock_setup,
                                        mock_teardown),
        cmocka_unit_test_setup_teardown(test_streams_created_and_released_on_a_shared_context,
                                        mock_setup, mock_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
