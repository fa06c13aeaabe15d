// synccheck: a __syncthreads() that only the first warp reaches; the others exit.
extern "C" __global__ void sync_partial(int *out) {
    __shared__ int s[256];
    unsigned t = threadIdx.x;
    s[t] = (int)t;
    if (t < 32) {
        __syncthreads(); // the bug: 32 of 256 threads arrive
        out[t] = s[(t + 32) % 256];
    }
}
