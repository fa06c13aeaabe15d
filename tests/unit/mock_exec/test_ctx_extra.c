/* Entries of the mock that keep a setting and read it back, or answer a query from the device's
 * attributes: context limits and preferences, device queries, function loading, graph memory
 * attributes, and the deprecated launch by parameter setters, which runs the kernel. */
#define _GNU_SOURCE /* mkstemp */
#include <stdlib.h>
#include <unistd.h>

#include "exec_util.h"

static void test_context_limits_and_preferences(void **state) {
    (void)state;
    size_t v = 0;
    assert_ok(t->cuCtxGetLimit(&v, CU_LIMIT_PRINTF_FIFO_SIZE));
    assert_int_equal(v, 1 << 20);
    assert_ok(t->cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
    assert_int_equal(v, 1024);
    assert_ok(t->cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 64 << 20));
    assert_ok(t->cuCtxGetLimit(&v, CU_LIMIT_MALLOC_HEAP_SIZE));
    assert_int_equal(v, 64 << 20);
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 129));
    assert_cu(CUDA_ERROR_UNSUPPORTED_LIMIT, t->cuCtxSetLimit(CU_LIMIT_CIG_ENABLED, 1));
    assert_cu(CUDA_ERROR_UNSUPPORTED_LIMIT, t->cuCtxGetLimit(&v, (CUlimit)99));
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuCtxGetLimit(NULL, CU_LIMIT_STACK_SIZE));
    CUfunc_cache cc = CU_FUNC_CACHE_PREFER_L1;
    assert_ok(t->cuCtxGetCacheConfig(&cc));
    assert_int_equal(cc, CU_FUNC_CACHE_PREFER_NONE);
    assert_ok(t->cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_SHARED));
    assert_ok(t->cuCtxGetCacheConfig(&cc));
    assert_int_equal(cc, CU_FUNC_CACHE_PREFER_SHARED);
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuCtxSetCacheConfig((CUfunc_cache)9));
    CUsharedconfig sc;
    assert_ok(t->cuCtxGetSharedMemConfig(&sc));
    assert_int_equal(sc, CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE);
    assert_ok(t->cuCtxSetSharedMemConfig(CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE));
    assert_ok(t->cuCtxGetSharedMemConfig(&sc));
    assert_int_equal(sc, CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE);
    unsigned flags = 0;
    assert_ok(t->cuCtxSetFlags(CU_CTX_SCHED_BLOCKING_SYNC));
    assert_ok(t->cuCtxGetFlags(&flags));
    assert_int_equal(flags & CU_CTX_SCHED_MASK, CU_CTX_SCHED_BLOCKING_SYNC);
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuCtxSetFlags(0x80000000u));
    assert_ok(t->cuCtxResetPersistingL2Cache());
    CUexecAffinityParam aff;
    assert_ok(t->cuCtxGetExecAffinity(&aff, CU_EXEC_AFFINITY_TYPE_SM_COUNT));
    int sms = 0;
    assert_ok(t->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
    assert_int_equal(aff.param.smCount.val, sms);
    assert_ok(t->cuFlushGPUDirectRDMAWrites(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
                                            CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER));
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              t->cuFlushGPUDirectRDMAWrites(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
                                            (CUflushGPUDirectRDMAWritesScope)7));
    /* Without a current context, each refuses. */
    assert_ok(t->cuCtxSetCurrent(NULL));
    assert_cu(CUDA_ERROR_INVALID_CONTEXT, t->cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
    assert_cu(CUDA_ERROR_INVALID_CONTEXT, t->cuCtxResetPersistingL2Cache());
}

static void test_device_queries(void **state) {
    (void)state;
    CUdevprop p;
    assert_ok(t->cuDeviceGetProperties(&p, 0));
    assert_int_equal(p.SIMDWidth, 32);
    assert_int_equal(p.maxThreadsPerBlock, 1024);
    assert_cu(CUDA_ERROR_INVALID_DEVICE, t->cuDeviceGetProperties(&p, 7));
    int v = -1;
    assert_ok(t->cuDeviceGetExecAffinitySupport(&v, CU_EXEC_AFFINITY_TYPE_SM_COUNT, 0));
    assert_int_equal(v, 0);
    assert_cu(CUDA_ERROR_INVALID_DEVICE,
              t->cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 0));
    CUmoduleLoadingMode mode;
    assert_ok(t->cuModuleGetLoadingMode(&mode));
    assert_int_equal(mode, CU_MODULE_LAZY_LOADING);
    cuuint64_t used = 1;
    assert_ok(t->cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &used));
    assert_int_equal(used, 0);
    used = 0;
    assert_ok(t->cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &used));
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              t->cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &used));
    assert_ok(t->cuDeviceGraphMemTrim(0));
    assert_cu(CUDA_ERROR_INVALID_DEVICE, t->cuDeviceGraphMemTrim(5));
}

static void test_stream_attributes_writes_and_context_events(void **state) {
    (void)state;
    CUstream a, b;
    assert_ok(t->cuStreamCreateWithPriority(&a, CU_STREAM_NON_BLOCKING, -1));
    assert_ok(t->cuStreamCreate(&b, 0));
    CUstreamAttrValue v;
    assert_ok(t->cuStreamGetAttribute(a, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v));
    assert_int_equal(v.syncPolicy, CU_SYNC_POLICY_AUTO);
    assert_ok(t->cuStreamGetAttribute(a, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v));
    assert_int_equal(v.priority, -1);
    memset(&v, 0, sizeof v);
    v.accessPolicyWindow.num_bytes = 4096;
    v.accessPolicyWindow.hitRatio = 0.5f;
    assert_ok(t->cuStreamSetAttribute(a, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &v));
    v.syncPolicy = CU_SYNC_POLICY_SPIN;
    assert_ok(t->cuStreamSetAttribute(a, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v));
    assert_ok(t->cuStreamCopyAttributes(b, a));
    assert_ok(t->cuStreamGetAttribute(b, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v));
    assert_int_equal(v.syncPolicy, CU_SYNC_POLICY_SPIN);
    assert_ok(t->cuStreamGetAttribute(b, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &v));
    assert_int_equal(v.accessPolicyWindow.num_bytes, 4096);
    int prio = 0;
    assert_ok(t->cuStreamGetPriority(b, &prio));
    assert_int_equal(prio, -1);
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              t->cuStreamGetAttribute(a, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &v)); /* launches only */
    v.syncPolicy = (CUsynchronizationPolicy)9;
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              t->cuStreamSetAttribute(a, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v));
    /* Writes in stream order. */
    CUdeviceptr d;
    assert_ok(t->cuMemAlloc(&d, 16));
    assert_ok(t->cuMemsetD8(d, 0, 16));
    assert_ok(t->cuStreamWriteValue32(a, d, 0xdeadbeefu, 0));
    assert_ok(t->cuStreamWriteValue64(a, d + 8, 0x0123456789abcdefull,
                                      CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER));
    assert_ok(t->cuStreamSynchronize(a));
    uint32_t w32;
    uint64_t w64;
    assert_ok(t->cuMemcpyDtoH(&w32, d, 4));
    assert_ok(t->cuMemcpyDtoH(&w64, d + 8, 8));
    assert_int_equal(w32, 0xdeadbeefu);
    assert_int_equal(w64, 0x0123456789abcdefull);
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuStreamWriteValue64(a, d + 4, 1, 0));  /* aligned */
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuStreamWriteValue32(a, d + 16, 1, 0)); /* past */
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuStreamWriteValue32(a, d, 1, 4));      /* flags */
    /* A context's event: recorded and waited for. */
    CUevent e;
    CUcontext c;
    assert_ok(t->cuCtxGetCurrent(&c));
    assert_ok(t->cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
    assert_ok(t->cuCtxRecordEvent(c, e));
    assert_ok(t->cuCtxWaitEvent(c, e));
    assert_ok(t->cuEventSynchronize(e));
    assert_ok(t->cuEventQuery(e));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, t->cuCtxRecordEvent(c, NULL));
    assert_ok(t->cuEventDestroy(e));
    assert_ok(t->cuMemFree(d));
    assert_ok(t->cuStreamDestroy(a));
    assert_ok(t->cuStreamDestroy(b));
}

static int destroyed;
static void count_destroy(void *p) { destroyed += *(int *)p; }

static void test_user_objects_and_dot_print(void **state) {
    (void)state;
    static int weight = 1;
    destroyed = 0;
    CUuserObject o;
    assert_ok(
        t->cuUserObjectCreate(&o, &weight, count_destroy, 2, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
    assert_ok(t->cuUserObjectRetain(o, 1));
    assert_ok(t->cuUserObjectRelease(o, 2));
    CUgraph g;
    assert_ok(t->cuGraphCreate(&g, 0));
    assert_ok(t->cuGraphRetainUserObject(g, o, 1, CU_GRAPH_USER_OBJECT_MOVE)); /* the last one */
    assert_int_equal(destroyed, 0);
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphReleaseUserObject(g, o, 2));
    CUgraphNode n[2];
    assert_ok(t->cuGraphAddEmptyNode(&n[0], g, NULL, 0));
    assert_ok(t->cuGraphAddEmptyNode(&n[1], g, n, 1));
    char path[] = "/tmp/cushim-mock-dot-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_ok(t->cuGraphDebugDotPrint(g, path, CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE));
    char text[256] = "";
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    unlink(path);
    assert_non_null(strstr(text, "digraph"));
    assert_non_null(strstr(text, "1: empty"));
    assert_non_null(strstr(text, "n0 -> n1"));
    assert_cu(CUDA_ERROR_OPERATING_SYSTEM, t->cuGraphDebugDotPrint(g, "/nonexistent/x.dot", 0));
    /* An executable's flags, and a node's counterpart in a clone. */
    CUgraphExec x;
    cuuint64_t xf = 9;
    assert_ok(t->cuGraphInstantiateWithFlags(&x, g, CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY));
    assert_ok(t->cuGraphExecGetFlags(x, &xf));
    assert_int_equal(xf, CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY);
    assert_ok(t->cuGraphExecDestroy(x));
    CUgraph clone;
    CUgraphNode twin;
    assert_ok(t->cuGraphClone(&clone, g));
    assert_ok(t->cuGraphNodeFindInClone(&twin, n[1], clone));
    size_t count = 2;
    CUgraphNode cn[2];
    assert_ok(t->cuGraphGetNodes(clone, cn, &count));
    assert_ptr_equal(twin, cn[1]);
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuGraphNodeFindInClone(&twin, n[1], g)); /* no clone */
    assert_ok(t->cuGraphDestroy(clone));
    assert_ok(t->cuGraphDestroy(g)); /* gives back the reference: the destructor runs */
    assert_int_equal(destroyed, 1);
    assert_cu(CUDA_ERROR_INVALID_HANDLE, t->cuUserObjectRetain(o, 1));
    assert_non_null(strstr(mock.memory_error(), "cuUserObjectRetain"));
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuUserObjectCreate(&o, &weight, count_destroy, 1, 0));
}

/* out[i] = a * i + b for i < n, with (out, a, b, n) packed as the legacy API packs them. */
static const char ptx_affine[] =
    PTX_HEAD ".visible .entry affine(.param .u64 out, .param .u32 a, .param .f32 b,"
             " .param .u32 n)\n{\n"
             ".reg .b32 %r<8>; .reg .f32 %f<4>; .reg .b64 %rd<4>; .reg .pred %p1;\n"
             "ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [a]; ld.param.f32 %f1, [b];\n"
             "ld.param.u32 %r2, [n];\n"
             "mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mov.u32 %r5, %tid.x;\n"
             "mad.lo.s32 %r6, %r3, %r4, %r5; setp.ge.u32 %p1, %r6, %r2; @%p1 bra DONE;\n"
             "mul.lo.s32 %r7, %r6, %r1; cvt.rn.f32.u32 %f2, %r7; add.f32 %f3, %f2, %f1;\n"
             "cvta.to.global.u64 %rd1, %rd1; mul.wide.u32 %rd2, %r6, 4; add.s64 %rd3, %rd1, %rd2;\n"
             "st.global.f32 [%rd3], %f3;\n"
             "DONE: ret;\n}\n";

static void test_legacy_launch_runs_the_kernel(void **state) {
    (void)state;
    enum { N = 100 };
    CUmodule m;
    CUfunction f;
    CUdeviceptr d;
    assert_ok(t->cuModuleLoadData(&m, ptx_affine));
    assert_ok(t->cuModuleGetFunction(&f, m, "affine"));
    assert_ok(t->cuMemAlloc(&d, N * 4));
    CUfunctionLoadingState ls;
    assert_ok(t->cuFuncIsLoaded(&ls, f));
    assert_int_equal(ls, CU_FUNCTION_LOADING_STATE_LOADED);
    assert_ok(t->cuFuncLoad(f));
    size_t avail = 0;
    assert_ok(t->cuOccupancyAvailableDynamicSMemPerBlock(&avail, f, 2, 128));
    assert_true(avail > 0);
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              t->cuOccupancyAvailableDynamicSMemPerBlock(&avail, f, 0, 128));
    assert_ok(t->cuFuncSetBlockShape(f, 32, 1, 1));
    assert_ok(t->cuFuncSetSharedSize(f, 0));
    assert_ok(t->cuFuncSetSharedMemConfig(f, CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE));
    assert_ok(t->cuParamSetv(f, 0, &d, sizeof d));
    assert_ok(t->cuParamSeti(f, 8, 3));
    assert_ok(t->cuParamSetf(f, 12, 0.5f));
    assert_ok(t->cuParamSeti(f, 16, N));
    assert_ok(t->cuParamSetSize(f, 20));
    assert_ok(t->cuLaunchGrid(f, (N + 31) / 32, 1));
    float out[N];
    assert_ok(t->cuMemcpyDtoH(out, d, sizeof out));
    for (int i = 0; i < N; i++) assert_float_equal(out[i], 3.0f * i + 0.5f, 0.0f);
    /* Again in a stream, with another constant; and cuLaunch's single block. */
    assert_ok(t->cuParamSetf(f, 12, 2.0f));
    CUstream s;
    assert_ok(t->cuStreamCreate(&s, 0));
    assert_ok(t->cuLaunchGridAsync(f, (N + 31) / 32, 1, s));
    assert_ok(t->cuStreamSynchronize(s));
    assert_ok(t->cuMemcpyDtoH(out, d, sizeof out));
    assert_float_equal(out[N - 1], 3.0f * (N - 1) + 2.0f, 0.0f);
    assert_ok(t->cuMemsetD32(d, 0, N));
    assert_ok(t->cuLaunch(f));
    assert_ok(t->cuCtxSynchronize());
    assert_ok(t->cuMemcpyDtoH(out, d, sizeof out));
    assert_float_equal(out[31], 3.0f * 31 + 2.0f, 0.0f);
    assert_float_equal(out[32], 0.0f, 0.0f); /* one block of 32 only */
    /* Refused: parameters past the space, a bad shape, a bad grid. */
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuParamSeti(f, 4094, 1));
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuParamSetSize(f, 5000));
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuFuncSetBlockShape(f, 0, 1, 1));
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuLaunchGrid(f, 0, 1));
    assert_ok(t->cuStreamDestroy(s));
    assert_ok(t->cuMemFree(d));
    assert_ok(t->cuModuleUnload(m));
    /* A dead function is named, not used. */
    assert_cu(CUDA_ERROR_INVALID_HANDLE, t->cuFuncSetBlockShape(f, 32, 1, 1));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_context_limits_and_preferences, exec_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_device_queries, exec_setup, exec_teardown),
        cmocka_unit_test_setup_teardown(test_user_objects_and_dot_print, exec_setup, exec_teardown),
        cmocka_unit_test_setup_teardown(test_stream_attributes_writes_and_context_events,
                                        exec_setup, exec_teardown),
        cmocka_unit_test_setup_teardown(test_legacy_launch_runs_the_kernel, exec_setup,
                                        exec_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
