/* What the driver answers to the PTX the mock refuses at load or launch (issue 27): an entry's
 * parameter space, static shared data and constant data over ptxas's limits (the mock answers
 * CUDA_ERROR_INVALID_PTX with ptxas's sentence in the JIT log), sizes of 2^64 bytes (ptxas wraps
 * them; the mock refuses them) and a kernel with 600,000 bytes of .local (the mock refuses the
 * launch with CUDA_ERROR_INVALID_VALUE, as the H200 does). The driver's code and log are printed
 * for each, so that the mock can follow; a load of what ptxas refuses must fail. Skips (77) without
 * a GPU. */
#include "gpu_util.h"

#define HEAD81 ".version 8.1\n.target sm_90\n.address_size 64\n"

/* Loads text with an error log; prints what the driver said; unloads what loaded. */
static CUresult load(const char *what, const char *text, CUmodule *keep) {
    char log[1024] = "";
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {log, (void *)(uintptr_t)sizeof log};
    CUmodule m = NULL;
    CUresult r = cushim_driver()->cuModuleLoadDataEx(&m, text, 2, opts, vals);
    printf("# %-34s %s; log: %s\n", what, cushim_error_name(r), log[0] ? log : "(empty)");
    if (r == CUDA_SUCCESS && keep != NULL) {
        *keep = m;
    } else if (r == CUDA_SUCCESS) {
        cushim_driver()->cuModuleUnload(m);
    }
    return r;
}

static void test_what_ptxas_refuses_fails_the_load(void **state) {
    (void)state;
    assert_int_not_equal(
        load("256 MiB .param",
             HEAD81 ".visible .entry k(.param .align 1 .b8 p[268435456])\n{\nret;\n}\n", NULL),
        CUDA_SUCCESS);
    /* The driver loads it (the mock does too): ptxas's 0xc000 is not the JIT's limit here. */
    assert_int_equal(load("0xc004 bytes of static .shared",
                          HEAD81
                          ".shared .align 4 .b8 s[49156];\n"
                          /* used, so that ptxas cannot drop it (unused, the driver loads it) */
                          ".visible .entry k(.param .u64 o)\n{\n.reg .b32 %r1; .reg .b64 %rd1;\n"
                          "mov.u32 %r1, 1; st.shared.u32 [s+49152], %r1;\n"
                          "ld.shared.u32 %r1, [s+49152]; ld.param.u64 %rd1, [o];\n"
                          "st.global.u32 [%rd1], %r1;\nret;\n}\n",
                          NULL),
                     CUDA_SUCCESS);
    assert_int_not_equal(load("0x11170 bytes of .const",
                              HEAD81
                              ".const .align 4 .b8 c[70000];\n.visible .entry k(.param .u64 o)\n{\n"
                              ".reg .b32 %r1; .reg .b64 %rd1; ld.const.u32 %r1, [c+69996];\n"
                              "ld.param.u64 %rd1, [o]; st.global.u32 [%rd1], %r1;\nret;\n}\n",
                              NULL),
                         CUDA_SUCCESS);
}

/* Reported only: where the mock's answer is its own choice. */
static void test_what_the_mock_refuses_by_its_own_rule(void **state) {
    (void)state;
    load("a .global of 2^64 bytes",
         HEAD81 ".global .align 1 .b8 g[4294967296][4294967296];\n"
                ".visible .entry k(.param .u64 o)\n{\n.reg .b64 %rd<3>; mov.u64 %rd1, g;\n"
                "ld.param.u64 %rd2, [o]; st.global.u64 [%rd2], %rd1;\nret;\n}\n",
         NULL);
    CUmodule m = NULL;
    CUresult r = load("600,000 bytes of .local",
                      HEAD81 ".visible .entry k(.param .u64 out)\n{\n"
                             ".local .align 4 .b8 buf[600000];\n"
                             ".reg .b64 %rd<3>; .reg .b32 %r1;\nmov.u64 %rd1, buf;\n"
                             "ld.param.u64 %rd2, [out]; mov.u32 %r1, 1;\n"
                             "st.local.u32 [%rd1+599996], %r1; ld.local.u32 %r1, [%rd1+599996];\n"
                             "st.global.u32 [%rd2], %r1;\nret;\n}\n",
                      &m);
    if (r != CUDA_SUCCESS) return;
    CUfunction f;
    CUdeviceptr d;
    assert_ok(cushim_driver()->cuModuleGetFunction(&f, m, "k"));
    assert_ok(cushim_driver()->cuMemAlloc(&d, 4));
    void *params[] = {&d};
    r = cushim_driver()->cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL);
    CUresult s = r == CUDA_SUCCESS ? cushim_driver()->cuCtxSynchronize() : r;
    printf("# %-34s launch %s, synchronize %s (the mock: CUDA_ERROR_INVALID_VALUE)\n",
           "600,000 bytes of .local", cushim_error_name(r), cushim_error_name(s));
    /* What the mock answers, because the H200 answered it (driver 580). */
    assert_int_equal(r, CUDA_ERROR_INVALID_VALUE);
    cushim_driver()->cuMemFree(d);
    cushim_driver()->cuModuleUnload(m);
}

int main(void) {
    gpu_require();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_what_ptxas_refuses_fails_the_load, gpu_ctx_setup,
                                        gpu_ctx_teardown),
        cmocka_unit_test_setup_teardown(test_what_the_mock_refuses_by_its_own_rule, gpu_ctx_setup,
                                        gpu_ctx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
