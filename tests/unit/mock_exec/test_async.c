/* The mock's progress thread: queued stream work runs by itself, with no synchronize, as on a
 * GPU (NVIDIA's simpleCallback waits on a host barrier its callbacks signal), in stream order;
 * set_async(false) holds it for a synchronize; a fork while it works leaves the child a mock
 * whose lock is free. Run with CUSHIM_MOCK_ASYNC=1. */
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec_util.h"

static void sleep_ms(long ms) {
    struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&d, NULL);
}

/* What the host functions ran, guarded: they run on the mock's thread. */
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t seen_cond = PTHREAD_COND_INITIALIZER;
static int seen[16];
static int nseen;

static void record_tag(void *user) {
    pthread_mutex_lock(&seen_lock);
    if (nseen < 16) seen[nseen++] = (int)(intptr_t)user;
    pthread_cond_broadcast(&seen_cond);
    pthread_mutex_unlock(&seen_lock);
}

static void record_callback(CUstream s, CUresult status, void *user) {
    (void)s;
    if (status == CUDA_SUCCESS) record_tag(user);
}

/* Waits up to 10 s for n tags, with no call into the driver; how many there were. */
static int wait_for(int n) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    pthread_mutex_lock(&seen_lock);
    while (nseen < n && pthread_cond_timedwait(&seen_cond, &seen_lock, &until) == 0) {
    }
    int got = nseen;
    pthread_mutex_unlock(&seen_lock);
    return got;
}

static int seen_at(int i) {
    pthread_mutex_lock(&seen_lock);
    int v = seen[i];
    pthread_mutex_unlock(&seen_lock);
    return v;
}

static int async_setup(void **state) {
    nseen = 0;
    return exec_setup(state);
}

static void test_callbacks_run_without_a_synchronize(void **state) {
    (void)state;
    CUstream s;
    assert_ok(t->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    assert_ok(t->cuLaunchHostFunc(s, record_tag, (void *)1));
    assert_ok(t->cuStreamAddCallback(s, record_callback, (void *)2, 0));
    assert_ok(t->cuLaunchHostFunc(NULL, record_tag, (void *)3));
    assert_int_equal(wait_for(3), 3);
    /* one stream's two in order; the default stream's is on its own */
    int first = seen_at(0) == 3 ? 1 : 0;
    assert_int_equal(seen_at(first), 1);
    assert_int_equal(seen_at(first + 1), 2);
    assert_ok(t->cuStreamDestroy(s));
}

static void test_a_wait_keeps_its_order_without_a_synchronize(void **state) {
    (void)state;
    CUstream a, b;
    CUevent e;
    two_streams(&a, &b, &e);
    /* b's work is queued behind a wait on a's record; a's work is queued after b's */
    assert_ok(t->cuLaunchHostFunc(a, record_tag, (void *)1));
    assert_ok(t->cuEventRecord(e, a));
    assert_ok(t->cuStreamWaitEvent(b, e, 0));
    assert_ok(t->cuLaunchHostFunc(b, record_tag, (void *)2));
    assert_int_equal(wait_for(2), 2);
    assert_int_equal(seen_at(0), 1);
    assert_int_equal(seen_at(1), 2);
    /* the event completed by itself: a query answers it without polling */
    assert_ok(t->cuEventQuery(e));
    assert_ok(t->cuStreamQuery(b));
    destroy_two_streams(a, b, e);
}

static void test_a_kernel_runs_by_itself(void **state) {
    (void)state;
    CUmodule m;
    CUfunction f;
    CUstream s;
    CUevent e;
    assert_ok(load_step(&m, &f));
    assert_ok(t->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    assert_ok(t->cuEventCreate(&e, CU_EVENT_DEFAULT));
    launch_step(f, s, 1); /* `none` semantics: the PTX only returns */
    assert_ok(t->cuEventRecord(e, s));
    assert_ok(t->cuLaunchHostFunc(s, record_tag, (void *)7));
    assert_int_equal(wait_for(1), 1);
    assert_int_equal(seen_at(0), 7);
    assert_ok(t->cuEventQuery(e));
    assert_int_equal(mock.launch_count(), 1);
    assert_ok(t->cuEventDestroy(e));
    assert_ok(t->cuStreamDestroy(s));
    assert_ok(t->cuModuleUnload(m));
}

static void test_async_off_holds_work_for_a_synchronize(void **state) {
    (void)state;
    mock.set_async(false);
    CUstream s;
    assert_ok(t->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    assert_ok(t->cuLaunchHostFunc(s, record_tag, (void *)4));
    sleep_ms(100);
    assert_int_equal(wait_for(0), 0);
    assert_cu(CUDA_ERROR_NOT_READY, t->cuStreamQuery(s));
    assert_ok(t->cuStreamSynchronize(s));
    assert_int_equal(wait_for(1), 1);
    mock.set_async(true);
    assert_ok(t->cuLaunchHostFunc(s, record_tag, (void *)5));
    assert_int_equal(wait_for(2), 2);
    assert_int_equal(seen_at(1), 5);
    assert_ok(t->cuStreamDestroy(s));
}

/* Holds the mock's lock (host functions run under it) for a while. */
static void slow(void *user) {
    (void)user;
    sleep_ms(200);
    record_tag((void *)8);
}

static void test_a_fork_while_work_runs_leaves_the_child_a_free_lock(void **state) {
    (void)state;
    CUstream s;
    assert_ok(t->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    assert_ok(t->cuLaunchHostFunc(s, slow, NULL));
    sleep_ms(50); /* the mock's thread is inside `slow` */
    pid_t pid = fork();
    if (pid == 0) {
        /* the control API takes the mock's lock: it must be free in the child */
        alarm(10);
        _exit(mock.launch_count() == 0 ? 0 : 1);
    }
    assert_true(pid > 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_ok(t->cuStreamSynchronize(s));
    assert_int_equal(wait_for(1), 1);
    assert_ok(t->cuStreamDestroy(s));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_callbacks_run_without_a_synchronize, async_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_a_wait_keeps_its_order_without_a_synchronize,
                                        async_setup, exec_teardown),
        cmocka_unit_test_setup_teardown(test_a_kernel_runs_by_itself, async_setup, exec_teardown),
        cmocka_unit_test_setup_teardown(test_async_off_holds_work_for_a_synchronize, async_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_a_fork_while_work_runs_leaves_the_child_a_free_lock,
                                        async_setup, exec_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
