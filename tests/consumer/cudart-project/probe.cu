// A CUDA runtime program for the consumer suite (built by nvcc with -cudart none and
// cushim-cudart, and by CMake) and for cushim-run's tests (the shared runtime with a RUNPATH, the
// static runtime, a DT_RPATH). It prints which file holds the runtime it called, then squares 256
// numbers on the device and checks them: exit 0 only when all are right.
#include <cstdio>
#include <dlfcn.h>

#include <cuda_runtime.h>

__global__ void square(int *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        v[i] = i * i;
    }
}

static int fail(const char *what, cudaError_t e) {
    std::printf("%s: %s (%s)\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
    return 1;
}

int main() {
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&cudaGetDeviceCount), &info) != 0 && info.dli_fname) {
        std::printf("libcudart: %s\n", info.dli_fname);
    }
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        return fail("cudaGetDeviceCount", e);
    }
    const int n = 256;
    int *d = nullptr;
    if ((e = cudaMalloc(&d, n * sizeof(int))) != cudaSuccess) {
        return fail("cudaMalloc", e);
    }
    square<<<n / 64, 64>>>(d, n);
    if ((e = cudaGetLastError()) != cudaSuccess) {
        return fail("launch", e);
    }
    int h[n];
    if ((e = cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost)) != cudaSuccess) {
        return fail("cudaMemcpy", e);
    }
    cudaFree(d);
    for (int i = 0; i < n; i++) {
        if (h[i] != i * i) {
            std::printf("kernel: element %d is %d, not %d\n", i, h[i], i * i);
            return 1;
        }
    }
    std::printf("kernel: ok on %d device(s)\n", count);
    return 0;
}
