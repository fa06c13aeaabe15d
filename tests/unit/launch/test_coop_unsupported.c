/* A device without cooperative launch: the cooperative launch and grid are refused before the
 * driver with CUDA_ERROR_NOT_SUPPORTED and a sentence; plain launches go on.
 *
 * cushim reads a device's limits once per process, so this test is its own process and turns
 * the attribute off before anything in it reads them. */
#include "launch_util.h"

static int setup(void **state) {
    if (mock_setup(state) != 0) return -1;
    mock.set_attribute(0, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0);
    return fixture_make("cushim_grid_barrier");
}

static int teardown(void **state) { return fixture_teardown(state); }

static void test_cooperative_launch_is_not_supported(void **state) {
    (void)state;
    cushim_launch_config cfg = config(CUSHIM_DIM3(1), CUSHIM_DIM3(32), 0, fx.stream);
    assert_cu(CUDA_ERROR_NOT_SUPPORTED, cushim_launch_cooperative(fx.fn, &cfg, kargs));
    assert_error_has("cushim_launch_cooperative: device 0 does not support cooperative launch "
                     "(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0)");
    cfg.stream = NULL;
    assert_cu(CUDA_ERROR_NOT_SUPPORTED, cushim_launch_cooperative(fx.fn, &cfg, kargs));
    assert_int_equal(mock.calls("cuLaunchCooperativeKernel"), 0);
    assert_int_equal(mock.calls("cuOccupancyMaxActiveBlocksPerMultiprocessor"), 0);
    assert_int_equal(mock.launch_count(), 0);

    int blocks = -1;
    assert_cu(CUDA_ERROR_NOT_SUPPORTED,
              cushim_occupancy_max_cooperative_grid(&blocks, fx.fn, 32, 0));
    assert_int_equal(blocks, 0);
    assert_error_has("does not support cooperative launch");

    /* The plain launch does not care. */
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    assert_int_equal(mock.launch_count(), 1);
    assert_false(mock.launch(0)->cooperative);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cooperative_launch_is_not_supported, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
