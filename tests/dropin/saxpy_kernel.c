/* The host implementation of ptx/saxpy.ptx's kernel, for the mock driver: the mock finds it in
 * the library named by CUSHIM_MOCK_KERNELS and runs it at its place in stream order, so that the
 * drop-in programs check a real result on a machine without a GPU. The whole grid at once: a
 * block-by-block emulation would compute the same y. */
#include <cuda.h>
#include <math.h>

#include "cushim_mock.h"

__attribute__((visibility("default"))) void
cushim_mock_kernel_cushim_saxpy(const cushim_mock_kernel_args *args);

void cushim_mock_kernel_cushim_saxpy(const cushim_mock_kernel_args *args) {
    unsigned n = *(const unsigned *)args->params[0];
    float a = *(const float *)args->params[1];
    const float *x = (const float *)(uintptr_t) * (const CUdeviceptr *)args->params[2];
    float *y = (float *)(uintptr_t) * (const CUdeviceptr *)args->params[3];
    for (unsigned i = 0; i < n; i++) y[i] = fmaf(a, x[i], y[i]);
}
