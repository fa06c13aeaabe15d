/* event_timing.c: times a kernel (saxpy, y = a*x + y, over 16 Mi floats) with two events and
 * prints the time and the effective memory bandwidth. Exits 0 when the results are right,
 * 77 (skip) where there is no GPU, and 1 on any error. */
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

enum { N = 16 << 20, BLOCK = 256 };

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

    /* Small whole numbers keep every result exact, so the check can compare with ==. */
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    if (x == NULL || y == NULL) {
        fprintf(stderr, "out of host memory\n");
        return 1;
    }
    for (uint32_t i = 0; i < N; i++) {
        x[i] = (float)(i % 1024);
        y[i] = 1.0f;
    }
    CUdeviceptr dx, dy;
    CHECK_RAW(cu->cuMemAlloc(&dx, N * sizeof(float)));
    CHECK_RAW(cu->cuMemAlloc(&dy, N * sizeof(float)));
    CHECK_RAW(cu->cuMemcpyHtoD(dx, x, N * sizeof(float)));
    CHECK_RAW(cu->cuMemcpyHtoD(dy, y, N * sizeof(float)));

    /* Everything here goes to the default stream of the context (a NULL stream), in order:
     * the copies above, the launches and the event records below. */
    cushim_event *start, *stop;
    CHECK(cushim_event_create(&start, ctx, CU_EVENT_DEFAULT)); /* DEFAULT: timing enabled */
    CHECK(cushim_event_create(&stop, ctx, CU_EVENT_DEFAULT));
    uint32_t n = N;
    float a = 2.0f;
    void *params[] = {&n, &a, &dx, &dy};
    cushim_launch_config cfg =
        cushim_launch_config_make(CUSHIM_DIM3((N + BLOCK - 1) / BLOCK), CUSHIM_DIM3(BLOCK));
    /* The first launch of a kernel may also pay for loading it (the driver loads lazily), so
     * one untimed launch comes first. Then the two events bracket the timed launch: each is
     * stamped when the GPU reaches it, so their difference is the kernel's time. */
    CHECK(cushim_launch(saxpy, &cfg, params));
    CHECK(cushim_event_record(start, NULL));
    CHECK(cushim_launch(saxpy, &cfg, params));
    CHECK(cushim_event_record(stop, NULL));
    CHECK(cushim_event_synchronize(stop)); /* the host waits until the GPU has passed stop */
    float ms = 0.0f;
    CHECK(cushim_event_elapsed_ms(&ms, start, stop));
    /* saxpy reads x and y and writes y: three arrays of traffic. Bytes / (ms * 1e6) is GB/s. */
    double bytes = 3.0 * N * sizeof(float);
    printf("saxpy over %d floats: %.3f ms, effective bandwidth %.1f GB/s\n", N, (double)ms,
           bytes / ((double)ms * 1e6));

    /* Two launches: y = 1 + 2*x, then y = (1 + 2*x) + 2*x. */
    CHECK_RAW(cu->cuMemcpyDtoH(y, dy, N * sizeof(float)));
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < N; i++) {
        float want = 1.0f + 4.0f * x[i];
        if (y[i] != want && wrong++ == 0) {
            fprintf(stderr, "y[%u] is %g, expected %g\n", i, (double)y[i], (double)want);
        }
    }
    cushim_event_release(start);
    cushim_event_release(stop);
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
