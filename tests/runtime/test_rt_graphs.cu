/* Graphs through cushim's runtime on the mock: stream capture of launches, copies, sets and host
 * functions, instantiate (with flags and with params), launch, upload, update with its result
 * info, in both default-stream modes; graphs built by hand (set, kernel, copy, host and empty
 * nodes, clone), the explicit node API's own checks (the host function of a kernel node,
 * parameters, dependencies, symbols), and what the driver answers past them. */
#include "rt_test.h"

/* The per-thread variants, as a program built with --default-stream per-thread reaches them. */
extern "C" cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t, enum cudaStreamCaptureMode);
extern "C" cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t, cudaGraph_t *);
extern "C" cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t, enum cudaStreamCaptureStatus *);
extern "C" cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t, cudaStream_t);
extern "C" cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t, cudaStream_t);
extern "C" cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *, cudaGraph_t,
                                                           cudaGraphInstantiateParams *);
extern "C" cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t, enum cudaStreamCaptureStatus *,
                                                     unsigned long long *, cudaGraph_t *,
                                                     const cudaGraphNode_t **,
                                                     const cudaGraphEdgeData **, size_t *);

__global__ void add(int *p, int k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += k;
}

__device__ int table[16];

static int host_calls;
static void CUDART_CB on_host(void *user) { host_calls += *(int *)user; }

static const int N = 256;

/* A graph that sets d to 1, adds k, copies it to h and calls on_host. */
static cudaGraph_t capture(cudaStream_t s, int *d, int *h, int k, int *one) {
    cudaGraph_t g = NULL;
    assert_rt_ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    assert_rt_ok(cudaStreamIsCapturing(s, &st));
    assert_int_equal(st, cudaStreamCaptureStatusActive);
    unsigned long long id = 0;
    assert_rt_ok(cudaStreamGetCaptureInfo(s, &st, &id, NULL, NULL, NULL, NULL));
    assert_int_equal(st, cudaStreamCaptureStatusActive);
    assert_true(id != 0);
    assert_rt_ok(cudaMemsetAsync(d, 0, N * sizeof(int), s));
    add<<<N / 64, 64, 0, s>>>(d, 1, N);
    add<<<N / 64, 64, 0, s>>>(d, k, N);
    assert_rt_ok(cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, s));
    assert_rt_ok(cudaLaunchHostFunc(s, on_host, one));
    assert_rt_ok(cudaStreamEndCapture(s, &g));
    assert_non_null(g);
    assert_rt_ok(cudaStreamIsCapturing(s, &st));
    assert_int_equal(st, cudaStreamCaptureStatusNone);
    return g;
}

static void test_capture_instantiate_launch(void **state) {
    (void)state;
    int *d = NULL, *h = NULL, one = 1;
    assert_rt_ok(cudaMalloc((void **)&d, N * sizeof(int)));
    assert_rt_ok(cudaMallocHost((void **)&h, N * sizeof(int)));
    cudaStream_t s;
    assert_rt_ok(cudaStreamCreate(&s));
    host_calls = 0;
    cudaGraph_t g = capture(s, d, h, 5, &one);
    /* Nothing ran during the capture. */
    assert_int_equal(host_calls, 0);

    cudaGraphExec_t x = NULL;
    assert_rt_ok(cudaGraphInstantiate(&x, g, 0));
    assert_rt_ok(cudaGraphUpload(x, s));
    for (int rep = 0; rep < 3; rep++) assert_rt_ok(cudaGraphLaunch(x, s));
    assert_rt_ok(cudaStreamSynchronize(s));
    assert_int_equal(host_calls, 3);
    for (int i = 0; i < N; i++) assert_int_equal(h[i], 6);

    /* The same shape with other parameters updates the executable in place. */
    cudaGraph_t g2 = capture(s, d, h, 41, &one);
    cudaGraphExecUpdateResultInfo info;
    memset(&info, 0xff, sizeof info);
    assert_rt_ok(cudaGraphExecUpdate(x, g2, &info));
    assert_int_equal(info.result, cudaGraphExecUpdateSuccess);
    assert_rt_ok(cudaGraphLaunch(x, s));
    assert_rt_ok(cudaStreamSynchronize(s));
    for (int i = 0; i < N; i++) assert_int_equal(h[i], 42);

    /* Another shape is refused, with the reason in the result info. */
    cudaGraph_t g3 = NULL;
    assert_rt_ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    add<<<1, 1, 0, s>>>(d, 1, 1);
    assert_rt_ok(cudaStreamEndCapture(s, &g3));
    assert_rt(cudaErrorGraphExecUpdateFailure, cudaGraphExecUpdate(x, g3, &info));
    assert_int_equal(info.result, cudaGraphExecUpdateErrorTopologyChanged);
    assert_rt(cudaErrorGraphExecUpdateFailure, cudaGetLastError());

    /* Instantiate with params: the result comes back in them. */
    cudaGraphInstantiateParams p;
    memset(&p, 0, sizeof p);
    p.flags = cudaGraphInstantiateFlagUpload;
    p.uploadStream = s;
    p.result_out = cudaGraphInstantiateError;
    cudaGraphExec_t x3 = NULL;
    assert_rt_ok(cudaGraphInstantiateWithParams(&x3, g3, &p));
    assert_int_equal(p.result_out, cudaGraphInstantiateSuccess);
    assert_null(p.errNode_out);
    /* Device launch with a host function node is refused, naming the node. */
    cudaGraphExec_t bad = NULL;
    memset(&p, 0, sizeof p);
    p.flags = cudaGraphInstantiateFlagDeviceLaunch;
    assert_rt(cudaErrorInvalidValue, cudaGraphInstantiateWithParams(&bad, g2, &p));
    assert_int_equal(p.result_out, cudaGraphInstantiateNodeOperationNotSupported);
    assert_non_null(p.errNode_out);
    enum cudaGraphNodeType type = cudaGraphNodeTypeCount;
    assert_rt_ok(cudaGraphNodeGetType(p.errNode_out, &type));
    assert_int_equal(type, cudaGraphNodeTypeHost);

    assert_rt_ok(cudaGraphExecDestroy(x3));
    assert_rt_ok(cudaGraphExecDestroy(x));
    assert_rt_ok(cudaGraphDestroy(g3));
    assert_rt_ok(cudaGraphDestroy(g2));
    assert_rt_ok(cudaGraphDestroy(g));
    assert_rt_ok(cudaStreamDestroy(s));
    assert_rt_ok(cudaFreeHost(h));
    assert_rt_ok(cudaFree(d));
}

static void test_capture_errors(void **state) {
    (void)state;
    cudaStream_t s;
    assert_rt_ok(cudaStreamCreate(&s));
    cudaGraph_t g = NULL;
    /* Not a capture mode: refused by the runtime before the driver. */
    assert_rt(cudaErrorInvalidValue, cudaStreamBeginCapture(s, (enum cudaStreamCaptureMode)7));
    assert_rt(cudaErrorInvalidValue, cudaGetLastError());
    /* The legacy default stream cannot be captured. */
    assert_rt(cudaErrorStreamCaptureUnsupported,
              cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal));
    /* Ending a capture that never began. */
    assert_rt(cudaErrorIllegalState, cudaStreamEndCapture(s, &g));
    assert_rt(cudaErrorInvalidValue, cudaStreamEndCapture(s, NULL));
    assert_rt(cudaErrorInvalidValue, cudaStreamIsCapturing(s, NULL));
    assert_rt(cudaErrorInvalidValue,
              cudaStreamGetCaptureInfo(s, NULL, NULL, NULL, NULL, NULL, NULL));
    /* A capture already under way cannot begin again. */
    assert_rt_ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    assert_rt(cudaErrorIllegalState, cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    assert_rt_ok(cudaStreamEndCapture(s, &g));
    assert_rt_ok(cudaGraphDestroy(g));

    /* Dependencies of a capture: checked by the runtime, then the driver's (the mock keeps
     * none to update). */
    assert_rt(cudaErrorInvalidValue, cudaStreamUpdateCaptureDependencies(s, NULL, NULL, 1, 0));
    assert_rt(cudaErrorInvalidValue, cudaStreamUpdateCaptureDependencies(s, NULL, NULL, 0, 5));
    assert_rt(cudaErrorNotSupported, cudaStreamUpdateCaptureDependencies(
                                         s, NULL, NULL, 0, cudaStreamSetCaptureDependencies));

    /* The thread's mode is exchanged, and a bad one refused. */
    enum cudaStreamCaptureMode m = cudaStreamCaptureModeRelaxed;
    assert_rt_ok(cudaThreadExchangeStreamCaptureMode(&m));
    assert_int_equal(m, cudaStreamCaptureModeGlobal);
    assert_rt_ok(cudaThreadExchangeStreamCaptureMode(&m));
    assert_int_equal(m, cudaStreamCaptureModeRelaxed);
    m = (enum cudaStreamCaptureMode)9;
    assert_rt(cudaErrorInvalidValue, cudaThreadExchangeStreamCaptureMode(&m));
    assert_rt(cudaErrorInvalidValue, cudaThreadExchangeStreamCaptureMode(NULL));

    /* NULL handles name themselves. */
    cudaGraphExec_t x = NULL;
    assert_rt(cudaErrorInvalidValue, cudaGraphInstantiate(&x, NULL, 0));
    assert_rt(cudaErrorInvalidValue, cudaGraphInstantiate(NULL, g, 0));
    assert_rt(cudaErrorInvalidValue, cudaGraphLaunch(NULL, s));
    assert_rt(cudaErrorInvalidValue, cudaGraphUpload(NULL, s));
    assert_rt(cudaErrorInvalidValue, cudaGraphExecDestroy(NULL));
    assert_rt(cudaErrorInvalidValue, cudaGraphDestroy(NULL));
    assert_rt(cudaErrorInvalidValue, cudaGraphExecUpdate(x, g, NULL));
    assert_rt(cudaErrorInvalidValue, cudaGraphInstantiateWithParams(&x, g, NULL));
    assert_rt_ok(cudaStreamDestroy(s));
}

static void test_capture_per_thread_stream(void **state) {
    (void)state;
    int *d = NULL;
    assert_rt_ok(cudaMalloc((void **)&d, sizeof(int)));
    /* In the per-thread mode NULL is the thread's own stream, which can be captured. */
    assert_rt_ok(cudaStreamBeginCapture_ptsz(0, cudaStreamCaptureModeGlobal));
    enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    assert_rt_ok(cudaStreamIsCapturing_ptsz(0, &st));
    assert_int_equal(st, cudaStreamCaptureStatusActive);
    assert_rt_ok(cudaStreamIsCapturing(cudaStreamPerThread, &st));
    assert_int_equal(st, cudaStreamCaptureStatusActive);
    assert_rt_ok(cudaMemsetAsync(d, 0, sizeof(int), cudaStreamPerThread));
    add<<<1, 1, 0, cudaStreamPerThread>>>(d, 7, 1);
    size_t ndeps = 0;
    cudaGraph_t during = NULL;
    assert_rt_ok(cudaStreamGetCaptureInfo_ptsz(0, &st, NULL, &during, NULL, NULL, &ndeps));
    assert_int_equal(ndeps, 1);
    assert_non_null(during);
    cudaGraph_t g = NULL;
    assert_rt_ok(cudaStreamEndCapture_ptsz(0, &g));
    assert_ptr_equal(g, during);
    cudaGraphExec_t x = NULL;
    /* The upload stream NULL is the thread's own stream in this mode. */
    cudaGraphInstantiateParams p;
    memset(&p, 0, sizeof p);
    p.flags = cudaGraphInstantiateFlagUpload;
    assert_rt_ok(cudaGraphInstantiateWithParams_ptsz(&x, g, &p));
    assert_int_equal(p.result_out, cudaGraphInstantiateSuccess);
    assert_rt_ok(cudaGraphUpload_ptsz(x, 0));
    assert_rt_ok(cudaGraphLaunch_ptsz(x, 0));
    assert_rt_ok(cudaStreamSynchronize(cudaStreamPerThread));
    int v = 0;
    assert_rt_ok(cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost));
    assert_int_equal(v, 7);
    assert_rt_ok(cudaGraphExecDestroy(x));
    assert_rt_ok(cudaGraphDestroy(g));
    assert_rt_ok(cudaFree(d));
}

/* A graph built by hand: set, two kernels, a copy back and a host function, in dependency
 * order; instantiated, launched, cloned. */
static void test_explicit_graph(void **state) {
    (void)state;
    int *d = NULL, *h = NULL, one = 1;
    assert_rt_ok(cudaMalloc((void **)&d, N * sizeof(int)));
    assert_rt_ok(cudaMallocHost((void **)&h, N * sizeof(int)));
    cudaGraph_t g = NULL;
    assert_rt_ok(cudaGraphCreate(&g, 0));
    cudaMemsetParams mp;
    memset(&mp, 0, sizeof mp);
    mp.dst = d;
    mp.value = 3;
    mp.elementSize = sizeof(int);
    mp.width = N;
    mp.height = 1;
    cudaGraphNode_t set = NULL, k1 = NULL, k2 = NULL, copy = NULL, host = NULL, empty = NULL;
    assert_rt_ok(cudaGraphAddMemsetNode(&set, g, NULL, 0, &mp));
    int n = N, k = 10;
    void *args[] = {&d, &k, &n};
    cudaKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = (void *)add;
    kp.gridDim = dim3(N / 64);
    kp.blockDim = dim3(64);
    kp.kernelParams = args;
    assert_rt_ok(cudaGraphAddKernelNode(&k1, g, &set, 1, &kp));
    k = 100; /* the node keeps the arguments' values as they were when added */
    assert_rt_ok(cudaGraphAddKernelNode(&k2, g, &k1, 1, &kp));
    cudaMemcpy3DParms cp;
    memset(&cp, 0, sizeof cp);
    cp.srcPtr = make_cudaPitchedPtr(d, N * sizeof(int), N, 1);
    cp.dstPtr = make_cudaPitchedPtr(h, N * sizeof(int), N, 1);
    cp.extent = make_cudaExtent(N * sizeof(int), 1, 1);
    cp.kind = cudaMemcpyDeviceToHost;
    assert_rt_ok(cudaGraphAddMemcpyNode(&copy, g, &k2, 1, &cp));
    cudaHostNodeParams hp = {on_host, &one};
    assert_rt_ok(cudaGraphAddHostNode(&host, g, &copy, 1, &hp));
    assert_rt_ok(cudaGraphAddEmptyNode(&empty, g, &host, 1));
    size_t count = 0;
    assert_rt_ok(cudaGraphGetNodes(g, NULL, &count));
    assert_int_equal(count, 6);
    cudaGraphNode_t nodes[6];
    assert_rt_ok(cudaGraphGetNodes(g, nodes, &count));
    assert_ptr_equal(nodes[1], k1);
    enum cudaGraphNodeType type = cudaGraphNodeTypeCount;
    assert_rt_ok(cudaGraphNodeGetType(copy, &type));
    assert_int_equal(type, cudaGraphNodeTypeMemcpy);
    assert_rt_ok(cudaGraphNodeGetType(empty, &type));
    assert_int_equal(type, cudaGraphNodeTypeEmpty);

    cudaStream_t s;
    assert_rt_ok(cudaStreamCreate(&s));
    cudaGraphExec_t x = NULL;
    host_calls = 0;
    assert_rt_ok(cudaGraphInstantiate(&x, g, 0));
    assert_rt_ok(cudaGraphLaunch(x, s));
    assert_rt_ok(cudaStreamSynchronize(s));
    assert_int_equal(host_calls, 1);
    for (int i = 0; i < N; i++) assert_int_equal(h[i], 3 + 110);

    /* A kernel node's parameters come back with its host function, and change. */
    cudaKernelNodeParams back;
    memset(&back, 0, sizeof back);
    assert_rt_ok(cudaGraphKernelNodeGetParams(k2, &back));
    assert_ptr_equal(back.func, (void *)add);
    assert_int_equal(back.gridDim.x, N / 64);
    assert_int_equal(back.blockDim.x, 64);
    k = 1000;
    assert_rt_ok(cudaGraphKernelNodeSetParams(k2, &kp));
    kp.func = (void *)on_host;
    assert_rt(cudaErrorInvalidDeviceFunction, cudaGraphKernelNodeSetParams(k2, &kp));
    kp.func = (void *)add;
    assert_rt(cudaErrorInvalidValue, cudaGraphKernelNodeGetParams(host, &back));
    /* The executable made before keeps what it had. */
    assert_rt_ok(cudaGraphLaunch(x, s));
    assert_rt_ok(cudaStreamSynchronize(s));
    assert_int_equal(h[0], 3 + 110);

    /* A clone runs the graph as it is now. */
    cudaGraph_t c = NULL;
    cudaGraphExec_t cx = NULL;
    assert_rt_ok(cudaGraphClone(&c, g));
    assert_rt_ok(cudaGraphDestroy(g));
    memset(h, 0, N * sizeof(int));
    assert_rt_ok(cudaGraphInstantiate(&cx, c, 0));
    assert_rt_ok(cudaGraphLaunch(cx, s));
    assert_rt_ok(cudaStreamSynchronize(s));
    assert_int_equal(host_calls, 3);
    assert_int_equal(h[N - 1], 3 + 1010);
    assert_rt_ok(cudaGraphExecDestroy(cx));
    assert_rt_ok(cudaGraphExecDestroy(x));
    assert_rt_ok(cudaGraphDestroy(c));
    assert_rt_ok(cudaStreamDestroy(s));
    assert_rt_ok(cudaFreeHost(h));
    assert_rt_ok(cudaFree(d));
}

/* What the runtime refuses itself before the driver, and the driver's answer past it. */
static void test_explicit_node_errors(void **state) {
    (void)state;
    int *d = NULL;
    assert_rt_ok(cudaMalloc((void **)&d, N * sizeof(int)));
    cudaGraph_t g = NULL;
    assert_rt(cudaErrorInvalidValue, cudaGraphCreate(&g, 1));
    assert_rt(cudaErrorInvalidValue, cudaGraphCreate(NULL, 0));
    assert_rt_ok(cudaGraphCreate(&g, 0));
    cudaGraphNode_t node = NULL;
    int n = N, k = 2;
    void *args[] = {&d, &k, &n};
    cudaKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = (void *)add;
    kp.gridDim = dim3(N / 64);
    kp.blockDim = dim3(64);
    kp.kernelParams = args;
    assert_rt(cudaErrorInvalidValue, cudaGraphAddKernelNode(NULL, g, NULL, 0, &kp));
    assert_rt(cudaErrorInvalidValue, cudaGraphAddKernelNode(&node, NULL, NULL, 0, &kp));
    assert_rt(cudaErrorInvalidValue, cudaGraphAddKernelNode(&node, g, NULL, 1, &kp));
    assert_rt(cudaErrorInvalidValue, cudaGraphAddKernelNode(&node, g, NULL, 0, NULL));
    kp.func = (void *)on_host; /* not a kernel */
    assert_rt(cudaErrorInvalidDeviceFunction, cudaGraphAddKernelNode(&node, g, NULL, 0, &kp));
    assert_rt(cudaErrorInvalidDeviceFunction, cudaGetLastError());
    kp.func = (void *)add;
    cudaMemsetParams mp;
    memset(&mp, 0, sizeof mp);
    mp.dst = d;
    mp.elementSize = 3;
    mp.width = N;
    mp.height = 1;
    assert_rt(cudaErrorInvalidValue, cudaGraphAddMemsetNode(&node, g, NULL, 0, &mp));
    assert_rt(cudaErrorInvalidMemcpyDirection,
              cudaGraphAddMemcpyNode1D(&node, g, NULL, 0, d, d, 4, (cudaMemcpyKind)9));
    cudaHostNodeParams hp = {NULL, NULL};
    assert_rt(cudaErrorInvalidValue, cudaGraphAddHostNode(&node, g, NULL, 0, &hp));
    assert_rt(cudaErrorInvalidResourceHandle, cudaGraphAddEventRecordNode(&node, g, NULL, 0, NULL));
    int src[16] = {0};
    assert_rt(cudaErrorInvalidSymbol, cudaGraphAddMemcpyNodeToSymbol(&node, g, NULL, 0, src, src, 4,
                                                                     0, cudaMemcpyHostToDevice));
    assert_rt(cudaErrorInvalidValue,
              cudaGraphAddMemcpyNodeToSymbol(&node, g, NULL, 0, table, src, sizeof src, 4,
                                             cudaMemcpyHostToDevice));
    assert_rt(cudaErrorInvalidMemcpyDirection,
              cudaGraphAddMemcpyNodeToSymbol(&node, g, NULL, 0, table, src, 4, 0,
                                             cudaMemcpyDeviceToHost));
    cudaMemcpy3DParms cp;
    memset(&cp, 0, sizeof cp);
    cp.kind = cudaMemcpyDeviceToDevice;
    cp.extent = make_cudaExtent(4, 1, 1);
    cp.dstPtr = make_cudaPitchedPtr(d, 4, 4, 1);
    /* No source at all. */
    assert_rt(cudaErrorInvalidValue, cudaGraphAddMemcpyNode(&node, g, NULL, 0, &cp));
    size_t count = 99;
    assert_rt(cudaErrorInvalidValue, cudaGraphGetNodes(g, NULL, NULL));
    assert_rt(cudaErrorInvalidValue, cudaGraphGetRootNodes(NULL, NULL, &count));
    cudaGraphNode_t from = NULL;
    assert_rt(cudaErrorInvalidValue, cudaGraphAddDependencies(g, &from, NULL, NULL, 1));
    assert_rt(cudaErrorInvalidValue, cudaGraphKernelNodeGetParams(node, NULL));
    assert_rt(cudaErrorInvalidValue, cudaGraphDebugDotPrint(g, NULL, 0));
    /* Nothing was added by the refusals. */
    assert_rt_ok(cudaGraphGetNodes(g, NULL, &count));
    assert_int_equal(count, 0);

    /* A copy to a symbol, and a kernel node whose parameters are read back. */
    assert_rt_ok(cudaGraphAddMemcpyNodeToSymbol(&node, g, NULL, 0, table, src, 8, 4,
                                                cudaMemcpyHostToDevice));
    assert_rt_ok(cudaGraphAddKernelNode(&node, g, NULL, 0, &kp));
    cudaKernelNodeParams back;
    assert_rt_ok(cudaGraphKernelNodeGetParams(node, &back));
    /* The host function comes back, not the driver's CUfunction. */
    assert_ptr_equal(back.func, (void *)add);
    /* An executable's copy of a node: the mock keeps none to change. */
    cudaGraphExec_t x = NULL;
    assert_rt_ok(cudaGraphInstantiate(&x, g, 0));
    assert_rt(cudaErrorNotSupported, cudaGraphExecKernelNodeSetParams(x, node, &kp));
    assert_rt_ok(cudaGraphExecDestroy(x));
    assert_rt_ok(cudaGraphDestroy(g));
    assert_rt_ok(cudaFree(d));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capture_instantiate_launch), cmocka_unit_test(test_capture_errors),
        cmocka_unit_test(test_capture_per_thread_stream),  cmocka_unit_test(test_explicit_graph),
        cmocka_unit_test(test_explicit_node_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
