/* A mixed workload for ThreadSanitizer: 8 threads, two contexts (one created, one primary), for
 * a bounded time. Each thread, with its own seed, creates streams and events on either context
 * (through the contexts' caches, which threads also trim and switch off and on), retains,
 * records, queries, waits, synchronizes, launches and releases; some objects pass
 * between threads through a small shared array (a thread takes a reference under the lock, uses
 * the object outside it, and releases it). At the end every count is back where it started,
 * each thread's current context is the one it set, and nothing was logged. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "testutil.h"

#define THREADS 8
#define RUN_NS 1500000000LL   /* how long the threads work */
#define MAX_ITERATIONS 200000 /* per thread, whatever the time: bounds a fast machine's memory */
#define LOCAL 6               /* streams and events each thread holds */
#define SLOTS 8               /* shared streams and events */
#define KERNEL "cushim_empty"

static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n\n"
                          ".visible .entry " KERNEL "()\n{\n    ret;\n}\n";

static cushim_context *ctxs[2];
static cushim_module *mods[2];
static cushim_function *fns[2];
static int prio_least, prio_greatest;

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static cushim_stream *shared_streams[SLOTS];
static cushim_event *shared_events[SLOTS];
static pthread_barrier_t start;

/* Any warning or error logged while the threads work is a failure: a refused destroy, a bad
 * handle. The handler runs on any thread. */
static atomic_int logged;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char first_logged[512];

static void count_log(cushim_log_level level, const char *message, void *user) {
    (void)level;
    (void)user;
    if (atomic_fetch_add(&logged, 1) == 0) {
        pthread_mutex_lock(&log_lock);
        snprintf(first_logged, sizeof first_logged, "%s", message);
        pthread_mutex_unlock(&log_lock);
    }
}

typedef struct worker {
    unsigned seed;
    CUcontext home; /* the current context the thread sets, and must find at the end */
    struct timespec deadline;
    long ops, unexpected;
    char first[512]; /* the first unexpected result */
    bool home_kept;
    cushim_stream *streams[LOCAL];
    cushim_event *events[LOCAL];
} worker;

static worker workers[THREADS];

static unsigned pick(worker *w, unsigned n) { return (unsigned)rand_r(&w->seed) % n; }

static void unexpected(worker *w, const char *what, CUresult r) {
    if (w->unexpected++ == 0) {
        snprintf(w->first, sizeof w->first, "%s: %s (%s)", what, cushim_error_name(r),
                 cushim_last_error());
    }
}

static void expect_ok(worker *w, const char *what, CUresult r) {
    if (r != CUDA_SUCCESS) unexpected(w, what, r);
}

/* Queries answer NOT_READY while work is pending (the mock keeps it so until a sync). */
static void expect_done_or_pending(worker *w, const char *what, CUresult r) {
    if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_READY) unexpected(w, what, r);
}

static cushim_stream *any_stream(worker *w) { return w->streams[pick(w, LOCAL)]; }

static cushim_event *any_event(worker *w) { return w->events[pick(w, LOCAL)]; }

/* ------------------------------------------------------------------------------------------ */
/* Operations                                                                                 */
/* ------------------------------------------------------------------------------------------ */

static void op_create_stream(worker *w) {
    unsigned i = pick(w, LOCAL);
    cushim_stream_release(w->streams[i]); /* NULL when the slot is empty */
    w->streams[i] = NULL;
    unsigned flags = pick(w, 2) ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT;
    int priority = prio_greatest + (int)pick(w, (unsigned)(prio_least - prio_greatest + 1));
    expect_ok(w, "cushim_stream_create",
              cushim_stream_create(&w->streams[i], ctxs[pick(w, 2)], flags, priority));
}

static void op_create_event(worker *w) {
    static const unsigned flags[] = {CU_EVENT_DEFAULT, CU_EVENT_BLOCKING_SYNC,
                                     CU_EVENT_DISABLE_TIMING,
                                     CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS};
    unsigned i = pick(w, LOCAL);
    cushim_event_release(w->events[i]);
    w->events[i] = NULL;
    expect_ok(w, "cushim_event_create",
              cushim_event_create(&w->events[i], ctxs[pick(w, 2)], flags[pick(w, 4)]));
}

/* Records on a stream of the event's context, or on that context's default stream. */
static void op_record(worker *w) {
    cushim_event *e = any_event(w);
    if (e == NULL) return;
    cushim_stream *s = any_stream(w);
    if (s != NULL && cushim_stream_context(s) != cushim_event_context(e)) s = NULL;
    expect_ok(w, "cushim_event_record", cushim_event_record(e, s));
}

static void op_query(worker *w) {
    cushim_stream *s = any_stream(w);
    cushim_event *e = any_event(w);
    if (s != NULL) expect_done_or_pending(w, "cushim_stream_query", cushim_stream_query(s));
    if (e != NULL) expect_done_or_pending(w, "cushim_event_query", cushim_event_query(e));
}

/* A stream (or a default stream) waits for an event, of either context. */
static void op_wait(worker *w) {
    cushim_event *e = any_event(w);
    if (e == NULL) return;
    expect_ok(w, "cushim_stream_wait_event", cushim_stream_wait_event(any_stream(w), e, 0));
}

static void op_synchronize(worker *w) {
    switch (pick(w, 3)) {
    case 0: {
        cushim_stream *s = any_stream(w);
        if (s != NULL) expect_ok(w, "cushim_stream_synchronize", cushim_stream_synchronize(s));
        break;
    }
    case 1: {
        cushim_event *e = any_event(w);
        if (e != NULL) expect_ok(w, "cushim_event_synchronize", cushim_event_synchronize(e));
        break;
    }
    default:
        expect_ok(w, "cushim_context_synchronize", cushim_context_synchronize(ctxs[pick(w, 2)]));
        break;
    }
}

static void op_retain(worker *w) {
    cushim_stream *s = any_stream(w);
    cushim_event *e = any_event(w);
    cushim_context *c = ctxs[pick(w, 2)];
    /* Release what retain returned: NULL after a failed retain, which release ignores. */
    cushim_stream *s2 = cushim_stream_retain(s);
    cushim_event *e2 = cushim_event_retain(e);
    cushim_context *c2 = cushim_context_retain(c);
    if (s2 != s || e2 != e || c2 != c) unexpected(w, "a retain", CUDA_SUCCESS);
    if (s2 != NULL) expect_done_or_pending(w, "cushim_stream_query", cushim_stream_query(s2));
    cushim_stream_release(s2);
    cushim_event_release(e2);
    cushim_context_release(c2);
}

/* Hands one of this thread's objects to the shared array; what it replaces is released outside
 * the lock, as a destroy calls the driver. */
static void op_publish(worker *w) {
    unsigned slot = pick(w, SLOTS);
    if (pick(w, 2)) {
        cushim_stream *s = cushim_stream_retain(any_stream(w));
        if (s == NULL) return;
        pthread_mutex_lock(&shared_lock);
        cushim_stream *old = shared_streams[slot];
        shared_streams[slot] = s;
        pthread_mutex_unlock(&shared_lock);
        cushim_stream_release(old);
    } else {
        cushim_event *e = cushim_event_retain(any_event(w));
        if (e == NULL) return;
        pthread_mutex_lock(&shared_lock);
        cushim_event *old = shared_events[slot];
        shared_events[slot] = e;
        pthread_mutex_unlock(&shared_lock);
        cushim_event_release(old);
    }
}

/* Takes a reference to shared objects under the lock and uses them outside it; meanwhile
 * another thread may replace them in the array and drop the array's reference. */
static void op_borrow(worker *w) {
    pthread_mutex_lock(&shared_lock);
    cushim_stream *s = cushim_stream_retain(shared_streams[pick(w, SLOTS)]);
    cushim_event *e = cushim_event_retain(shared_events[pick(w, SLOTS)]);
    pthread_mutex_unlock(&shared_lock);
    if (s != NULL) expect_done_or_pending(w, "shared stream query", cushim_stream_query(s));
    if (e != NULL) {
        expect_done_or_pending(w, "shared event query", cushim_event_query(e));
        expect_ok(w, "wait on a shared event", cushim_stream_wait_event(any_stream(w), e, 0));
    }
    if (s != NULL && e != NULL && cushim_stream_context(s) == cushim_event_context(e)) {
        expect_ok(w, "record a shared event", cushim_event_record(e, s));
    }
    /* The retain above may have been of a NULL slot: release takes NULL. */
    cushim_stream_release(s);
    cushim_event_release(e);
}

static void op_launch(worker *w) {
    unsigned k = pick(w, 2);
    cushim_stream *s = any_stream(w);
    if (s != NULL && cushim_stream_context(s) != ctxs[k]) s = NULL;
    cushim_launch_config cfg = {.grid = CUSHIM_DIM3(1 + pick(w, 4)),
                                .block = CUSHIM_DIM3(32 * (1 + pick(w, 8))),
                                .shared_mem_bytes = 0,
                                .stream = s};
    if (pick(w, 4) == 0) {
        expect_ok(w, "cushim_launch_cooperative", cushim_launch_cooperative(fns[k], &cfg, NULL));
    } else {
        expect_ok(w, "cushim_launch", cushim_launch(fns[k], &cfg, NULL));
    }
}

static void op_kernel_queries(worker *w) {
    unsigned k = pick(w, 2);
    cushim_function *f = NULL;
    expect_ok(w, "cushim_module_function", cushim_module_function(&f, mods[k], KERNEL));
    if (f != fns[k]) unexpected(w, "a second object for one kernel", CUDA_SUCCESS);
    int blocks = 0;
    expect_ok(w, "cushim_occupancy_max_active_blocks",
              cushim_occupancy_max_active_blocks(&blocks, fns[k], 32 * (1 + (int)pick(w, 32)), 0));
    if (blocks <= 0) unexpected(w, "no active blocks", CUDA_SUCCESS);
}

/* A primary context retained and released by many threads at once, with a stream on it. */
static void op_primary(worker *w) {
    cushim_context *c = NULL;
    expect_ok(w, "cushim_context_primary", cushim_context_primary(&c, 0));
    if (c == NULL) return;
    cushim_stream *s = NULL;
    expect_ok(w, "stream on a primary context", cushim_stream_create(&s, c, 0, 0));
    cushim_context_release(c); /* the stream holds the context now */
    if (s != NULL) expect_ok(w, "cushim_stream_synchronize", cushim_stream_synchronize(s));
    cushim_stream_release(s);
}

static void op_elapsed(worker *w) {
    cushim_context *c = ctxs[pick(w, 2)];
    cushim_event *a = NULL, *b = NULL;
    expect_ok(w, "cushim_event_create", cushim_event_create(&a, c, 0));
    expect_ok(w, "cushim_event_create", cushim_event_create(&b, c, 0));
    if (a != NULL && b != NULL) {
        expect_ok(w, "record start", cushim_event_record(a, NULL));
        expect_ok(w, "record end", cushim_event_record(b, NULL));
        expect_ok(w, "cushim_event_synchronize", cushim_event_synchronize(b));
        float ms = -1;
        expect_ok(w, "cushim_event_elapsed_ms", cushim_event_elapsed_ms(&ms, a, b));
        if (ms < 0) unexpected(w, "a negative time", CUDA_SUCCESS);
    }
    cushim_event_release(a);
    cushim_event_release(b);
}

static void op_release(worker *w) {
    unsigned i = pick(w, LOCAL);
    if (pick(w, 2)) {
        cushim_stream_release(w->streams[i]);
        w->streams[i] = NULL;
    } else {
        cushim_event_release(w->events[i]);
        w->events[i] = NULL;
    }
}

/* The caches under the others' feet: a trim, or a switch of either kind (mostly on, so that the
 * caches keep working). */
static void op_recycling(worker *w) {
    cushim_context *c = ctxs[pick(w, 2)];
    if (pick(w, 2)) {
        expect_ok(w, "cushim_context_trim", cushim_context_trim(c));
    } else {
        expect_ok(w, "cushim_context_set_recycling",
                  cushim_context_set_recycling(c, pick(w, 4) != 0, pick(w, 4) != 0));
    }
    cushim_recycling info;
    expect_ok(w, "cushim_context_recycling", cushim_context_recycling(&info, c));
    if (info.streams_held > info.streams_max) unexpected(w, "a stream cache past its bound", 0);
}

static void (*const ops[])(worker *) = {
    op_create_stream, op_create_event, op_record,       op_record,         op_query,
    op_query,         op_wait,         op_synchronize,  op_retain,         op_publish,
    op_borrow,        op_borrow,       op_launch,       op_kernel_queries, op_primary,
    op_elapsed,       op_release,      op_create_event, op_release,        op_recycling,
};

/* ------------------------------------------------------------------------------------------ */
/* The threads                                                                                */
/* ------------------------------------------------------------------------------------------ */

static bool past(const struct timespec *deadline) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > deadline->tv_sec ||
           (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

static bool at_home(const worker *w) {
    CUcontext cur = NULL;
    return cushim_driver()->cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == w->home &&
           mock.current() == w->home;
}

static void *work(void *arg) {
    worker *w = arg;
    expect_ok(w, "cuCtxSetCurrent", cushim_driver()->cuCtxSetCurrent(w->home));
    w->home_kept = true;
    pthread_barrier_wait(&start);
    for (long i = 0; i < MAX_ITERATIONS && !past(&w->deadline); i++) {
        ops[pick(w, sizeof ops / sizeof ops[0])](w);
        w->ops++;
        /* Every call restores what it switched; check now and then, not only at the end. */
        if ((i & 255) == 0 && !at_home(w)) w->home_kept = false;
    }
    for (int i = 0; i < LOCAL; i++) {
        cushim_stream_release(w->streams[i]);
        cushim_event_release(w->events[i]);
    }
    if (!at_home(w)) w->home_kept = false;
    return NULL;
}

static int setup(void **state) {
    if (mock_setup(state) != 0) return -1;
    /* The shared test log is not thread-safe: count from any thread instead. */
    cushim_log_set_handler(count_log, NULL, CUSHIM_LOG_WARN);
    return 0;
}

static void test_mixed_workload_from_8_threads(void **state) {
    (void)state;
    assert_ok(cushim_context_create(&ctxs[0], 0, 0));
    assert_ok(cushim_context_primary(&ctxs[1], 0));
    for (int k = 0; k < 2; k++) {
        assert_ok(cushim_module_load_data(&mods[k], ctxs[k], ptx));
        assert_ok(cushim_module_function(&fns[k], mods[k], KERNEL));
    }
    assert_ok(cushim_context_stream_priority_range(&prio_least, &prio_greatest, ctxs[0]));
    const int contexts = mock.live(CUSHIM_MOCK_CONTEXT);
    assert_int_equal(contexts, 2);
    assert_int_equal(mock.live(CUSHIM_MOCK_STREAM), 0);
    assert_int_equal(mock.live(CUSHIM_MOCK_EVENT), 0);
    CUcontext main_current = mock.current();

    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += RUN_NS / 1000000000LL;
    deadline.tv_nsec += RUN_NS % 1000000000LL;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_t t[THREADS];
    assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
    for (int i = 0; i < THREADS; i++) {
        worker *w = &workers[i];
        memset(w, 0, sizeof *w);
        w->seed = 2654435761u * (unsigned)(i + 1);
        /* A third of the threads keep no context current, the others one of the two. */
        w->home = i % 3 == 0 ? NULL : cushim_context_raw(ctxs[i % 3 - 1]);
        w->deadline = deadline;
        assert_int_equal(pthread_create(&t[i], NULL, work, w), 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < SLOTS; i++) {
        cushim_stream_release(shared_streams[i]);
        cushim_event_release(shared_events[i]);
        shared_streams[i] = NULL;
        shared_events[i] = NULL;
    }

    long total = 0;
    for (int i = 0; i < THREADS; i++) {
        const worker *w = &workers[i];
        total += w->ops;
        if (w->unexpected)
            printf("# thread %d: %ld unexpected, first: %s\n", i, w->unexpected, w->first);
        assert_int_equal(w->unexpected, 0);
        assert_true(w->home_kept);
        assert_true(w->ops > 0);
    }
    printf("# %ld operations from %d threads, %d launches\n", total, THREADS, mock.launch_count());
    if (atomic_load(&logged) != 0) printf("# logged: %s\n", first_logged);
    assert_int_equal(atomic_load(&logged), 0);
    /* Every object the threads made is gone or kept in a cache, and a trim destroys those; the
     * contexts and modules are as they were. */
    unsigned held_streams = 0, held_events = 0;
    for (int k = 0; k < 2; k++) {
        cushim_recycling info;
        assert_ok(cushim_context_recycling(&info, ctxs[k]));
        assert_in_range(info.streams_held, 0, info.streams_max);
        assert_in_range(info.events_held, 0, 4 * info.events_max);
        held_streams += info.streams_held;
        held_events += info.events_held;
    }
    printf("# kept at the end: %u streams, %u events\n", held_streams, held_events);
    assert_int_equal(mock.live(CUSHIM_MOCK_STREAM), held_streams);
    assert_int_equal(mock.live(CUSHIM_MOCK_EVENT), held_events);
    for (int k = 0; k < 2; k++) assert_ok(cushim_context_trim(ctxs[k]));
    assert_int_equal(mock.live(CUSHIM_MOCK_STREAM), 0);
    assert_int_equal(mock.live(CUSHIM_MOCK_EVENT), 0);
    assert_int_equal(mock.live(CUSHIM_MOCK_CONTEXT), contexts);
    assert_int_equal(mock.live(CUSHIM_MOCK_MODULE), 2);
    assert_int_equal(mock.primary_refcount(0), 1);
    assert_ptr_equal(mock.current(), main_current);
    for (int k = 0; k < 2; k++) {
        cushim_module_release(mods[k]);
        cushim_context_release(ctxs[k]);
    }
    assert_int_equal(mock.live(CUSHIM_MOCK_MODULE), 0);
    assert_int_equal(mock.live(CUSHIM_MOCK_CONTEXT), 0);
    assert_int_equal(mock.primary_refcount(0), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_mixed_workload_from_8_threads, setup, mock_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
