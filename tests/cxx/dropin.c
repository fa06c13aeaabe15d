/* The drop-in cuda.h, as C and as C++ with -Wall -Wextra -pedantic -Werror: an unmodified
 * driver-API translation unit whose entry points keep cuda.h's own types, so their addresses
 * and (in C++) decltype work. Compiled, not run; also compiled with
 * -DCUDA_API_PER_THREAD_DEFAULT_STREAM=1. */
#include <cuda.h>
#include <cuda.h>

#include <stddef.h>

typedef CUresult (*mem_alloc_fn)(CUdeviceptr *, size_t);

#ifdef __cplusplus
#include <type_traits>
static_assert(std::is_same<decltype(&cuMemAlloc), mem_alloc_fn>::value,
              "cuMemAlloc has cuda.h's type");
typedef decltype(cuLaunchKernel) launch_kernel_t;
#else
typedef CUresult launch_kernel_t(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                 unsigned, unsigned, CUstream, void **, void **);
#endif

int main(void) {
    mem_alloc_fn alloc = &cuMemAlloc;
    launch_kernel_t *launch = &cuLaunchKernel;
    CUdeviceptr p = 0;
    const char *name = NULL;
    CUresult r = cuInit(0);
    if (r == CUDA_SUCCESS) r = alloc(&p, 16);
    if (r == CUDA_SUCCESS) r = launch(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
    if (r == CUDA_SUCCESS) r = cuMemFree(p);
    cuGetErrorName(r, &name);
    return name != NULL && r == CUDA_SUCCESS ? 0 : 1;
}
