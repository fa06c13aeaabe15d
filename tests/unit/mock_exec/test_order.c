/* The mock keeps stream order: host functions, host kernels and waits run at their place when a
 * stream is drained, and not before while work is pending. */
#include "exec_util.h"

static void test_host_functions_and_kernels_run_in_stream_order(void **state) {
    (void)state;
    CUmodule m;
    CUfunction f;
    CUstream s;
    assert_ok(load_step(&m, &f));
    assert_ok(t->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    mock.register_kernel("step", step_kernel);
    assert_ok(t->cuLaunchHostFunc(s, host_note, (void *)1));
    launch_step(f, s, 2);
    assert_ok(t->cuLaunchHostFunc(s, host_note, (void *)3));
    launch_step(f, s, 4);
    /* Pending: nothing ran yet, and the stream says so. */
    assert_int_equal(norder, 0);
    assert_cu(CUDA_ERROR_NOT_READY, t->cuStreamQuery(s));
    assert_ok(t->cuStreamSynchronize(s));
    ASSERT_ORDER(1, 2, 3, 4);
    assert_int_equal(mock.host_kernel_runs("step"), 2);
    assert_int_equal(mock.launch_count(), 2);
    assert_int_equal(mock.launch(0)->param_count, 2);
    assert_ok(t->cuStreamDestroy(s));
    assert_ok(t->cuModuleUnload(m));
}

static void test_without_pending_work_runs_at_once(void **state) {
    (void)state;
    mock.set_pending(false);
    assert_ok(t->cuLaunchHostFunc(NULL, host_note, (void *)7));
    ASSERT_ORDER(7);
    assert_ok(t->cuStreamQuery(NULL));
}

static void test_wait_on_another_stream_runs_its_work_first(void **state) {
    (void)state;
    CUstream a, b;
    CUevent e;
    two_streams(&a, &b, &e);
    assert_ok(t->cuLaunchHostFunc(a, host_note, (void *)1));
    assert_ok(t->cuEventRecord(e, a));
    assert_ok(t->cuLaunchHostFunc(a, host_note, (void *)9)); /* after the record: not waited */
    assert_ok(t->cuStreamWaitEvent(b, e, 0));
    assert_ok(t->cuLaunchHostFunc(b, host_note, (void *)2));
    assert_ok(t->cuStreamSynchronize(b));
    ASSERT_ORDER(1, 2);
    assert_cu(CUDA_ERROR_NOT_READY, t->cuStreamQuery(a));
    assert_ok(t->cuEventQuery(e));
    assert_ok(t->cuCtxSynchronize());
    ASSERT_ORDER(1, 2, 9);
    destroy_two_streams(a, b, e);
}

static CUstream seen_stream;
static CUresult seen_status = CUDA_ERROR_UNKNOWN;

static void callback(CUstream s, CUresult status, void *user) {
    seen_stream = s;
    seen_status = status;
    note((int)(intptr_t)user);
}

static void test_stream_callback_gets_its_stream_and_status(void **state) {
    (void)state;
    CUstream s;
    assert_ok(t->cuStreamCreate(&s, 0));
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuStreamAddCallback(s, callback, NULL, 1));
    assert_ok(t->cuStreamAddCallback(s, callback, (void *)5, 0));
    assert_ok(t->cuLaunchHostFunc(s, host_note, (void *)6));
    assert_int_equal(norder, 0);
    /* Destroying a stream lets its work finish, as on the driver. */
    assert_ok(t->cuStreamDestroy(s));
    ASSERT_ORDER(5, 6);
    assert_ptr_equal(seen_stream, s);
    assert_int_equal(seen_status, CUDA_SUCCESS);
}

static void test_event_synchronize_drains_up_to_its_record(void **state) {
    (void)state;
    CUevent e1, e2;
    float ms = 0;
    mock.set_launch_us(250);
    CUmodule m;
    CUfunction f;
    assert_ok(load_step(&m, &f));
    mock.register_kernel("step", step_kernel);
    assert_ok(t->cuEventCreate(&e1, 0));
    assert_ok(t->cuEventCreate(&e2, 0));
    assert_ok(t->cuEventRecord(e1, NULL));
    launch_step(f, NULL, 1);
    launch_step(f, NULL, 2);
    assert_ok(t->cuEventRecord(e2, NULL));
    assert_ok(t->cuLaunchHostFunc(NULL, host_note, (void *)3));
    assert_ok(t->cuEventSynchronize(e2));
    ASSERT_ORDER(1, 2);
    /* Events carry the mock's clock: two launches of 250 us between them. */
    assert_ok(t->cuEventElapsedTime(&ms, e1, e2));
    assert_true(ms > 0.499f && ms < 0.501f);
    assert_ok(t->cuCtxSynchronize());
    ASSERT_ORDER(1, 2, 3);
    assert_ok(t->cuEventDestroy(e1));
    assert_ok(t->cuEventDestroy(e2));
    assert_ok(t->cuModuleUnload(m));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_host_functions_and_kernels_run_in_stream_order,
                                        exec_setup, exec_teardown),
        cmocka_unit_test_setup_teardown(test_without_pending_work_runs_at_once, exec_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_wait_on_another_stream_runs_its_work_first, exec_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_stream_callback_gets_its_stream_and_status, exec_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_event_synchronize_drains_up_to_its_record, exec_setup,
                                        exec_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
