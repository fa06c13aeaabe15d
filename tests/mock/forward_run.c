/* What the forward_* programs share (forward_nvrtc.c, forward_jitlink.c): where a symbol the
 * program calls comes from, and a cubin loaded with cuModuleLoadData and run on 32 floats. */
#define _GNU_SOURCE /* dladdr */
#include "forward_run.h"

#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int forward_from(const char *symbol, const char *folder) {
    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, symbol);
    const char *file =
        sym != NULL && dladdr(sym, &info) != 0 && info.dli_fname ? info.dli_fname : "?";
    if (strncmp(file, folder, strlen(folder)) == 0) return 0;
    fprintf(stderr, "%s comes from %s, not from %s\n", symbol, file, folder);
    return 1;
}

int forward_run(const void *cubin, size_t size, const char *kernel, int sass,
                float (*want)(float)) {
    if (size < 4 || memcmp(cubin, "\177ELF", 4) != 0) {
        fprintf(stderr, "the cubin is not an ELF file\n");
        return 1;
    }
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod = NULL;
    CUfunction f;
    CUdeviceptr d;
    float host[32];
    for (int i = 0; i < 32; i++) host[i] = (float)i;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
        cuCtxSetCurrent(ctx) || cuMemAlloc(&d, sizeof host) || cuMemcpyHtoD(d, host, sizeof host)) {
        fprintf(stderr, "a driver call failed before the module\n");
        return 1;
    }
    void *params[] = {&d};
    CUresult r = cuModuleLoadData(&mod, cubin);
    if (r == CUDA_SUCCESS) r = cuModuleGetFunction(&f, mod, kernel);
    if (r == CUDA_SUCCESS) r = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL);
    if (r == CUDA_SUCCESS) r = cuMemcpyDtoH(host, d, sizeof host);
    int failed = 0;
    if (sass && r != CUDA_ERROR_NO_BINARY_FOR_GPU) {
        fprintf(stderr, "the SASS-only cubin gave %d, not CUDA_ERROR_NO_BINARY_FOR_GPU\n", (int)r);
        failed = 1;
    } else if (!sass && r != CUDA_SUCCESS) {
        fprintf(stderr, "the cubin did not run: %d\n", (int)r);
        failed = 1;
    }
    for (int i = 0; i < 32 && !sass && !failed; i++) {
        if (host[i] != want((float)i)) {
            fprintf(stderr, "element %d is %g, not %g\n", i, (double)host[i],
                    (double)want((float)i));
            failed = 1;
        }
    }
    if (mod != NULL) cuModuleUnload(mod);
    cuMemFree(d);
    cuDevicePrimaryCtxRelease(dev);
    return failed;
}
