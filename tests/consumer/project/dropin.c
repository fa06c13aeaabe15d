/* A consumer's driver-API code, unchanged: it includes <cuda.h> and calls cuInit. Built with the
 * cushim-cuda dependency, it runs on a machine without a driver and gets an error, not a loader
 * failure. Exit 0 when the result is coherent either way. */
#include <cuda.h>
#include <stdio.h>

int main(void) {
#if !defined(CUSHIM_CUDA_DROPIN)
    fprintf(stderr, "built against the toolkit's cuda.h, not cushim's drop-in\n");
    return 1;
#endif
    CUresult r = cuInit(0);
    const char *name = NULL;
    if (cuGetErrorName(r, &name) != CUDA_SUCCESS || name == NULL) return 1;
    printf("cuInit through the drop-in: %s\n", name);
    if (r != CUDA_SUCCESS) return 0;
    int count = -1;
    return cuDeviceGetCount(&count) == CUDA_SUCCESS && count >= 0 ? 0 : 1;
}
