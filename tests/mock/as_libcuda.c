/* The mock as libcuda.so.1 (issue 28 item 1): this program knows nothing of cushim. It is
 * linked with the toolkit's stub -lcuda and run with LD_LIBRARY_PATH at a folder whose
 * libcuda.so.1 is the mock: it initialises, counts devices, allocates, copies, launches a PTX
 * kernel and checks the result, then looks an entry up with dlopen and dlsym as a program that
 * loads the driver itself does. Exit status 0 when every step gave what the driver would. */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n\n"
                          ".visible .entry add_one(.param .u64 p, .param .u32 n)\n{\n"
                          "\t.reg .pred %p<2>;\n\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<5>;\n"
                          "\tld.param.u64 %rd1, [p];\n\tld.param.u32 %r1, [n];\n"
                          "\tmov.u32 %r2, %ctaid.x;\n\tmov.u32 %r3, %ntid.x;\n"
                          "\tmov.u32 %r4, %tid.x;\n\tmad.lo.s32 %r5, %r2, %r3, %r4;\n"
                          "\tsetp.ge.s32 %p1, %r5, %r1;\n\t@%p1 bra DONE;\n"
                          "\tcvta.to.global.u64 %rd2, %rd1;\n\tmul.wide.s32 %rd3, %r5, 4;\n"
                          "\tadd.s64 %rd4, %rd2, %rd3;\n\tld.global.u32 %r2, [%rd4];\n"
                          "\tadd.s32 %r2, %r2, 1;\n\tst.global.u32 [%rd4], %r2;\n"
                          "DONE:\n\tret;\n}\n";

static int failures;

static void check(CUresult r, const char *what) {
    if (r == CUDA_SUCCESS) return;
    const char *name = NULL;
    cuGetErrorName(r, &name);
    fprintf(stderr, "%s failed: %s (%d)\n", what, name ? name : "(null)", (int)r);
    failures++;
}

int main(void) {
    enum { N = 1000 };
    static unsigned host[N];
    int count = 0;
    CUdevice dev;
    CUcontext ctx;
    CUdeviceptr d = 0;
    CUmodule mod;
    CUfunction f;
    check(cuInit(0), "cuInit");
    check(cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (count < 1) {
        fprintf(stderr, "cuDeviceGetCount gave %d devices\n", count);
        return 1;
    }
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    for (unsigned i = 0; i < N; i++) host[i] = i;
    check(cuMemAlloc(&d, sizeof host), "cuMemAlloc");
    check(cuMemcpyHtoD(d, host, sizeof host), "cuMemcpyHtoD");
    check(cuModuleLoadData(&mod, ptx), "cuModuleLoadData");
    check(cuModuleGetFunction(&f, mod, "add_one"), "cuModuleGetFunction");
    unsigned n = N;
    void *params[] = {&d, &n};
    check(cuLaunchKernel(f, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL),
          "cuLaunchKernel");
    check(cuCtxSynchronize(), "cuCtxSynchronize");
    memset(host, 0, sizeof host);
    check(cuMemcpyDtoH(host, d, sizeof host), "cuMemcpyDtoH");
    for (unsigned i = 0; i < N; i++) {
        if (host[i] != i + 1) {
            fprintf(stderr, "element %u is %u, expected %u\n", i, host[i], i + 1);
            failures++;
            break;
        }
    }
    /* an entry the mock does not implement answers as its stub does */
    const char *name = NULL;
    check(cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &name), "cuGetErrorName");
    if (name == NULL || strcmp(name, "CUDA_ERROR_ILLEGAL_ADDRESS") != 0) failures++;
    check(cuMemFree(d), "cuMemFree");
    check(cuModuleUnload(mod), "cuModuleUnload");
    check(cuDevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease");

    /* by name, as a program that dlopens the driver */
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "dlopen(libcuda.so.1): %s\n", dlerror());
        return 1;
    }
    CUresult (*get_count)(int *) = NULL;
    void *sym = dlsym(h, "cuDeviceGetCount");
    memcpy(&get_count, &sym, sizeof sym);
    int again = 0;
    if (get_count == NULL || get_count(&again) != CUDA_SUCCESS || again != count) {
        fprintf(stderr, "cuDeviceGetCount by dlsym failed\n");
        failures++;
    }
    if (dlsym(h, "cuLaunchKernel_ptsz") == NULL || dlsym(h, "cuMemcpyHtoD_v2") == NULL) {
        fprintf(stderr, "a plain name is missing\n");
        failures++;
    }
    dlclose(h);
    if (failures == 0) printf("the mock ran a -lcuda program: %d devices, %d elements\n", count, N);
    return failures == 0 ? 0 : 1;
}
