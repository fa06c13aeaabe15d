/* What the driver answers to the loads the mock refuses (issue 28, item 5), and its cuLink* on
 * the PTX the mock links: each load's code and JIT log are printed, so that the mock can follow
 * where it guessed (the mock: unparsable PTX and a .target above the device are
 * CUDA_ERROR_INVALID_PTX, a fatbin with nothing for the device and an sm_80 cubin are
 * CUDA_ERROR_NO_BINARY_FOR_GPU; a damaged zstd entry, CUDA_ERROR_INVALID_IMAGE, is checked on the
 * mock only); a load that must fail fails, a name the image lacks is CUDA_ERROR_NOT_FOUND, and the
 * linked kernel writes 45. Skips (77) without a GPU. */
#define _GNU_SOURCE

#include "gpu_util.h"

#include "../unit/mock_exec/fatbin_util.h"
#include "../unit/mock_exec/link_checks.h"

static CUresult load(const char *what, const void *image, const char *mock_says) {
    char log[1024] = "";
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {log, (void *)(uintptr_t)sizeof log};
    CUmodule m = NULL;
    CUresult r = cushim_driver()->cuModuleLoadDataEx(&m, image, 2, opts, vals);
    printf("# %-28s %s (the mock: %s); log: %s\n", what, cushim_error_name(r), mock_says,
           log[0] ? log : "(empty)");
    if (r == CUDA_SUCCESS) cushim_driver()->cuModuleUnload(m);
    return r;
}

static void test_loads_the_mock_refuses(void **state) {
    (void)state;
    static const char unclosed[] = LINK_PTX_HEAD ".visible .entry k(.param .u64 p)\n{\n\tret;\n";
    assert_int_not_equal(load("unclosed body", unclosed, "CUDA_ERROR_INVALID_PTX"), CUDA_SUCCESS);
    static const char sm100[] =
        ".version 8.8\n.target sm_100\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
    assert_int_not_equal(load(".target sm_100 on 9.0", sm100, "CUDA_ERROR_INVALID_PTX"),
                         CUDA_SUCCESS);
    fatbin f = {0};
    assert_true(fat_add(&f, sm100, sizeof sm100, 0, 100, 0));
    assert_int_not_equal(load("fatbin of compute_100 only", f.p, "CUDA_ERROR_NO_BINARY_FOR_GPU"),
                         CUDA_SUCCESS);
    free(f.p);
    /* Damaged zstd entries are left to the mock's own test (mock_load_checks): on the H200
     * (driver 580) the load of a zstd fatbin this test made by hand ended the process with
     * SIGSEGV inside the driver, so there is no answer of the driver's to compare with. */
    CUmodule m;
    CUfunction fn;
    assert_ok(cushim_driver()->cuModuleLoadData(&m, ptx_lib));
    assert_int_equal(cushim_driver()->cuModuleGetFunction(&fn, m, "no_such_kernel"),
                     CUDA_ERROR_NOT_FOUND);
    cushim_driver()->cuModuleUnload(m);
}

static void test_link_of_ptx_runs(void **state) {
    (void)state;
    static const char *const inputs[] = {ptx_user, ptx_lib};
    CUmodule m = link_load(cushim_driver(), inputs, 2);
    assert_int_equal(link_run(cushim_driver(), m, "k"), 45);
    cushim_driver()->cuModuleUnload(m);
}

/* mock_link's test_own_names_stay_apart, on the driver (link_checks.h). */
static void test_link_keeps_own_names_apart(void **state) {
    (void)state;
    link_check_own_names(cushim_driver());
}

int main(void) {
    gpu_require();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_loads_the_mock_refuses, gpu_ctx_setup,
                                        gpu_ctx_teardown),
        cmocka_unit_test_setup_teardown(test_link_of_ptx_runs, gpu_ctx_setup, gpu_ctx_teardown),
        cmocka_unit_test_setup_teardown(test_link_keeps_own_names_apart, gpu_ctx_setup,
                                        gpu_ctx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
