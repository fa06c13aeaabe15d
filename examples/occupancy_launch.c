/* occupancy_launch.c: lets the occupancy calculator pick the block size for saxpy
 * (y = a*x + y), launches with it over a grid that covers every element, and prints the
 * configuration and how many of its blocks fit on one multiprocessor at once. Exits 0 when
 * the results are right, 77 (skip) where there is no GPU, and 1 on any error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cushim.h>

/* Stops at the first failed call, saying which and why. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            const char *why_ = cushim_last_error();                                                \
            fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call,                      \
                    cushim_error_name(r_), why_[0] ? why_ : cushim_error_string(r_));              \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
/* Raw table calls are the driver's own and leave cushim_last_error() as it was, so their
 * failure is described by the code's own sentence. */
#define CHECK_RAW(call)                                                                            \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call,                      \
                    cushim_error_name(r_), cushim_error_string(r_));                               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#ifndef PTX_DIR
#define PTX_DIR "ptx" /* the build passes the source tree's ptx/ folder */
#endif

/* Loads FILE from the folder CUSHIM_PTX_DIR names, or from PTX_DIR when it is unset. */
static CUresult load_ptx(cushim_module **mod, cushim_context *ctx, const char *file) {
    const char *dir = getenv("CUSHIM_PTX_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir != NULL && dir[0] != '\0' ? dir : PTX_DIR, file);
    return cushim_module_load_file(mod, ctx, path);
}

/* Not a multiple of any block size, so the last block is only partly used. */
enum { N = (1 << 20) + 123 };

int main(void) {
    /* Without a driver or a device there is nothing to run: skip, with the reason. */
    if (cushim_init() != CUDA_SUCCESS) {
        fprintf(stderr, "skip: %s\n", cushim_last_error());
        return 77;
    }
    const cushim_driver_table *cu = cushim_driver();
    int devices = 0;
    CHECK_RAW(cu->cuDeviceGetCount(&devices));
    if (devices == 0) {
        fprintf(stderr, "skip: the CUDA driver sees no device\n");
        return 77;
    }
    /* Raw driver calls (memory, copies) act on the current context: make the primary one so. */
    cushim_context *ctx;
    CHECK(cushim_context_primary(&ctx, 0));
    CHECK_RAW(cu->cuCtxSetCurrent(cushim_context_raw(ctx)));
    cushim_module *mod;
    cushim_function *saxpy;
    CHECK(load_ptx(&mod, ctx, "saxpy.ptx"));
    CHECK(cushim_module_function(&saxpy, mod, "cushim_saxpy"));

    /* The block size that keeps the most threads resident per multiprocessor, given the
     * kernel's registers and no dynamic shared memory (0), with no cap of our own (0).
     * min_grid is the smallest grid that fills the whole device at that size. */
    int min_grid = 0, block = 0, per_sm = 0, sms = 0, threads_per_sm = 0;
    CHECK(cushim_occupancy_max_potential_block_size(&min_grid, &block, saxpy, 0, 0));
    CHECK(cushim_occupancy_max_active_blocks(&per_sm, saxpy, block, 0));
    CUdevice dev = cushim_context_device(ctx);
    CHECK_RAW(cu->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    CHECK_RAW(cu->cuDeviceGetAttribute(&threads_per_sm,
                                       CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, dev));
    /* One thread per element: round the grid up so that it covers all N. */
    unsigned grid = (N + (unsigned)block - 1) / (unsigned)block;
    printf("block size %d, grid %u blocks for %d elements (%d blocks fill the device)\n", block,
           grid, N, min_grid);
    printf("%d blocks per multiprocessor at once: %d of %d threads (%.0f%% occupancy), %d SMs\n",
           per_sm, per_sm * block, threads_per_sm, 100.0 * per_sm * block / threads_per_sm, sms);

    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    if (x == NULL || y == NULL) {
        fprintf(stderr, "out of host memory\n");
        return 1;
    }
    for (uint32_t i = 0; i < N; i++) {
        x[i] = (float)(i % 4096); /* small whole numbers: every result is exact */
        y[i] = 3.0f;
    }
    CUdeviceptr dx, dy;
    CHECK_RAW(cu->cuMemAlloc(&dx, N * sizeof(float)));
    CHECK_RAW(cu->cuMemAlloc(&dy, N * sizeof(float)));
    CHECK_RAW(cu->cuMemcpyHtoD(dx, x, N * sizeof(float)));
    CHECK_RAW(cu->cuMemcpyHtoD(dy, y, N * sizeof(float)));

    uint32_t n = N;
    float a = 0.5f;
    void *params[] = {&n, &a, &dx, &dy};
    /* No stream: the launch goes to the default stream of the kernel's context, the stream of
     * the copies before and after it, so the three run in order. */
    cushim_launch_config cfg =
        cushim_launch_config_make(CUSHIM_DIM3(grid), CUSHIM_DIM3((unsigned)block));
    CHECK(cushim_launch(saxpy, &cfg, params));
    CHECK(cushim_context_synchronize(ctx)); /* a kernel that faulted would say so here */
    CHECK_RAW(cu->cuMemcpyDtoH(y, dy, N * sizeof(float)));

    uint32_t wrong = 0;
    for (uint32_t i = 0; i < N; i++) {
        float want = 0.5f * x[i] + 3.0f;
        if (y[i] != want && wrong++ == 0) {
            fprintf(stderr, "y[%u] is %g, expected %g\n", i, (double)y[i], (double)want);
        }
    }
    CHECK_RAW(cu->cuMemFree(dx));
    CHECK_RAW(cu->cuMemFree(dy));
    free(x);
    free(y);
    cushim_module_release(mod);
    CHECK_RAW(cu->cuCtxSetCurrent(NULL));
    cushim_context_release(ctx);
    if (wrong != 0) {
        fprintf(stderr, "%u of %d elements are wrong\n", wrong, N);
        return 1;
    }
    return 0;
}
