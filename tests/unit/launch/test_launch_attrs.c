/* Launch attributes: a config with none keeps cuLaunchKernel; one with any goes through
 * cuLaunchKernelEx with each attribute as set; every pre-check refuses before the driver with a
 * sentence naming its limit; the two cluster occupancy queries. A driver without
 * cuLaunchKernelEx and devices without clusters: test_attrs_unsupported.c.
 *
 * Tests that change the driver's entries or devices load it again (cushim_testing_reinit), so
 * every test here starts from a fresh load: cushim keeps device limits per load. */
#include "launch_util.h"

static int setup(void **state) {
    if (mock_setup(state) != 0) return -1;
    if (cushim_testing_reinit() != CUDA_SUCCESS) return -1;
    return fixture_make("cushim_empty");
}

static int setup_coop(void **state) {
    if (mock_setup(state) != 0) return -1;
    if (cushim_testing_reinit() != CUDA_SUCCESS) return -1;
    return fixture_make("cushim_grid_barrier");
}

static int teardown(void **state) { return fixture_teardown(state); }

/* ------------------------------------------------------------------------------------------ */
/* The classic path and the attributes passed through                                         */
/* ------------------------------------------------------------------------------------------ */

static void test_no_attribute_keeps_the_classic_entry_points(void **state) {
    (void)state;
    cushim_launch_config cfg = {
        .grid = CUSHIM_DIM3(4), .block = CUSHIM_DIM3(64), .stream = fx.stream};
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    /* A priority that is not marked set is no attribute. */
    cfg.priority = -2;
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    assert_ok(cushim_launch_cooperative(fx.fn, &cfg, kargs));
    assert_int_equal(mock.calls("cuLaunchKernel"), 2);
    assert_int_equal(mock.calls("cuLaunchCooperativeKernel"), 1);
    assert_int_equal(mock.calls("cuLaunchKernelEx"), 0);
    for (int i = 0; i < 3; i++) assert_int_equal(mock.launch(i)->attr_count, 0);
}

static void test_every_attribute_is_passed_through_as_set(void **state) {
    (void)state;
    cushim_launch_config cfg = cluster_config(CUSHIM_DIM3(4, 6, 2), CUSHIM_DIM3(2, 3, 1));
    cfg.priority = GREATEST + 2;
    cfg.has_priority = true;
    cfg.cooperative = true;
    cfg.programmatic_serialization = true;
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    assert_int_equal(mock.calls("cuLaunchKernelEx"), 1);
    assert_int_equal(mock.calls("cuLaunchKernel"), 0);
    assert_int_equal(mock.launch_count(), 1);
    const cushim_mock_launch *l = mock.launch(0);
    assert_int_equal(l->attr_count, 4);
    const CUlaunchAttribute *a = attr_of(l, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
    assert_int_equal(a->value.clusterDim.x, 2);
    assert_int_equal(a->value.clusterDim.y, 3);
    assert_int_equal(a->value.clusterDim.z, 1);
    assert_int_equal(attr_of(l, CU_LAUNCH_ATTRIBUTE_PRIORITY)->value.priority, GREATEST + 2);
    assert_int_equal(attr_of(l, CU_LAUNCH_ATTRIBUTE_COOPERATIVE)->value.cooperative, 1);
    assert_int_equal(attr_of(l, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION)
                         ->value.programmaticStreamSerializationAllowed,
                     1);
    assert_true(l->cooperative);
    /* grid counts blocks: the driver gets it unchanged. */
    assert_int_equal(l->grid[0], 4);
    assert_int_equal(l->grid[1], 6);
    assert_int_equal(l->grid[2], 2);
    assert_int_equal(l->block[0], 64);
    assert_ptr_equal(l->stream, cushim_stream_raw(fx.stream));
}

static void test_each_attribute_alone_is_the_only_one_passed(void **state) {
    (void)state;
    const CUlaunchAttributeID ids[] = {
        CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, CU_LAUNCH_ATTRIBUTE_PRIORITY,
        CU_LAUNCH_ATTRIBUTE_COOPERATIVE, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION};
    for (int i = 0; i < 4; i++) {
        cushim_launch_config cfg = {
            .grid = CUSHIM_DIM3(4), .block = CUSHIM_DIM3(64), .stream = fx.stream};
        if (i == 0) cfg.cluster = CUSHIM_DIM3(4);
        if (i == 1) cfg.has_priority = true; /* priority 0, the lowest, is a priority too */
        if (i == 2) cfg.cooperative = true;
        if (i == 3) cfg.programmatic_serialization = true;
        assert_ok(cushim_launch(fx.fn, &cfg, kargs));
        const cushim_mock_launch *l = mock.launch(i);
        assert_int_equal(l->attr_count, 1);
        assert_int_equal(l->attrs[0].id, ids[i]);
        assert_int_equal(l->cooperative, i == 2);
    }
    assert_int_equal(attr_of(mock.launch(1), CU_LAUNCH_ATTRIBUTE_PRIORITY)->value.priority, 0);
    assert_int_equal(mock.calls("cuLaunchKernelEx"), 4);
    assert_int_equal(mock.calls("cuLaunchKernel"), 0);
}

static void test_attributes_on_the_default_stream_restore_the_context(void **state) {
    (void)state;
    cushim_launch_config cfg = cluster_config(CUSHIM_DIM3(8), CUSHIM_DIM3(2));
    cfg.stream = NULL;
    cfg.has_priority = true;
    cfg.priority = LEAST;
    assert_null(mock.current());
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    assert_null(mock.current());
    const cushim_mock_launch *l = mock.launch(0);
    assert_ptr_equal(l->stream, default_stream());
    assert_ptr_equal(l->context, cushim_context_raw(fx.ctx));
    assert_int_equal(l->attr_count, 2);
}

static void test_launch_cooperative_with_a_cluster_adds_the_cooperative_attribute(void **state) {
    (void)state;
    cushim_launch_config cfg = cluster_config(CUSHIM_DIM3(8), CUSHIM_DIM3(4));
    assert_ok(cushim_launch_cooperative(fx.fn, &cfg, kargs));
    const cushim_mock_launch *l = mock.launch(0);
    assert_true(l->cooperative);
    assert_int_equal(l->attr_count, 2);
    assert_int_equal(attr_of(l, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)->value.clusterDim.x, 4);
    assert_int_equal(attr_of(l, CU_LAUNCH_ATTRIBUTE_COOPERATIVE)->value.cooperative, 1);
    assert_int_equal(mock.calls("cuLaunchCooperativeKernel"), 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Pre-checks: each refusal reaches no launch entry                                           */
/* ------------------------------------------------------------------------------------------ */

static void test_grid_not_a_multiple_of_the_cluster_is_refused(void **state) {
    (void)state;
    cushim_launch_config cfg = cluster_config(CUSHIM_DIM3(5), CUSHIM_DIM3(2));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch(fx.fn, &cfg, kargs));
    assert_error_has("cushim_launch: grid (5, 1, 1) is not a multiple of cluster (2, 1, 1): 5 "
                     "blocks in X is not a multiple of 2");
    cfg = cluster_config(CUSHIM_DIM3(4, 3, 2), CUSHIM_DIM3(2, 2, 1));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch(fx.fn, &cfg, kargs));
    assert_error_has("3 blocks in Y is not a multiple of 2");
    cfg = cluster_config(CUSHIM_DIM3(4, 4, 3), CUSHIM_DIM3(1, 1, 2));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch_cooperative(fx.fn, &cfg, kargs));
    assert_error_has("cushim_launch_cooperative: grid (4, 4, 3) is not a multiple of cluster "
                     "(1, 1, 2): 3 blocks in Z");
    assert_no_launch();
}

static void test_cluster_with_a_zero_dimension_is_refused(void **state) {
    (void)state;
    cushim_launch_config cfg = cluster_config(CUSHIM_DIM3(4), CUSHIM_DIM3(2, 0, 1));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch(fx.fn, &cfg, kargs));
    assert_error_has("cushim_launch: cluster (2, 0, 1) has a zero dimension; (0, 0, 0) means no "
                     "cluster");
    assert_no_launch();
}

static void test_cluster_larger_than_the_kernel_allows_is_refused(void **state) {
    (void)state;
    int max = 0;
    cushim_launch_config cfg = cluster_config(CUSHIM_DIM3(64), CUSHIM_DIM3(1));
    assert_ok(cushim_occupancy_max_potential_cluster_size(&max, fx.fn, &cfg));
    assert_true(max >= 2);
    int asked = mock.calls("cuOccupancyMaxPotentialClusterSize");
    /* The largest allowed launches, twice, and the answer is asked once for the shape. */
    cfg.cluster = CUSHIM_DIM3((unsigned)max);
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    assert_int_equal(mock.calls("cuOccupancyMaxPotentialClusterSize"), asked + 1);
    assert_int_equal(mock.launch_count(), 2);
    /* One more block per cluster is refused; the driver is asked again before the refusal. */
    cfg.cluster = CUSHIM_DIM3((unsigned)max * 2);
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch(fx.fn, &cfg, kargs));
    char says[200];
    snprintf(says, sizeof says,
             "cushim_launch: cluster (%d, 1, 1) has %d blocks; kernel 'cushim_empty' with block "
             "(64, 1, 1) and 0 bytes of dynamic shared memory allows %d per cluster",
             max * 2, max * 2, max);
    assert_error_has(says);
    assert_error_has("CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED");
    assert_int_equal(mock.calls("cuOccupancyMaxPotentialClusterSize"), asked + 2);
    assert_int_equal(mock.launch_count(), 2);
    assert_int_equal(mock.calls("cuLaunchKernelEx"), 2);
}

static void test_an_opt_in_to_non_portable_sizes_is_seen(void **state) {
    (void)state;
    cushim_launch_config cfg = cluster_config(CUSHIM_DIM3(64), CUSHIM_DIM3(16));
    int portable = 0, now = 0;
    assert_ok(cushim_occupancy_max_potential_cluster_size(&portable, fx.fn, &cfg));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch(fx.fn, &cfg, kargs));
    assert_ok(cushim_driver()->cuFuncSetAttribute(
        cushim_function_raw(fx.fn), CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
    assert_ok(cushim_occupancy_max_potential_cluster_size(&now, fx.fn, &cfg));
    print_message("# largest cluster: %d portable, %d non-portable\n", portable, now);
    assert_true(now >= 16 && portable < 16);
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    assert_int_equal(mock.launch_count(), 1);
}

static void test_a_kernel_that_cannot_run_in_clusters_is_refused(void **state) {
    (void)state;
    mock.set_occupancy_override(0);
    cushim_launch_config cfg = cluster_config(CUSHIM_DIM3(4), CUSHIM_DIM3(2));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch(fx.fn, &cfg, kargs));
    assert_error_has("allows 0 per cluster");
    assert_no_launch();
}

static void test_priority_outside_the_range_is_refused(void **state) {
    (void)state;
    cushim_launch_config cfg = {.grid = CUSHIM_DIM3(1),
                                .block = CUSHIM_DIM3(32),
                                .stream = fx.stream,
                                .has_priority = true};
    const int bad[] = {LEAST + 1, GREATEST - 1, 1 << 30, -(1 << 30)};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cfg.priority = bad[i];
        assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch(fx.fn, &cfg, kargs));
        char says[200];
        snprintf(says, sizeof says,
                 "cushim_launch: priority %d is outside the range of kernel 'cushim_empty''s "
                 "context: [%d (highest), %d (lowest)]",
                 bad[i], GREATEST, LEAST);
        assert_error_has(says);
    }
    assert_no_launch();
    /* Both ends of the range launch, and the range was asked of the driver once. */
    cfg.priority = GREATEST;
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    cfg.priority = LEAST;
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    assert_int_equal(mock.launch_count(), 2);
    assert_int_equal(attr_of(mock.launch(0), CU_LAUNCH_ATTRIBUTE_PRIORITY)->value.priority,
                     GREATEST);
    assert_int_equal(attr_of(mock.launch(1), CU_LAUNCH_ATTRIBUTE_PRIORITY)->value.priority, LEAST);
    assert_int_equal(mock.calls("cuCtxGetStreamPriorityRange"), 1);
    assert_null(mock.current());
}

static void test_cooperative_attribute_checks_as_launch_cooperative(void **state) {
    (void)state;
    mock.set_occupancy_override(16);
    const unsigned fit = 16 * H200_SMS;
    cushim_launch_config cfg = {.grid = CUSHIM_DIM3(fit + 1),
                                .block = CUSHIM_DIM3(256),
                                .stream = fx.stream,
                                .cooperative = true};
    assert_cu(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, cushim_launch(fx.fn, &cfg, kargs));
    char says[160];
    snprintf(says, sizeof says,
             "cushim_launch: cooperative launch of %u blocks exceeds the %u that fit at once (16 "
             "per SM x %d SMs)",
             fit + 1, fit, H200_SMS);
    assert_error_has(says);
    assert_no_launch();
    cfg.grid = CUSHIM_DIM3(fit);
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    assert_true(mock.launch(0)->cooperative);
    assert_int_equal(mock.calls("cuLaunchKernelEx"), 1);
}

static void test_a_failed_ex_launch_names_its_attributes(void **state) {
    (void)state;
    mock_fail("cuLaunchKernelEx", 1, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
    cushim_launch_config cfg = cluster_config(CUSHIM_DIM3(4), CUSHIM_DIM3(2));
    cfg.programmatic_serialization = true;
    assert_cu(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, cushim_launch(fx.fn, &cfg, kargs));
    assert_error_has("cushim_launch: cuLaunchKernelEx of kernel 'cushim_empty' with grid (4, 1, "
                     "1), block (64, 1, 1), 0 bytes of dynamic shared memory, cluster (2, 1, 1), "
                     "programmatic stream serialization failed with "
                     "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
}

/* ------------------------------------------------------------------------------------------ */
/* Cluster occupancy                                                                          */
/* ------------------------------------------------------------------------------------------ */

static void test_cluster_occupancy_queries(void **state) {
    (void)state;
    mock.set_occupancy_override(10);
    cushim_launch_config cfg = {
        .grid = CUSHIM_DIM3(64), .block = CUSHIM_DIM3(128), .cluster = CUSHIM_DIM3(4)};
    int clusters = -1, size = -1;
    assert_ok(cushim_occupancy_max_active_clusters(&clusters, fx.fn, &cfg));
    /* The mock's model: active blocks per SM x SMs / blocks per cluster. */
    assert_int_equal(clusters, 10 * H200_SMS / 4);
    assert_ok(cushim_occupancy_max_potential_cluster_size(&size, fx.fn, &cfg));
    assert_int_equal(size, 8);
    assert_null(mock.current());
    assert_int_equal(mock.calls("cuOccupancyMaxActiveClusters"), 1);

    /* Bad arguments: the output is 0 and the driver is not asked. */
    cfg.cluster = CUSHIM_DIM3(0, 0, 0);
    clusters = -1;
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              cushim_occupancy_max_active_clusters(&clusters, fx.fn, &cfg));
    assert_int_equal(clusters, 0);
    assert_error_has("cushim_occupancy_max_active_clusters: cfg->cluster is (0, 0, 0)");
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_occupancy_max_active_clusters(NULL, fx.fn, &cfg));
    size = -1;
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              cushim_occupancy_max_potential_cluster_size(&size, fx.fn, NULL));
    assert_int_equal(size, 0);
    assert_error_has("cushim_occupancy_max_potential_cluster_size: cfg is NULL");
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              cushim_occupancy_max_potential_cluster_size(&size, NULL, &cfg));
    assert_int_equal(mock.calls("cuOccupancyMaxActiveClusters"), 1);

    /* The driver's refusal is passed through. */
    mock_fail("cuOccupancyMaxPotentialClusterSize", 1, CUDA_ERROR_INVALID_CLUSTER_SIZE);
    assert_cu(CUDA_ERROR_INVALID_CLUSTER_SIZE,
              cushim_occupancy_max_potential_cluster_size(&size, fx.fn, &cfg));
    assert_error_has("cuOccupancyMaxPotentialClusterSize of kernel 'cushim_empty'");
    assert_null(mock.current());
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_no_attribute_keeps_the_classic_entry_points),
        T(test_every_attribute_is_passed_through_as_set),
        T(test_each_attribute_alone_is_the_only_one_passed),
        T(test_attributes_on_the_default_stream_restore_the_context),
        T(test_launch_cooperative_with_a_cluster_adds_the_cooperative_attribute),
        T(test_grid_not_a_multiple_of_the_cluster_is_refused),
        T(test_cluster_with_a_zero_dimension_is_refused),
        T(test_cluster_larger_than_the_kernel_allows_is_refused),
        T(test_an_opt_in_to_non_portable_sizes_is_seen),
        T(test_a_kernel_that_cannot_run_in_clusters_is_refused),
        T(test_priority_outside_the_range_is_refused),
        T(test_a_failed_ex_launch_names_its_attributes),
        T(test_cluster_occupancy_queries),
        cmocka_unit_test_setup_teardown(test_cooperative_attribute_checks_as_launch_cooperative,
                                        setup_coop, teardown),
    };
#undef T
    return cmocka_run_group_tests_name("launch attributes", tests, NULL, NULL);
}
