// Reverses each block's slice of an array through dynamic shared memory (sharedMemBytes at the
// launch), as ints followed by the same count of doubles, to check the alignment of the second
// part.
extern "C" __global__ void k_dynshared(const int *in, int *out, double *dout) {
    extern __shared__ double dyn[];
    double *d = dyn;
    int *s = (int *)(dyn + blockDim.x);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = in[i];
    d[threadIdx.x] = in[i] * 0.5;
    __syncthreads();
    out[i] = s[blockDim.x - 1 - threadIdx.x];
    dout[i] = d[blockDim.x - 1 - threadIdx.x];
}
