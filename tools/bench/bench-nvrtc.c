/* NVRTC called directly, as a program linked to libnvrtc would: the same library cushim found
 * (cushim_lib_state), opened here and its entries resolved with dlsym. */
#include <dlfcn.h>
#include <nvrtc.h>
#include <stdio.h>
#include <string.h>

#include "bench-nvrtc.h"

const char bench_nvrtc_source[] =
    "extern \"C\" __global__ void scale(float *x, float a, unsigned n) {\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) x[i] *= a;\n"
    "}\n";

static struct {
    __typeof__(nvrtcVersion) *version;
    bench_nvrtc_calls calls; /* the compile row's */
} direct;

static void *resolve(void *h, const char *name) { return dlsym(h, name); }

bool bench_nvrtc_available(char *note, size_t n) {
    if (direct.calls.compile != NULL) return true;
    const cushim_lib_info *info = cushim_lib_state(CUSHIM_LIB_NVRTC);
    if (info->status != CUSHIM_LIB_LOADED) {
        snprintf(note, n, "NVRTC is not loaded: %.120s", info->message);
        return false;
    }
    void *h = dlopen(info->path, RTLD_NOW | RTLD_LOCAL);
    void *fns[4] = {NULL, NULL, NULL, NULL};
    static const char *const names[4] = {"nvrtcVersion", "nvrtcCreateProgram",
                                         "nvrtcCompileProgram", "nvrtcDestroyProgram"};
    for (int i = 0; i < 4 && h != NULL; i++) fns[i] = resolve(h, names[i]);
    if (fns[0] == NULL || fns[1] == NULL || fns[2] == NULL || fns[3] == NULL) {
        snprintf(note, n, "%s could not be opened here, or lacks an entry", info->path);
        return false;
    }
    memcpy(&direct.version, &fns[0], sizeof fns[0]);
    memcpy(&direct.calls.create, &fns[1], sizeof fns[1]);
    memcpy(&direct.calls.destroy, &fns[3], sizeof fns[3]);
    memcpy(&direct.calls.compile, &fns[2], sizeof fns[2]);
    return true;
}

CUresult bench_nvrtc_compile_loop(const bench_nvrtc_calls *c, int n) {
    const char *opts[] = {BENCH_NVRTC_ARCH};
    for (int i = 0; i < n; i++) {
        nvrtcProgram p;
        nvrtcResult r = c->create(&p, bench_nvrtc_source, "scale.cu", 0, NULL, NULL);
        if (r == NVRTC_SUCCESS) r = c->compile(p, 1, opts);
        c->destroy(&p);
        if (r != NVRTC_SUCCESS) return CUDA_ERROR_INVALID_SOURCE;
    }
    return CUDA_SUCCESS;
}

CUSHIM__NOINLINE CUresult bench_direct_nvrtc_compile(bench_env *e, int n) {
    (void)e;
    return bench_nvrtc_compile_loop(&direct.calls, n);
}

CUSHIM__NOINLINE CUresult loop_direct_nvrtc_version(const bench_env *e, int k) {
    (void)e;
    unsigned bad = 0;
    for (int i = 0; i < k; i++) {
        int major, minor;
        bad |= (unsigned)direct.version(&major, &minor);
    }
    return bad ? CUDA_ERROR_UNKNOWN : CUDA_SUCCESS;
}
