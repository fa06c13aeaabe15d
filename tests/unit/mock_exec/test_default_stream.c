/* The legacy default stream's implicit synchronisation, as CUDA documents it: work on the legacy
 * stream (NULL, CU_STREAM_LEGACY) waits for the earlier work of every blocking stream of its
 * context, and a blocking stream waits for the legacy stream's earlier work; non-blocking
 * streams take no part; each thread's per-thread default stream (CU_STREAM_PER_THREAD, or NULL
 * through a per-thread entry) is a blocking stream of its own. The progress thread is off here
 * (tests/meson.build), so work runs only when a call drains it. */
#include <pthread.h>

#include "exec_util.h"

static void test_legacy_waits_for_blocking_streams(void **state) {
    (void)state;
    CUstream a, b;
    assert_ok(t->cuStreamCreate(&a, CU_STREAM_DEFAULT));
    assert_ok(t->cuStreamCreate(&b, CU_STREAM_DEFAULT));
    assert_ok(t->cuLaunchHostFunc(a, host_note, (void *)1));
    assert_ok(t->cuLaunchHostFunc(b, host_note, (void *)2));
    assert_ok(t->cuLaunchHostFunc(NULL, host_note, (void *)3));
    assert_ok(t->cuLaunchHostFunc(a, host_note, (void *)4)); /* after the legacy work: waits */
    assert_ok(t->cuStreamSynchronize(CU_STREAM_LEGACY));
    ASSERT_ORDER(1, 2, 3);
    assert_ok(t->cuStreamQuery(b));
    assert_cu(CUDA_ERROR_NOT_READY, t->cuStreamQuery(a));
    assert_ok(t->cuStreamSynchronize(a));
    ASSERT_ORDER(1, 2, 3, 4);
    assert_ok(t->cuStreamDestroy(a));
    assert_ok(t->cuStreamDestroy(b));
}

static void test_blocking_stream_waits_for_legacy(void **state) {
    (void)state;
    CUstream a;
    assert_ok(t->cuStreamCreate(&a, CU_STREAM_DEFAULT));
    assert_ok(t->cuLaunchHostFunc(NULL, host_note, (void *)1));
    assert_ok(t->cuLaunchHostFunc(a, host_note, (void *)2));
    assert_ok(t->cuStreamSynchronize(a));
    ASSERT_ORDER(1, 2);
    assert_ok(t->cuStreamQuery(NULL));
    assert_ok(t->cuStreamDestroy(a));
}

static void test_non_blocking_streams_are_exempt(void **state) {
    (void)state;
    CUstream nb;
    assert_ok(t->cuStreamCreate(&nb, CU_STREAM_NON_BLOCKING));
    assert_ok(t->cuLaunchHostFunc(nb, host_note, (void *)1));
    assert_ok(t->cuLaunchHostFunc(NULL, host_note, (void *)2));
    assert_ok(t->cuStreamSynchronize(NULL));
    ASSERT_ORDER(2);
    assert_cu(CUDA_ERROR_NOT_READY, t->cuStreamQuery(nb));
    assert_ok(t->cuLaunchHostFunc(NULL, host_note, (void *)3));
    assert_ok(t->cuLaunchHostFunc(nb, host_note, (void *)4));
    assert_ok(t->cuStreamSynchronize(nb));
    ASSERT_ORDER(2, 1, 4);
    assert_cu(CUDA_ERROR_NOT_READY, t->cuStreamQuery(NULL));
    assert_ok(t->cuCtxSynchronize());
    ASSERT_ORDER(2, 1, 4, 3);
    assert_ok(t->cuStreamDestroy(nb));
}

/* NVIDIA's simpleStreams: copies on blocking streams, then an event recorded on stream 0 and
 * synchronised: the event completes after the streams' work. */
static void test_event_on_legacy_completes_after_blocking_work(void **state) {
    (void)state;
    CUstream a, nb;
    CUevent e;
    assert_ok(t->cuStreamCreate(&a, CU_STREAM_DEFAULT));
    assert_ok(t->cuStreamCreate(&nb, CU_STREAM_NON_BLOCKING));
    assert_ok(t->cuEventCreate(&e, CU_EVENT_DEFAULT));
    assert_ok(t->cuLaunchHostFunc(a, host_note, (void *)1));
    assert_ok(t->cuLaunchHostFunc(nb, host_note, (void *)2));
    assert_ok(t->cuEventRecord(e, NULL));
    assert_cu(CUDA_ERROR_NOT_READY, t->cuEventQuery(e));
    assert_ok(t->cuEventSynchronize(e));
    ASSERT_ORDER(1);
    assert_ok(t->cuStreamSynchronize(nb));
    ASSERT_ORDER(1, 2);
    assert_ok(t->cuEventDestroy(e));
    assert_ok(t->cuStreamDestroy(a));
    assert_ok(t->cuStreamDestroy(nb));
}

/* A synchronous copy runs on the legacy stream: after the blocking streams' earlier work, not
 * after a non-blocking stream's. */
static void test_synchronous_copy_waits_for_blocking_streams(void **state) {
    (void)state;
    CUstream a, nb;
    CUdeviceptr d;
    unsigned char byte = 7;
    assert_ok(t->cuMemAlloc(&d, 16));
    assert_ok(t->cuStreamCreate(&a, CU_STREAM_DEFAULT));
    assert_ok(t->cuStreamCreate(&nb, CU_STREAM_NON_BLOCKING));
    assert_ok(t->cuLaunchHostFunc(nb, host_note, (void *)2));
    assert_ok(t->cuLaunchHostFunc(a, host_note, (void *)1));
    assert_ok(t->cuMemcpyHtoD(d, &byte, 1));
    ASSERT_ORDER(1);
    assert_ok(t->cuStreamDestroy(nb));
    ASSERT_ORDER(1, 2);
    assert_ok(t->cuStreamDestroy(a));
    assert_ok(t->cuMemFree(d));
}

/* The per-thread default stream is a blocking stream of its own: it does not wait for other
 * blocking streams, the legacy stream waits for it, and it has its own id. */
static void test_per_thread_stream_is_a_blocking_stream_of_its_own(void **state) {
    (void)state;
    CUstream a;
    unsigned long long legacy_id = 0, pt_id = 0, pt_again = 0;
    unsigned flags = 99;
    assert_ok(t->cuStreamGetId(CU_STREAM_LEGACY, &legacy_id));
    assert_ok(t->cuStreamGetId(CU_STREAM_PER_THREAD, &pt_id));
    assert_ok(t->cuStreamGetId(CU_STREAM_PER_THREAD, &pt_again));
    assert_int_not_equal(legacy_id, pt_id);
    assert_int_equal(pt_id, pt_again);
    assert_ok(t->cuStreamGetFlags(CU_STREAM_PER_THREAD, &flags));
    assert_int_equal(flags, 0);
    assert_ok(t->cuStreamCreate(&a, CU_STREAM_DEFAULT));
    assert_ok(t->cuLaunchHostFunc(a, host_note, (void *)1));
    assert_ok(t->cuLaunchHostFunc(CU_STREAM_PER_THREAD, host_note, (void *)2));
    assert_ok(t->cuStreamSynchronize(CU_STREAM_PER_THREAD));
    ASSERT_ORDER(2);
    assert_ok(t->cuLaunchHostFunc(CU_STREAM_PER_THREAD, host_note, (void *)3));
    assert_ok(t->cuLaunchHostFunc(NULL, host_note, (void *)4));
    assert_ok(t->cuStreamSynchronize(NULL));
    /* 1 and 3 are on independent streams: either may run first, both before 4 */
    assert_int_equal(norder, 4);
    assert_int_equal(order[1] + order[2], 1 + 3);
    assert_int_equal(order[3], 4);
    assert_ok(t->cuStreamDestroy(a));
    /* not a stream the program may destroy */
    assert_cu(CUDA_ERROR_INVALID_HANDLE, t->cuStreamDestroy(CU_STREAM_PER_THREAD));
}

/* NULL through a per-thread entry (cuLaunchHostFunc_ptsz) is the per-thread default stream. */
static void test_null_through_a_per_thread_entry_is_the_per_thread_stream(void **state) {
    (void)state;
    CUresult(CUDAAPI * host_pt)(CUstream, CUhostFn, void *) = NULL;
    void *fn = NULL;
    assert_ok(t->cuGetProcAddress("cuLaunchHostFunc", &fn, CUDA_VERSION,
                                  CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, NULL));
    assert_non_null(fn);
    memcpy(&host_pt, &fn, sizeof fn);
    assert_ok(host_pt(NULL, host_note, (void *)1));
    assert_cu(CUDA_ERROR_NOT_READY, t->cuStreamQuery(CU_STREAM_PER_THREAD));
    assert_ok(t->cuStreamQuery(CU_STREAM_LEGACY));
    assert_ok(t->cuStreamSynchronize(CU_STREAM_PER_THREAD));
    ASSERT_ORDER(1);
}

/* Each thread has its own per-thread stream: another thread's pending work there is not this
 * thread's, and a context synchronize runs it. */
static void *other_thread(void *arg) {
    (void)arg;
    if (t->cuCtxSetCurrent(cushim_context_raw(ctx)) != CUDA_SUCCESS) return (void *)1;
    if (t->cuLaunchHostFunc(CU_STREAM_PER_THREAD, host_note, (void *)5) != CUDA_SUCCESS) {
        return (void *)2;
    }
    return NULL;
}

static void test_each_thread_has_its_own_per_thread_stream(void **state) {
    (void)state;
    pthread_t th;
    void *ret = (void *)9;
    assert_int_equal(pthread_create(&th, NULL, other_thread, NULL), 0);
    assert_int_equal(pthread_join(th, &ret), 0);
    assert_null(ret);
    assert_ok(t->cuStreamSynchronize(CU_STREAM_PER_THREAD));
    assert_int_equal(norder, 0);
    /* the legacy stream waits for every per-thread stream of its context */
    assert_ok(t->cuStreamSynchronize(CU_STREAM_LEGACY));
    assert_int_equal(norder, 0); /* nothing was queued on the legacy stream itself */
    assert_ok(t->cuLaunchHostFunc(NULL, host_note, (void *)6));
    assert_ok(t->cuStreamSynchronize(CU_STREAM_LEGACY));
    ASSERT_ORDER(5, 6);
}

/* The legacy stream cannot be captured; the per-thread one can. */
static void test_capture_of_the_default_streams(void **state) {
    (void)state;
    CUgraph g = NULL;
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
              t->cuStreamBeginCapture(CU_STREAM_LEGACY, CU_STREAM_CAPTURE_MODE_RELAXED));
    assert_ok(t->cuStreamBeginCapture(CU_STREAM_PER_THREAD, CU_STREAM_CAPTURE_MODE_RELAXED));
    assert_ok(t->cuLaunchHostFunc(CU_STREAM_PER_THREAD, host_note, (void *)1));
    assert_ok(t->cuStreamEndCapture(CU_STREAM_PER_THREAD, &g));
    assert_non_null(g);
    assert_int_equal(norder, 0);
    assert_ok(t->cuGraphDestroy(g));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_legacy_waits_for_blocking_streams, exec_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_blocking_stream_waits_for_legacy, exec_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_non_blocking_streams_are_exempt, exec_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_event_on_legacy_completes_after_blocking_work,
                                        exec_setup, exec_teardown),
        cmocka_unit_test_setup_teardown(test_synchronous_copy_waits_for_blocking_streams,
                                        exec_setup, exec_teardown),
        cmocka_unit_test_setup_teardown(test_per_thread_stream_is_a_blocking_stream_of_its_own,
                                        exec_setup, exec_teardown),
        cmocka_unit_test_setup_teardown(
            test_null_through_a_per_thread_entry_is_the_per_thread_stream, exec_setup,
            exec_teardown),
        cmocka_unit_test_setup_teardown(test_each_thread_has_its_own_per_thread_stream, exec_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_capture_of_the_default_streams, exec_setup,
                                        exec_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
