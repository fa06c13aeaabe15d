/* A PTX that does not compile: the JIT's error log is in cushim_last_error(), for a module
 * loaded from memory or from a file, and for a library. Skips (77) without a GPU. */
#include "gpu_launch.h"

static void assert_jit_log(CUresult r, const char *prefix) {
    if (r == CUDA_SUCCESS) fail_msg("%s", "ptx/broken.ptx loaded");
    const char *e = cushim_last_error();
    fprintf(stderr, "# %s\n", e);
    if (strncmp(e, prefix, strlen(prefix)) != 0)
        fail_msg("\"%s\" does not start \"%s\"", e, prefix);
    if (strstr(e, "ptxas") == NULL && strstr(e, "error") == NULL) {
        fail_msg("\"%s\" holds no JIT log", e);
    }
}

static void test_module_from_memory(void **state) {
    (void)state;
    char *ptx = read_ptx("broken.ptx");
    assert_non_null(ptx);
    cushim_module *m = (cushim_module *)&m;
    CUresult r = cushim_module_load_data(&m, ctx, ptx);
    free(ptx);
    assert_null(m);
    assert_jit_log(r, "cushim_module_load_data: CUDA_ERROR_");
}

static void test_module_from_a_file(void **state) {
    (void)state;
    cushim_module *m = (cushim_module *)&m;
    CUresult r = cushim_module_load_file(&m, ctx, PTX_DIR "/broken.ptx");
    assert_null(m);
    assert_jit_log(r, "cushim_module_load_file: " PTX_DIR "/broken.ptx: CUDA_ERROR_");
    /* And a file that is not there. */
    assert_cu(CUDA_ERROR_FILE_NOT_FOUND,
              cushim_module_load_file(&m, ctx, PTX_DIR "/no-such-file.ptx"));
    assert_non_null(strstr(cushim_last_error(), PTX_DIR "/no-such-file.ptx"));
}

static void test_library(void **state) {
    (void)state;
    char *ptx = read_ptx("broken.ptx");
    assert_non_null(ptx);
    cushim_library *lib = NULL;
    CUresult r = cushim_library_load_data(&lib, ptx);
    if (r != CUDA_SUCCESS) {
        /* Loaded eagerly (CUDA_MODULE_LOADING=EAGER): the load itself failed. */
        free(ptx);
        assert_null(lib);
        assert_jit_log(r, "cushim_library_load_data: CUDA_ERROR_");
        return;
    }
    /* Loaded lazily: the PTX is compiled, and fails, when the kernel is first asked for. */
    cushim_function *f = (cushim_function *)&f;
    r = cushim_library_function(&f, lib, ctx, "cushim_broken");
    free(ptx);
    assert_null(f);
    assert_jit_log(r, "cushim_library_function: ");
    cushim_library_release(lib);
}

int main(void) {
    gpu_require();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_module_from_memory, gpu_setup, gpu_teardown),
        cmocka_unit_test_setup_teardown(test_module_from_a_file, gpu_setup, gpu_teardown),
        cmocka_unit_test_setup_teardown(test_library, gpu_setup, gpu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
