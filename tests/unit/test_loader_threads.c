/* 32 threads call cushim_init at once: every one gets CUDA_SUCCESS and the driver is loaded and
 * its table resolved exactly once. */
#include <pthread.h>

#include "testutil.h"

#define THREADS 32

static pthread_barrier_t start;
static CUresult results[THREADS];
static const cushim_driver_table *tables[THREADS];

static void *racer(void *arg) {
    int i = (int)(intptr_t)arg;
    pthread_barrier_wait(&start);
    results[i] = cushim_init();
    tables[i] = cushim_driver();
    return NULL;
}

static void test_init_raced_by_32_threads(void **state) {
    (void)state;
    pthread_t t[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_create(&t[i], NULL, racer, (void *)(intptr_t)i), 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < THREADS; i++) {
        assert_cu(CUDA_SUCCESS, results[i]);
        assert_ptr_equal(tables[i], tables[0]);
    }
    assert_non_null(tables[0]);
    assert_int_equal(mock.calls("cuInit"), 1);
    assert_int_equal(mock.calls("cuDriverGetVersion"), 1);
    assert_int_equal(cushim_driver_state()->entries_resolved, (unsigned)mock.resolved_count());
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_init_raced_by_32_threads)};
    if (!cushim_mock_open(&mock, NULL)) return 1;
    mock.reset();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
