/* Occupancy: cushim's answers are the driver's, for module and library kernels; bad arguments
 * are CUDA_ERROR_INVALID_VALUE with a sentence. */
#include "launch_util.h"

static int setup(void **state) { return fixture_setup(state); }

static int teardown(void **state) { return fixture_teardown(state); }

static const int block_sizes[] = {32, 128, 256, 1024};
static const size_t smem_sizes[] = {0, 1024, 16384};

/* The driver's own occupancy queries need a current context (the real one answers
 * CUDA_ERROR_INVALID_CONTEXT otherwise, and so does the mock); cushim's switch by themselves. */
static void direct_in(cushim_context *c) {
    assert_ok(cushim_driver()->cuCtxSetCurrent(c ? cushim_context_raw(c) : NULL));
}

static void same_as_the_driver(cushim_function *f, CUfunction asked) {
    const cushim_driver_table *d = cushim_driver();
    for (size_t i = 0; i < sizeof block_sizes / sizeof block_sizes[0]; i++) {
        for (size_t j = 0; j < sizeof smem_sizes / sizeof smem_sizes[0]; j++) {
            int ours = -1, theirs = -2, grid = -1;
            assert_ok(cushim_occupancy_max_active_blocks(&ours, f, block_sizes[i], smem_sizes[j]));
            direct_in(fx.ctx);
            assert_ok(d->cuOccupancyMaxActiveBlocksPerMultiprocessor(&theirs, asked, block_sizes[i],
                                                                     smem_sizes[j]));
            direct_in(NULL);
            assert_int_equal(ours, theirs);
            assert_true(ours > 0);
            assert_ok(
                cushim_occupancy_max_cooperative_grid(&grid, f, block_sizes[i], smem_sizes[j]));
            assert_int_equal(grid, theirs * H200_SMS);
        }
    }
    int min_grid = -1, block = -1, their_min_grid = -2, their_block = -2;
    assert_ok(cushim_occupancy_max_potential_block_size(&min_grid, &block, f, 2048, 0));
    direct_in(fx.ctx);
    assert_ok(
        d->cuOccupancyMaxPotentialBlockSize(&their_min_grid, &their_block, asked, NULL, 2048, 0));
    direct_in(NULL);
    assert_int_equal(min_grid, their_min_grid);
    assert_int_equal(block, their_block);
    assert_true(block > 0);
    assert_ok(cushim_occupancy_max_potential_block_size(&min_grid, &block, f, 0, 96));
    direct_in(fx.ctx);
    assert_ok(
        d->cuOccupancyMaxPotentialBlockSize(&their_min_grid, &their_block, asked, NULL, 0, 96));
    direct_in(NULL);
    assert_int_equal(min_grid, their_min_grid);
    assert_int_equal(block, their_block);
    assert_true(block <= 96);
}

static void test_answers_are_the_drivers(void **state) {
    (void)state;
    same_as_the_driver(fx.fn, cushim_function_raw(fx.fn));
}

static void test_the_mock_model_comes_through(void **state) {
    (void)state;
    int blocks = 0;
    /* min(32 blocks, 2048 / 256 threads, 228 KiB / 16 KiB) per SM. */
    assert_ok(cushim_occupancy_max_active_blocks(&blocks, fx.fn, 256, 16384));
    assert_int_equal(blocks, 8);
    assert_ok(cushim_occupancy_max_active_blocks(&blocks, fx.fn, 64, 32768));
    assert_int_equal(blocks, 7);
    mock.set_occupancy_override(5);
    assert_ok(cushim_occupancy_max_active_blocks(&blocks, fx.fn, 64, 32768));
    assert_int_equal(blocks, 5);
    assert_ok(cushim_occupancy_max_cooperative_grid(&blocks, fx.fn, 64, 32768));
    assert_int_equal(blocks, 5 * H200_SMS);
    /* A query asks the driver every time: the answer follows the driver's. */
    mock.set_occupancy_override(3);
    assert_ok(cushim_occupancy_max_cooperative_grid(&blocks, fx.fn, 64, 32768));
    assert_int_equal(blocks, 3 * H200_SMS);
}

/* The real driver answers only with a context current (CUDA_ERROR_INVALID_CONTEXT otherwise,
 * even for a CUfunction): each query is made in the function's context, by the context rule. */
static void test_queries_are_made_in_the_function_context(void **state) {
    (void)state;
    int blocks = 0, min_grid = 0, block = 0;
    assert_null(mock.current());
    int switches = mock.calls("cuCtxSetCurrent");
    assert_ok(cushim_occupancy_max_active_blocks(&blocks, fx.fn, 128, 0));
    assert_int_equal(mock.calls("cuCtxSetCurrent"), switches + 2);
    assert_ok(cushim_occupancy_max_potential_block_size(&min_grid, &block, fx.fn, 0, 0));
    assert_int_equal(mock.calls("cuCtxSetCurrent"), switches + 4);
    assert_ok(cushim_occupancy_max_cooperative_grid(&blocks, fx.fn, 128, 0));
    assert_int_equal(mock.calls("cuCtxSetCurrent"), switches + 6);
    assert_null(mock.current());
    /* Already current: no switch. */
    assert_ok(cushim_driver()->cuCtxSetCurrent(cushim_context_raw(fx.ctx)));
    switches = mock.calls("cuCtxSetCurrent");
    assert_ok(cushim_occupancy_max_active_blocks(&blocks, fx.fn, 128, 0));
    assert_ok(cushim_occupancy_max_potential_block_size(&min_grid, &block, fx.fn, 0, 0));
    assert_int_equal(mock.calls("cuCtxSetCurrent"), switches);
    assert_ptr_equal(mock.current(), cushim_context_raw(fx.ctx));
    /* A failing switch is the query's error, and nothing is asked. */
    assert_ok(cushim_driver()->cuCtxSetCurrent(NULL));
    int asked = mock.calls("cuOccupancyMaxActiveBlocksPerMultiprocessor");
    mock_fail("cuCtxSetCurrent", 1, CUDA_ERROR_INVALID_CONTEXT);
    assert_cu(CUDA_ERROR_INVALID_CONTEXT,
              cushim_occupancy_max_active_blocks(&blocks, fx.fn, 128, 0));
    assert_int_equal(mock.calls("cuOccupancyMaxActiveBlocksPerMultiprocessor"), asked);
    assert_null(mock.current());
}

static size_t smem_per_block(int block_size) { return (size_t)block_size * 16; }

static void test_block_size_with_a_callback(void **state) {
    (void)state;
    int min_grid = -1, block = -1, their_min_grid = -2, their_block = -2;
    assert_ok(
        cushim_occupancy_max_potential_block_size_fn(&min_grid, &block, fx.fn, smem_per_block, 0));
    direct_in(fx.ctx);
    assert_ok(cushim_driver()->cuOccupancyMaxPotentialBlockSize(
        &their_min_grid, &their_block, cushim_function_raw(fx.fn), smem_per_block, 0, 0));
    direct_in(NULL);
    assert_int_equal(min_grid, their_min_grid);
    assert_int_equal(block, their_block);
    assert_true(block > 0);
}

static void test_library_kernel_answers_are_the_drivers(void **state) {
    (void)state;
    cushim_library *lib = NULL;
    cushim_function *f = NULL;
    assert_ok(cushim_library_load_data(&lib, ptx_kernels));
    assert_ok(cushim_library_function(&f, lib, fx.ctx, "cushim_saxpy"));
    /* The driver is asked about the kernel's function in the bound context. */
    CUfunction in_ctx = NULL;
    assert_ok(cushim_driver()->cuCtxSetCurrent(cushim_context_raw(fx.ctx)));
    assert_ok(cushim_driver()->cuKernelGetFunction(&in_ctx, (CUkernel)cushim_function_raw(f)));
    assert_ok(cushim_driver()->cuCtxSetCurrent(NULL));
    same_as_the_driver(f, in_ctx);
    cushim_library_release(lib);
}

static void test_bad_arguments(void **state) {
    (void)state;
    int blocks = -1, min_grid = -1, block = -1;
    int calls = mock.calls("*");
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_occupancy_max_active_blocks(NULL, fx.fn, 32, 0));
    assert_error_has("cushim_occupancy_max_active_blocks: blocks is NULL");
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_occupancy_max_active_blocks(&blocks, fx.fn, 0, 0));
    assert_error_has("block_size is 0");
    assert_int_equal(blocks, 0);
    blocks = -1;
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_occupancy_max_active_blocks(&blocks, fx.fn, -32, 0));
    assert_int_equal(blocks, 0);
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_occupancy_max_active_blocks(&blocks, NULL, 32, 0));
    assert_cu(CUDA_ERROR_INVALID_HANDLE,
              cushim_occupancy_max_active_blocks(
                  &blocks, (const cushim_function *)(void *)fx.stream, 32, 0));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_occupancy_max_cooperative_grid(NULL, fx.fn, 32, 0));
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              cushim_occupancy_max_cooperative_grid(&blocks, fx.fn, 0, 0));
    assert_error_has("cushim_occupancy_max_cooperative_grid: block_size is 0");
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              cushim_occupancy_max_potential_block_size(NULL, &block, fx.fn, 0, 0));
    assert_error_has("min_grid is NULL");
    assert_int_equal(block, 0);
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              cushim_occupancy_max_potential_block_size(&min_grid, NULL, fx.fn, 0, 0));
    assert_error_has("block_size is NULL");
    assert_int_equal(min_grid, 0);
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              cushim_occupancy_max_potential_block_size(&min_grid, &block, fx.fn, 0, -1));
    assert_error_has("block_limit is -1");
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              cushim_occupancy_max_potential_block_size(&min_grid, &block, NULL, 0, 0));
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              cushim_occupancy_max_potential_block_size_fn(&min_grid, &block, fx.fn, NULL, 0));
    assert_error_has("smem_for_block_size is NULL");
    assert_int_equal(mock.calls("*"), calls);
}

static void test_driver_failures_are_passed_through(void **state) {
    (void)state;
    int blocks = -1, min_grid = -1, block = -1;
    mock_fail("cuOccupancyMaxActiveBlocksPerMultiprocessor", 1, CUDA_ERROR_INVALID_CONTEXT);
    assert_cu(CUDA_ERROR_INVALID_CONTEXT,
              cushim_occupancy_max_active_blocks(&blocks, fx.fn, 32, 0));
    assert_error_has("CUDA_ERROR_INVALID_CONTEXT");
    assert_int_equal(blocks, 0);
    mock_fail("cuOccupancyMaxPotentialBlockSize", 1, CUDA_ERROR_UNKNOWN);
    assert_cu(CUDA_ERROR_UNKNOWN,
              cushim_occupancy_max_potential_block_size(&min_grid, &block, fx.fn, 0, 0));
    assert_error_has("cuOccupancyMaxPotentialBlockSize of kernel 'cushim_empty'");
    assert_int_equal(min_grid, 0);
    assert_int_equal(block, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_answers_are_the_drivers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_mock_model_comes_through, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queries_are_made_in_the_function_context, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_block_size_with_a_callback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_library_kernel_answers_are_the_drivers, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_driver_failures_are_passed_through, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
