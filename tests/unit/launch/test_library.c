/* Context-less kernels: a library loads with no context current, its kernels launch through a
 * cushim_function on any context's stream, or on the bound context's default stream; the last
 * release unloads once and lets the bound contexts go. */
#include "launch_util.h"

static int setup(void **state) { return fixture_setup(state); }

static int teardown(void **state) { return fixture_teardown(state); }

static void test_library_kernel_launches_on_a_stream(void **state) {
    (void)state;
    cushim_library *lib = NULL;
    cushim_function *f = NULL;
    assert_ok(cushim_library_load_data(&lib, ptx_kernels));
    assert_int_equal(mock.live(CUSHIM_MOCK_LIBRARY), 1);
    assert_ok(cushim_library_function(&f, lib, fx.ctx, "cushim_saxpy"));
    assert_non_null(cushim_function_raw(f));
    unsigned n = 1000;
    float a = 2.0f;
    CUdeviceptr x = 0, y = 0;
    void *params[] = {&n, &a, &x, &y};
    cushim_launch_config cfg = config(CUSHIM_DIM3(8), CUSHIM_DIM3(128), 0, fx.stream);
    assert_ok(cushim_launch(f, &cfg, params));
    assert_int_equal(mock.launch_count(), 1);
    const cushim_mock_launch *l = mock.launch(0);
    assert_string_equal(l->kernel, "cushim_saxpy");
    assert_ptr_equal(l->stream, cushim_stream_raw(fx.stream));
    assert_ptr_equal(mock.stream_context(l->stream), cushim_context_raw(fx.ctx));
    assert_int_equal(l->grid[0], 8);
    assert_int_equal(l->block[0], 128);
    assert_false(l->cooperative);
    /* The launch is the only driver call, and no context was made current for it. */
    assert_int_equal(mock.calls("cuLaunchKernel"), 1);
    assert_null(mock.current());
    cushim_library_release(lib);
    assert_int_equal(mock.live(CUSHIM_MOCK_LIBRARY), 0);
}

static void test_a_stream_of_any_context_will_do(void **state) {
    (void)state;
    cushim_context *Z = NULL;
    cushim_stream *s = NULL;
    assert_ok(cushim_context_create(&Z, 0, 0));
    assert_ok(cushim_stream_create(&s, Z, 0, 0));
    cushim_library *lib = NULL;
    cushim_function *f = NULL;
    assert_ok(cushim_library_load_data(&lib, ptx_kernels));
    assert_ok(cushim_library_function(&f, lib, fx.ctx, "cushim_empty"));
    cushim_launch_config cfg = config(CUSHIM_DIM3(1), CUSHIM_DIM3(32), 0, s);
    assert_ok(cushim_launch(f, &cfg, kargs));
    assert_ptr_equal(mock.launch(0)->stream, cushim_stream_raw(s));
    assert_ptr_equal(mock.stream_context(mock.launch(0)->stream), cushim_context_raw(Z));
    cushim_library_release(lib);
    cushim_stream_release(s);
    cushim_context_release(Z);
}

static void test_null_stream_launches_in_the_bound_context(void **state) {
    (void)state;
    cushim_context *X = NULL;
    assert_ok(cushim_context_create(&X, 0, 0));
    cushim_library *lib = NULL;
    cushim_function *f = NULL;
    assert_ok(cushim_library_load_data(&lib, ptx_kernels));
    assert_ok(cushim_library_function(&f, lib, fx.ctx, "cushim_grid_barrier"));
    make_current(X);
    cushim_launch_config cfg = config(CUSHIM_DIM3(4), CUSHIM_DIM3(64), 0, NULL);
    assert_ok(cushim_launch(f, &cfg, kargs));
    assert_ptr_equal(mock.launch(0)->stream, default_stream());
    assert_ptr_equal(mock.launch(0)->context, cushim_context_raw(fx.ctx));
    assert_ptr_equal(mock.current(), cushim_context_raw(X));
    /* Cooperatively too, at exactly the limit. */
    int limit = 0;
    assert_ok(cushim_occupancy_max_cooperative_grid(&limit, f, 64, 0));
    assert_true(limit > 0);
    cfg.grid = CUSHIM_DIM3((unsigned)limit);
    assert_ok(cushim_launch_cooperative(f, &cfg, kargs));
    assert_true(mock.launch(1)->cooperative);
    assert_ptr_equal(mock.launch(1)->context, cushim_context_raw(fx.ctx));
    assert_ptr_equal(mock.current(), cushim_context_raw(X));
    cfg.grid.x++;
    cfg.stream = fx.stream;
    assert_cu(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, cushim_launch_cooperative(f, &cfg, kargs));
    assert_int_equal(mock.launch_count(), 2);
    make_current(NULL);
    cushim_library_release(lib);
    cushim_context_release(X);
}

static void test_library_functions_are_per_name_and_context(void **state) {
    (void)state;
    cushim_context *Z = NULL;
    assert_ok(cushim_context_create(&Z, 0, 0));
    cushim_library *lib = NULL;
    assert_ok(cushim_library_load_data(&lib, ptx_kernels));
    cushim_function *a = NULL, *b = NULL, *c = NULL;
    assert_ok(cushim_library_function(&a, lib, fx.ctx, "cushim_saxpy"));
    assert_ok(cushim_library_function(&b, lib, fx.ctx, "cushim_saxpy"));
    assert_ptr_equal(a, b);
    assert_ok(cushim_library_function(&c, lib, Z, "cushim_saxpy"));
    assert_ptr_not_equal(a, c);
    /* Both launch the same CUkernel. */
    assert_ptr_equal(cushim_function_raw(a), cushim_function_raw(c));
    /* The function bound to Z keeps Z until the library goes. */
    int contexts = mock.live(CUSHIM_MOCK_CONTEXT);
    CUcontext z_raw = cushim_context_raw(Z);
    cushim_context_release(Z);
    assert_int_equal(mock.live(CUSHIM_MOCK_CONTEXT), contexts);
    cushim_launch_config cfg = config(CUSHIM_DIM3(1), CUSHIM_DIM3(32), 0, NULL);
    assert_ok(cushim_launch(c, &cfg, kargs));
    assert_ptr_equal(mock.launch(0)->context, z_raw);
    cushim_library_release(lib);
    assert_int_equal(mock.live(CUSHIM_MOCK_CONTEXT), contexts - 1);
    assert_int_equal(mock.live(CUSHIM_MOCK_LIBRARY), 0);
}

static void test_retains_then_the_last_release_unloads_once(void **state) {
    (void)state;
    cushim_library *lib = NULL;
    assert_ok(cushim_library_load_data(&lib, ptx_kernels));
    for (int i = 0; i < 4; i++) assert_ptr_equal(cushim_library_retain(lib), lib);
    for (int i = 0; i < 4; i++) cushim_library_release(lib);
    assert_int_equal(mock.calls("cuLibraryUnload"), 0);
    assert_int_equal(mock.live(CUSHIM_MOCK_LIBRARY), 1);
    cushim_library_release(lib);
    assert_int_equal(mock.calls("cuLibraryUnload"), 1);
    assert_int_equal(mock.live(CUSHIM_MOCK_LIBRARY), 0);
}

static void test_missing_kernel_and_failed_loads(void **state) {
    (void)state;
    cushim_library *lib = NULL;
    assert_ok(cushim_library_load_data(&lib, ptx_kernels));
    cushim_function *f = (cushim_function *)&f;
    assert_cu(CUDA_ERROR_NOT_FOUND, cushim_library_function(&f, lib, fx.ctx, "no_such_kernel"));
    assert_null(f);
    assert_error_has("no kernel named 'no_such_kernel' in library");
    cushim_library_release(lib);

    lib = (cushim_library *)&lib;
    assert_cu(CUDA_ERROR_INVALID_PTX, cushim_library_load_data(&lib, ptx_jit_error));
    assert_null(lib);
    assert_error_has("cushim_library_load_data: CUDA_ERROR_INVALID_PTX: ");
    assert_null(strstr(cushim_last_error(), cushim_error_string(CUDA_ERROR_INVALID_PTX)));
    lib = (cushim_library *)&lib;
    mock_fail("cuLibraryLoadData", 1, CUDA_ERROR_OUT_OF_MEMORY);
    assert_cu(CUDA_ERROR_OUT_OF_MEMORY, cushim_library_load_data(&lib, ptx_kernels));
    assert_null(lib);
    assert_error_has("cushim_library_load_data: CUDA_ERROR_OUT_OF_MEMORY");
    assert_int_equal(mock.live(CUSHIM_MOCK_LIBRARY), 0);
}

static void test_bad_arguments(void **state) {
    (void)state;
    cushim_library *lib = (cushim_library *)&lib;
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_library_load_data(NULL, ptx_kernels));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_library_load_data(&lib, NULL));
    assert_null(lib);
    assert_ok(cushim_library_load_data(&lib, ptx_kernels));
    cushim_function *f = (cushim_function *)&f;
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_library_function(&f, lib, NULL, "cushim_empty"));
    assert_null(f);
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_library_function(&f, NULL, fx.ctx, "cushim_empty"));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_library_function(&f, lib, fx.ctx, NULL));
    assert_cu(CUDA_ERROR_INVALID_HANDLE,
              cushim_library_function(&f, (cushim_library *)(void *)fx.mod, fx.ctx, "x"));
    assert_error_has("a module, not a library");
    assert_null(cushim_library_retain((cushim_library *)(void *)fx.mod));
    cushim_library_release(NULL);
    cushim_library_release(lib);
    assert_int_equal(mock.live(CUSHIM_MOCK_LIBRARY), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_library_kernel_launches_on_a_stream, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_stream_of_any_context_will_do, setup, teardown),
        cmocka_unit_test_setup_teardown(test_null_stream_launches_in_the_bound_context, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_library_functions_are_per_name_and_context, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_retains_then_the_last_release_unloads_once, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_missing_kernel_and_failed_loads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
