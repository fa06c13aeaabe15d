/* fork() while another thread is inside the first cushim_init (in the driver's cuInit, which
 * takes 100+ ms on a real GPU): the child must not wait on a lock the loading thread held, and
 * it must not use the half-initialised driver. Every call there answers
 * CUDA_ERROR_NOT_INITIALIZED with a sentence, at once. The mock's cuInit calls init_started()
 * and then sleeps (CUSHIM_MOCK_INIT_CALLBACK, CUSHIM_MOCK_INIT_DELAY_MS, set by meson.build);
 * this executable exports init_started. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "testutil.h"
#include "fork_util.h"

static atomic_bool started;

void init_started(void);
void init_started(void) { atomic_store(&started, true); }

static void *first_init(void *arg) {
    *(CUresult *)arg = cushim_init();
    return NULL;
}

static void child_during_init(void) {
    CUresult r = cushim_init();
    CHILD_CHECK(FORKED(r));
    CHILD_CHECK(strstr(cushim_last_error(), "while another thread") != NULL);
    const cushim_driver_info *info = cushim_driver_state();
    CHILD_CHECK(info->status == CUSHIM_DRIVER_INIT_FAILED);
    CHILD_CHECK(info->result == CUDA_ERROR_NOT_INITIALIZED);
    CUdevice dev = -1;
    CHILD_CHECK(cushim_driver()->cuDeviceGet(&dev, 0) == CUDA_ERROR_NOT_INITIALIZED);
    cushim_context *ctx = (cushim_context *)&ctx;
    CHILD_CHECK(cushim_context_primary(&ctx, 0) == CUDA_ERROR_NOT_INITIALIZED && ctx == NULL);
}

static void test_fork_during_first_init(void **state) {
    (void)state;
    CUresult loaded = CUDA_ERROR_UNKNOWN;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, first_init, &loaded), 0);
    while (!atomic_load(&started)) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    /* The loading thread is inside cuInit now, and stays there for the mock's delay. */
    assert_int_equal(run_child(child_during_init, 10), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(loaded, CUDA_SUCCESS);
    /* The parent is untouched by its child. */
    assert_int_equal(cushim_driver_state()->status, CUSHIM_DRIVER_LOADED);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fork_during_first_init)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
