/* Module variables are device memory to every copy and every kernel of the context, whichever
 * module a kernel comes from; a module's variables die with it (a copy or a kernel touching them
 * afterwards is refused, named as a dead module's); a __managed__ variable is found and used like
 * any other. */
#include "exec_util.h"

/* Module A: a variable and a managed variable, with initialisers. */
static const char ptx_vars[] =
    PTX_HEAD ".global .align 4 .u32 answer = 42;\n"
             ".global .attribute(.managed) .align 4 .u32 shared_count = 7;\n"
             ".visible .entry nothing()\n{\n\tret;\n}\n";

/* Module B: out[0] = in[0] + 1, through pointers given as parameters. */
static const char ptx_add_one[] =
    PTX_HEAD ".visible .entry add_one(.param .u64 in, .param .u64 out)\n{\n"
             ".reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
             "ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];\n"
             "cvta.to.global.u64 %rd1, %rd1; cvta.to.global.u64 %rd2, %rd2;\n"
             "ld.global.u32 %r1, [%rd1]; add.s32 %r2, %r1, 1; st.global.u32 [%rd2], %r2;\n"
             "ret;\n}\n";

/* Loads module A and module B, and a 4-byte allocation for add_one's output. */
static void load_both(CUmodule *a, CUmodule *b, CUfunction *f, CUdeviceptr *out) {
    assert_ok(t->cuModuleLoadData(a, ptx_vars));
    assert_ok(t->cuModuleLoadData(b, ptx_add_one));
    assert_ok(t->cuModuleGetFunction(f, *b, "add_one"));
    assert_ok(t->cuMemAlloc(out, 4));
}

static void test_kernel_reads_another_modules_variable(void **state) {
    (void)state;
    CUmodule a, b;
    CUfunction f;
    CUdeviceptr var, out;
    size_t size = 0;
    load_both(&a, &b, &f, &out);
    assert_ok(t->cuModuleGetGlobal(&var, &size, a, "answer"));
    assert_int_equal(size, 4);
    void *params[] = {&var, &out};
    assert_ok(t->cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    uint32_t got = 0;
    assert_ok(t->cuMemcpyDtoH(&got, out, 4));
    assert_int_equal(got, 43);
    /* And the other way: module B's kernel writes into module A's variable. */
    void *back[] = {&out, &var};
    assert_ok(t->cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, back, NULL));
    assert_ok(t->cuMemcpyDtoH(&got, var, 4));
    assert_int_equal(got, 44);
    /* A device-to-device copy between a variable and an allocation. */
    assert_ok(t->cuMemcpyDtoD(out, var, 4));
    assert_ok(t->cuMemFree(out));
    assert_ok(t->cuModuleUnload(b));
    assert_ok(t->cuModuleUnload(a));
}

static void test_dead_modules_variables_are_refused(void **state) {
    (void)state;
    CUmodule a, b;
    CUfunction f;
    CUdeviceptr var, out;
    assert_ok(t->cuModuleLoadData(&a, ptx_vars));
    assert_ok(t->cuModuleGetGlobal(&var, NULL, a, "answer"));
    assert_ok(t->cuModuleUnload(a));
    uint32_t v = 1;
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuMemcpyHtoD(var, &v, 4));
    assert_non_null(strstr(mock.memory_error(), "cuMemcpyHtoD"));
    assert_non_null(strstr(mock.memory_error(), "cuModuleUnload"));
    /* A kernel reading it faults, as on a GPU. */
    assert_ok(t->cuModuleLoadData(&b, ptx_add_one));
    assert_ok(t->cuModuleGetFunction(&f, b, "add_one"));
    assert_ok(t->cuMemAlloc(&out, 4));
    void *params[] = {&var, &out};
    CUresult r = t->cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL);
    if (r == CUDA_SUCCESS) r = t->cuCtxSynchronize();
    assert_int_equal(r, CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_non_null(strstr(mock.kernel_error(), "cuModuleUnload"));
    t->cuMemFree(out);
    t->cuModuleUnload(b);
}

static void test_managed_variable_is_found_and_used(void **state) {
    (void)state;
    CUmodule a, b;
    CUfunction f;
    CUdeviceptr mv, out;
    size_t size = 0;
    load_both(&a, &b, &f, &out);
    assert_ok(t->cuModuleGetGlobal(&mv, &size, a, "shared_count"));
    assert_int_equal(size, 4);
    assert_int_equal(*(uint32_t *)(uintptr_t)mv, 7); /* the host reads it in place */
    *(uint32_t *)(uintptr_t)mv = 9;                  /* and writes it */
    void *params[] = {&mv, &out};
    assert_ok(t->cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    uint32_t got = 0;
    assert_ok(t->cuMemcpyDtoH(&got, out, 4));
    assert_int_equal(got, 10);
    assert_ok(t->cuMemFree(out));
    assert_ok(t->cuModuleUnload(b));
    assert_ok(t->cuModuleUnload(a));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kernel_reads_another_modules_variable, exec_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_dead_modules_variables_are_refused, exec_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_managed_variable_is_found_and_used, exec_setup,
                                        exec_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
