/* Cooperative launch on a real GPU: the grid barrier kernel passes at the largest grid that
 * cushim_occupancy_max_cooperative_grid allows, one block more is refused before the driver,
 * and a library's CUkernel launches cooperatively too. Skips (77) without a GPU. */
#include "gpu_launch.h"

#define THREADS 256

static void test_grid_barrier_at_the_largest_cooperative_grid(void **state) {
    (void)state;
    int coop = 0;
    assert_ok(cushim_driver()->cuDeviceGetAttribute(&coop, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH,
                                                    cushim_context_device(ctx)));
    if (!coop) skip();
    char *ptx = read_ptx("grid_barrier.ptx");
    assert_non_null(ptx);
    cushim_module *m = NULL;
    cushim_function *f = NULL;
    assert_ok(cushim_module_load_data(&m, ctx, ptx));
    free(ptx);
    assert_ok(cushim_module_function(&f, m, "cushim_grid_barrier"));
    int blocks = 0;
    assert_ok(cushim_occupancy_max_cooperative_grid(&blocks, f, THREADS, 0));
    printf("# cooperative grid: %d blocks of %d threads\n", blocks, THREADS);
    assert_true(blocks > 0);

    cushim_stream *s = NULL;
    assert_ok(cushim_stream_create(&s, ctx, CU_STREAM_NON_BLOCKING, 0));
    assert_int_equal(run_grid_barrier(f, (unsigned)blocks, THREADS, s), 0);
    /* On the default stream of the function's context as well. */
    assert_int_equal(run_grid_barrier(f, (unsigned)blocks, THREADS, NULL), 0);

    /* One block more: refused by cushim, with its own sentence, before the driver. */
    cushim_launch_config cfg = {.grid = CUSHIM_DIM3((unsigned)blocks + 1),
                                .block = CUSHIM_DIM3(THREADS),
                                .shared_mem_bytes = 0,
                                .stream = s};
    /* Its four arguments are given (a NULL array is refused first, as a kernel with parameters
     * needs them); the launch never reaches the driver, so their values do not matter. */
    unsigned long long unused[4] = {0, 0, 0, 0};
    void *params[4] = {&unused[0], &unused[1], &unused[2], &unused[3]};
    assert_cu(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, cushim_launch_cooperative(f, &cfg, params));
    char says[96];
    snprintf(says, sizeof says, "cooperative launch of %d blocks exceeds the %d that fit at once",
             blocks + 1, blocks);
    if (strstr(cushim_last_error(), says) == NULL) fail_msg("%s", cushim_last_error());
    fprintf(stderr, "# %s\n", cushim_last_error());

    cushim_stream_release(s);
    cushim_module_release(m);
}

static void test_library_kernel_launches_cooperatively(void **state) {
    (void)state;
    int coop = 0;
    assert_ok(cushim_driver()->cuDeviceGetAttribute(&coop, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH,
                                                    cushim_context_device(ctx)));
    if (!coop) skip();
    char *ptx = read_ptx("grid_barrier.ptx");
    assert_non_null(ptx);
    cushim_library *lib = NULL;
    cushim_function *f = NULL;
    assert_ok(cushim_library_load_data(&lib, ptx));
    free(ptx);
    assert_ok(cushim_library_function(&f, lib, ctx, "cushim_grid_barrier"));
    int blocks = 0;
    assert_ok(cushim_occupancy_max_cooperative_grid(&blocks, f, THREADS, 0));
    printf("# library kernel: cooperative grid: %d blocks of %d threads\n", blocks, THREADS);
    assert_true(blocks > 0);
    cushim_stream *s = NULL;
    assert_ok(cushim_stream_create(&s, ctx, CU_STREAM_NON_BLOCKING, 0));
    assert_int_equal(run_grid_barrier(f, (unsigned)blocks, THREADS, s), 0);
    assert_int_equal(run_grid_barrier(f, (unsigned)blocks, THREADS, NULL), 0);
    cushim_stream_release(s);
    cushim_library_release(lib);
}

int main(void) {
    gpu_require();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_grid_barrier_at_the_largest_cooperative_grid,
                                        gpu_setup, gpu_teardown),
        cmocka_unit_test_setup_teardown(test_library_kernel_launches_cooperatively, gpu_setup,
                                        gpu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
