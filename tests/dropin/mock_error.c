/* A driver call through the drop-in that fails on the mock leaves the mock's sentence in
 * cushim_last_error(): a bad argument (the code's name and text), a failure the test armed, an
 * entry the mock does not implement, and a kernel's fault at the next synchronize (the kernel
 * named). The mock finds the loader's sink by its export cushim_mock_set_error_sink. Prints
 * TAP. */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

#include "cushim.h"
#include "cushim_mock.h"

static int failures, n;

static void check(int ok, const char *what) {
    printf("%s %d - %s\n", ok ? "ok" : "not ok", ++n, what);
    printf("# last error: %s\n", cushim_last_error());
    failures += !ok;
}

static int has(const char *word) { return strstr(cushim_last_error(), word) != NULL; }

/* Stores through its pointer parameter: given 16, it faults. */
static const char faulting_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                                   ".visible .entry cushim_store_to(.param .u64 p)\n{\n"
                                   "    .reg .b64 %rd<2>;\n    .reg .b32 %r<2>;\n"
                                   "    ld.param.u64 %rd1, [p];\n    mov.u32 %r1, 7;\n"
                                   "    st.global.u32 [%rd1], %r1;\n    ret;\n}\n";

int main(void) {
    cushim_mock_api mock;
    if (!cushim_mock_open(&mock, NULL)) return 1;
    CUdevice dev;
    CUcontext ctx;
    check(cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&dev, 0) == CUDA_SUCCESS, "cuInit, device 0");
    check(cuDeviceGet(&dev, 99) == CUDA_ERROR_INVALID_DEVICE && has("cuDeviceGet") &&
              has("CUDA_ERROR_INVALID_DEVICE") && has("mock"),
          "a bad ordinal: the entry, the code and the mock named");
    check(cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS && cuCtxSetCurrent(ctx) == 0,
          "a context");
    mock.fail_once("cuMemAlloc", CUDA_ERROR_OUT_OF_MEMORY);
    CUdeviceptr p = 0;
    check(cuMemAlloc(&p, 64) == CUDA_ERROR_OUT_OF_MEMORY && has("cuMemAlloc") &&
              has("the test armed"),
          "an armed failure says it was armed");
    check(cuGraphicsUnregisterResource(NULL) == CUDA_ERROR_NOT_SUPPORTED &&
              has("does not implement"),
          "an entry the mock lacks says so");
    CUmodule mod = NULL;
    CUfunction fn = NULL;
    check(cuModuleLoadData(&mod, faulting_ptx) == CUDA_SUCCESS &&
              cuModuleGetFunction(&fn, mod, "cushim_store_to") == CUDA_SUCCESS,
          "a kernel that stores through its parameter");
    CUdeviceptr bad = 16;
    void *params[] = {&bad};
    CUresult r = cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL);
    if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
    check(r == CUDA_ERROR_ILLEGAL_ADDRESS && has("cushim_store_to"),
          "a kernel's fault names the kernel");
    printf("1..%d\n", n);
    return failures ? 1 : 0;
}
