// A CUDA runtime program with no kernel, built with nvcc's default static runtime and stripped
// (no symbol table): cushim-run must still find the runtime inside it.
#include <cuda_runtime.h>

int main() {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess ? 0 : 1;
}
