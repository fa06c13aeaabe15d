/* Images that nvcc wrote at build time (kernels.cu): PTX, a cubin and fatbins load on the mock
 * with their kernels' names, parameter sizes and variables, and `vadd` runs on the host through
 * the CUSHIM_MOCK_KERNELS library over memory from cuMemAlloc. Exits 77 when the build had no
 * nvcc (MOCK_EXEC_IMAGES is empty then). */
#include "exec_util.h"

static const char *dir;

static void load(CUmodule *m, const char *file) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    assert_ok(t->cuModuleLoad(m, path));
}

/* The parameter count the mock read for `name`, from a launch's record. Only the record is
 * read: a kernel without code (`mixed` of the cubin) runs as a no-op, as asked here. */
static int param_count(CUmodule m, const char *name) {
    mock.set_noop_kernels(true);
    CUfunction f;
    assert_ok(t->cuModuleGetFunction(&f, m, name));
    int before = mock.launch_count();
    CUdeviceptr none = 0;
    int n = 0;
    char c = 0;
    short sh = 0;
    char p[32] = {0};
    double d = 0;
    void *vadd_params[] = {&none, &none, &none, &n};
    void *mixed_params[] = {&c, &sh, p, &d, &none};
    assert_ok(t->cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL,
                                strcmp(name, "vadd") == 0 ? vadd_params : mixed_params, NULL));
    assert_int_equal(mock.launch_count(), before + 1);
    return mock.launch(before)->param_count;
}

static void check_module(const char *file, bool variables) {
    CUmodule m;
    load(&m, file);
    assert_int_equal(param_count(m, "vadd"), 4);
    assert_int_equal(param_count(m, "mixed"), 5);
    CUfunction f;
    assert_cu(CUDA_ERROR_NOT_FOUND, t->cuModuleGetFunction(&f, m, "no_such_kernel"));
    if (variables) {
        size_t bytes = 0;
        assert_ok(t->cuModuleGetGlobal(NULL, &bytes, m, "scale_factor"));
        assert_int_equal(bytes, 16);
        assert_ok(t->cuModuleGetGlobal(NULL, &bytes, m, "offset_value"));
        assert_int_equal(bytes, 4);
    }
    assert_ok(t->cuCtxSynchronize());
    assert_ok(t->cuModuleUnload(m));
}

static void test_ptx(void **state) {
    (void)state;
    check_module("kernels.ptx", true);
}

static void test_cubin(void **state) {
    (void)state;
    check_module("kernels.cubin", true);
}

static void test_fatbin_of_elf_and_compressed_ptx(void **state) {
    (void)state;
    check_module("kernels.fatbin", true);
}

static void test_fatbin_of_plain_ptx(void **state) {
    (void)state;
    check_module("kernels_ptx.fatbin", true);
}

/* Compressed PTX alone: read where libzstd is on the machine; otherwise any name loads, with
 * sizes unknown. Either way the kernels resolve. */
static void test_fatbin_of_compressed_ptx_only(void **state) {
    (void)state;
    CUmodule m;
    CUfunction f;
    load(&m, "kernels_ptxz.fatbin");
    assert_ok(t->cuModuleGetFunction(&f, m, "vadd"));
    int n = param_count(m, "mixed");
    if (n == 5) {
        assert_cu(CUDA_ERROR_NOT_FOUND, t->cuModuleGetFunction(&f, m, "no_such_kernel"));
    } else {
        assert_int_equal(n, -1);
        assert_ok(t->cuModuleGetFunction(&f, m, "no_such_kernel"));
    }
    assert_ok(t->cuCtxSynchronize());
    assert_ok(t->cuModuleUnload(m));
}

/* Real data through device memory, a host kernel, and the same sequence captured and replayed. */
static void test_vector_add_through_device_memory_and_a_graph(void **state) {
    (void)state;
    enum { N = 1000 };
    static float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
    }
    CUmodule m;
    CUfunction f;
    CUstream s;
    load(&m, "kernels.cubin");
    assert_ok(t->cuModuleGetFunction(&f, m, "vadd"));
    assert_ok(t->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr da, db, dc;
    assert_ok(t->cuMemAlloc(&da, sizeof a));
    assert_ok(t->cuMemAlloc(&db, sizeof b));
    assert_ok(t->cuMemAlloc(&dc, sizeof c));
    assert_ok(t->cuMemcpyHtoD(da, a, sizeof a));
    assert_ok(t->cuMemcpyHtoD(db, b, sizeof b));
    int n = N;
    void *params[] = {&da, &db, &dc, &n};
    assert_ok(t->cuLaunchKernel(f, (N + 255) / 256, 1, 1, 256, 1, 1, 0, s, params, NULL));
    assert_ok(t->cuStreamSynchronize(s));
    assert_ok(t->cuMemcpyDtoH(c, dc, sizeof c));
    for (int i = 0; i < N; i++) assert_true(c[i] == 1.5f * (float)i);
    assert_int_equal(mock.host_kernel_runs("vadd"), 1);

    /* Captured: c = a + b, then b = a + c (so the replay's second run sees the first's). */
    CUgraph g;
    CUgraphExec x;
    void *params2[] = {&da, &dc, &db, &n};
    assert_ok(t->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_ok(t->cuLaunchKernel(f, (N + 255) / 256, 1, 1, 256, 1, 1, 0, s, params, NULL));
    assert_ok(t->cuLaunchKernel(f, (N + 255) / 256, 1, 1, 256, 1, 1, 0, s, params2, NULL));
    assert_ok(t->cuStreamEndCapture(s, &g));
    assert_ok(t->cuGraphInstantiate(&x, g, 0));
    assert_ok(t->cuGraphLaunch(x, s));
    assert_ok(t->cuGraphLaunch(x, s));
    assert_ok(t->cuStreamSynchronize(s));
    assert_ok(t->cuMemcpyDtoH(b, db, sizeof b));
    assert_ok(t->cuMemcpyDtoH(c, dc, sizeof c));
    /* b0 = i/2; run 1: c = 1.5i, b = 2.5i; run 2: c = 3.5i, b = 4.5i */
    for (int i = 0; i < N; i++) {
        assert_true(c[i] == 3.5f * (float)i);
        assert_true(b[i] == 4.5f * (float)i);
    }
    assert_int_equal(mock.host_kernel_runs("vadd"), 5);
    assert_ok(t->cuGraphExecDestroy(x));
    assert_ok(t->cuGraphDestroy(g));
    assert_ok(t->cuMemFree(da));
    assert_ok(t->cuMemFree(db));
    assert_ok(t->cuMemFree(dc));
    assert_ok(t->cuStreamDestroy(s));
    assert_ok(t->cuModuleUnload(m));
}

int main(void) {
    dir = getenv("MOCK_EXEC_IMAGES");
    if (dir == NULL || dir[0] == '\0') {
        printf("1..0 # SKIP the build had no nvcc to write the images\n");
        return 77;
    }
#define T(fn) cmocka_unit_test_setup_teardown(fn, exec_setup, exec_teardown)
    const struct CMUnitTest tests[] = {
        T(test_ptx),
        T(test_cubin),
        T(test_fatbin_of_elf_and_compressed_ptx),
        T(test_fatbin_of_plain_ptx),
        T(test_fatbin_of_compressed_ptx_only),
        T(test_vector_add_through_device_memory_and_a_graph),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
