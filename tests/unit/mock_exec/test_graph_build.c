/* Graphs built by hand on the mock: kernel, copy, set, host and empty nodes run in the order
 * they were added, at each launch of an executable; nodes listed, graphs cloned, a kernel node's
 * parameters read and changed; copies with arrays; bad arguments refused without a node, and
 * nothing leaked. */
#include "exec_util.h"

static CUmodule m;
static CUfunction f;
static CUstream s;

static int setup(void **state) { return step_setup(state, &m, &f, &s); }

static int teardown(void **state) { return step_teardown(state, m, s); }

static CUDA_KERNEL_NODE_PARAMS step_params(void **params) {
    CUDA_KERNEL_NODE_PARAMS k;
    memset(&k, 0, sizeof k);
    k.func = f;
    k.gridDimX = k.gridDimY = k.gridDimZ = 1;
    k.blockDimX = k.blockDimY = k.blockDimZ = 1;
    k.kernelParams = params;
    return k;
}

static void test_nodes_run_in_the_order_added(void **state) {
    (void)state;
    CUgraph g = NULL;
    assert_ok(t->cuGraphCreate(&g, 0));
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH), 1);
    CUdeviceptr d = 0;
    assert_ok(t->cuMemAlloc(&d, 64));
    int host[16];
    memset(host, 0, sizeof host);

    CUgraphNode set = NULL, k1 = NULL, copy = NULL, h = NULL, k2 = NULL, empty = NULL;
    CUDA_MEMSET_NODE_PARAMS ms = {.dst = d, .value = 7, .elementSize = 4, .width = 16, .height = 1};
    assert_ok(t->cuGraphAddMemsetNode(&set, g, NULL, 0, &ms, cushim_context_raw(ctx)));
    CUdeviceptr unused = 0;
    unsigned tag = 2;
    void *params[] = {&unused, &tag};
    CUDA_KERNEL_NODE_PARAMS kp = step_params(params);
    assert_ok(t->cuGraphAddKernelNode(&k1, g, &set, 1, &kp));
    tag = 4; /* k1 took 2 when it was added; k2, below, takes 4 */
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = d;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = host;
    c.WidthInBytes = sizeof host;
    c.Height = 1;
    c.Depth = 1;
    assert_ok(t->cuGraphAddMemcpyNode(&copy, g, &k1, 1, &c, cushim_context_raw(ctx)));
    CUDA_HOST_NODE_PARAMS hp = {host_note, (void *)3};
    assert_ok(t->cuGraphAddHostNode(&h, g, &copy, 1, &hp));
    assert_ok(t->cuGraphAddKernelNode(&k2, g, &h, 1, &kp));
    assert_ok(t->cuGraphAddEmptyNode(&empty, g, &k2, 1));
    /* Made, not run. */
    assert_int_equal(norder, 0);
    assert_int_equal(host[0], 0);

    size_t n = 0;
    assert_ok(t->cuGraphGetNodes(g, NULL, &n));
    assert_int_equal(n, 6);
    CUgraphNode nodes[8];
    n = 8;
    assert_ok(t->cuGraphGetNodes(g, nodes, &n));
    assert_int_equal(n, 6);
    assert_ptr_equal(nodes[0], set);
    assert_ptr_equal(nodes[5], empty);
    assert_null(nodes[6]);
    n = 2;
    assert_ok(t->cuGraphGetNodes(g, nodes, &n));
    assert_int_equal(n, 2);
    CUgraphNodeType type;
    assert_ok(t->cuGraphNodeGetType(copy, &type));
    assert_int_equal(type, CU_GRAPH_NODE_TYPE_MEMCPY);
    assert_ok(t->cuGraphNodeGetType(set, &type));
    assert_int_equal(type, CU_GRAPH_NODE_TYPE_MEMSET);
    assert_ok(t->cuGraphNodeGetType(empty, &type));
    assert_int_equal(type, CU_GRAPH_NODE_TYPE_EMPTY);

    CUgraph clone = NULL;
    assert_ok(t->cuGraphClone(&clone, g));
    assert_ok(t->cuGraphDestroy(g)); /* the clone keeps the work */
    CUgraphExec x = NULL;
    assert_ok(t->cuGraphInstantiate(&x, clone, 0));
    assert_ok(t->cuGraphLaunch(x, s));
    assert_ok(t->cuGraphLaunch(x, s));
    assert_ok(t->cuStreamSynchronize(s));
    ASSERT_ORDER(2, 3, 4, 2, 3, 4);
    assert_int_equal(host[15], 7);
    assert_ok(t->cuGraphExecDestroy(x));
    assert_ok(t->cuGraphDestroy(clone));
    assert_ok(t->cuMemFree(d));
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH), 0);
    /* The scratch streams are gone. */
    assert_int_equal(mock.live(CUSHIM_MOCK_STREAM), 1);
}

static void test_kernel_node_parameters(void **state) {
    (void)state;
    CUgraph g = NULL;
    assert_ok(t->cuGraphCreate(&g, 0));
    CUdeviceptr unused = 0;
    unsigned tag = 5;
    void *params[] = {&unused, &tag};
    CUDA_KERNEL_NODE_PARAMS kp = step_params(params);
    kp.gridDimX = 3;
    CUgraphNode k = NULL, h = NULL;
    assert_ok(t->cuGraphAddKernelNode(&k, g, NULL, 0, &kp));
    CUDA_KERNEL_NODE_PARAMS back;
    memset(&back, 0, sizeof back);
    assert_ok(t->cuGraphKernelNodeGetParams(k, &back));
    assert_ptr_equal(back.func, f);
    assert_int_equal(back.gridDimX, 3);
    assert_ptr_equal(back.kernelParams, params);
    /* New parameters: the graph's next executable runs them; one made before keeps the old. */
    CUgraphExec before = NULL, after = NULL;
    assert_ok(t->cuGraphInstantiate(&before, g, 0));
    tag = 8;
    kp.gridDimX = 1;
    assert_ok(t->cuGraphKernelNodeSetParams(k, &kp));
    assert_ok(t->cuGraphKernelNodeGetParams(k, &back));
    assert_int_equal(back.gridDimX, 1);
    assert_ok(t->cuGraphInstantiate(&after, g, 0));
    assert_ok(t->cuGraphLaunch(before, s));
    assert_ok(t->cuGraphLaunch(after, s));
    assert_ok(t->cuStreamSynchronize(s));
    ASSERT_ORDER(5, 8);
    /* A clone keeps the parameters; other nodes have none to give. */
    CUgraph c = NULL;
    assert_ok(t->cuGraphClone(&c, g));
    CUDA_HOST_NODE_PARAMS hp = {host_note, (void *)1};
    assert_ok(t->cuGraphAddHostNode(&h, g, NULL, 0, &hp));
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphKernelNodeGetParams(h, &back));
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphKernelNodeGetParams(k, NULL));
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphKernelNodeSetParams(h, &kp));
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphKernelNodeSetParams(k, NULL));
    size_t n = 1;
    CUgraphNode ck = NULL;
    assert_ok(t->cuGraphGetNodes(c, &ck, &n));
    assert_ok(t->cuGraphKernelNodeGetParams(ck, &back));
    assert_int_equal(back.gridDimX, 1);
    /* A captured kernel's parameters are not kept. */
    CUgraph cap = NULL;
    assert_ok(t->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    launch_step(f, s, 9);
    assert_ok(t->cuStreamEndCapture(s, &cap));
    n = 1;
    assert_ok(t->cuGraphGetNodes(cap, &ck, &n));
    assert_cu(CUDA_ERROR_NOT_SUPPORTED, t->cuGraphKernelNodeGetParams(ck, &back));
    assert_ok(t->cuGraphDestroy(cap));
    assert_ok(t->cuGraphExecDestroy(before));
    assert_ok(t->cuGraphExecDestroy(after));
    assert_ok(t->cuGraphDestroy(c));
    assert_ok(t->cuGraphDestroy(g));
}

/* Copy nodes with arrays: host rows into slice 1 of a 3D array, and each slice back, run at
 * each launch as the 3D copies they describe. */
static void test_array_copy_nodes(void **state) {
    (void)state;
    CUDA_ARRAY3D_DESCRIPTOR ad = {.Width = 4,
                                  .Height = 2,
                                  .Depth = 2,
                                  .Format = CU_AD_FORMAT_UNSIGNED_INT8,
                                  .NumChannels = 1};
    CUarray a;
    assert_ok(t->cuArray3DCreate(&a, &ad));
    unsigned char in[2][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}}, out[2][2][4];
    memset(out, 0xee, sizeof out);
    CUgraph g = NULL;
    assert_ok(t->cuGraphCreate(&g, 0));
    CUDA_MEMCPY3D up = {.srcMemoryType = CU_MEMORYTYPE_HOST,
                        .srcHost = in,
                        .srcPitch = 4,
                        .srcHeight = 2,
                        .dstMemoryType = CU_MEMORYTYPE_ARRAY,
                        .dstArray = a,
                        .dstZ = 1,
                        .WidthInBytes = 4,
                        .Height = 2,
                        .Depth = 1};
    CUDA_MEMCPY3D down = {.srcMemoryType = CU_MEMORYTYPE_ARRAY,
                          .srcArray = a,
                          .dstMemoryType = CU_MEMORYTYPE_HOST,
                          .dstHost = out,
                          .dstPitch = 4,
                          .dstHeight = 2,
                          .WidthInBytes = 4,
                          .Height = 2,
                          .Depth = 2};
    CUgraphNode n1 = NULL, n2 = NULL, n3 = NULL;
    assert_ok(t->cuGraphAddMemcpyNode(&n1, g, NULL, 0, &up, cushim_context_raw(ctx)));
    /* More than one slice is more than one queued copy: not a node the mock makes. */
    assert_cu(CUDA_ERROR_NOT_SUPPORTED,
              t->cuGraphAddMemcpyNode(&n2, g, &n1, 1, &down, cushim_context_raw(ctx)));
    down.Depth = 1;
    assert_ok(t->cuGraphAddMemcpyNode(&n2, g, &n1, 1, &down, cushim_context_raw(ctx)));
    down.srcZ = down.dstZ = 1;
    assert_ok(t->cuGraphAddMemcpyNode(&n3, g, &n2, 1, &down, cushim_context_raw(ctx)));
    assert_int_equal(out[1][1][3], 0xee); /* made, not run */
    CUgraphExec x = NULL;
    assert_ok(t->cuGraphInstantiate(&x, g, 0));
    assert_ok(t->cuGraphLaunch(x, s));
    assert_ok(t->cuStreamSynchronize(s));
    assert_int_equal(out[0][1][3], 0);
    assert_int_equal(out[1][0][0], 1);
    assert_int_equal(out[1][1][3], 8);
    assert_ok(t->cuGraphExecDestroy(x));
    assert_ok(t->cuGraphDestroy(g));
    assert_ok(t->cuArrayDestroy(a));
}

static void test_bad_arguments_add_nothing(void **state) {
    (void)state;
    CUgraph g = NULL;
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphCreate(NULL, 0));
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphCreate(&g, 1));
    assert_ok(t->cuGraphCreate(&g, 0));
    CUgraphNode node = NULL;
    CUdeviceptr unused = 0;
    unsigned tag = 1;
    void *params[] = {&unused, &tag};
    CUDA_KERNEL_NODE_PARAMS kp = step_params(params);
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphAddKernelNode(NULL, g, NULL, 0, &kp));
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphAddKernelNode(&node, NULL, NULL, 0, &kp));
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphAddKernelNode(&node, g, NULL, 2, &kp));
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphAddKernelNode(&node, g, NULL, 0, NULL));
    kp.func = NULL;
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphAddKernelNode(&node, g, NULL, 0, &kp));
    CUDA_MEMSET_NODE_PARAMS ms = {.dst = 0, .value = 0, .elementSize = 3, .width = 1, .height = 1};
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              t->cuGraphAddMemsetNode(&node, g, NULL, 0, &ms, cushim_context_raw(ctx)));
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY; /* and no array, no destination */
    c.Depth = 1;
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              t->cuGraphAddMemcpyNode(&node, g, NULL, 0, &c, cushim_context_raw(ctx)));
    CUDA_HOST_NODE_PARAMS hp = {NULL, NULL};
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphAddHostNode(&node, g, NULL, 0, &hp));
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphAddEmptyNode(&node, g, NULL, 1));
    size_t n = 9;
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphGetNodes(g, NULL, NULL));
    assert_ok(t->cuGraphGetNodes(g, NULL, &n));
    assert_int_equal(n, 0);
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphClone(NULL, g));
    /* A fault on the entry refuses the node. */
    mock.fail_once("cuGraphAddHostNode", CUDA_ERROR_OUT_OF_MEMORY);
    hp.fn = host_note;
    assert_cu(CUDA_ERROR_OUT_OF_MEMORY, t->cuGraphAddHostNode(&node, g, NULL, 0, &hp));
    assert_ok(t->cuGraphGetNodes(g, NULL, &n));
    assert_int_equal(n, 0);
    assert_ok(t->cuGraphDestroy(g));
    assert_int_equal(mock.live(CUSHIM_MOCK_GRAPH), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_nodes_run_in_the_order_added, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_node_parameters, setup, teardown),
        cmocka_unit_test_setup_teardown(test_array_copy_nodes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_arguments_add_nothing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
