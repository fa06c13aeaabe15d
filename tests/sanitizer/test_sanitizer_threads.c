/* CUSHIM_MOCK_CHECK with a grid's blocks spread over several host threads (run with
 * CUSHIM_MOCK_THREADS=4, and under TSan in CI): every check's shadow is the block's own, and
 * what blocks share (the written bits of device allocations, the counts and the reports of the
 * launch) is atomic or locked. A correct kernel of many blocks reports nothing with every check;
 * a buggy one is caught with its source line, whichever host thread ran the block that fired. */
#include <stdlib.h>

#include "sanitizer_fixture.h"

enum { BLOCKS = 64, THREADS = 256, N = BLOCKS * THREADS };

/* N ints 0, 1, ..., 6, 0, 1, ... copied to a device allocation made while the checks run (so
 * initcheck keeps its written bits). */
static CUdeviceptr input(void) {
    int *host = malloc(N * sizeof *host);
    assert_non_null(host);
    for (int i = 0; i < N; i++) host[i] = i % 7;
    CUdeviceptr in;
    assert_ok(t->cuMemAlloc(&in, N * sizeof(int)));
    assert_ok(t->cuMemcpyHtoD(in, host, N * sizeof(int)));
    free(host);
    return in;
}

static void test_correct_kernel_reports_nothing(void **state) {
    (void)state;
    mock.set_check(cushim_context_raw(ctx), CUSHIM_MOCK_CHECK_ALL, false);
    unsigned long long before[4];
    for (int k = 0; k < 4; k++) before[k] = mock.check_reports(k);
    CUfunction fn = load_ptx(KERNELS_DIR, "reduce", "k_reduce");
    CUdeviceptr in = input(), total;
    assert_ok(t->cuMemAlloc(&total, sizeof(int)));
    assert_ok(t->cuMemsetD32(total, 0, 1));
    int n = N;
    void *params[] = {&in, &n, &total};
    assert_ok(t->cuLaunchKernel(fn, BLOCKS, 1, 1, THREADS, 1, 1, 0, NULL, params, NULL));
    assert_ok(t->cuCtxSynchronize());
    int sum = 0, want = 0;
    for (int i = 0; i < N; i++) want += i % 7;
    assert_ok(t->cuMemcpyDtoH(&sum, total, sizeof sum));
    assert_int_equal(sum, want);
    for (int k = 0; k < 4; k++) assert_int_equal(mock.check_reports(k), before[k]);
    t->cuMemFree(in);
    t->cuMemFree(total);
}

static void test_race_found_in_every_block(void **state) {
    (void)state;
    CUfunction fn = load_ptx(PTX_DIR, "race_reduce", "race_reduce");
    CUdeviceptr in = input(), out;
    assert_ok(t->cuMemAlloc(&out, BLOCKS * sizeof(int)));
    void *params[] = {&in, &out};
    /* Report mode: every block races at the same pair of lines, reported once for the launch. */
    mock.set_check(cushim_context_raw(ctx), CUSHIM_MOCK_CHECK_RACECHECK, true);
    unsigned long long before = mock.check_reports(1);
    assert_ok(t->cuLaunchKernel(fn, BLOCKS, 1, 1, THREADS, 1, 1, 0, NULL, params, NULL));
    assert_ok(t->cuCtxSynchronize());
    unsigned long long n = mock.check_reports(1) - before;
    assert_true(n >= 1 && n <= 4);
    /* Fail mode: the first block to fire fails the launch, with the bug's line. */
    mock.set_check(cushim_context_raw(ctx), CUSHIM_MOCK_CHECK_RACECHECK, false);
    assert_ok(t->cuLaunchKernel(fn, BLOCKS, 1, 1, THREADS, 1, 1, 0, NULL, params, NULL));
    assert_int_equal(t->cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
    const char *e = mock.kernel_error();
    printf("# report: %s\n", e);
    assert_non_null(strstr(e, "kernel race_reduce, block ("));
    assert_non_null(strstr(e, "race_reduce.cu:9): racecheck: a 4-byte write of shared address"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_correct_kernel_reports_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_race_found_in_every_block, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
