/* The vecscale kernel on the host, for cushim's mock driver: what the PTX does, as one loop
 * over the threads of the grid. Device pointers on the mock are host addresses, so it reads
 * and writes them directly. The tests link it in and register it through the control API; the
 * same file built as a shared library is what CUSHIM_MOCK_KERNELS names, where the mock finds
 * it by its name, cushim_mock_kernel_ and the kernel's. */
#include <stdint.h>

#include <cushim_mock.h>

__attribute__((visibility("default"))) void
cushim_mock_kernel_vecscale(const cushim_mock_kernel_args *a);

void cushim_mock_kernel_vecscale(const cushim_mock_kernel_args *a) {
    float *data = (float *)(uintptr_t) * (const CUdeviceptr *)a->params[0];
    unsigned n = *(const unsigned *)a->params[1];
    float factor = *(const float *)a->params[2];
    for (unsigned block = 0; block < a->grid[0]; block++) {
        for (unsigned thread = 0; thread < a->block[0]; thread++) {
            unsigned i = block * a->block[0] + thread;
            if (i < n) data[i] *= factor;
        }
    }
}
