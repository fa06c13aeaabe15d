/* A program that links LTO IR with NVIDIA's nvJitLink (issue 28, item 2), built as NVIDIA's
 * jitLto sample is: linked with -lcuda and NVIDIA's -lnvJitLink, not with cushim. It links two
 * objects of LTO IR made by nvcc -dlto -dc (a kernel, and the device function it calls from the
 * other file) with -arch=sm_90 -lto, which gives a cubin of SASS alone, and runs that cubin.
 *
 *   forward_jitlink FOLDER KERNEL.o FUNCTION.o   with LD_LIBRARY_PATH=FOLDER, cushim's forward/
 *                  folder: nvJitLink's calls must reach its libnvJitLink.so.13, and the kernel
 *                  must run from the PTX that cushim links beside the cubin (exit 0).
 *   forward_jitlink --sass KERNEL.o FUNCTION.o   with NVIDIA's libnvJitLink.so.13: the first
 *                  failing driver call must be CUDA_ERROR_NO_BINARY_FOR_GPU (exit 0).
 *   forward_jitlink ... (no objects)            nvcc was not found at build time: skipped (77).
 * Exit 1 with a sentence on stderr otherwise. */
#include <nvJitLink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forward_run.h"

/* twice_plus_one.cu: p[i] = twice_plus_one(p[i]), the function 2x + 1 in the other object. */
static float want(float x) { return 2.0f * x + 1.0f; }

/* The linked cubin (malloc'd), or NULL with a sentence. */
static char *link_cubin(const char *kernel, const char *function, size_t *size) {
    nvJitLinkHandle h;
    const char *opts[] = {"-arch=sm_90", "-lto"};
    char *cubin = NULL;
    nvJitLinkResult r = nvJitLinkCreate(&h, 2, opts);
    if (r != NVJITLINK_SUCCESS) {
        fprintf(stderr, "nvJitLinkCreate: %d\n", (int)r);
        return NULL;
    }
    r = nvJitLinkAddFile(h, NVJITLINK_INPUT_OBJECT, kernel);
    if (r == NVJITLINK_SUCCESS) r = nvJitLinkAddFile(h, NVJITLINK_INPUT_OBJECT, function);
    if (r == NVJITLINK_SUCCESS) r = nvJitLinkComplete(h);
    if (r == NVJITLINK_SUCCESS) r = nvJitLinkGetLinkedCubinSize(h, size);
    if (r == NVJITLINK_SUCCESS && (cubin = malloc(*size)) != NULL) {
        r = nvJitLinkGetLinkedCubin(h, cubin);
    }
    if (r != NVJITLINK_SUCCESS || cubin == NULL) {
        fprintf(stderr, "nvJitLink: %d\n", (int)r);
        free(cubin);
        cubin = NULL;
    }
    nvJitLinkDestroy(&h);
    return cubin;
}

int main(int argc, char **argv) {
    if (argc == 2) {
        printf("# no nvcc at build time to make the LTO IR: skipped\n");
        return 77;
    }
    if (argc != 4) return 2;
    int sass = strcmp(argv[1], "--sass") == 0;
    if (!sass && forward_from("nvJitLinkAddFile", argv[1]) != 0) return 1;
    size_t size = 0;
    char *cubin = link_cubin(argv[2], argv[3], &size);
    if (cubin == NULL) return 1;
    int failed = forward_run(cubin, size, "twice_plus_one", sass, want);
    free(cubin);
    return failed;
}
