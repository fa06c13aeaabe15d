/* Hooks on the mock: they see every call with its arguments and result, per entry or for all,
 * can change an argument, and can be added and removed while other threads call the driver (run
 * under ThreadSanitizer in CI). Also cushim_trace_start's and cushim_trace_stop's codes. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "testutil.h"

typedef struct seen {
    int before, after;
    char names[16][48];
    CUresult results[16];
    size_t bytes; /* cuMemAlloc's bytesize, as the before hook saw it */
    unsigned long long start, end;
} seen;

static void record_before(const cushim_hook_call *c, void *user) {
    seen *s = user;
    if (s->before < 16) snprintf(s->names[s->before], sizeof s->names[0], "%s", c->entry);
    if (strcmp(c->entry, "cuMemAlloc") == 0) s->bytes = *(size_t *)c->args[1];
    s->before++;
}

static void record_after(const cushim_hook_call *c, void *user) {
    seen *s = user;
    if (s->after < 16) s->results[s->after] = c->result;
    s->start = c->start_ns;
    s->end = c->end_ns;
    s->after++;
}

static void test_an_all_hook_sees_every_call_in_order(void **state) {
    (void)state;
    seen s = {0};
    unsigned long long id;
    assert_ok(cushim_hook_add(NULL, record_before, record_after, &s, &id));
    const cushim_driver_table *t = cushim_driver();
    CUdevice dev;
    CUdeviceptr p;
    CUcontext ctx;
    assert_ok(t->cuDeviceGet(&dev, 0));
    assert_cu(CUDA_ERROR_INVALID_DEVICE, t->cuDeviceGet(&dev, 99));
    assert_ok(t->cuDevicePrimaryCtxRetain(&ctx, dev));
    assert_ok(t->cuCtxSetCurrent(ctx));
    assert_ok(t->cuMemAlloc(&p, 12345));
    assert_ok(t->cuMemFree(p));
    assert_ok(t->cuDevicePrimaryCtxRelease(dev));
    assert_ok(cushim_hook_remove(id));
    assert_ok(t->cuCtxSetCurrent(NULL)); /* not seen: removed */
    assert_int_equal(s.before, 7);
    assert_int_equal(s.after, 7);
    const char *want[] = {
        "cuDeviceGet", "cuDeviceGet", "cuDevicePrimaryCtxRetain", "cuCtxSetCurrent",
        "cuMemAlloc",  "cuMemFree",   "cuDevicePrimaryCtxRelease"};
    for (int k = 0; k < 7; k++) assert_string_equal(s.names[k], want[k]);
    assert_cu(CUDA_SUCCESS, s.results[0]);
    assert_cu(CUDA_ERROR_INVALID_DEVICE, s.results[1]);
    assert_int_equal(s.bytes, 12345);
    assert_true(s.end >= s.start && s.start != 0);
    assert_cu(CUDA_ERROR_INVALID_HANDLE, cushim_hook_remove(id));
}

static void test_an_entry_hook_sees_its_entry_only_also_from_cushim(void **state) {
    (void)state;
    seen s = {0};
    unsigned long long id;
    /* The entry cushim_stream_create calls. */
    assert_ok(cushim_hook_add("cuStreamCreateWithPriority", NULL, record_after, &s, &id));
    cushim_context *ctx;
    cushim_stream *st;
    assert_ok(cushim_context_create(&ctx, 0, 0));
    assert_ok(cushim_context_set_recycling(ctx, false, false));
    assert_ok(cushim_stream_create(&st, ctx, 0, 0)); /* cushim's own call goes through the slot */
    cushim_stream_release(st);
    cushim_context_release(ctx);
    assert_ok(cushim_hook_remove(id));
    assert_int_equal(s.after, 1);
    assert_int_equal(s.before, 0);
}

/* A before hook may change an argument: the driver gets the new value. */
static void double_size(const cushim_hook_call *c, void *user) {
    (void)user;
    *(size_t *)c->args[1] *= 2;
}

static void test_a_before_hook_can_change_an_argument(void **state) {
    (void)state;
    unsigned long long id;
    assert_ok(cushim_hook_add("cuMemAlloc_v2", double_size, NULL, NULL, &id));
    const cushim_driver_table *t = cushim_driver();
    CUcontext ctx;
    CUdeviceptr p, base;
    size_t size = 0;
    assert_ok(t->cuDevicePrimaryCtxRetain(&ctx, 0));
    assert_ok(t->cuCtxSetCurrent(ctx));
    assert_ok(t->cuMemAlloc(&p, 1000));
    assert_ok(cushim_hook_remove(id));
    assert_ok(t->cuMemGetAddressRange(&base, &size, p));
    assert_int_equal(size, 2000);
    assert_ok(t->cuMemFree(p));
    assert_ok(t->cuDevicePrimaryCtxRelease(0));
}

static void test_codes(void **state) {
    (void)state;
    unsigned long long id;
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_hook_add(NULL, record_before, NULL, NULL, NULL));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_hook_add(NULL, NULL, NULL, NULL, &id));
    assert_cu(CUDA_ERROR_NOT_FOUND,
              cushim_hook_add("cuNoSuchEntry", record_before, NULL, NULL, &id));
    assert_non_null(strstr(cushim_last_error(), "cuNoSuchEntry"));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, cushim_hook_remove(12345));
    unsigned long long ids[64];
    for (int k = 0; k < 64; k++)
        assert_ok(cushim_hook_add(NULL, record_before, NULL, NULL, &ids[k]));
    assert_cu(CUDA_ERROR_OUT_OF_MEMORY, cushim_hook_add(NULL, record_before, NULL, NULL, &id));
    for (int k = 0; k < 64; k++) assert_ok(cushim_hook_remove(ids[k]));

    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_trace_start(NULL, NULL));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_trace_start("everything", NULL));
    assert_cu(CUDA_ERROR_FILE_NOT_FOUND, cushim_trace_start("timeline", "/nonexistent/d/t.json"));
    assert_ok(cushim_trace_stop());
    assert_ok(cushim_trace_start("summary", "/dev/null"));
    assert_cu(CUDA_ERROR_ILLEGAL_STATE, cushim_trace_start("summary", "/dev/null"));
    assert_ok(cushim_trace_stop());
    assert_ok(cushim_trace_stop());
}

/* Threads call the driver while the main thread adds and removes hooks; once a remove has
 * returned, its hook is never called again. */
#define THREADS 4
static atomic_bool stop;
static atomic_int calls_in_hook;
static atomic_bool removed_and_called;
static atomic_bool current_removed;

static void count(const cushim_hook_call *c, void *user) {
    (void)c;
    (void)user;
    if (atomic_load(&current_removed)) atomic_store(&removed_and_called, true);
    atomic_fetch_add(&calls_in_hook, 1);
}

static void *caller(void *arg) {
    (void)arg;
    const cushim_driver_table *t = cushim_driver();
    while (!atomic_load(&stop)) {
        int n;
        CUcontext c;
        (void)t->cuDeviceGetCount(&n);
        (void)t->cuCtxGetCurrent(&c);
    }
    return NULL;
}

static void test_hooks_come_and_go_while_threads_call(void **state) {
    (void)state;
    pthread_t t[THREADS];
    for (int k = 0; k < THREADS; k++) pthread_create(&t[k], NULL, caller, NULL);
    for (int round = 0; round < 300; round++) {
        unsigned long long id;
        atomic_store(&current_removed, false);
        assert_ok(cushim_hook_add(round % 2 ? NULL : "cuDeviceGetCount", count, count, NULL, &id));
        while (atomic_load(&calls_in_hook) < round) sched_yield();
        assert_ok(cushim_hook_remove(id));
        atomic_store(&current_removed, true);
        for (int k = 0; k < 100; k++) sched_yield();
    }
    atomic_store(&stop, true);
    for (int k = 0; k < THREADS; k++) pthread_join(t[k], NULL);
    assert_false(atomic_load(&removed_and_called));
    assert_true(atomic_load(&calls_in_hook) >= 300);
}

/* The tracer's per-thread buffers: every line or event reaches the file, whether its thread
 * exited before the stop (written at its exit), still runs at the stop (written by the stop), or
 * filled its buffer on the way (written as a block); the calls of the tracer's fast path
 * (cuCtxSynchronize: its arguments are words) and of its hook (cuDeviceGetCount: an output)
 * alike, as many calls per thread as before the fast path. */
#define TRACED_CALLS 1500 /* a line is near 50 bytes: more than one buffer of 64 KiB */
static atomic_bool parked_may_go, parked_done;

static void *traced_caller(void *arg) {
    const cushim_driver_table *t = cushim_driver();
    for (int k = 0; k < TRACED_CALLS / 2; k++) {
        int n;
        (void)t->cuDeviceGetCount(&n);
        (void)t->cuCtxSynchronize();
    }
    if (arg != NULL) {
        atomic_store(&parked_done, true);
        while (!atomic_load(&parked_may_go)) sched_yield();
    }
    return NULL;
}

static size_t count_in(const char *text, const char *what) {
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p++) n++;
    return n;
}

/* The trace file's text (n bytes, 4 MiB at most), the file removed. */
static const char *take_file(const char *path, size_t *n) {
    static char text[4 << 20];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    *n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    unlink(path);
    text[*n] = '\0';
    return text;
}

static void test_every_thread_s_lines_reach_the_file(void **state) {
    (void)state;
    static const char *const whats[2] = {"calls", "timeline"};
    static const char *const marks[2][2] = {
        {"] cuDeviceGetCount(count=[", "] cuCtxSynchronize() = "},
        {"{\"name\":\"cuDeviceGetCount\"", "{\"name\":\"cuCtxSynchronize\""}};
    char path[64];
    snprintf(path, sizeof path, "/tmp/cushim-test-hooks-%ld", (long)getpid());
    for (int m = 0; m < 2; m++) {
        assert_ok(cushim_trace_start(whats[m], path));
        pthread_t t[THREADS], parked;
        atomic_store(&parked_may_go, false);
        atomic_store(&parked_done, false);
        pthread_create(&parked, NULL, traced_caller, (void *)&parked_may_go);
        for (int k = 0; k < THREADS; k++) pthread_create(&t[k], NULL, traced_caller, NULL);
        for (int k = 0; k < THREADS; k++) pthread_join(t[k], NULL);
        (void)traced_caller(NULL); /* this thread's lines, written by the stop */
        while (!atomic_load(&parked_done)) sched_yield();
        assert_ok(cushim_trace_stop()); /* the parked thread's too: it still runs */
        atomic_store(&parked_may_go, true);
        pthread_join(parked, NULL);

        size_t n;
        const char *text = take_file(path, &n);
        assert_int_equal(count_in(text, marks[m][0]), (THREADS + 2) * TRACED_CALLS / 2);
        assert_int_equal(count_in(text, marks[m][1]), (THREADS + 2) * TRACED_CALLS / 2);
        if (m == 0) {
            assert_int_equal(count_in(text, "\n"), (THREADS + 2) * TRACED_CALLS);
        } else {
            /* One JSON array: "[" and the first event, events joined by ",\n", then "]". */
            assert_true(strncmp(text, "[\n{", 3) == 0);
            assert_int_equal(count_in(text, "},\n{"), (THREADS + 2) * TRACED_CALLS - 1);
            assert_string_equal(text + n - 3, "\n]\n");
        }
    }
}

/* A hook added while the tracer runs sees the calls that the tracer alone takes on its fast
 * path, and the tracer traces them all, before, while and after the hook is installed. */
static void count_inits(const cushim_hook_call *c, void *user) {
    if (strcmp(c->entry, "cuInit") == 0) ++*(int *)user;
}

static void test_a_hook_beside_the_tracer_sees_every_call(void **state) {
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/cushim-test-hooks-fast-%ld", (long)getpid());
    const cushim_driver_table *t = cushim_driver();
    assert_ok(cushim_trace_start("calls", path));
    assert_ok(t->cuInit(0));
    int inits = 0;
    unsigned long long id;
    assert_ok(cushim_hook_add(NULL, NULL, count_inits, &inits, &id));
    for (int k = 0; k < 3; k++) assert_ok(t->cuInit(0));
    assert_ok(cushim_hook_remove(id));
    assert_ok(t->cuInit(0));
    assert_ok(cushim_trace_stop());
    assert_int_equal(inits, 3);
    size_t n;
    assert_int_equal(count_in(take_file(path, &n), "] cuInit(Flags=0) = CUDA_SUCCESS ("), 5);
}

/* A hook that removes itself and then calls the driver, from inside its own call: that call is
 * not traced (a call made inside a hook never is), though the tracer is by then the only hook
 * and takes the calls after it on its fast path. */
typedef struct quitter {
    unsigned long long id;
    int inner;
} quitter;

static void quit_then_call(const cushim_hook_call *c, void *user) {
    quitter *q = user;
    if (strcmp(c->entry, "cuInit") != 0 || q->inner++ > 0) return;
    assert_ok(cushim_hook_remove(q->id));
    assert_ok(cushim_driver()->cuInit(0));
}

static void test_a_call_inside_a_hook_that_removed_itself_is_not_traced(void **state) {
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/cushim-test-hooks-quit-%ld", (long)getpid());
    const cushim_driver_table *t = cushim_driver();
    assert_ok(cushim_trace_start("calls", path));
    quitter q = {0, 0};
    assert_ok(cushim_hook_add(NULL, quit_then_call, NULL, &q, &q.id));
    assert_ok(t->cuInit(0)); /* traced; the hook's own cuInit inside it is not */
    for (int k = 0; k < 2; k++) assert_ok(t->cuInit(0));
    assert_ok(cushim_trace_stop());
    assert_int_equal(q.inner, 1);
    size_t n;
    assert_int_equal(count_in(take_file(path, &n), "] cuInit(Flags=0) = CUDA_SUCCESS ("), 3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_an_all_hook_sees_every_call_in_order, mock_setup,
                                        mock_teardown),
        cmocka_unit_test_setup_teardown(test_an_entry_hook_sees_its_entry_only_also_from_cushim,
                                        mock_setup, mock_teardown),
        cmocka_unit_test_setup_teardown(test_a_before_hook_can_change_an_argument, mock_setup,
                                        mock_teardown),
        cmocka_unit_test_setup_teardown(test_codes, mock_setup, mock_teardown),
        cmocka_unit_test_setup_teardown(test_hooks_come_and_go_while_threads_call, mock_setup,
                                        mock_teardown),
        cmocka_unit_test_setup_teardown(test_every_thread_s_lines_reach_the_file, mock_setup,
                                        mock_teardown),
        cmocka_unit_test_setup_teardown(test_a_hook_beside_the_tracer_sees_every_call, mock_setup,
                                        mock_teardown),
        cmocka_unit_test_setup_teardown(test_a_call_inside_a_hook_that_removed_itself_is_not_traced,
                                        mock_setup, mock_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
