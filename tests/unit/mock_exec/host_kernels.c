/* Host implementations of the kernels of kernels.cu, found by the mock through
 * CUSHIM_MOCK_KERNELS: each is a plain C function over host addresses (the mock's device
 * pointers). */
#include <string.h>

#include "cushim_mock.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT void cushim_mock_kernel_vadd(const cushim_mock_kernel_args *a);
EXPORT void cushim_mock_kernel_vadd(const cushim_mock_kernel_args *a) {
    CUdeviceptr pa, pb, pc;
    int n;
    memcpy(&pa, a->params[0], sizeof pa);
    memcpy(&pb, a->params[1], sizeof pb);
    memcpy(&pc, a->params[2], sizeof pc);
    memcpy(&n, a->params[3], sizeof n);
    const float *x = (const float *)(uintptr_t)pa, *y = (const float *)(uintptr_t)pb;
    float *z = (float *)(uintptr_t)pc;
    unsigned long long threads = (unsigned long long)a->grid[0] * a->block[0];
    for (unsigned long long i = 0; i < threads && i < (unsigned long long)n; i++) {
        z[i] = x[i] + y[i];
    }
}
