/* Graphs and host functions through cushim, on the mock: capture, instantiate, launch, upload
 * and update; the driver's refusals decoded into sentences; captures that fail leave nothing
 * behind; the context rule holds (another context is current throughout). */
#include <pthread.h>

#include "graph_util.h"

/* Ends the capture on st and asserts a graph came out. */
static cushim_graph *end_ok(cushim_stream *st) {
    cushim_graph *g = NULL;
    assert_ok(cushim_stream_end_capture(&g, st));
    assert_non_null(g);
    return g;
}

/* A step: a kernel with `tag` and then a host function with tag + 1. */
static cushim_graph *capture_step(unsigned tag) {
    assert_ok(cushim_stream_begin_capture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_ok(launch_bump(s, tag));
    assert_ok(cushim_stream_launch_host_func(s, host_note, (void *)(intptr_t)(tag + 1)));
    return end_ok(s);
}

static void test_capture_instantiate_launch_twice(void **state) {
    (void)state;
    CUstream raw = cushim_stream_raw(s);
    assert_ok(cushim_stream_begin_capture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    ASSERT_OTHER_CURRENT();
    assert_ok(t->cuMemsetD32Async(buf, 1, 1, raw));
    assert_ok(launch_bump(s, 2));
    assert_ok(cushim_stream_launch_host_func(s, host_note, (void *)3));
    assert_ok(launch_bump(s, 4));
    assert_ok(t->cuMemcpyDtoDAsync(buf + sizeof(int), buf, sizeof(int), raw));
    cushim_graph *g = end_ok(s);
    ASSERT_OTHER_CURRENT();
    /* Captured, not run. */
    assert_int_equal(norder, 0);
    assert_int_equal(buf_ints()[0], 0);
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH), 1);
    assert_ptr_equal(cushim_graph_context(g), ctx);
    assert_non_null(cushim_graph_raw(g));

    cushim_graph_exec *x = NULL;
    assert_ok(cushim_graph_instantiate(&x, g, 0));
    ASSERT_OTHER_CURRENT();
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH_EXEC), 1);
    assert_ptr_equal(cushim_graph_exec_context(x), ctx);
    assert_non_null(cushim_graph_exec_raw(x));
    cushim_graph_release(g); /* the executable keeps what it needs */
    ASSERT_OTHER_CURRENT();
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH), 0);

    assert_ok(cushim_graph_exec_upload(x, s));
    assert_ok(cushim_graph_exec_launch(x, s));
    assert_ok(cushim_graph_exec_launch(x, s));
    ASSERT_OTHER_CURRENT();
    assert_ok(cushim_stream_synchronize(s));
    ASSERT_ORDER(2, 3, 4, 2, 3, 4);
    /* Each launch sets 1, bumps it to 12 and 124, and copies it. */
    assert_int_equal(buf_ints()[0], 124);
    assert_int_equal(buf_ints()[1], 124);
    assert_int_equal(mock.launch_count(), 4);

    /* A NULL stream is the default stream of the executable's context. */
    assert_ok(cushim_graph_exec_launch(x, NULL));
    assert_ok(cushim_graph_exec_upload(x, NULL));
    ASSERT_OTHER_CURRENT();
    assert_ok(cushim_context_synchronize(ctx));
    ASSERT_ORDER(2, 3, 4, 2, 3, 4, 2, 3, 4);
    assert_ptr_equal(mock.launch(4)->context, cushim_context_raw(ctx));

    assert_ptr_equal(cushim_graph_exec_retain(x), x);
    cushim_graph_exec_release(x);
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH_EXEC), 1);
    cushim_graph_exec_release(x);
    ASSERT_OTHER_CURRENT();
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH) + mock.live(CUSHIM_MOCK_GRAPH_EXEC), 0);
}

static void test_update_success_and_refusals(void **state) {
    (void)state;
    cushim_graph *a = capture_step(5), *b = capture_step(7);
    cushim_graph_exec *x = NULL;
    assert_ok(cushim_graph_instantiate(&x, a, 0));
    assert_ok(cushim_graph_exec_update(x, b));
    ASSERT_OTHER_CURRENT();
    assert_ok(cushim_graph_exec_launch(x, s));
    assert_ok(cushim_stream_synchronize(s));
    ASSERT_ORDER(7, 8);

    /* Another topology: one node instead of two; the driver names no node. */
    assert_ok(cushim_stream_begin_capture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    assert_ok(cushim_stream_launch_host_func(s, host_note, (void *)9));
    cushim_graph *c = end_ok(s);
    assert_cu(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, cushim_graph_exec_update(x, c));
    ASSERT_OTHER_CURRENT();
    ASSERT_SAID("cushim_graph_exec_update: ");
    ASSERT_SAID("CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED");
    ASSERT_SAID("the executable is as it was");
    assert_null(strstr(cushim_last_error(), "at node"));

    /* The same count of nodes, of other kinds: the driver names the graph's first node. */
    assert_ok(cushim_stream_begin_capture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    assert_ok(cushim_stream_launch_host_func(s, host_note, (void *)10));
    assert_ok(launch_bump(s, 11));
    cushim_graph *d = end_ok(s);
    assert_cu(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, cushim_graph_exec_update(x, d));
    ASSERT_SAID("CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED");
    ASSERT_SAID("(a host function node) of the graph");

    /* Refused updates left the executable as the successful one made it. */
    norder = 0;
    assert_ok(cushim_graph_exec_launch(x, s));
    assert_ok(cushim_stream_synchronize(s));
    ASSERT_ORDER(7, 8);
    cushim_graph_exec_release(x);
    cushim_graph_release(a);
    cushim_graph_release(b);
    cushim_graph_release(c);
    cushim_graph_release(d);
    ASSERT_OTHER_CURRENT();
}

static void test_instantiate_refusal_decoded(void **state) {
    (void)state;
    cushim_graph *g = capture_step(1);
    cushim_graph_exec *x = (cushim_graph_exec *)(uintptr_t)1;
    /* A graph for device launch may hold no host node: the driver names it. */
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              cushim_graph_instantiate(&x, g, CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH));
    assert_null(x);
    ASSERT_OTHER_CURRENT();
    ASSERT_SAID("cushim_graph_instantiate: ");
    ASSERT_SAID("CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED");
    ASSERT_SAID("(a host function node)");
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH_EXEC), 0);
    /* UPLOAD needs a stream this call does not take: refused before the driver. */
    int before = mock.calls("cuGraphInstantiateWithParams");
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              cushim_graph_instantiate(&x, g, CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD));
    ASSERT_SAID("cushim_graph_exec_upload");
    assert_int_equal(mock.calls("cuGraphInstantiateWithParams"), before);
    /* The driver's plain refusal: its code, and the result it gave. */
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_graph_instantiate(&x, g, 1ull << 40));
    ASSERT_SAID("CUDA_GRAPH_INSTANTIATE_ERROR");
    cushim_graph_release(g);
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH) + mock.live(CUSHIM_MOCK_GRAPH_EXEC), 0);
}

/* A synchronize of the capturing stream, through the raw table, is illegal during a capture and
 * invalidates it: the end says so, makes no graph, and the stream works afterwards. */
static void test_invalidated_capture(void **state) {
    (void)state;
    assert_ok(cushim_stream_begin_capture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_ok(cushim_stream_launch_host_func(s, host_note, (void *)1));
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, t->cuStreamSynchronize(cushim_stream_raw(s)));
    cushim_graph *g = (cushim_graph *)(uintptr_t)1;
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, cushim_stream_end_capture(&g, s));
    assert_null(g);
    ASSERT_SAID("cushim_stream_end_capture: ");
    ASSERT_SAID("invalidated");
    ASSERT_OTHER_CURRENT();
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH), 0);
    assert_cu(CUDA_ERROR_ILLEGAL_STATE, cushim_stream_end_capture(&g, s));
    ASSERT_SAID("is not capturing");

    /* cushim's own synchronize, the same; its sentence says that the stream is capturing and
     * what that means, not only the code. */
    assert_ok(cushim_stream_begin_capture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, cushim_stream_synchronize(s));
    ASSERT_SAID("cushim_stream_synchronize: ");
    ASSERT_SAID("is capturing (cushim_stream_begin_capture)");
    ASSERT_SAID("recorded into a graph, not run");
    ASSERT_SAID("invalidated");
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, cushim_stream_end_capture(&g, s));
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH), 0);
    /* And its query. */
    assert_ok(cushim_stream_begin_capture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, cushim_stream_query(s));
    ASSERT_SAID("cushim_stream_query: ");
    ASSERT_SAID("is capturing");
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, cushim_stream_end_capture(&g, s));

    /* The captured host function never ran; the stream runs new work. */
    assert_ok(cushim_stream_launch_host_func(s, host_note, (void *)2));
    assert_ok(cushim_stream_synchronize(s));
    ASSERT_ORDER(2);
}

/* Ending on a stream that joined the capture is refused and invalidates it; work of a joined
 * stream that is never joined back is refused at the end. Neither leaves a graph. */
static void test_end_on_the_wrong_stream(void **state) {
    (void)state;
    cushim_stream *s2 = NULL;
    cushim_event *fork = NULL;
    cushim_graph *g = NULL;
    assert_ok(cushim_stream_create(&s2, ctx, CU_STREAM_NON_BLOCKING, 0));
    assert_ok(cushim_event_create(&fork, ctx, CU_EVENT_DISABLE_TIMING));

    assert_ok(cushim_stream_begin_capture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_ok(cushim_stream_launch_host_func(s, host_note, (void *)1));
    assert_ok(cushim_event_record(fork, s));
    assert_ok(cushim_stream_wait_event(s2, fork, 0));
    assert_ok(cushim_stream_launch_host_func(s2, host_note, (void *)2));
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, cushim_stream_end_capture(&g, s2));
    ASSERT_SAID("only that stream can end it");
    assert_null(g);
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, cushim_stream_end_capture(&g, s));
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH), 0);

    assert_ok(cushim_stream_begin_capture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_ok(cushim_event_record(fork, s));
    assert_ok(cushim_stream_wait_event(s2, fork, 0));
    assert_ok(cushim_stream_launch_host_func(s2, host_note, (void *)3));
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, cushim_stream_end_capture(&g, s));
    ASSERT_SAID("does not wait for");
    assert_null(g);
    ASSERT_OTHER_CURRENT();
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH), 0);

    /* Begun twice; a mode that does not exist is refused before the driver. */
    assert_ok(cushim_stream_begin_capture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    assert_cu(CUDA_ERROR_ILLEGAL_STATE,
              cushim_stream_begin_capture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_SAID("capturing already");
    g = end_ok(s);
    cushim_graph_release(g);
    int before = mock.calls("cuStreamBeginCapture");
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_begin_capture(s, (CUstreamCaptureMode)99));
    ASSERT_SAID("capture mode 99");
    assert_int_equal(mock.calls("cuStreamBeginCapture"), before);
    assert_int_equal(norder, 0);
    cushim_event_release(fork);
    cushim_stream_release(s2);
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH), 0);
}

static CUresult other_thread_result;
static char other_thread_error[512];

static void *end_elsewhere(void *arg) {
    cushim_graph *g = NULL;
    other_thread_result = cushim_stream_end_capture(&g, arg);
    snprintf(other_thread_error, sizeof other_thread_error, "%s", cushim_last_error());
    return NULL;
}

static void test_end_on_another_thread(void **state) {
    (void)state;
    pthread_t th;
    assert_ok(cushim_stream_begin_capture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    assert_int_equal(pthread_create(&th, NULL, end_elsewhere, s), 0);
    pthread_join(th, NULL);
    assert_cu(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, other_thread_result);
    assert_non_null(strstr(other_thread_error, "began on another thread"));
    cushim_graph_release(end_ok(s));
}

static void test_host_functions_in_stream_order(void **state) {
    (void)state;
    assert_ok(cushim_stream_launch_host_func(s, host_note, (void *)1));
    assert_ok(launch_bump(s, 2));
    assert_ok(cushim_stream_launch_host_func(s, host_note, (void *)3));
    assert_ok(t->cuMemsetD32Async(buf, 7, 1, cushim_stream_raw(s)));
    assert_ok(launch_bump(s, 4));
    assert_ok(cushim_stream_launch_host_func(s, host_note, (void *)5));
    ASSERT_OTHER_CURRENT();
    assert_ok(cushim_stream_synchronize(s));
    ASSERT_ORDER(1, 2, 3, 4, 5);
    assert_int_equal(buf_ints()[0], 74);
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_launch_host_func(NULL, host_note, NULL));
    ASSERT_SAID("s is NULL");
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_launch_host_func(s, NULL, NULL));
    ASSERT_SAID("fn is NULL");
}

/* An executable of one context launched on a stream of another: the driver's refusal, with both
 * contexts named. */
static void test_launch_on_a_stream_of_another_context(void **state) {
    (void)state;
    cushim_stream *elsewhere = NULL;
    assert_ok(cushim_stream_create(&elsewhere, other, CU_STREAM_NON_BLOCKING, 0));
    cushim_graph *g = capture_step(1);
    cushim_graph_exec *x = NULL;
    assert_ok(cushim_graph_instantiate(&x, g, 0));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_graph_exec_launch(x, elsewhere));
    ASSERT_SAID("cushim_graph_exec_launch: cuGraphLaunch failed");
    ASSERT_SAID("belongs to context");
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_graph_exec_upload(x, elsewhere));
    ASSERT_SAID("cushim_graph_exec_upload: cuGraphUpload failed");
    cushim_graph_exec_release(x);
    cushim_graph_release(g);
    cushim_stream_release(elsewhere);
}

static void test_bad_handles(void **state) {
    (void)state;
    cushim_graph *g = capture_step(1);
    cushim_graph_exec *x = NULL;
    assert_ok(cushim_graph_instantiate(&x, g, 0));
    cushim_graph *not_g = (cushim_graph *)(void *)s;
    cushim_graph_exec *not_x = (cushim_graph_exec *)(void *)s;
    cushim_graph_exec *out = NULL;
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_graph_instantiate(NULL, g, 0));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_graph_instantiate(&out, NULL, 0));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, cushim_graph_instantiate(&out, not_g, 0));
    ASSERT_SAID("is a stream, not a graph");
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_graph_exec_launch(NULL, s));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, cushim_graph_exec_launch(not_x, s));
    ASSERT_SAID("not a graph executable");
    assert_cu(CUDA_ERROR_INVALID_HANDLE, cushim_graph_exec_launch(x, (cushim_stream *)(void *)ctx));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_graph_exec_upload(NULL, s));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_graph_exec_update(x, NULL));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, cushim_graph_exec_update(not_x, g));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_begin_capture(NULL, 0));
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_end_capture(NULL, s));
    cushim_graph *none = g;
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_stream_end_capture(&none, NULL));
    assert_null(none);
    assert_null(cushim_graph_retain(not_g));
    assert_null(cushim_graph_exec_retain(not_x));
    assert_null(cushim_graph_raw(not_g));
    assert_null(cushim_graph_context(NULL));
    assert_null(cushim_graph_exec_raw(NULL));
    assert_null(cushim_graph_exec_context(not_x));
    cushim_graph_release(NULL);
    cushim_graph_exec_release(NULL);
    int warned = captured.count[CUSHIM_LOG_WARN];
    cushim_graph_release(not_g);
    cushim_graph_exec_release(not_x);
    assert_int_equal(captured.count[CUSHIM_LOG_WARN], warned + 2);
    assert_int_equal(mock.live(CUSHIM_MOCK_STREAM), 1); /* s was not touched */
    cushim_graph_exec_release(x);
    cushim_graph_release(g);
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH) + mock.live(CUSHIM_MOCK_GRAPH_EXEC), 0);
}

/* A driver before CUDA 12.0 has no cuGraphInstantiateWithParams: instantiate uses
 * cuGraphInstantiateWithFlags, and a refusal gives the code without the driver's reason. */
static int setup_without_params(void **state) {
    if (mock_setup(state) != 0) return -1;
    mock.hide("cuGraphInstantiateWithParams");
    if (cushim_testing_reinit() != CUDA_SUCCESS || cushim_init() != CUDA_SUCCESS) return -1;
    if (cushim_driver_has("cuGraphInstantiateWithParams")) return -1;
    return graph_fixture();
}

static void test_instantiate_without_params(void **state) {
    (void)state;
    cushim_graph *g = capture_step(1);
    cushim_graph_exec *x = NULL;
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              cushim_graph_instantiate(&x, g, CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH));
    ASSERT_SAID("failed with CUDA_ERROR_INVALID_VALUE");
    assert_null(strstr(cushim_last_error(), "CUDA_GRAPH_INSTANTIATE_"));
    assert_ok(cushim_graph_instantiate(&x, g, 0));
    assert_int_equal(mock.calls("cuGraphInstantiateWithFlags"), 2);
    assert_int_equal(mock.calls("cuGraphInstantiateWithParams"), 0);
    assert_ok(cushim_graph_exec_launch(x, s));
    assert_ok(cushim_stream_synchronize(s));
    ASSERT_ORDER(1, 2);
    cushim_graph_exec_release(x);
    cushim_graph_release(g);
}

int main(void) {
#define T(fn) cmocka_unit_test_setup_teardown(fn, graph_setup, graph_teardown)
    const struct CMUnitTest tests[] = {
        T(test_capture_instantiate_launch_twice),
        T(test_update_success_and_refusals),
        T(test_instantiate_refusal_decoded),
        T(test_invalidated_capture),
        T(test_end_on_the_wrong_stream),
        T(test_end_on_another_thread),
        T(test_host_functions_in_stream_order),
        T(test_launch_on_a_stream_of_another_context),
        T(test_bad_handles),
        /* Last: it reloads the driver without an entry. */
        cmocka_unit_test_setup_teardown(test_instantiate_without_params, setup_without_params,
                                        graph_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
