/* Capture and graphs on the mock: what a stream captures is recorded, not run; an executable
 * replays it in order at each launch; updates and illegal calls answer as the driver does. */
#include <pthread.h>

#include "exec_util.h"

static CUmodule m;
static CUfunction f;
static CUstream s;

static int setup(void **state) { return step_setup(state, &m, &f, &s); }

static int teardown(void **state) { return step_teardown(state, m, s); }

/* Captures: host func 1, kernel `tag`, host func 3. */
static CUgraph capture(unsigned tag) {
    CUgraph g = NULL;
    assert_ok(t->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_ok(t->cuLaunchHostFunc(s, host_note, (void *)1));
    launch_step(f, s, tag);
    assert_ok(t->cuLaunchHostFunc(s, host_note, (void *)3));
    assert_ok(t->cuStreamEndCapture(s, &g));
    assert_non_null(g);
    return g;
}

static void test_capture_instantiate_launch_twice(void **state) {
    (void)state;
    CUstreamCaptureStatus st;
    cuuint64_t id = 0;
    CUgraph during = NULL;
    const CUgraphNode *deps = NULL;
    const CUgraphEdgeData *edges = NULL;
    size_t ndeps = 9;
    assert_ok(t->cuStreamIsCapturing(s, &st));
    assert_int_equal(st, CU_STREAM_CAPTURE_STATUS_NONE);
    assert_ok(t->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_ok(t->cuStreamGetCaptureInfo(s, &st, &id, &during, &deps, &edges, &ndeps));
    assert_int_equal(st, CU_STREAM_CAPTURE_STATUS_ACTIVE);
    assert_true(id != 0);
    assert_non_null(during);
    assert_int_equal(ndeps, 0);
    assert_ok(t->cuLaunchHostFunc(s, host_note, (void *)1));
    launch_step(f, s, 2);
    assert_ok(t->cuStreamGetCaptureInfo(s, &st, &id, &during, &deps, &edges, &ndeps));
    assert_int_equal(ndeps, 1);
    assert_non_null(deps);
    assert_ok(t->cuLaunchHostFunc(s, host_note, (void *)3));
    CUgraph g = NULL;
    assert_ok(t->cuStreamEndCapture(s, &g));
    assert_ptr_equal(g, during);
    /* Captured, not run, and no launch recorded. */
    assert_int_equal(norder, 0);
    assert_int_equal(mock.launch_count(), 0);
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH), 1);

    CUgraphExec x = NULL;
    assert_ok(t->cuGraphInstantiate(&x, g, 0));
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH_EXEC), 1);
    assert_ok(t->cuGraphDestroy(g)); /* the executable keeps what it needs */
    assert_ok(t->cuGraphUpload(x, s));
    assert_ok(t->cuGraphLaunch(x, s));
    assert_ok(t->cuGraphLaunch(x, s));
    assert_int_equal(norder, 0);
    assert_ok(t->cuStreamSynchronize(s));
    ASSERT_ORDER(1, 2, 3, 1, 2, 3);
    assert_int_equal(mock.launch_count(), 2);
    assert_string_equal(mock.launch(1)->kernel, "step");
    assert_ptr_equal(mock.launch(1)->stream, s);
    assert_ok(t->cuGraphExecDestroy(x));
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH) + mock.live(CUSHIM_MOCK_GRAPH_EXEC), 0);
}

static void test_instantiate_with_params(void **state) {
    (void)state;
    CUgraph g = capture(4);
    CUgraphExec x = NULL;
    CUDA_GRAPH_INSTANTIATE_PARAMS p = {CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD, s, NULL,
                                       CUDA_GRAPH_INSTANTIATE_ERROR};
    assert_ok(t->cuGraphInstantiateWithParams(&x, g, &p));
    assert_int_equal(p.result_out, CUDA_GRAPH_INSTANTIATE_SUCCESS);
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphInstantiateWithFlags(&x, g, 1ull << 40));
    assert_ok(t->cuGraphLaunch(x, NULL));
    assert_ok(t->cuCtxSynchronize());
    ASSERT_ORDER(1, 4, 3);
    assert_ok(t->cuGraphExecDestroy(x));
    assert_ok(t->cuGraphDestroy(g));
}

static void test_update_replaces_parameters(void **state) {
    (void)state;
    CUgraph g1 = capture(2), g2 = capture(8);
    CUgraphExec x = NULL;
    assert_ok(t->cuGraphInstantiate(&x, g1, 0));
    CUgraphExecUpdateResultInfo info;
    memset(&info, 0xff, sizeof info);
    assert_ok(t->cuGraphExecUpdate(x, g2, &info));
    assert_int_equal(info.result, CU_GRAPH_EXEC_UPDATE_SUCCESS);
    assert_ok(t->cuGraphLaunch(x, s));
    assert_ok(t->cuStreamSynchronize(s));
    ASSERT_ORDER(1, 8, 3);
    assert_ok(t->cuGraphExecDestroy(x));
    assert_ok(t->cuGraphDestroy(g1));
    assert_ok(t->cuGraphDestroy(g2));
}

static void test_update_refuses_another_topology(void **state) {
    (void)state;
    CUgraph g1 = capture(2), g2 = NULL, g3 = NULL;
    assert_ok(t->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    assert_ok(t->cuLaunchHostFunc(s, host_note, (void *)5));
    assert_ok(t->cuStreamEndCapture(s, &g2));
    /* As many nodes, of other kinds. */
    assert_ok(t->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    launch_step(f, s, 6);
    assert_ok(t->cuLaunchHostFunc(s, host_note, (void *)7));
    assert_ok(t->cuLaunchHostFunc(s, host_note, (void *)8));
    assert_ok(t->cuStreamEndCapture(s, &g3));
    CUgraphExec x = NULL;
    assert_ok(t->cuGraphInstantiate(&x, g1, 0));
    CUgraphExecUpdateResultInfo info;
    assert_cu(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, t->cuGraphExecUpdate(x, g2, &info));
    assert_int_equal(info.result, CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED);
    assert_cu(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, t->cuGraphExecUpdate(x, g3, &info));
    assert_int_equal(info.result, CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED);
    assert_non_null(info.errorNode);
    /* The executable is as it was. */
    assert_ok(t->cuGraphLaunch(x, s));
    assert_ok(t->cuStreamSynchronize(s));
    ASSERT_ORDER(1, 2, 3);
    assert_ok(t->cuGraphExecDestroy(x));
    assert_ok(t->cuGraphDestroy(g1));
    assert_ok(t->cuGraphDestroy(g2));
    assert_ok(t->cuGraphDestroy(g3));
}

static void test_synchronize_during_capture_invalidates_it(void **state) {
    (void)state;
    CUgraph g = (CUgraph)(uintptr_t)1;
    CUstreamCaptureStatus st;
    assert_ok(t->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_cu(CUDA_ERROR_ILLEGAL_STATE, t->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, t->cuStreamSynchronize(s));
    assert_ok(t->cuStreamIsCapturing(s, &st));
    assert_int_equal(st, CU_STREAM_CAPTURE_STATUS_INVALIDATED);
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, t->cuLaunchHostFunc(s, host_note, NULL));
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, t->cuStreamEndCapture(s, &g));
    assert_null(g);
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH), 0);
    /* A context synchronize breaks a global capture too. */
    assert_ok(t->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, t->cuCtxSynchronize());
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, t->cuStreamEndCapture(s, &g));
    assert_int_equal(norder, 0);
}

static void test_end_capture_rules(void **state) {
    (void)state;
    CUgraph g = NULL;
    CUstream other;
    CUevent fork, join;
    assert_ok(t->cuStreamCreate(&other, CU_STREAM_NON_BLOCKING));
    assert_ok(t->cuEventCreate(&fork, CU_EVENT_DISABLE_TIMING));
    assert_ok(t->cuEventCreate(&join, CU_EVENT_DISABLE_TIMING));
    assert_cu(CUDA_ERROR_ILLEGAL_STATE, t->cuStreamEndCapture(s, &g));
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
              t->cuStreamBeginCapture(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL));
    /* Fork into `other` and join back: both streams' work is in the graph, in order. */
    assert_ok(t->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_ok(t->cuLaunchHostFunc(s, host_note, (void *)1));
    assert_ok(t->cuEventRecord(fork, s));
    assert_cu(CUDA_ERROR_CAPTURED_EVENT, t->cuEventQuery(fork));
    assert_ok(t->cuStreamWaitEvent(other, fork, 0));
    assert_ok(t->cuLaunchHostFunc(other, host_note, (void *)2));
    /* Ending on the joined stream is refused, and breaks the capture. */
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, t->cuStreamEndCapture(other, &g));
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, t->cuStreamEndCapture(s, &g));
    /* Unjoined work is refused. */
    assert_ok(t->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_ok(t->cuEventRecord(fork, s));
    assert_ok(t->cuStreamWaitEvent(other, fork, 0));
    assert_ok(t->cuLaunchHostFunc(other, host_note, (void *)2));
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, t->cuStreamEndCapture(s, &g));
    /* Joined: it ends well and replays both. */
    assert_ok(t->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_ok(t->cuLaunchHostFunc(s, host_note, (void *)1));
    assert_ok(t->cuEventRecord(fork, s));
    assert_ok(t->cuStreamWaitEvent(other, fork, 0));
    assert_ok(t->cuLaunchHostFunc(other, host_note, (void *)2));
    assert_ok(t->cuEventRecord(join, other));
    assert_ok(t->cuStreamWaitEvent(s, join, 0));
    assert_ok(t->cuStreamEndCapture(s, &g));
    CUstreamCaptureStatus st;
    assert_ok(t->cuStreamIsCapturing(other, &st));
    assert_int_equal(st, CU_STREAM_CAPTURE_STATUS_NONE);
    CUgraphExec x;
    assert_ok(t->cuGraphInstantiateWithFlags(&x, g, 0));
    assert_ok(t->cuGraphLaunch(x, s));
    assert_ok(t->cuStreamSynchronize(s));
    ASSERT_ORDER(1, 2);
    assert_ok(t->cuGraphExecDestroy(x));
    assert_ok(t->cuGraphDestroy(g));
    assert_ok(t->cuEventDestroy(fork));
    assert_ok(t->cuEventDestroy(join));
    assert_ok(t->cuStreamDestroy(other));
}

static CUresult other_thread_result;

static void *end_elsewhere(void *arg) {
    CUgraph g = NULL;
    other_thread_result = t->cuStreamEndCapture(*(CUstream *)arg, &g);
    return NULL;
}

static void test_end_capture_on_another_thread(void **state) {
    (void)state;
    pthread_t th;
    CUgraph g = NULL;
    assert_ok(t->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    assert_int_equal(pthread_create(&th, NULL, end_elsewhere, &s), 0);
    pthread_join(th, NULL);
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, other_thread_result);
    assert_ok(t->cuStreamEndCapture(s, &g));
    assert_ok(t->cuGraphDestroy(g));
}

int main(void) {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_capture_instantiate_launch_twice),
        T(test_instantiate_with_params),
        T(test_update_replaces_parameters),
        T(test_update_refuses_another_topology),
        T(test_synchronize_during_capture_invalidates_it),
        T(test_end_capture_rules),
        T(test_end_capture_on_another_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
