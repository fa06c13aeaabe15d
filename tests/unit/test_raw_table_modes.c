/* cushim.h's raw table gives each translation unit the default-stream mode its own
 * CUDA_API_PER_THREAD_DEFAULT_STREAM asks for, as cuda.h does, from one library: this file is
 * legacy and reaches the legacy entries; raw_table_per_thread.c is per-thread and reaches the
 * _ptds/_ptsz ones. The mock logs which entry each call came through. */
#include "raw_table_modes.h"
#include "testutil.h"

static void test_each_file_gets_its_own_mode(void **state) {
    (void)state;
    const cushim_driver_table *cu = cushim_driver();
    CUcontext c;
    assert_ok(cu->cuDevicePrimaryCtxRetain(&c, 0));
    assert_ok(cu->cuCtxSetCurrent(c));
    CUdeviceptr d;
    assert_ok(cu->cuMemAlloc(&d, 16));

    assert_ok(cu->cuMemcpyHtoD(d, "legacy", 7));
    assert_string_equal(mock.call_name(mock.calls("*") - 1), "cuMemcpyHtoD");
    assert_int_equal(mock.per_thread_calls("cuMemcpyHtoD"), 0);

    assert_ok(per_thread_htod(d, "ptds", 5));
    assert_string_equal(mock.call_name(mock.calls("*") - 1), "cuMemcpyHtoD_v2_ptds");
    assert_int_equal(mock.per_thread_calls("cuMemcpyHtoD"), 1);

    assert_ok(per_thread_stream_sync(NULL));
    assert_string_equal(mock.call_name(mock.calls("*") - 1), "cuStreamSynchronize_ptsz");

    /* Two tables, one per mode, both never NULL. */
    assert_non_null(per_thread_table());
    assert_ptr_not_equal(per_thread_table(), (const void *)cu);
    assert_true(cushim_driver_has("cuMemcpyHtoD_v2_ptds"));

    assert_ok(cu->cuMemFree(d));
    assert_ok(cu->cuCtxSetCurrent(NULL));
    assert_ok(cu->cuDevicePrimaryCtxRelease(0));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_each_file_gets_its_own_mode, mock_setup,
                                        mock_teardown),
    };
    return cmocka_run_group_tests_name("raw table modes", tests, NULL, NULL);
}
