/* A consumer's run-time compiled kernel, unchanged: it includes <nvrtc.h>, <nvJitLink.h> and
 * <cuda.h> and calls them by their own names. Built with the cushim-cuda dependency in place of
 * -lnvrtc -lnvJitLink -lcuda, it has no link to any of them, so it starts on any machine.
 *
 * It compiles a kernel for the device with NVRTC, links it once more through nvJitLink (LTO),
 * launches both, and checks every result. Exit 0 when all of it ran; 1, after one line saying
 * which call failed and why, otherwise (no driver, no NVRTC, no device). Built as C and as C++. */
#include <cuda.h>
#include <nvJitLink.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(CUSHIM_CUDA_DROPIN) || !defined(CUSHIM_NVRTC_DROPIN) ||                               \
    !defined(CUSHIM_NVJITLINK_DROPIN)
#error "built against the toolkit's headers, not cushim's drop-ins"
#endif

static const char source[] = "extern \"C\" __global__ void scale(float *x, float a, unsigned n) {\n"
                             "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                             "    if (i < n) x[i] *= a;\n"
                             "}\n";

enum { N = 1024 };

static int fail_cu(const char *what, CUresult r) {
    const char *name = NULL;
    cuGetErrorName(r, &name);
    fprintf(stderr, "nvrtc-consumer: %s failed: %s\n", what, name ? name : "unknown");
    return 1;
}

static int fail_nvrtc(const char *what, nvrtcResult r) {
    fprintf(stderr, "nvrtc-consumer: %s failed: %s\n", what, nvrtcGetErrorString(r));
    return 1;
}

/* Compiles the kernel with one more option; the code of the kind asked for (malloc'd). */
static int compile(const char *arch, const char *extra, int ltoir, char **code, size_t *size) {
    nvrtcProgram prog;
    nvrtcResult r = nvrtcCreateProgram(&prog, source, "scale.cu", 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) return fail_nvrtc("nvrtcCreateProgram", r);
    const char *opts[2] = {arch, extra};
    r = nvrtcCompileProgram(prog, extra ? 2 : 1, opts);
    if (r == NVRTC_SUCCESS) r = ltoir ? nvrtcGetLTOIRSize(prog, size) : nvrtcGetPTXSize(prog, size);
    *code = (char *)malloc(*size ? *size : 1);
    if (r == NVRTC_SUCCESS && *code)
        r = ltoir ? nvrtcGetLTOIR(prog, *code) : nvrtcGetPTX(prog, *code);
    nvrtcDestroyProgram(&prog);
    if (r != NVRTC_SUCCESS) {
        free(*code);
        return fail_nvrtc("nvrtcCompileProgram", r);
    }
    return 0;
}

/* The linked cubin of LTO IR, through nvJitLink (malloc'd). */
static int link_ltoir(const char *arch, const char *ir, size_t size, char **cubin) {
    nvJitLinkHandle h;
    const char *opts[] = {"-lto", arch};
    nvJitLinkResult r = nvJitLinkCreate(&h, 2, opts);
    if (r != NVJITLINK_SUCCESS) {
        fprintf(stderr, "nvrtc-consumer: nvJitLinkCreate failed: %d\n", (int)r);
        return 1;
    }
    size_t n = 0;
    r = nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, ir, size, "scale");
    if (r == NVJITLINK_SUCCESS) r = nvJitLinkComplete(h);
    if (r == NVJITLINK_SUCCESS) r = nvJitLinkGetLinkedCubinSize(h, &n);
    *cubin = (char *)malloc(n ? n : 1);
    if (r == NVJITLINK_SUCCESS && *cubin) r = nvJitLinkGetLinkedCubin(h, *cubin);
    nvJitLinkDestroy(&h);
    if (r != NVJITLINK_SUCCESS) {
        free(*cubin);
        fprintf(stderr, "nvrtc-consumer: linking with nvJitLink failed: %d\n", (int)r);
        return 1;
    }
    return 0;
}

/* Loads image, runs scale by a on 1..N and checks every result. */
static int run(const void *image, float a, const char *how) {
    CUmodule mod;
    CUfunction f;
    CUresult r = cuModuleLoadData(&mod, image);
    if (r != CUDA_SUCCESS) return fail_cu("cuModuleLoadData", r);
    r = cuModuleGetFunction(&f, mod, "scale");
    if (r != CUDA_SUCCESS) return fail_cu("cuModuleGetFunction", r);
    static float host[N];
    for (int i = 0; i < N; i++) host[i] = (float)i;
    CUdeviceptr x;
    r = cuMemAlloc(&x, sizeof host);
    if (r != CUDA_SUCCESS) return fail_cu("cuMemAlloc", r);
    unsigned n = N;
    void *params[] = {&x, &a, &n};
    r = cuMemcpyHtoD(x, host, sizeof host);
    if (r == CUDA_SUCCESS) r = cuLaunchKernel(f, N / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL);
    if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
    if (r == CUDA_SUCCESS) r = cuMemcpyDtoH(host, x, sizeof host);
    cuMemFree(x);
    cuModuleUnload(mod);
    if (r != CUDA_SUCCESS) return fail_cu("the launch", r);
    for (int i = 0; i < N; i++) {
        if (host[i] != a * (float)i) {
            fprintf(stderr, "nvrtc-consumer: %s: x[%d] is %g, not %g\n", how, i, host[i],
                    a * (float)i);
            return 1;
        }
    }
    printf("nvrtc-consumer: %s: %d results checked\n", how, N);
    return 0;
}

int main(void) {
    int major = 0, minor = 0;
    nvrtcResult vr = nvrtcVersion(&major, &minor);
    if (vr != NVRTC_SUCCESS) return fail_nvrtc("nvrtcVersion", vr);
    /* PTX for a virtual arch compiles without a device: before the driver is asked anything. */
    char *ptx;
    size_t ptx_size;
    if (compile("-arch=compute_75", NULL, 0, &ptx, &ptx_size)) return 1;
    printf("nvrtc-consumer: NVRTC %d.%d compiled %zu bytes of PTX\n", major, minor, ptx_size);

    CUresult r = cuInit(0);
    if (r != CUDA_SUCCESS) return free(ptx), fail_cu("cuInit", r);
    CUdevice dev;
    CUcontext ctx;
    int cc_major = 0, cc_minor = 0;
    r = cuDeviceGet(&dev, 0);
    if (r == CUDA_SUCCESS) {
        r = cuDeviceGetAttribute(&cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    }
    if (r == CUDA_SUCCESS) {
        r = cuDeviceGetAttribute(&cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    }
    if (r == CUDA_SUCCESS) r = cuDevicePrimaryCtxRetain(&ctx, dev);
    if (r == CUDA_SUCCESS) r = cuCtxSetCurrent(ctx);
    if (r != CUDA_SUCCESS) return free(ptx), fail_cu("opening device 0", r);
    int rc = run(ptx, 2.0f, "PTX from NVRTC");
    free(ptx);

    char arch[32], *ir = NULL, *cubin = NULL;
    size_t ir_size;
    snprintf(arch, sizeof arch, "-arch=sm_%d%d", cc_major, cc_minor);
    if (rc == 0) rc = compile(arch, "-dlto", 1, &ir, &ir_size);
    if (rc == 0) rc = link_ltoir(arch, ir, ir_size, &cubin);
    if (rc == 0) rc = run(cubin, 3.0f, "LTO IR linked by nvJitLink");
    free(ir);
    free(cubin);
    cuCtxSetCurrent(NULL);
    cuDevicePrimaryCtxRelease(dev);
    return rc;
}
