/* Programs and linkers on the real GPU: CUDA C++ compiled by NVRTC to PTX and to a cubin for the
 * device, and to LTO IR linked by nvJitLink, each loaded with cushim_program_load or
 * cushim_linker_complete, launched, and every result checked. Exits 77 without a GPU. */
#include "gpu_util.h"

static const char source[] = "extern \"C\" __global__ void scale(float *x, float a, unsigned n) {\n"
                             "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                             "    if (i < n) x[i] *= a;\n"
                             "}\n";

enum { N = 4096 };

static cushim_context *ctx;
static char sm[32], compute[32];

static int setup(void **state) {
    (void)state;
    if (cushim_context_primary(&ctx, 0) != CUDA_SUCCESS) return -1;
    int major = 0, minor = 0;
    CUdevice dev = cushim_context_device(ctx);
    cushim_driver()->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                          dev);
    cushim_driver()->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                          dev);
    snprintf(sm, sizeof sm, "-arch=sm_%d%d", major, minor);
    snprintf(compute, sizeof compute, "-arch=compute_%d%d", major, minor);
    return cushim_driver()->cuCtxSetCurrent(cushim_context_raw(ctx)) == CUDA_SUCCESS ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    cushim_driver()->cuCtxSetCurrent(NULL);
    cushim_context_release(ctx);
    return 0;
}

/* Runs scale(a) of m on 0..N-1 and checks every result. */
static void run_and_check(cushim_module *m, float a) {
    cushim_function *f;
    assert_ok(cushim_module_function(&f, m, "scale"));
    const cushim_driver_table *cu = cushim_driver();
    static float host[N];
    for (int i = 0; i < N; i++) host[i] = (float)i;
    CUdeviceptr x;
    assert_ok(cu->cuMemAlloc(&x, sizeof host));
    assert_ok(cu->cuMemcpyHtoD(x, host, sizeof host));
    unsigned n = N;
    void *params[] = {&x, &a, &n};
    cushim_launch_config cfg = {.grid = CUSHIM_DIM3(N / 256), .block = CUSHIM_DIM3(256)};
    assert_ok(cushim_launch(f, &cfg, params));
    assert_ok(cushim_context_synchronize(ctx));
    assert_ok(cu->cuMemcpyDtoH(host, x, sizeof host));
    assert_ok(cu->cuMemFree(x));
    for (int i = 0; i < N; i++) assert_true(host[i] == a * (float)i);
}

static void compile_load_run(const char *arch, const char *extra, float a) {
    cushim_program *p;
    assert_ok(cushim_program_create(&p, source, "scale.cu", 0, NULL, NULL));
    const char *opts[] = {arch, extra};
    assert_ok(cushim_program_compile(p, extra ? 2 : 1, opts));
    cushim_module *m;
    assert_ok(cushim_program_load(&m, p, ctx));
    run_and_check(m, a);
    cushim_module_release(m);
    cushim_program_release(p);
}

static void test_ptx(void **state) {
    (void)state;
    compile_load_run(compute, NULL, 2.0f);
}

static void test_cubin(void **state) {
    (void)state;
    compile_load_run(sm, NULL, 3.0f);
}

static void test_ltoir_linked(void **state) {
    (void)state;
    cushim_program *p;
    assert_ok(cushim_program_create(&p, source, "scale.cu", 0, NULL, NULL));
    const char *opts[] = {sm, "-dlto"};
    assert_ok(cushim_program_compile(p, 2, opts));
    const void *ir;
    size_t size;
    assert_ok(cushim_program_code(p, CUSHIM_CODE_LTOIR, &ir, &size));
    cushim_linker *l;
    const char *lto[] = {"-lto"};
    assert_ok(cushim_linker_create(&l, ctx, 1, lto));
    assert_ok(cushim_linker_add(l, CUSHIM_CODE_LTOIR, ir, size, "scale"));
    cushim_module *m;
    assert_ok(cushim_linker_complete(&m, l));
    run_and_check(m, 4.0f);
    cushim_module_release(m);
    cushim_linker_release(l);
    cushim_program_release(p);
}

int main(void) {
    gpu_require();
    if (cushim_lib_state(CUSHIM_LIB_NVRTC)->status != CUSHIM_LIB_LOADED) {
        fprintf(stderr, "FAIL: NVRTC is not loaded on the GPU machine: %s\n",
                cushim_lib_state(CUSHIM_LIB_NVRTC)->message);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ptx),
        cmocka_unit_test(test_cubin),
        cmocka_unit_test(test_ltoir_linked),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
