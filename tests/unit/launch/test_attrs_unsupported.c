/* Launch attributes where they cannot be had: a driver without cuLaunchKernelEx refuses every
 * attribute, a device before compute capability 9.0 or without CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH
 * refuses clusters; each before the driver, with CUDA_ERROR_NOT_SUPPORTED and a sentence, while
 * launches without those attributes go on.
 *
 * Each test changes the driver's entries or devices and loads it again (cushim_testing_reinit),
 * since cushim keeps device limits per load. */
#include "launch_util.h"

static int setup_no_launch_ex(void **state) {
    if (mock_setup(state) != 0) return -1;
    mock.hide("cuLaunchKernelEx");
    if (cushim_testing_reinit() != CUDA_SUCCESS) return -1;
    return fixture_make("cushim_empty");
}

static int setup_ada(void **state) {
    if (mock_setup(state) != 0) return -1;
    if (!mock.set_devices("ada")) return -1;
    if (cushim_testing_reinit() != CUDA_SUCCESS) return -1;
    return fixture_make("cushim_empty");
}

static int setup_no_cluster_launch(void **state) {
    if (mock_setup(state) != 0) return -1;
    mock.set_attribute(0, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 0);
    if (cushim_testing_reinit() != CUDA_SUCCESS) return -1;
    return fixture_make("cushim_empty");
}

static int teardown(void **state) { return fixture_teardown(state); }

/* ------------------------------------------------------------------------------------------ */
/* Drivers and devices without                                                                */
/* ------------------------------------------------------------------------------------------ */

static void test_without_cuLaunchKernelEx_attributes_are_refused(void **state) {
    (void)state;
    assert_false(cushim_driver_has("cuLaunchKernelEx"));
    cushim_launch_config cfg = cluster_config(CUSHIM_DIM3(4), CUSHIM_DIM3(2));
    assert_cu(CUDA_ERROR_NOT_SUPPORTED, cushim_launch(fx.fn, &cfg, kargs));
    assert_error_has("cushim_launch: this driver has no cuLaunchKernelEx");
    cfg = (cushim_launch_config){.grid = CUSHIM_DIM3(1),
                                 .block = CUSHIM_DIM3(32),
                                 .stream = fx.stream,
                                 .has_priority = true};
    assert_cu(CUDA_ERROR_NOT_SUPPORTED, cushim_launch(fx.fn, &cfg, kargs));
    cfg = (cushim_launch_config){
        .grid = CUSHIM_DIM3(1), .block = CUSHIM_DIM3(32), .programmatic_serialization = true};
    assert_cu(CUDA_ERROR_NOT_SUPPORTED, cushim_launch_cooperative(fx.fn, &cfg, kargs));
    assert_error_has("cushim_launch_cooperative: this driver has no cuLaunchKernelEx");
    assert_no_launch();
    /* Without attributes, nothing changes. */
    cfg.programmatic_serialization = false;
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    assert_int_equal(mock.calls("cuLaunchKernel"), 1);
}

static void test_a_device_before_9_0_refuses_clusters(void **state) {
    (void)state;
    assert_string_equal(mock.device_profile(0), "ada");
    cushim_launch_config cfg = cluster_config(CUSHIM_DIM3(4), CUSHIM_DIM3(2));
    assert_cu(CUDA_ERROR_NOT_SUPPORTED, cushim_launch(fx.fn, &cfg, kargs));
    assert_error_has("cushim_launch: device 0 has compute capability 8.x; thread-block clusters "
                     "need 9.0 or later");
    int n = -1;
    assert_cu(CUDA_ERROR_NOT_SUPPORTED, cushim_occupancy_max_active_clusters(&n, fx.fn, &cfg));
    assert_int_equal(n, 0);
    assert_cu(CUDA_ERROR_NOT_SUPPORTED,
              cushim_occupancy_max_potential_cluster_size(&n, fx.fn, &cfg));
    assert_error_has("cushim_occupancy_max_potential_cluster_size: device 0 has compute "
                     "capability 8.x");
    assert_no_launch();
    assert_int_equal(mock.calls("cuOccupancyMaxPotentialClusterSize"), 0);
    /* The other attributes do not need clusters. */
    cfg.cluster = CUSHIM_DIM3(0, 0, 0);
    cfg.has_priority = true;
    cfg.priority = GREATEST;
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    assert_int_equal(mock.calls("cuLaunchKernelEx"), 1);
}

static void test_a_device_without_cluster_launch_refuses_clusters(void **state) {
    (void)state;
    cushim_launch_config cfg = cluster_config(CUSHIM_DIM3(4), CUSHIM_DIM3(2));
    assert_cu(CUDA_ERROR_NOT_SUPPORTED, cushim_launch(fx.fn, &cfg, kargs));
    assert_error_has("cushim_launch: device 0 does not support cluster launch "
                     "(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH is 0)");
    assert_no_launch();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_without_cuLaunchKernelEx_attributes_are_refused,
                                        setup_no_launch_ex, teardown),
        cmocka_unit_test_setup_teardown(test_a_device_before_9_0_refuses_clusters, setup_ada,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_device_without_cluster_launch_refuses_clusters,
                                        setup_no_cluster_launch, teardown),
    };
    return cmocka_run_group_tests_name("launch attributes unsupported", tests, NULL, NULL);
}
