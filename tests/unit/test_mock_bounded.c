/* The mock's memory is bounded: launches, and streams and events made and destroyed (recycling
 * off, so each reaches the driver), do not grow the process once the mock's rings are full,
 * while a stale handle is still named. MOCK_BOUNDED_OPS (100000 by default) sets how many of
 * each run after the warm-up; the growth of the resident set is printed and bounded. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "rss_util.h"

#include <cudaTypedefs.h>
#include <dlfcn.h>

static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n\n"
                          ".visible .entry bounded()\n{\n\tret;\n}\n";

static long rss_kib(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    assert_non_null(f);
    long pages = 0, resident = 0;
    assert_int_equal(fscanf(f, "%ld %ld", &pages, &resident), 2);
    fclose(f);
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static void run_kernel(const cushim_mock_kernel_args *a) { (void)a; }

static cushim_context *ctx;
static cushim_function *fn;
static cushim_stream *stream;

/* n launches, synchronized every 1024, then n stream and n event create-destroy pairs. */
static void work(long n) {
    cushim_launch_config cfg = {
        .grid = CUSHIM_DIM3(1), .block = CUSHIM_DIM3(32), .shared_mem_bytes = 0, .stream = stream};
    for (long i = 0; i < n; i++) {
        assert_ok(cushim_launch(fn, &cfg, NULL));
        if (i % 1024 == 1023) assert_ok(cushim_stream_synchronize(stream));
    }
    assert_ok(cushim_stream_synchronize(stream));
    for (long i = 0; i < n; i++) {
        cushim_stream *s = NULL;
        cushim_event *e = NULL;
        if (cushim_stream_create(&s, ctx, 0, 0) != CUDA_SUCCESS ||
            cushim_event_create(&e, ctx, 0) != CUDA_SUCCESS) {
            fail_msg("create %ld: %s", i, cushim_last_error());
        }
        cushim_event_release(e);
        cushim_stream_release(s);
    }
}

static void test_memory_is_flat(void **state) {
    (void)state;
    const char *env = getenv("MOCK_BOUNDED_OPS");
    bool bound = !rss_measured_elsewhere();
    long n = env ? atol(env) : bound ? 100000 : 1000;
    cushim_module *m = NULL;
    assert_ok(cushim_context_create(&ctx, 0, 0));
    assert_ok(cushim_context_set_recycling(ctx, false, false));
    assert_ok(cushim_module_load_data(&m, ctx, ptx));
    assert_ok(cushim_module_function(&fn, m, "bounded"));
    assert_ok(cushim_stream_create(&stream, ctx, 0, 0));
    mock.register_kernel("bounded", run_kernel);
    work(bound ? 20000 : 5000); /* fills the rings: the last calls, launches and dead records */
    long before = rss_kib();
    work(n);
    long after = rss_kib();
    fprintf(stderr,
            "# mock memory: %ld launches and %ld stream and event create-destroy pairs: "
            "RSS %ld KiB -> %ld KiB (%+ld KiB)\n",
            n, n, before, after, after - before);
    if (bound) assert_true(after - before < 4096);
    /* Counts are whole; the log and the launch records keep the last ones. */
    int launches = mock.launch_count();
    assert_int_equal(launches, (int)((bound ? 20000 : 5000) + n));
    assert_non_null(mock.launch(launches - 1));
    assert_null(mock.launch(0));
    assert_non_null(mock.call_name(mock.calls("*") - 1));
    cushim_stream_release(stream);
    cushim_module_release(m);
    cushim_context_release(ctx);
}

/* The last destroyed ones are still recognised as destroyed: the mock aborts naming it, in a
 * child. */
static void test_stale_handle_is_named(void **state) {
    (void)state;
    assert_ok(cushim_context_create(&ctx, 0, 0));
    assert_ok(cushim_context_set_recycling(ctx, false, false));
    const cushim_driver_table *t = cushim_driver();
    make_current(ctx);
    CUstream first = NULL;
    assert_ok(t->cuStreamCreate(&first, 0));
    assert_ok(t->cuStreamDestroy(first));
    for (int i = 0; i < 4000; i++) { /* fewer than the 4096 kept dead */
        CUstream s = NULL;
        assert_ok(t->cuStreamCreate(&s, 0));
        assert_ptr_not_equal(s, first);
        assert_ok(t->cuStreamDestroy(s));
    }
    FILE *said = tmpfile();
    assert_non_null(said);
    mock.set_memory_errors_fatal(true); /* a test asks for the abort */
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGABRT, SIG_DFL); /* cmocka's handler would catch it */
        dup2(fileno(said), 2);
        /* Past cushim, whose table refuses every call in a forked child. */
        void *h = dlopen(getenv("CUSHIM_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
        void *sym = h ? dlsym(h, "cuGetProcAddress_v2") : NULL;
        if (sym == NULL) _exit(2);
        PFN_cuGetProcAddress_v12000 gpa;
        memcpy(&gpa, &sym, sizeof gpa);
        void *query = NULL;
        CUdriverProcAddressQueryResult found;
        if (gpa("cuStreamQuery", &query, 13000, 0, &found) != CUDA_SUCCESS) _exit(3);
        PFN_cuStreamQuery_v2000 stream_query;
        memcpy(&stream_query, &query, sizeof stream_query);
        stream_query(first); /* aborts: already destroyed */
        _exit(0);
    }
    mock.set_memory_errors_fatal(false);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    char text[512] = "";
    rewind(said);
    text[fread(text, 1, sizeof text - 1, said)] = '\0';
    fclose(said);
    assert_non_null(strstr(text, "cuStreamQuery: stream"));
    assert_non_null(strstr(text, "was already destroyed"));
    make_current(NULL);
    cushim_context_release(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_memory_is_flat, mock_setup, mock_teardown),
        cmocka_unit_test_setup_teardown(test_stale_handle_is_named, mock_setup, mock_teardown),
    };
    return cmocka_run_group_tests_name("mock_bounded", tests, NULL, NULL);
}
