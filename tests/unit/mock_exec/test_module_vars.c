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

static void test_library_variables_and_enumerations(void **state) {
    (void)state;
    CUlibrary l;
    assert_ok(t->cuLibraryLoadData(&l, ptx_vars, NULL, NULL, 0, NULL, NULL, 0));
    CUdeviceptr v, mv;
    size_t size = 0;
    assert_ok(t->cuLibraryGetGlobal(&v, &size, l, "answer"));
    assert_int_equal(size, 4);
    assert_int_equal(*(uint32_t *)(uintptr_t)v, 42);
    assert_ok(t->cuLibraryGetManaged(&mv, NULL, l, "shared_count"));
    assert_int_equal(*(uint32_t *)(uintptr_t)mv, 7);
    uint32_t one = 1;
    assert_ok(t->cuMemcpyHtoD(v, &one, 4)); /* device memory to copies */
    assert_cu(CUDA_ERROR_NOT_FOUND, t->cuLibraryGetGlobal(&v, NULL, l, "nothing"));
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuLibraryGetGlobal(&v, NULL, l, NULL));
    unsigned count = 0;
    assert_ok(t->cuLibraryGetKernelCount(&count, l));
    assert_int_equal(count, 1);
    CUkernel k[2] = {NULL, NULL};
    assert_ok(t->cuLibraryEnumerateKernels(k, 2, l));
    assert_non_null(k[0]);
    assert_null(k[1]);
    const char *name = NULL;
    assert_ok(t->cuKernelGetName(&name, k[0]));
    assert_string_equal(name, "nothing");
    assert_ok(t->cuKernelSetCacheConfig(k[0], CU_FUNC_CACHE_PREFER_L1, 0));
    assert_cu(CUDA_ERROR_INVALID_DEVICE,
              t->cuKernelSetCacheConfig(k[0], CU_FUNC_CACHE_PREFER_L1, 4));
    size_t off = 9;
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuKernelGetParamInfo(k[0], 0, &off, NULL)); /* none */
    assert_ok(t->cuLibraryUnload(l));
    /* A dead library's variables are refused too. */
    assert_cu(CUDA_ERROR_INVALID_VALUE, t->cuMemcpyHtoD(v, &one, 4));
    assert_non_null(strstr(mock.memory_error(), "cuLibraryUnload"));
    /* A module's functions, enumerated; their parameters through the kernel form too. */
    CUmodule m;
    CUfunction f[1];
    assert_ok(t->cuModuleLoadData(&m, ptx_add_one));
    assert_ok(t->cuModuleEnumerateFunctions(f, 1, m));
    assert_ok(t->cuFuncGetName(&name, f[0]));
    assert_string_equal(name, "add_one");
    assert_ok(t->cuModuleUnload(m));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kernel_reads_another_modules_variable, exec_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_dead_modules_variables_are_refused, exec_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_managed_variable_is_found_and_used, exec_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_library_variables_and_enumerations, exec_setup,
                                        exec_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
