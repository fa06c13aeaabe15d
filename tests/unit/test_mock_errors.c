/* The mock's cuGetErrorName and cuGetErrorString answer for every CUresult of cuda.h, with the
 * names and texts cushim's loader has for them (both generated from the header), the codes its
 * faults return included (issue 28 item 7); an unknown code is CUDA_ERROR_INVALID_VALUE. */
#include "testutil.h"

static void test_the_codes_the_mock_returns_have_names(void **state) {
    (void)state;
    const cushim_driver_table *t = cushim_driver();
    const CUresult codes[] = {CUDA_ERROR_INVALID_HANDLE,
                              CUDA_ERROR_NOT_FOUND,
                              CUDA_ERROR_NOT_SUPPORTED,
                              CUDA_ERROR_NO_BINARY_FOR_GPU,
                              CUDA_ERROR_ILLEGAL_ADDRESS,
                              CUDA_ERROR_LAUNCH_TIMEOUT,
                              CUDA_ERROR_ASSERT,
                              CUDA_ERROR_ILLEGAL_INSTRUCTION,
                              CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED};
    const int numbers[] = {400, 500, 801, 209, 700, 702, 710, 715, 900};
    int before = mock.calls("cuGetErrorName");
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        assert_int_equal((int)codes[i], numbers[i]);
        const char *name = NULL, *text = NULL;
        assert_ok(t->cuGetErrorName(codes[i], &name));
        assert_ok(t->cuGetErrorString(codes[i], &text));
        assert_non_null(name);
        assert_non_null(text);
        assert_string_equal(name, cushim_error_name(codes[i]));
        assert_true(text[0] != '\0');
    }
    /* the mock answered, not the loader */
    assert_int_equal(mock.calls("cuGetErrorName") - before, (int)(sizeof codes / sizeof codes[0]));
    const char *name = NULL;
    assert_ok(t->cuGetErrorName((CUresult)716, &name));
    assert_string_equal(name, "CUDA_ERROR_MISALIGNED_ADDRESS");
    assert_ok(t->cuGetErrorName((CUresult)300, &name));
    assert_string_equal(name, "CUDA_ERROR_INVALID_SOURCE");
}

static void test_every_code_of_cuda_h_has_the_loaders_name_and_text(void **state) {
    (void)state;
    const cushim_driver_table *t = cushim_driver();
    int known = 0;
    for (int c = 0; c <= 1100; c++) {
        const char *own = cushim_error_name((CUresult)c);
        const char *name = (const char *)1, *text = (const char *)1;
        CUresult rn = t->cuGetErrorName((CUresult)c, &name);
        CUresult rs = t->cuGetErrorString((CUresult)c, &text);
        if (strncmp(own, "unknown CUresult", 16) == 0) {
            assert_cu(CUDA_ERROR_INVALID_VALUE, rn);
            assert_cu(CUDA_ERROR_INVALID_VALUE, rs);
            assert_null(name);
            assert_null(text);
            continue;
        }
        known++;
        assert_ok(rn);
        assert_ok(rs);
        assert_string_equal(name, own);
        assert_string_equal(text, cushim_error_string((CUresult)c));
    }
    assert_true(known > 100); /* cuda.h 13.0 has about 130 */
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGetErrorName(CUDA_SUCCESS, NULL));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_the_codes_the_mock_returns_have_names, mock_setup,
                                        mock_teardown),
        cmocka_unit_test_setup_teardown(test_every_code_of_cuda_h_has_the_loaders_name_and_text,
                                        mock_setup, mock_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
