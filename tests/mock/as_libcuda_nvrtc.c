/* NVIDIA's libnvrtc with the mock as libcuda.so.1 (issue 28 item 1). libnvrtc opens libcuda.so.1
 * itself when it compiles and calls its cuGetExportTable: it crashed (SIGSEGV inside
 * nvrtcCompileProgram) when the mock exported no such symbol, and it crashes as well when the
 * entry answers CUDA_SUCCESS with no table; the mock's stub answers CUDA_ERROR_NOT_SUPPORTED,
 * which libnvrtc checks. This program compiles a kernel for sm_90 (the path that asks for the
 * table) and for compute_90, loads the PTX on the mock and runs it. Exit status 0 when every step
 * gave what the driver would. It is run with LD_LIBRARY_PATH at a folder whose libcuda.so.1 is
 * the mock; libnvrtc comes from the toolkit folder given as the first argument. */
#include <cuda.h>
#include <dlfcn.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef nvrtcResult (*create_fn)(nvrtcProgram *, const char *, const char *, int,
                                 const char *const *, const char *const *);
typedef nvrtcResult (*compile_fn)(nvrtcProgram, int, const char *const *);
typedef nvrtcResult (*size_fn)(nvrtcProgram, size_t *);
typedef nvrtcResult (*get_fn)(nvrtcProgram, char *);
typedef nvrtcResult (*destroy_fn)(nvrtcProgram *);

static const char source[] =
    "extern \"C\" __global__ void add_two(int *p) { p[threadIdx.x] += 2; }";

/* fn = the function `name` of lib (a data pointer copied into a function pointer). */
#define LOAD(fn, name)                                                                             \
    do {                                                                                           \
        void *sym_ = dlsym(lib, name);                                                             \
        memcpy(&(fn), &sym_, sizeof sym_);                                                         \
    } while (0)

/* Compiles source with one option; the PTX (malloc'd) when want_ptx, else NULL. 0 on success. */
static int compile(void *lib, const char *option, char **ptx) {
    create_fn create;
    compile_fn comp;
    size_fn ptx_size;
    get_fn get_ptx;
    destroy_fn destroy;
    LOAD(create, "nvrtcCreateProgram");
    LOAD(comp, "nvrtcCompileProgram");
    LOAD(ptx_size, "nvrtcGetPTXSize");
    LOAD(get_ptx, "nvrtcGetPTX");
    LOAD(destroy, "nvrtcDestroyProgram");
    if (!create || !comp || !ptx_size || !get_ptx || !destroy) return 1;
    nvrtcProgram p;
    if (create(&p, source, "add_two.cu", 0, NULL, NULL) != NVRTC_SUCCESS) return 2;
    const char *opts[] = {option};
    int failed = comp(p, 1, opts) != NVRTC_SUCCESS ? 3 : 0;
    size_t n = 0;
    if (!failed && ptx != NULL && ptx_size(p, &n) == NVRTC_SUCCESS && (*ptx = malloc(n)) != NULL) {
        failed = get_ptx(p, *ptx) != NVRTC_SUCCESS ? 4 : 0;
    }
    destroy(&p);
    return failed;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    char path[4096];
    snprintf(path, sizeof path, "%s/libnvrtc.so.13", argv[1]);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        printf("# no %s: skipped\n", path);
        return 77;
    }
    char *ptx = NULL;
    int r = compile(lib, "--gpu-architecture=sm_90", NULL);
    if (r == 0) r = compile(lib, "--gpu-architecture=compute_90", &ptx) ? 10 : 0;
    if (r != 0) {
        fprintf(stderr, "NVRTC step %d failed\n", r);
        return 1;
    }
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction f;
    CUdeviceptr d;
    int host[32];
    for (int i = 0; i < 32; i++) host[i] = i;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
        cuCtxSetCurrent(ctx) || cuModuleLoadData(&mod, ptx) ||
        cuModuleGetFunction(&f, mod, "add_two") || cuMemAlloc(&d, sizeof host) ||
        cuMemcpyHtoD(d, host, sizeof host)) {
        fprintf(stderr, "a driver call failed\n");
        return 1;
    }
    void *params[] = {&d};
    if (cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL) ||
        cuMemcpyDtoH(host, d, sizeof host)) {
        fprintf(stderr, "the launch failed\n");
        return 1;
    }
    for (int i = 0; i < 32; i++) {
        if (host[i] != i + 2) {
            fprintf(stderr, "element %d is %d, not %d\n", i, host[i], i + 2);
            return 1;
        }
    }
    cuMemFree(d);
    cuModuleUnload(mod);
    cuDevicePrimaryCtxRelease(dev);
    free(ptx);
    dlclose(lib);
    return 0;
}
