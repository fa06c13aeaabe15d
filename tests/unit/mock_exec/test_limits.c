/* What the driver's JIT refuses at load, the mock refuses at load (issue 27): an entry's
 * parameter space over ptxas's limit, static shared data over 48 KiB, constant data over
 * 64 KiB, a size of 2^64 bytes or more (which ptxas wraps silently); and a kernel whose threads
 * need more local memory than a GPU thread may have is refused at launch. Each is a code and a
 * sentence, where main crashed (a 256 MiB .param read past the caller's argument) or ran. */
#include "exec_util.h"

#define HEAD81 ".version 8.1\n.target sm_90\n.address_size 64\n"

static char jit_log[512];

/* Loads text with an error log: the code, with the log in jit_log. */
static CUresult load(CUmodule *m, const char *text) {
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {jit_log, (void *)(uintptr_t)sizeof jit_log};
    jit_log[0] = 0;
    return t->cuModuleLoadDataEx(m, text, 2, opts, vals);
}

static void assert_log_has(const char *part) {
    if (strstr(jit_log, part) == NULL)
        fail_msg("the JIT log '%s' does not say '%s'", jit_log, part);
}

static void test_param_space_over_the_limit_is_refused_at_load(void **state) {
    (void)state;
    static const char huge[] =
        HEAD81 ".visible .entry k(.param .align 1 .b8 p[268435456])\n{\nret;\n}\n";
    CUmodule m;
    CUresult r = load(&m, huge);
    if (r == CUDA_SUCCESS) { /* main: the launch reads 256 MiB from an 8-byte argument */
        CUfunction f;
        uint64_t small = 0;
        void *params[] = {&small};
        assert_ok(t->cuModuleGetFunction(&f, m, "k"));
        t->cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL);
        t->cuModuleUnload(m);
    }
    assert_int_equal(r, CUDA_ERROR_INVALID_PTX);
    assert_log_has(
        "Entry function 'k' uses too much parameter space (0x10000000 bytes, 0x7ffc max)");

    /* The limit is 0x1100 bytes before PTX ISA 8.1, 0x7ffc from it; at the limit, it loads. */
    static const char old[] =
        PTX_HEAD ".visible .entry k(.param .align 4 .b8 p[4356])\n{\nret;\n}\n";
    assert_int_equal(load(&m, old), CUDA_ERROR_INVALID_PTX);
    assert_log_has("(0x1104 bytes, 0x1100 max)");
    static const char at_limit[] =
        HEAD81 ".visible .entry k(.param .align 4 .b8 p[32764])\n{\nret;\n}\n";
    assert_ok(load(&m, at_limit));
    assert_ok(t->cuModuleUnload(m));
}

static void test_static_shared_and_constant_data_over_the_limits(void **state) {
    (void)state;
    CUmodule m;
    /* 0xc004 bytes load, as on the H200 (driver 580); past a block's opt-in maximum they do not. */
    static const char shared_ok[] =
        HEAD81 ".shared .align 4 .b8 s[49156];\n"
               ".visible .entry k()\n{\n.reg .b64 %rd1; mov.u64 %rd1, s;\nret;\n}\n";
    assert_ok(load(&m, shared_ok));
    assert_ok(t->cuModuleUnload(m));
    static const char shared[] =
        HEAD81 ".shared .align 4 .b8 s[232452];\n"
               ".visible .entry k()\n{\n.reg .b64 %rd1; mov.u64 %rd1, s;\nret;\n}\n";
    assert_int_equal(load(&m, shared), CUDA_ERROR_INVALID_PTX);
    assert_log_has("Entry function 'k' uses too much shared data (0x38c04 bytes, 0x38c00 max)");
    /* Two entries with 40,000 bytes each: each entry uses its own, as ptxas counts them. */
    static const char two[] =
        HEAD81 ".shared .align 4 .b8 s1[40000];\n.shared .align 4 .b8 s2[40000];\n"
               ".visible .entry k1()\n{\n.reg .b64 %rd1; mov.u64 %rd1, s1;\nret;\n}\n"
               ".visible .entry k2()\n{\n.reg .b64 %rd1; mov.u64 %rd1, s2;\nret;\n}\n";
    assert_ok(load(&m, two));
    assert_ok(t->cuModuleUnload(m));
    /* Three variables of 200,000 bytes for two entries: one of them uses too much. */
    static const char three[] =
        HEAD81 ".shared .align 4 .b8 s1[200000];\n.shared .align 4 .b8 s2[200000];\n"
               ".shared .align 4 .b8 s3[200000];\n"
               ".visible .entry k1()\n{\n.reg .b64 %rd1; mov.u64 %rd1, s1;\nret;\n}\n"
               ".visible .entry k2()\n{\n.reg .b64 %rd1; mov.u64 %rd1, s2;\nret;\n}\n";
    assert_int_equal(load(&m, three), CUDA_ERROR_INVALID_PTX);
    assert_log_has("2 entry functions share 0x927c0 bytes of static shared data");
    static const char constant[] =
        HEAD81 ".const .align 4 .b8 c[70000];\n.visible .entry k()\n{\nret;\n}\n";
    assert_int_equal(load(&m, constant), CUDA_ERROR_INVALID_PTX);
    assert_log_has("File uses too much global constant data (0x11170 bytes, 0x10000 max)");
}

/* 2^64 bytes: ptxas wraps it to 0 and main loaded it as a 1-byte variable. */
static void test_sizes_of_2_to_the_64_are_refused_at_load(void **state) {
    (void)state;
    static const char *const texts[] = {
        HEAD81 ".global .align 1 .b8 g[4294967296][4294967296];\n.visible .entry k()\n{\nret;\n}\n",
        HEAD81 ".global .align 1 .b8 g[18446744073709551616];\n.visible .entry k()\n{\nret;\n}\n",
        HEAD81 ".shared .align 1 .b8 g[4294967296][4294967296];\n.visible .entry k()\n{\nret;\n}\n",
        HEAD81 ".const .align 8 .b64 g[2305843009213693952];\n.visible .entry k()\n{\nret;\n}\n",
        HEAD81 ".visible .entry g(.param .align 1 .b8 p[4294967296][4294967296])\n{\nret;\n}\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        CUmodule m;
        CUresult r = load(&m, texts[i]);
        if (r == CUDA_SUCCESS) t->cuModuleUnload(m);
        assert_int_equal(r, CUDA_ERROR_INVALID_PTX);
        assert_log_has("'g'");
        assert_log_has("2^64 bytes or more");
    }
}

static void test_local_memory_over_512k_a_thread_is_refused_at_launch(void **state) {
    (void)state;
    static const char local[] =
        HEAD81 ".visible .entry k(.param .u64 out)\n{\n.local .align 4 .b8 buf[600000];\n"
               ".reg .b64 %rd<3>; .reg .b32 %r1;\nmov.u64 %rd1, buf; ld.param.u64 %rd2, [out];\n"
               "mov.u32 %r1, 1; st.local.u32 [%rd1+599996], %r1;\n"
               "ld.local.u32 %r1, [%rd1+599996]; st.global.u32 [%rd2], %r1;\nret;\n}\n";
    CUmodule m;
    CUfunction f;
    CUdeviceptr d;
    assert_ok(load(&m, local)); /* ptxas takes it: the limit is the launch's */
    assert_ok(t->cuModuleGetFunction(&f, m, "k"));
    assert_ok(t->cuMemAlloc(&d, 4));
    void *params[] = {&d};
    assert_int_equal(t->cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL),
                     CUDA_ERROR_INVALID_VALUE); /* as the H200 answers */
    assert_non_null(strstr(mock.kernel_error(), "kernel k needs 600000 bytes of local memory"));
    assert_ok(t->cuMemFree(d));
    assert_ok(t->cuModuleUnload(m));
}

int main(void) {
#define T(fn) cmocka_unit_test_setup_teardown(fn, exec_setup, exec_teardown)
    const struct CMUnitTest tests[] = {
        T(test_param_space_over_the_limit_is_refused_at_load),
        T(test_static_shared_and_constant_data_over_the_limits),
        T(test_sizes_of_2_to_the_64_are_refused_at_load),
        T(test_local_memory_over_512k_a_thread_is_refused_at_launch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
