/* Occupancy on a real GPU: cushim's answers equal the driver's own for several block sizes and
 * shared memory amounts, for a module kernel and a library kernel. cushim is asked with no
 * context current (it needs none); the driver with the kernel's context current, as a user
 * would. Skips (77) without a GPU. */
#include "gpu_launch.h"

static const int block_sizes[] = {32, 128, 256, 1024};
static const size_t smem_sizes[] = {0, 1024, 16 * 1024};

static void compare(const cushim_function *f, CUfunction driver_fn, const char *what) {
    const cushim_driver_table *d = cushim_driver();
    for (size_t i = 0; i < sizeof block_sizes / sizeof block_sizes[0]; i++) {
        for (size_t j = 0; j < sizeof smem_sizes / sizeof smem_sizes[0]; j++) {
            int ours = -1, theirs = -2;
            with_ctx(false);
            assert_ok(cushim_occupancy_max_active_blocks(&ours, f, block_sizes[i], smem_sizes[j]));
            with_ctx(true);
            assert_ok(d->cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &theirs, driver_fn, block_sizes[i], smem_sizes[j]));
            with_ctx(false);
            printf("# %s: %4d threads, %5zu bytes: %d blocks per SM\n", what, block_sizes[i],
                   smem_sizes[j], ours);
            assert_int_equal(ours, theirs);
            int grid = 0, sms = 0;
            assert_ok(d->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                              cushim_context_device(ctx)));
            assert_ok(
                cushim_occupancy_max_cooperative_grid(&grid, f, block_sizes[i], smem_sizes[j]));
            assert_int_equal(grid, theirs * sms);
        }
    }
    int min_grid = -1, block = -1, their_min_grid = -2, their_block = -2;
    assert_ok(cushim_occupancy_max_potential_block_size(&min_grid, &block, f, 0, 0));
    with_ctx(true);
    assert_ok(
        d->cuOccupancyMaxPotentialBlockSize(&their_min_grid, &their_block, driver_fn, NULL, 0, 0));
    with_ctx(false);
    assert_int_equal(min_grid, their_min_grid);
    assert_int_equal(block, their_block);
}

static void test_module_kernel(void **state) {
    (void)state;
    char *ptx = read_ptx("saxpy.ptx");
    assert_non_null(ptx);
    cushim_module *m = NULL;
    cushim_function *f = NULL;
    assert_ok(cushim_module_load_data(&m, ctx, ptx));
    free(ptx);
    assert_ok(cushim_module_function(&f, m, "cushim_saxpy"));
    compare(f, cushim_function_raw(f), "cushim_saxpy");
    cushim_module_release(m);
}

static void test_library_kernel(void **state) {
    (void)state;
    char *ptx = read_ptx("grid_barrier.ptx");
    assert_non_null(ptx);
    cushim_library *lib = NULL;
    cushim_function *f = NULL;
    assert_ok(cushim_library_load_data(&lib, ptx));
    free(ptx);
    assert_ok(cushim_library_function(&f, lib, ctx, "cushim_grid_barrier"));
    /* The driver takes the CUkernel itself, cast, in the current context. */
    compare(f, cushim_function_raw(f), "cushim_grid_barrier (library)");
    cushim_library_release(lib);
}

int main(void) {
    gpu_require();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_module_kernel, gpu_setup, gpu_teardown),
        cmocka_unit_test_setup_teardown(test_library_kernel, gpu_setup, gpu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
