/* A program as NVIDIA's NVRTC samples are built (issue 28, must-show 1): linked with -lcuda and
 * NVIDIA's -lnvrtc, not with cushim. It compiles a kernel for a real architecture
 * (--gpu-architecture=sm_90, a cubin of SASS alone, as nvrtc_helper.h asks), loads the cubin
 * with cuModuleLoadData and runs it.
 *
 *   forward_nvrtc FOLDER     run with LD_LIBRARY_PATH=FOLDER, cushim's forward/ folder (the mock
 *                            as libcuda.so.1 beside cushim's forwarding libnvrtc.so.13): the
 *                            program's nvrtc* calls must reach that libnvrtc.so.13, and the
 *                            kernel must run and give the right answer (exit 0).
 *   forward_nvrtc --sass     run with the mock as libcuda.so.1 and NVIDIA's libnvrtc.so.13:
 *                            the mock has no PTX for the cubin, so the first failing driver call
 *                            must be CUDA_ERROR_NO_BINARY_FOR_GPU (exit 0), which shows that the
 *                            route above is what makes the difference.
 * Exit 1 with a sentence on stderr otherwise. */
#define _GNU_SOURCE /* dladdr */
#include <cuda.h>
#include <dlfcn.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char source[] =
    "extern \"C\" __global__ void scale(float *p, float k) { p[threadIdx.x] *= k; }";

/* The cubin of source for sm_90 (malloc'd), or NULL with a sentence. */
static char *compile_cubin(size_t *size) {
    nvrtcProgram p;
    if (nvrtcCreateProgram(&p, source, "scale.cu", 0, NULL, NULL) != NVRTC_SUCCESS) {
        fprintf(stderr, "nvrtcCreateProgram failed\n");
        return NULL;
    }
    const char *opts[] = {"--gpu-architecture=sm_90"};
    char *cubin = NULL;
    nvrtcResult r = nvrtcCompileProgram(p, 1, opts);
    if (r == NVRTC_SUCCESS) r = nvrtcGetCUBINSize(p, size);
    if (r == NVRTC_SUCCESS && (cubin = malloc(*size)) != NULL) r = nvrtcGetCUBIN(p, cubin);
    if (r != NVRTC_SUCCESS || cubin == NULL) {
        fprintf(stderr, "NVRTC: %s\n", nvrtcGetErrorString(r));
        free(cubin);
        cubin = NULL;
    }
    nvrtcDestroyProgram(&p);
    return cubin;
}

/* Where the nvrtc* functions this program calls come from. */
static const char *nvrtc_file(void) {
    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, "nvrtcGetCUBIN");
    return sym != NULL && dladdr(sym, &info) != 0 && info.dli_fname ? info.dli_fname : "?";
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    int sass = strcmp(argv[1], "--sass") == 0;
    const char *lib = nvrtc_file();
    if (!sass && strncmp(lib, argv[1], strlen(argv[1])) != 0) {
        fprintf(stderr, "nvrtcGetCUBIN comes from %s, not from %s\n", lib, argv[1]);
        return 1;
    }
    size_t size = 0;
    char *cubin = compile_cubin(&size);
    if (cubin == NULL) return 1;
    if (size < 4 || memcmp(cubin, "\177ELF", 4) != 0) {
        fprintf(stderr, "the cubin is not an ELF file\n");
        return 1;
    }
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod = NULL;
    CUfunction f;
    CUdeviceptr d;
    float host[32], k = 3.0f;
    for (int i = 0; i < 32; i++) host[i] = (float)i;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
        cuCtxSetCurrent(ctx) || cuMemAlloc(&d, sizeof host) || cuMemcpyHtoD(d, host, sizeof host)) {
        fprintf(stderr, "a driver call failed before the module\n");
        return 1;
    }
    void *params[] = {&d, &k};
    CUresult r = cuModuleLoadData(&mod, cubin);
    if (r == CUDA_SUCCESS) r = cuModuleGetFunction(&f, mod, "scale");
    if (r == CUDA_SUCCESS) r = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL);
    if (r == CUDA_SUCCESS) r = cuMemcpyDtoH(host, d, sizeof host);
    free(cubin);
    if (sass) {
        if (r != CUDA_ERROR_NO_BINARY_FOR_GPU) {
            fprintf(stderr, "the SASS-only cubin gave %d, not CUDA_ERROR_NO_BINARY_FOR_GPU\n",
                    (int)r);
            return 1;
        }
        return 0;
    }
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "the cubin did not run: %d\n", (int)r);
        return 1;
    }
    for (int i = 0; i < 32; i++) {
        if (host[i] != 3.0f * (float)i) {
            fprintf(stderr, "element %d is %g, not %g\n", i, (double)host[i], 3.0 * i);
            return 1;
        }
    }
    if (mod != NULL) cuModuleUnload(mod);
    cuMemFree(d);
    cuDevicePrimaryCtxRelease(dev);
    return 0;
}
