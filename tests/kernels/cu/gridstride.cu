// A grid-stride loop: a fixed grid walks an array of any length.
extern "C" __global__ void k_gridstride(const unsigned *in, unsigned *out, unsigned n) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        out[i] = in[i] * 2654435761u + i;
    }
}
