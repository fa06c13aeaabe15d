/* CUSHIM_MOCK_CHECK on the suite of buggy kernels (cu/, committed as PTX with -lineinfo in
 * ptx/sanitizer/): each is caught by the check meant for it, and the report names the check, the
 * kernel, block, thread, warp, PTX line and CUDA source line; without the check the same launch
 * succeeds. Also the mode that reports and goes on, the per-context switch, use after free, a
 * host pointer and a leak at a context's destruction. */
#include <stdlib.h>

#include "sanitizer_fixture.h"
#include "stderr_of.h"

/* Kernel `name` of ptx/sanitizer/NAME.ptx. */
static CUfunction load(const char *name) { return load_ptx(PTX_DIR, name, name); }

/* Launches fn on one block of `threads` with params, then synchronises: the first error. */
static CUresult launch(CUfunction fn, unsigned threads, void **params) {
    CUresult r = t->cuLaunchKernel(fn, 1, 1, 1, threads, 1, 1, 0, NULL, params, NULL);
    return r != CUDA_SUCCESS ? r : t->cuCtxSynchronize();
}

/* Checks that text holds part; the first check of a text also shows it (a TAP comment), so
 * that a run lists each kernel's report. */
static void assert_has(const char *report, const char *part) {
    static char shown[1024];
    const char *text = report != NULL ? report : "(no report)";
    if (strcmp(text, shown) != 0) printf("# report: %s\n", text);
    snprintf(shown, sizeof shown, "%s", text);
    if (strstr(text, part) == NULL) fail_msg("\"%s\" is not in \"%s\"", part, text);
}

/* Runs kernel `name` (one int* parameter, an array of 256) on `threads` with `checks` for this
 * launch only: its result. */
static CUresult run_checked(const char *name, unsigned threads, unsigned checks) {
    CUfunction fn = load(name);
    CUdeviceptr out;
    assert_ok(t->cuMemAlloc(&out, 256 * sizeof(int)));
    assert_ok(t->cuMemsetD32(out, 1, 256)); /* not 0: a sum of zeros stores what was there */
    void *params[] = {&out, &out};
    CUdeviceptr in = out; /* race_reduce takes (in, out) */
    params[0] = &in;
    mock.set_next_launch_check(checks);
    CUresult r = launch(fn, threads, params);
    t->cuMemFree(out);
    return r;
}

/* Runs kernel `name` as run_checked does, asserts that a check failed its launch, and returns
 * the report. */
static const char *failed_report(const char *name, unsigned threads, unsigned checks) {
    assert_int_equal(run_checked(name, threads, checks), CUDA_ERROR_LAUNCH_FAILED);
    return mock.kernel_error();
}

static void test_missing_barrier_in_reduction_is_a_race(void **state) {
    (void)state;
    const char *e = failed_report("race_reduce", 256, CUSHIM_MOCK_CHECK_RACECHECK);
    assert_has(e, "racecheck: ");
    assert_has(e, "kernel race_reduce, block (0,0,0), thread (32,0,0), PTX line");
    assert_has(e, "(warp 1, race_reduce.cu:9): racecheck: a 4-byte write of shared address 0x80");
    assert_has(e, "a read by thread (0,0,0) (warp 0)");
    assert_has(e, "(write after read)");
}

/* The README's section "Finding races and memory errors without a GPU" quotes the sentence. */
static void test_readme_quotes_the_report(void **state) {
    (void)state;
    assert_int_equal(run_checked("race_reduce", 256, CUSHIM_MOCK_CHECK_RACECHECK),
                     CUDA_ERROR_LAUNCH_FAILED);
    FILE *f = fopen(README, "r");
    assert_non_null(f);
    static char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = 0;
        found = strcmp(line, mock.kernel_error()) == 0;
    }
    fclose(f);
    if (!found) fail_msg("README.md has no line \"%s\"", mock.kernel_error());
}

static void test_unchecked_the_same_launch_succeeds(void **state) {
    (void)state;
    assert_ok(run_checked("race_reduce", 256, 0));
}

static void test_write_after_read_names_both_accesses(void **state) {
    (void)state;
    const char *e = failed_report("race_war", 128, CUSHIM_MOCK_CHECK_ALL);
    assert_has(e, "racecheck: a 4-byte write of shared address 0x80");
    assert_has(e, "thread (32,0,0), PTX line");
    assert_has(e, "(warp 1, race_war.cu:9)");
    assert_has(e, "a read by thread (31,0,0) (warp 0), PTX line");
    assert_has(e, "race_war.cu:8");
    assert_has(e, "(write after read)");
}

static void test_global_memory_within_a_block(void **state) {
    (void)state;
    const char *e = failed_report("race_global", 64, CUSHIM_MOCK_CHECK_RACECHECK);
    assert_has(e, "thread (32,0,0), PTX line");
    assert_has(e, "(warp 1, race_global.cu:5): racecheck: a 4-byte write of global address 0x");
    assert_has(e, "a read by thread (0,0,0) (warp 0)");
    assert_has(e, "race_global.cu:6");
    assert_has(e, "(write after read)");
}

/* One warp whose even and odd lanes take different sides of a branch, one side writing what
 * the other reads, with no __syncwarp between: only the rule within a warp sees it (the
 * kernel's __syncwarp after the branch orders what follows). */
static void test_divergent_lanes_of_one_warp_race(void **state) {
    (void)state;
    const char *e = failed_report("race_warp", 32, CUSHIM_MOCK_CHECK_RACECHECK);
    /* Lane 0's store leaves s[0] as it was (0 * 3): lane 2's is the first that races. */
    assert_has(e, "kernel race_warp, block (0,0,0), thread (2,0,0), PTX line");
    assert_has(e, "racecheck: a 4-byte write of shared address 0x8 races with a read by thread "
                  "(3,0,0) (warp 0), PTX line");
    assert_has(e, "(lanes of one warp in divergent code, with no __syncwarp between them)");
    assert_true(strstr(e, "race_warp.cu:12") != NULL && strstr(e, "race_warp.cu:14") != NULL);
}

static void test_store_of_the_same_value_only_at_the_strict_level(void **state) {
    (void)state;
    assert_ok(run_checked("race_same", 64, CUSHIM_MOCK_CHECK_RACECHECK));
    const char *e = failed_report("race_same", 64, CUSHIM_MOCK_CHECK_RACECHECK_STRICT);
    assert_has(e, "race_same.cu:5");
    assert_has(e, "write after write");
    assert_has(e, "reported at the strict level only");
}

static void test_barrier_reached_by_one_warp(void **state) {
    (void)state;
    const char *e = failed_report("sync_partial", 256, CUSHIM_MOCK_CHECK_SYNCCHECK);
    assert_has(e, "synccheck: barrier 0 completes with 32 of the block's 256 threads");
    assert_has(e, "sync_partial.cu:7");
}

static void test_named_barrier_with_two_counts(void **state) {
    (void)state;
    const char *e = failed_report("sync_count", 128, CUSHIM_MOCK_CHECK_SYNCCHECK);
    assert_has(e, "synccheck: barrier 1 is waited at with different thread counts (64 and 128");
    assert_has(e, "sync_count.cu:8");
}

static void test_shuffle_mask_names_exited_lanes(void **state) {
    (void)state;
    const char *e = failed_report("sync_shfl", 32, CUSHIM_MOCK_CHECK_SYNCCHECK);
    assert_has(e, "synccheck: shfl.sync with mask 0xffffffff names lanes 0xffff0000");
    assert_has(e, "sync_shfl.cu:5");
}

static void test_unwritten_shared_memory_used_as_an_index(void **state) {
    (void)state;
    const char *e = failed_report("init_shared", 64, CUSHIM_MOCK_CHECK_INITCHECK);
    assert_has(e, "initcheck: the address of a 4-byte read is a value loaded at PTX line");
    assert_has(e, "(init_shared.cu:7) from memory that nothing wrote");
    assert_has(e, "thread (0,0,0)");
    assert_has(e, "(warp 0, init_shared.cu:7)");
}

/* init_global stores in[t] + 1 for in[] half written: the launch succeeds (the values are only
 * stored), and the copy of out[] to the host reports the bytes from the unwritten half, with the
 * kernel and line that stored them. */
static CUdeviceptr g_in, g_out;
static void copy_out_back(void) {
    int host[64];
    assert_ok(t->cuMemcpyDtoH(host, g_out, sizeof host));
}

static void test_unwritten_device_memory_copied_back(void **state) {
    (void)state;
    /* The written bits are kept for allocations made while initcheck is chosen. */
    mock.set_check(cushim_context_raw(ctx), CUSHIM_MOCK_CHECK_INITCHECK, false);
    CUfunction fn = load("init_global");
    assert_ok(t->cuMemAlloc(&g_in, 64 * sizeof(int)));
    assert_ok(t->cuMemAlloc(&g_out, 64 * sizeof(int)));
    assert_ok(t->cuMemsetD32(g_in, 7, 32)); /* the first half written, the second not */
    void *params[] = {&g_in, &g_out};
    assert_ok(launch(fn, 64, params));
    unsigned long long before = mock.check_reports(2);
    const char *e = stderr_of(copy_out_back);
    assert_int_equal(mock.check_reports(2), before + 1);
    assert_has(e, "cushim mock: initcheck: cuMemcpyDtoH copies 128 bytes to the host (the first "
                  "of them 128 bytes into the 256-byte allocation at 0x");
    assert_has(e, "that hold a value read from memory that nothing wrote, stored by kernel "
                  "init_global, block (0,0,0), thread (32,0,0), PTX line");
    assert_has(e, "(warp 1, init_global.cu:4), a value loaded at PTX line");
    /* Written again from the host, the bytes are defined: no report. */
    assert_ok(t->cuMemsetD32(g_out, 0, 64));
    e = stderr_of(copy_out_back);
    assert_int_equal(mock.check_reports(2), before + 1);
    assert_null(strstr(e, "initcheck"));
    t->cuMemFree(g_in);
    t->cuMemFree(g_out);
}

/* A value read from unwritten memory and not used (selp picks the other operand) is no error. */
static void test_unwritten_value_not_used_is_no_error(void **state) {
    (void)state;
    mock.set_check(cushim_context_raw(ctx), CUSHIM_MOCK_CHECK_INITCHECK, false);
    CUfunction fn = load("init_ignored");
    assert_ok(t->cuMemAlloc(&g_in, 64 * sizeof(int)));
    assert_ok(t->cuMemAlloc(&g_out, 64 * sizeof(int)));
    assert_ok(t->cuMemsetD32(g_in, 7, 32));
    void *params[] = {&g_in, &g_out};
    unsigned long long before = mock.check_reports(2);
    assert_ok(launch(fn, 64, params));
    const char *e = stderr_of(copy_out_back);
    assert_null(strstr(e, "initcheck"));
    assert_int_equal(mock.check_reports(2), before);
    int host[64];
    assert_ok(t->cuMemcpyDtoH(host, g_out, sizeof host));
    assert_int_equal(host[0], 7);
    assert_int_equal(host[63], -1);
    t->cuMemFree(g_in);
    t->cuMemFree(g_out);
}

static void test_out_of_bounds_names_the_source_line(void **state) {
    (void)state;
    CUfunction fn = load("mem_oob");
    CUdeviceptr out;
    assert_ok(t->cuMemAlloc(&out, 64 * sizeof(int)));
    unsigned n = 64;
    void *params[] = {&out, &n};
    mock.set_next_launch_check(CUSHIM_MOCK_CHECK_MEMCHECK);
    unsigned long long before = mock.check_reports(0);
    assert_int_equal(launch(fn, 128, params), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_has(mock.kernel_error(), "thread (64,0,0), PTX line");
    assert_has(mock.kernel_error(), "(warp 2, mem_oob.cu:4)");
    assert_int_equal(mock.check_reports(0), before + 1);
    t->cuMemFree(out);
}

static void test_use_after_free(void **state) {
    (void)state;
    CUfunction fn = load("mem_oob");
    CUdeviceptr out;
    assert_ok(t->cuMemAlloc(&out, 64 * sizeof(int)));
    assert_ok(t->cuMemFree(out));
    unsigned n = 16;
    void *params[] = {&out, &n};
    assert_int_equal(launch(fn, 1, params), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_has(mock.kernel_error(), "a use after free");
    assert_has(mock.kernel_error(), "mem_oob.cu:4");
}

static void test_host_pointer_as_device_pointer(void **state) {
    (void)state;
    CUfunction fn = load("mem_oob");
    int *host = malloc(64 * sizeof *host);
    assert_non_null(host);
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)host;
    unsigned n = 16;
    void *params[] = {&p, &n};
    /* A large gap from the mock's allocations: none was made in this test. */
    assert_int_equal(launch(fn, 1, params), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_has(mock.kernel_error(), "a host pointer used as a device pointer");
    free(host);
}

static void test_report_mode_goes_on_and_counts(void **state) {
    (void)state;
    unsigned long long before = mock.check_reports(1);
    mock.set_check(cushim_context_raw(ctx), CUSHIM_MOCK_CHECK_RACECHECK, true);
    CUfunction fn = load("race_reduce");
    CUdeviceptr out;
    assert_ok(t->cuMemAlloc(&out, 256 * sizeof(int)));
    assert_ok(t->cuMemsetD32(out, 1, 256));
    void *params[] = {&out, &out};
    assert_ok(launch(fn, 256, params));
    /* Once per pair of lines in a launch, however many threads race there. */
    unsigned long long n = mock.check_reports(1) - before;
    assert_true(n >= 1 && n <= 4);
    assert_string_equal(mock.kernel_error(), "");
    t->cuMemFree(out);
}

static void test_context_switch_on_and_off(void **state) {
    (void)state;
    mock.set_check(cushim_context_raw(ctx), 0, false);
    mock.set_check(NULL, CUSHIM_MOCK_CHECK_ALL, false); /* the context's choice wins */
    assert_ok(run_checked("race_reduce", 256, 0));
    mock.set_check((CUcontext)(uintptr_t)0x1234, CUSHIM_MOCK_CHECK_ALL, false); /* not a context */
    mock.set_check(cushim_context_raw(ctx), CUSHIM_MOCK_CHECK_RACECHECK, false);
    CUfunction fn = load("race_reduce");
    CUdeviceptr out;
    assert_ok(t->cuMemAlloc(&out, 256 * sizeof(int)));
    assert_ok(t->cuMemsetD32(out, 1, 256)); /* sums of zeros would store what was there */
    void *params[] = {&out, &out};
    assert_int_equal(launch(fn, 256, params), CUDA_ERROR_LAUNCH_FAILED);
    t->cuMemFree(out);
}

static void test_leak_when_the_context_goes(void **state) {
    (void)state;
    cushim_context *c2;
    assert_ok(cushim_context_create(&c2, 0, 0));
    make_current(c2);
    mock.set_check(cushim_context_raw(c2), CUSHIM_MOCK_CHECK_MEMCHECK, false);
    CUdeviceptr p;
    assert_ok(t->cuMemAlloc(&p, 100));
    unsigned long long before = mock.check_reports(0);
    make_current(ctx);
    cushim_context_release(c2);
    assert_int_equal(mock.check_reports(0), before + 1);
}

/* Run with CUSHIM_MOCK_CHECK=racecheck,synccheck and CUSHIM_MOCK_CHECK_MODE=report (argument
 * "env-report"): the environment's choice, reported and gone on. */
static void test_environment_report_mode(void **state) {
    (void)state;
    unsigned long long race = mock.check_reports(1), sync = mock.check_reports(3);
    CUfunction fn = load("race_reduce");
    CUdeviceptr out;
    assert_ok(t->cuMemAlloc(&out, 256 * sizeof(int)));
    assert_ok(t->cuMemsetD32(out, 1, 256));
    void *params[] = {&out, &out};
    assert_ok(launch(fn, 256, params));
    assert_true(mock.check_reports(1) > race);
    assert_ok(t->cuModuleUnload(mod));
    mod = NULL;
    fn = load("sync_partial");
    assert_ok(launch(fn, 256, params));
    assert_int_equal(mock.check_reports(3), sync + 1);
    t->cuMemFree(out);
}

/* Run with CUSHIM_MOCK_CHECK=racecheck,nonsense (argument "env-bad"): a word it does not know
 * turns every check off, with a sentence on stderr. */
static void test_environment_bad_word_checks_nothing(void **state) {
    (void)state;
    unsigned long long race = mock.check_reports(1);
    CUfunction fn = load("race_reduce");
    CUdeviceptr out;
    assert_ok(t->cuMemAlloc(&out, 256 * sizeof(int)));
    assert_ok(t->cuMemsetD32(out, 1, 256));
    void *params[] = {&out, &out};
    assert_ok(launch(fn, 256, params));
    assert_int_equal(mock.check_reports(1), race);
    t->cuMemFree(out);
}

int main(int argc, char **argv) {
    if (argc > 1) {
        const struct CMUnitTest env[] = {
            cmocka_unit_test_setup_teardown(strcmp(argv[1], "env-report") == 0
                                                ? test_environment_report_mode
                                                : test_environment_bad_word_checks_nothing,
                                            setup, teardown),
        };
        return cmocka_run_group_tests(env, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
        T(test_missing_barrier_in_reduction_is_a_race),
        T(test_readme_quotes_the_report),
        T(test_unchecked_the_same_launch_succeeds),
        T(test_write_after_read_names_both_accesses),
        T(test_global_memory_within_a_block),
        T(test_divergent_lanes_of_one_warp_race),
        T(test_store_of_the_same_value_only_at_the_strict_level),
        T(test_barrier_reached_by_one_warp),
        T(test_named_barrier_with_two_counts),
        T(test_shuffle_mask_names_exited_lanes),
        T(test_unwritten_shared_memory_used_as_an_index),
        T(test_unwritten_device_memory_copied_back),
        T(test_unwritten_value_not_used_is_no_error),
        T(test_out_of_bounds_names_the_source_line),
        T(test_use_after_free),
        T(test_host_pointer_as_device_pointer),
        T(test_report_mode_goes_on_and_counts),
        T(test_context_switch_on_and_off),
        T(test_leak_when_the_context_goes),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
