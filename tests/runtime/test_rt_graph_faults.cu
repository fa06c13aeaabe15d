/* Faults of the driver under cushim's runtime's graph functions, on the mock: each driver call
 * a graph function makes fails once (the mock's fail_once), and the runtime answers the
 * driver's code as its cudaError_t, records it as the thread's last error, leaves no object
 * behind, and works again on the next call (an allocation failure is not sticky). */
#include "rt_test.h"

#include "cushim_mock.h"

static cushim_mock_api mock;

__global__ void nop(int *p) {
    if (p != NULL) p[0] = 1;
}

static void CUDART_CB on_host(void *) {}

/* A graph of one host function, captured. */
static cudaGraph_t captured(cudaStream_t s) {
    cudaGraph_t g = NULL;
    assert_rt_ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    assert_rt_ok(cudaLaunchHostFunc(s, on_host, NULL));
    assert_rt_ok(cudaStreamEndCapture(s, &g));
    return g;
}

/* Arms `entry` to fail once with out of memory, runs call, and checks the answer. */
#define FAILS_ONCE(entry, call)                                                                    \
    do {                                                                                           \
        mock.fail_once(entry, CUDA_ERROR_OUT_OF_MEMORY);                                           \
        assert_rt(cudaErrorMemoryAllocation, call);                                                \
        assert_int_equal(mock.armed(entry), 0);                                                    \
        assert_rt(cudaErrorMemoryAllocation, cudaGetLastError());                                  \
        assert_rt_ok(cudaGetLastError());                                                          \
    } while (0)

static void test_each_driver_call_fails_cleanly(void **state) {
    (void)state;
    assert_true(cushim_mock_open(&mock, NULL));
    cudaStream_t s;
    assert_rt_ok(cudaStreamCreate(&s));
    int graphs = mock.live(CUSHIM_MOCK_GRAPH), execs = mock.live(CUSHIM_MOCK_GRAPH_EXEC);

    cudaGraph_t g = NULL;
    FAILS_ONCE("cuGraphCreate", cudaGraphCreate(&g, 0));
    FAILS_ONCE("cuStreamBeginCapture", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    enum cudaStreamCaptureStatus st;
    assert_rt_ok(cudaStreamIsCapturing(s, &st));
    assert_int_equal(st, cudaStreamCaptureStatusNone);
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH), graphs);

    g = captured(s);
    cudaGraphExec_t x = NULL;
    FAILS_ONCE("cuGraphInstantiateWithFlags", cudaGraphInstantiate(&x, g, 0));
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH_EXEC), execs);
    assert_rt_ok(cudaGraphInstantiate(&x, g, 0));
    FAILS_ONCE("cuGraphLaunch", cudaGraphLaunch(x, s));
    FAILS_ONCE("cuGraphUpload", cudaGraphUpload(x, s));
    cudaGraphExecUpdateResultInfo info;
    FAILS_ONCE("cuGraphExecUpdate", cudaGraphExecUpdate(x, g, &info));
    assert_rt_ok(cudaGraphLaunch(x, s));
    assert_rt_ok(cudaStreamSynchronize(s));

    /* Nodes: none is added by a failed call. */
    cudaGraph_t h = NULL;
    assert_rt_ok(cudaGraphCreate(&h, 0));
    cudaGraphNode_t n = NULL;
    int *d = NULL;
    void *args[] = {&d};
    cudaKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = (void *)nop;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(1);
    kp.kernelParams = args;
    FAILS_ONCE("cuGraphAddKernelNode", cudaGraphAddKernelNode(&n, h, NULL, 0, &kp));
    cudaHostNodeParams hp = {on_host, NULL};
    FAILS_ONCE("cuGraphAddHostNode", cudaGraphAddHostNode(&n, h, NULL, 0, &hp));
    int a = 0, b = 0;
    FAILS_ONCE("cuGraphAddMemcpyNode",
               cudaGraphAddMemcpyNode1D(&n, h, NULL, 0, &a, &b, sizeof a, cudaMemcpyHostToHost));
    size_t count = 9;
    assert_rt_ok(cudaGraphGetNodes(h, NULL, &count));
    assert_int_equal(count, 0);
    FAILS_ONCE("cuGraphGetNodes", cudaGraphGetNodes(h, NULL, &count));
    cudaGraph_t c = NULL;
    FAILS_ONCE("cuGraphClone", cudaGraphClone(&c, h));
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH), graphs + 2);

    assert_rt_ok(cudaGraphDestroy(h));
    assert_rt_ok(cudaGraphExecDestroy(x));
    assert_rt_ok(cudaGraphDestroy(g));
    assert_rt_ok(cudaStreamDestroy(s));
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH), graphs);
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH_EXEC), execs);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_driver_call_fails_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
