/* Modules: loaded and unloaded with their context current by the context rule, the JIT log of a
 * failed load in the last error, missing kernels named, functions owned by their module, and
 * the last release unloading exactly once. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkstemp, open */
#endif
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "launch_util.h"
#include "two_contexts.h"

/* The driver module behind a cushim module, through one of its functions. */
static CUmodule raw_module(cushim_module *m) {
    cushim_function *f = NULL;
    assert_ok(cushim_module_function(&f, m, "cushim_empty"));
    CUmodule raw = NULL;
    assert_ok(cushim_driver()->cuFuncGetModule(&raw, cushim_function_raw(f)));
    return raw;
}

static void test_load_in_y_with_x_current_belongs_to_y(void **state) {
    (void)state;
    make_current(X);
    cushim_module *m = NULL;
    assert_ok(cushim_module_load_data(&m, Y, ptx_kernels));
    assert_non_null(m);
    assert_ptr_equal(mock.current(), cushim_context_raw(X));
    assert_ptr_equal(mock.module_context(raw_module(m)), cushim_context_raw(Y));
    assert_ptr_equal(mock.current(), cushim_context_raw(X));
    assert_int_equal(mock.live(CUSHIM_MOCK_MODULE), 1);
    /* The unload needs no switch (the H200 unloads a module with another context current):
     * none is made, and X stays current. */
    int before = mock.calls("cuCtxSetCurrent");
    cushim_module_release(m);
    assert_int_equal(mock.calls("cuModuleUnload"), 1);
    assert_int_equal(mock.calls("cuCtxSetCurrent"), before);
    assert_ptr_equal(mock.current(), cushim_context_raw(X));
    assert_int_equal(mock.live(CUSHIM_MOCK_MODULE), 0);
}

static void test_none_current_before_means_none_after(void **state) {
    (void)state;
    make_current(NULL);
    cushim_module *m = NULL;
    assert_ok(cushim_module_load_data(&m, Y, ptx_kernels));
    assert_null(mock.current());
    assert_ptr_equal(mock.module_context(raw_module(m)), cushim_context_raw(Y));
    assert_null(mock.current());
    cushim_module_release(m);
    assert_null(mock.current());
    assert_int_equal(mock.live(CUSHIM_MOCK_MODULE), 0);
}

static void test_no_switch_when_y_is_current(void **state) {
    (void)state;
    make_current(Y);
    int before = mock.calls("cuCtxSetCurrent");
    cushim_module *m = NULL;
    assert_ok(cushim_module_load_data(&m, Y, ptx_kernels));
    cushim_function *f = NULL;
    assert_ok(cushim_module_function(&f, m, "cushim_saxpy"));
    cushim_module_release(m);
    assert_int_equal(mock.calls("cuCtxSetCurrent"), before);
    assert_ptr_equal(mock.current(), cushim_context_raw(Y));
    assert_int_equal(mock.live(CUSHIM_MOCK_MODULE), 0);
}

static void test_failed_load_restores_and_leaves_nothing(void **state) {
    (void)state;
    make_current(X);
    cushim_module *m = (cushim_module *)&m;
    mock_fail("cuModuleLoadDataEx", 1, CUDA_ERROR_INVALID_PTX);
    assert_cu(CUDA_ERROR_INVALID_PTX, cushim_module_load_data(&m, Y, ptx_kernels));
    assert_null(m);
    assert_error_has("cushim_module_load_data: CUDA_ERROR_INVALID_PTX: ");
    assert_ptr_equal(mock.current(), cushim_context_raw(X));
    assert_int_equal(mock.live(CUSHIM_MOCK_MODULE), 0);
}

static void test_jit_error_log_is_the_last_error(void **state) {
    (void)state;
    make_current(X);
    cushim_module *m = (cushim_module *)&m;
    assert_cu(CUDA_ERROR_INVALID_PTX, cushim_module_load_data(&m, Y, ptx_jit_error));
    assert_null(m);
    const char *prefix = "cushim_module_load_data: CUDA_ERROR_INVALID_PTX: ";
    assert_int_equal(strncmp(cushim_last_error(), prefix, strlen(prefix)), 0);
    /* The rest is the JIT's log, not the code's stock text. */
    const char *log = cushim_last_error() + strlen(prefix);
    assert_true(strlen(log) > 0);
    assert_null(strstr(log, cushim_error_string(CUDA_ERROR_INVALID_PTX)));
    assert_ptr_equal(mock.current(), cushim_context_raw(X));
    assert_int_equal(mock.live(CUSHIM_MOCK_MODULE), 0);
}

/* Every driver call on the load path fails in turn: the error comes back, nothing is left
 * loaded, and X is current again unless it was the restore itself that failed. */
static void test_each_failing_call_on_the_load_path(void **state) {
    (void)state;
    int n;
    for (n = 1; n < 50; n++) {
        make_current(X);
        cushim_module *m = (cushim_module *)&m;
        mock.fail_any(n, CUDA_ERROR_UNKNOWN);
        CUresult r = cushim_module_load_data(&m, Y, ptx_kernels);
        mock.fail_any(0, CUDA_SUCCESS);
        if (r == CUDA_SUCCESS) {
            cushim_module_release(m);
            break;
        }
        assert_cu(CUDA_ERROR_UNKNOWN, r);
        assert_null(m);
        assert_int_equal(mock.live(CUSHIM_MOCK_MODULE), 0);
        if (mock.current() != cushim_context_raw(X)) {
            assert_error_has("restoring the previous current context");
        }
    }
    assert_true(n > 3); /* read, switch, load, restore at least */
    assert_int_equal(mock.live(CUSHIM_MOCK_MODULE), 0);
}

static void test_missing_kernel_is_not_found_and_named(void **state) {
    (void)state;
    cushim_module *m = NULL;
    assert_ok(cushim_module_load_data(&m, Y, ptx_kernels));
    cushim_function *f = (cushim_function *)&f;
    assert_cu(CUDA_ERROR_NOT_FOUND, cushim_module_function(&f, m, "cushim_no_such_kernel"));
    assert_null(f);
    assert_error_has("'cushim_no_such_kernel'");
    char name[64];
    snprintf(name, sizeof name, "module %p", (void *)m);
    assert_error_has(name);
    cushim_module_release(m);
}

static void test_function_is_owned_and_asked_once(void **state) {
    (void)state;
    cushim_module *m = NULL;
    assert_ok(cushim_module_load_data(&m, Y, ptx_kernels));
    cushim_function *a = NULL, *b = NULL, *c = NULL;
    assert_ok(cushim_module_function(&a, m, "cushim_saxpy"));
    int asked = mock.calls("cuModuleGetFunction");
    int attrs = mock.calls("cuFuncGetAttribute");
    assert_ok(cushim_module_function(&b, m, "cushim_saxpy"));
    assert_ptr_equal(a, b);
    assert_int_equal(mock.calls("cuModuleGetFunction"), asked);
    assert_int_equal(mock.calls("cuFuncGetAttribute"), attrs);
    assert_ok(cushim_module_function(&c, m, "cushim_empty"));
    assert_ptr_not_equal(a, c);
    assert_non_null(cushim_function_raw(a));
    assert_ptr_not_equal(cushim_function_raw(a), cushim_function_raw(c));
    /* Launches ask the driver nothing but the launch. */
    cushim_stream *s = NULL;
    assert_ok(cushim_stream_create(&s, Y, 0, 0));
    int after_create = mock.calls("*");
    cushim_launch_config cfg = config(CUSHIM_DIM3(4), CUSHIM_DIM3(128), 0, s);
    for (int i = 0; i < 10; i++) assert_ok(cushim_launch(c, &cfg, kargs));
    assert_int_equal(mock.calls("*") - after_create, 10);
    assert_int_equal(mock.calls("cuLaunchKernel"), 10);
    cushim_stream_release(s);
    cushim_module_release(m);
}

#define THREADS 8

typedef struct lookup_arg {
    cushim_module *m;
    cushim_stream *s;
    cushim_function *got;
    CUresult r;
} lookup_arg;

static void *lookup_and_launch(void *p) {
    lookup_arg *a = p;
    a->r = cushim_module_function(&a->got, a->m, "cushim_grid_barrier");
    cushim_launch_config cfg = config(CUSHIM_DIM3(64), CUSHIM_DIM3(128), 0, a->s);
    for (int i = 0; a->r == CUDA_SUCCESS && i < 50; i++) {
        a->r = cushim_launch_cooperative(a->got, &cfg, kargs);
        if (a->r == CUDA_SUCCESS) a->r = cushim_launch(a->got, &cfg, kargs);
        cfg.block.x = cfg.block.x == 128 ? 256 : 128;
    }
    return NULL;
}

/* Threads asking for one kernel at once get one function, and launch it side by side (the
 * cooperative cache is shared by them). The module's lock is not held across the driver's
 * lookup, so threads that ask at once may each look it up; the first one listed is kept. */
static void test_concurrent_lookups_make_one_function(void **state) {
    (void)state;
    cushim_module *m = NULL;
    cushim_stream *s = NULL;
    assert_ok(cushim_module_load_data(&m, Y, ptx_kernels));
    assert_ok(cushim_stream_create(&s, Y, 0, 0));
    pthread_t t[THREADS];
    lookup_arg a[THREADS];
    for (int i = 0; i < THREADS; i++) {
        a[i] = (lookup_arg){m, s, NULL, CUDA_ERROR_UNKNOWN};
        assert_int_equal(pthread_create(&t[i], NULL, lookup_and_launch, &a[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) assert_int_equal(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < THREADS; i++) {
        assert_ok(a[i].r);
        assert_ptr_equal(a[i].got, a[0].got);
    }
    assert_in_range(mock.calls("cuModuleGetFunction"), 1, THREADS);
    assert_int_equal(mock.launch_count(), THREADS * 50 * 2);
    cushim_stream_release(s);
    cushim_module_release(m);
}

static void test_retains_then_the_last_release_unloads_once(void **state) {
    (void)state;
    cushim_module *m = NULL;
    assert_ok(cushim_module_load_data(&m, Y, ptx_kernels));
    for (int i = 0; i < 5; i++) assert_ptr_equal(cushim_module_retain(m), m);
    for (int i = 0; i < 5; i++) cushim_module_release(m);
    assert_int_equal(mock.calls("cuModuleUnload"), 0);
    assert_int_equal(mock.live(CUSHIM_MOCK_MODULE), 1);
    cushim_module_release(m);
    assert_int_equal(mock.calls("cuModuleUnload"), 1);
    assert_int_equal(mock.live(CUSHIM_MOCK_MODULE), 0);
}

static void test_module_keeps_its_context(void **state) {
    (void)state;
    cushim_context *c = NULL;
    assert_ok(cushim_context_create(&c, 0, 0));
    cushim_module *m = NULL;
    assert_ok(cushim_module_load_data(&m, c, ptx_kernels));
    int contexts = mock.live(CUSHIM_MOCK_CONTEXT);
    cushim_context_release(c); /* the module's reference keeps it */
    assert_int_equal(mock.live(CUSHIM_MOCK_CONTEXT), contexts);
    cushim_module_release(m);
    assert_int_equal(mock.live(CUSHIM_MOCK_CONTEXT), contexts - 1);
    assert_int_equal(mock.live(CUSHIM_MOCK_MODULE), 0);
}

static void test_load_file(void **state) {
    (void)state;
    char path[] = "/tmp/cushim-test-module-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, ptx_kernels, strlen(ptx_kernels)), (ssize_t)strlen(ptx_kernels));
    close(fd);
    make_current(X);
    cushim_module *m = NULL;
    assert_ok(cushim_module_load_file(&m, Y, path));
    assert_ptr_equal(mock.current(), cushim_context_raw(X));
    assert_ptr_equal(mock.module_context(raw_module(m)), cushim_context_raw(Y));
    cushim_function *f = (cushim_function *)&f;
    assert_cu(CUDA_ERROR_NOT_FOUND, cushim_module_function(&f, m, "nope"));
    assert_error_has(path); /* a module from a file is named by its path too */
    cushim_module_release(m);

    /* A PTX file that fails to compile: its path and the JIT log. */
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, ptx_jit_error, strlen(ptx_jit_error)),
                     (ssize_t)strlen(ptx_jit_error));
    close(fd);
    m = (cushim_module *)&m;
    assert_cu(CUDA_ERROR_INVALID_PTX, cushim_module_load_file(&m, Y, path));
    assert_null(m);
    assert_error_has(path);
    assert_error_has("CUDA_ERROR_INVALID_PTX");
    unlink(path);

    /* No file at all: a clear error naming the path, and no driver call. */
    int loads = mock.calls("cuModuleLoadDataEx");
    m = (cushim_module *)&m;
    assert_cu(CUDA_ERROR_FILE_NOT_FOUND, cushim_module_load_file(&m, Y, path));
    assert_null(m);
    assert_error_has(path);
    assert_error_has("No such file");
    assert_int_equal(mock.calls("cuModuleLoadDataEx"), loads);
    assert_ptr_equal(mock.current(), cushim_context_raw(X));
    assert_int_equal(mock.live(CUSHIM_MOCK_MODULE), 0);
}

static void test_bad_arguments(void **state) {
    (void)state;
    cushim_module *m = (cushim_module *)&m;
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_module_load_data(NULL, Y, ptx_kernels));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_module_load_data(&m, NULL, ptx_kernels));
    assert_null(m);
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_module_load_data(&m, Y, NULL));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_module_load_file(&m, Y, NULL));
    uint32_t junk[8] = {0x12345678u};
    assert_cu(CUDA_ERROR_INVALID_HANDLE,
              cushim_module_load_data(&m, (cushim_context *)(void *)junk, ptx_kernels));
    assert_error_has("not a cushim object");
    cushim_stream *s = NULL;
    assert_ok(cushim_stream_create(&s, Y, 0, 0));
    cushim_function *f = (cushim_function *)&f;
    assert_cu(CUDA_ERROR_INVALID_HANDLE,
              cushim_module_function(&f, (cushim_module *)(void *)s, "cushim_empty"));
    assert_null(f);
    assert_error_has("a stream, not a module");
    assert_null(cushim_module_retain((cushim_module *)(void *)s));
    assert_null(cushim_function_raw((cushim_function *)(void *)s));
    assert_null(cushim_function_raw(NULL));
    assert_ok(cushim_module_load_data(&m, Y, ptx_kernels));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_module_function(&f, m, NULL));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_module_function(NULL, m, "cushim_empty"));
    cushim_module_release(m);
    cushim_module_release(NULL);
    cushim_stream_release(s);
    assert_int_equal(mock.live(CUSHIM_MOCK_MODULE), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        TWO_CONTEXTS_TEST(test_load_in_y_with_x_current_belongs_to_y),
        TWO_CONTEXTS_TEST(test_none_current_before_means_none_after),
        TWO_CONTEXTS_TEST(test_no_switch_when_y_is_current),
        TWO_CONTEXTS_TEST(test_failed_load_restores_and_leaves_nothing),
        TWO_CONTEXTS_TEST(test_jit_error_log_is_the_last_error),
        TWO_CONTEXTS_TEST(test_each_failing_call_on_the_load_path),
        TWO_CONTEXTS_TEST(test_missing_kernel_is_not_found_and_named),
        TWO_CONTEXTS_TEST(test_function_is_owned_and_asked_once),
        TWO_CONTEXTS_TEST(test_concurrent_lookups_make_one_function),
        TWO_CONTEXTS_TEST(test_retains_then_the_last_release_unloads_once),
        TWO_CONTEXTS_TEST(test_module_keeps_its_context),
        TWO_CONTEXTS_TEST(test_load_file),
        TWO_CONTEXTS_TEST(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
