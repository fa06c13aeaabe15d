/* The first cushim_init of the process, raced by 64 threads released at once by a barrier: all
 * succeed, the driver is loaded and cuInit called exactly once, and every thread sees the same
 * table. Its own process, since the first init happens once per process; meant for TSan too. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cushim.h"
#include "assert_cu.h"
#include "cushim_mock.h"

#define THREADS 64

static cushim_mock_api mock;
static pthread_barrier_t start;

typedef struct result {
    int first; /* which entry point this thread called first */
    CUresult init;
    const cushim_driver_table *table;
    const cushim_driver_info *info;
    bool has_init;
} result;

static result results[THREADS];

/* The threads enter through different doors: cushim_init itself, and three functions that
 * call it on their way. */
static void *racer(void *arg) {
    result *r = arg;
    pthread_barrier_wait(&start);
    switch (r->first) {
    case 0: r->init = cushim_init(); break;
    case 1: r->table = cushim_driver(); break;
    case 2: r->has_init = cushim_driver_has("cuInit"); break;
    default: r->info = cushim_driver_state(); break;
    }
    if (r->first != 0) r->init = cushim_init();
    if (r->table == NULL) r->table = cushim_driver();
    if (r->info == NULL) r->info = cushim_driver_state();
    if (r->first != 2) r->has_init = cushim_driver_has("cuInit");
    return NULL;
}

static void test_64_threads_race_the_first_init(void **state) {
    (void)state;
    /* The mock is only opened here, not initialised: the first cuInit must be cushim's. */
    assert_int_equal(mock.calls("cuInit"), 0);
    pthread_t t[THREADS];
    assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
    for (int i = 0; i < THREADS; i++) {
        results[i].first = i % 4;
        assert_int_equal(pthread_create(&t[i], NULL, racer, &results[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);

    const cushim_driver_table *table = cushim_driver();
    assert_non_null(table);
    for (int i = 0; i < THREADS; i++) {
        assert_cu(CUDA_SUCCESS, results[i].init);
        assert_ptr_equal(results[i].table, table);
        assert_ptr_equal(results[i].info, cushim_driver_state());
        assert_true(results[i].has_init);
    }
    /* One load: one cuInit and one version query, whoever came first. */
    assert_int_equal(mock.calls("cuInit"), 1);
    assert_int_equal(mock.calls("cuDriverGetVersion"), 1);
    const cushim_driver_info *info = cushim_driver_state();
    assert_int_equal(info->status, CUSHIM_DRIVER_LOADED);
    assert_true(info->entries_resolved > 0);
    /* The table holds exactly what the mock handed out: no slot was left half-filled by a
     * thread that lost the race. */
    assert_int_equal(mock.resolved_count(), (int)info->entries_resolved);
    /* And the table works. */
    int version = 0;
    assert_ok(table->cuDriverGetVersion(&version));
    assert_int_equal(version, info->driver_version);
}

int main(void) {
    if (!cushim_mock_open(&mock, NULL)) return 1;
    mock.reset();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_64_threads_race_the_first_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
