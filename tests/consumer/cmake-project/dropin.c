/* An unmodified driver-API program built with cushim::cuda and run with
 * CUSHIM_DRIVER=/nonexistent: cuInit fails with a code whose name and text work. */
#include <cuda.h>
#include <stdio.h>

int main(void) {
    CUresult r = cuInit(0);
    const char *name = NULL, *text = NULL;
    if (cuGetErrorName(r, &name) != CUDA_SUCCESS || cuGetErrorString(r, &text) != CUDA_SUCCESS)
        return 1;
    printf("cuInit through the drop-in: %s: %s\n", name, text);
    return r != CUDA_SUCCESS && name != NULL && text != NULL ? 0 : 1;
}
