/* Through the drop-in cuda.h, as with libcuda: a call before cuInit answers
 * CUDA_ERROR_NOT_INITIALIZED (a test run through cushim must not hide a missing cuInit), while
 * cuDriverGetVersion, cuGetErrorName and cuGetErrorString work; cuInit then opens every entry.
 * With the argument "cushim", cushim_init() comes first instead: it initialises the driver for
 * the process, as any cuInit(0) in a process does, so the drop-in works without its own cuInit.
 * Prints TAP. */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

#include "cushim.h"

static int failures, n;

static void check(int ok, const char *what) {
    printf("%s %d - %s\n", ok ? "ok" : "not ok", ++n, what);
    if (!ok) printf("# last error: %s\n", cushim_last_error());
    failures += !ok;
}

int main(int argc, char **argv) {
    int count = -1, version = 0;
    const char *name = NULL;
    if (argc > 1 && strcmp(argv[1], "cushim") == 0) {
        check(cushim_init() == CUDA_SUCCESS, "cushim_init succeeds");
        check(cuDeviceGetCount(&count) == CUDA_SUCCESS && count > 0,
              "after cushim_init, the drop-in needs no cuInit of its own");
    } else {
        check(cuDeviceGetCount(&count) == CUDA_ERROR_NOT_INITIALIZED && count == -1,
              "cuDeviceGetCount before cuInit: CUDA_ERROR_NOT_INITIALIZED");
        check(strstr(cushim_last_error(), "cuDeviceGetCount") != NULL &&
                  strstr(cushim_last_error(), "cuInit") != NULL,
              "the last error names the call and cuInit");
        CUdeviceptr p = 0;
        check(cuMemAlloc(&p, 64) == CUDA_ERROR_NOT_INITIALIZED, "cuMemAlloc before cuInit");
        check(cuDriverGetVersion(&version) == CUDA_SUCCESS && version > 0,
              "cuDriverGetVersion before cuInit");
        check(cuGetErrorName(CUDA_ERROR_NOT_INITIALIZED, &name) == CUDA_SUCCESS && name &&
                  strcmp(name, "CUDA_ERROR_NOT_INITIALIZED") == 0,
              "cuGetErrorName before cuInit");
        check(cuInit(0) == CUDA_SUCCESS, "cuInit");
        check(cuDeviceGetCount(&count) == CUDA_SUCCESS && count > 0, "cuDeviceGetCount after");
    }
    /* cushim's own functions initialise implicitly, as before. */
    cushim_context *ctx = NULL;
    check(cushim_context_primary(&ctx, 0) == CUDA_SUCCESS, "cushim_context_primary");
    cushim_context_release(ctx);
    printf("1..%d\n", n);
    return failures ? 1 : 0;
}
