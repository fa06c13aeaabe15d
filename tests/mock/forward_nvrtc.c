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
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forward_run.h"

static const char source[] =
    "extern \"C\" __global__ void triple(float *p) { p[threadIdx.x] *= 3.0f; }";

static float triple(float x) { return 3.0f * x; }

/* The cubin of source for sm_90 (malloc'd), or NULL with a sentence. */
static char *compile_cubin(size_t *size) {
    nvrtcProgram p;
    if (nvrtcCreateProgram(&p, source, "triple.cu", 0, NULL, NULL) != NVRTC_SUCCESS) {
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

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    int sass = strcmp(argv[1], "--sass") == 0;
    if (!sass && forward_from("nvrtcGetCUBIN", argv[1]) != 0) return 1;
    size_t size = 0;
    char *cubin = compile_cubin(&size);
    if (cubin == NULL) return 1;
    int failed = forward_run(cubin, size, "triple", sass, triple);
    free(cubin);
    return failed;
}
