/* Module images on the mock: PTX entries with their parameter sizes, variables, refusals of
 * what is not an image, the JIT failure knob, and parameters passed through `extra`. */
#include "exec_util.h"

/* The parameter list nvcc writes for kernels.cu's `mixed` and `vadd`, and two variables. */
static const char ptx_mixed[] =
    PTX_HEAD ".global .align 4 .b8 scale_factor[16];\n.const .align 4 .u32 offset_value;\n"
             ".extern .global .align 4 .b8 elsewhere[];\n\n"
             ".visible .entry mixed(\n\t.param .u8 mixed_param_0,\n\t.param .u16 mixed_param_1,\n"
             "\t.param .align 8 .b8 mixed_param_2[32],\n\t.param .f64 mixed_param_3,\n"
             "\t.param .u64 .ptr .global .align 4 mixed_param_4\n)\n{\n\tld.global.u32 %r1, "
             "[x];\n\tret;\n}\n"
             ".visible .entry vadd(\n\t.param .u64 vadd_param_0,\n\t.param .u64 vadd_param_1,\n"
             "\t.param .u64 vadd_param_2,\n\t.param .u32 vadd_param_3\n)\n{\n\tret;\n}\n";

typedef struct pair24 {
    char bytes[24];
    double d;
} pair24;

static int seen_count = -1;
static char seen_c;
static short seen_s;
static pair24 seen_p;
static double seen_d;
static int *seen_out;

static void mixed_kernel(const cushim_mock_kernel_args *a) {
    seen_count = (int)a->param_count;
    memcpy(&seen_c, a->params[0], 1);
    memcpy(&seen_s, a->params[1], 2);
    memcpy(&seen_p, a->params[2], sizeof seen_p);
    memcpy(&seen_d, a->params[3], 8);
    memcpy(&seen_out, a->params[4], sizeof seen_out);
}

static void test_ptx_entries_and_parameter_sizes(void **state) {
    (void)state;
    CUmodule m;
    CUfunction f;
    unsigned count = 0;
    assert_ok(t->cuModuleLoadData(&m, ptx_mixed));
    assert_ok(t->cuModuleGetFunctionCount(&count, m));
    assert_int_equal(count, 2);
    assert_cu(CUDA_ERROR_NOT_FOUND, t->cuModuleGetFunction(&f, m, "step"));
    assert_ok(t->cuModuleGetFunction(&f, m, "mixed"));
    mock.register_kernel("mixed", mixed_kernel);
    char c = 7;
    short sh = -300;
    pair24 p = {{0}, 2.5};
    p.bytes[0] = 11;
    p.bytes[23] = 12;
    double d = 0.25;
    int target = 0, *out = &target;
    void *params[] = {&c, &sh, &p, &d, &out};
    assert_ok(t->cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    /* The driver copies the arguments at the launch: later changes do not reach the kernel. */
    c = 0;
    d = 0;
    assert_int_equal(mock.launch(0)->param_count, 5);
    assert_ok(t->cuCtxSynchronize());
    assert_int_equal(seen_count, 5);
    assert_int_equal(seen_c, 7);
    assert_int_equal(seen_s, -300);
    assert_int_equal(seen_p.bytes[0], 11);
    assert_int_equal(seen_p.bytes[23], 12);
    assert_true(seen_p.d == 2.5);
    assert_true(seen_d == 0.25);
    assert_ptr_equal(seen_out, &target);
    assert_ok(t->cuModuleUnload(m));
}

static void test_ptx_variables(void **state) {
    (void)state;
    CUmodule m;
    CUdeviceptr p = 0;
    size_t bytes = 0;
    assert_ok(t->cuModuleLoadData(&m, ptx_mixed));
    assert_ok(t->cuModuleGetGlobal(&p, &bytes, m, "scale_factor"));
    assert_int_equal(bytes, 16);
    assert_true(p != 0);
    float *host = (float *)(uintptr_t)p;
    assert_true(host[3] == 0.0f);
    host[3] = 4.0f; /* the mock's memory: writable at the address it gave */
    CUdeviceptr again = 0;
    assert_ok(t->cuModuleGetGlobal(&again, NULL, m, "scale_factor"));
    assert_true(again == p && ((float *)(uintptr_t)again)[3] == 4.0f);
    assert_ok(t->cuModuleGetGlobal(NULL, &bytes, m, "offset_value"));
    assert_int_equal(bytes, 4);
    assert_cu(CUDA_ERROR_NOT_FOUND, t->cuModuleGetGlobal(&p, &bytes, m, "elsewhere"));
    assert_cu(CUDA_ERROR_NOT_FOUND, t->cuModuleGetGlobal(&p, &bytes, m, "mixed_param_0"));
    assert_ok(t->cuModuleUnload(m));
}

static void test_what_is_not_an_image_is_refused(void **state) {
    (void)state;
    static const struct {
        const char *image;
        CUresult want;
    } cases[] = {
        {"garbage", CUDA_ERROR_INVALID_PTX},
        {"", CUDA_ERROR_INVALID_IMAGE},
        {"\x01\x02\x03\x04", CUDA_ERROR_INVALID_IMAGE},
        {"\x7f"
         "ELF\x02\x01\x01",
         CUDA_ERROR_INVALID_IMAGE},
        {"\x50\xed\x55\xba", CUDA_ERROR_INVALID_IMAGE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CUmodule m = NULL;
        CUlibrary l = NULL;
        assert_cu(cases[i].want, t->cuModuleLoadData(&m, cases[i].image));
        assert_cu(cases[i].want,
                  t->cuLibraryLoadData(&l, cases[i].image, NULL, NULL, 0, NULL, NULL, 0));
    }
    assert_int_equal(mock.live(CUSHIM_MOCK_MODULE) + mock.live(CUSHIM_MOCK_LIBRARY), 0);
}

static void test_jit_failure_knob(void **state) {
    (void)state;
    char log[128] = "untouched";
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {log, (void *)(uintptr_t)sizeof log};
    CUmodule m = NULL;
    mock.fail_next_jit("ptxas: line 3: the test asked for this");
    assert_cu(CUDA_ERROR_INVALID_PTX, t->cuModuleLoadDataEx(&m, ptx_two, 2, opts, vals));
    assert_string_equal(log, "ptxas: line 3: the test asked for this");
    /* It fired once. */
    assert_ok(t->cuModuleLoadData(&m, ptx_two));
    assert_ok(t->cuModuleUnload(m));
    mock.fail_next_jit("armed");
    mock.fail_next_jit(NULL);
    assert_ok(t->cuModuleLoadData(&m, ptx_two));
    assert_ok(t->cuModuleUnload(m));
}

static float sum[4];

static void vadd_kernel(const cushim_mock_kernel_args *a) {
    CUdeviceptr x, y, z;
    int n;
    memcpy(&x, a->params[0], 8);
    memcpy(&y, a->params[1], 8);
    memcpy(&z, a->params[2], 8);
    memcpy(&n, a->params[3], 4);
    for (int i = 0; i < n; i++) {
        ((float *)(uintptr_t)z)[i] = ((float *)(uintptr_t)x)[i] + ((float *)(uintptr_t)y)[i];
    }
}

static void test_extra_parameters_are_split_by_the_image(void **state) {
    (void)state;
    CUmodule m;
    CUfunction f;
    assert_ok(t->cuModuleLoadData(&m, ptx_mixed));
    assert_ok(t->cuModuleGetFunction(&f, m, "vadd"));
    mock.register_kernel("vadd", vadd_kernel);
    float x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
    unsigned char buf[28];
    CUdeviceptr px = (CUdeviceptr)(uintptr_t)x, py = (CUdeviceptr)(uintptr_t)y,
                pz = (CUdeviceptr)(uintptr_t)sum;
    int n = 4;
    memcpy(buf, &px, 8);
    memcpy(buf + 8, &py, 8);
    memcpy(buf + 16, &pz, 8);
    memcpy(buf + 24, &n, 4);
    size_t size = sizeof buf;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     CU_LAUNCH_PARAM_END};
    assert_ok(t->cuLaunchKernel(f, 1, 1, 1, 4, 1, 1, 0, NULL, NULL, extra));
    memset(buf, 0, sizeof buf); /* copied at the launch */
    size_t small = 20;
    void *short_extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &small,
                           CU_LAUNCH_PARAM_END};
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              t->cuLaunchKernel(f, 1, 1, 1, 4, 1, 1, 0, NULL, NULL, short_extra));
    assert_ok(t->cuCtxSynchronize());
    for (int i = 0; i < 4; i++) assert_true(sum[i] == x[i] + y[i]);
    assert_int_equal(mock.host_kernel_runs("vadd"), 1);
    assert_ok(t->cuModuleUnload(m));
}

static void test_launch_ex_attributes_are_recorded(void **state) {
    (void)state;
    CUmodule m;
    CUfunction f;
    assert_ok(t->cuModuleLoadData(&m, ptx_two));
    assert_ok(t->cuModuleGetFunction(&f, m, "none"));
    CUlaunchAttribute attrs[2];
    memset(attrs, 0, sizeof attrs);
    attrs[0].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
    attrs[0].value.priority = -2;
    attrs[1].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attrs[1].value.cooperative = 1;
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = 32;
    cfg.blockDimY = cfg.blockDimZ = 1;
    cfg.attrs = attrs;
    cfg.numAttrs = 2;
    assert_ok(t->cuLaunchKernelEx(&cfg, f, NULL, NULL));
    const cushim_mock_launch *l = mock.launch(0);
    assert_int_equal(l->attr_count, 2);
    assert_int_equal(l->attrs[0].id, CU_LAUNCH_ATTRIBUTE_PRIORITY);
    assert_int_equal(l->attrs[0].value.priority, -2);
    assert_true(l->cooperative);
    assert_int_equal(l->param_count, 0);
    assert_ok(t->cuModuleUnload(m));
}

int main(void) {
#define T(fn) cmocka_unit_test_setup_teardown(fn, exec_setup, exec_teardown)
    const struct CMUnitTest tests[] = {
        T(test_ptx_entries_and_parameter_sizes),         T(test_ptx_variables),
        T(test_what_is_not_an_image_is_refused),         T(test_jit_failure_knob),
        T(test_extra_parameters_are_split_by_the_image), T(test_launch_ex_attributes_are_recorded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
