/* One test program, both sides of "is there a driver": cushim_testing_reinit() forgets the
 * loaded driver, so the next call loads again with CUSHIM_DRIVER and the mock's knobs as they
 * are then. Runs with CUSHIM_DRIVER naming the mock. */
#include <stdlib.h>

#include "testutil.h"

static char mock_path[4096];

/* cushim_occupancy_max_cooperative_grid multiplies by the device's SM count, read once per
 * device and kept: after a reinit it must come from the driver loaded then. */
static const char ptx[] = ".version 6.0\n.target sm_70\n.address_size 64\n"
                          ".visible .entry k() { ret; }\n";

static int cooperative_grid(int *per_sm) {
    cushim_context *ctx = NULL;
    cushim_module *mod = NULL;
    cushim_function *f = NULL;
    int blocks = -1;
    assert_ok(cushim_context_primary(&ctx, 0));
    assert_ok(cushim_module_load_data(&mod, ctx, ptx));
    assert_ok(cushim_module_function(&f, mod, "k"));
    assert_ok(cushim_occupancy_max_cooperative_grid(&blocks, f, 1024, 0));
    assert_ok(cushim_occupancy_max_active_blocks(per_sm, f, 1024, 0));
    cushim_module_release(mod);
    cushim_context_release(ctx);
    return blocks;
}

static void test_no_driver_then_driver(void **state) {
    (void)state;
    setenv("CUSHIM_DRIVER", "/nonexistent/libcuda.so.1", 1);
    assert_ok(cushim_testing_reinit());
    assert_int_equal(cushim_init(), CUDA_ERROR_NOT_INITIALIZED);
    assert_int_equal(cushim_driver_state()->status, CUSHIM_DRIVER_NOT_FOUND);
    int count = -1;
    assert_int_equal(cushim_driver()->cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
    cushim_context *ctx = NULL;
    assert_int_equal(cushim_context_primary(&ctx, 0), CUDA_ERROR_NOT_INITIALIZED);

    setenv("CUSHIM_DRIVER", mock_path, 1);
    assert_ok(cushim_testing_reinit());
    assert_ok(cushim_init());
    assert_int_equal(cushim_driver_state()->status, CUSHIM_DRIVER_LOADED);
    assert_ok(cushim_driver()->cuDeviceGetCount(&count));
    assert_int_equal(count, 1);
    int per_sm = 0;
    assert_true(cooperative_grid(&per_sm) > 0);
}

static void test_refused_while_a_context_lives(void **state) {
    (void)state;
    cushim_context *ctx = NULL;
    assert_ok(cushim_context_primary(&ctx, 0));
    assert_int_equal(cushim_testing_reinit(), CUDA_ERROR_ILLEGAL_STATE);
    assert_non_null(strstr(cushim_last_error(), "cushim_testing_reinit"));
    assert_ok(cushim_init()); /* still loaded, still working */
    assert_ok(cushim_context_synchronize(ctx));
    cushim_context_release(ctx);
    assert_ok(cushim_testing_reinit());
}

static void test_mock_knobs_seen_after_reinit(void **state) {
    (void)state;
    mock.set_init_result(CUDA_ERROR_NO_DEVICE);
    assert_ok(cushim_testing_reinit());
    assert_int_equal(cushim_init(), CUDA_ERROR_NO_DEVICE);
    assert_int_equal(cushim_driver_state()->status, CUSHIM_DRIVER_INIT_FAILED);
    mock.set_init_result(CUDA_SUCCESS);
    assert_ok(cushim_testing_reinit());
    assert_ok(cushim_init());
}

static void test_device_limits_read_again(void **state) {
    (void)state;
    int h200_per_sm = 0, ada_per_sm = 0, again = 0;
    int h200 = cooperative_grid(&h200_per_sm);
    assert_true(mock.set_devices("ada"));
    assert_ok(cushim_testing_reinit());
    int ada = cooperative_grid(&ada_per_sm);
    print_message("# cooperative grid of 1024 threads: h200 %d (%d per SM), ada %d (%d per SM)\n",
                  h200, h200_per_sm, ada, ada_per_sm);
    /* The grid is blocks per SM times the SM count of the driver loaded at the time. */
    assert_int_equal(h200, h200_per_sm * 132);
    assert_int_equal(ada, ada_per_sm * 24);
    assert_true(mock.set_devices("h200"));
    assert_ok(cushim_testing_reinit());
    assert_int_equal(cooperative_grid(&again), h200);
}

int main(void) {
    const char *path = getenv("CUSHIM_DRIVER");
    if (path == NULL || strlen(path) >= sizeof mock_path) return 1;
    strcpy(mock_path, path);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_no_driver_then_driver, mock_setup, mock_teardown),
        cmocka_unit_test_setup_teardown(test_refused_while_a_context_lives, mock_setup,
                                        mock_teardown),
        cmocka_unit_test_setup_teardown(test_mock_knobs_seen_after_reinit, mock_setup,
                                        mock_teardown),
        cmocka_unit_test_setup_teardown(test_device_limits_read_again, mock_setup, mock_teardown),
    };
    return cmocka_run_group_tests_name("testing reinit", tests, NULL, NULL);
}
