/* cuLink* on the mock (issue 28, item 3): PTX inputs, as PTX, in a fatbin or in a file, are
 * joined so that one input's .extern .func and .extern .global resolve to another's
 * definitions; the image cuLinkComplete returns loads with cuModuleLoadData and its kernel runs.
 * libcudadevrt.a is taken; what the mock cannot link (LTO IR, host objects) is
 * CUDA_ERROR_NOT_SUPPORTED; misuse has the driver's codes; two inputs' names without .visible
 * stay apart. */
#define _GNU_SOURCE
#include <unistd.h>

#include "exec_util.h"
#include "fatbin_util.h"
#include "link_checks.h"

/* Loads the linked image, runs k and returns what it wrote. */
static uint32_t run_linked(const void *image) {
    CUmodule m;
    assert_ok(t->cuModuleLoadData(&m, image));
    uint32_t v = link_run(t, m, "k");
    assert_ok(t->cuModuleUnload(m));
    return v;
}

static void test_ptx_inputs_link_and_run(void **state) {
    (void)state;
    CUlinkState l;
    assert_ok(t->cuLinkCreate(0, NULL, NULL, &l));
    assert_ok(t->cuLinkAddData(l, CU_JIT_INPUT_PTX, (void *)ptx_user, sizeof ptx_user, "user", 0,
                               NULL, NULL));
    assert_ok(t->cuLinkAddData(l, CU_JIT_INPUT_PTX, (void *)ptx_lib, strlen(ptx_lib), "lib", 0,
                               NULL, NULL));
    void *image = NULL;
    size_t size = 0;
    assert_ok(t->cuLinkComplete(l, &image, &size));
    assert_non_null(image);
    assert_int_equal(size, strlen(image) + 1);
    /* The declarations that the other input defines are gone; one header. */
    assert_null(strstr(image, ".extern"));
    const char *version = strstr(image, ".version");
    assert_non_null(version);
    assert_null(strstr(version + 1, ".version"));
    assert_int_equal(run_linked(image), 45);
    /* Completing again answers the same image; adding after it is refused. */
    void *again = NULL;
    assert_ok(t->cuLinkComplete(l, &again, &size));
    assert_ptr_equal(again, image);
    assert_int_equal(t->cuLinkAddData(l, CU_JIT_INPUT_PTX, (void *)ptx_lib, sizeof ptx_lib, "lib",
                                      0, NULL, NULL),
                     CUDA_ERROR_INVALID_VALUE);
    assert_ok(t->cuLinkDestroy(l));
}

static void test_fatbin_and_file_inputs(void **state) {
    (void)state;
    fatbin f = {0};
    assert_true(fat_add(&f, ptx_lib, sizeof ptx_lib, 0, 90, 0));
    char path[] = "/tmp/cushim-link-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, ptx_user, strlen(ptx_user)), (ssize_t)strlen(ptx_user));
    close(fd);
    CUlinkState l;
    assert_ok(t->cuLinkCreate(0, NULL, NULL, &l));
    assert_ok(t->cuLinkAddFile(l, CU_JIT_INPUT_PTX, path, 0, NULL, NULL));
    assert_ok(t->cuLinkAddData(l, CU_JIT_INPUT_FATBINARY, f.p, f.len, "lib.fatbin", 0, NULL, NULL));
    const char *devrt = "/usr/local/cuda/lib64/libcudadevrt.a";
    if (access(devrt, R_OK) == 0) {
        assert_ok(t->cuLinkAddFile(l, CU_JIT_INPUT_LIBRARY, devrt, 0, NULL, NULL));
    }
    assert_int_equal(t->cuLinkAddFile(l, CU_JIT_INPUT_PTX, "/dev/zero", 0, NULL, NULL),
                     CUDA_ERROR_FILE_NOT_FOUND);
    void *image;
    size_t size;
    assert_ok(t->cuLinkComplete(l, &image, &size));
    assert_int_equal(run_linked(image), 45);
    assert_ok(t->cuLinkDestroy(l));
    unlink(path);
    free(f.p);
}

/* The body is the GPU's too (gpu_load_checks): the driver keeps the names apart. */
static void test_own_names_stay_apart(void **state) {
    (void)state;
    link_check_own_names(t);
}

static void test_what_cannot_be_linked(void **state) {
    (void)state;
    CUlinkState l;
    void *image;
    size_t size;
    assert_int_equal(t->cuLinkCreate(0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_ok(t->cuLinkCreate(0, NULL, NULL, &l));
    assert_int_equal(t->cuLinkComplete(l, &image, &size), CUDA_ERROR_INVALID_VALUE);
    static const char ir[] = "BC\xc0\xde";
    assert_int_equal(
        t->cuLinkAddData(l, CU_JIT_INPUT_NVVM, (void *)ir, sizeof ir, "lto", 0, NULL, NULL),
        CUDA_ERROR_NOT_SUPPORTED);
    assert_int_equal(
        t->cuLinkAddData(l, (CUjitInputType)99, (void *)ir, sizeof ir, "x", 0, NULL, NULL),
        CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(t->cuLinkAddData(l, CU_JIT_INPUT_PTX, NULL, 4, "x", 0, NULL, NULL),
                     CUDA_ERROR_INVALID_VALUE);
    assert_ok(t->cuLinkDestroy(l));
    /* A destroyed state is no longer one. */
    assert_int_equal(t->cuLinkDestroy(l), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(t->cuLinkDestroy(NULL), CUDA_ERROR_INVALID_VALUE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ptx_inputs_link_and_run, exec_setup, exec_teardown),
        cmocka_unit_test_setup_teardown(test_fatbin_and_file_inputs, exec_setup, exec_teardown),
        cmocka_unit_test_setup_teardown(test_own_names_stay_apart, exec_setup, exec_teardown),
        cmocka_unit_test_setup_teardown(test_what_cannot_be_linked, exec_setup, exec_teardown),
    };
    return cmocka_run_group_tests_name("mock_link", tests, NULL, NULL);
}
