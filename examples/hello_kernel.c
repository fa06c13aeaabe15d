/* hello's kernel for the mock driver, on the host: what the PTX in hello.c does, one loop over
 * the threads of the grid. The mock finds it in the library named by CUSHIM_MOCK_KERNELS (the
 * name is cushim_mock_kernel_ and the kernel's) and runs it at its place in stream order, so
 * hello prints a real result on a machine without a GPU. This is how a test supplies the kernels
 * of the code it tests. */
#include <stdint.h>

#include "cushim_mock.h"

__attribute__((visibility("default"))) void
cushim_mock_kernel_hello(const cushim_mock_kernel_args *a);

void cushim_mock_kernel_hello(const cushim_mock_kernel_args *a) {
    uint32_t *out = (uint32_t *)(uintptr_t) * (const CUdeviceptr *)a->params[0];
    uint32_t n = *(const uint32_t *)a->params[1];
    for (uint32_t block = 0; block < a->grid[0]; block++) {
        for (uint32_t thread = 0; thread < a->block[0]; thread++) {
            uint32_t i = block * a->block[0] + thread;
            if (i < n) out[i] = i;
        }
    }
}
