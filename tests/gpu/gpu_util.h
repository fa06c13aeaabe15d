/* Shared by the GPU tests: skip (exit 77) where there is no driver or device, load PTX from
 * the source tree, launch through the raw table. */
#ifndef CUSHIM_GPU_UTIL_H
#define CUSHIM_GPU_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cushim.h"
#include "assert_cu.h"

#ifndef PTX_DIR
#error "PTX_DIR must name the directory of the PTX kernels"
#endif

#define GPU_SKIP 77

/* Exits 77 with the reason when this machine cannot run GPU tests. */
static inline void gpu_require(void) {
    CUresult r = cushim_init();
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "skip: no usable CUDA driver: %s\n", cushim_last_error());
        exit(GPU_SKIP);
    }
    int n = 0;
    if (cushim_driver()->cuDeviceGetCount(&n) != CUDA_SUCCESS || n == 0) {
        fprintf(stderr, "skip: the driver sees no device\n");
        exit(GPU_SKIP);
    }
}

/* The whole text of ptx/NAME, NUL-terminated; the caller frees it. */
static inline char *read_ptx(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", PTX_DIR, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    if (text) text[n] = '\0';
    fclose(f);
    return text;
}

/* Waits, in the current context, for what the legacy stream still has to write. cuMemsetD* on
 * device memory, and cuMemcpyHtoD from pageable memory (which returns once the data is staged),
 * may return before the memory is written, and a CU_STREAM_NON_BLOCKING stream does not wait
 * for the legacy stream: memory set up that way is settled before such a stream's work reads it.
 * (Without it, gpu_graphs' host function once saw a kernel's input before its memset, and
 * gpu_launch_cooperative's grid barrier its counter zeroed under it, with other GPU tests
 * running beside them.) */
static inline void gpu_settle(void) { assert_ok(cushim_driver()->cuCtxSynchronize()); }

/* Loads ptx/NAME into the current context through the raw table and returns `entry`. */
static inline CUfunction raw_kernel(CUmodule *m, const char *file, const char *entry) {
    char *ptx = read_ptx(file);
    assert_non_null(ptx);
    assert_ok(cushim_driver()->cuModuleLoadData(m, ptx));
    free(ptx);
    CUfunction f = NULL;
    assert_ok(cushim_driver()->cuModuleGetFunction(&f, *m, entry));
    return f;
}

/* A created context of device 0, current on the test's thread while the test runs: cmocka's
 * setup and teardown. */
static cushim_context *gpu_ctx;

static inline int gpu_ctx_setup(void **state) {
    (void)state;
    if (cushim_context_create(&gpu_ctx, 0, 0) != CUDA_SUCCESS) return -1;
    return cushim_driver()->cuCtxSetCurrent(cushim_context_raw(gpu_ctx)) == CUDA_SUCCESS ? 0 : -1;
}

static inline int gpu_ctx_teardown(void **state) {
    (void)state;
    cushim_driver()->cuCtxSetCurrent(NULL);
    cushim_context_release(gpu_ctx);
    return 0;
}

#endif
