/* Programs and linkers on the mock, with the real NVRTC and nvJitLink of this machine: compile
 * CUDA C++ to PTX, cubin and LTO IR, the log of a syntax error, load the result as a module, link,
 * and launch: the mock interprets the PTX that NVRTC wrote, so the kernel really runs. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static const char source[] = "extern \"C\" __global__ void scale(float *x, float a, unsigned n) {\n"
                             "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                             "    if (i < n) x[i] *= a;\n"
                             "}\n";

static cushim_program *compiled(const char *arch, const char *extra) {
    cushim_program *p = NULL;
    assert_ok(cushim_program_create(&p, source, "scale.cu", 0, NULL, NULL));
    const char *opts[] = {arch, extra};
    assert_ok(cushim_program_compile(p, extra ? 2 : 1, opts));
    return p;
}

static void test_info(void **state) {
    (void)state;
    const cushim_lib_info *i = cushim_lib_state(CUSHIM_LIB_NVRTC);
    assert_int_equal(i->status, CUSHIM_LIB_LOADED);
    assert_int_equal(i->version_major, i->header_major);
    assert_non_null(strstr(i->path, "libnvrtc"));
    assert_true(i->entries_resolved > 10 && i->entries_resolved <= i->entries_total);
    i = cushim_lib_state(CUSHIM_LIB_NVJITLINK);
    assert_int_equal(i->status, CUSHIM_LIB_LOADED);
    assert_string_equal(i->env, "CUSHIM_NVJITLINK");
    i = cushim_lib_state((cushim_lib)77);
    assert_int_equal(i->result, CUDA_ERROR_INVALID_VALUE);
    assert_non_null(strstr(cushim_last_error(), "not a library"));
}

static void test_compile_ptx(void **state) {
    (void)state;
    cushim_program *p = compiled("-arch=compute_90", NULL);
    const void *data;
    size_t size;
    assert_ok(cushim_program_code(p, CUSHIM_CODE_PTX, &data, &size));
    assert_true(size > 100);
    assert_non_null(strstr(data, ".entry scale"));
    assert_int_equal(((const char *)data)[size - 1], '\0');
    assert_cu(CUDA_ERROR_NOT_FOUND, cushim_program_code(p, CUSHIM_CODE_CUBIN, &data, &size));
    assert_null(data);
    assert_non_null(strstr(cushim_last_error(), "-arch=sm_90"));
    assert_string_equal(cushim_program_log(p), "");
    assert_cu(CUDA_ERROR_ILLEGAL_STATE, cushim_program_compile(p, 0, NULL));
    cushim_program_release(p);
}

static void test_compile_cubin_and_ltoir(void **state) {
    (void)state;
    cushim_program *p = compiled("-arch=sm_90", NULL);
    const void *data;
    size_t size;
    assert_ok(cushim_program_code(p, CUSHIM_CODE_CUBIN, &data, &size));
    assert_memory_equal(data, "\177ELF", 4);
    cushim_program_release(p);
    p = compiled("-arch=sm_90", "-dlto");
    assert_ok(cushim_program_code(p, CUSHIM_CODE_LTOIR, &data, &size));
    assert_true(size > 0);
    assert_cu(CUDA_ERROR_NOT_FOUND, cushim_program_code(p, CUSHIM_CODE_PTX, &data, &size));
    cushim_program_release(p);
}

static void test_syntax_error_log(void **state) {
    (void)state;
    cushim_program *p = NULL;
    assert_ok(cushim_program_create(&p, "__global__ void k( { }\n", "broken.cu", 0, NULL, NULL));
    assert_cu(CUDA_ERROR_INVALID_SOURCE, cushim_program_compile(p, 0, NULL));
    assert_non_null(strstr(cushim_last_error(), "NVRTC_ERROR_COMPILATION"));
    assert_non_null(strstr(cushim_last_error(), "broken.cu"));
    assert_non_null(strstr(cushim_program_log(p), "error"));
    const void *data;
    size_t size;
    assert_cu(CUDA_ERROR_ILLEGAL_STATE, cushim_program_code(p, CUSHIM_CODE_PTX, &data, &size));
    cushim_program_release(p);

    assert_ok(cushim_program_create(&p, source, NULL, 0, NULL, NULL));
    const char *bad[] = {"--no-such-option"};
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_program_compile(p, 1, bad));
    assert_non_null(strstr(cushim_last_error(), "NVRTC_ERROR_INVALID_OPTION"));
    cushim_program_release(p);
}

static void test_headers(void **state) {
    (void)state;
    const char *headers[] = {"#define FACTOR 3.0f\n"};
    const char *names[] = {"factor.h"};
    cushim_program *p = NULL;
    assert_ok(cushim_program_create(&p,
                                    "#include \"factor.h\"\n"
                                    "extern \"C\" __global__ void k(float *x) { *x *= FACTOR; }\n",
                                    "with_header.cu", 1, headers, names));
    const char *opts[] = {"-arch=compute_90"};
    assert_ok(cushim_program_compile(p, 1, opts));
    cushim_program_release(p);
    assert_cu(CUDA_ERROR_INVALID_VALUE, cushim_program_create(&p, source, NULL, 1, NULL, NULL));
    assert_null(p);
}

static void test_load_picks_code(void **state) {
    (void)state;
    cushim_context *ctx;
    assert_ok(cushim_context_create(&ctx, 0, 0));
    cushim_module *m = NULL;
    cushim_function *f = NULL;
    /* The mock is compute capability 9.0: a cubin for 8.0 does not run there, its PTX does. */
    const char *archs[] = {"-arch=compute_90", "-arch=sm_90", "-arch=sm_80"};
    for (int i = 0; i < 3; i++) {
        cushim_program *p = compiled(archs[i], NULL);
        assert_ok(cushim_program_load(&m, p, ctx));
        assert_ok(cushim_module_function(&f, m, "scale"));
        cushim_module_release(m);
        cushim_program_release(p);
    }
    cushim_program *p = compiled("-arch=sm_90", "-dlto");
    assert_cu(CUDA_ERROR_NO_BINARY_FOR_GPU, cushim_program_load(&m, p, ctx));
    assert_null(m);
    assert_non_null(strstr(cushim_last_error(), "cushim_linker"));
    cushim_program_release(p);
    assert_ok(cushim_program_create(&p, source, NULL, 0, NULL, NULL));
    assert_cu(CUDA_ERROR_ILLEGAL_STATE, cushim_program_load(&m, p, ctx));
    cushim_program_release(p);
    cushim_context_release(ctx);
}

static void test_link_ltoir(void **state) {
    (void)state;
    cushim_context *ctx;
    assert_ok(cushim_context_create(&ctx, 0, 0));
    cushim_program *p = compiled("-arch=sm_90", "-dlto");
    const void *ir;
    size_t size;
    assert_ok(cushim_program_code(p, CUSHIM_CODE_LTOIR, &ir, &size));
    cushim_linker *l = NULL;
    const char *opts[] = {"-lto"};
    assert_ok(cushim_linker_create(&l, ctx, 1, opts));
    assert_ok(cushim_linker_add(l, CUSHIM_CODE_LTOIR, ir, size, "scale.ltoir"));
    cushim_module *m = NULL;
    assert_ok(cushim_linker_complete(&m, l));
    cushim_function *f;
    assert_ok(cushim_module_function(&f, m, "scale"));
    assert_cu(CUDA_ERROR_ILLEGAL_STATE, cushim_linker_add(l, CUSHIM_CODE_LTOIR, ir, size, NULL));
    cushim_module_release(m);
    cushim_linker_release(l);

    /* PTX that refers to a function nobody defines: the link fails with nvJitLink's log. */
    static const char undefined[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                                    ".extern .func helper();\n"
                                    ".visible .entry k() { call helper; ret; }\n";
    assert_ok(cushim_linker_create(&l, ctx, 0, NULL));
    assert_ok(cushim_linker_add(l, CUSHIM_CODE_PTX, undefined, sizeof undefined, "undefined.ptx"));
    assert_cu(CUDA_ERROR_INVALID_IMAGE, cushim_linker_complete(&m, l));
    assert_null(m);
    assert_non_null(strstr(cushim_last_error(), "nvJitLinkComplete"));
    assert_non_null(strstr(cushim_linker_log(l), "helper"));
    cushim_linker_release(l);
    cushim_program_release(p);
    cushim_context_release(ctx);
}

/* The kernel runs where the mock executes PTX; a mock that only records launches leaves the
 * memory as it was, which is said; any other result than the right one fails. With
 * -arch=sm_90 the program's cubin is loaded (also as raw bytes, as NVIDIA's nvrtc_helper.h
 * loads it), and the mock runs it from the PTX that the compile attached to it (issue 28). */
static void launch_scale(const char *arch, bool raw_cubin) {
    cushim_context *ctx;
    assert_ok(cushim_context_create(&ctx, 0, 0));
    make_current(ctx);
    cushim_program *p = compiled(arch, NULL);
    cushim_module *m;
    cushim_function *f;
    if (raw_cubin) {
        const void *cubin;
        size_t size;
        assert_ok(cushim_program_code(p, CUSHIM_CODE_CUBIN, &cubin, &size));
        assert_ok(cushim_module_load_data(&m, ctx, cubin));
    } else {
        assert_ok(cushim_program_load(&m, p, ctx));
    }
    assert_ok(cushim_module_function(&f, m, "scale"));
    enum { N = 256 };
    float host[N];
    for (int i = 0; i < N; i++) host[i] = (float)i;
    const cushim_driver_table *cu = cushim_driver();
    CUdeviceptr x;
    assert_ok(cu->cuMemAlloc(&x, sizeof host));
    assert_ok(cu->cuMemcpyHtoD(x, host, sizeof host));
    float a = 2.0f;
    unsigned n = N;
    void *params[] = {&x, &a, &n};
    cushim_launch_config cfg = {.grid = CUSHIM_DIM3(N / 64), .block = CUSHIM_DIM3(64)};
    int launches = mock.launch_count();
    assert_ok(cushim_launch(f, &cfg, params));
    assert_ok(cushim_context_synchronize(ctx));
    assert_int_equal(mock.launch_count(), launches + 1);
    assert_ok(cu->cuMemcpyDtoH(host, x, sizeof host));
    assert_ok(cu->cuMemFree(x));
    cushim_module_release(m);
    cushim_program_release(p);
    cu->cuCtxSetCurrent(NULL);
    cushim_context_release(ctx);
    /* The mock interprets the PTX that NVRTC wrote: the kernel really ran. */
    for (int i = 0; i < N; i++) assert_true(host[i] == 2.0f * (float)i);
}

static void test_launch(void **state) {
    (void)state;
    launch_scale("-arch=compute_90", false);
    launch_scale("-arch=sm_90", false);
    launch_scale("-arch=sm_90", true);
}

/* A cubin the driver refuses as not for its device is retried as the program's PTX. */
static void test_load_falls_back_to_ptx(void **state) {
    (void)state;
    cushim_context *ctx;
    assert_ok(cushim_context_create(&ctx, 0, 0));
    cushim_program *p = compiled("-arch=sm_90", NULL);
    mock.fail_call("cuModuleLoadDataEx", 1, CUDA_ERROR_NO_BINARY_FOR_GPU);
    int loads = mock.calls("cuModuleLoadDataEx");
    cushim_module *m = NULL;
    cushim_function *f;
    assert_ok(cushim_program_load(&m, p, ctx));
    assert_int_equal(mock.calls("cuModuleLoadDataEx"), loads + 2);
    assert_ok(cushim_module_function(&f, m, "scale"));
    cushim_module_release(m);
    /* Another failure is the load's. */
    mock.fail_call("cuModuleLoadDataEx", 1, CUDA_ERROR_OUT_OF_MEMORY);
    assert_cu(CUDA_ERROR_OUT_OF_MEMORY, cushim_program_load(&m, p, ctx));
    cushim_program_release(p);
    cushim_context_release(ctx);
}

/* A child forked after NVRTC was loaded answers as it does for the driver: the library's state
 * is the parent's, so every call says so (CUDA_ERROR_NOT_INITIALIZED and why). */
static void test_forked_child(void **state) {
    (void)state;
    cushim_program *p = compiled("-arch=compute_90", NULL);
    cushim_program_release(p);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        cushim_program *q = NULL;
        CUresult r = cushim_program_create(&q, source, NULL, 0, NULL, NULL);
        bool ok = r == CUDA_ERROR_NOT_INITIALIZED && q == NULL &&
                  strstr(cushim_last_error(), "fork") != NULL &&
                  cushim_lib_state(CUSHIM_LIB_NVRTC)->status != CUSHIM_LIB_LOADED;
        if (!ok) fprintf(stderr, "# child: %s: %s\n", cushim_error_name(r), cushim_last_error());
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_info, mock_setup, mock_teardown),
        cmocka_unit_test_setup_teardown(test_compile_ptx, mock_setup, mock_teardown),
        cmocka_unit_test_setup_teardown(test_compile_cubin_and_ltoir, mock_setup, mock_teardown),
        cmocka_unit_test_setup_teardown(test_syntax_error_log, mock_setup, mock_teardown),
        cmocka_unit_test_setup_teardown(test_headers, mock_setup, mock_teardown),
        cmocka_unit_test_setup_teardown(test_load_picks_code, mock_setup, mock_teardown),
        cmocka_unit_test_setup_teardown(test_link_ltoir, mock_setup, mock_teardown),
        cmocka_unit_test_setup_teardown(test_launch, mock_setup, mock_teardown),
        cmocka_unit_test_setup_teardown(test_load_falls_back_to_ptx, mock_setup, mock_teardown),
        cmocka_unit_test_setup_teardown(test_forked_child, mock_setup, mock_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
