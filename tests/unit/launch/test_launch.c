/* cushim_launch: the configuration reaches the driver as given; NULL streams launch in the
 * function's context; every pre-check refuses before any driver launch call, with a sentence
 * that names the limit and the numbers. */
#include "launch_util.h"

static int setup(void **state) { return fixture_setup(state); }

static int teardown(void **state) { return fixture_teardown(state); }

static void test_launch_on_a_stream_passes_the_config(void **state) {
    (void)state;
    float a = 2.0f;
    void *params[] = {&a};
    cushim_launch_config cfg = config(CUSHIM_DIM3(3, 2), CUSHIM_DIM3(128, 2), 1024, fx.stream);
    int calls = mock.calls("*");
    assert_ok(cushim_launch(fx.fn, &cfg, params));
    assert_int_equal(mock.launch_count(), 1);
    const cushim_mock_launch *l = mock.launch(0);
    assert_string_equal(l->kernel, "cushim_empty");
    assert_int_equal(l->grid[0], 3);
    assert_int_equal(l->grid[1], 2);
    assert_int_equal(l->grid[2], 1);
    assert_int_equal(l->block[0], 128);
    assert_int_equal(l->block[1], 2);
    assert_int_equal(l->block[2], 1);
    assert_int_equal(l->shared_mem_bytes, 1024);
    assert_ptr_equal(l->stream, cushim_stream_raw(fx.stream));
    assert_false(l->cooperative);
    /* A launch on a stream switches nothing and asks the driver nothing else. */
    assert_int_equal(mock.calls("*"), calls + 1);
    assert_int_equal(mock.calls("cuLaunchKernel"), 1);
}

static void test_null_stream_launches_in_the_function_context(void **state) {
    (void)state;
    cushim_context *X = NULL;
    assert_ok(cushim_context_create(&X, 0, 0));
    make_current(X);
    cushim_launch_config cfg = config(CUSHIM_DIM3(1), CUSHIM_DIM3(32), 0, NULL);
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    assert_int_equal(mock.launch_count(), 1);
    assert_ptr_equal(mock.launch(0)->stream, default_stream());
    assert_ptr_equal(mock.launch(0)->context, cushim_context_raw(fx.ctx));
    assert_ptr_equal(mock.current(), cushim_context_raw(X));
    /* None current before: none after. */
    make_current(NULL);
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    assert_ptr_equal(mock.launch(1)->context, cushim_context_raw(fx.ctx));
    assert_null(mock.current());
    /* Already current: no switch at all. */
    make_current(fx.ctx);
    int switches = mock.calls("cuCtxSetCurrent");
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    assert_ptr_equal(mock.launch(2)->context, cushim_context_raw(fx.ctx));
    assert_int_equal(mock.calls("cuCtxSetCurrent"), switches);
    make_current(NULL);
    cushim_context_release(X);
}

typedef struct refusal {
    cushim_dim3 grid, block;
    unsigned smem;
    const char *says;
} refusal;

static void check_refusals(const refusal *cases, size_t n, cushim_function *f) {
    for (size_t i = 0; i < n; i++) {
        const refusal *c = &cases[i];
        cushim_launch_config cfg = config(c->grid, c->block, c->smem, fx.stream);
        for (int coop = 0; coop < 2; coop++) {
            int calls = mock.calls("*");
            int reads = mock.calls("cuFuncGetAttribute");
            CUresult r =
                coop ? cushim_launch_cooperative(f, &cfg, kargs) : cushim_launch(f, &cfg, kargs);
            if (r != CUDA_ERROR_INVALID_VALUE) {
                fail_msg("case %zu (%s): expected CUDA_ERROR_INVALID_VALUE, got %s", i,
                         coop ? "cooperative" : "plain", cushim_error_name(r));
            }
            assert_error_has(coop ? "cushim_launch_cooperative: " : "cushim_launch: ");
            assert_error_has(c->says);
            assert_no_launch();
            /* Dimension and thread checks ask the driver nothing at all; a shared memory
             * refusal reads the kernel's limit once more (it may have been raised), and
             * nothing else. */
            int extra = c->smem == 0 ? 0 : 1;
            assert_int_equal(mock.calls("*"), calls + extra);
            assert_int_equal(mock.calls("cuFuncGetAttribute"), reads + extra);
        }
    }
}

static void test_every_dimension_and_thread_refusal_calls_no_driver(void **state) {
    (void)state;
    const refusal cases[] = {
        {{0, 1, 1}, {32, 1, 1}, 0, "grid (0, 1, 1) has a zero dimension"},
        {{1, 0, 1}, {32, 1, 1}, 0, "grid (1, 0, 1) has a zero dimension"},
        {{1, 1, 0}, {32, 1, 1}, 0, "grid (1, 1, 0) has a zero dimension"},
        {{1, 1, 1}, {0, 1, 1}, 0, "block (0, 1, 1) has a zero dimension"},
        {{1, 1, 1}, {1, 0, 1}, 0, "block (1, 0, 1) has a zero dimension"},
        {{1, 1, 1}, {1, 1, 0}, 0, "block (1, 1, 0) has a zero dimension"},
        {{1, 1, 1},
         {1025, 1, 1},
         0,
         "block (1025, 1, 1) has 1025 threads; this device allows 1024 per block"},
        {{1, 1, 1}, {1, 1025, 1}, 0, "has 1025 threads; this device allows 1024 per block"},
        {{1, 1, 1}, {32, 32, 2}, 0, "block (32, 32, 2) has 2048 threads"},
        {{1, 1, 1}, {65536, 65536, 65536}, 0, "has 281474976710656 threads"},
        {{1, 1, 1},
         {1, 1, 65},
         0,
         "block (1, 1, 65) is 65 in Z; this device allows 64 "
         "(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)"},
        {{2147483648u, 1, 1},
         {32, 1, 1},
         0,
         "grid (2147483648, 1, 1) is 2147483648 in X; this device allows 2147483647"},
        {{1, 65536, 1},
         {32, 1, 1},
         0,
         "grid (1, 65536, 1) is 65536 in Y; this device allows 65535 "
         "(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)"},
        {{1, 1, 65536},
         {32, 1, 1},
         0,
         "grid (1, 1, 65536) is 65536 in Z; this device allows 65535"},
        {{0xffffffffu, 0xffffffffu, 0xffffffffu}, {32, 1, 1}, 0, "is 4294967295 in X"},
    };
    check_refusals(cases, sizeof cases / sizeof cases[0], fx.fn);
}

static void test_shared_memory_refusals(void **state) {
    (void)state;
    int device_optin = 0;
    assert_ok(cushim_driver()->cuDeviceGetAttribute(
        &device_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0));
    char optin_says[160];
    snprintf(optin_says, sizeof optin_says,
             "would use %u bytes of shared memory per block (0 static + %u dynamic); this device "
             "allows %d per block",
             (unsigned)device_optin + 1, (unsigned)device_optin + 1, device_optin);
    const refusal cases[] = {
        {{1, 1, 1},
         {32, 1, 1},
         49153,
         "kernel 'cushim_empty' asks for 49153 bytes of dynamic shared memory (beside 0 static); "
         "it may use 49152, as the plain limit is 49152 bytes per block"},
        {{1, 1, 1}, {32, 1, 1}, (unsigned)device_optin + 1, optin_says},
    };
    check_refusals(cases, sizeof cases / sizeof cases[0], fx.fn);
    /* The plain limit itself launches. */
    cushim_launch_config cfg = config(CUSHIM_DIM3(1), CUSHIM_DIM3(32), 49152, fx.stream);
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    assert_int_equal(mock.launch(0)->shared_mem_bytes, 49152);
}

/* A fresh module, so that its functions read the mock's kernel attributes as set now. */
static cushim_function *fresh_function(cushim_module **m, const char *name) {
    cushim_function *f = NULL;
    assert_ok(cushim_module_load_data(m, fx.ctx, ptx_kernels));
    assert_ok(cushim_module_function(&f, *m, name));
    return f;
}

static void test_kernel_thread_limit(void **state) {
    (void)state;
    mock.set_kernel_attributes(0, 64, 256);
    cushim_module *m = NULL;
    cushim_function *f = fresh_function(&m, "cushim_saxpy");
    const refusal cases[] = {
        {{1, 1, 1},
         {257, 1, 1},
         0,
         "block (257, 1, 1) has 257 threads; kernel 'cushim_saxpy' allows 256 per block"},
        {{1, 1, 1}, {16, 16, 2}, 0, "has 512 threads; kernel 'cushim_saxpy' allows 256"},
    };
    check_refusals(cases, sizeof cases / sizeof cases[0], f);
    cushim_launch_config cfg = config(CUSHIM_DIM3(1), CUSHIM_DIM3(16, 16), 0, fx.stream);
    assert_ok(cushim_launch(f, &cfg, kargs));
    assert_int_equal(mock.launch_count(), 1);
    cushim_module_release(m);
}

static void test_static_shared_memory_counts(void **state) {
    (void)state;
    mock.set_kernel_attributes(16384, 32, 1024);
    cushim_module *m = NULL;
    cushim_function *f = fresh_function(&m, "cushim_saxpy");
    const refusal cases[] = {
        {{1, 1, 1},
         {32, 1, 1},
         32769,
         "asks for 32769 bytes of dynamic shared memory (beside 16384 static); it may use 32768"},
    };
    check_refusals(cases, sizeof cases / sizeof cases[0], f);
    cushim_launch_config cfg = config(CUSHIM_DIM3(1), CUSHIM_DIM3(32), 32768, fx.stream);
    assert_ok(cushim_launch(f, &cfg, kargs));
    assert_int_equal(mock.launch_count(), 1);
    cushim_module_release(m);
}

static void test_opt_in_after_the_lookup_is_seen(void **state) {
    (void)state;
    cushim_launch_config cfg = config(CUSHIM_DIM3(1), CUSHIM_DIM3(32), 100000, fx.stream);
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch(fx.fn, &cfg, kargs));
    assert_error_has("raise CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES");
    assert_no_launch();
    /* The caller opts in on the raw handle; the next launch reads the kernel's limit again. */
    assert_ok(cushim_driver()->cuFuncSetAttribute(
        cushim_function_raw(fx.fn), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100000));
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    assert_int_equal(mock.launch_count(), 1);
    assert_int_equal(mock.launch(0)->shared_mem_bytes, 100000);
    /* And no more reads while it fits. */
    int reads = mock.calls("cuFuncGetAttribute");
    assert_ok(cushim_launch(fx.fn, &cfg, kargs));
    assert_int_equal(mock.calls("cuFuncGetAttribute"), reads);
    cfg.shared_mem_bytes = 100001;
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch(fx.fn, &cfg, kargs));
    assert_error_has("it may use 100000");
    assert_int_equal(mock.launch_count(), 2);
}

static void test_stream_of_another_context_is_refused(void **state) {
    (void)state;
    cushim_context *X = NULL;
    cushim_stream *s = NULL;
    assert_ok(cushim_context_create(&X, 0, 0));
    assert_ok(cushim_stream_create(&s, X, 0, 0));
    cushim_launch_config cfg = config(CUSHIM_DIM3(1), CUSHIM_DIM3(32), 0, s);
    assert_cu(CUDA_ERROR_INVALID_HANDLE, cushim_launch(fx.fn, &cfg, kargs));
    assert_error_has("belongs to context");
    assert_error_has("'cushim_empty'");
    assert_cu(CUDA_ERROR_INVALID_HANDLE, cushim_launch_cooperative(fx.fn, &cfg, kargs));
    assert_no_launch();
    cushim_stream_release(s);
    cushim_context_release(X);
}

static void test_bad_arguments(void **state) {
    (void)state;
    cushim_launch_config cfg = config(CUSHIM_DIM3(1), CUSHIM_DIM3(32), 0, fx.stream);
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch(NULL, &cfg, kargs));
    assert_error_has("f is NULL");
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch(fx.fn, NULL, kargs));
    assert_error_has("cfg is NULL");
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch_cooperative(fx.fn, NULL, kargs));
    assert_cu(CUDA_ERROR_INVALID_HANDLE,
              cushim_launch((const cushim_function *)(void *)fx.stream, &cfg, kargs));
    assert_error_has("a stream, not a function");
    cfg.stream = (cushim_stream *)(void *)fx.mod;
    assert_cu(CUDA_ERROR_INVALID_HANDLE, cushim_launch(fx.fn, &cfg, kargs));
    assert_error_has("a module, not a stream");
    assert_no_launch();
}

static void test_driver_failure_is_passed_through(void **state) {
    (void)state;
    cushim_launch_config cfg = config(CUSHIM_DIM3(7), CUSHIM_DIM3(64), 0, fx.stream);
    mock_fail("cuLaunchKernel", 1, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
    assert_cu(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, cushim_launch(fx.fn, &cfg, kargs));
    assert_error_has("cuLaunchKernel of kernel 'cushim_empty' with grid (7, 1, 1), block (64, 1, "
                     "1)");
    assert_error_has("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
    /* On a NULL stream the caller's context is back after the failure too. */
    cushim_context *X = NULL;
    assert_ok(cushim_context_create(&X, 0, 0));
    make_current(X);
    cfg.stream = NULL;
    mock_fail("cuLaunchKernel", 1, CUDA_ERROR_INVALID_VALUE);
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch(fx.fn, &cfg, kargs));
    assert_ptr_equal(mock.current(), cushim_context_raw(X));
    mock_fail("cuCtxSetCurrent", 1, CUDA_ERROR_INVALID_CONTEXT);
    assert_cu(CUDA_ERROR_INVALID_CONTEXT, cushim_launch(fx.fn, &cfg, kargs));
    assert_ptr_equal(mock.current(), cushim_context_raw(X));
    assert_int_equal(mock.launch_count(), 0);
    make_current(NULL);
    cushim_context_release(X);
}

static void test_limits_are_read_once_per_device(void **state) {
    (void)state;
    /* The fixture's function has the device's limits already; more functions and launches read
     * no device attribute again. */
    int reads = mock.calls("cuDeviceGetAttribute");
    cushim_module *m = NULL;
    cushim_function *f = fresh_function(&m, "cushim_saxpy");
    cushim_launch_config cfg = config(CUSHIM_DIM3(2), CUSHIM_DIM3(64), 0, fx.stream);
    for (int i = 0; i < 100; i++) assert_ok(cushim_launch(f, &cfg, kargs));
    cfg.stream = NULL;
    for (int i = 0; i < 100; i++) assert_ok(cushim_launch(f, &cfg, kargs));
    assert_int_equal(mock.calls("cuDeviceGetAttribute"), reads);
    assert_int_equal(mock.launch_count(), 200);
    cushim_module_release(m);
}

/* A kernel that takes parameters, launched with params NULL, is refused before the driver with
 * the count; the count was read once, at the lookup. A kernel that takes none needs none. */
static void run_nothing(const cushim_mock_kernel_args *a) { (void)a; }

static void test_null_params_refused_for_a_kernel_with_parameters(void **state) {
    (void)state;
    /* Registered, so that the launches run whatever the mock does with a kernel it has no
     * code for. */
    mock.register_kernel("cushim_saxpy", run_nothing);
    mock.register_kernel("cushim_empty", run_nothing);
    cushim_module *m = NULL;
    cushim_function *f = fresh_function(&m, "cushim_saxpy");
    int asked = mock.calls("cuFuncGetParamInfo");
    assert_true(asked > 0);
    cushim_launch_config cfg = config(CUSHIM_DIM3(2), CUSHIM_DIM3(64), 0, fx.stream);
    int launches = mock.launch_count();
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch(f, &cfg, NULL));
    assert_non_null(strstr(cushim_last_error(), "kernel 'cushim_saxpy' takes 4 parameters"));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch_cooperative(f, &cfg, NULL));
    assert_non_null(strstr(cushim_last_error(), "takes 4 parameters"));
    cfg.stream = NULL;
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_launch(f, &cfg, NULL));
    assert_int_equal(mock.launch_count(), launches);
    for (int i = 0; i < 10; i++) assert_ok(cushim_launch(f, &cfg, kargs));
    assert_ok(cushim_launch(fx.fn, &cfg, NULL)); /* cushim_empty takes none */
    assert_int_equal(mock.calls("cuFuncGetParamInfo"), asked);
    assert_int_equal(mock.launch_count(), launches + 11);
    cushim_module_release(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_launch_on_a_stream_passes_the_config, setup, teardown),
        cmocka_unit_test_setup_teardown(test_null_stream_launches_in_the_function_context, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_every_dimension_and_thread_refusal_calls_no_driver,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_shared_memory_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_thread_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_static_shared_memory_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_opt_in_after_the_lookup_is_seen, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_of_another_context_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_driver_failure_is_passed_through, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limits_are_read_once_per_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_null_params_refused_for_a_kernel_with_parameters,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
