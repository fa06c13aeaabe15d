// Device code for the mock's image tests: nvcc turns it into PTX, a cubin and fatbins at build
// time, and the tests read back what the mock found in them.
__device__ float scale_factor[4];
__constant__ int offset_value;

extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

struct pair24 {
    char bytes[24];
    double d;
};

extern "C" __global__ void mixed(char c, short s, pair24 p, double d, int *out) {
    if (out) *out = c + s + p.bytes[0] + (int)d;
}
