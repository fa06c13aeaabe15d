/* saxpy through the CUDA driver API, written as any driver-API program is: it includes <cuda.h>
 * and calls the driver by its own names. Nothing here knows about cushim; built against
 * cushim's drop-in (cushim-cuda) instead of -lcuda, it runs unchanged.
 *   dropin_saxpy PTX_FILE
 * Exits 0 when every element is right, 1 on a driver error (named, with its sentence) or a
 * wrong element. */
#include <cuda.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1u << 20)

#define CHECK(call)                                                                                \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            const char *name_ = "unknown", *text_ = "unknown";                                     \
            cuGetErrorName(r_, &name_);                                                            \
            cuGetErrorString(r_, &text_);                                                          \
            fprintf(stderr, "%s failed: %s (%s)\n", #call, name_, text_);                          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PTX_FILE\n", argv[0]);
        return 2;
    }
    CHECK(cuInit(0));
    int count = 0, version = 0;
    CHECK(cuDriverGetVersion(&version));
    CHECK(cuDeviceGetCount(&count));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    char name[128];
    CHECK(cuDeviceGetName(name, sizeof name, dev));
    printf("driver %d, %d device(s), device 0: %s\n", version, count, name);

    CUcontext ctx;
    CHECK(cuCtxCreate(&ctx, NULL, 0, dev));
    CUmodule mod;
    CHECK(cuModuleLoad(&mod, argv[1]));
    CUfunction saxpy;
    CHECK(cuModuleGetFunction(&saxpy, mod, "cushim_saxpy"));
    CUstream stream;
    CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *out = malloc(N * sizeof *out);
    if (!x || !y || !out) return 1;
    for (unsigned i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = (float)(N - i);
    }
    CUdeviceptr dx, dy;
    CHECK(cuMemAlloc(&dx, N * sizeof *x));
    CHECK(cuMemAlloc(&dy, N * sizeof *y));
    CHECK(cuMemcpyHtoD(dx, x, N * sizeof *x));
    CHECK(cuMemcpyHtoDAsync(dy, y, N * sizeof *y, stream));

    unsigned n = N;
    float a = 2.0f;
    void *params[] = {&n, &a, &dx, &dy};
    CHECK(cuLaunchKernel(saxpy, N / 256, 1, 1, 256, 1, 1, 0, stream, params, NULL));
    CHECK(cuStreamSynchronize(stream));
    CHECK(cuMemcpyDtoH(out, dy, N * sizeof *out));

    unsigned wrong = 0;
    for (unsigned i = 0; i < N; i++) {
        if (out[i] != fmaf(a, x[i], y[i])) wrong++;
    }
    printf("saxpy: %u of %u elements wrong\n", wrong, N);

    CHECK(cuMemFree(dx));
    CHECK(cuMemFree(dy));
    CHECK(cuStreamDestroy(stream));
    CHECK(cuModuleUnload(mod));
    CHECK(cuCtxDestroy(ctx));
    free(x);
    free(y);
    free(out);
    return wrong == 0 ? 0 : 1;
}
