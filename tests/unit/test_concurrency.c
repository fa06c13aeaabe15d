/* Retain and release from many threads at once, and threads creating and releasing streams on a
 * shared context. Run under ThreadSanitizer in CI. */
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
    assert_int_equal(mock.calls("cuStreamCreateWithPriority"), THREADS * CREATES);
    assert_int_equal(mock.calls("cuStreamDestroy"), THREADS * CREATES);
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
