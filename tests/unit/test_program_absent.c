/* Programs and linkers where NVRTC and nvJitLink cannot be had: not found (CUSHIM_NVRTC and
 * CUSHIM_NVJITLINK point nowhere), a relative path, a library of another major version, and
 * one that lacks entries. Every call fails with a sentence that says why and where cushim
 * looked; a linker falls back to the driver's cuLink*. */
#include <stdlib.h>

#include "testutil.h"

static const char source[] = "extern \"C\" __global__ void k() {}\n";

/* Loads again with CUSHIM_NVRTC set to value (NULL: unset). */
static void use_nvrtc(const char *value) {
    if (value) {
        setenv("CUSHIM_NVRTC", value, 1);
    } else {
        unsetenv("CUSHIM_NVRTC");
    }
    assert_ok(cushim_testing_reinit());
}

static void test_not_found(void **state) {
    (void)state;
    use_nvrtc("/nonexistent/libnvrtc.so.13");
    cushim_program *p = (cushim_program *)&p;
    assert_cu(CUDA_ERROR_FILE_NOT_FOUND, cushim_program_create(&p, source, NULL, 0, NULL, NULL));
    assert_null(p);
    assert_non_null(strstr(cushim_last_error(), "cushim_program_create"));
    assert_non_null(strstr(cushim_last_error(), "CUSHIM_NVRTC"));
    assert_non_null(strstr(cushim_last_error(), "/nonexistent/libnvrtc.so.13"));
    const cushim_lib_info *i = cushim_lib_state(CUSHIM_LIB_NVRTC);
    assert_int_equal(i->status, CUSHIM_LIB_NOT_FOUND);
    assert_int_equal(i->result, CUDA_ERROR_FILE_NOT_FOUND);
    assert_null(i->path);
    assert_int_equal(i->entries_resolved, 0);
}

static void test_relative_refused(void **state) {
    (void)state;
    use_nvrtc("libnvrtc.so.13");
    const cushim_lib_info *i = cushim_lib_state(CUSHIM_LIB_NVRTC);
    assert_int_equal(i->status, CUSHIM_LIB_NOT_FOUND);
    assert_non_null(strstr(i->message, "not an absolute path"));
    use_nvrtc("");
    assert_non_null(strstr(cushim_lib_state(CUSHIM_LIB_NVRTC)->message, "empty"));
}

static void test_other_major_refused(void **state) {
    (void)state;
    use_nvrtc(getenv("FAKE_NVRTC_OLD"));
    const cushim_lib_info *i = cushim_lib_state(CUSHIM_LIB_NVRTC);
    assert_int_equal(i->status, CUSHIM_LIB_WRONG_VERSION);
    assert_int_equal(i->result, CUDA_ERROR_NOT_SUPPORTED);
    assert_non_null(strstr(i->message, "refused"));
    assert_non_null(strstr(i->message, "NVRTC 12.4"));
    cushim_program *p;
    assert_cu(CUDA_ERROR_NOT_SUPPORTED, cushim_program_create(&p, source, NULL, 0, NULL, NULL));
}

static void test_missing_entries(void **state) {
    (void)state;
    use_nvrtc(getenv("FAKE_NVRTC_SAME"));
    const cushim_lib_info *i = cushim_lib_state(CUSHIM_LIB_NVRTC);
    assert_int_equal(i->status, CUSHIM_LIB_LOADED);
    assert_int_equal(i->entries_resolved, 1); /* nvrtcVersion only */
    cushim_program *p;
    assert_cu(CUDA_ERROR_UNKNOWN, cushim_program_create(&p, source, NULL, 0, NULL, NULL));
    assert_non_null(strstr(cushim_last_error(), "NVRTC_ERROR_INTERNAL_ERROR"));
}

static void test_linker_falls_back(void **state) {
    (void)state;
    cushim_context *ctx;
    assert_ok(cushim_context_create(&ctx, 0, 0));
    const cushim_lib_info *i = cushim_lib_state(CUSHIM_LIB_NVJITLINK);
    assert_int_equal(i->status, CUSHIM_LIB_NOT_FOUND);
    assert_non_null(strstr(i->message, "CUSHIM_NVJITLINK"));
    cushim_linker *l = NULL;
    const char *opts[] = {"-lto"};
    assert_cu(CUDA_ERROR_NOT_SUPPORTED, cushim_linker_create(&l, ctx, 1, opts));
    assert_non_null(strstr(cushim_last_error(), "take no nvJitLink options"));
    assert_int_equal(mock.calls("cuLinkCreate"), 0);
    /* Without options the driver links: the mock answers cuLinkCreate as it does. */
    CUresult r = cushim_linker_create(&l, ctx, 0, NULL);
    assert_int_equal(mock.calls("cuLinkCreate"), 1);
    if (r == CUDA_SUCCESS) {
        assert_cu(CUDA_ERROR_NOT_SUPPORTED, cushim_linker_add(l, CUSHIM_CODE_LTOIR, "x", 1, NULL));
        assert_non_null(strstr(cushim_last_error(), "LTO IR needs nvJitLink"));
        cushim_linker_release(l);
    } else {
        assert_null(l);
        assert_non_null(strstr(cushim_last_error(), "cuLinkCreate"));
    }
    cushim_context_release(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_not_found, mock_setup, mock_teardown),
        cmocka_unit_test_setup_teardown(test_relative_refused, mock_setup, mock_teardown),
        cmocka_unit_test_setup_teardown(test_other_major_refused, mock_setup, mock_teardown),
        cmocka_unit_test_setup_teardown(test_missing_entries, mock_setup, mock_teardown),
        cmocka_unit_test_setup_teardown(test_linker_falls_back, mock_setup, mock_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
