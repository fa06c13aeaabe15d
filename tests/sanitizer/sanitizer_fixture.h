/* The fixture of the sanitizer suite's tests (test_sanitizer.c, test_sanitizer_threads.c): a
 * context of their own made current, a module loaded from a PTX file, the checks turned off
 * again after each test. Included once per test program. */
#ifndef CUSHIM_TESTS_SANITIZER_FIXTURE_H
#define CUSHIM_TESTS_SANITIZER_FIXTURE_H

#include "testutil.h"

static cushim_context *ctx;
static const cushim_driver_table *t;
static CUmodule mod;

static int setup(void **state) {
    if (mock_setup(state) != 0) return -1;
    t = cushim_driver();
    mod = NULL;
    if (cushim_context_create(&ctx, 0, 0) != CUDA_SUCCESS) return -1;
    return t->cuCtxSetCurrent(cushim_context_raw(ctx)) == CUDA_SUCCESS ? 0 : -1;
}

static int teardown(void **state) {
    if (mod != NULL) t->cuModuleUnload(mod);
    t->cuCtxSetCurrent(NULL);
    cushim_context_release(ctx);
    mock.set_check(NULL, 0, false);
    return mock_teardown(state);
}

/* Kernel `name` of the PTX file dir/file.ptx, into `mod`. */
static CUfunction load_ptx(const char *dir, const char *file, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.ptx", dir, file);
    FILE *f = fopen(path, "rb");
    if (f == NULL) fail_msg("cannot open %s", path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    assert_ok(t->cuModuleLoadData(&mod, text));
    CUfunction fn;
    assert_ok(t->cuModuleGetFunction(&fn, mod, name));
    return fn;
}

#endif
