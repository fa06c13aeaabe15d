/* fork() while other threads use cushim: no child may hang on a lock that another thread of the
 * parent held at the fork. First a thread sits inside the process's first cushim_init (the mock
 * delays cuInit by CUSHIM_MOCK_INIT_DELAY_MS) while the main thread forks; then threads churn
 * events, streams, modules, libraries and launches while the main thread forks FORKS times.
 * Every child calls cushim on what it inherited and exits; the parent waits for each with a
 * deadline, kills a child past it and counts it as hung. The count must be 0. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "testutil.h"
#include "fork_util.h"

#define FORKS 200
#define FORKS_DURING_INIT 20
#define CHILD_DEADLINE_MS 5000

static const char ptx[] = ".version 6.0\n.target sm_70\n.address_size 64\n\n"
                          ".visible .entry cushim_empty(\n)\n{\n    ret;\n}\n";

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Forks, runs child() there and waits for it until the deadline. 0: it exited 0; 1: it failed
 * (printed); 2: it was still running at the deadline and was killed. */
static int fork_and_wait(void (*child)(void)) {
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        child();
        _exit(0);
    }
    long long deadline = now_ms() + CHILD_DEADLINE_MS;
    int status = 0;
    for (;;) {
        pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid) break;
        assert_true(got == 0 || (got < 0 && errno == EINTR));
        if (now_ms() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return 2;
        }
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    fprintf(stderr, "# a child ended with status 0x%x\n", (unsigned)status);
    return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* A fork during the first initialisation                                                     */
/* ------------------------------------------------------------------------------------------ */

static atomic_bool init_done;

static void *first_init(void *arg) {
    (void)arg;
    CUresult r = cushim_init();
    atomic_store(&init_done, true);
    return (void *)(intptr_t)r;
}

/* The child may find the driver loaded or not, depending on where the parent's init was: it
 * must answer at once either way, with a sentence when it refuses. */
static void child_of_init(void) {
    CUresult r = cushim_init();
    CHILD_CHECK(r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_INITIALIZED);
    CHILD_CHECK(r == CUDA_SUCCESS || cushim_last_error()[0] != '\0');
    CHILD_CHECK(cushim_driver_state() != NULL);
}

static void test_fork_during_first_init(void **state) {
    (void)state;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, first_init, NULL), 0);
    int hung = 0, failed = 0, forks = 0;
    /* The first fork lands inside the init (the mock's delay is far longer than a thread
     * start); later ones while it lasts. */
    nanosleep(&(struct timespec){0, 20 * 1000000}, NULL);
    do {
        int got = fork_and_wait(child_of_init);
        hung += got == 2;
        failed += got == 1;
        forks++;
    } while (forks < FORKS_DURING_INIT && !atomic_load(&init_done));
    void *r = NULL;
    pthread_join(t, &r);
    fprintf(stderr, "# %d forks during the first init: %d hung, %d failed\n", forks, hung, failed);
    assert_int_equal((CUresult)(intptr_t)r, CUDA_SUCCESS);
    assert_int_equal(hung, 0);
    assert_int_equal(failed, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Forks while threads churn                                                                  */
/* ------------------------------------------------------------------------------------------ */

/* What the children inherit. */
static struct {
    cushim_context *ctx;
    cushim_stream *s;
    cushim_event *e;
    cushim_module *m;
    cushim_library *lib;
    cushim_function *f;
} fx;

static atomic_bool stop;
static atomic_int rounds[4];

/* A round done: counted, and the core offered to the other threads (the machine may have
 * fewer cores than there are threads here). */
static void pause_round(int i) {
    atomic_fetch_add(&rounds[i], 1);
    sched_yield();
}

/* Events (arg 0) or streams (arg 1), four made and released a round, through the caches. */
static void *churn_objects(void *arg) {
    int kind = (int)(intptr_t)arg;
    while (!atomic_load(&stop)) {
        cushim_event *e[4] = {NULL};
        cushim_stream *s[4] = {NULL};
        for (int i = 0; i < 4; i++) {
            if (kind == 0) cushim_event_create(&e[i], fx.ctx, i & 1 ? 0 : 2);
            if (kind == 1) cushim_stream_create(&s[i], fx.ctx, 0, 0);
        }
        for (int i = 0; i < 4; i++) {
            cushim_event_release(e[i]);
            cushim_stream_release(s[i]);
        }
        pause_round(kind);
    }
    return NULL;
}

static void *churn_modules(void *arg) {
    (void)arg;
    while (!atomic_load(&stop)) {
        cushim_module *m = NULL;
        cushim_function *f = NULL;
        if (cushim_module_load_data(&m, fx.ctx, ptx) == CUDA_SUCCESS) {
            cushim_module_function(&f, m, "cushim_empty");
            cushim_module_release(m);
        }
        cushim_library *lib = NULL;
        if (cushim_library_load_data(&lib, ptx) == CUDA_SUCCESS) {
            cushim_library_function(&f, lib, fx.ctx, "cushim_empty");
            cushim_library_release(lib);
        }
        /* The inherited ones' lists too: a name asked again, and a new one. */
        cushim_module_function(&f, fx.m, "cushim_empty");
        cushim_module_function(&f, fx.m, "no_such_kernel");
        pause_round(2);
    }
    return NULL;
}

static void *churn_launches(void *arg) {
    (void)arg;
    cushim_stream *s = NULL;
    cushim_stream_create(&s, fx.ctx, 0, 0);
    cushim_launch_config cfg = {
        .grid = CUSHIM_DIM3(1), .block = CUSHIM_DIM3(32), .shared_mem_bytes = 0, .stream = s};
    while (!atomic_load(&stop)) {
        /* Whether the mock runs the kernel does not matter here, only the paths taken. */
        for (int i = 0; i < 8; i++) cushim_launch(fx.f, &cfg, NULL);
        cushim_stream_synchronize(s);
        pause_round(3);
    }
    cushim_stream_release(s);
    return NULL;
}

/* Every call on what the child inherited answers at once; releasing frees cushim's memory and
 * reaches no driver (the mock's own state, inherited too, is never touched). */
static void child_of_churn(void) {
    /* First what the issue saw hang: a release that offers the event to its context's cache. */
    cushim_event_release(fx.e);
    CHILD_CHECK(FORKED(cushim_init()));
    cushim_event *e = NULL;
    CHILD_CHECK(FORKED(cushim_event_create(&e, fx.ctx, 0)) && e == NULL);
    CHILD_CHECK(FORKED(cushim_event_create(&e, fx.ctx, 2)) && e == NULL);
    cushim_stream *s = NULL;
    CHILD_CHECK(FORKED(cushim_stream_create(&s, fx.ctx, 0, 0)) && s == NULL);
    cushim_function *f = NULL;
    CHILD_CHECK(FORKED(cushim_module_function(&f, fx.m, "cushim_empty")) && f == NULL);
    CHILD_CHECK(FORKED(cushim_library_function(&f, fx.lib, fx.ctx, "cushim_empty")));
    cushim_launch_config cfg = {
        .grid = CUSHIM_DIM3(1), .block = CUSHIM_DIM3(32), .shared_mem_bytes = 0, .stream = fx.s};
    CHILD_CHECK(FORKED(cushim_launch(fx.f, &cfg, NULL)));
    CHILD_CHECK(FORKED(cushim_context_trim(fx.ctx)));
    cushim_recycling rc;
    CHILD_CHECK(FORKED(cushim_context_recycling(&rc, fx.ctx)));
    cushim_stream_release(fx.s);
    cushim_module_release(fx.m);
    cushim_library_release(fx.lib);
    cushim_context_release(fx.ctx);
}

static void test_fork_while_threads_churn(void **state) {
    (void)state;
    assert_ok(cushim_context_create(&fx.ctx, 0, 0));
    assert_ok(cushim_stream_create(&fx.s, fx.ctx, 0, 0));
    assert_ok(cushim_event_create(&fx.e, fx.ctx, 0));
    assert_ok(cushim_module_load_data(&fx.m, fx.ctx, ptx));
    assert_ok(cushim_module_function(&fx.f, fx.m, "cushim_empty"));
    assert_ok(cushim_library_load_data(&fx.lib, ptx));
    void *(*churn[])(void *) = {churn_objects, churn_objects, churn_modules, churn_launches};
    enum { THREADS = sizeof churn / sizeof churn[0] };
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_create(&t[i], NULL, churn[i], (void *)(intptr_t)i), 0);
    }
    /* Every thread is going before the first fork. */
    for (int i = 0; i < THREADS; i++) {
        while (atomic_load(&rounds[i]) == 0) nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    int hung = 0, failed = 0;
    for (int i = 0; i < FORKS; i++) {
        int got = fork_and_wait(child_of_churn);
        hung += got == 2;
        failed += got == 1;
    }
    atomic_store(&stop, true);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    fprintf(stderr,
            "# %d forks while threads churned (rounds: %d events, %d streams, %d modules, "
            "%d launches): %d hung, %d failed\n",
            FORKS, rounds[0], rounds[1], rounds[2], rounds[3], hung, failed);
    assert_int_equal(hung, 0);
    assert_int_equal(failed, 0);

    /* The parent goes on as before, and nothing is left in the driver. */
    cushim_event *e = NULL;
    assert_ok(cushim_event_create(&e, fx.ctx, 0));
    assert_ok(cushim_event_record(e, fx.s));
    assert_ok(cushim_stream_synchronize(fx.s));
    cushim_event_release(e);
    cushim_event_release(fx.e);
    cushim_stream_release(fx.s);
    cushim_module_release(fx.m);
    cushim_library_release(fx.lib);
    cushim_context_release(fx.ctx);
    for (int k = 0; k < CUSHIM_MOCK_KIND_COUNT; k++) assert_int_equal(mock.live(k), 0);
}

static int open_mock(void **state) {
    (void)state;
    return cushim_mock_open(&mock, NULL) ? 0 : -1;
}

/* valgrind runs one thread at a time and copies itself at each fork: the storm would take many
 * minutes there, and the races it looks for need threads that really run at once. It runs in
 * the plain and ThreadSanitizer builds. */
static bool under_valgrind(void) {
    const char *preload = getenv("LD_PRELOAD");
    return preload != NULL && strstr(preload, "vgpreload") != NULL;
}

int main(void) {
    if (under_valgrind()) {
        printf("1..0 # SKIP the fork storm does not run under valgrind\n");
        return 0;
    }
    /* In this order: the first test must find this process not yet initialised. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fork_during_first_init),
        cmocka_unit_test(test_fork_while_threads_churn),
    };
    return cmocka_run_group_tests_name("fork_storm", tests, open_mock, NULL);
}
