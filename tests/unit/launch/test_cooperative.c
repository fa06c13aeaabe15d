/* Cooperative launch: a grid of exactly what fits at once launches, one block more is refused
 * before the driver with CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE and the numbers; the occupancy
 * answer is asked once per (block size, shared memory). */
#include "launch_util.h"

static int setup(void **state) {
    if (mock_setup(state) != 0) return -1;
    return fixture_make("cushim_grid_barrier");
}

static int teardown(void **state) { return fixture_teardown(state); }

/* Launches a grid of `limit` blocks, then one more, and checks both outcomes. */
static void at_and_past_the_limit(cushim_function *f, cushim_dim3 block, unsigned smem,
                                  int per_sm) {
    int limit = 0;
    assert_ok(
        cushim_occupancy_max_cooperative_grid(&limit, f, (int)(block.x * block.y * block.z), smem));
    assert_int_equal(limit, per_sm * H200_SMS);
    int launches = mock.launch_count();
    cushim_launch_config cfg = config(CUSHIM_DIM3((unsigned)limit), block, smem, fx.stream);
    assert_ok(cushim_launch_cooperative(f, &cfg, kargs));
    assert_int_equal(mock.launch_count(), launches + 1);
    const cushim_mock_launch *l = mock.launch(launches);
    assert_true(l->cooperative);
    assert_int_equal(l->grid[0], (unsigned)limit);
    assert_int_equal(l->block[0], block.x);
    assert_int_equal(l->shared_mem_bytes, smem);
    assert_ptr_equal(l->stream, cushim_stream_raw(fx.stream));

    int coop_calls = mock.calls("cuLaunchCooperativeKernel");
    cfg.grid.x = (unsigned)limit + 1;
    assert_cu(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, cushim_launch_cooperative(f, &cfg, kargs));
    char says[160];
    snprintf(says, sizeof says,
             "cushim_launch_cooperative: cooperative launch of %d blocks exceeds the %d that fit "
             "at once (%d per SM x %d SMs)",
             limit + 1, limit, per_sm, H200_SMS);
    assert_error_has(says);
    assert_int_equal(mock.calls("cuLaunchCooperativeKernel"), coop_calls);
    assert_int_equal(mock.launch_count(), launches + 1);
}

static void test_exactly_the_limit_launches_and_one_more_is_refused(void **state) {
    (void)state;
    mock.set_occupancy_override(16);
    at_and_past_the_limit(fx.fn, CUSHIM_DIM3(256), 0, 16);
    /* The issue's own numbers. */
    assert_error_has("cooperative launch of 2113 blocks exceeds the 2112 that fit at once (16 per "
                     "SM x 132 SMs)");
}

static void test_the_occupancy_model_decides(void **state) {
    (void)state;
    /* The mock's H200: 2048 threads, 32 blocks and 228 KiB of shared memory per SM. */
    at_and_past_the_limit(fx.fn, CUSHIM_DIM3(256), 0, 8);
    at_and_past_the_limit(fx.fn, CUSHIM_DIM3(1024), 0, 2);
    at_and_past_the_limit(fx.fn, CUSHIM_DIM3(32), 0, 32);
    at_and_past_the_limit(fx.fn, CUSHIM_DIM3(64), 40 * 1024, 5);
}

static void test_a_grid_of_several_dimensions_counts_every_block(void **state) {
    (void)state;
    mock.set_occupancy_override(16);
    cushim_launch_config cfg = config(CUSHIM_DIM3(66, 32), CUSHIM_DIM3(16, 16), 0, fx.stream);
    assert_ok(cushim_launch_cooperative(fx.fn, &cfg, kargs));
    cfg.grid = CUSHIM_DIM3(33, 32, 2);
    assert_ok(cushim_launch_cooperative(fx.fn, &cfg, kargs));
    cfg.grid = CUSHIM_DIM3(67, 32);
    assert_cu(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
              cushim_launch_cooperative(fx.fn, &cfg, kargs));
    assert_error_has("cooperative launch of 2144 blocks exceeds the 2112");
    assert_int_equal(mock.launch_count(), 2);
}

static void test_occupancy_is_asked_once_per_shape(void **state) {
    (void)state;
    const char *occ = "cuOccupancyMaxActiveBlocksPerMultiprocessor";
    cushim_launch_config cfg = config(CUSHIM_DIM3(100), CUSHIM_DIM3(128), 0, fx.stream);
    for (int i = 0; i < 5; i++) assert_ok(cushim_launch_cooperative(fx.fn, &cfg, kargs));
    assert_int_equal(mock.calls(occ), 1);
    cfg.block = CUSHIM_DIM3(64, 2); /* the same 128 threads */
    assert_ok(cushim_launch_cooperative(fx.fn, &cfg, kargs));
    assert_int_equal(mock.calls(occ), 1);
    cfg.shared_mem_bytes = 4096;
    assert_ok(cushim_launch_cooperative(fx.fn, &cfg, kargs));
    assert_int_equal(mock.calls(occ), 2);
    cfg.block = CUSHIM_DIM3(256);
    assert_ok(cushim_launch_cooperative(fx.fn, &cfg, kargs));
    assert_ok(cushim_launch_cooperative(fx.fn, &cfg, kargs));
    assert_int_equal(mock.calls(occ), 3);
    /* A launch on a stream makes no other driver call once the answer is known. */
    int calls = mock.calls("*");
    assert_ok(cushim_launch_cooperative(fx.fn, &cfg, kargs));
    assert_int_equal(mock.calls("*"), calls + 1);
    assert_int_equal(mock.launch_count(), 10);
}

static void test_no_block_fits_is_too_large(void **state) {
    (void)state;
    mock.set_occupancy_override(0);
    cushim_launch_config cfg = config(CUSHIM_DIM3(1), CUSHIM_DIM3(128), 0, fx.stream);
    assert_cu(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
              cushim_launch_cooperative(fx.fn, &cfg, kargs));
    assert_error_has("cooperative launch of 1 blocks exceeds the 0 that fit at once (0 per SM x "
                     "132 SMs)");
    assert_int_equal(mock.launch_count(), 0);
}

static void test_null_stream_launches_in_the_function_context(void **state) {
    (void)state;
    cushim_context *X = NULL;
    assert_ok(cushim_context_create(&X, 0, 0));
    make_current(X);
    cushim_launch_config cfg = config(CUSHIM_DIM3(132), CUSHIM_DIM3(256), 0, NULL);
    assert_ok(cushim_launch_cooperative(fx.fn, &cfg, kargs));
    assert_int_equal(mock.launch_count(), 1);
    assert_true(mock.launch(0)->cooperative);
    assert_ptr_equal(mock.launch(0)->stream, default_stream());
    assert_ptr_equal(mock.launch(0)->context, cushim_context_raw(fx.ctx));
    assert_ptr_equal(mock.current(), cushim_context_raw(X));
    make_current(NULL);
    cushim_context_release(X);
}

static void test_driver_failures_are_passed_through(void **state) {
    (void)state;
    cushim_launch_config cfg = config(CUSHIM_DIM3(10), CUSHIM_DIM3(96), 0, fx.stream);
    mock_fail("cuOccupancyMaxActiveBlocksPerMultiprocessor", 1, CUDA_ERROR_UNKNOWN);
    assert_cu(CUDA_ERROR_UNKNOWN, cushim_launch_cooperative(fx.fn, &cfg, kargs));
    assert_error_has("cuOccupancyMaxActiveBlocksPerMultiprocessor of kernel "
                     "'cushim_grid_barrier' for 96 threads");
    assert_int_equal(mock.launch_count(), 0);
    mock_fail("cuLaunchCooperativeKernel", 1, CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    assert_cu(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
              cushim_launch_cooperative(fx.fn, &cfg, kargs));
    assert_error_has("cuLaunchCooperativeKernel of kernel 'cushim_grid_barrier'");
    assert_int_equal(mock.launch_count(), 0);
    assert_ok(cushim_launch_cooperative(fx.fn, &cfg, kargs));
    assert_int_equal(mock.launch_count(), 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_exactly_the_limit_launches_and_one_more_is_refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_occupancy_model_decides, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_grid_of_several_dimensions_counts_every_block, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_occupancy_is_asked_once_per_shape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_block_fits_is_too_large, setup, teardown),
        cmocka_unit_test_setup_teardown(test_null_stream_launches_in_the_function_context, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_driver_failures_are_passed_through, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
