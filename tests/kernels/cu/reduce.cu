// Sum of integers: each block folds its 256 values in shared memory down to one warp, then the
// warp finishes with __shfl_down_sync and lane 0 adds the block's sum to the total.
extern "C" __global__ void k_reduce(const int *in, int n, int *total) {
    __shared__ int part[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s >= 32; s /= 2) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x < 32) {
        int v = part[threadIdx.x];
        for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
        if (threadIdx.x == 0) atomicAdd(total, v);
    }
}
