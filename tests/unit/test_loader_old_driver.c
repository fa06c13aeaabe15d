/* A driver older than some entries' ABI: those entries are never asked for, stay stubs that
 * return CUDA_ERROR_NOT_SUPPORTED, and the rest works. */
#include "testutil.h"

static void test_newer_entry_is_unavailable(void **state) {
    (void)state;
    const cushim_driver_info *info = cushim_driver_state();
    assert_int_equal(info->status, CUSHIM_DRIVER_LOADED);
    assert_int_equal(info->driver_version, 12040);
    /* cuCtxCreate's ABI in CUDA 13 headers (cuCtxCreate_v4) is newer than 12.4. */
    assert_false(cushim_driver_has("cuCtxCreate"));
    assert_int_equal(mock.asked_version("cuCtxCreate"), -1);
    CUcontext c = NULL;
    CUctxCreateParams p = {0};
    assert_cu(CUDA_ERROR_NOT_SUPPORTED, cushim_driver()->cuCtxCreate(&c, &p, 0, 0));
    assert_null(c);
    assert_non_null(strstr(cushim_last_error(), "cuCtxCreate"));
    assert_int_equal(mock.calls("cuCtxCreate"), 0);
    /* The object API reports the same, and leaves nothing behind. */
    cushim_context *ctx = NULL;
    assert_cu(CUDA_ERROR_NOT_SUPPORTED, cushim_context_create(&ctx, 0, 0));
    assert_null(ctx);
    assert_int_equal(mock.live(CUSHIM_MOCK_CONTEXT), 0);
}

static void test_older_entries_still_work(void **state) {
    (void)state;
    assert_true(cushim_driver_has("cuDevicePrimaryCtxRetain"));
    cushim_context *ctx = NULL;
    assert_ok(cushim_context_primary(&ctx, 0));
    cushim_context_release(ctx);
    assert_int_equal(mock.live(CUSHIM_MOCK_CONTEXT), 0);
    /* No entry was ever asked at a version newer than the driver. */
    assert_true(mock.asked_version("cuMemAlloc") <= 12040);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_newer_entry_is_unavailable),
        cmocka_unit_test(test_older_entries_still_work),
    };
    if (!cushim_mock_open(&mock, NULL)) return 1;
    mock.reset();
    mock.set_driver_version(12040);
    if (cushim_init() != CUDA_SUCCESS) return 1;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
